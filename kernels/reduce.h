/* The flock's observation as a reduction: what one agent contributes, and how two partial
 * results combine. Shared by the CPU backend (blocks in sequence) and the OpenCL kernels
 * (a fixed tree), so both compute the same quantities with the same tie rules.
 * Functions take and return structs by value: OpenCL C 1.2 has no generic address space. */
#ifndef HERD_KERNELS_REDUCE_H
#define HERD_KERNELS_REDUCE_H
#include "agent.h"
#include "env.h"
#include "grid.h"

#ifdef HERD_OPENCL
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#define HERD_KERNEL_MAX_STEERING 16 /* = HERD_MAX_STEERING in herd.h (checked there) */

/* Doubles first, then 4-byte fields: one layout in C and OpenCL C. */
typedef struct herd_flock_partial {
  double sum_x, sum_y, sum_z;    /* positions summed in 64 bits: exact enough for any flock size */
  double head_x, head_y, head_z; /* unit velocities summed: polarisation */
  double mill_x, mill_y, mill_z; /* second pass: unit(r - G) x unit(v) summed: milling */
  double path_dist;              /* the agents' distances from the world's path (kernels/env.h) */
  float lo_x, lo_y, lo_z, hi_x, hi_y, hi_z;
  herd_u32 in_goal, delivered;
  herd_u32 removed;  /* agents their model took out of the flock: in `delivered`, in nothing else */
  herd_u32 path_end; /* agents whose closest path point is in the path's last 5 % */
  float near_d2[HERD_KERNEL_MAX_STEERING];
  herd_u32 near_id[HERD_KERNEL_MAX_STEERING];
  float near_x[HERD_KERNEL_MAX_STEERING], near_y[HERD_KERNEL_MAX_STEERING], near_z[HERD_KERNEL_MAX_STEERING];
  float far_d2; /* second pass: the agent farthest from the centroid */
  herd_u32 far_id;
  float far_x, far_y, far_z;
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
  p.sum_x = p.sum_y = p.sum_z = 0.0;
  p.head_x = p.head_y = p.head_z = 0.0;
  p.mill_x = p.mill_y = p.mill_z = 0.0;
  p.lo_x = p.lo_y = p.lo_z = INFINITY;
  p.hi_x = p.hi_y = p.hi_z = -INFINITY;
  p.in_goal = p.delivered = p.removed = p.path_end = 0u;
  p.path_dist = 0.0;
  for (int d = 0; d < HERD_KERNEL_MAX_STEERING; ++d) {
    p.near_d2[d] = INFINITY;
    p.near_id[d] = 0xffffffffu;
    p.near_x[d] = p.near_y[d] = p.near_z[d] = 0.0f;
  }
  p.far_d2 = -1.0f;
  p.far_id = 0xffffffffu;
  p.far_x = p.far_y = p.far_z = 0.0f;
  return p;
}

/* First pass: sums, extent, goal counts, the agent nearest to each steering agent (steer:
 * HERD_STEER_FLOATS per steering agent; distances through the wrap of the grid's world). A removed
 * agent counts as delivered and adds nothing else. */
HERD_INLINE herd_flock_partial herd_partial_add(herd_flock_partial p, const herd_grid *g, herd_vec3 pos, herd_vec3 vel,
                                                herd_u32 word, HERD_GLOBAL const float *steer, herd_u32 steer_count,
                                                int in_goal) {
  if (herd_agent_removed(word)) {
    p.delivered += 1u;
    p.removed += 1u;
    return p;
  }
  p.sum_x += (double)pos.x;
  p.sum_y += (double)pos.y;
  p.sum_z += (double)pos.z;
  herd_vec3 u = herd_v3_unit(vel);
  p.head_x += (double)u.x;
  p.head_y += (double)u.y;
  p.head_z += (double)u.z;
  p.lo_x = pos.x < p.lo_x ? pos.x : p.lo_x;
  p.lo_y = pos.y < p.lo_y ? pos.y : p.lo_y;
  p.lo_z = pos.z < p.lo_z ? pos.z : p.lo_z;
  p.hi_x = pos.x > p.hi_x ? pos.x : p.hi_x;
  p.hi_y = pos.y > p.hi_y ? pos.y : p.hi_y;
  p.hi_z = pos.z > p.hi_z ? pos.z : p.hi_z;
  p.in_goal += in_goal ? 1u : 0u;
  p.delivered += (word & HERD_AGENT_DELIVERED) ? 1u : 0u;
  herd_u32 id = herd_agent_id(word);
  for (herd_u32 d = 0; d < steer_count; ++d) {
    herd_u32 at = HERD_STEER_FLOATS * d;
    herd_vec3 s = herd_v3(steer[at], steer[at + 1u], steer[at + 2u]);
    float d2 = herd_v3_len2(herd_world_delta(g, s, pos));
    if (herd_nearer(d2, id, p.near_d2[d], p.near_id[d])) {
      p.near_d2[d] = d2;
      p.near_id[d] = id;
      p.near_x[d] = pos.x;
      p.near_y[d] = pos.y;
      p.near_z[d] = pos.z;
    }
  }
  return p;
}

