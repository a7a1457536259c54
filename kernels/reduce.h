/* The flock's observation as a reduction: what one agent contributes, and how two partial
 * results combine. Shared by the CPU backend (blocks in sequence) and the OpenCL kernels
 * (a fixed tree, then the last work-group to finish folds every group's partial), so both
 * compute the same quantities with the same tie rules.
 *
 * Every sum is an integer (fixed point), so a partial's value does not depend on the order in
 * which agents or partials are folded: the CPU backend and the OpenCL kernels give the same
 * bits for any number of threads, blocks or work-groups, and no device needs fp64 for it.
 * The scales (docs/opencl.md, "The observation in fixed point", has the bounds):
 *   positions and path distances: 2^-32 m per agent, summed in 128 bits (herd_i128) — exact for
 *     |x| >= 2^-9 m, |x| < 2^24 m (the schema's 1e7 m), and 2^31 agents sum to under 2^87;
 *   unit headings and milling cross products: 2^-30 per agent, summed in 64 bits — components
 *     are at most 1 (+ rounding), and 2^31 agents sum to under 2^62.
 * Each agent's value is truncated toward zero: C's and OpenCL C's float-to-integer casts both
 * do that, so both backends agree bit for bit.
 *
 * The partial's room for steering agents is HERD_REDUCE_STEERING (default HERD_MAX_STEERING):
 * the OpenCL program is built with the sim's own count (a sim keeps its steering agents), so a
 * work-item's partial holds no more than it needs. The nearest entries come last, so a partial
 * with less room is a prefix of one with more and the host reads it into its own type.
 * Functions take and return structs by value: OpenCL C 1.2 has no generic address space. */
#ifndef HERD_KERNELS_REDUCE_H
#define HERD_KERNELS_REDUCE_H
#include "agent.h"
#include "env.h"
#include "grid.h"

#define HERD_KERNEL_MAX_STEERING 64 /* = HERD_MAX_STEERING in herd.h (checked there) */
#ifndef HERD_REDUCE_STEERING
#define HERD_REDUCE_STEERING HERD_KERNEL_MAX_STEERING
#endif
/* The observation's optional parts, as herd.h's HERD_OBSERVE_* (checked there): the second pass
 * (farthest agent, milling) and the unit velocities' sum (polarisation). */
#define HERD_REDUCE_FAR 1u
#define HERD_REDUCE_HEADING 2u
#define HERD_REDUCE_SECTORS 4u
#define HERD_KERNEL_SECTORS 8             /* = HERD_SECTORS in herd.h (checked there) */
#define HERD_FIX_POS_SCALE 4294967296.0f  /* 2^32: positions and path distances */
#define HERD_FIX_UNIT_SCALE 1073741824.0f /* 2^30: unit vectors' components */

/* A signed 128-bit integer, hi * 2^64 + lo (two's complement), for sums of positions. */
typedef struct herd_i128 {
  herd_u64 lo;
  herd_i64 hi;
} herd_i128;

HERD_INLINE herd_i128 herd_i128_add(herd_i128 a, herd_i128 b) {
  herd_u64 lo = a.lo + b.lo;
  a.hi = (herd_i64)((herd_u64)a.hi + (herd_u64)b.hi + (lo < a.lo ? 1u : 0u));
  a.lo = lo;
  return a;
}

/* A fixed-point sum in its units as a double: two roundings, far below a float's resolution.
 * The host's observation (src/backend/observation.c) and the OpenCL step's centroid taken from
 * the device's last observation (kernels/model.h) both use it, so they get the same bits. */
#if defined(HERD_OPENCL) && defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#if !defined(HERD_OPENCL) || defined(cl_khr_fp64)
HERD_INLINE double herd_fix_wide(herd_i128 v, double scale) {
  return ((double)v.hi * 18446744073709551616.0 + (double)v.lo) / scale;
}
#endif

