/* Batches of worlds (herd_backend_ops.create_batch, and herd_batch over it): each world of a
 * batch runs bit for bit as it does alone on the same backend, on the CPU and on OpenCL, for
 * worlds of different sizes (one over a reduction block), parameters, seeds and steering
 * agents, and a world that finishes early keeps its state; worlds restarted between steps run
 * as new simulations while the others go on, and steered worlds as steered simulations. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdlib.h>
#include <string.h>

#include "backend_util.h"
#include "sim_util.h"
#include "test.h"

#define TESTS(X)                        \
  X(cpu_batch_worlds_run_as_alone)      \
  X(opencl_batch_worlds_run_as_alone)   \
  X(strombom_batch_worlds_run_as_alone) \
  X(a_batch_refuses_mixed_models)       \
  X(sim_batches_run_as_herd_sim_alone)  \
  X(sim_batch_refuses_mixed_worlds)     \
  X(restarted_worlds_run_as_new_sims)   \
  X(a_restart_refuses_another_layout)   \
  X(steered_batch_worlds_run_as_steered_sims)
TESTS(DECLARE_TEST)

enum { WORLDS = 3, STEPS = 6, FINISHED_AFTER = 3 };

typedef struct world_case {
  herd_scenario sc;
  herd_backend_desc desc;
  float *pos, *vel;
  float steer[HERD_STEER_FLOATS * 2];
  uint32_t steer_count;
} world_case;

/* World w's scenario, flock and steering agents: sizes 60, 700 and 5000 (over one block). */
static world_case make_world(const char *model, uint32_t w) {
  static const char *const sizes[][WORLDS] = {{"boids.count=60", "boids.count=700", "boids.count=5000"},
                                              {"sheep.count=60", "sheep.count=700", "sheep.count=5000"}};
  static const char *const extra[][WORLDS] = {
      {"boids.visual_range_m=30", "boids.view_angle_deg=270", "world.wrap=[true,true]"},
      {"sheep.neighbours=20", "sheep.neighbours=50", "sheep.dog_radius_m=1e9"}};
  int m = strcmp(model, "boids") == 0 ? 0 : 1;
  char seed[32], model_set[32];
  snprintf(seed, sizeof seed, "seed=%u", 11 + 7 * w);
  snprintf(model_set, sizeof model_set, "model=%s", model);
  const char *sets[] = {model_set, sizes[m][w], extra[m][w], seed};
  world_case c;
  memset(&c, 0, sizeof c);
  c.sc = scenario_with(sets, 4);
  c.desc = backend_desc_for(&c.sc, c.sc.flock.count, 1);
  uint32_t n = c.sc.flock.count, stride = c.sc.world.dims == 3 ? 4 : 2;
  c.pos = calloc((size_t)n * stride, sizeof *c.pos);
  c.vel = calloc((size_t)n * stride, sizeof *c.vel);
  uint64_t x = 0x9e3779b97f4a7c15ull * (w + 1);
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t k = 0; k < c.sc.world.dims; ++k) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      c.pos[i * stride + k] = (float)((x >> 11) * 0x1.0p-53) * c.sc.world.size_m[k] * (m ? 0.3f : 1.0f);
      c.vel[i * stride + k] = k == 0 ? 4.0f : 1.0f;
    }
  c.steer_count = 1 + w % 2;
  for (uint32_t d = 0; d < c.steer_count; ++d)
    c.steer[HERD_STEER_FLOATS * d] = 10.0f + 40.0f * d, c.steer[HERD_STEER_FLOATS * d + 1] = 20.0f;
  return c;
}

static void free_world(world_case *c) {
  free(c->pos);
  free(c->vel);
}

static bool same_obs(const herd_observation *a, const herd_observation *b) {
  return a->count == b->count && a->delivered == b->delivered && a->in_goal == b->in_goal &&
         memcmp(a->centroid, b->centroid, sizeof a->centroid) == 0 && a->farthest_id == b->farthest_id &&
         a->farthest_dist_m == b->farthest_dist_m && a->polarisation == b->polarisation && a->milling == b->milling &&
         memcmp(a->nearest, b->nearest, sizeof a->nearest) == 0;
}

/* Steps each world alone and all together in a batch; world 1 stops after FINISHED_AFTER. With
 * `stop` (never raised), an OpenCL step may run in slices (HERD_CL_SLICE_AGENTS). */
