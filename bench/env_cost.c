/* What walls, water and a pen (the signed-distance field, docs/models/env.md) cost a run, in CPU
 * time: the scenario SCENARIO (bench/env-sdf.json) against the very same scenario with its
 * geometry lists emptied (the open field), A/B in turn within one process, the order alternating
 * round by round. Each figure is the process's CPU time over STEPS steps of the native backend
 * on one thread (herd_sim_step; the bake at load is not in it), so time spent descheduled on a
 * shared machine is not counted. Prints CSV rows and the ratios env / open.
 *
 *   env_cost SCENARIO ROUNDS STEPS [--set PATH=VALUE]...   (bench/env-sdf.sh runs it) */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "herd/herd.h"

static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU seconds of `steps` steps of the scenario, with the geometry or without. */
static double measure(const char *file, const char **sets, int count, bool open, int steps) {
  const char *all[64];
  int n = 0;
  for (int i = 0; i < count && n < 60; ++i) all[n++] = sets[i];
  if (open) all[n++] = "obstacles.walls=[]", all[n++] = "obstacles.water=[]", all[n++] = "obstacles.pens=[]";
  herd_scenario *sc = NULL;
  herd_error err;
  herd_sim *sim;
  if (herd_scenario_load(file, all, n, &sc, &err) != HERD_OK ||
      herd_sim_create(&(herd_sim_desc){.scenario = sc, .threads = 1, .backend = "cpu"}, &sim, &err) != HERD_OK) {
    fprintf(stderr, "env_cost: %s\n", err.message);
    exit(2);
  }
  herd_scenario_free(sc);
  double start = cpu_s();
  for (int s = 0; s < steps; ++s)
    if (herd_sim_step(sim, &err) != HERD_OK) {
      fprintf(stderr, "env_cost: %s\n", err.message);
      exit(1);
    }
  double spent = cpu_s() - start;
  herd_sim_destroy(sim);
  return spent;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: env_cost SCENARIO ROUNDS STEPS [--set PATH=VALUE]...\n");
    return 2;
  }
  int rounds = atoi(argv[2]), steps = atoi(argv[3]), count = 0;
  const char *sets[60];
  for (int i = 4; i + 1 < argc && count < 60; i += 2)
    if (strcmp(argv[i], "--set") == 0) sets[count++] = argv[i + 1];
  double *ratio = calloc((size_t)(rounds > 0 ? rounds : 1), sizeof *ratio), env_sum = 0, open_sum = 0;
  printf("round,field,steps,cpu_s\n");
  for (int r = 0; r < rounds && ratio; ++r) {
    double t[2];
    for (int k = 0; k < 2; ++k) {
      bool open = (k + r) % 2 == 1; /* env first in even rounds, open first in odd ones */
      t[open] = measure(argv[1], sets, count, open, steps);
      printf("%d,%s,%d,%.3f\n", r + 1, open ? "open" : "env", steps, t[open]);
      fflush(stdout);
    }
    ratio[r] = t[0] / t[1], env_sum += t[0], open_sum += t[1];
  }
  if (!ratio || rounds <= 0) return 1;
  for (int r = 0; r < rounds; ++r) printf("# round %d: env/open %.3f\n", r + 1, ratio[r]);
  qsort(ratio, (size_t)rounds, sizeof *ratio, by_value);
  printf("# median env/open %.3f (min %.3f, max %.3f over %d rounds); total env/open %.3f; open %.2f ms/step\n",
         ratio[(rounds - 1) / 2], ratio[0], ratio[rounds - 1], rounds, env_sum / open_sum,
         1e3 * open_sum / rounds / steps);
  free(ratio);
  return 0;
}