HERD_INLINE herd_flock_partial herd_partial_fold(herd_flock_partial a, herd_flock_partial b, herd_u32 steer_count) {
  a.sum_x += b.sum_x;
  a.sum_y += b.sum_y;
  a.sum_z += b.sum_z;
  a.head_x += b.head_x;
  a.head_y += b.head_y;
  a.head_z += b.head_z;
  a.lo_x = b.lo_x < a.lo_x ? b.lo_x : a.lo_x;
  a.lo_y = b.lo_y < a.lo_y ? b.lo_y : a.lo_y;
  a.lo_z = b.lo_z < a.lo_z ? b.lo_z : a.lo_z;
  a.hi_x = b.hi_x > a.hi_x ? b.hi_x : a.hi_x;
  a.hi_y = b.hi_y > a.hi_y ? b.hi_y : a.hi_y;
  a.hi_z = b.hi_z > a.hi_z ? b.hi_z : a.hi_z;
  a.in_goal += b.in_goal;
  a.delivered += b.delivered;
  a.removed += b.removed;
  a.path_dist += b.path_dist;
  a.path_end += b.path_end;
  for (herd_u32 d = 0; d < steer_count; ++d) {
    if (herd_nearer(b.near_d2[d], b.near_id[d], a.near_d2[d], a.near_id[d])) {
      a.near_d2[d] = b.near_d2[d];
      a.near_id[d] = b.near_id[d];
      a.near_x[d] = b.near_x[d];
      a.near_y[d] = b.near_y[d];
      a.near_z[d] = b.near_z[d];
    }
  }
  return a;
}

/* First pass, with a path in the world: the agent's distance from it and whether it is at the
 * path's end (removed agents take no part). */
HERD_INLINE herd_flock_partial herd_partial_add_path(herd_flock_partial p, HERD_GLOBAL const float *env,
                                                     const herd_env_info *e, herd_vec3 pos, herd_u32 word) {
  if (herd_agent_removed(word)) return p;
  HERD_GLOBAL const float *path = env + e->path_at;
  herd_path_hit hit = herd_path_closest(path, pos);
  p.path_dist += (double)hit.dist_m;
  p.path_end += (herd_u32)herd_path_near_end(path, hit, HERD_PATH_END_FRACTION);
  return p;
}

/* Second pass, once the centroid g is known: the agent farthest from it, and the milling
 * sum (the angular momentum of unit vectors about g). Removed agents take no part. */
HERD_INLINE herd_flock_partial herd_far_add(herd_flock_partial p, herd_vec3 pos, herd_vec3 vel, herd_u32 word,
                                            herd_vec3 g) {
  if (herd_agent_removed(word)) return p;
  herd_vec3 r = herd_v3_sub(pos, g);
  float d2 = herd_v3_len2(r);
  herd_u32 id = herd_agent_id(word);
  if (herd_farther(d2, id, p.far_d2, p.far_id)) {
    p.far_d2 = d2;
    p.far_id = id;
    p.far_x = pos.x;
    p.far_y = pos.y;
    p.far_z = pos.z;
  }
  herd_vec3 m = herd_v3_cross(herd_v3_unit(r), herd_v3_unit(vel));
  p.mill_x += (double)m.x;
  p.mill_y += (double)m.y;
  p.mill_z += (double)m.z;
  return p;
}

HERD_INLINE herd_flock_partial herd_far_fold(herd_flock_partial a, herd_flock_partial b) {
  if (herd_farther(b.far_d2, b.far_id, a.far_d2, a.far_id)) {
    a.far_d2 = b.far_d2;
    a.far_id = b.far_id;
    a.far_x = b.far_x;
    a.far_y = b.far_y;
    a.far_z = b.far_z;
  }
  a.mill_x += b.mill_x;
  a.mill_y += b.mill_y;
  a.mill_z += b.mill_z;
  return a;
}

/* The centroid as the second pass measures from it: the same float on every backend. It is
 * the centroid of the `count` agents less the removed ones (of all of them when every one
 * is removed: the sums are then 0). */
HERD_INLINE herd_vec3 herd_partial_centroid(herd_flock_partial p, herd_u32 count) {
  double in_flock = (double)(p.removed < count ? count - p.removed : count);
  return herd_v3((float)(p.sum_x / in_flock), (float)(p.sum_y / in_flock), (float)(p.sum_z / in_flock));
}

#endif
