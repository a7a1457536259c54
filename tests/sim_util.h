/* Running whole simulations in tests. */
#ifndef HERD_TESTS_SIM_UTIL_H
#define HERD_TESTS_SIM_UTIL_H
#include <stdlib.h>

#include "herd/herd.h"
#include "test.h"

/* The default scenario with the given overrides ("PATH=VALUE"); exits on a bad one. */
static inline herd_scenario scenario_with(const char *const *sets, int set_count) {
  herd_scenario sc;
  herd_error err;
  if (herd_scenario_load(NULL, sets, set_count, &sc, &err) != HERD_OK) {
    fprintf(stderr, "bad test scenario: %s\n", err.message);
    exit(1);
  }
  return sc;
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

/* FNV-1a over bytes, to fingerprint a whole run. */
static inline uint64_t fnv1a(uint64_t h, const void *data, size_t size) {
  const unsigned char *p = data;
  for (size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

#endif
