/* The second OpenCL program (kernels/herd.cl has the first): the kernels whose code depends on
 * the simulation's own sizes, built with them as options:
 *   HERD_REDUCE_STEERING  the steering agents the observation's partials hold (kernels/reduce.h)
 *   HERD_COOP_LANES       the pre-pass's lanes per agent (kernels/knn_coop.h)
 * The observation (herd_reduce_first -> herd_reduce_far, and their batch variants) and the
 * models' pre-passes (kernels/knn_coop.cl). The step kernels are the main program's: here the
 * models' headers give their functions only. */
#define HERD_NO_STEP_KERNELS
#include "models/models.h"
#include "reduce.h"

#ifndef HERD_REDUCE_GROUP
#define HERD_REDUCE_GROUP 64 /* work-items per reduction group */
#endif
#define HERD_REDUCE_PER_ITEM 64
#define HERD_REDUCE_BLOCK (HERD_REDUCE_GROUP * HERD_REDUCE_PER_ITEM)

/* ---- The observation -------------------------------------------------------------------- */

/* Folds tree[0..HERD_REDUCE_GROUP) into tree[0] in a fixed order. `far` picks the fold. */
HERD_INLINE void herd_tree_fold(__local herd_flock_partial *tree, uint t, uint steer_count, int far) {
  for (uint s = HERD_REDUCE_GROUP / 2; s > 0; s >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t < s)
      tree[t] = far ? herd_far_fold(tree[t], tree[t + s]) : herd_partial_fold(tree[t], tree[t + s], steer_count);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

/* The end of a reduction pass, one launch for the whole: each group folds its items' partials
 * (tree[t] holds item t's; `last` is the group's, as OpenCL C 1.2 declares local variables
 * only in kernels) and writes the result to partials[first + `group`]; the last of the
 * `groups` groups to do so (a ticket from an integer atomic) folds all of them, in index order,
 * into *total (pass 0: the first-pass fields, replacing it; pass 1: the farthest agent and the
 * milling sum, keeping the rest) and sets the ticket back to 0 for the next pass. The sums are
 * integers and the picks break ties by id, so which group comes last changes nothing.
 * Each group's write is fenced before its ticket and read back through a volatile pointer, so
 * the last group sees every partial (the threadfence reduction of CUDA's samples); the
 * condition is uniform in the group, so every barrier is reached by all of its items or none. */
HERD_INLINE void herd_fold_last(__local herd_flock_partial *tree, __local int *last, uint t, uint steer_count, int far,
                                __global herd_flock_partial *partials, uint first, uint group, uint groups,
                                volatile __global uint *ticket, __global herd_flock_partial *total) {
  herd_tree_fold(tree, t, steer_count, far);
  if (t == 0) {
    partials[first + group] = tree[0];
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    *last = atomic_inc(ticket) == groups - 1u;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (!*last) return;
  volatile __global const herd_flock_partial *seen = partials + first;
  herd_flock_partial p = herd_partial_empty();
  for (uint k = t; k < groups; k += HERD_REDUCE_GROUP) {
    herd_flock_partial q = seen[k];
    p = far ? herd_far_fold(p, q) : herd_partial_fold(p, q, steer_count);
  }
  tree[t] = p;
  herd_tree_fold(tree, t, steer_count, far);
  if (t != 0) return;
  *total = far ? herd_far_fold(*total, tree[0]) : tree[0];
  *ticket = 0u;
}

/* First pass: one partial per block of HERD_REDUCE_BLOCK agents; item t takes every
 * HERD_REDUCE_GROUP-th agent of the block from t. The last group leaves the total. */
__kernel __attribute__((reqd_work_group_size(HERD_REDUCE_GROUP, 1, 1))) void herd_reduce_first(
    __global const float *pos, __global const float *vel, __global const uint *agent, herd_grid grid,
    __global const float *steer, uint steer_count, herd_step_info info, __global const float *env,
    __global herd_flock_partial *partials, __global uint *ticket, __global herd_flock_partial *total) {
  __local herd_flock_partial tree[HERD_REDUCE_GROUP];
  __local int last;
  uint t = get_local_id(0), base = get_group_id(0) * HERD_REDUCE_BLOCK;
  float3 goal = (float3)(info.goal[0], info.goal[1], info.goal[2]);
  herd_flock_partial p = herd_partial_empty();
  for (uint k = 0; k < HERD_REDUCE_PER_ITEM; ++k) {
    uint i = base + k * HERD_REDUCE_GROUP + t;
    if (i < grid.count)
      p = herd_partial_add(
          p, &grid, herd_load_vec(pos, i, grid.dims), herd_load_vec(vel, i, grid.dims), agent[i], steer, steer_count,
          herd_env_in_goal(env, &info.env, herd_load_vec(pos, i, grid.dims), goal, info.goal_radius_m));
    if (i < grid.count && info.env.has_path)
      p = herd_partial_add_path(p, env, &info.env, herd_load_vec(pos, i, grid.dims), agent[i]);
  }
  tree[t] = p;
  herd_fold_last(tree, &last, t, steer_count, 0, partials, 0, get_group_id(0), get_num_groups(0), ticket, total);
}

/* Second pass: the agent farthest from the centroid of the first pass's total, and the
 * milling sum; the last group folds them into the total. */
__kernel __attribute__((reqd_work_group_size(HERD_REDUCE_GROUP, 1, 1))) void herd_reduce_far(
    __global const float *pos, __global const float *vel, __global const uint *agent, herd_grid grid,
    __global herd_flock_partial *total, __global herd_flock_partial *partials, __global uint *ticket) {
  __local herd_flock_partial tree[HERD_REDUCE_GROUP];
  __local int last;
  uint t = get_local_id(0), base = get_group_id(0) * HERD_REDUCE_BLOCK;
  float3 g = herd_partial_centroid(*total, grid.count);
  herd_flock_partial p = herd_partial_empty();
  for (uint k = 0; k < HERD_REDUCE_PER_ITEM; ++k) {
    uint i = base + k * HERD_REDUCE_GROUP + t;
    if (i < grid.count)
      p = herd_far_add(p, herd_load_vec(pos, i, grid.dims), herd_load_vec(vel, i, grid.dims), agent[i], g);
  }
  tree[t] = p;
  herd_fold_last(tree, &last, t, 0, 1, partials, 0, get_group_id(0), get_num_groups(0), ticket, total);
}

/* ---- Batches: many worlds laid end to end (kernels/model.h, herd_world) ---------------------- */

/* First pass, per world: group g is block g - block_base of world block_world[g], summed as
 * herd_reduce_first sums that block of the world alone; the world's last group leaves its
 * total in totals[w] (tickets[w] counts the world's groups). */
__kernel __attribute__((reqd_work_group_size(HERD_REDUCE_GROUP, 1, 1))) void herd_reduce_first_batch(
    __global const float *pos, __global const float *vel, __global const uint *agent, __global const herd_world *worlds,
    __global const uint *block_world, __global const float *steer, __global const float *env,
    __global herd_flock_partial *partials, __global uint *tickets, __global herd_flock_partial *totals) {
  __local herd_flock_partial tree[HERD_REDUCE_GROUP];
  __local int last;
  uint t = get_local_id(0), g = get_group_id(0), w = block_world[g];
  herd_world world = worlds[w];
  uint base = (g - world.block_base) * HERD_REDUCE_BLOCK, count = world.info.steering_count;
  __global const float *pos_w = pos + world.begin * (world.grid.dims == 2u ? 2u : 4u);
  __global const float *vel_w = vel + world.begin * (world.grid.dims == 2u ? 2u : 4u);
  __global const float *steer_w = steer + HERD_STEER_FLOATS * world.steer_base;
  float3 goal = (float3)(world.info.goal[0], world.info.goal[1], world.info.goal[2]);
  herd_flock_partial p = herd_partial_empty();
  for (uint k = 0; k < HERD_REDUCE_PER_ITEM; ++k) {
    uint i = base + k * HERD_REDUCE_GROUP + t;
    if (i < world.grid.count)
      p = herd_partial_add(p, &world.grid, herd_load_vec(pos_w, i, world.grid.dims),
                           herd_load_vec(vel_w, i, world.grid.dims), agent[world.begin + i], steer_w, count,
                           herd_env_in_goal(env + world.env_base, &world.info.env,
                                            herd_load_vec(pos_w, i, world.grid.dims), goal, world.info.goal_radius_m));
    if (i < world.grid.count && world.info.env.has_path)
      p = herd_partial_add_path(p, env + world.env_base, &world.info.env, herd_load_vec(pos_w, i, world.grid.dims),
                                agent[world.begin + i]);
  }
  tree[t] = p;
  herd_fold_last(tree, &last, t, count, 0, partials, world.block_base, g - world.block_base, world.blocks, tickets + w,
                 totals + w);
}

__kernel __attribute__((reqd_work_group_size(HERD_REDUCE_GROUP, 1, 1))) void herd_reduce_far_batch(
    __global const float *pos, __global const float *vel, __global const uint *agent, __global const herd_world *worlds,
    __global const uint *block_world, __global herd_flock_partial *totals, __global herd_flock_partial *partials,
    __global uint *tickets) {
  __local herd_flock_partial tree[HERD_REDUCE_GROUP];
  __local int last;
  uint t = get_local_id(0), g = get_group_id(0), w = block_world[g];
  herd_world world = worlds[w];
  uint base = (g - world.block_base) * HERD_REDUCE_BLOCK, stride = world.grid.dims == 2u ? 2u : 4u;
  float3 centre = herd_partial_centroid(totals[w], world.grid.count);
  herd_flock_partial p = herd_partial_empty();
  for (uint k = 0; k < HERD_REDUCE_PER_ITEM; ++k) {
    uint i = base + k * HERD_REDUCE_GROUP + t;
    if (i < world.grid.count)
      p = herd_far_add(p, herd_load_vec(pos + world.begin * stride, i, world.grid.dims),
                       herd_load_vec(vel + world.begin * stride, i, world.grid.dims), agent[world.begin + i], centre);
  }
  tree[t] = p;
  herd_fold_last(tree, &last, t, 0, 1, partials, world.block_base, g - world.block_base, world.blocks, tickets + w,
                 totals + w);
}

#include "knn_coop.cl"
