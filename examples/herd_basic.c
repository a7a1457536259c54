/* herd_basic: the smallest program on the installed library. Loads a scenario (the built-in
 * Strömbom field without arguments), runs it to its outcome and prints the observation and
 * the order parameters every 100 steps, then the outcome.
 *
 *   herd_basic [SCENARIO.json|-] [PATH=VALUE ...]      e.g. herd_basic - seed=7 sheep.count=50
 *
 * Build: see examples/CMakeLists.txt, or
 *   cc herd_basic.c $(pkg-config --cflags --libs herd) -o herd_basic */
#include <herd/herd.h>
#include <stdio.h>

static void print_observation(const herd_sim *sim) {
  const herd_observation *o = herd_sim_observation(sim);
  printf(
      "step %u: delivered %u/%u, in goal %u, centroid (%.2f, %.2f), extent %.1f x %.1f m, "
      "polarisation %.4f, milling %.4f\n",
      herd_sim_step_index(sim), o->delivered, o->count, o->in_goal, o->centroid[0], o->centroid[1],
      (double)(o->extent_max[0] - o->extent_min[0]), (double)(o->extent_max[1] - o->extent_min[1]),
      (double)o->polarisation, (double)o->milling);
}

int main(int argc, char **argv) {
  const char *path = argc > 1 && argv[1][0] != '-' ? argv[1] : NULL; /* "-": the built-in one */
  const char *const *sets = argc > 2 ? (const char *const *)argv + 2 : NULL;
  herd_error err;
  herd_scenario *sc; /* opaque: read with herd_scenario_describe and herd_scenario_get */
  if (herd_scenario_load(path, sets, argc > 2 ? argc - 2 : 0, &sc, &err) != HERD_OK) {
    fprintf(stderr, "herd_basic: %s\n", err.message);
    return 2;
  }
  herd_scenario_info info = herd_scenario_describe(sc);
  herd_sim *sim;
  herd_status created = herd_sim_create(&(herd_sim_desc){.scenario = sc}, &sim, &err);
  herd_scenario_free(sc); /* the sim keeps its own copy */
  if (created != HERD_OK) {
    fprintf(stderr, "herd_basic: %s\n", err.message);
    return 1;
  }
  printf("herd %s: %s, %u agents, seed %llu\n", herd_version(), herd_model_name(info.model), info.count,
         (unsigned long long)info.seed);
  herd_status st = HERD_OK;
  while (st == HERD_OK && herd_sim_outcome(sim) == HERD_RUNNING) {
    st = herd_sim_run(sim, 100, NULL, &err); /* 100 steps, or fewer at the outcome */
    print_observation(sim);
  }
  if (st != HERD_OK)
    fprintf(stderr, "herd_basic: %s\n", err.message);
  else
    printf("outcome: %s after %u steps, %u of %u delivered\n", herd_outcome_name(herd_sim_outcome(sim)),
           herd_sim_step_index(sim), herd_sim_observation(sim)->delivered, herd_sim_observation(sim)->count);
  herd_sim_destroy(sim);
  return st == HERD_OK ? 0 : 1;
}