static void check_batch(const herd_backend_ops *ops, const char *model, const volatile sig_atomic_t *stop) {
  world_case c[WORLDS];
  herd_backend *alone[WORLDS], *batch = NULL;
  herd_backend_desc descs[WORLDS];
  herd_error err;
  for (uint32_t w = 0; w < WORLDS; ++w) {
    c[w] = make_world(model, w);
    c[w].desc.params = c[w].sc.params.bytes; /* make_world's copy of the scenario is gone */
    c[w].desc.stop = stop;
    descs[w] = c[w].desc;
    CHECK_MSG(ops->create(&c[w].desc, &alone[w], &err) == HERD_OK, "%s", err.message);
    CHECK(ops->upload(alone[w], c[w].pos, c[w].vel, &err) == HERD_OK);
  }
  CHECK_MSG(ops->create_batch(descs, WORLDS, &batch, &err) == HERD_OK, "%s", err.message);
  for (uint32_t w = 0; w < WORLDS; ++w)
    CHECK(ops->upload_world(batch, w, c[w].desc.seed, c[w].pos, c[w].vel, &err) == HERD_OK);
  herd_observation one[WORLDS], all[WORLDS], frozen;
  herd_world_input in[WORLDS];
  for (uint32_t w = 0; w < WORLDS; ++w) {
    in[w] = (herd_world_input){.steer = {c[w].steer, c[w].steer_count}, .active = true};
    CHECK(ops->reduce(alone[w], in[w].steer, &one[w], &err) == HERD_OK);
  }
  CHECK(ops->reduce_batch(batch, in, all, &err) == HERD_OK);
  for (uint32_t s = 0; s < STEPS; ++s) {
    for (uint32_t w = 0; w < WORLDS; ++w) {
      CHECK_MSG(same_obs(&one[w], &all[w]), "%s %s: world %u differs at step %u", ops->name, model, w, s);
      for (int k = 0; k < 3; ++k) in[w].centroid[k] = (float)one[w].centroid[k];
      in[w].step = s;
      in[w].active = !(w == 1 && s >= FINISHED_AFTER);
      if (in[w].active) c[w].steer[0] += 1.5f; /* the steering agents move */
      if (in[w].active) CHECK(ops->step(alone[w], in[w].steer, in[w].centroid, s, &err) == HERD_OK);
      if (in[w].active) CHECK(ops->reduce(alone[w], in[w].steer, &one[w], &err) == HERD_OK);
    }
    if (s == FINISHED_AFTER) frozen = all[1];
    CHECK(ops->step_batch(batch, in, &err) == HERD_OK);
    CHECK(ops->reduce_batch(batch, in, all, &err) == HERD_OK);
  }
  for (uint32_t w = 0; w < WORLDS; ++w) {
    uint32_t n = c[w].sc.flock.count, stride = c[w].sc.world.dims == 3 ? 4 : 2;
    float *p1 = malloc(n * stride * sizeof *p1), *p2 = malloc(n * stride * sizeof *p2);
    float *v1 = malloc(n * stride * sizeof *v1), *v2 = malloc(n * stride * sizeof *v2);
    CHECK(ops->read_agents(alone[w], p1, v1, &err) == HERD_OK);
    CHECK(ops->read_world(batch, w, p2, v2, &err) == HERD_OK);
    CHECK_MSG(memcmp(p1, p2, n * stride * sizeof *p1) == 0 && memcmp(v1, v2, n * stride * sizeof *v1) == 0,
              "%s %s: world %u's flock differs from the world alone", ops->name, model, w);
    CHECK_MSG(w != 1 || same_obs(&frozen, &all[1]), "%s: the finished world moved", ops->name);
    free(p1), free(p2), free(v1), free(v2);
    ops->destroy(alone[w]);
    free_world(&c[w]);
  }
  ops->destroy(batch);
}

static void cpu_batch_worlds_run_as_alone(void) { check_batch(&herd_cpu_backend, "boids", NULL); }

