/* Parameters changed during a run (herd_sim_set_param): the steps before the change are the
 * run's own, the step after it follows the model's equation with the new value on both
 * backends, bad paths and values change nothing, and the two backends still agree. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>

#include "rng.h"
#include "sim_util.h"

#define TESTS(X)                                   \
  X(repulsion_off_follows_the_equation_cpu)        \
  X(a_change_leaves_earlier_steps_alone)           \
  X(bad_paths_and_values_change_nothing)           \
  X(fields_that_set_up_the_run_are_refused)        \
  X(the_live_fields_are_listed_and_all_settable)   \
  X(dog_speed_changes_the_dogs_step)               \
  X(opencl_follows_the_change_and_agrees_with_cpu) \
  X(opencl_prepass_follows_the_neighbour_count)    \
  X(a_schedule_makes_the_api_changes)              \
  X(a_batch_makes_each_worlds_schedule)            \
  X(a_schedule_goes_on_after_a_checkpoint)
TESTS(DECLARE_TEST)

#define K 4u /* the change comes after this many steps */

/* 200 sheep bunched well inside each other's repulsion radius, no dog: every sheep grazes
 * (p = 1), so its heading is unit(e eps + rho_a r_a) each step (kernels/models/strombom.h). */
static herd_scenario bunched(void) {
  const char *sets[] = {"sheep.count=200",
                        "dogs.count=0",
                        "sheep.graze_probability=1",
                        "sheep.repulsion_radius_m=60",
                        "sheep.spawn.from=[0.45, 0.45]",
                        "sheep.spawn.to=[0.55, 0.55]"};
  return scenario_with(sets, 6);
}

static herd_sim *start_on(const herd_scenario *sc, const char *backend) {
  herd_sim *sim;
  herd_error err;
  if (herd_sim_create(&(herd_sim_desc){.scenario = sc, .threads = 2, .backend = backend}, &sim, &err) != HERD_OK) {
    fprintf(stderr, "herd_sim_create: %s\n", err.message);
    exit(1);
  }
  return sim;
}

static void steps(herd_sim *sim, uint32_t count) {
  herd_error err;
  for (uint32_t s = 0; s < count; ++s) CHECK_MSG(herd_sim_step(sim, &err) == HERD_OK, "%s", err.message);
}

/* How many sheep took step `step` as the equation with rho_a = 0 says: the heading is the
 * noise direction eps alone and the sheep moves delta along it (within `tol`). */
static uint32_t sheep_moving_on_noise_alone(const flock_copy *before, const flock_copy *after, uint64_t seed,
                                            uint32_t step, float delta, float tol) {
  uint32_t agree = 0;
  for (uint32_t i = 0; i < before->n; ++i) {
    herd_vec2 eps = herd_rng_direction(herd_rng_draw(seed, step, i, HERD_STREAM_SHEEP_NOISE).v[0]);
    const float *v = &after->vel[2 * i], *p0 = &before->pos[2 * i], *p1 = &after->pos[2 * i];
    bool heading = fabsf(v[0] - eps.x) <= tol && fabsf(v[1] - eps.y) <= tol;
    bool moved =
        fabsf(p1[0] - (p0[0] + delta * v[0])) <= tol * 100 && fabsf(p1[1] - (p0[1] + delta * v[1])) <= tol * 100;
    agree += heading && moved;
  }
  return agree;
}

/* Sets the repulsion weight to 0 after K steps on `backend`; checks step K + 1 against the
 * equation, and that the same step without the change does not follow it (the test can fail). */
