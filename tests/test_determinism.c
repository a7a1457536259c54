/* Same scenario and seed give a bit-identical run, whatever the number of threads. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <time.h>

#include "backend_util.h"

#define TESTS(X)                              \
  X(two_runs_are_bit_identical)               \
  X(one_and_two_threads_are_bit_identical)    \
  X(all_active_flock_is_thread_independent)   \
  X(every_model_is_deterministic)             \
  X(a_different_seed_gives_a_different_run)   \
  X(an_interrupted_step_changes_nothing)      \
  X(a_step_stopped_midway_restores_the_flock) \
  X(a_stop_during_the_sort_leaves_the_state_in_place)
TESTS(DECLARE_TEST)

/* A fingerprint of every observation, every steering agent's state and the final flock. */
static uint64_t run_fingerprint(const herd_scenario *sc, int threads, uint32_t steps) {
  herd_sim *sim = sim_start(sc, threads);
  herd_error err;
  uint64_t h = 1469598103934665603ull;
  for (uint32_t s = 0; s < steps && herd_sim_outcome(sim) == HERD_RUNNING; ++s) {
    CHECK(herd_sim_step(sim, &err) == HERD_OK);
    h = fnv1a(h, herd_sim_observation(sim), sizeof(herd_observation));
    for (uint32_t d = 0; d < herd_sim_steering_count(sim); ++d)
      h = fnv1a(h, herd_sim_steering(sim, d), sizeof(herd_steering_state));
  }
  size_t n = sc->flock.count, dims = sc->world.dims;
  float *pos = malloc(dims * n * sizeof *pos), *heading = malloc(dims * n * sizeof *heading);
  CHECK(herd_sim_read_flock(sim, pos, heading, &err) == HERD_OK);
  h = fnv1a(h, pos, dims * n * sizeof *pos);
  h = fnv1a(h, heading, dims * n * sizeof *heading);
  free(pos);
  free(heading);
  herd_sim_destroy(sim);
  return h;
}

static void two_runs_are_bit_identical(void) {
  herd_scenario sc = scenario_with(NULL, 0);
  CHECK(run_fingerprint(&sc, 2, 600) == run_fingerprint(&sc, 2, 600));
}

/* Enough sheep that the CPU backend really runs threads (it uses one below 2048). */
static void one_and_two_threads_are_bit_identical(void) {
  const char *sets[] = {"seed=4", "dogs.count=2", "sheep.count=3000"};
  herd_scenario sc = scenario_with(sets, 3);
  uint64_t two = run_fingerprint(&sc, 2, 200);
  CHECK(run_fingerprint(&sc, 1, 200) == two);
  CHECK(run_fingerprint(&sc, 3, 200) == two);
}

/* Thousands of sheep all doing the full update: many chunks and reduction blocks. */
static void all_active_flock_is_thread_independent(void) {
  const char *sets[] = {"sheep.count=9000", "sheep.dog_radius_m=1e6", "field.size_m=600"};
  herd_scenario sc = scenario_with(sets, 3);
  CHECK(run_fingerprint(&sc, 1, 15) == run_fingerprint(&sc, 2, 15));
}

/* Every model: two runs alike, and alike on 1 and 2 threads (flocks large enough to use
 * threads), in 2D and 3D, open, walled and wrapping, with steering agents. */
static void every_model_is_deterministic(void) {
  const char *boids2d[] = {"model=boids", "boids.count=4000", "agents[0].strategy=pursuer", "agents[1].count=2"};
  const char *boids3d[] = {"model=boids", "world.size_m=[400,300,300]", "boids.count=4000",
                           "world.wrap=[true,false,true]", "agents[0].strategy=cruiser"};
  const char *netlogo[] = {"model=netlogo", "netlogo.count=3000", "world.size_m=[150,150]", "agents[0].count=3"};
  const char *couzin3d[] = {"model=couzin",
                            "couzin.count=3000",
                            "world.size_m=[60,60,60]",
                            "couzin.orientation_band_m=2",
                            "couzin.attraction_band_m=2",
                            "agents[0].strategy=pursuer"};
  const char *couzin2d[] = {"model=couzin",           "couzin.count=3000",           "world.size_m=[120,120]",
                            "world.wrap=[true,true]", "couzin.orientation_band_m=1", "couzin.attraction_band_m=2",
                            "agents[0].count=2"};
  const char *fish[] = {"model=fish",
                        "fish.count=3000",
                        "fish.initial_hunger=1",
                        "food.points_m=[[30, 30, 15], [10, 50, 5]]",
                        "agents[0].strategy=pursuer",
                        "agents[0].position_m=[20, 20, 15]"};
  struct {
    const char *const *sets;
    int count;
  } cases[] = {{boids2d, 4}, {boids3d, 5}, {netlogo, 4}, {couzin3d, 6}, {couzin2d, 7}, {fish, 6}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    herd_scenario sc = scenario_with(cases[k].sets, cases[k].count);
    uint64_t two = run_fingerprint(&sc, 2, 40);
    CHECK_MSG(run_fingerprint(&sc, 2, 40) == two, "case %zu: two runs differ", k);
    CHECK_MSG(run_fingerprint(&sc, 1, 40) == two, "case %zu: 1 and 2 threads differ", k);
  }
}