static void opencl_batch_worlds_run_as_alone(void) {
#ifdef HERD_WITH_OPENCL
  herd_device_info info[4];
  int count = 0;
  herd_error err;
  if (herd_devices(info, 4, &count, &err) != HERD_OK || count == 0) {
    printf("  no OpenCL device: skipped\n");
    return;
  }
  check_batch(&herd_cl_backend, "boids", NULL);
  /* The batch's step in slices of 128 work-items, each from its first work-group (the worlds'
   * groups cross the slices' borders), from the capped program (built without a bound on PoCL). */
  static volatile sig_atomic_t never = 0;
  setenv("HERD_CL_SLICE_AGENTS", "100", 1);
  setenv("HERD_CL_CAPPED", "1", 1);
  check_batch(&herd_cl_backend, "boids", &never);
  unsetenv("HERD_CL_SLICE_AGENTS");
  unsetenv("HERD_CL_CAPPED");
#endif
}

static void strombom_batch_worlds_run_as_alone(void) {
  check_batch(&herd_cpu_backend, "strombom", NULL);
#ifdef HERD_WITH_OPENCL
  herd_device_info info[4];
  int count = 0;
  herd_error err;
  if (herd_devices(info, 4, &count, &err) == HERD_OK && count > 0) check_batch(&herd_cl_backend, "strombom", NULL);
#endif
}

static void a_batch_refuses_mixed_models(void) {
#ifdef HERD_WITH_OPENCL
  herd_device_info info[4];
  int count = 0;
  herd_error err;
  if (herd_devices(info, 4, &count, &err) != HERD_OK || count == 0) return;
  world_case a = make_world("boids", 0), b = make_world("strombom", 0);
  a.desc.params = a.sc.params.bytes, b.desc.params = b.sc.params.bytes;
  herd_backend_desc descs[2] = {a.desc, b.desc};
  herd_backend *batch = NULL;
  CHECK(herd_cl_backend.create_batch(descs, 2, &batch, &err) == HERD_E_INPUT);
  CHECK_MSG(strstr(err.message, "a batch runs one model in one dimension; world 1 differs from world 0"), "%s",
            err.message);
  free_world(&a), free_world(&b);
#endif
}

/* ---- herd_batch: whole runs, each world against herd_sim alone ------------------------------- */

enum { SIM_WORLDS = 5 };

/* Strömbom worlds that end at different steps, in different ways: herded, out of steps, placed
 * in the goal (step 0), and with delivered sheep removed (the observation rescaled). */
static const char *const strombom_worlds[SIM_WORLDS][4] = {
    {"sheep.count=40", "sheep.neighbours=39", "seed=3", "max_steps=2000"},
    {"sheep.count=25", "sheep.neighbours=3", "seed=4", "max_steps=150"},
    {"sheep.count=60", "sheep.neighbours=30", "seed=5", "sheep.success=remove_delivered"},
    {"sheep.count=30", "sheep.neighbours=29", "sheep.spawn.to=[0.01,0.01]", "sheep.spawn.from=[0,0]"},
    {"sheep.count=51", "dogs.count=2", "sheep.success=centroid_in_goal", "seed=7"},
};
static const char *const boids_worlds[SIM_WORLDS][4] = {
    {"model=boids", "boids.count=80", "seed=1", "max_steps=40"},
    {"model=boids", "boids.count=300", "seed=2", "max_steps=25"},
    {"model=boids", "boids.count=20", "agents[0].strategy=pursuer", "max_steps=60"},
    {"model=boids", "boids.count=150", "obstacles.spheres=[[320, 240, 60], [100, 100, 30]]", "max_steps=45"},
    {"model=boids", "boids.count=90", "path.points_m=[[10, 10], [300, 470], [600, 50]]", "max_steps=33"},
};

static bool same_steering(const herd_sim *a, const herd_sim *b) {
  if (herd_sim_steering_count(a) != herd_sim_steering_count(b)) return false;
  for (uint32_t d = 0; d < herd_sim_steering_count(a); ++d)
    if (memcmp(herd_sim_steering(a, d), herd_sim_steering(b, d), sizeof(herd_steering_state)) != 0) return false;
  return true;
}

/* Runs the worlds to their ends in one batch and each alone; compares everything a run gives. */
/* The SIM_WORLDS scenarios of `sets` and their descriptions on `backend`, two threads. */
static void sim_worlds(const char *const (*sets)[4], const char *backend, herd_scenario *sc, herd_sim_desc *descs) {
  for (uint32_t w = 0; w < SIM_WORLDS; ++w) {
    sc[w] = scenario_with(sets[w], 4);
    descs[w] = (herd_sim_desc){.scenario = &sc[w], .threads = 2, .backend = backend};
  }
}