static void check_repulsion_off(const char *backend, float tol) {
  herd_scenario sc = bunched();
  herd_sim *changed = start_on(&sc, backend), *kept = start_on(&sc, backend);
  steps(changed, K), steps(kept, K);
  /* Read from the twin: reading `changed` would settle a step the OpenCL host ran ahead. */
  flock_copy before = read_flock(kept);
  herd_error err;
  CHECK_MSG(herd_sim_set_param(changed, "sheep.repulsion", 0.0, &err) == HERD_OK, "%s", err.message);
  double now = -1;
  CHECK(herd_scenario_get(herd_sim_scenario(changed), "sheep.repulsion", &now, &err) == HERD_OK && now == 0.0);
  steps(changed, 1), steps(kept, 1);
  flock_copy after = read_flock(changed), control = read_flock(kept);
  uint32_t n = sc.flock.count;
  uint32_t agree = sheep_moving_on_noise_alone(&before, &after, sc.seed, K, 1.0f, tol);
  uint32_t control_agree = sheep_moving_on_noise_alone(&before, &control, sc.seed, K, 1.0f, tol);
  CHECK_MSG(agree == n, "%s: %u of %u sheep moved on the noise alone after rho_a = 0", backend, agree, n);
  CHECK_MSG(control_agree < n / 10, "%s: %u of %u sheep did so without the change", backend, control_agree, n);
  free_flock(&before), free_flock(&after), free_flock(&control);
  herd_sim_destroy(changed), herd_sim_destroy(kept);
}

static void repulsion_off_follows_the_equation_cpu(void) { check_repulsion_off("cpu", 1e-6f); }

/* The flock, observation and step index by bytes, to compare two sims. */
static bool same_run(herd_sim *a, herd_sim *b) {
  flock_copy x = read_flock(a), y = read_flock(b);
  size_t bytes = (size_t)x.n * x.dims * sizeof *x.pos;
  bool same = x.n == y.n && memcmp(x.pos, y.pos, bytes) == 0 && memcmp(x.vel, y.vel, bytes) == 0 &&
              herd_sim_step_index(a) == herd_sim_step_index(b) &&
              memcmp(herd_sim_observation(a), herd_sim_observation(b), sizeof(herd_observation)) == 0;
  free_flock(&x), free_flock(&y);
  return same;
}

static void a_change_leaves_earlier_steps_alone(void) {
  herd_scenario sc = bunched();
  herd_sim *changed = start_on(&sc, "cpu"), *kept = start_on(&sc, "cpu");
  steps(changed, K), steps(kept, K);
  herd_error err;
  CHECK(herd_sim_set_param(changed, "sheep.noise", 0.9, &err) == HERD_OK);
  CHECK_MSG(same_run(changed, kept), "setting a parameter changed the state before the next step");
  CHECK(herd_sim_scenario(changed)->params.words[0] == herd_sim_scenario(kept)->params.words[0]); /* n untouched */
  steps(changed, 1), steps(kept, 1);
  CHECK_MSG(!same_run(changed, kept), "the next step ignored the new noise weight");
  herd_sim_destroy(changed), herd_sim_destroy(kept);
}

/* A failed call: HERD_E_INPUT, the scenario byte for byte as before, and the runs go on alike. */
static void check_refused(herd_sim *sim, herd_sim *twin, const char *path, double value, const char *says) {
  herd_scenario was = *herd_sim_scenario(sim);
  herd_error err = {0};
  CHECK_MSG(herd_sim_set_param(sim, path, value, &err) == HERD_E_INPUT, "%s = %g was accepted", path, value);
  CHECK_MSG(strstr(err.message, says), "%s = %g: \"%s\" lacks \"%s\"", path, value, err.message, says);
  CHECK_MSG(memcmp(&was, herd_sim_scenario(sim), sizeof was) == 0, "%s = %g changed the scenario", path, value);
  steps(sim, 1), steps(twin, 1);
  CHECK_MSG(same_run(sim, twin), "%s = %g changed the run", path, value);
}

static void bad_paths_and_values_change_nothing(void) {
  herd_scenario sc = bunched();
  herd_sim *sim = start_on(&sc, "cpu"), *twin = start_on(&sc, "cpu");
  check_refused(sim, twin, "sheep.repulsion", -1.0, "out of range");
  check_refused(sim, twin, "sheep.repulsion", NAN, "sheep.repulsion");
  check_refused(sim, twin, "sheep.repulsoin", 1.0, "sheep.repulsion"); /* the nearest name suggested */
  check_refused(sim, twin, "boids.turn_factor", 1.0, "boids");
  check_refused(sim, twin, "sheep.neighbours", 2.5, "sheep.neighbours");
  check_refused(sim, twin, "", 1.0, "path");
  /* The same message as --set gives for the same override. */
  herd_error via_sim, via_set;
  herd_scenario out;
  const char *set[] = {"sheep.repulsion=-1"};
  CHECK(herd_sim_set_param(sim, "sheep.repulsion", -1.0, &via_sim) == HERD_E_INPUT);
  CHECK(scenario_load(NULL, set, 1, &out, &via_set) == HERD_E_INPUT);
  CHECK_MSG(strcmp(via_sim.message, via_set.message) == 0, "\"%s\" vs --set's \"%s\"", via_sim.message,
            via_set.message);
  herd_sim_destroy(sim), herd_sim_destroy(twin);
}

