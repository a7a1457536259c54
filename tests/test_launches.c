/* The OpenCL step's kernels and host waits per step, as --profile counts them, within their
 * limits: a launch or a wait more per step fails. On a GPU each launch costs about 5 us and each
 * wait more, however small the flock: a herding step of 10^4 sheep is to take at most 6 enqueued
 * commands (its kernels, the dog's write, the observation's read) and 1 wait: 4 kernels, 2 copies and
 * 1 wait with the dog away from its flock, the pre-pass's one kernel more once sheep feel it; and a
 * step of 10^6 sheep each with its n nearest at most 12 kernels.
 *
 * The runs have no stop flag, so no step is cut into slices for Ctrl-C (on PoCL a step may take
 * long enough to be; on a GPU none does): the counts are a GPU's. They are counted over STEPS
 * steps after WARM_STEPS (the run's start: uploads, its first observation). The limits are today's
 * counts: lower them when a change saves a launch. Skipped (77) without an OpenCL device. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "sim_util.h"

#define WARM_STEPS 2u
#define STEPS 8u

typedef struct launch_case {
  const char *what;
  const char *sets[4];
  const char *grid_small_max;  /* $HERD_CL_GRID_SMALL_MAX, or NULL */
  const char *scan_single_max; /* $HERD_CL_SCAN_SINGLE_MAX, or NULL */
  const char *coop;            /* $HERD_CL_COOP, or NULL */
  uint64_t kernels, waits;     /* per step, at most */
} launch_case;

static const launch_case launch_cases[] = {
    /* the grid in one launch (herd_grid_small), the step, the reduction's two */
    {"herding, 10^4 sheep", {"sheep.count=10000", "field.size_m=1000"}, NULL, NULL, NULL, 4, 1},
    /* a flock over GRID_SMALL_MAX: bin, two radix passes (scan, scatter: the first pass's
     * counts are the bin's, the second's the first scatter's), the ranges; then as above */
    {"herding, 10^4 sheep, the grid's launches", {"sheep.count=10000", "field.size_m=1000"}, "0", NULL, NULL, 9, 1},
    /* the same with each pass's digit table (2560 entries) scanned by blocks: the last block
     * to finish scans their totals, in the same launch (herd_scan_blocks_last) */
    {"herding, 10^4 sheep, the grid's launches, the tables scanned by blocks",
     {"sheep.count=10000", "field.size_m=1000"},
     "0",
     "4",
     NULL,
     9,
     1},
    /* with the pre-pass, as on a GPU, but the dog far from its flock (no sheep within r_s in
     * these steps): the last observation says so and its launch is skipped */
    {"herding, 10^4 sheep, the pre-pass idle", {"sheep.count=10000", "field.size_m=1000"}, NULL, NULL, "1", 4, 1},
    /* every sheep active, with the pre-pass: one cooperative kernel (the sheep it leaves far
     * are searched by the step kernel) */
    {"all active, 3000 sheep, the pre-pass",
     {"sheep.count=3000", "field.size_m=400", "sheep.dog_radius_m=1e6"},
     NULL,
     NULL,
     "1",
     5,
     1},
    {"all active, 20000 sheep, the pre-pass",
     {"sheep.count=20000", "field.size_m=800", "sheep.dog_radius_m=1e6"},
     NULL,
     NULL,
     "1",
     10,
     1},
    /* as 10^6 sheep are (bench/gpu-model.py's case): more than 2^16 buckets read (114,244 cells
     * of the flock's box), so three radix passes: bin, 3 x (scan, scatter), ranges, the
     * pre-pass, the step, the reduction's two */
    {"all active, 40000 sheep over 114,244 cells, the pre-pass",
     {"sheep.count=40000", "field.size_m=4000", "sheep.dog_radius_m=1e6"},
     NULL,
     NULL,
     "1",
     12,
     1},
};

static void set_or_unset(const char *name, const char *value) {
  if (value)
    setenv(name, value, 1);
  else
    unsetenv(name);
}

/* Kernels and waits per step of a flock with these overrides, over `steps` steps after `warm`. */
static void count_per_step(const char *const *sets, int set_count, uint32_t warm, uint32_t steps, double *kernels,
                           double *waits) {
  herd_scenario sc = scenario_with(sets, set_count);
  herd_sim *sim;
  herd_error err;
  CHECK_MSG(
      herd_sim_create(&(herd_sim_desc){.scenario = &sc, .backend = "opencl", .profile = true}, &sim, &err) == HERD_OK,
      "%s", err.message);
  herd_profile before, p;
  for (uint32_t s = 0; s < warm; ++s) CHECK(herd_sim_step(sim, &err) == HERD_OK);
  CHECK(herd_sim_profile(sim, &before, &err) == HERD_OK);
  for (uint32_t s = 0; s < steps; ++s) CHECK(herd_sim_step(sim, &err) == HERD_OK);
  CHECK(herd_sim_profile(sim, &p, &err) == HERD_OK);
  herd_sim_destroy(sim);
  *kernels = (double)(p.kernels - before.kernels) / steps;
  *waits = (double)(p.waits - before.waits) / steps;
}

static void counts_within_limits(void) {
  for (size_t c = 0; c < sizeof launch_cases / sizeof launch_cases[0]; ++c) {
    const launch_case *k = &launch_cases[c];
    int sets = 0;
    while (sets < 4 && k->sets[sets]) ++sets;
    set_or_unset("HERD_CL_GRID_SMALL_MAX", k->grid_small_max);
    set_or_unset("HERD_CL_SCAN_SINGLE_MAX", k->scan_single_max);
    set_or_unset("HERD_CL_COOP", k->coop);
    double kernels, waits;
    count_per_step(k->sets, sets, WARM_STEPS, STEPS, &kernels, &waits);
    printf("%s: %.2f kernels per step (at most %llu), %.2f host waits per step (at most %llu)\n", k->what, kernels,
           (unsigned long long)k->kernels, waits, (unsigned long long)k->waits);
    CHECK_MSG(kernels <= (double)k->kernels, "%s: %.2f kernels per step", k->what, kernels);
    CHECK_MSG(waits <= (double)k->waits, "%s: %.2f waits per step", k->what, waits);
  }
  unsetenv("HERD_CL_GRID_SMALL_MAX");
  unsetenv("HERD_CL_SCAN_SINGLE_MAX");
  unsetenv("HERD_CL_COOP");
}

#define TESTS(X) X(counts_within_limits)

/* test_launches PATH=VALUE...: a measurement, not the test: one flock's counts over one step
 * after one (say sheep.count=1000000 sheep.dog_radius_m=1e6 field.size_m=4000). */
int main(int argc, char **argv) {
  herd_device_info device;
  if (!first_opencl_device(&device)) return 77;
  if (argc > 1) {
    double kernels, waits;
    count_per_step((const char *const *)argv + 1, argc - 1, 1, 1, &kernels, &waits);
    printf("%.2f kernels per step, %.2f host waits per step\n", kernels, waits);
    return test_failed_checks ? 1 : 0;
  }
  TEST_MAIN(TESTS);
}