static void check_sim_batch(const char *backend, const char *const (*sets)[4]) {
  herd_scenario sc[SIM_WORLDS];
  herd_sim_desc descs[SIM_WORLDS];
  herd_error err;
  sim_worlds(sets, backend, sc, descs);
  herd_batch *batch;
  CHECK_MSG(herd_batch_create(descs, SIM_WORLDS, &batch, &err) == HERD_OK, "%s", err.message);
  CHECK(herd_batch_count(batch) == SIM_WORLDS);
  uint32_t steps = 0;
  while (herd_batch_running(batch) && steps++ < 6000) CHECK(herd_batch_step(batch, &err) == HERD_OK);
  CHECK_MSG(herd_batch_running(batch) == 0, "%s: the batch did not end", backend);
  uint32_t ends[SIM_WORLDS];
  for (uint32_t w = 0; w < SIM_WORLDS; ++w) {
    herd_sim *alone;
    CHECK_MSG(herd_sim_create(&descs[w], &alone, &err) == HERD_OK, "%s", err.message);
    while (herd_sim_outcome(alone) == HERD_RUNNING) CHECK(herd_sim_step(alone, &err) == HERD_OK);
    const herd_sim *in_batch = herd_batch_world(batch, w);
    ends[w] = herd_sim_step_index(alone);
    CHECK_MSG(herd_sim_outcome(in_batch) == herd_sim_outcome(alone) && herd_sim_step_index(in_batch) == ends[w],
              "%s world %u: outcome %d at step %u in the batch, %d at step %u alone", backend, w,
              (int)herd_sim_outcome(in_batch), herd_sim_step_index(in_batch), (int)herd_sim_outcome(alone), ends[w]);
    CHECK_MSG(same_obs(herd_sim_observation(in_batch), herd_sim_observation(alone)), "%s world %u: observations differ",
              backend, w);
    CHECK_MSG(same_steering(in_batch, alone), "%s world %u: steering agents differ", backend, w);
    CHECK(strcmp(herd_sim_backend(in_batch), herd_sim_backend(alone)) == 0);
    uint32_t n = sc[w].flock.count * sc[w].world.dims;
    float *p1 = malloc(n * sizeof *p1), *p2 = malloc(n * sizeof *p2);
    CHECK(herd_sim_read_flock(alone, p1, NULL, &err) == HERD_OK);
    CHECK(herd_batch_read_flock(batch, w, p2, NULL, &err) == HERD_OK);
    CHECK_MSG(memcmp(p1, p2, n * sizeof *p1) == 0, "%s world %u: flocks differ", backend, w);
    free(p1), free(p2);
    herd_sim_destroy(alone);
  }
  /* The worlds ended at different steps, so finished ones sat out while others went on. */
  CHECK_MSG(ends[0] != ends[1] && ends[1] != ends[3], "%s: the worlds should end at different steps", backend);
  CHECK(herd_batch_read_flock(batch, SIM_WORLDS, NULL, NULL, &err) == HERD_E_INPUT);
  herd_batch_destroy(batch);
}

static void sim_batches_run_as_herd_sim_alone(void) {
  check_sim_batch("cpu", strombom_worlds);
  check_sim_batch("cpu", boids_worlds);
  if (!have_opencl()) {
    printf("  no OpenCL device: OpenCL batches skipped\n");
    return;
  }
  check_sim_batch("opencl", strombom_worlds);
  check_sim_batch("opencl", boids_worlds);
}

static void sim_batch_refuses_mixed_worlds(void) {
  herd_scenario sc[2] = {scenario_with(strombom_worlds[0], 4), scenario_with(boids_worlds[0], 4)};
  herd_sim_desc descs[2] = {{.scenario = &sc[0]}, {.scenario = &sc[1]}};
  herd_batch *batch = NULL;
  herd_error err;
  CHECK(herd_batch_create(descs, 2, &batch, &err) == HERD_E_INPUT && batch == NULL);
  CHECK_MSG(strstr(err.message, "world 1 is boids in 2D, world 0 strombom in 2D: a batch holds one model"), "%s",
            err.message);
  sc[1].flock.count = 0; /* invalid: named by its world */
  CHECK(herd_batch_create(descs, 1, &batch, &err) == HERD_OK);
  herd_batch_destroy(batch);
  CHECK(herd_batch_create(&descs[1], 1, &batch, &err) == HERD_E_INPUT);
  CHECK_MSG(strncmp(err.message, "world 0: ", 9) == 0, "%s", err.message);
  CHECK(herd_batch_create(descs, 0, &batch, &err) == HERD_E_INPUT);
}

