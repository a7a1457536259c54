/* The geometry of splitting a flock over ranks (decomp.h); pure arithmetic, no MPI. */
#include "decomp.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h" /* herd_wrap_coord, herd_wrap_offset: the wrap the model's grid uses */

static int fail(char *why, size_t why_size, const char *fmt, ...) {
  if (why && why_size > 0) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(why, why_size, fmt, args);
    va_end(args);
  }
  return -1;
}

static bool axis_wraps(const herd_decomp *d, uint32_t axis) { return axis < d->dims && d->wrap[axis] != 0; }

float herd_decomp_coord(const herd_decomp *d, uint32_t axis, float x) {
  if (!axis_wraps(d, axis)) return x;
  /* herd_wrap_coord folds a non-finite x to 0; here it must stay "no place" (rank 0 by rule). */
  return isfinite(x) ? herd_wrap_coord(x, d->size_m[axis]) : NAN;
}

void herd_decomp_extent(const herd_decomp *d, uint32_t axis, float lo, float hi, float *a, float *b) {
  if (axis_wraps(d, axis)) {
    float size = d->size_m[axis];
    *a = isfinite(lo) ? fminf(fmaxf(lo, 0.0f), size) : 0.0f;
    *b = isfinite(hi) ? fminf(fmaxf(hi, 0.0f), size) : size;
    if (!(*b > *a)) *a = 0.0f, *b = size;
    return;
  }
  *a = isfinite(lo) ? lo : 0.0f;
  *b = isfinite(hi) ? hi : *a + 1.0f;
  if (!(*b > *a)) *b = *a + 1.0f;
  if (!(*b > *a)) *b = nextafterf(*a, INFINITY); /* lo so large that + 1 is lost */
}

/* Cuts strictly increasing where the floats between the two ends allow it: a balance over a
 * flock that sits on one point would otherwise give empty, equal-cut regions. */
static void make_strictly_increasing(float *cuts, uint32_t parts) {
  for (uint32_t k = 1; k < parts; ++k)
    if (!(cuts[k] > cuts[k - 1])) cuts[k] = nextafterf(cuts[k - 1], INFINITY);
  for (uint32_t k = parts - 1; k >= 1; --k)
    if (!(cuts[k] < cuts[k + 1])) cuts[k] = nextafterf(cuts[k + 1], -INFINITY);
  /* Too few floats between the ends: the passes overshoot; equal cuts (empty regions) remain. */
  for (uint32_t k = 1; k < parts; ++k) cuts[k] = fminf(fmaxf(cuts[k], cuts[0]), cuts[parts]);
}

static void even_cuts(float *cuts, uint32_t parts, float a, float b) {
  for (uint32_t k = 1; k < parts; ++k) cuts[k] = (float)(a + ((double)b - a) * k / parts);
  if (parts > 1) make_strictly_increasing(cuts, parts);
}

/* The ends of the cut list along an axis: the period, or the whole line. */
static void set_ends(const herd_decomp *d, uint32_t axis, float *cuts, uint32_t parts) {
  bool wraps = axis_wraps(d, axis);
  cuts[0] = wraps ? 0.0f : -INFINITY;
  cuts[parts] = wraps ? d->size_m[axis] : INFINITY;
}

/* px >= py, px * py = ranks, py the largest divisor not above sqrt(ranks). */
static void grid_shape(uint32_t ranks, uint32_t *px, uint32_t *py) {
  uint32_t best = 1;
  for (uint32_t q = 1; (uint64_t)q * q <= ranks; ++q)
    if (ranks % q == 0) best = q;
  *py = best;
  *px = ranks / best;
}

static int check_world(uint32_t dims, const float size_m[3], const uint32_t wrap[3], char *why, size_t why_size) {
  if (dims != 2 && dims != 3) return fail(why, why_size, "decomposition: dims must be 2 or 3, not %u", dims);
  for (uint32_t k = 0; k < dims && wrap; ++k) {
    if (!wrap[k]) continue;
    if (!size_m || !(size_m[k] > 0.0f) || !isfinite(size_m[k]))
      return fail(why, why_size, "decomposition: axis %u wraps but its size is not a positive finite number", k);
  }
  return 0;
}

