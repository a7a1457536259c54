/* Lanes: a CPU's radius query for several agents at once, each lane one agent, so that a
 * model's sums over its neighbours run as vector instructions and still in each agent's own
 * order (the same bits as one agent at a time).
 *
 * A tuned loop vectorises across the candidates of one agent, which reorders that agent's
 * sums (GCC needs -fassociative-math to do it); herd keeps every sum in one order so that any
 * thread count, the OpenCL backend and MPI give the same bits. Across agents, nothing is
 * reordered: consecutive sorted agents (of a cell or neighbouring cells) share the rows of one
 * box of a dense grid that holds each one's own box; each takes the candidates of the shared
 * rows through its own distance test, which yields exactly what its own query would, in the
 * same order (herd_lanes_join), so lane l adds exactly what agent l alone would add.
 *
 * A model writes its neighbour sums once, over a mask (herd_when, below), for one agent
 * (HERD_RADIUS_FOR_EACH, in C and OpenCL C) and for lanes (HERD_LANES_FOR_EACH, C only). A
 * masked sum adds +0 where the scalar loop added nothing: the same bits, since a sum that
 * starts at +0 never becomes -0 under rounding to nearest, and x + (+0) = x for every other x
 * (x - (+0) = x for every x).
 *
 * CPU only: GCC's vector extensions, lanes of 32 bits (HERD_LANES, below). */
#ifndef HERD_KERNELS_LANES_H
#define HERD_KERNELS_LANES_H
#include "grid.h"

#ifdef HERD_OPENCL
/* x where m, +0 elsewhere (m: 0 or 1, or a comparison's result). */
#define herd_when(m, x) ((m) ? (x) : 0.0f)
/* a where m, else b. */
#define herd_pick(m, a, b) ((m) ? (a) : (b))
/* The square root of x. */
#define herd_root(x) herd_sqrtf(x)
/* Whether m holds anywhere; herd_some: whether to take a part of the sums masked by m (one
 * agent: where m holds; lanes: always, cheaper than testing the mask). */
#define herd_any(m) (m)
#define herd_some(m) (m)
/* The float x as a value of type F (float, or lanes of it). */
#define herd_spread(F, x) (x)
#else
/* As many lanes as one register holds: 16 (AVX-512), 8 (AVX), else 4 (SSE, NEON); wider than a
 * register, GCC splits the comparisons into scalar ones. */
#if defined(__AVX512F__)
#define HERD_LANES 16
#elif defined(__AVX__)
#define HERD_LANES 8
#else
#define HERD_LANES 4
#endif
typedef float herd_lanef __attribute__((vector_size(4 * HERD_LANES)));
typedef herd_i32 herd_lanei __attribute__((vector_size(4 * HERD_LANES))); /* masks: -1 or 0 per lane */

static inline float herd_one_when(int m, float x) { return m ? x : 0.0f; }
static inline herd_lanef herd_lanes_when(herd_lanei m, herd_lanef x) { return (herd_lanef)((herd_lanei)x & m); }
static inline herd_lanef herd_lanes_pick(herd_lanei m, herd_lanef a, herd_lanef b) {
  return (herd_lanef)(((herd_lanei)a & m) | ((herd_lanei)b & ~m));
}
static inline herd_lanef herd_lanes_of(float x) { return x - (herd_lanef){0}; } /* x in every lane */
static inline herd_lanei herd_lanes_ofi(herd_i32 x) { return x - (herd_lanei){0}; }
static inline herd_lanei herd_lanes_picki(herd_lanei m, herd_lanei a, herd_lanei b) { return (a & m) | (b & ~m); }
static inline float herd_one_pick(int m, float a, float b) { return m ? a : b; }
static inline herd_u32 herd_one_picku(int m, herd_u32 a, herd_u32 b) { return m ? a : b; }
/* Each lane's square root: sqrtps where the compiler has it, IEEE's correctly rounded root as
 * sqrtf's. */
static inline herd_lanef herd_lanes_sqrt(herd_lanef x) {
  for (int l = 0; l < HERD_LANES; ++l) x[l] = sqrtf(x[l]);
  return x;
}
static inline int herd_lanes_any(herd_lanei m) {
  herd_i32 any = 0;
  for (int l = 0; l < HERD_LANES; ++l) any |= m[l];
  return any != 0;
}
static inline int herd_one_any(int m) { return m; }
static inline float herd_one_same(float x) { return x; }
/* For one agent (m an int 0 or 1) and for lanes (m a mask), alike: x where m, +0 elsewhere; a
 * where m, else b; the square root of x; whether m holds anywhere; whether to take a part of the
 * sums masked by m (one agent: where m holds, as its loop's branch; lanes: always, where the
 * test would cost more than the part); the float x as a value of type F (float, or lanes). */