static void fields_that_set_up_the_run_are_refused(void) {
  herd_scenario sc = bunched();
  herd_sim *sim = start_on(&sc, "cpu"), *twin = start_on(&sc, "cpu");
  const char *fixed[] = {"sheep.count", "world.size_m", "seed", "dogs.count", "max_steps", "sheep.success"};
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed; ++i)
    check_refused(sim, twin, fixed[i], 1.0, "cannot change during a run");
  herd_sim_destroy(sim), herd_sim_destroy(twin);
}

static void the_live_fields_are_listed_and_all_settable(void) {
  const char *models[] = {"model=strombom", "model=boids", "model=netlogo", "model=couzin"};
  for (size_t m = 0; m < sizeof models / sizeof *models; ++m) {
    herd_scenario sc = scenario_with(&models[m], 1);
    herd_sim *sim = start_on(&sc, "cpu");
    uint32_t count = 0;
    const char *name;
    for (; (name = herd_sim_param_name(sim, count, NULL)); ++count) {
      double value;
      herd_error err;
      CHECK_MSG(herd_scenario_get(&sc, name, &value, &err) == HERD_OK, "%s: %s", name, err.message);
      CHECK_MSG(herd_sim_set_param(sim, name, value, &err) == HERD_OK, "%s: %s", name, err.message);
    }
    CHECK_MSG(count >= 3, "%s: only %u live fields", models[m], count);
    steps(sim, 2);
    herd_sim_destroy(sim);
  }
}

static void dog_speed_changes_the_dogs_step(void) {
  herd_scenario sc = scenario_with(NULL, 0);
  herd_sim *sim = start_on(&sc, "cpu");
  steps(sim, 3);
  herd_error err;
  CHECK_MSG(herd_sim_set_param(sim, "dogs.speed_m_per_step", 0.25, &err) == HERD_OK, "%s", err.message);
  float was[2] = {herd_sim_steering(sim, 0)->pos[0], herd_sim_steering(sim, 0)->pos[1]};
  steps(sim, 1);
  const herd_steering_state *dog = herd_sim_steering(sim, 0);
  double moved = hypot(dog->pos[0] - was[0], dog->pos[1] - was[1]);
  CHECK_MSG(moved <= 0.25 + 1e-5 && dog->speed_m_per_step == 0.25f, "the dog moved %g m", moved);
  CHECK_MSG(moved > 0.2 || dog->mode == HERD_MODE_WAIT, "the dog moved %g m", moved);
  herd_sim_destroy(sim);
}

/* The largest difference between the two backends' positions, relative to the field. */
static double backends_apart(herd_sim *cpu, herd_sim *cl) {
  flock_copy a = read_flock(cpu), b = read_flock(cl);
  double worst = 0;
  for (uint32_t i = 0; i < a.n * a.dims; ++i) worst = fmax(worst, fabs((double)a.pos[i] - b.pos[i]));
  free_flock(&a), free_flock(&b);
  return worst;
}

static void opencl_follows_the_change_and_agrees_with_cpu(void) {
  if (!have_opencl()) {
    printf("  no OpenCL device: skipped\n");
    return;
  }
  check_repulsion_off("opencl", 1e-4f); /* PoCL's sin and cos are not glibc's */
  herd_scenario sc = bunched();
  herd_sim *cpu = start_on(&sc, "cpu"), *cl = start_on(&sc, "opencl");
  steps(cpu, K), steps(cl, K);
  double apart_before = backends_apart(cpu, cl);
  herd_error err;
  CHECK(herd_sim_set_param(cpu, "sheep.repulsion_radius_m", 5, &err) == HERD_OK);
  CHECK(herd_sim_set_param(cl, "sheep.repulsion_radius_m", 5, &err) == HERD_OK);
  steps(cpu, K), steps(cl, K);
  double apart_after = backends_apart(cpu, cl);
  CHECK_MSG(apart_before < 1e-3 && apart_after < 1e-3, "apart by %g m before the change, %g m after", apart_before,
            apart_after);
  herd_sim_destroy(cpu), herd_sim_destroy(cl);
}