static int choose_shape(herd_decomp *d, uint32_t ranks, const char *layout, char *why, size_t why_size) {
  if (ranks == 0) return fail(why, why_size, "decomposition: at least one rank is needed");
  if (!layout || !*layout || strcmp(layout, "slabs") == 0) {
    d->px = ranks, d->py = 1;
  } else if (strcmp(layout, "grid") == 0) {
    grid_shape(ranks, &d->px, &d->py);
  } else {
    return fail(why, why_size, "decomposition: layout \"%.40s\" is not \"slabs\" or \"grid\"", layout);
  }
  if (d->px > HERD_DECOMP_MAX_RANKS)
    return fail(why, why_size, "decomposition: %u ranks as %s need %u along one axis; at most %u (%s)", ranks,
                d->py == 1 ? "slabs" : "a grid", d->px, HERD_DECOMP_MAX_RANKS,
                d->py == 1 ? "try layout \"grid\"" : "a prime count or one with a large prime factor");
  d->ranks = ranks;
  return 0;
}

int herd_decomp_init(herd_decomp *d, uint32_t ranks, const char *layout, uint32_t dims, const float size_m[3],
                     const uint32_t wrap[3], const float lo[3], const float hi[3], char *why, size_t why_size) {
  memset(d, 0, sizeof *d);
  if (!lo || !hi) return fail(why, why_size, "decomposition: the flock's extent is missing");
  if (check_world(dims, size_m, wrap, why, why_size) != 0) return -1;
  if (choose_shape(d, ranks, layout, why, why_size) != 0) return -1;
  d->dims = dims;
  for (uint32_t k = 0; k < dims; ++k) {
    d->wrap[k] = wrap && wrap[k] ? 1u : 0u;
    d->size_m[k] = size_m ? size_m[k] : 0.0f;
  }
  /* The longer extent is cut into slabs: the thinner slabs' faces are then the shorter ones. */
  d->axis0 = hi[1] - lo[1] > hi[0] - lo[0] ? 1u : 0u;
  d->axis1 = 1u - d->axis0;
  float a, b;
  herd_decomp_extent(d, d->axis0, lo[d->axis0], hi[d->axis0], &a, &b);
  set_ends(d, d->axis0, d->cut0, d->px);
  even_cuts(d->cut0, d->px, a, b);
  herd_decomp_extent(d, d->axis1, lo[d->axis1], hi[d->axis1], &a, &b);
  for (uint32_t i = 0; i < d->px; ++i) {
    set_ends(d, d->axis1, d->cut1[i], d->py);
    even_cuts(d->cut1[i], d->py, a, b);
  }
  return 0;
}

/* The part k in [0, parts) with cuts[k] <= x < cuts[k + 1] (the end parts take what lies past
 * the ends). Bisection: up to 64 parts. */
static uint32_t part_of(const float *cuts, uint32_t parts, float x) {
  uint32_t first = 0, last = parts - 1;
  while (first < last) {
    uint32_t mid = (first + last + 1) / 2;
    if (cuts[mid] <= x)
      first = mid;
    else
      last = mid - 1;
  }
  return first;
}

uint32_t herd_decomp_owner(const herd_decomp *d, const float p[3]) {
  for (uint32_t k = 0; k < d->dims; ++k)
    if (isnan(p[k])) return 0;
  float x = herd_decomp_coord(d, d->axis0, p[d->axis0]);
  float y = herd_decomp_coord(d, d->axis1, p[d->axis1]);
  if (isnan(x) || isnan(y)) return 0;
  uint32_t i = part_of(d->cut0, d->px, x);
  return i * d->py + part_of(d->cut1[i], d->py, y);
}

/* Distance from x to the interval [a, b] along an axis (x already wrapped): along a wrapping
 * axis the short way round, which from outside an arc is to one of its two ends. */
static float interval_distance(const herd_decomp *d, uint32_t axis, float x, float a, float b) {
  if (x >= a && x <= b) return 0.0f;
  if (!axis_wraps(d, axis)) return x < a ? a - x : x - b;
  float period = d->size_m[axis];
  return fminf(fabsf(herd_wrap_offset(a - x, period)), fabsf(herd_wrap_offset(x - b, period)));
}

