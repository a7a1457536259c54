/* The geometry of one flock split over MPI ranks: where the cuts lie, which rank
 * owns a point, which ranks need it as a halo, how deep a point lies inside its region, where
 * balanced cuts go, and how wide a halo must be for exact k-nearest queries.
 *
 * Space is cut along two axes of a px * py process grid: px slabs along axis0 (the flock's
 * longer extent at the start), each slab cut on its own into py parts along axis1, so every
 * rank's region is a box (half-open, [cut_k, cut_k+1) along both axes; the third axis of a 3D
 * world is never cut). Everything here is pure arithmetic: no MPI, so the tests and the
 * single-process tools use it as well; herd_decomp_balance (decomp_mpi.c) is the one function
 * that talks to other ranks. The bounds are written out in docs/mpi-decomposition.md. */
#ifndef HERD_BACKEND_MPI_DECOMP_H
#define HERD_BACKEND_MPI_DECOMP_H
#include <stddef.h>
#include <stdint.h>
#include "../layer.h"

#ifdef HERD_WITH_MPI
#include <mpi.h>
#endif

#define HERD_DECOMP_MAX_RANKS 64 /* ranks along one axis of the process grid at most */

typedef struct herd_decomp {
  uint32_t ranks, px, py; /* ranks = px * py; rank r = i * py + j: slab i along axis0, part j along axis1 */
  uint32_t axis0, axis1;  /* axis0: the flock's longer extent at the start; axis1 the other (2D/3D: x or y) */
  uint32_t dims;
  float size_m[3]; /* the world's size (wrap periods) */
  uint32_t wrap[3];
  float cut0[HERD_DECOMP_MAX_RANKS + 1];                        /* px + 1 cuts along axis0 */
  float cut1[HERD_DECOMP_MAX_RANKS][HERD_DECOMP_MAX_RANKS + 1]; /* per slab: py + 1 cuts along axis1 */
} herd_decomp;

/* The process grid for `ranks`: layout "slabs" (px = ranks, py = 1; also for NULL or "") or
 * "grid" (px * py = ranks, px >= py, as square as possible; a prime count gives slabs). Open
 * axes: cut0[0] = -INFINITY, cut0[px] = +INFINITY (likewise cut1); wrapping axes: 0 and
 * size_m. Interior cuts start evenly spaced over [lo, hi] (the flock's extent; clamped into
 * the period along a wrapping axis) until the first balance. 0 on success, else -1 with a
 * message in why (ranks 0, more than HERD_DECOMP_MAX_RANKS along one axis, an unknown
 * layout, dims not 2 or 3, a wrapping axis without a positive finite size). */
int herd_decomp_init(herd_decomp *d, uint32_t ranks, const char *layout, uint32_t dims, const float size_m[3],
                     const uint32_t wrap[3], const float lo[3], const float hi[3], char *why, size_t why_size);

/* The rank whose region holds p (regions are half-open [cut_k, cut_k+1); a NaN coordinate,
 * or an infinite one along a wrapping axis, goes to rank 0; along a wrapping axis p is first
 * wrapped into [0, size)). */
uint32_t herd_decomp_owner(const herd_decomp *d, const float p[3]);

/* The other ranks whose region lies within `width` of p (distance through the wrap along
 * wrapping axes; Euclidean distance from p to the region's box, in the dims used), written to
 * out (room for d->ranks), in increasing rank order; returns how many. Never `self`. */
uint32_t herd_decomp_halo_ranks(const herd_decomp *d, uint32_t self, const float p[3], float width, uint32_t *out);

/* How deep p lies inside rank r's region: the distance from p to the nearest of the region's
 * finite faces (INFINITY when none: one rank along open axes). Along a wrapping axis with more
 * than one part, both cuts are faces (through the wrap). For p inside the region this is the
 * distance from p to every other rank's region. */
float herd_decomp_depth(const herd_decomp *d, uint32_t r, const float p[3]);

