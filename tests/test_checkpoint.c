/* Checkpoints: a run checkpointed, destroyed and resumed is bit for bit the run never stopped
 * (every observation after the checkpoint, the steering agents, the flock, the step index and
 * the outcome), for several models mid-flight; corrupt, truncated, foreign and mismatched
 * files are refused. `test_checkpoint opencl` runs the same on OpenCL (exit 77: no device). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim/sim_state.h"
#include "sim_util.h"

#define TESTS(X)                                 \
  X(resumed_runs_are_bit_identical_on_cpu)       \
  X(a_run_resumed_at_step_zero_is_bit_identical) \
  X(the_user_steering_survives_a_checkpoint)     \
  X(a_raised_step_limit_continues_the_run)       \
  X(a_step_stopped_midway_then_saved_resumes)    \
  X(damaged_and_foreign_files_are_refused)       \
  X(a_changed_scenario_is_refused)               \
  X(a_flock_beyond_its_period_is_refused)        \
  X(an_existing_file_is_replaced_only_with_force)
TESTS(DECLARE_TEST)

#define OPENCL_TESTS(X)                       \
  X(resumed_runs_are_bit_identical_on_opencl) \
  X(a_step_stopped_midway_then_saved_resumes) \
  X(a_checkpoint_stays_on_its_backend)
OPENCL_TESTS(DECLARE_TEST)

static char dir[] = "/tmp/herd-test-checkpoint-XXXXXX";
static const char *backend = "cpu";

static const char *temp_path(const char *name) {
  static char path[128];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return path;
}

static herd_sim *make(const herd_scenario *sc, int threads) {
  herd_sim *sim;
  herd_error err;
  herd_sim_desc desc = {.scenario = sc, .threads = threads, .backend = backend};
  if (herd_sim_create(&desc, &sim, &err) != HERD_OK) {
    fprintf(stderr, "herd_sim_create: %s\n", err.message);
    exit(1);
  }
  return sim;
}

static uint64_t fnv(uint64_t h, const void *data, size_t size) {
  const unsigned char *p = data;
  for (size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

/* Steps until `steps` are done (or the run ends), hashing each observation and steering state. */
static uint64_t run_to(herd_sim *sim, uint32_t steps, uint64_t h) {
  herd_error err;
  while (herd_sim_step_index(sim) < steps && herd_sim_outcome(sim) == HERD_RUNNING) {
    CHECK(herd_sim_step(sim, &err) == HERD_OK);
    h = fnv(h, herd_sim_observation(sim), sizeof(herd_observation));
    for (uint32_t d = 0; d < herd_sim_steering_count(sim); ++d)
      h = fnv(h, herd_sim_steering(sim, d), sizeof(herd_steering_state));
  }
  return h;
}

/* Everything a run ends with. */
typedef struct ending {
  uint64_t history; /* the observations and steering states after the checkpoint */
  flock_copy flock;
  herd_observation obs;
  herd_steering_state steering[HERD_MAX_STEERING];
  uint32_t steering_count, step;
  herd_outcome outcome;
} ending;

static ending end_of(herd_sim *sim, uint64_t history) {
  ending e = {.history = history, .flock = read_flock(sim)};
  e.obs = *herd_sim_observation(sim);
  e.steering_count = herd_sim_steering_count(sim);
  for (uint32_t d = 0; d < e.steering_count; ++d) e.steering[d] = *herd_sim_steering(sim, d);
  e.step = herd_sim_step_index(sim);
  e.outcome = herd_sim_outcome(sim);
  return e;
}

static void check_same(const ending *a, const ending *b, const char *what) {
  size_t floats = (size_t)a->flock.n * a->flock.dims * sizeof(float);
  CHECK_MSG(a->step == b->step, "%s: step %u, resumed %u", what, a->step, b->step);
  CHECK_MSG(a->outcome == b->outcome, "%s: outcome %d, resumed %d", what, a->outcome, b->outcome);
  CHECK_MSG(a->history == b->history, "%s: the observations after the checkpoint differ", what);
  CHECK_MSG(memcmp(a->flock.pos, b->flock.pos, floats) == 0, "%s: positions differ", what);
  CHECK_MSG(memcmp(a->flock.vel, b->flock.vel, floats) == 0, "%s: velocities differ", what);
  CHECK_MSG(memcmp(&a->obs, &b->obs, sizeof a->obs) == 0, "%s: the last observation differs", what);
  CHECK_MSG(a->steering_count == b->steering_count &&
                memcmp(a->steering, b->steering, a->steering_count * sizeof a->steering[0]) == 0,
            "%s: the steering agents differ", what);
}