uint32_t herd_decomp_halo_ranks(const herd_decomp *d, uint32_t self, const float p[3], float width, uint32_t *out) {
  float x = herd_decomp_coord(d, d->axis0, p[d->axis0]);
  float y = herd_decomp_coord(d, d->axis1, p[d->axis1]);
  if (isnan(x) || isnan(y) || !(width >= 0.0f)) return 0;
  float width_sq = width * width;
  uint32_t found = 0;
  for (uint32_t i = 0; i < d->px; ++i) {
    float dx = interval_distance(d, d->axis0, x, d->cut0[i], d->cut0[i + 1]);
    if (!(dx <= width)) continue;
    for (uint32_t j = 0; j < d->py; ++j) {
      uint32_t r = i * d->py + j;
      float dy = interval_distance(d, d->axis1, y, d->cut1[i][j], d->cut1[i][j + 1]);
      /* dx * dx + dy * dy: a width of INFINITY takes every rank (INFINITY <= INFINITY). */
      if (r != self && dy <= width && dx * dx + dy * dy <= width_sq) out[found++] = r;
    }
  }
  return found;
}

/* Distance from x to the nearer of part k's two cuts that are faces: finite ones along an
 * open axis; along a wrapping axis both, through the wrap, once there is more than one part. */
static float face_distance(const herd_decomp *d, uint32_t axis, const float *cuts, uint32_t parts, uint32_t k,
                           float x) {
  if (axis_wraps(d, axis)) {
    if (parts < 2) return INFINITY;
    float period = d->size_m[axis];
    return fminf(fabsf(herd_wrap_offset(x - cuts[k], period)), fabsf(herd_wrap_offset(x - cuts[k + 1], period)));
  }
  float depth = INFINITY;
  if (isfinite(cuts[k])) depth = fminf(depth, fabsf(x - cuts[k]));
  if (isfinite(cuts[k + 1])) depth = fminf(depth, fabsf(x - cuts[k + 1]));
  return depth;
}

float herd_decomp_depth(const herd_decomp *d, uint32_t r, const float p[3]) {
  uint32_t i = r / d->py, j = r % d->py;
  float x = herd_decomp_coord(d, d->axis0, p[d->axis0]);
  float y = herd_decomp_coord(d, d->axis1, p[d->axis1]);
  return fminf(face_distance(d, d->axis0, d->cut0, d->px, i, x), face_distance(d, d->axis1, d->cut1[i], d->py, j, y));
}

uint32_t herd_decomp_bin(float x, float lo, float hi, uint32_t bins) {
  if (!(x > lo) || !(hi > lo)) return 0;
  if (x >= hi) return bins - 1;
  double at = ((double)x - lo) / ((double)hi - lo) * bins;
  return at < bins - 1 ? (uint32_t)at : bins - 1;
}

void herd_decomp_cut_from_histogram(const uint64_t *hist, uint32_t bins, float lo, float hi, uint32_t parts,
                                    float *cuts) {
  if (parts < 2) return;
  double total = 0.0;
  for (uint32_t h = 0; h < bins; ++h) total += (double)hist[h];
  if (total == 0.0 || !(hi > lo)) {
    even_cuts(cuts, parts, lo, hi);
    return;
  }
  double bin_m = ((double)hi - lo) / bins, below = 0.0; /* below: the agents in bins before h */
  uint32_t h = 0;
  for (uint32_t k = 1; k < parts; ++k) {
    double target = total * k / parts;
    while (h + 1 < bins && below + (double)hist[h] < target) below += (double)hist[h++];
    /* target lies in bin h: agents spread evenly inside a bin, as far as the cut can know */
    double fraction = hist[h] > 0 ? (target - below) / (double)hist[h] : 0.0;
    cuts[k] = (float)(lo + bin_m * (h + fmin(fmax(fraction, 0.0), 1.0)));
  }
  make_strictly_increasing(cuts, parts);
}

/* ---- The k-nearest halo bound -------------------------------------------------------- */

/* Cells the grid may use before its side grows past cell_m (a table of 256 KiB). */
#define HERD_KNN_MIN_CELLS 65536.0