/* x in 2^-32 m, sign-extended into 128 bits. */
HERD_INLINE herd_i128 herd_i128_fix(float x) {
  herd_i64 v = (herd_i64)(x * HERD_FIX_POS_SCALE);
  herd_i128 r;
  r.lo = (herd_u64)v;
  r.hi = v < 0 ? -1 : 0;
  return r;
}

/* sum / count rounded toward zero, for |sum / count| < 2^63 (a mean of values each under
 * 2^56): long division of the magnitude by 32-bit digits, every step in 64 bits. */
HERD_INLINE herd_i64 herd_i128_div(herd_i128 sum, herd_u32 count) {
  int negative = sum.hi < 0;
  herd_u64 lo = sum.lo, hi = (herd_u64)sum.hi;
  if (negative) { /* two's complement negation of hi:lo */
    lo = ~lo + 1u;
    hi = ~hi + (lo == 0u ? 1u : 0u);
  }
  herd_u64 digit[4] = {hi >> 32, hi & 0xffffffffu, lo >> 32, lo & 0xffffffffu}, rest = 0, q = 0;
  for (int k = 0; k < 4; ++k) {
    herd_u64 cur = (rest << 32) | digit[k];
    q = (q << 32) | (cur / count); /* the top two digits of the quotient are 0 within the bound */
    rest = cur % count;
  }
  return negative ? -(herd_i64)q : (herd_i64)q;
}

/* A unit vector's component in 2^-30. */
HERD_INLINE herd_i64 herd_unit_fix(float x) { return (herd_i64)(x * HERD_FIX_UNIT_SCALE); }

/* The agent nearest to one steering agent: the squared distance, its id and where it is. */
typedef struct herd_nearest {
  float d2;
  herd_u32 id;
  float x, y, z;
} herd_nearest;

/* The agent farthest from the centroid in one sector about it, and the sector's count. */
typedef struct herd_sector_part {
  float d2;
  herd_u32 id, count;
  float x, y, z;
} herd_sector_part;

/* 8-byte fields first, then 4-byte ones, the nearest entries last: one layout in C and
 * OpenCL C, and a partial with room for fewer steering agents is a prefix of one with more. */
typedef struct herd_flock_partial {
  herd_i128 sum_x, sum_y, sum_z;   /* positions in 2^-32 m */
  herd_i128 path_dist;             /* the agents' distances from the world's path (kernels/env.h), 2^-32 m */
  herd_i64 head_x, head_y, head_z; /* unit velocities in 2^-30: polarisation */
  herd_i64 mill_x, mill_y, mill_z; /* second pass: unit(r - G) x unit(v) in 2^-30: milling */
  float lo_x, lo_y, lo_z, hi_x, hi_y, hi_z;
  herd_u32 in_goal, delivered;
  herd_u32 removed;  /* agents their model took out of the flock: in `delivered`, in nothing else */
  herd_u32 path_end; /* agents whose closest path point is in the path's last 5 % */
  float far_d2;      /* second pass: the agent farthest from the centroid */
  herd_u32 far_id;
  float far_x, far_y, far_z;
  herd_sector_part sector[HERD_KERNEL_SECTORS]; /* second pass, where asked for (HERD_REDUCE_SECTORS) */
  herd_nearest near[HERD_REDUCE_STEERING];
} herd_flock_partial;

/* Nearest and farthest prefer the lower id on equal distance, so the result does not
 * depend on the order in which agents are visited. */
HERD_INLINE int herd_nearer(float d2, herd_u32 id, float best_d2, herd_u32 best_id) {
  return d2 < best_d2 || (d2 == best_d2 && id < best_id);
}

HERD_INLINE int herd_farther(float d2, herd_u32 id, float best_d2, herd_u32 best_id) {
  return d2 > best_d2 || (d2 == best_d2 && id < best_id);
}