int main(void) { TEST_MAIN(TESTS); }

/* ---- Restarts and steering: what a learning environment does to a batch ----------------------- */

/* Runs `alone` to its end and checks world w of the batch ended as it did. */
static void check_world_as_alone(const herd_batch *batch, uint32_t w, const herd_sim_desc *desc, const char *what) {
  herd_sim *alone;
  herd_error err;
  CHECK_MSG(herd_sim_create(desc, &alone, &err) == HERD_OK, "%s", err.message);
  while (herd_sim_outcome(alone) == HERD_RUNNING) CHECK(herd_sim_step(alone, &err) == HERD_OK);
  const herd_sim *in_batch = herd_batch_world(batch, w);
  CHECK_MSG(herd_sim_outcome(in_batch) == herd_sim_outcome(alone) &&
                herd_sim_step_index(in_batch) == herd_sim_step_index(alone),
            "%s world %u: step %u in the batch, %u alone", what, w, herd_sim_step_index(in_batch),
            herd_sim_step_index(alone));
  CHECK_MSG(same_obs(herd_sim_observation(in_batch), herd_sim_observation(alone)) && same_steering(in_batch, alone),
            "%s world %u: the observation or the dogs differ", what, w);
  herd_sim_destroy(alone);
}

static void check_restarts(const char *backend) {
  herd_scenario sc[SIM_WORLDS], again[2];
  herd_sim_desc descs[SIM_WORLDS];
  herd_error err;
  sim_worlds(strombom_worlds, backend, sc, descs);
  herd_batch *batch;
  CHECK_MSG(herd_batch_create(descs, SIM_WORLDS, &batch, &err) == HERD_OK, "%s", err.message);
  for (int s = 0; s < 40; ++s) CHECK(herd_batch_step(batch, &err) == HERD_OK);
  /* World 1 mid-run with a new seed and step limit; world 3 (which succeeded at step 0) anew
   * with another spawn area's seed: both as new simulations of those scenarios. */
  again[0] = sc[1], again[0].seed = 99, again[0].max_steps = 300;
  again[1] = sc[3], again[1].seed = 12345678901ull;
  const uint32_t worlds[2] = {1, 3};
  const herd_scenario *const restart[2] = {&again[0], &again[1]};
  CHECK_MSG(herd_batch_restart(batch, worlds, restart, 2, &err) == HERD_OK, "%s", err.message);
  CHECK(herd_sim_step_index(herd_batch_world(batch, 1)) == 0 && herd_sim_step_index(herd_batch_world(batch, 0)) == 40);
  uint32_t steps = 0;
  while (herd_batch_running(batch) && steps++ < 6000) CHECK(herd_batch_step(batch, &err) == HERD_OK);
  herd_sim_desc d1 = descs[1], d3 = descs[3];
  d1.scenario = &again[0], d3.scenario = &again[1];
  check_world_as_alone(batch, 1, &d1, backend);
  check_world_as_alone(batch, 3, &d3, backend);
  for (uint32_t w = 0; w < SIM_WORLDS; ++w) /* the others went on as if nothing had happened */
    if (w != 1 && w != 3) check_world_as_alone(batch, w, &descs[w], backend);
  herd_batch_destroy(batch);
}

static void restarted_worlds_run_as_new_sims(void) {
  check_restarts("cpu");
  if (have_opencl()) check_restarts("opencl");
}

