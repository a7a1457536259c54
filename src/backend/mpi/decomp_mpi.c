/* Rebalancing the cuts over ranks (decomp.h): the one part of the decomposition that talks MPI. */
#include <math.h>
#include <stdlib.h>

#include "decomp.h"

#define HERD_DECOMP_BINS 1024u

/* The agent's position as a 3-vector (2D positions have no z). */
static void agent_point(const float *pos, uint32_t stride, uint32_t a, float p[3]) {
  const float *q = pos + (size_t)a * stride;
  p[0] = q[0], p[1] = q[1], p[2] = stride > 2 ? q[2] : 0.0f;
}

/* Integer sums: the same on every rank and in every reduction order. */
static int sum_histograms(uint64_t *hist, size_t bins, MPI_Comm comm) {
  return MPI_Allreduce(MPI_IN_PLACE, hist, (int)bins, MPI_UINT64_T, MPI_SUM, comm) == MPI_SUCCESS ? 0 : -1;
}

/* Every rank learns whether every rank could allocate; otherwise one would wait forever in the
 * next collective while the others gave up. */
static int all_ranks_ready(int ready, MPI_Comm comm) {
  int all = 0;
  if (MPI_Allreduce(&ready, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) return 0;
  return all;
}

static void histogram_axis0(const herd_decomp *d, const float *pos, uint32_t count, uint32_t stride, float lo, float hi,
                            uint64_t *hist) {
  for (uint32_t a = 0; a < count; ++a) {
    float x = herd_decomp_coord(d, d->axis0, pos[(size_t)a * stride + d->axis0]);
    if (!isnan(x)) ++hist[herd_decomp_bin(x, lo, hi, HERD_DECOMP_BINS)];
  }
}

/* Per slab of the new cut0: a histogram along axis1 of the agents that slab now holds. */
static void histogram_slabs(const herd_decomp *d, const float *pos, uint32_t count, uint32_t stride, float lo, float hi,
                            uint64_t *hist) {
  for (uint32_t a = 0; a < count; ++a) {
    float p[3];
    agent_point(pos, stride, a, p);
    float y = herd_decomp_coord(d, d->axis1, p[d->axis1]);
    if (isnan(y) || isnan(herd_decomp_coord(d, d->axis0, p[d->axis0]))) continue;
    uint32_t slab = herd_decomp_owner(d, p) / d->py;
    ++hist[(size_t)slab * HERD_DECOMP_BINS + herd_decomp_bin(y, lo, hi, HERD_DECOMP_BINS)];
  }
}

/* New cuts into `next` from every rank's agents: cut0 first, then each slab's cut1 from the
 * agents the new cut0 puts in it. */
static int rebalance(herd_decomp *next, MPI_Comm comm, const float *pos, uint32_t count, uint32_t stride,
                     const float lo[3], const float hi[3], uint64_t *hist0, uint64_t *hist1) {
  float a, b;
  herd_decomp_extent(next, next->axis0, lo[next->axis0], hi[next->axis0], &a, &b);
  histogram_axis0(next, pos, count, stride, a, b, hist0);
  if (sum_histograms(hist0, HERD_DECOMP_BINS, comm) != 0) return -1;
  herd_decomp_cut_from_histogram(hist0, HERD_DECOMP_BINS, a, b, next->px, next->cut0);
  if (next->py == 1) return 0;
  herd_decomp_extent(next, next->axis1, lo[next->axis1], hi[next->axis1], &a, &b);
  histogram_slabs(next, pos, count, stride, a, b, hist1);
  if (sum_histograms(hist1, (size_t)next->px * HERD_DECOMP_BINS, comm) != 0) return -1;
  for (uint32_t i = 0; i < next->px; ++i)
    herd_decomp_cut_from_histogram(hist1 + (size_t)i * HERD_DECOMP_BINS, HERD_DECOMP_BINS, a, b, next->py,
                                   next->cut1[i]);
  return 0;
}

int herd_decomp_balance(herd_decomp *d, MPI_Comm comm, const float *pos, uint32_t count, uint32_t stride,
                        const float lo[3], const float hi[3]) {
  herd_decomp next = *d;
  uint64_t *hist0 = calloc(HERD_DECOMP_BINS, sizeof *hist0);
  uint64_t *hist1 = d->py > 1 ? calloc((size_t)d->px * HERD_DECOMP_BINS, sizeof *hist1) : NULL;
  int status = -1;
  if (all_ranks_ready(hist0 && (d->py == 1 || hist1), comm))
    status = rebalance(&next, comm, pos, count, stride, lo, hi, hist0, hist1);
  if (status == 0) *d = next;
  free(hist0);
  free(hist1);
  return status;
}