/* Cell counts of the known agents as a summed-area table: sum[(c * (n1 + 1) + b) * (n0 + 1) + a]
 * holds the agents in cells with x < a, y < b, z < c, so any block's count is eight reads. */
typedef struct knn_grid {
  double origin[3];
  double cell_m;
  uint32_t n[3];
  uint32_t *sum;
} knn_grid;

static bool finite_point(const float *p, uint32_t dims) {
  for (uint32_t k = 0; k < dims; ++k)
    if (!isfinite(p[k])) return false;
  return true;
}

static double cell_total(const double extent[3], uint32_t dims, double cell_m) {
  double cells = 1.0;
  for (uint32_t k = 0; k < dims; ++k) cells *= floor(extent[k] / cell_m) + 2.0;
  return cells;
}

/* The grid's box and cell side: cell_m, doubled while the box would need more than `cap` cells. */
static uint32_t knn_grid_shape(knn_grid *g, const float *known, uint32_t count, uint32_t stride, uint32_t dims,
                               float cell_m) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, extent[3] = {0, 0, 0};
  uint32_t finite = 0;
  for (uint32_t a = 0; a < count; ++a) {
    const float *p = known + (size_t)a * stride;
    if (!finite_point(p, dims)) continue;
    ++finite;
    for (uint32_t k = 0; k < dims; ++k) lo[k] = fmin(lo[k], p[k]), hi[k] = fmax(hi[k], p[k]);
  }
  double widest = 0.0;
  for (uint32_t k = 0; k < dims; ++k) {
    extent[k] = finite ? hi[k] - lo[k] : 0.0;
    widest = fmax(widest, extent[k]);
  }
  double cap = fmax(HERD_KNN_MIN_CELLS, 4.0 * finite), cell = cell_m;
  if (!(cell > 0.0) || !isfinite(cell)) cell = widest > 0.0 ? widest / 64.0 : 1.0;
  while (cell_total(extent, dims, cell) > cap) cell *= 2.0;
  g->cell_m = cell;
  /* Cells on the fixed lattice of multiples of the side, not from the known agents' corner:
   * then an agent's block for a ring is the same whoever else is known, and knowing more
   * agents never asks for more width (while the side stays cell_m). One spare cell per axis
   * takes the lattice shift. */
  for (uint32_t k = 0; k < 3; ++k) {
    g->origin[k] = k < dims && finite ? floor(lo[k] / cell) * cell : 0.0;
    g->n[k] = k < dims ? (uint32_t)(floor(extent[k] / cell) + 2.0) : 1u;
  }
  return finite;
}

static size_t sum_index(const knn_grid *g, uint32_t a, uint32_t b, uint32_t c) {
  return ((size_t)c * (g->n[1] + 1) + b) * (g->n[0] + 1) + a;
}

static void cell_of(const knn_grid *g, const float *p, uint32_t dims, uint32_t cell[3]) {
  for (uint32_t k = 0; k < 3; ++k) {
    double at = k < dims ? floor(((double)p[k] - g->origin[k]) / g->cell_m) : 0.0;
    cell[k] = at <= 0.0 ? 0u : at >= g->n[k] - 1 ? g->n[k] - 1 : (uint32_t)at;
  }
}

static bool knn_grid_fill(knn_grid *g, const float *known, uint32_t count, uint32_t stride, uint32_t dims) {
  size_t size = (size_t)(g->n[0] + 1) * (g->n[1] + 1) * (g->n[2] + 1);
  g->sum = calloc(size, sizeof *g->sum);
  if (!g->sum) return false;
  for (uint32_t a = 0; a < count; ++a) {
    const float *p = known + (size_t)a * stride;
    if (!finite_point(p, dims)) continue;
    uint32_t c[3];
    cell_of(g, p, dims, c);
    ++g->sum[sum_index(g, c[0] + 1, c[1] + 1, c[2] + 1)];
  }
  /* Prefix sums along each axis in turn; unsigned wrap-around cancels in the block sums. */
  for (uint32_t z = 0; z <= g->n[2]; ++z)
    for (uint32_t y = 0; y <= g->n[1]; ++y)
      for (uint32_t x = 1; x <= g->n[0]; ++x) g->sum[sum_index(g, x, y, z)] += g->sum[sum_index(g, x - 1, y, z)];
  for (uint32_t z = 0; z <= g->n[2]; ++z)
    for (uint32_t y = 1; y <= g->n[1]; ++y)
      for (uint32_t x = 0; x <= g->n[0]; ++x) g->sum[sum_index(g, x, y, z)] += g->sum[sum_index(g, x, y - 1, z)];
  for (uint32_t z = 1; z <= g->n[2]; ++z)
    for (uint32_t y = 0; y <= g->n[1]; ++y)
      for (uint32_t x = 0; x <= g->n[0]; ++x) g->sum[sum_index(g, x, y, z)] += g->sum[sum_index(g, x, y, z - 1)];
  return true;
}