static void a_different_seed_gives_a_different_run(void) {
  const char *a[] = {"seed=1"}, *b[] = {"seed=2"};
  herd_scenario sa = scenario_with(a, 1), sb = scenario_with(b, 1);
  CHECK(run_fingerprint(&sa, 2, 50) != run_fingerprint(&sb, 2, 50));
}

static void an_interrupted_step_changes_nothing(void) { check_interrupted_step_changes_nothing("cpu"); }

/* A stop raised while the CPU backend is half-way through a step (at its tenth chunk of
 * 157): the flock read back is the one before. */
static void a_step_stopped_midway_restores_the_flock(void) {
  const char *sets[] = {"sheep.count=40000", "sheep.dog_radius_m=1e9", "field.size_m=1200"};
  herd_scenario sc = scenario_with(sets, 3);
  volatile sig_atomic_t stop = 0;
  herd_sim *sim;
  herd_error err;
  CHECK(herd_sim_create(&(herd_sim_desc){.scenario = &sc, .threads = 2, .stop = &stop}, &sim, &err) == HERD_OK);
  size_t n = sc.flock.count;
  float *before = malloc(4 * n * sizeof *before), *after = malloc(4 * n * sizeof *after);
  CHECK(herd_sim_read_flock(sim, before, before + 2 * n, &err) == HERD_OK);
  stop_at_piece(&stop, 10);
  herd_status st = herd_sim_step(sim, &err);
  stop_at_piece(NULL, 0);
  CHECK_MSG(st == HERD_E_INTERRUPTED, "the step ended before the stop (status %d)", (int)st);
  CHECK(herd_sim_read_flock(sim, after, after + 2 * n, &err) == HERD_OK);
  CHECK(memcmp(before, after, 4 * n * sizeof *before) == 0);
  free(before);
  free(after);
  herd_sim_destroy(sim);
}

/* A stop raised before the CPU backend's step ends it in the grid's sort (which at 10^7 agents
 * would outlast the second Ctrl-C is answered in), before the model writes anything: the state
 * is as it was, in its own order (a stop seen only by the model's chunks would put the sorted
 * copy back); the next step runs. */
static void a_stop_during_the_sort_leaves_the_state_in_place(void) {
  const char *sets[] = {"sheep.count=40000", "field.size_m=1200"};
  herd_scenario sc = scenario_with(sets, 2);
  herd_backend_desc d = backend_desc_for(&sc, sc.flock.count, 2);
  volatile sig_atomic_t stop = 0;
  d.stop = &stop;
  herd_backend *b;
  herd_error err;
  CHECK_MSG(herd_cpu_backend.create(&d, &b, &err) == HERD_OK, "%s", err.message);
  size_t n = sc.flock.count, bytes = 2 * n * sizeof(float);
  float *pos = malloc(bytes), *vel = malloc(bytes);
  uint32_t *agent = malloc(n * sizeof *agent);
  for (size_t i = 0; i < n; ++i) {
    pos[2 * i] = (float)((i * 7919u) % 1200u), pos[2 * i + 1] = (float)((i * 104729u) % 1200u);
    vel[2 * i] = 1.0f, vel[2 * i + 1] = 0.0f;
  }
  CHECK(herd_cpu_backend.upload(b, pos, vel, &err) == HERD_OK);
  const float *p, *v;
  const uint32_t *a;
  CHECK(herd_cpu_backend.map_state(b, &p, &v, &a, &err) == HERD_OK);
  memcpy(pos, p, bytes), memcpy(vel, v, bytes), memcpy(agent, a, n * sizeof *agent);
  float centroid[3] = {600, 600, 0}, dog[HERD_STEER_FLOATS] = {600, 600};
  stop = 1;
  CHECK(herd_cpu_backend.step(b, (herd_steering_input){dog, 1}, centroid, 0, &err) == HERD_E_INTERRUPTED);
  CHECK(herd_cpu_backend.map_state(b, &p, &v, &a, &err) == HERD_OK);
  CHECK_MSG(memcmp(agent, a, n * sizeof *agent) == 0 && memcmp(pos, p, bytes) == 0 && memcmp(vel, v, bytes) == 0,
            "the interrupted step changed the state or its order");
  stop = 0;
  CHECK(herd_cpu_backend.step(b, (herd_steering_input){dog, 1}, centroid, 0, &err) == HERD_OK);
  CHECK(herd_cpu_backend.map_state(b, &p, &v, &a, &err) == HERD_OK);
  CHECK_MSG(memcmp(pos, p, bytes) != 0, "the step after the stop moved nothing");
  herd_cpu_backend.destroy(b);
  free(pos), free(vel), free(agent);
}

int main(void) { TEST_MAIN(TESTS); }