static void free_ending(ending *e) { free_flock(&e->flock); }

/* The run of `steps` straight, and the run stopped after `at`, checkpointed, destroyed and
 * resumed (on one thread where the straight run had two: the CPU's results do not depend on
 * it), must end alike; `steer_first` hands steering agent 0 to the user first. */
static void check_resume(const herd_scenario *sc, uint32_t steps, uint32_t at, bool steer_first, const char *what) {
  static const float aim[3] = {10.0f, 20.0f, 0.0f};
  herd_error err;
  herd_sim *straight = make(sc, 2);
  if (steer_first) CHECK(herd_sim_steer(straight, 0, aim, &err) == HERD_OK);
  run_to(straight, at, 0);
  uint64_t h = run_to(straight, steps, 1);
  ending a = end_of(straight, h);
  herd_sim_destroy(straight);

  herd_sim *first = make(sc, 2);
  if (steer_first) CHECK(herd_sim_steer(first, 0, aim, &err) == HERD_OK);
  run_to(first, at, 0);
  CHECK_MSG(herd_sim_outcome(first) == HERD_RUNNING && herd_sim_step_index(first) == at, "%s: not mid-run at %u", what,
            at);
  const char *path = temp_path("run.ckpt");
  CHECK_MSG(herd_sim_checkpoint(first, path, true, &err) == HERD_OK, "%s: %s", what, err.message);
  herd_sim_destroy(first);
  herd_sim *resumed = NULL;
  CHECK_MSG(herd_sim_resume(&(herd_sim_desc){.threads = 1}, path, &resumed, &err) == HERD_OK, "%s: %s", what,
            err.message);
  if (!resumed) return free_ending(&a);
  CHECK(herd_sim_step_index(resumed) == at);
  CHECK(strcmp(herd_sim_backend(resumed), backend) == 0);
  ending b = end_of(resumed, run_to(resumed, steps, 1));
  check_same(&a, &b, what);
  herd_sim_destroy(resumed);
  free_ending(&a);
  free_ending(&b);
}

/* Strömbom with a dog (the default), with walls and a pen (farm: the dog's route, removal),
 * boids with a pursuer, Couzin's fish in 3D, fish with a shark, and Lien's three shepherds
 * working on the flock's groups; each stopped mid-run. */
static void resumed_runs(void) {
  herd_scenario sc = scenario_with((const char *[]){"sheep.count=120"}, 1);
  check_resume(&sc, 260, 137, false, "strombom");
  /* Crowded: the grid's cells shrink to the flock's extent two steps back (herd_box_history). */
  sc = scenario_with((const char *[]){"sheep.count=4000", "sheep.spawn.from=[0.3, 0.3]", "sheep.spawn.to=[0.4, 0.4]"},
                     3);
  check_resume(&sc, 30, 17, false, "strombom, crowded");
  sc = shipped("farm.json", NULL, 0);
  check_resume(&sc, 180, 91, false, "farm");
  sc = shipped("boids-predator.json", (const char *[]){"boids.count=300"}, 1);
  check_resume(&sc, 120, 64, false, "boids-predator");
  sc = shipped("couzin-parallel.json", NULL, 0);
  check_resume(&sc, 100, 45, false, "couzin");
  sc = shipped("fish-shark.json", NULL, 0);
  check_resume(&sc, 90, 40, false, "fish-shark");
  sc = shipped("lien-farm.json", NULL, 0);
  check_resume(&sc, 220, 117, false, "lien-farm");
}

static void resumed_runs_are_bit_identical_on_cpu(void) { resumed_runs(); }

static void a_run_resumed_at_step_zero_is_bit_identical(void) {
  herd_scenario sc = shipped("lien-empty.json", NULL, 0);
  check_resume(&sc, 60, 0, false, "lien at step 0");
}