/* clang-format off */
#define herd_when(m, x) _Generic((m), herd_lanei: herd_lanes_when, default: herd_one_when)((m), (x))
#define herd_pick(m, a, b) \
  _Generic((a), herd_lanef: herd_lanes_pick, herd_lanei: herd_lanes_picki, float: herd_one_pick, \
           default: herd_one_picku)((m), (a), (b))
#define herd_root(x) _Generic((x), herd_lanef: herd_lanes_sqrt, default: sqrtf)(x)
#define herd_any(m) _Generic((m), herd_lanei: herd_lanes_any, default: herd_one_any)(m)
#define herd_some(m) _Generic((m), herd_lanei: 1, default: (m))
#define herd_spread(F, x) _Generic((F){0}, herd_lanef: herd_lanes_of, default: herd_one_same)(x)
/* clang-format on */

/* herd_wrap_offset in each lane: the same comparisons and the same one add or subtract. */
static inline herd_lanef herd_lanes_wrap_offset(herd_lanef d, float period) {
  float half_period = 0.5f * period;
  herd_lanef below = d - period, above = d + period;
  return herd_lanes_pick(d > half_period, below, herd_lanes_pick(d < -half_period, above, d));
}

/* The agents of lanes [0, count): their points, their sorted indices, and the query they share
 * (its rows; its point is lane 0's, its wrap bounds the lanes' least and greatest coordinates). */
typedef struct herd_lanes_query {
  herd_radius_query q;
  herd_lanef x, y, z;
  herd_lanei self;
  herd_u32 count;
} herd_lanes_query;

/* Whether a query of radius r about p can share q's rows, q's box of cells (lo, span) then
 * grown to hold its own: along every axis, the box at most one cell longer than `base` (the
 * first agent's), and never a whole wrapping period or more (unless both are exactly that).
 * Every agent an agent's own query yields lies in its own box, which is a run of the shared
 * box in the same order of rows and cells, so that the shared rows yield it the same agents
 * in the same order; the distance test leaves out the rest. */
static inline int herd_lanes_join(herd_radius_query *q, const herd_grid *g, const herd_i32 *base, herd_vec3 p,
                                  float r) {
  const float c[3] = {p.x, p.y, p.z};
  herd_i32 lo[3], hi[3];
  for (herd_u32 k = 0; k < g->dims; ++k) {
    herd_i32 at, span;
    herd_radius_axis(g, k, c[k], r, &at, &span);
    lo[k] = at < q->lo[k] ? at : q->lo[k];
    hi[k] = at + span > q->lo[k] + q->span[k] ? at + span : q->lo[k] + q->span[k];
    int whole = herd_axis_wraps(g, k) && (span >= g->wrap_cells[k] || q->span[k] >= g->wrap_cells[k]);
    if (whole ? at != q->lo[k] || span != q->span[k]
              : hi[k] - lo[k] > base[k] + 1 || (herd_axis_wraps(g, k) && hi[k] - lo[k] >= g->wrap_cells[k]))
      return 0;
  }
  for (herd_u32 k = 0; k < g->dims; ++k) q->lo[k] = lo[k], q->span[k] = hi[k] - lo[k];
  return 1;
}

/* Lanes for the sorted agents from `first` on, up to `last` (exclusive) and HERD_LANES, each
 * within r, while their queries can share rows (herd_lanes_join); returns how many (at least
 * 1). A dense grid only: the hash visits cells, not rows. */