/* New cuts so that each rank holds about the same number of agents, from histograms:
 * hist[h] counts agents along one axis in `bins` equal bins over [lo, hi] (values outside go
 * to the end bins); this places parts - 1 interior cuts so that the cumulative counts are as
 * even as possible (interpolating inside a bin), cuts strictly increasing. With no agents at
 * all the cuts are even over [lo, hi]. Pure; the backend and the tests call it. */
void herd_decomp_cut_from_histogram(const uint64_t *hist, uint32_t bins, float lo, float hi, uint32_t parts,
                                    float *cuts /* parts + 1 entries; [0] and [parts] left as they are */);

/* The bin of x in `bins` equal bins over [lo, hi] (values outside, and NaN, to the end bins):
 * the one binning herd_decomp_balance and any caller building its own histogram share. */
uint32_t herd_decomp_bin(float x, float lo, float hi, uint32_t bins);

/* Coordinate x along `axis` as the cuts see it: wrapped into [0, size) along a wrapping axis
 * (NaN for an infinite one), unchanged along an open one. */
float herd_decomp_coord(const herd_decomp *d, uint32_t axis, float x);

/* The range [*a, *b] (a < b) that cuts along `axis` are spread over for a flock extent
 * [lo, hi]: clamped into the period along a wrapping axis (the whole period when that leaves
 * nothing), a unit range from lo when the extent is a point or not finite. */
void herd_decomp_extent(const herd_decomp *d, uint32_t axis, float lo, float hi, float *a, float *b);

/* The halo width a rank needs so that every local agent's k nearest neighbours are among the
 * agents it knows (its own + its halo). known: positions (stride floats each) of every agent
 * the rank knows, local ones first (`local` of them); depth[i]: herd_decomp_depth of local
 * agent i; width: the halo width those `known` were gathered with. Bound used (rigorous): the
 * k-th nearest of agent i is no farther than the farthest point of the smallest square block
 * of (2R+1)^2 cells (cells of side `cell_m`, a host grid over the known agents) around i's
 * cell that holds >= k + 1 known agents: at most (R + 1) * cell_m * sqrt(2) (3D: cube,
 * sqrt(3)). Agents outside the known set are farther than width + depth[i] from i. Returns
 * the largest over local agents of (bound_i - depth[i]), and 0 when that is negative: a value
 * <= width means nothing more is needed; a larger one is the width to regather with, once:
 * the bounds from the fewer agents still hold, so after that regather every local agent's k
 * nearest known agents are its k nearest of all (asking again is not needed; it returns no
 * more while the cells keep side cell_m, as they lie on a fixed lattice). INFINITY when fewer
 * than k + 1 agents are known (no bound exists; the rank must know every agent) or the grid
 * cannot be allocated. R is found by bisection on a summed-area table of the cell counts, so
 * no ring is walked: O(log cells) per agent. The cells grow past cell_m (doubling) when the
 * known agents' extent would need more than max(65536, 4 * known_count) of them: a looser
 * bound, the same promise. Agents at non-finite positions are left out. */
float herd_knn_halo_width(const float *known, uint32_t known_count, uint32_t local, uint32_t stride, uint32_t dims,
                          const float *depth, uint32_t k, float cell_m, float width);

#ifdef HERD_WITH_MPI
/* Rebalance: every rank passes its local agents' positions (stride floats per agent: 2 or 4);
 * histograms (1024 bins) along axis0 over the global extent [lo, hi] are summed with
 * MPI_Allreduce (integers: deterministic), new cut0; then per slab the same along axis1 -> cut1.
 * Every rank ends with the same d. 0 on success; -1 (d unchanged on every rank) when a rank
 * could not allocate its histograms or an MPI call failed. Collective over comm. */
int herd_decomp_balance(herd_decomp *d, MPI_Comm comm, const float *pos, uint32_t count, uint32_t stride,
                        const float lo[3], const float hi[3]);
#endif

#endif