static void a_restart_refuses_another_layout(void) {
  herd_scenario sc[2] = {scenario_with(strombom_worlds[0], 4), scenario_with(strombom_worlds[1], 4)};
  herd_sim_desc descs[2] = {{.scenario = &sc[0]}, {.scenario = &sc[1]}};
  herd_batch *batch;
  herd_error err;
  CHECK(herd_batch_create(descs, 2, &batch, &err) == HERD_OK);
  CHECK(herd_batch_step(batch, &err) == HERD_OK);
  herd_scenario other = sc[0];
  other.flock.count = 41, other.seed = 5;
  const uint32_t w0[2] = {0, 0}, w1 = 1, w7 = 7;
  herd_scenario reseeded = sc[1];
  reseeded.seed = 8, reseeded.max_steps = 77;
  const herd_scenario *const both[2] = {&sc[0], &other}, *const one[1] = {&other}, *const fine[1] = {&reseeded};
  CHECK(herd_batch_restart(batch, &w1, fine, 1, &err) == HERD_OK);
  CHECK(herd_batch_restart(batch, w0, one, 1, &err) == HERD_E_INPUT);
  CHECK_MSG(strstr(err.message, "world 0: the flock's count differs from the scenario the world was made with"), "%s",
            err.message);
  CHECK(herd_batch_restart(batch, w0, both, 2, &err) == HERD_E_INPUT);
  CHECK_MSG(strstr(err.message, "world 0 given twice"), "%s", err.message);
  CHECK(herd_batch_restart(batch, &w7, one, 1, &err) == HERD_E_INPUT);
  CHECK_MSG(strstr(err.message, "no world 7 (the batch has 2)"), "%s", err.message);
  CHECK(herd_sim_step_index(herd_batch_world(batch, 0)) == 1); /* nothing changed */
  herd_batch_destroy(batch);
}

/* Two worlds whose dogs the program steers each step, against two simulations steered alike. */
static void check_steered(const char *backend) {
  herd_scenario sc[2] = {scenario_with(strombom_worlds[0], 4), scenario_with(strombom_worlds[4], 4)};
  herd_sim_desc descs[2] = {{.scenario = &sc[0], .backend = backend}, {.scenario = &sc[1], .backend = backend}};
  herd_batch *batch;
  herd_sim *alone[2];
  herd_error err;
  CHECK_MSG(herd_batch_create(descs, 2, &batch, &err) == HERD_OK, "%s", err.message);
  for (int w = 0; w < 2; ++w) CHECK(herd_sim_create(&descs[w], &alone[w], &err) == HERD_OK);
  const uint32_t agents[1] = {0};
  for (int s = 0; s < 60; ++s) {
    float aims[2][2] = {{10.0f + s, 200.0f - 2.0f * s}, {150.0f, 5.0f + s}};
    CHECK_MSG(herd_batch_steer(batch, agents, 1, &aims[0][0], &err) == HERD_OK, "%s", err.message);
    for (int w = 0; w < 2; ++w) CHECK(herd_sim_steer(alone[w], 0, aims[w], &err) == HERD_OK);
    CHECK(herd_batch_step(batch, &err) == HERD_OK);
    for (int w = 0; w < 2; ++w) CHECK(herd_sim_step(alone[w], &err) == HERD_OK);
  }
  herd_observation obs[2];
  herd_steering_state dogs[2 * HERD_MAX_STEERING];
  uint32_t steps[2], outcomes[2];
  herd_batch_read_worlds(batch, obs, dogs, steps, outcomes);
  for (int w = 0; w < 2; ++w) {
    CHECK_MSG(same_obs(&obs[w], herd_sim_observation(alone[w])) && steps[w] == 60 && outcomes[w] == HERD_RUNNING,
              "%s world %d: the steered world differs from the steered simulation", backend, w);
    CHECK(memcmp(&dogs[w * HERD_MAX_STEERING], herd_sim_steering(alone[w], 0), sizeof dogs[0]) == 0);
    CHECK(dogs[w * HERD_MAX_STEERING].mode == HERD_MODE_MANUAL); /* under the program's control */
  }
  float bad[2][2] = {{1, 2}, {3, NAN}};
  CHECK(herd_batch_steer(batch, agents, 1, &bad[0][0], &err) == HERD_E_INPUT);
  CHECK_MSG(strstr(err.message, "world 1, steering agent 0: aim: its aim[1] (y) = nan is not a finite number"), "%s",
            err.message);
  const uint32_t past[1] = {2}; /* world 1 has two dogs, world 0 one */
  CHECK(herd_batch_steer(batch, past, 1, &bad[0][0], &err) == HERD_E_INPUT);
  CHECK_MSG(strstr(err.message, "world 0, steering agent 2:"), "%s", err.message);
  for (int w = 0; w < 2; ++w) herd_sim_destroy(alone[w]);
  herd_batch_destroy(batch);
}

static void steered_batch_worlds_run_as_steered_sims(void) {
  check_steered("cpu");
  if (have_opencl()) check_steered("opencl");
}