HERD_INLINE herd_flock_partial herd_partial_empty(void) {
  herd_flock_partial p;
  p.sum_x.lo = p.sum_y.lo = p.sum_z.lo = p.path_dist.lo = 0u;
  p.sum_x.hi = p.sum_y.hi = p.sum_z.hi = p.path_dist.hi = 0;
  p.head_x = p.head_y = p.head_z = 0;
  p.mill_x = p.mill_y = p.mill_z = 0;
  p.lo_x = p.lo_y = p.lo_z = INFINITY;
  p.hi_x = p.hi_y = p.hi_z = -INFINITY;
  p.in_goal = p.delivered = p.removed = p.path_end = 0u;
  for (int d = 0; d < HERD_REDUCE_STEERING; ++d) {
    p.near[d].d2 = INFINITY;
    p.near[d].id = 0xffffffffu;
    p.near[d].x = p.near[d].y = p.near[d].z = 0.0f;
  }
  p.far_d2 = -1.0f;
  p.far_id = 0xffffffffu;
  p.far_x = p.far_y = p.far_z = 0.0f;
  for (int k = 0; k < HERD_KERNEL_SECTORS; ++k) {
    p.sector[k].d2 = -1.0f;
    p.sector[k].id = 0xffffffffu;
    p.sector[k].count = 0u;
    p.sector[k].x = p.sector[k].y = p.sector[k].z = 0.0f;
  }
  return p;
}

/* The folds, field by field, as macros over lvalues: the same code folds private partials (the
 * CPU backend, a work-item's own) and partials in a kernel's local or global memory in place,
 * which OpenCL C 1.2 cannot pass to one function (no generic address space), so that a GPU
 * touches only the fields a fold changes instead of copying whole partials through registers. */
#define HERD_FOLD_PATH(a, b)                                     \
  do {                                                           \
    (a).path_dist = herd_i128_add((a).path_dist, (b).path_dist); \
    (a).path_end += (b).path_end;                                \
  } while (0)
/* Every first-pass field but the nearest entries. */
#define HERD_FOLD_FLOCK(a, b)                             \
  do {                                                    \
    (a).sum_x = herd_i128_add((a).sum_x, (b).sum_x);      \
    (a).sum_y = herd_i128_add((a).sum_y, (b).sum_y);      \
    (a).sum_z = herd_i128_add((a).sum_z, (b).sum_z);      \
    (a).head_x += (b).head_x;                             \
    (a).head_y += (b).head_y;                             \
    (a).head_z += (b).head_z;                             \
    (a).lo_x = (b).lo_x < (a).lo_x ? (b).lo_x : (a).lo_x; \
    (a).lo_y = (b).lo_y < (a).lo_y ? (b).lo_y : (a).lo_y; \
    (a).lo_z = (b).lo_z < (a).lo_z ? (b).lo_z : (a).lo_z; \
    (a).hi_x = (b).hi_x > (a).hi_x ? (b).hi_x : (a).hi_x; \
    (a).hi_y = (b).hi_y > (a).hi_y ? (b).hi_y : (a).hi_y; \
    (a).hi_z = (b).hi_z > (a).hi_z ? (b).hi_z : (a).hi_z; \
    (a).in_goal += (b).in_goal;                           \
    (a).delivered += (b).delivered;                       \
    (a).removed += (b).removed;                           \
    HERD_FOLD_PATH(a, b);                                 \
  } while (0)
/* b's agent (its d2, id and position) into entry a: a nearest or a sector entry. */
#define HERD_TAKE_AGENT(a, b) ((a).d2 = (b).d2, (a).id = (b).id, (a).x = (b).x, (a).y = (b).y, (a).z = (b).z)
/* One nearest entry: b's where it is nearer. */
#define HERD_FOLD_NEAREST(a, b)                                                 \
  do {                                                                          \
    if (herd_nearer((b).d2, (b).id, (a).d2, (a).id)) HERD_TAKE_AGENT((a), (b)); \
  } while (0)