static void the_user_steering_survives_a_checkpoint(void) {
  herd_scenario sc = scenario_with((const char *[]){"sheep.count=60"}, 1);
  check_resume(&sc, 90, 30, true, "strombom, the dog steered");
}

/* A run that reached its step limit, resumed with a higher one, goes on as a run that had the
 * higher limit from the start. */
static void a_raised_step_limit_continues_the_run(void) {
  herd_scenario longer = scenario_with((const char *[]){"sheep.count=60", "max_steps=120"}, 2);
  herd_scenario shorter = longer;
  shorter.max_steps = 70;
  herd_sim *straight = make(&longer, 1);
  ending a = end_of(straight, run_to(straight, 120, 1));
  herd_sim_destroy(straight);
  herd_sim *first = make(&shorter, 1);
  run_to(first, 1000, 0);
  CHECK(herd_sim_outcome(first) == HERD_STEP_LIMIT && herd_sim_step_index(first) == 70);
  herd_error err;
  const char *path = temp_path("limit.ckpt");
  CHECK(herd_sim_checkpoint(first, path, true, &err) == HERD_OK);
  herd_sim_destroy(first);
  herd_scenario *sc = NULL;
  uint32_t step = 0;
  CHECK(herd_checkpoint_scenario(path, &sc, &step, &err) == HERD_OK && step == 70 &&
        herd_scenario_describe(sc).max_steps == 70);
  CHECK_MSG(herd_scenario_set(sc, "max_steps", "120", &err) == HERD_OK, "%s", err.message);
  herd_sim *resumed = NULL;
  CHECK_MSG(herd_sim_resume(&(herd_sim_desc){.scenario = sc}, path, &resumed, &err) == HERD_OK, "%s", err.message);
  herd_scenario_free(sc);
  if (!resumed) return free_ending(&a);
  CHECK(herd_sim_outcome(resumed) == HERD_RUNNING);
  ending b = end_of(resumed, run_to(resumed, 1000, 1));
  a.history = b.history = 0; /* the histories start at different steps */
  check_same(&a, &b, "a raised step limit");
  herd_sim_destroy(resumed);
  free_ending(&a);
  free_ending(&b);
}

/* A step abandoned half-way (Ctrl-C) leaves the flock in that step's sorted order; saved then,
 * the run resumed still ends as the run never stopped (the repeated step sorts alike). */
static void a_step_stopped_midway_then_saved_resumes(void) {
  const char *sets[] = {"sheep.count=40000", "sheep.dog_radius_m=1e9", "field.size_m=1200"};
  herd_scenario sc = scenario_with(sets, 3);
  herd_sim *straight = make(&sc, 2);
  run_to(straight, 2, 0);
  ending a = end_of(straight, run_to(straight, 4, 1));
  herd_sim_destroy(straight);

  volatile sig_atomic_t stop = 0;
  herd_sim *first = NULL;
  herd_error err;
  CHECK(herd_sim_create(&(herd_sim_desc){.scenario = &sc, .threads = 2, .backend = backend, .stop = &stop}, &first,
                        &err) == HERD_OK);
  if (!first) return free_ending(&a);
  run_to(first, 2, 0);
  stop_at_piece(&stop, 3); /* of 5 slices on OpenCL, 157 chunks on the CPU */
  herd_status st = herd_sim_step(first, &err);
  stop_at_piece(NULL, 0);
  CHECK_MSG(st == HERD_E_INTERRUPTED, "the step ended before the stop (status %d)", (int)st);
  CHECK(herd_sim_step_index(first) == 2);
  const char *path = temp_path("stopped.ckpt");
  CHECK(herd_sim_checkpoint(first, path, true, &err) == HERD_OK);
  herd_sim_destroy(first);
  herd_sim *resumed = NULL;
  CHECK_MSG(herd_sim_resume(&(herd_sim_desc){.threads = 2}, path, &resumed, &err) == HERD_OK, "%s", err.message);
  if (!resumed) return free_ending(&a);
  ending b = end_of(resumed, run_to(resumed, 4, 1));
  check_same(&a, &b, "a step stopped midway");
  herd_sim_destroy(resumed);
  free_ending(&a);
  free_ending(&b);
}

static unsigned char *slurp(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  unsigned char *bytes = malloc(1 << 22);
  *size = f && bytes ? fread(bytes, 1, 1 << 22, f) : 0;
  if (f) fclose(f);
  return bytes;
}