static inline herd_u32 herd_lanes_begin(herd_lanes_query *lq, const herd_grid *g, HERD_GLOBAL const float *pos,
                                        herd_u32 first, herd_u32 last, float r) {
  herd_u32 dims = g->dims, n = 0;
  herd_vec3 lo = herd_load_vec(pos, first, dims), hi = lo;
  herd_radius_begin(&lq->q, g, lo, r, first);
  const herd_i32 base[3] = {lq->q.span[0], lq->q.span[1], lq->q.span[2]};
  for (herd_u32 i = first; i < last && n < HERD_LANES; ++i, ++n) {
    herd_vec3 p = herd_load_vec(pos, i, dims);
    if (n > 0 && !herd_lanes_join(&lq->q, g, base, p, r)) break;
    lq->x[n] = p.x, lq->y[n] = p.y, lq->z[n] = p.z, lq->self[n] = (herd_i32)i;
    lo = herd_v3(p.x < lo.x ? p.x : lo.x, p.y < lo.y ? p.y : lo.y, p.z < lo.z ? p.z : lo.z);
    hi = herd_v3(p.x > hi.x ? p.x : hi.x, p.y > hi.y ? p.y : hi.y, p.z > hi.z ? p.z : hi.z);
  }
  for (herd_u32 l = n; l < HERD_LANES; ++l) /* idle lanes repeat lane 0: no fault, results unread */
    lq->x[l] = lq->x[0], lq->y[l] = lq->y[0], lq->z[l] = lq->z[0], lq->self[l] = lq->self[0];
  herd_radius_rows(&lq->q, g);
  lq->q.p_lo = lo, lq->q.p_hi = hi;
  lq->count = n;
  return n;
}

/* Lanes for the run from `first` where they apply: a dense grid, another agent before `last`
 * and the model's own condition (`allowed`); how many (at least 2), or 0 for the first agent
 * alone (the model steps it by itself). */
static inline herd_u32 herd_lanes_try(herd_lanes_query *lq, const herd_grid *g, HERD_GLOBAL const float *pos,
                                      herd_u32 first, herd_u32 last, float r, int allowed) {
  if (!allowed || !g->dense || last - first < 2u) return 0u;
  herd_u32 n = herd_lanes_begin(lq, g, pos, first, last, r);
  return n >= 2u ? n : 0u;
}

/* Candidate j's offset from each lane's agent through the run's wrap, its square, and whether
 * lane l's own query yields it (herd_radius_candidate_as, lane by lane). */
static inline herd_lanei herd_lanes_candidate(const herd_lanes_query *lq, HERD_GLOBAL const float *pos, herd_u32 j,
                                              herd_u32 dims, herd_u32 wrap, herd_lanef *dx, herd_lanef *dy,
                                              herd_lanef *dz, herd_lanef *d2) {
  herd_u32 at = dims == 2u ? 2u * j : 4u * j;
  *dx = pos[at] - lq->x;
  *dy = pos[at + 1u] - lq->y;
  if (wrap & 1u) *dx = herd_lanes_wrap_offset(*dx, lq->q.period.x);
  if (wrap & 2u) *dy = herd_lanes_wrap_offset(*dy, lq->q.period.y);
  *d2 = *dx * *dx + *dy * *dy;
  if (dims == 3u) {
    *dz = pos[at + 2u] - lq->z;
    if (wrap & 4u) *dz = herd_lanes_wrap_offset(*dz, lq->q.period.z);
    *d2 = *d2 + *dz * *dz;
  } else {
    *dz = herd_lanes_of(0.0f);
  }
  return ~(*d2 > lq->q.r2) & (lq->self != (herd_i32)j);
}

/* The loop over a lanes query's candidates, written once for every model that sums over a
 * radius: the statements after IN (the body) run for each candidate of each row, with J (its
 * sorted index), DX, DY, DZ (the offsets from each lane's agent; DZ zero in 2D) and D2 (their
 * squares) as lanes, and IN the mask of lanes whose query yields it. dims: a constant. */
#define HERD_LANES_FOR_EACH(lq, g, pos, cell_end, dims, J, DX, DY, DZ, D2, IN, ...)              \
  do {                                                                                           \
    while (herd_radius_next_dense_row(&(lq).q, g, cell_end)) {                                   \
      herd_u32 J##_wrap = (lq).q.wrap;                                                           \
      for (herd_u32 J = (lq).q.j, J##_end = (lq).q.end; J < J##_end; ++J) {                      \
        herd_lanef DX, DY, DZ, D2;                                                               \
        herd_lanei IN = herd_lanes_candidate(&(lq), pos, J, dims, J##_wrap, &DX, &DY, &DZ, &D2); \
        (void)DZ;                                                                                \
        __VA_ARGS__                                                                              \
      }                                                                                          \
    }                                                                                            \
  } while (0)
#endif

#endif