/* One sector entry: b's count added, its farthest taken where farther. */
#define HERD_FOLD_SECTOR(a, b)                                                   \
  do {                                                                           \
    (a).count += (b).count;                                                      \
    if (herd_farther((b).d2, (b).id, (a).d2, (a).id)) HERD_TAKE_AGENT((a), (b)); \
  } while (0)
/* The second pass's fields: the farthest agent, the milling sum and the sectors. */
#define HERD_FOLD_FAR(a, b)                                                                            \
  do {                                                                                                 \
    if (herd_farther((b).far_d2, (b).far_id, (a).far_d2, (a).far_id)) {                                \
      (a).far_d2 = (b).far_d2, (a).far_id = (b).far_id, (a).far_x = (b).far_x, (a).far_y = (b).far_y,  \
      (a).far_z = (b).far_z;                                                                           \
    }                                                                                                  \
    (a).mill_x += (b).mill_x;                                                                          \
    (a).mill_y += (b).mill_y;                                                                          \
    (a).mill_z += (b).mill_z;                                                                          \
    for (int k_ = 0; k_ < HERD_KERNEL_SECTORS; ++k_) HERD_FOLD_SECTOR((a).sector[k_], (b).sector[k_]); \
  } while (0)

/* First pass: sums, extent and goal counts of one agent (not the nearest entries:
 * herd_partial_add_near), its unit velocity only with `heading`. A removed agent counts as
 * delivered and adds nothing else. */
HERD_INLINE void herd_partial_add_flock(herd_flock_partial *p, herd_vec3 pos, herd_vec3 vel, herd_u32 word, int in_goal,
                                        int heading) {
  if (herd_agent_removed(word)) {
    p->delivered += 1u;
    p->removed += 1u;
    return;
  }
  p->sum_x = herd_i128_add(p->sum_x, herd_i128_fix(pos.x));
  p->sum_y = herd_i128_add(p->sum_y, herd_i128_fix(pos.y));
  p->sum_z = herd_i128_add(p->sum_z, herd_i128_fix(pos.z));
  if (heading) {
    herd_vec3 u = herd_v3_unit(vel);
    p->head_x += herd_unit_fix(u.x);
    p->head_y += herd_unit_fix(u.y);
    p->head_z += herd_unit_fix(u.z);
  }
  p->lo_x = pos.x < p->lo_x ? pos.x : p->lo_x;
  p->lo_y = pos.y < p->lo_y ? pos.y : p->lo_y;
  p->lo_z = pos.z < p->lo_z ? pos.z : p->lo_z;
  p->hi_x = pos.x > p->hi_x ? pos.x : p->hi_x;
  p->hi_y = pos.y > p->hi_y ? pos.y : p->hi_y;
  p->hi_z = pos.z > p->hi_z ? pos.z : p->hi_z;
  p->in_goal += in_goal ? 1u : 0u;
  p->delivered += (word & HERD_AGENT_DELIVERED) ? 1u : 0u;
}

/* The agent at pos (id) against the nearest so far to the steering agent at s, the distance
 * taken through the wrap of the grid's world. */
HERD_INLINE herd_nearest herd_nearest_add(herd_nearest best, const herd_grid *g, herd_vec3 s, herd_vec3 pos,
                                          herd_u32 id) {
  float d2 = herd_v3_len2(herd_world_delta(g, s, pos));
  if (herd_nearer(d2, id, best.d2, best.id)) {
    best.d2 = d2;
    best.id = id;
    best.x = pos.x;
    best.y = pos.y;
    best.z = pos.z;
  }
  return best;
}

/* First pass: the agent (its word) against the nearest entries `near` (an lvalue array, in any
 * address space) of the steer_count <= HERD_REDUCE_STEERING steering agents in `steer`
 * (HERD_STEER_FLOATS each), where it takes part (herd_near_takes_part: removed agents never,
 * sated ones not for food). The loop is bounded by the constant too, so that a compiler may
 * unroll it and keep private entries in registers. */
