/* The model reproduces Strömbom et al. (2014): one dog herds the default flock home, and
 * fails when sheep attend to too few neighbours for the flock to hold together. */
#include "sim_util.h"

#define TESTS(X)                                  \
  X(default_scenario_is_herded_in_18_of_20_seeds) \
  X(too_few_neighbours_fail_in_18_of_20_seeds)
TESTS(DECLARE_TEST)

enum { SEEDS = 20 };

/* Runs SEEDS seeds; returns how many were herded, and prints the mean steps of those. */
static int herded_count(const char *label, const char *const *sets, int set_count) {
  int herded = 0;
  double steps = 0;
  herd_error err;
  for (int seed = 1; seed <= SEEDS; ++seed) {
    char seed_set[32];
    snprintf(seed_set, sizeof seed_set, "seed=%d", seed);
    const char *all[8];
    for (int k = 0; k < set_count; ++k) all[k] = sets[k];
    all[set_count] = seed_set;
    herd_scenario sc = scenario_with(all, set_count + 1);
    herd_sim *sim = sim_start(&sc, 0);
    while (herd_sim_outcome(sim) == HERD_RUNNING) CHECK(herd_sim_step(sim, &err) == HERD_OK);
    if (herd_sim_outcome(sim) == HERD_SUCCEEDED) ++herded, steps += herd_sim_step_index(sim);
    herd_sim_destroy(sim);
  }
  printf("  %s: %d of %d seeds herded, mean %.0f steps\n", label, herded, SEEDS, herded ? steps / herded : 0.0);
  return herded;
}

static void default_scenario_is_herded_in_18_of_20_seeds(void) { CHECK(herded_count("N=100, n=50", NULL, 0) >= 18); }

static void too_few_neighbours_fail_in_18_of_20_seeds(void) {
  const char *sets[] = {"sheep.count=50", "sheep.neighbours=5"};
  CHECK(herded_count("N=50, n=5", sets, 2) <= 2);
}

int main(void) { TEST_MAIN(TESTS); }
