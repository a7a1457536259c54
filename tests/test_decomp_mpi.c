/* herd_decomp_balance over real MPI ranks (run by tests/test_decomp_mpi.sh under mpirun): every
 * rank ends with the same cuts, whichever rank holds which agents, and the cuts give every
 * rank about N / P of the flock where the first, even cuts did not. Argument: the layout
 * ("slabs" or "grid"). Every rank runs every test; the checks failed on any rank count on all,
 * and only rank 0 prints the list. */
#include <math.h>
#include <mpi.h>
#include <stdlib.h>

#include "backend/mpi/decomp.h"
#include "rng.h"
#include "test.h"

#define TESTS(X)                                   \
  X(balance_is_the_same_on_every_rank_2d_open)     \
  X(balance_is_the_same_on_every_rank_3d_wrapping) \
  X(balance_gives_each_rank_its_share_2d_open)     \
  X(balance_gives_each_rank_its_share_3d_wrapping)
TESTS(DECLARE_TEST)

static int rank, size;
static const char *layout = "slabs";

enum { AGENTS = 60000 };

typedef struct world {
  uint32_t dims, stride;
  float size_m[3];
  uint32_t wrap[3];
} world;

static const world open_2d = {2, 2, {0, 0, 0}, {0, 0, 0}};
static const world wrapping_3d = {3, 4, {200, 120, 40}, {1, 0, 1}};

/* How the flock is spread over ranks before any balance: it must not change the cuts. */
typedef enum spread { ROUND_ROBIN, BLOCKS, ALL_ON_RANK_0 } spread;

static bool holds(spread how, uint32_t a) {
  switch (how) {
    case ROUND_ROBIN: return a % (uint32_t)size == (uint32_t)rank;
    case BLOCKS: return (uint64_t)a * size / AGENTS == (uint64_t)rank;
    default: return rank == 0;
  }
}

static float unit(uint32_t a, uint32_t stream, int which) {
  return herd_rng_unit_float(herd_rng_draw(99, 3, a, stream).v[which]);
}

/* Agent a of a lopsided flock: 60 % in a dense patch near one end, the rest spread out. */
static void flock_point(const world *w, uint32_t a, float *p) {
  bool dense = unit(a, 1, 3) < 0.6f;
  for (uint32_t k = 0; k < w->dims; ++k) {
    float u = unit(a, 1, (int)k), v = unit(a, 2, (int)k);
    float x = dense ? 20.0f + 15.0f * (u + v) : 180.0f * u; /* triangular patch, then uniform */
    p[k] = w->wrap[k] ? fmodf(x, w->size_m[k]) : x - 50.0f;
  }
  if (w->stride == 4) p[3] = 0.0f;
}

/* This rank's agents' positions (stride floats each); *count of them. */
static float *local_flock(const world *w, spread how, uint32_t *count) {
  float *pos = malloc((size_t)AGENTS * w->stride * sizeof(float));
  *count = 0;
  for (uint32_t a = 0; a < AGENTS; ++a)
    if (holds(how, a)) flock_point(w, a, pos + (size_t)(*count)++ * w->stride);
  return pos;
}

/* The flock's extent over all ranks (what the backend reads from the observation). */
static void global_extent(const world *w, const float *pos, uint32_t count, float lo[3], float hi[3]) {
  for (uint32_t k = 0; k < 3; ++k) lo[k] = INFINITY, hi[k] = -INFINITY;
  for (uint32_t a = 0; a < count; ++a)
    for (uint32_t k = 0; k < w->dims; ++k)
      lo[k] = fminf(lo[k], pos[(size_t)a * w->stride + k]), hi[k] = fmaxf(hi[k], pos[(size_t)a * w->stride + k]);
  MPI_Allreduce(MPI_IN_PLACE, lo, 3, MPI_FLOAT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, hi, 3, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD);
}

static herd_decomp balanced(const world *w, spread how) {
  uint32_t count;
  float *pos = local_flock(w, how, &count), lo[3], hi[3];
  global_extent(w, pos, count, lo, hi);
  herd_decomp d;
  char why[200] = "";
  CHECK_MSG(herd_decomp_init(&d, (uint32_t)size, layout, w->dims, w->size_m, w->wrap, lo, hi, why, sizeof why) == 0,
            "rank %d: %s", rank, why);
  CHECK_MSG(herd_decomp_balance(&d, MPI_COMM_WORLD, pos, count, w->stride, lo, hi) == 0, "rank %d", rank);
  free(pos);
  return d;
}