/* The neighbour count n with the OpenCL pre-pass forced on (kernels/knn_coop.cl, run by default
 * on GPUs only): a new n reaches it, and n = N - 1, which it does not serve, switches it off; the
 * backends agree throughout. Every sheep sees the dogs, so every sheep's attraction counts. */
static void opencl_prepass_follows_the_neighbour_count(void) {
  if (!have_opencl()) {
    printf("  no OpenCL device: skipped\n");
    return;
  }
  setenv("HERD_CL_COOP", "1", 1);
  const char *sets[] = {"sheep.count=300", "sheep.dog_radius_m=1e6", "dogs.count=2"};
  herd_scenario sc = scenario_with(sets, 3);
  herd_sim *cpu = start_on(&sc, "cpu"), *cl = start_on(&sc, "opencl");
  unsetenv("HERD_CL_COOP");
  steps(cpu, K), steps(cl, K);
  double apart[3] = {backends_apart(cpu, cl), 0, 0};
  const double counts[2] = {5, 299};
  herd_error err;
  for (int c = 0; c < 2; ++c) {
    CHECK(herd_sim_set_param(cpu, "sheep.neighbours", counts[c], &err) == HERD_OK);
    CHECK(herd_sim_set_param(cl, "sheep.neighbours", counts[c], &err) == HERD_OK);
    steps(cpu, K), steps(cl, K);
    apart[c + 1] = backends_apart(cpu, cl);
  }
  CHECK_MSG(apart[0] < 1e-3 && apart[1] < 1e-3 && apart[2] < 1e-3, "apart by %g, then %g (n = 5), %g m (n = N - 1)",
            apart[0], apart[1], apart[2]);
  herd_sim_destroy(cpu), herd_sim_destroy(cl);
}

/* ---- The schedule ("schedule", --set-at) ------------------------------------------------- */

/* Three changes, two of them at one step: the bunched flock's, written as --set-at gives them. */
static const char *const changes[] = {"@3:sheep.repulsion=0.25", "@3:sheep.noise=0.9", "@7:sheep.repulsion=2.5"};

static herd_scenario scheduled(const char *const *extra, int extra_count) {
  const char *sets[16] = {"sheep.count=200",
                          "dogs.count=0",
                          "sheep.graze_probability=1",
                          "sheep.repulsion_radius_m=60",
                          "sheep.spawn.from=[0.45, 0.45]",
                          "sheep.spawn.to=[0.55, 0.55]",
                          changes[0],
                          changes[1],
                          changes[2]};
  for (int k = 0; k < extra_count; ++k) sets[9 + k] = extra[k];
  return scenario_with(sets, 9 + extra_count);
}

/* The same changes through herd_sim_set_param, once `step` steps have run. */
static void api_changes(herd_sim *sim, uint32_t step) {
  herd_error err;
  if (step == 3) {
    CHECK(herd_sim_set_param(sim, "sheep.repulsion", 0.25, &err) == HERD_OK);
    CHECK(herd_sim_set_param(sim, "sheep.noise", 0.9, &err) == HERD_OK);
  }
  if (step == 7) CHECK(herd_sim_set_param(sim, "sheep.repulsion", 2.5, &err) == HERD_OK);
}

/* A scheduled run and the same run changed through the API: the same bits after every step,
 * on both backends (OpenCL, with no steering agent, runs a step ahead: not across a change);
 * and not the bits of the run without the changes. */