/* The known agents in the block of cells within `ring` of `cell` (clipped to the grid). */
static uint32_t block_count(const knn_grid *g, const uint32_t cell[3], uint32_t ring) {
  uint32_t from[3], to[3]; /* to: one past the block */
  for (uint32_t k = 0; k < 3; ++k) {
    from[k] = cell[k] > ring ? cell[k] - ring : 0u;
    to[k] = g->n[k] - cell[k] > ring ? cell[k] + ring + 1 : g->n[k];
  }
  uint32_t total = 0;
  for (uint32_t corner = 0; corner < 8; ++corner) {
    uint32_t a = corner & 1u ? from[0] : to[0], b = corner & 2u ? from[1] : to[1], c = corner & 4u ? from[2] : to[2];
    uint32_t lows = (corner & 1u) + ((corner >> 1) & 1u) + ((corner >> 2) & 1u);
    uint32_t value = g->sum[sum_index(g, a, b, c)];
    total += lows % 2 ? 0u - value : value;
  }
  return total;
}

/* The smallest ring whose block holds `need` agents (the whole grid does: the caller checked). */
static uint32_t ring_holding(const knn_grid *g, const uint32_t cell[3], uint32_t need) {
  uint32_t first = 0, last = g->n[0];
  if (g->n[1] > last) last = g->n[1];
  if (g->n[2] > last) last = g->n[2];
  while (first < last) {
    uint32_t mid = first + (last - first) / 2;
    if (block_count(g, cell, mid) >= need)
      last = mid;
    else
      first = mid + 1;
  }
  return first;
}

/* The farthest point from p of the block of cells within `ring` of p's cell, unclipped (so it
 * depends on the ring alone): at most (ring + 1) cells along each axis. The small margin
 * covers the rounding of a cell index at a cell's edge. */
static double farthest_in_block(const knn_grid *g, const float *p, uint32_t dims, const uint32_t cell[3],
                                uint32_t ring) {
  double sum = 0.0;
  for (uint32_t k = 0; k < dims; ++k) {
    double low = g->origin[k] + ((double)cell[k] - ring) * g->cell_m;
    double high = g->origin[k] + ((double)cell[k] + ring + 1.0) * g->cell_m;
    double reach = fmax(p[k] - low, high - p[k]);
    sum += reach * reach;
  }
  return sqrt(sum) * (1.0 + 1e-6);
}

float herd_knn_halo_width(const float *known, uint32_t known_count, uint32_t local, uint32_t stride, uint32_t dims,
                          const float *depth, uint32_t k, float cell_m, float width) {
  (void)width; /* the bound does not depend on it: depth[i] + width is what the caller compares */
  if (local == 0 || k == 0) return 0.0f;
  if (dims != 2 && dims != 3) return INFINITY;
  knn_grid g = {0};
  uint32_t finite = knn_grid_shape(&g, known, known_count, stride, dims, cell_m);
  if (finite < k + 1 || !knn_grid_fill(&g, known, known_count, stride, dims)) return INFINITY;
  double needed = 0.0;
  for (uint32_t i = 0; i < local; ++i) {
    const float *p = known + (size_t)i * stride;
    if (!finite_point(p, dims)) continue;
    uint32_t cell[3];
    cell_of(&g, p, dims, cell);
    double need = farthest_in_block(&g, p, dims, cell, ring_holding(&g, cell, k + 1)) - depth[i];
    if (need > needed) needed = need;
  }
  free(g.sum);
  return (float)needed;
}
