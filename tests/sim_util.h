/* Running whole simulations in tests. */
#ifndef HERD_TESTS_SIM_UTIL_H
#define HERD_TESTS_SIM_UTIL_H
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "core/scenario.h"
#include "herd/herd.h"
#include "test.h"

/* ---- A stop in the middle of a step, at a piece chosen in advance ---------------------- */

static volatile sig_atomic_t *piece_flag;
static long piece_countdown;

static inline void raise_at_piece(void) {
  if (__atomic_sub_fetch(&piece_countdown, 1, __ATOMIC_ACQ_REL) == 0) __atomic_store_n(piece_flag, 1, __ATOMIC_RELEASE);
}

/* Raises *flag at the backend's k-th look at it between the pieces of a step (chunks on the
 * CPU, slices on OpenCL: HERD_CL_SLICE_AGENTS), whatever this machine's speed; 0: no more. */
static inline void stop_at_piece(volatile sig_atomic_t *flag, long k) {
  piece_flag = flag;
  __atomic_store_n(&piece_countdown, k, __ATOMIC_RELEASE);
  __atomic_store_n(&herd_test_piece_hook, k ? raise_at_piece : NULL, __ATOMIC_RELEASE);
}

/* A scenario file (NULL: the built-in default) with the given overrides ("PATH=VALUE");
 * exits on a bad one. */
static inline herd_scenario scenario_file_with(const char *path, const char *const *sets, int set_count) {
  herd_scenario sc;
  herd_error err;
  if (scenario_load(path, sets, set_count, &sc, &err) != HERD_OK) {
    fprintf(stderr, "bad test scenario: %s\n", err.message);
    exit(1);
  }
  return sc;
}

/* The default scenario with the given overrides; exits on a bad one. */
static inline herd_scenario scenario_with(const char *const *sets, int set_count) {
  return scenario_file_with(NULL, sets, set_count);
}

/* A shipped scenario, scenarios/FILE, with overrides; exits on a bad one. */
static inline herd_scenario shipped(const char *file, const char *const *sets, int set_count) {
  char path[128];
  snprintf(path, sizeof path, "scenarios/%s", file);
  return scenario_file_with(path, sets, set_count);
}

/* The flock's positions and velocities (world.dims floats each, by agent id), freshly read. */
typedef struct flock_copy {
  uint32_t n, dims;
  float *pos, *vel;
} flock_copy;

static inline flock_copy read_flock(herd_sim *sim) {
  const herd_scenario *sc = herd_sim_scenario(sim);
  flock_copy f = {sc->flock.count, sc->world.dims, NULL, NULL};
  f.pos = malloc((size_t)f.n * f.dims * sizeof *f.pos);
  f.vel = malloc((size_t)f.n * f.dims * sizeof *f.vel);
  herd_error err;
  CHECK(f.pos && f.vel && herd_sim_read_flock(sim, f.pos, f.vel, &err) == HERD_OK);
  return f;
}

static inline void free_flock(flock_copy *f) {
  free(f->pos);
  free(f->vel);
}

static inline herd_sim *sim_start(const herd_scenario *sc, int threads) {
  herd_sim *sim;
  herd_error err;
  if (herd_sim_create(&(herd_sim_desc){.scenario = sc, .threads = threads}, &sim, &err) != HERD_OK) {
    fprintf(stderr, "herd_sim_create: %s\n", err.message);
    exit(1);
  }
  return sim;
}

/* fn on each of `count` items of `size` bytes from `items`, two at a time (the machine has two
 * cores): one on a second thread, one on this one (both here when no thread can start). */
static inline void run_two_at_a_time(void *(*fn)(void *), void *items, size_t size, size_t count) {
  char *at = items;
  for (size_t i = 0; i < count; i += 2) {
    pthread_t other;
    bool threaded = i + 1 < count && pthread_create(&other, NULL, fn, at + (i + 1) * size) == 0;
    fn(at + i * size);
    if (threaded)
      pthread_join(other, NULL);
    else if (i + 1 < count)
      fn(at + (i + 1) * size);
  }
}

/* True when this machine has an OpenCL device for the backend to run on. */
static inline bool have_opencl(void) {
  herd_device_info info[4];
  int count = 0;
  herd_error err;
  return herd_devices(info, 4, &count, &err) == HERD_OK && count > 0;
}

/* The first OpenCL device into *first; without one, prints why and "skipped" and returns false
 * (the test then exits 77, ctest's skip). */
static inline bool first_opencl_device(herd_device_info *first) {
  herd_device_info info[8];
  int count = 0;
  herd_error err;
  herd_status s = herd_devices(info, 8, &count, &err);
  if (s != HERD_OK || count == 0) {
    printf("no OpenCL device: %s\nskipped\n", s != HERD_OK ? err.message : "none found");
    return false;
  }
  *first = info[0];
  return true;
}

/* FNV-1a over bytes, to fingerprint a whole run. */
static inline uint64_t fnv1a(uint64_t h, const void *data, size_t size) {
  const unsigned char *p = data;
  for (size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

/* A step abandoned through herd_sim_desc.stop leaves the sim exactly as it was (flock by
 * id, dogs, observation, step index), and stepping on afterwards works. */
static inline void check_interrupted_step_changes_nothing(const char *backend) {
  const char *sets[] = {"sheep.count=3000", "sheep.dog_radius_m=1e6", "dogs.count=2"};
  herd_scenario sc = scenario_with(sets, 3);
  volatile sig_atomic_t stop = 0;
  herd_sim *sim;
  herd_error err;
  herd_sim_desc desc = {.scenario = &sc, .threads = 2, .backend = backend, .stop = &stop};
  CHECK_MSG(herd_sim_create(&desc, &sim, &err) == HERD_OK, "%s", err.message);
  for (int s = 0; s < 5; ++s) CHECK(herd_sim_step(sim, &err) == HERD_OK);
  size_t n = sc.flock.count;
  float *before = malloc(4 * n * sizeof *before), *after = malloc(4 * n * sizeof *after);
  herd_observation obs = *herd_sim_observation(sim);
  herd_steering_state dog0 = *herd_sim_steering(sim, 0), dog1 = *herd_sim_steering(sim, 1);
  CHECK(herd_sim_read_flock(sim, before, before + 2 * n, &err) == HERD_OK);
  stop = 1;
  CHECK(herd_sim_step(sim, &err) == HERD_E_INTERRUPTED);
  CHECK(herd_sim_step_index(sim) == 5);
  CHECK(memcmp(&obs, herd_sim_observation(sim), sizeof obs) == 0);
  CHECK(memcmp(&dog0, herd_sim_steering(sim, 0), sizeof dog0) == 0 &&
        memcmp(&dog1, herd_sim_steering(sim, 1), sizeof dog1) == 0);
  CHECK(herd_sim_read_flock(sim, after, after + 2 * n, &err) == HERD_OK);
  CHECK(memcmp(before, after, 4 * n * sizeof *before) == 0);
  stop = 0;
  CHECK(herd_sim_step(sim, &err) == HERD_OK);
  CHECK(herd_sim_step_index(sim) == 6);
  CHECK(herd_sim_read_flock(sim, after, after + 2 * n, &err) == HERD_OK);
  CHECK(memcmp(before, after, 4 * n * sizeof *before) != 0); /* the flock moved on */
  free(before);
  free(after);
  herd_sim_destroy(sim);
}

#endif
