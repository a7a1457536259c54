/* One flock over MPI ranks (issue 17), run by tests/test_mpi_run.sh under mpirun -np P: every
 * rank steps the scenario split over the ranks (herd_sim_desc.mpi) and, beside it, the whole
 * flock alone in one process; after every step the two flocks, read back in id order, must be
 * equal bit for bit (every agent's position, velocity, and so its id: an agent that crossed to
 * another rank kept its id and state), and so must the observations. The split must also have
 * moved agents between ranks, rebalanced, and (for the k nearest) widened its halo, or the test
 * proved nothing. Arguments: LAYOUT STEPS REBALANCE then --set assignments for the scenario. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/scenario.h"
#include "herd/herd.h"

static int rank;

static int fail(const char *what, const herd_error *err) {
  fprintf(stderr, "rank %d: %s%s%s\n", rank, what, err ? ": " : "", err ? err->message : "");
  return 1;
}

/* The first agent whose state differs, or -1. */
static long first_difference(const float *a, const float *b, size_t floats, uint32_t dims) {
  for (size_t i = 0; i < floats; ++i)
    if (memcmp(&a[i], &b[i], sizeof(float)) != 0) return (long)(i / dims);
  return -1;
}

static int same_observation(const herd_observation *a, const herd_observation *b) {
  return memcmp(a->centroid, b->centroid, sizeof a->centroid) == 0 && a->farthest_id == b->farthest_id &&
         a->polarisation == b->polarisation && a->milling == b->milling && a->delivered == b->delivered &&
         memcmp(a->extent_min, b->extent_min, sizeof a->extent_min) == 0 &&
         memcmp(a->extent_max, b->extent_max, sizeof a->extent_max) == 0 &&
         memcmp(a->sector, b->sector, sizeof a->sector) == 0;
}

static int compare(herd_sim *split, herd_sim *whole, uint32_t n, uint32_t dims, float *buf[4], uint32_t step) {
  herd_error err;
  if (herd_sim_read_flock(split, buf[0], buf[1], &err) != HERD_OK) return fail("reading the split flock", &err);
  if (herd_sim_read_flock(whole, buf[2], buf[3], &err) != HERD_OK) return fail("reading the whole flock", &err);
  long pos = first_difference(buf[0], buf[2], (size_t)n * dims, dims);
  long vel = first_difference(buf[1], buf[3], (size_t)n * dims, dims);
  if (pos >= 0 || vel >= 0) {
    long i = pos >= 0 ? pos : vel;
    fprintf(
        stderr,
        "rank %d: step %u: agent %ld differs: split (%.9g, %.9g) v (%.9g, %.9g), alone (%.9g, %.9g) v (%.9g, %.9g)\n",
        rank, step, i, (double)buf[0][i * dims], (double)buf[0][i * dims + 1], (double)buf[1][i * dims],
        (double)buf[1][i * dims + 1], (double)buf[2][i * dims], (double)buf[2][i * dims + 1], (double)buf[3][i * dims],
        (double)buf[3][i * dims + 1]);
    return 1;
  }
  if (!same_observation(herd_sim_observation(split), herd_sim_observation(whole))) {
    fprintf(stderr, "rank %d: step %u: the observations differ\n", rank, step);
    return 1;
  }
  return 0;
}

static int run(const char *layout, uint32_t steps, uint32_t rebalance, const char *const *sets, int set_count) {
  herd_scenario sc;
  herd_error err;
  if (scenario_load(NULL, sets, set_count, &sc, &err) != HERD_OK) return fail("the scenario", &err);
  herd_sim *split = NULL, *whole = NULL;
  herd_sim_desc desc = {
      .scenario = &sc, .threads = 1, .mpi = {.on = true, .layout = layout, .rebalance_every = rebalance}};
  if (herd_sim_create(&desc, &split, &err) != HERD_OK) return fail("the split sim", &err);
  desc.mpi.on = false;
  if (herd_sim_create(&desc, &whole, &err) != HERD_OK) return fail("the whole sim", &err);
  uint32_t n = sc.flock.count, dims = sc.world.dims;
  float *buf[4];
  for (int k = 0; k < 4; ++k) buf[k] = malloc((size_t)n * dims * sizeof(float));
  int status = compare(split, whole, n, dims, buf, 0);
  uint32_t step = 0;
  for (; status == 0 && step < steps && herd_sim_outcome(whole) == HERD_RUNNING; ++step) {
    if (herd_sim_step(split, &err) != HERD_OK) status = fail("a split step", &err);
    if (status == 0 && herd_sim_step(whole, &err) != HERD_OK) status = fail("a whole step", &err);
    if (status == 0) status = compare(split, whole, n, dims, buf, step + 1);
  }
  herd_mpi_stats st;
  if (status == 0 && !herd_sim_mpi_stats(split, &st)) status = fail("no MPI statistics", NULL);
  if (status == 0 && rank == 0)
    printf(
        "%s, %u steps on %u ranks (%s %ux%u): equal every step; %.1f migrated and %.1f halo agents a step, %u "
        "rebalancings, halo widened %u times\n",
        herd_model_name(sc.model), step, st.ranks, st.layout, st.px, st.py, (double)st.migrated / (step ? step : 1),
        (double)st.halo_agents / (step ? step : 1), st.rebalances, st.halo_grows);
  /* With more than one rank, agents must have crossed and the cuts moved: else nothing was shown. */
  if (status == 0 && st.ranks > 1 && (st.migrated == 0 || st.halo_agents == 0 || st.rebalances == 0))
    status = fail("no agent migrated, no halo, or no rebalancing: the test shows nothing", NULL);
  for (int k = 0; k < 4; ++k) free(buf[k]);
  herd_sim_destroy(split);
  herd_sim_destroy(whole);
  return status;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 4) {
    fprintf(stderr, "usage: test_mpi_run LAYOUT STEPS REBALANCE [path=value ...]\n");
    MPI_Finalize();
    return 2;
  }
  int status = run(argv[1], (uint32_t)atoi(argv[2]), (uint32_t)atoi(argv[3]), (const char *const *)argv + 4, argc - 4);
  int worst = status;
  MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