#define HERD_PARTIAL_ADD_NEAR(near, g, steer, steer_count, pos, word)                   \
  do {                                                                                  \
    if (!herd_agent_removed(word))                                                      \
      for (herd_u32 d_ = 0; d_ < (steer_count) && d_ < HERD_REDUCE_STEERING; ++d_) {    \
        herd_u32 at_ = HERD_STEER_FLOATS * d_;                                          \
        if (!herd_near_takes_part((word), (herd_u32)(steer)[at_ + 3u])) continue;       \
        herd_vec3 s_ = herd_v3((steer)[at_], (steer)[at_ + 1u], (steer)[at_ + 2u]);     \
        (near)[d_] = herd_nearest_add((near)[d_], (g), s_, (pos), herd_agent_id(word)); \
      }                                                                                 \
  } while (0)

/* First pass: everything one agent adds (herd_partial_add_flock, then its nearest entries). */
HERD_INLINE void herd_partial_add(herd_flock_partial *p, const herd_grid *g, herd_vec3 pos, herd_vec3 vel,
                                  herd_u32 word, HERD_GLOBAL const float *steer, herd_u32 steer_count, int in_goal,
                                  int heading) {
  herd_partial_add_flock(p, pos, vel, word, in_goal, heading);
  HERD_PARTIAL_ADD_NEAR(p->near, g, steer, steer_count, pos, word);
}

/* Every first-pass field, the nearest entries of steer_count steering agents included. */
#define HERD_FOLD_PARTIAL(a, b, steer_count)                                     \
  do {                                                                           \
    HERD_FOLD_FLOCK(a, b);                                                       \
    for (herd_u32 d_ = 0; d_ < (steer_count) && d_ < HERD_REDUCE_STEERING; ++d_) \
      HERD_FOLD_NEAREST((a).near[d_], (b).near[d_]);                             \
  } while (0)

HERD_INLINE herd_flock_partial herd_partial_fold(herd_flock_partial a, herd_flock_partial b, herd_u32 steer_count) {
  HERD_FOLD_PARTIAL(a, b, steer_count);
  return a;
}

/* First pass, with a path in the world: the agent's distance from it and whether it is at the
 * path's end (removed agents take no part). */
HERD_INLINE void herd_partial_add_path(herd_flock_partial *p, HERD_GLOBAL const float *env, const herd_env_info *e,
                                       herd_vec3 pos, herd_u32 word) {
  if (herd_agent_removed(word)) return;
  HERD_GLOBAL const float *path = env + e->path_at;
  herd_path_hit hit = herd_path_closest(path, pos);
  p->path_dist = herd_i128_add(p->path_dist, herd_i128_fix(hit.dist_m));
  p->path_end += (herd_u32)herd_path_near_end(path, hit, HERD_PATH_END_FRACTION);
}

/* Second pass, once the centroid g is known: the agent farthest from it, and the milling
 * sum (the angular momentum of unit vectors about g). Removed agents take no part. */
HERD_INLINE void herd_far_add(herd_flock_partial *p, herd_vec3 pos, herd_vec3 vel, herd_u32 word, herd_vec3 g) {
  if (herd_agent_removed(word)) return;
  herd_vec3 r = herd_v3_sub(pos, g);
  float d2 = herd_v3_len2(r);
  herd_u32 id = herd_agent_id(word);
  if (herd_farther(d2, id, p->far_d2, p->far_id)) {
    p->far_d2 = d2;
    p->far_id = id;
    p->far_x = pos.x;
    p->far_y = pos.y;
    p->far_z = pos.z;
  }
  herd_vec3 m = herd_v3_cross(herd_v3_unit(r), herd_v3_unit(vel));
  p->mill_x += herd_unit_fix(m.x);
  p->mill_y += herd_unit_fix(m.y);
  p->mill_z += herd_unit_fix(m.z);
}

