/* The flock's groups (Lien et al. 2004, section 6.1), written once for both backends: the
 * per-agent steps of finding them and of reducing them, over agents sorted by bucket with a
 * grid of their current positions (kernels/grid.h).
 *
 * Two agents are linked when they are within the view radius of each other (through the wrap).
 * The raw groups are the connected components of the links. Each member farther than
 * R_c = R_f sqrt(2 N_f) from its raw group's centre is outside that group's compact area; the
 * final groups are the components of the links that join two agents on the same side (both
 * inside or both outside). Removed agents (kernels/agent.h) are in no group.
 *
 * Components by concurrent union-find (as in ECL-CC, Jaiganesh and Burtscher 2018): each
 * agent hooks the root of every lower-indexed agent it is linked to and its own root together,
 * the larger root under the smaller by an atomic compare-and-swap, and a second pass points
 * every agent at its root. Roots only ever move to a smaller index, so however the hooks
 * interleave, the result is the one fixed point: each agent labelled with the smallest sorted
 * index of its component. One pass over the links, no iteration to convergence.
 *
 * Sums are integers (positions in 2^-16 m, unit velocities in 2^-30, each one 64-bit number
 * added as two 32-bit atomics), so they come out the same whatever the order of the adds:
 * the same on both backends and for any number of threads. Each pass that sums takes a run of
 * consecutive sorted agents, which mostly share a group, and adds once per run.
 *
 * Needs only 32-bit atomics (core OpenCL 1.2) and doubles (cl_khr_fp64, which the backend
 * requires already): double division and square root are correctly rounded in both C and
 * OpenCL C, so the decisions made in double (inside or outside, the farthest member) are the
 * same on every device. */
#ifndef HERD_KERNELS_GROUPS_H
#define HERD_KERNELS_GROUPS_H
#include "grid.h"

#ifdef HERD_OPENCL
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#define HERD_GROUP_NONE 0xffffffffu        /* the label of a removed agent: in no group */
#define HERD_GROUP_OUTSIDE 0x80000000u     /* raw label: outside its raw group's compact area */
#define HERD_GROUP_SPLIT 0x40000000u       /* raw label: its raw group has members outside */
#define HERD_GROUP_SPLIT_COUNT 0x80000000u /* the same flag in the raw group's count */
#define HERD_GROUP_MAX_TRACKED 32u         /* = HERD_MAX_GROUPS in herd.h (checked there) */
#define HERD_GROUP_POS_SCALE 65536.0       /* fixed point of position offsets: 2^-16 m */
#define HERD_GROUP_HEAD_SCALE 1073741824.0 /* fixed point of unit velocities: 2^-30 */

/* ---- Atomics and shared reads: 32-bit only ----------------------------------------------- */