static void a_schedule_makes_the_api_changes(void) {
  const char *backends[] = {"cpu", "opencl"};
  for (int b = 0; b < 2; ++b) {
    if (b == 1 && !have_opencl()) {
      printf("  no OpenCL device: OpenCL skipped\n");
      break;
    }
    herd_scenario sc = scheduled(NULL, 0), plain = sc;
    plain.schedule.count = 0;
    CHECK(herd_scenario_schedule_count(&sc) == 3);
    herd_sim *by_schedule = start_on(&sc, backends[b]), *by_api = start_on(&plain, backends[b]),
             *unchanged = start_on(&plain, backends[b]);
    for (uint32_t step = 0; step < 10; ++step) {
      api_changes(by_api, step);
      steps(by_schedule, 1), steps(by_api, 1), steps(unchanged, 1);
      CHECK_MSG(same_run(by_schedule, by_api), "%s: the runs part at step %u", backends[b], step + 1);
      CHECK_MSG(same_run(by_schedule, unchanged) == (step < 3), "%s: step %u", backends[b], step + 1);
      CHECK(herd_sim_schedule_made(by_schedule) == (step < 3 ? 0u : step < 7 ? 2u : 3u));
    }
    double now = 0;
    herd_error err;
    CHECK(herd_scenario_get(herd_sim_scenario(by_schedule), "sheep.repulsion", &now, &err) == HERD_OK && now == 2.5);
    herd_sim_destroy(by_schedule), herd_sim_destroy(by_api), herd_sim_destroy(unchanged);
  }
}

/* A batch of worlds, each with a schedule of its own (one without), each as the world alone. */
static void a_batch_makes_each_worlds_schedule(void) {
  const char *backends[] = {"cpu", "opencl"};
  for (int b = 0; b < 2; ++b) {
    if (b == 1 && !have_opencl()) {
      printf("  no OpenCL device: OpenCL skipped\n");
      break;
    }
    const char *later[] = {"@5:sheep.noise=0.05", "seed=9"};
    herd_scenario sc[3] = {scheduled(NULL, 0), scheduled(later, 2), scheduled(NULL, 0)};
    sc[2].schedule.count = 0;
    herd_sim_desc descs[3];
    for (int w = 0; w < 3; ++w) descs[w] = (herd_sim_desc){.scenario = &sc[w], .threads = 2, .backend = backends[b]};
    herd_batch *batch;
    herd_error err;
    CHECK_MSG(herd_batch_create(descs, 3, &batch, &err) == HERD_OK, "%s", err.message);
    herd_sim *alone[3];
    for (int w = 0; w < 3; ++w) alone[w] = start_on(&sc[w], backends[b]);
    for (uint32_t step = 0; step < 9; ++step) {
      CHECK(herd_batch_step(batch, &err) == HERD_OK);
      for (int w = 0; w < 3; ++w) steps(alone[w], 1);
    }
    for (int w = 0; w < 3; ++w) {
      flock_copy a = read_flock(alone[w]);
      float *p = malloc((size_t)a.n * a.dims * sizeof *p);
      CHECK(herd_batch_read_flock(batch, (uint32_t)w, p, NULL, &err) == HERD_OK);
      CHECK_MSG(memcmp(p, a.pos, (size_t)a.n * a.dims * sizeof *p) == 0, "%s: world %d differs from itself alone",
                backends[b], w);
      CHECK(herd_sim_schedule_made(herd_batch_world(batch, (uint32_t)w)) == sc[w].schedule.count);
      free(p), free_flock(&a), herd_sim_destroy(alone[w]);
    }
    herd_batch_destroy(batch);
  }
}

/* A run checkpointed between two scheduled changes and resumed makes the later one, and ends
 * as the run that was never stopped. */
static void a_schedule_goes_on_after_a_checkpoint(void) {
  herd_scenario sc = scheduled(NULL, 0);
  herd_sim *whole = start_on(&sc, "cpu"), *first = start_on(&sc, "cpu"), *resumed;
  herd_error err;
  const char *path = "test_params-schedule.ckpt";
  steps(first, 5);
  CHECK_MSG(herd_sim_checkpoint(first, path, true, &err) == HERD_OK, "%s", err.message);
  CHECK_MSG(herd_sim_resume(&(herd_sim_desc){.threads = 2, .backend = "cpu"}, path, &resumed, &err) == HERD_OK, "%s",
            err.message);
  CHECK(herd_scenario_schedule_count(herd_sim_scenario(resumed)) == 3);
  steps(whole, 10), steps(resumed, 5);
  CHECK(herd_sim_schedule_made(resumed) == 3);
  CHECK_MSG(same_run(whole, resumed), "the resumed run parts from the whole one");
  remove(path);
  herd_sim_destroy(whole), herd_sim_destroy(first), herd_sim_destroy(resumed);
}

int main(void) { TEST_MAIN(TESTS); }