/* The sector (0 .. HERD_KERNEL_SECTORS - 1, herd.h's herd_sector) of the offset (dx, dy) from
 * the centroid: its quadrant q, then whether it lies at or past the quadrant's diagonal, with
 * the offset turned by -90 q degrees (u > 0, v >= 0): comparisons and exact sign changes only,
 * so no backend rounds it differently. At the centroid itself (or NaN): 0. */
HERD_INLINE herd_u32 herd_sector_of(float dx, float dy) {
  herd_u32 q = 0u;
  float u = dx, v = dy;
  if (dx <= 0.0f && dy > 0.0f)
    q = 1u, u = dy, v = -dx;
  else if (dx < 0.0f && dy <= 0.0f)
    q = 2u, u = -dx, v = -dy;
  else if (dx >= 0.0f && dy < 0.0f)
    q = 3u, u = -dy, v = dx;
  else if (!(dx > 0.0f))
    return 0u;
  return 2u * q + (v >= u ? 1u : 0u);
}

/* Second pass, once the centroid g is known: the agent at `at` (a variable; its word `word`)
 * into the sector entries `sector` (an lvalue array, in any address space: a GPU's work-item
 * updates its partial in local memory in place, not a private array it would index at run
 * time). Removed agents take no part. */
#define HERD_SECTOR_ADD(sector, at, word, g)                                       \
  do {                                                                             \
    if (!herd_agent_removed(word)) {                                               \
      herd_vec3 r_ = herd_v3_sub((at), (g));                                       \
      float d2_ = herd_v3_len2(r_);                                                \
      herd_u32 k_ = herd_sector_of(r_.x, r_.y), id_ = herd_agent_id(word);         \
      (sector)[k_].count += 1u;                                                    \
      if (herd_farther(d2_, id_, (sector)[k_].d2, (sector)[k_].id)) {              \
        (sector)[k_].d2 = d2_, (sector)[k_].id = id_;                              \
        (sector)[k_].x = (at).x, (sector)[k_].y = (at).y, (sector)[k_].z = (at).z; \
      }                                                                            \
    }                                                                              \
  } while (0)

HERD_INLINE herd_flock_partial herd_far_fold(herd_flock_partial a, herd_flock_partial b) {
  HERD_FOLD_FAR(a, b);
  return a;
}

/* The centroid as the second pass measures from it: the same float on every backend, from
 * integers alone (the exact sum divided in 128 bits, then one rounding to float). It is the
 * centroid of the `count` agents less the `removed` ones (of all of them when every one is
 * removed: the sums are then 0). HERD_PARTIAL_CENTROID takes them from a partial's fields in
 * place: a kernel reads only the sums of the total, not what the last group of the second
 * pass writes into it. */
HERD_INLINE herd_vec3 herd_centroid_of(herd_i128 sum_x, herd_i128 sum_y, herd_i128 sum_z, herd_u32 removed,
                                       herd_u32 count) {
  herd_u32 in_flock = removed < count ? count - removed : count;
  if (in_flock == 0u) return herd_v3(0.0f, 0.0f, 0.0f);
  const float unit = 1.0f / HERD_FIX_POS_SCALE; /* a power of two: exact */
  return herd_v3((float)herd_i128_div(sum_x, in_flock) * unit, (float)herd_i128_div(sum_y, in_flock) * unit,
                 (float)herd_i128_div(sum_z, in_flock) * unit);
}
#define HERD_PARTIAL_CENTROID(p, count) herd_centroid_of((p).sum_x, (p).sum_y, (p).sum_z, (p).removed, (count))

HERD_INLINE herd_vec3 herd_partial_centroid(herd_flock_partial p, herd_u32 count) {
  return HERD_PARTIAL_CENTROID(p, count);
}

#endif