#ifdef HERD_OPENCL
#define herd_atomic_cas(p, expected, desired) atomic_cmpxchg((p), (expected), (desired))
#define herd_atomic_add(p, v) atomic_add((p), (v))
#define herd_atomic_min(p, v) atomic_min((p), (v))
#define herd_atomic_max(p, v) atomic_max((p), (v))
#define herd_atomic_or(p, v) atomic_or((p), (v))
/* Values other work-items change while this one runs: read each time, never kept. */
#define herd_shared_load(p) (*(volatile __global const uint *)(p))
#define herd_shared_store(p, v) (*(volatile __global uint *)(p) = (v))
#define herd_floor_d(x) floor(x)
HERD_INLINE herd_u32 herd_float_bits(float x) { return as_uint(x); }
#else
static inline herd_u32 herd_atomic_cas(herd_u32 *p, herd_u32 expected, herd_u32 desired) {
  __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return expected; /* the value seen: `expected` itself when the swap took place */
}
#define herd_atomic_add(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
#define herd_atomic_or(p, v) __atomic_fetch_or((p), (v), __ATOMIC_RELAXED)
static inline void herd_atomic_min(herd_u32 *p, herd_u32 v) {
  herd_u32 seen = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (v < seen && !__atomic_compare_exchange_n(p, &seen, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}
static inline void herd_atomic_max(herd_u32 *p, herd_u32 v) {
  herd_u32 seen = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (v > seen && !__atomic_compare_exchange_n(p, &seen, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}
#define herd_shared_load(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define herd_shared_store(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define herd_floor_d(x) floor(x)
static inline herd_u32 herd_float_bits(float x) {
  union {
    float f;
    herd_u32 u;
  } b;
  b.f = x;
  return b.u;
}
#endif

/* Adds v to the 64-bit integer held in at[0] (low word) and at[1] (high word). Integer
 * addition commutes, so the total is exact whatever the order of the adds. */
HERD_INLINE void herd_atomic_add_i64(HERD_GLOBAL herd_u32 *at, herd_i64 v) {
  herd_u64 u = (herd_u64)v;
  herd_u32 lo = (herd_u32)u, hi = (herd_u32)(u >> 32);
  if (lo != 0u) {
    herd_u32 before = herd_atomic_add(&at[0], lo);
    if ((herd_u32)(before + lo) < before) hi += 1u; /* the low word carried */
  }
  if (hi != 0u) herd_atomic_add(&at[1], hi);
}

HERD_INLINE herd_i64 herd_i64_at(HERD_GLOBAL const herd_u32 *at) {
  return (herd_i64)(((herd_u64)at[1] << 32) | (herd_u64)at[0]);
}

/* x rounded to the nearest integer (halves up): the same operations in C and OpenCL C. */
HERD_INLINE herd_i64 herd_group_fix(double x) { return (herd_i64)herd_floor_d(x + 0.5); }

/* ---- The flock as the group passes read it -------------------------------------------------- */

typedef struct herd_group_view {
  const herd_grid *grid;
  HERD_GLOBAL const float *pos, *vel; /* sorted by bucket for the grid of these positions */
  HERD_GLOBAL const herd_u32 *agent;
  HERD_GLOBAL const herd_u32 *cell_end;
} herd_group_view;

HERD_INLINE herd_vec3 herd_group_pos(const herd_group_view *v, herd_u32 s) {
  return herd_load_vec(v->pos, s, v->grid->dims);
}

/* The offset of agent s from agent `from` through the wrap, in fixed point. */
HERD_INLINE void herd_group_offset(const herd_group_view *v, herd_u32 from, herd_u32 s, herd_i64 *out) {
  herd_vec3 d = herd_world_delta(v->grid, herd_group_pos(v, from), herd_group_pos(v, s));
  out[0] = herd_group_fix((double)d.x * HERD_GROUP_POS_SCALE);
  out[1] = herd_group_fix((double)d.y * HERD_GROUP_POS_SCALE);
  out[2] = herd_group_fix((double)d.z * HERD_GROUP_POS_SCALE);
}

/* Agent s's unit velocity in fixed point (zero for a zero velocity), computed in double. */
HERD_INLINE void herd_group_heading(const herd_group_view *v, herd_u32 s, herd_i64 *out) {
  herd_vec3 u = herd_load_vec(v->vel, s, v->grid->dims);
  double x = (double)u.x, y = (double)u.y, z = (double)u.z, len2 = x * x + y * y + z * z;
  double scale = len2 > 0.0 ? HERD_GROUP_HEAD_SCALE / sqrt(len2) : 0.0;
  out[0] = herd_group_fix(x * scale);
  out[1] = herd_group_fix(y * scale);
  out[2] = herd_group_fix(z * scale);
}

/* ---- Components -------------------------------------------------------------------------- */

HERD_INLINE herd_u32 herd_group_start_label(HERD_GLOBAL const herd_u32 *agent, herd_u32 s) {
  return herd_agent_removed(agent[s]) ? HERD_GROUP_NONE : s;
}

/* The root of x's tree, halving the path on the way (every value a parent ever holds is an
 * ancestor, so a stale read or a lost halving only costs a step). */
HERD_INLINE herd_u32 herd_group_find(HERD_GLOBAL herd_u32 *parent, herd_u32 x) {
  for (;;) {
    herd_u32 p = herd_shared_load(&parent[x]);
    if (p == x) return x;
    herd_u32 g = herd_shared_load(&parent[p]);
    if (g == p) return p;
    herd_shared_store(&parent[x], g);
    x = g;
  }
}

/* Joins the trees of a and b: the larger root hooked under the smaller. A failed swap means
 * that root was hooked meanwhile; climb on from what it holds now. */
HERD_INLINE void herd_group_union(HERD_GLOBAL herd_u32 *parent, herd_u32 a, herd_u32 b) {
  herd_u32 ra = herd_group_find(parent, a), rb = herd_group_find(parent, b);
  while (ra != rb) {
    herd_u32 hi = ra > rb ? ra : rb, lo = ra > rb ? rb : ra;
    herd_u32 seen = herd_atomic_cas(&parent[hi], hi, lo);
    if (seen == hi) return;
    herd_u32 climbed = herd_group_find(parent, seen);
    ra = lo;
    rb = climbed;
  }
}

/* Whether agent j may be joined with s: not removed and, in the final pass (by_side), of the
 * same raw group on the same side of its compact area. */
HERD_INLINE int herd_group_kin(const herd_group_view *v, HERD_GLOBAL const herd_u32 *raw, int by_side, herd_u32 s,
                               herd_u32 j) {
  return !herd_agent_removed(v->agent[j]) && (!by_side || raw[j] == raw[s]);
}

/* A cell's side along axis k: cell_m, or a little more along a wrapping axis (grid.h). */
HERD_INLINE float herd_group_cell_side(const herd_grid *g, herd_u32 k) {
  return herd_axis_wraps(g, k) ? 1.0f / g->wrap_inv_cell_m[k] : g->cell_m;
}

/* Whether any two points of one cell are within r of each other (with room for rounding).
 * Then a cell's agents of one kind (herd_group_kin) are joined by the link of each to the first
 * of them, and one link from an agent into a cell's agents of its kind is as good as all: the
 * hook takes one per cell, and none into a cell already in its tree, which makes a dense flock
 * cost a few finds per cell instead of a distance per neighbour. */
HERD_INLINE int herd_group_cells_linked(const herd_grid *g, float r) {
  float diagonal2 = 0.0f;
  for (herd_u32 k = 0; k < g->dims; ++k) diagonal2 += herd_group_cell_side(g, k) * herd_group_cell_side(g, k);
  return r * r > 1.01f * diagonal2;
}

/* Whether p's cell coordinates are small enough for a float to place points in their cells to
 * within 2^-10 of a cell (below 2^14 cells from 0), far inside herd_group_cells_linked's room
 * for rounding. Farther out a cell may hold points farther apart than its diagonal. */
HERD_INLINE int herd_group_cells_exact(const herd_grid *g, herd_vec3 p) {
  float c[3];
  c[0] = p.x, c[1] = p.y, c[2] = p.z;
  for (herd_u32 k = 0; k < g->dims; ++k) {
    float cells = c[k] * (herd_axis_wraps(g, k) ? g->wrap_inv_cell_m[k] : g->inv_cell_m);
    if (!(cells < 16384.0f && cells > -16384.0f)) return 0;
  }
  return 1;
}

/* The squared gap between the query's centre and each of its cells along each axis (0 where
 * a cell spans the centre's coordinate), less room for rounding in the cells' bounds: a cell
 * whose gaps add up beyond r2 holds nothing to link. Gaps are separable, so they are worked out
 * once per axis, not once per cell. Not usable along a wrapping axis the query spans whole
 * (where a cell's nearest image may not be the one its index names) nor past
 * HERD_GROUP_MAX_SPAN cells (the groups' grid spans at most 6). */
#define HERD_GROUP_MAX_SPAN 8
typedef struct herd_group_gaps {
  float g2[3][HERD_GROUP_MAX_SPAN];
  int usable;
} herd_group_gaps;

HERD_INLINE void herd_group_gaps_of(const herd_grid *g, const herd_radius_query *q, float r, herd_group_gaps *out) {
  float c[3];
  c[0] = q->p.x, c[1] = q->p.y, c[2] = q->p.z;
  out->usable = 1;
  for (herd_u32 k = 0; k < 3u; ++k) {
    if (q->span[k] > HERD_GROUP_MAX_SPAN || (herd_axis_wraps(g, k) && q->span[k] >= g->wrap_cells[k])) {
      out->usable = 0;
      return;
    }
    float side = k < g->dims ? herd_group_cell_side(g, k) : 0.0f;
    float slack = ((c[k] < 0.0f ? -c[k] : c[k]) + r + 2.0f * side) * 1.0e-5f;
    for (herd_i32 a = 0; a < q->span[k]; ++a) {
      float lo = (float)(q->lo[k] + a) * side, below = lo - c[k], above = c[k] - (lo + side);
      float gap = (below > above ? below : above) - slack;
      out->g2[k][a] = k < g->dims && gap > 0.0f ? gap * gap : 0.0f;
    }
  }
}

HERD_INLINE int herd_group_cell_beyond(const herd_group_gaps *gaps, const herd_radius_query *q) {
  return gaps->usable && gaps->g2[0][q->at[0]] + gaps->g2[1][q->at[1]] + gaps->g2[2][q->at[2]] > q->r2;
}

/* The first agent of the sorted span [j, end) below s, in cell `cell` when `check` (a mixed
 * bucket), that may be joined with s: the centre of that cell's star when one_per_cell.
 * HERD_GROUP_NONE if there is none. */
HERD_INLINE herd_u32 herd_group_first_kin(const herd_group_view *v, herd_u32 j, herd_u32 end, int check, herd_cell cell,
                                          HERD_GLOBAL const herd_u32 *raw, int by_side, herd_u32 s) {
  for (; j < end && j < s; ++j) {
    if (check && !herd_same_cell(herd_cell_of(v->grid, herd_group_pos(v, j)), cell)) continue;
    if (herd_group_kin(v, raw, by_side, s, j)) return j;
  }
  return HERD_GROUP_NONE;
}

/* Whether agent s takes part in this pass: not removed, and in the final pass (by_side) in a
 * raw group with members outside (any other raw group is a final group as it is). */
HERD_INLINE int herd_group_hooks(const herd_group_view *v, HERD_GLOBAL const herd_u32 *raw, int by_side, herd_u32 s) {
  return !herd_agent_removed(v->agent[s]) && (!by_side || (raw[s] & HERD_GROUP_SPLIT));
}

/* Whether agent s takes one link per cell (herd_group_cells_linked, herd_group_cells_exact). */
HERD_INLINE int herd_group_one_per_cell(const herd_group_view *v, float r, herd_u32 s) {
  return herd_group_cells_linked(v->grid, r) && herd_group_cells_exact(v->grid, herd_group_pos(v, s));
}

/* The pass before the hooks, where one link per cell holds: s joins the first of its kin in its
 * own cell (all within r), so that every cell is one tree before any agent looks beyond its
 * own; a cell already joined with s's then costs s two finds, not a scan, even when every
 * agent runs at once. */
HERD_INLINE void herd_group_star(const herd_group_view *v, float r, HERD_GLOBAL const herd_u32 *raw, int by_side,
                                 HERD_GLOBAL herd_u32 *parent, herd_u32 s) {
  if (!herd_group_hooks(v, raw, by_side, s) || !herd_group_one_per_cell(v, r, s)) return;
  const herd_grid *g = v->grid;
  herd_cell cell = herd_cell_of(g, herd_group_pos(v, s));
  herd_u32 b = herd_bucket_of_cell(g, cell), end = herd_bucket_end(v->cell_end, b);
  int check = (v->cell_end[b] & HERD_BUCKET_MIXED) != 0u;
  herd_u32 first = herd_group_first_kin(v, herd_bucket_begin(v->cell_end, b), end, check, cell, raw, by_side, s);
  if (first != HERD_GROUP_NONE) herd_group_union(parent, s, first);
}

/* Hooks agent s with the agents j < s within r of it (the radius query's test, on the same
 * floats), after herd_group_star. by_side: the final pass, joining agents of one raw group on
 * one side; raw holds the raw labels (HERD_GROUP_*). */
HERD_INLINE void herd_group_hook(const herd_group_view *v, float r, HERD_GLOBAL const herd_u32 *raw, int by_side,
                                 HERD_GLOBAL herd_u32 *parent, herd_u32 s) {
  if (!herd_group_hooks(v, raw, by_side, s)) return;
  const herd_grid *g = v->grid;
  herd_radius_query q;
  herd_radius_begin(&q, g, herd_group_pos(v, s), r, s);
  int one_per_cell = herd_group_one_per_cell(v, r, s);
  herd_u32 own_bucket = herd_bucket_at(g, q.p);
  herd_group_gaps gaps;
  herd_group_gaps_of(g, &q, r, &gaps);
  while (herd_radius_next_cell(&q, g)) {
    if (herd_group_cell_beyond(&gaps, &q)) continue;
    /* Agents are sorted by bucket: a later bucket's are all above s. */
    herd_u32 b = herd_bucket_of_cell(g, q.cell);
    if (b > own_bucket) continue;
    herd_radius_open_bucket(&q, g, v->pos, v->cell_end, b);
    /* A bucket lists its agents in index order: past s, none is left to link. */
    herd_u32 first = herd_group_first_kin(v, q.j, q.end, q.check, q.cell, raw, by_side, s);
    if (first == HERD_GROUP_NONE) continue;
    /* The cell's kin all join its first (one_per_cell): nothing to add once s is in its tree. */
    if (one_per_cell && herd_group_find(parent, first) == herd_group_find(parent, s)) continue;
    for (herd_u32 j = first; j < q.end && j < s; ++j) {
      herd_vec3 at = herd_group_pos(v, j);
      if (q.check && !herd_same_cell(herd_cell_of(g, at), q.cell)) continue;
      if (herd_v3_len2(herd_world_delta(g, q.p, at)) > q.r2 || !herd_group_kin(v, raw, by_side, s, j)) continue;
      herd_group_union(parent, s, j);
      if (one_per_cell) break;
    }
  }
}

/* After every hook: agent s labelled with its root. */
HERD_INLINE void herd_group_compress(HERD_GLOBAL herd_u32 *parent, herd_u32 s) {
  if (herd_shared_load(&parent[s]) != HERD_GROUP_NONE) herd_shared_store(&parent[s], herd_group_find(parent, s));
}

/* ---- The compact area ----------------------------------------------------------------------- */

/* Each raw group's member count and the sum of its members' offsets from its root (six words
 * per root: three 64-bit sums), over sorted agents [begin, end): added once per run of agents
 * of one group. */
HERD_INLINE void herd_group_raw_add(HERD_GLOBAL herd_u32 *count, HERD_GLOBAL herd_u32 *sums, herd_u32 root, herd_u32 n,
                                    const herd_i64 *sum) {
  if (root == HERD_GROUP_NONE) return;
  herd_atomic_add(&count[root], n);
  for (herd_u32 k = 0; k < 3u; ++k) herd_atomic_add_i64(&sums[6u * root + 2u * k], sum[k]);
}

HERD_INLINE void herd_group_raw_sums(const herd_group_view *v, HERD_GLOBAL const herd_u32 *parent,
                                     HERD_GLOBAL herd_u32 *count, HERD_GLOBAL herd_u32 *sums, herd_u32 begin,
                                     herd_u32 end) {
  herd_u32 root = HERD_GROUP_NONE, n = 0u;
  herd_i64 sum[3], off[3];
  sum[0] = sum[1] = sum[2] = 0;
  for (herd_u32 s = begin; s < end; ++s) {
    herd_u32 r = parent[s];
    if (r != root) {
      herd_group_raw_add(count, sums, root, n, sum);
      root = r, n = 0u;
      sum[0] = sum[1] = sum[2] = 0;
    }
    if (r == HERD_GROUP_NONE) continue;
    herd_group_offset(v, root, s, off);
    sum[0] += off[0], sum[1] += off[1], sum[2] += off[2];
    n += 1u;
  }
  herd_group_raw_add(count, sums, root, n, sum);
}

/* Whether agent s lies outside its raw group's compact area: farther than
 * R_c = R_f sqrt(2 N_f) from the group's centre (all in fixed-point units, in double). */
HERD_INLINE int herd_group_outside(const herd_group_view *v, HERD_GLOBAL const herd_u32 *count,
                                   HERD_GLOBAL const herd_u32 *sums, float member_radius_m, herd_u32 root, herd_u32 s) {
  double n = (double)(herd_shared_load(&count[root]) & ~HERD_GROUP_SPLIT_COUNT), d2 = 0.0;
  herd_i64 off[3];
  herd_group_offset(v, root, s, off);
  for (herd_u32 k = 0; k < 3u; ++k) {
    double d = (double)off[k] - (double)herd_i64_at(&sums[6u * root + 2u * k]) / n;
    d2 += d * d;
  }
  double rf = (double)member_radius_m * HERD_GROUP_POS_SCALE;
  return d2 > rf * rf * 2.0 * n;
}

/* Marks agent s's raw label with HERD_GROUP_OUTSIDE when it is outside, and its raw group's
 * count with HERD_GROUP_SPLIT_COUNT. */
HERD_INLINE void herd_group_mark_outside(const herd_group_view *v, HERD_GLOBAL herd_u32 *parent,
                                         HERD_GLOBAL herd_u32 *count, HERD_GLOBAL const herd_u32 *sums,
                                         float member_radius_m, herd_u32 s) {
  herd_u32 root = parent[s];
  if (root == HERD_GROUP_NONE || !herd_group_outside(v, count, sums, member_radius_m, root, s)) return;
  parent[s] = root | HERD_GROUP_OUTSIDE;
  herd_atomic_or(&count[root], HERD_GROUP_SPLIT_COUNT);
}

/* Once every member is marked: the raw label gets HERD_GROUP_SPLIT when its group has members
 * outside, and the final pass starts from each agent alone there, from the raw root elsewhere
 * (a raw group with no member outside is a final group as it is). */
HERD_INLINE void herd_group_start_final(HERD_GLOBAL herd_u32 *raw, HERD_GLOBAL const herd_u32 *count,
                                        HERD_GLOBAL herd_u32 *label, herd_u32 s) {
  herd_u32 r = raw[s];
  if (r == HERD_GROUP_NONE) {
    label[s] = HERD_GROUP_NONE;
    return;
  }
  herd_u32 root = r & HERD_AGENT_ID_MASK;
  int split = (count[root] & HERD_GROUP_SPLIT_COUNT) != 0u;
  raw[s] = split ? r | HERD_GROUP_SPLIT : r;
  label[s] = split ? s : root;
}

/* ---- Counting and naming the final groups ------------------------------------------------- */

/* Each final group's member count and smallest agent id, at its root, over sorted agents
 * [begin, end). */
HERD_INLINE void herd_group_count_add(HERD_GLOBAL herd_u32 *count, HERD_GLOBAL herd_u32 *first_id, herd_u32 root,
                                      herd_u32 n, herd_u32 lowest) {
  if (root == HERD_GROUP_NONE) return;
  herd_atomic_add(&count[root], n);
  herd_atomic_min(&first_id[root], lowest);
}

HERD_INLINE void herd_group_count(HERD_GLOBAL const herd_u32 *agent, HERD_GLOBAL const herd_u32 *label,
                                  HERD_GLOBAL herd_u32 *count, HERD_GLOBAL herd_u32 *first_id, herd_u32 begin,
                                  herd_u32 end) {
  herd_u32 root = HERD_GROUP_NONE, n = 0u, lowest = HERD_GROUP_NONE;
  for (herd_u32 s = begin; s < end; ++s) {
    herd_u32 r = label[s], id = herd_agent_id(agent[s]);
    if (r != root) {
      herd_group_count_add(count, first_id, root, n, lowest);
      root = r, n = 0u, lowest = HERD_GROUP_NONE;
    }
    lowest = id < lowest ? id : lowest;
    n += 1u;
  }
  herd_group_count_add(count, first_id, root, n, lowest);
}

/* ---- The tracked groups' reductions --------------------------------------------------------- */

/* The groups the host picked (the largest; kernels get it by value), in observation order. */
typedef struct herd_group_pick {
  herd_u32 tracked;
  herd_u32 root[HERD_GROUP_MAX_TRACKED];  /* each group's root: its label */
  herd_u32 count[HERD_GROUP_MAX_TRACKED]; /* its members */
  herd_u32 first_id[HERD_GROUP_MAX_TRACKED];
} herd_group_pick;

/* What the passes sum for one tracked group. 4-byte fields only: one layout in C and OpenCL C. */
typedef struct herd_group_acc {
  herd_u32 sum[6];  /* members' offsets from the root (2^-16 m): three 64-bit sums, low word first */
  herd_u32 head[6]; /* members' unit velocities (2^-30): the same */
  herd_u32 far_d2;  /* the bits of the largest squared distance from the centre (a float >= 0) */
  herd_u32 far_id;  /* the smallest id at that distance */
  float root_pos[3];
  float far_pos[3];
} herd_group_acc;

/* The tracked group labelled `label`: its index in the pick, or HERD_GROUP_NONE. */
HERD_INLINE herd_u32 herd_group_slot(const herd_group_pick *pick, herd_u32 label) {
  for (herd_u32 k = 0; k < pick->tracked; ++k)
    if (pick->root[k] == label) return k;
  return HERD_GROUP_NONE;
}

/* Adds a run's offset and heading sums to its tracked group. */
HERD_INLINE void herd_group_acc_add(HERD_GLOBAL herd_group_acc *acc, herd_u32 slot, const herd_i64 *sum) {
  if (slot == HERD_GROUP_NONE) return;
  for (herd_u32 k = 0; k < 3u; ++k) {
    herd_atomic_add_i64(&acc[slot].sum[2u * k], sum[k]);
    herd_atomic_add_i64(&acc[slot].head[2u * k], sum[3u + k]);
  }
}

/* Pass A over sorted agents [begin, end): each agent's slot by its id (slot_by_id, for
 * herd_sim_map_groups), and the tracked groups' offset and heading sums; the root records its
 * position, from which the offsets are measured. */
HERD_INLINE void herd_group_sum_tracked(const herd_group_view *v, HERD_GLOBAL const herd_u32 *label,
                                        const herd_group_pick *pick, HERD_GLOBAL herd_u32 *slot_by_id,
                                        HERD_GLOBAL herd_group_acc *acc, herd_u32 begin, herd_u32 end) {
  herd_u32 slot = HERD_GROUP_NONE, run = HERD_GROUP_NONE;
  herd_i64 sum[6], part[6];
  for (herd_u32 k = 0; k < 6u; ++k) sum[k] = 0;
  for (herd_u32 s = begin; s < end; ++s) {
    herd_u32 l = label[s];
    if (l != run) {
      herd_group_acc_add(acc, slot, sum);
      for (herd_u32 k = 0; k < 6u; ++k) sum[k] = 0;
      run = l;
      slot = l == HERD_GROUP_NONE ? HERD_GROUP_NONE : herd_group_slot(pick, l);
    }
    slot_by_id[herd_agent_id(v->agent[s])] = slot;
    if (slot == HERD_GROUP_NONE) continue;
    if (s == l) {
      herd_vec3 p = herd_group_pos(v, s);
      acc[slot].root_pos[0] = p.x, acc[slot].root_pos[1] = p.y, acc[slot].root_pos[2] = p.z;
    }
    herd_group_offset(v, l, s, part);
    herd_group_heading(v, s, part + 3);
    for (herd_u32 k = 0; k < 6u; ++k) sum[k] += part[k];
  }
  herd_group_acc_add(acc, slot, sum);
}

/* Agent s's squared distance from its tracked group's centre, as the bits of a float. */
HERD_INLINE herd_u32 herd_group_far_bits(const herd_group_view *v, const herd_group_pick *pick,
                                         HERD_GLOBAL const herd_group_acc *acc, herd_u32 slot, herd_u32 root,
                                         herd_u32 s) {
  double n = (double)pick->count[slot], d2 = 0.0;
  herd_i64 off[3];
  herd_group_offset(v, root, s, off);
  for (herd_u32 k = 0; k < 3u; ++k) {
    double d = (double)off[k] - (double)herd_i64_at(&acc[slot].sum[2u * k]) / n;
    d2 += d * d;
  }
  return herd_float_bits((float)(d2 / (HERD_GROUP_POS_SCALE * HERD_GROUP_POS_SCALE)));
}

/* Pass B over sorted agents [begin, end): each tracked group's largest squared distance from
 * its centre. Floats >= 0 order as their bits do. */
HERD_INLINE void herd_group_far_max(const herd_group_view *v, HERD_GLOBAL const herd_u32 *label,
                                    const herd_group_pick *pick, HERD_GLOBAL herd_group_acc *acc, herd_u32 begin,
                                    herd_u32 end) {
  herd_u32 slot = HERD_GROUP_NONE, run = HERD_GROUP_NONE, best = 0u;
  for (herd_u32 s = begin; s < end; ++s) {
    herd_u32 l = label[s];
    if (l != run) {
      if (slot != HERD_GROUP_NONE) herd_atomic_max(&acc[slot].far_d2, best);
      best = 0u;
      run = l;
      slot = l == HERD_GROUP_NONE ? HERD_GROUP_NONE : herd_group_slot(pick, l);
    }
    if (slot == HERD_GROUP_NONE) continue;
    herd_u32 bits = herd_group_far_bits(v, pick, acc, slot, l, s);
    best = bits > best ? bits : best;
  }
  if (slot != HERD_GROUP_NONE) herd_atomic_max(&acc[slot].far_d2, best);
}

/* Pass C, per agent: among the members at the largest distance, the smallest id. */
HERD_INLINE void herd_group_far_id(const herd_group_view *v, HERD_GLOBAL const herd_u32 *label,
                                   const herd_group_pick *pick, HERD_GLOBAL herd_group_acc *acc, herd_u32 s) {
  herd_u32 l = label[s], slot = l == HERD_GROUP_NONE ? HERD_GROUP_NONE : herd_group_slot(pick, l);
  if (slot == HERD_GROUP_NONE || herd_group_far_bits(v, pick, acc, slot, l, s) != acc[slot].far_d2) return;
  herd_atomic_min(&acc[slot].far_id, herd_agent_id(v->agent[s]));
}

/* Pass D, per agent: the farthest member records its position. */
HERD_INLINE void herd_group_far_pos(const herd_group_view *v, HERD_GLOBAL const herd_u32 *slot_by_id,
                                    HERD_GLOBAL herd_group_acc *acc, herd_u32 s) {
  herd_u32 id = herd_agent_id(v->agent[s]), slot = slot_by_id[id];
  if (slot == HERD_GROUP_NONE || herd_agent_removed(v->agent[s]) || acc[slot].far_id != id) return;
  herd_vec3 p = herd_group_pos(v, s);
  acc[slot].far_pos[0] = p.x, acc[slot].far_pos[1] = p.y, acc[slot].far_pos[2] = p.z;
}

#endif