/* Whether every rank holds the same bytes as rank 0. */
static bool same_on_every_rank(const herd_decomp *d) {
  herd_decomp first = *d;
  MPI_Bcast(&first, sizeof first, MPI_BYTE, 0, MPI_COMM_WORLD);
  int same = memcmp(&first, d, sizeof first) == 0, all = 0;
  MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all;
}

static void same_cuts(const world *w) {
  herd_decomp round_robin = balanced(w, ROUND_ROBIN), blocks = balanced(w, BLOCKS), one = balanced(w, ALL_ON_RANK_0);
  CHECK_MSG(same_on_every_rank(&round_robin), "rank %d: round robin", rank);
  /* integer histograms: where the agents start cannot change a single bit of the cuts */
  CHECK_MSG(memcmp(&round_robin, &blocks, sizeof blocks) == 0, "rank %d: blocks", rank);
  CHECK_MSG(memcmp(&round_robin, &one, sizeof one) == 0, "rank %d: all on rank 0", rank);
  for (uint32_t k = 1; k <= round_robin.px; ++k) CHECK(round_robin.cut0[k] > round_robin.cut0[k - 1]);
}

static void balance_is_the_same_on_every_rank_2d_open(void) { same_cuts(&open_2d); }
static void balance_is_the_same_on_every_rank_3d_wrapping(void) { same_cuts(&wrapping_3d); }

/* The agents each rank's region holds, summed over every rank's agents. */
static void region_counts(const herd_decomp *d, const world *w, uint64_t *counts) {
  uint32_t count;
  float *pos = local_flock(w, ROUND_ROBIN, &count);
  memset(counts, 0, d->ranks * sizeof *counts);
  for (uint32_t a = 0; a < count; ++a) {
    const float *q = pos + (size_t)a * w->stride;
    float p[3] = {q[0], q[1], w->dims == 3 ? q[2] : 0.0f};
    ++counts[herd_decomp_owner(d, p)];
  }
  MPI_Allreduce(MPI_IN_PLACE, counts, (int)d->ranks, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  free(pos);
}

/* The largest distance of a rank's count from N / P. */
static double worst_share(const herd_decomp *d, const world *w) {
  uint64_t counts[HERD_DECOMP_MAX_RANKS];
  region_counts(d, w, counts);
  double worst = 0.0, share = (double)AGENTS / d->ranks, total = 0.0;
  for (uint32_t r = 0; r < d->ranks; ++r) worst = fmax(worst, fabs((double)counts[r] - share)), total += counts[r];
  CHECK_MSG(total == AGENTS, "%g agents in the regions, %d in the flock", total, AGENTS);
  return worst;
}

static void shares(const world *w) {
  uint32_t count;
  float *pos = local_flock(w, ROUND_ROBIN, &count), lo[3], hi[3];
  global_extent(w, pos, count, lo, hi);
  free(pos);
  herd_decomp even;
  CHECK(herd_decomp_init(&even, (uint32_t)size, layout, w->dims, w->size_m, w->wrap, lo, hi, NULL, 0) == 0);
  herd_decomp d = balanced(w, ROUND_ROBIN);
  /* A cut is off by at most the agents of the bin it falls in, and far less where the
   * density is smooth across the bin (~10 agents here); 0.2 % of the flock leaves room for
   * rounding and none for a cut in the wrong bin (up to ~0.7 % in the dense patch). */
  double before = worst_share(&even, w), after = worst_share(&d, w), allowed = 0.002 * AGENTS;
  CHECK_MSG(after <= allowed, "%s on %d ranks: a rank is %g agents from its share (%g allowed)", layout, size, after,
            allowed);
  /* The test can fail: the even first cuts leave a rank far from its share. */
  CHECK_MSG(size == 1 || before > 4.0 * allowed, "even cuts are only %g agents off", before);
}

static void balance_gives_each_rank_its_share_2d_open(void) { shares(&open_2d); }
static void balance_gives_each_rank_its_share_3d_wrapping(void) { shares(&wrapping_3d); }

/* Runs test t on every rank; a check failed on any rank fails it on all. */
static void on_every_rank(void (*t)(void)) {
  int before = test_failed_checks;
  t();
  int mine = test_failed_checks - before, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  test_failed_checks = before + all;
}

#define ON_EVERY_RANK(name) \
  static void name##_everywhere(void) { on_every_rank(name); }
TESTS(ON_EVERY_RANK)
#define EVERYWHERE_ENTRY(name) {#name, name##_everywhere},

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1) layout = argv[1];
  if (rank != 0 && !freopen("/dev/null", "w", stdout)) return 1; /* one list, from rank 0 */
  static const test_case cases[] = {TESTS(EVERYWHERE_ENTRY)};
  int status = test_run(cases, sizeof cases / sizeof cases[0]);
  MPI_Finalize();
  return status;
}