static void spill(const char *path, const unsigned char *bytes, size_t size) {
  FILE *f = fopen(path, "wb");
  CHECK(f && fwrite(bytes, 1, size, f) == size);
  if (f) fclose(f);
}

/* herd_sim_resume of `path` fails with HERD_E_INPUT, a message holding `says`, and no sim. */
static void check_refused(const char *path, const char *says) {
  herd_sim *sim = NULL;
  herd_error err = {0};
  herd_status st = herd_sim_resume(&(herd_sim_desc){0}, path, &sim, &err);
  CHECK_MSG(st == HERD_E_INPUT && sim == NULL, "%s: status %d", says, st);
  CHECK_MSG(strstr(err.message, says) && strstr(err.message, path) && !strchr(err.message, '\n'),
            "expected \"%s\" in: %s", says, err.message);
  herd_sim_destroy(sim);
}

static void damaged_and_foreign_files_are_refused(void) {
  herd_scenario sc = scenario_with((const char *[]){"sheep.count=60"}, 1);
  herd_sim *sim = make(&sc, 1);
  run_to(sim, 20, 0);
  herd_error err;
  const char *good = temp_path("good.ckpt");
  CHECK(herd_sim_checkpoint(sim, good, true, &err) == HERD_OK);
  herd_sim_destroy(sim);
  size_t size;
  unsigned char *bytes = slurp(good, &size);
  CHECK(size > 1000);
  const char *bad = temp_path("bad.ckpt");
  spill(bad, bytes, size - 100);
  check_refused(bad, "truncated");
  bytes[size / 2] ^= 0x10u; /* one bit in the flock */
  spill(bad, bytes, size);
  check_refused(bad, "corrupt");
  bytes[size / 2] ^= 0x10u;
  bytes[8] = 99; /* the format version */
  spill(bad, bytes, size);
  check_refused(bad, "format version 99");
  bytes[8] = 1; /* room for 16 steering agents: read by no herd since */
  spill(bad, bytes, size);
  check_refused(bad, "format version 1; this herd reads version 2");
  bytes[8] = 2;
  bytes[12] ^= 0xFFu; /* the byte-order word */
  spill(bad, bytes, size);
  check_refused(bad, "byte order");
  spill(bad, (const unsigned char *)"{\"seed\": 3}\n", 12);
  check_refused(bad, "not a herd checkpoint");
  check_refused(temp_path("missing.ckpt"), "cannot open");
  free(bytes);
}

static void a_changed_scenario_is_refused(void) {
  herd_scenario sc = scenario_with((const char *[]){"sheep.count=60"}, 1);
  herd_sim *sim = make(&sc, 1);
  run_to(sim, 10, 0);
  herd_error err;
  const char *path = temp_path("changed.ckpt");
  CHECK(herd_sim_checkpoint(sim, path, true, &err) == HERD_OK);
  herd_sim_destroy(sim);
  herd_scenario other = scenario_with((const char *[]){"sheep.count=61"}, 1);
  herd_sim *resumed = NULL;
  CHECK(herd_sim_resume(&(herd_sim_desc){.scenario = &other}, path, &resumed, &err) == HERD_E_INPUT);
  CHECK_MSG(resumed == NULL && strstr(err.message, "max_steps"), "%s", err.message);
  herd_sim_destroy(resumed);
}

/* Along a wrapping axis a run keeps its flock in [0, size), which the grid's queries rely on: a
 * saved state with an agent beyond it (a file made by hand, with a good CRC) is refused, naming
 * the agent; the same state within the period resumes. */
static void a_flock_beyond_its_period_is_refused(void) {
  const char *sets[] = {"model=boids", "boids.count=200", "world.size_m=[99,80]", "world.wrap=[true,true]"};
  herd_scenario sc = scenario_with(sets, 4);
  herd_sim *sim = make(&sc, 1);
  run_to(sim, 5, 0);
  herd_sim_saved saved;
  herd_error err;
  CHECK(herd_sim_save_state(sim, &saved, &err) == HERD_OK);
  size_t floats = (size_t)saved.agents * saved.stride;
  float *pos = malloc(floats * sizeof *pos);
  memcpy(pos, saved.pos, floats * sizeof *pos);
  saved.pos = pos;
  herd_sim_desc desc = {.scenario = &sc, .threads = 1, .backend = backend};
  for (int beyond = 0; beyond < 2; ++beyond) {
    pos[7 * saved.stride + 1] = beyond ? 80.0f : 79.5f; /* the period's end is outside it */
    herd_sim *resumed = NULL;
    herd_status st = herd_sim_create_saved(&desc, &saved, &resumed, &err);
    if (beyond)
      CHECK_MSG(st == HERD_E_INPUT && !resumed && strstr(err.message, "agent 7") && strstr(err.message, "[0, 80)"),
                "%s", err.message);
    else
      CHECK_MSG(st == HERD_OK && resumed, "%s", err.message);
    herd_sim_destroy(resumed);
  }
  free(pos);
  herd_sim_destroy(sim);
}

static void an_existing_file_is_replaced_only_with_force(void) {
  const char *path = temp_path("mine.txt");
  spill(path, (const unsigned char *)"keep me\n", 8);
  herd_scenario sc = scenario_with((const char *[]){"sheep.count=70"}, 1);
  herd_sim *sim = make(&sc, 1);
  herd_error err;
  CHECK(herd_sim_checkpoint(sim, path, false, &err) == HERD_E_INPUT);
  size_t size;
  unsigned char *bytes = slurp(path, &size);
  CHECK(size == 8 && memcmp(bytes, "keep me\n", 8) == 0);
  free(bytes);
  CHECK(herd_sim_checkpoint(sim, path, true, &err) == HERD_OK);
  herd_scenario *back = NULL;
  CHECK(herd_checkpoint_scenario(path, &back, NULL, &err) == HERD_OK && herd_scenario_describe(back).count == 70);
  herd_scenario_free(back);
  herd_sim_destroy(sim);
}

static void resumed_runs_are_bit_identical_on_opencl(void) { resumed_runs(); }

/* A checkpoint holds the flock in its backend's order and sums: another backend refuses it. */
static void a_checkpoint_stays_on_its_backend(void) {
  herd_scenario sc = scenario_with((const char *[]){"sheep.count=64"}, 1);
  herd_sim *sim = make(&sc, 1);
  run_to(sim, 5, 0);
  herd_error err;
  const char *path = temp_path("opencl.ckpt");
  CHECK(herd_sim_checkpoint(sim, path, true, &err) == HERD_OK);
  herd_sim_destroy(sim);
  herd_sim *other = NULL;
  CHECK(herd_sim_resume(&(herd_sim_desc){.backend = "cpu"}, path, &other, &err) == HERD_E_INPUT);
  CHECK_MSG(other == NULL && strstr(err.message, "--backend opencl"), "%s", err.message);
  herd_sim_destroy(other);
}

static void clean_up(void) {
  static const char *names[] = {"run.ckpt",     "limit.ckpt", "good.ckpt",   "bad.ckpt",
                                "changed.ckpt", "mine.txt",   "opencl.ckpt", "stopped.ckpt"};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k) remove(temp_path(names[k]));
  rmdir(dir);
}

static int run_opencl(void) {
  herd_device_info devices[4];
  int count = 0;
  herd_error err;
  if (herd_devices(devices, 4, &count, &err) != HERD_OK || count == 0) {
    printf("skipped: no OpenCL device (%s)\n", count ? "" : err.message);
    return 77;
  }
  backend = "opencl";
  /* Steps in slices whatever this machine's speed, so that a_step_stopped_midway_then_saved_resumes
   * finds one under way (docs/opencl.md, "Interrupting a step"). */
  setenv("HERD_CL_SLICE_AGENTS", "8192", 1);
  static const test_case cases[] = {OPENCL_TESTS(TEST_ENTRY)};
  return test_run(cases, sizeof cases / sizeof cases[0]);
}

int main(int argc, char **argv) {
  if (!mkdtemp(dir)) return 1;
  static const test_case cases[] = {TESTS(TEST_ENTRY)};
  int status =
      argc > 1 && strcmp(argv[1], "opencl") == 0 ? run_opencl() : test_run(cases, sizeof cases / sizeof cases[0]);
  clean_up();
  return status;
}
