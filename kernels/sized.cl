/* The second OpenCL program (kernels/herd.cl has the first): the kernels whose code depends on
 * the simulation's own sizes, built with them as options:
 *   HERD_REDUCE_STEERING  the steering agents the observation's partials hold (kernels/reduce.h)
 *   HERD_COOP_LANES       the pre-pass's lanes per agent (kernels/knn_coop.h)
 *   HERD_REDUCE_PER_ITEM  the observation's agents per work-item, chosen from the flock's size
 * The observation (herd_reduce_first -> herd_reduce_far, and their batch variants) and the
 * models' pre-passes (kernels/knn_coop.cl). The step kernels are the main program's: here the
 * models' headers give their functions only. */
#define HERD_NO_STEP_KERNELS
#include "models/steps.h"
#include "reduce.h"

#ifndef HERD_REDUCE_GROUP
#define HERD_REDUCE_GROUP 32 /* work-items per reduction group */
#endif
#ifndef HERD_REDUCE_PER_ITEM
#define HERD_REDUCE_PER_ITEM 64 /* agents per work-item: the host's herd_cl_reduce_per_item */
#endif
#define HERD_REDUCE_BLOCK (HERD_REDUCE_GROUP * HERD_REDUCE_PER_ITEM)

/* ---- The observation --------------------------------------------------------------------
 * A group's items each fold their agents into their own partial, tree[t] in local memory;
 * the tree folds them, the last group to finish folds every group's (herd_fold_last). The
 * partials are folded in place field by field (kernels/reduce.h's HERD_FOLD_*): a copy of a
 * whole partial (496 B with 16 steering agents) through registers is what made these kernels
 * need 250 of a GPU's 255 registers. Local memory: HERD_REDUCE_GROUP partials, 15.9 KB with
 * 16 steering agents (the margin under OpenCL's 32 KiB: tests/gpu_compile.py). */

/* b folded into a, in local memory: the second pass's fields (`far`) or the first's. */
HERD_INLINE void herd_fold_local(__local herd_flock_partial *a, __local const herd_flock_partial *b, uint steer_count,
                                 int far) {
  if (far)
    HERD_FOLD_FAR(*a, *b);
  else
    HERD_FOLD_PARTIAL(*a, *b, steer_count);
}

/* Folds tree[0..HERD_REDUCE_GROUP) into tree[0] in a fixed order. The last barrier fences
 * global memory too: what the items read of it before (the centroid in *total) is then read
 * before item 0 writes there. */
HERD_INLINE void herd_tree_fold(__local herd_flock_partial *tree, uint t, uint steer_count, int far) {
  for (uint s = HERD_REDUCE_GROUP / 2; s > 0; s >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t < s) herd_fold_local(tree + t, tree + t + s, steer_count, far);
  }
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}

/* The end of a reduction pass, one launch for the whole: each group folds its items' partials
 * (tree[t] holds item t's; `last` is the group's, as OpenCL C 1.2 declares local variables
 * only in kernels) and writes the result to partials[first + `group`]; the last of the
 * `groups` groups to do so (a ticket from an integer atomic) folds all of them, in index order,
 * into *total (pass 0: the first-pass fields, replacing it; pass 1: the farthest agent and the
 * milling sum, keeping the rest) and sets the ticket back to 0 for the next pass. The sums are
 * integers and the picks break ties by id, so which group comes last changes nothing.
 * Each group's write is fenced before its ticket and read back through a volatile pointer, so
 * the last group sees every partial (the threadfence reduction of CUDA's samples; OpenCL 1.2
 * does not promise it across groups, every GPU keeps it: docs/opencl.md); the condition is
 * uniform in the group, so every barrier is reached by all of its items or none. */
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
  tree[t] = herd_partial_empty();
  for (uint k = t; k < groups; k += HERD_REDUCE_GROUP) {
    if (far)
      HERD_FOLD_FAR(tree[t], seen[k]);
    else
      HERD_FOLD_PARTIAL(tree[t], seen[k], steer_count);
  }
  herd_tree_fold(tree, t, steer_count, far);
  if (t != 0) return;
  if (far)
    HERD_FOLD_FAR(*total, tree[0]);
  else
    *total = tree[0];
  *ticket = 0u;
}

/* First pass: item t's partial of agents base + k * HERD_REDUCE_GROUP + t (k below
 * HERD_REDUCE_PER_ITEM) of a world of grid->count agents, into *mine. The sums in registers,
 * then the path's distances and the nearest entries, each in a loop of its own, into *mine in
 * place: all three live in one loop need more registers than a GPU gives a work-item
 * (tests/gpu_compile.py). */
HERD_INLINE void herd_first_pass_item(__local herd_flock_partial *mine, __global const float *pos,
                                      __global const float *vel, __global const uint *agent, const herd_grid *grid,
                                      __global const float *steer, uint steer_count, const herd_step_info *info,
                                      __global const float *env, uint base, uint t) {
  herd_vec3 goal = herd_v3(info->goal[0], info->goal[1], info->goal[2]);
  herd_flock_partial p = herd_partial_empty();
  int heading = !(info->unobserved & HERD_REDUCE_HEADING);
  for (uint k = 0; k < HERD_REDUCE_PER_ITEM; ++k) {
    uint i = base + k * HERD_REDUCE_GROUP + t;
    if (i >= grid->count) break;
    herd_vec3 at = herd_load_vec(pos, i, grid->dims);
    herd_partial_add_flock(&p, at, herd_load_vec(vel, i, grid->dims), agent[i],
                           herd_env_in_goal(env, &info->env, at, goal, info->goal_radius_m), heading);
  }
  *mine = p;
  if (info->env.has_path) {
    herd_flock_partial q = herd_partial_empty();
    for (uint k = 0; k < HERD_REDUCE_PER_ITEM; ++k) {
      uint i = base + k * HERD_REDUCE_GROUP + t;
      if (i >= grid->count) break;
      herd_partial_add_path(&q, env, &info->env, herd_load_vec(pos, i, grid->dims), agent[i]);
    }
    HERD_FOLD_PATH(*mine, q);
  }
  for (uint k = 0; k < HERD_REDUCE_PER_ITEM; ++k) {
    uint i = base + k * HERD_REDUCE_GROUP + t;
    if (i >= grid->count) break;
    HERD_PARTIAL_ADD_NEAR(mine->near, grid, steer, steer_count, herd_load_vec(pos, i, grid->dims), agent[i]);
  }
}

/* Second pass: item t's farthest agent from the centroid g and milling sum, into *mine; then,
 * with `sectors`, its sectors, in a loop of their own into *mine in place (a private array of
 * them, indexed by each agent's sector, would live in a GPU's local memory). */
HERD_INLINE void herd_far_pass_item(__local herd_flock_partial *mine, __global const float *pos,
                                    __global const float *vel, __global const uint *agent, const herd_grid *grid,
                                    herd_vec3 g, uint sectors, uint base, uint t) {
  herd_flock_partial p = herd_partial_empty();
  for (uint k = 0; k < HERD_REDUCE_PER_ITEM; ++k) {
    uint i = base + k * HERD_REDUCE_GROUP + t;
    if (i >= grid->count) break;
    herd_far_add(&p, herd_load_vec(pos, i, grid->dims), herd_load_vec(vel, i, grid->dims), agent[i], g);
  }
  *mine = p;
  if (!sectors) return;
  for (uint k = 0; k < HERD_REDUCE_PER_ITEM; ++k) {
    uint i = base + k * HERD_REDUCE_GROUP + t;
    if (i >= grid->count) break;
    herd_vec3 at = herd_load_vec(pos, i, grid->dims);
    HERD_SECTOR_ADD(mine->sector, at, agent[i], g);
  }
}

/* First pass: one partial per block of HERD_REDUCE_BLOCK agents; the last group leaves the
 * total. */
__kernel __attribute__((reqd_work_group_size(HERD_REDUCE_GROUP, 1, 1))) void herd_reduce_first(
    __global const float *pos, __global const float *vel, __global const uint *agent, herd_grid grid,
    __global const float *steer, uint steer_count, herd_step_info info, __global const float *env,
    __global herd_flock_partial *partials, __global uint *ticket, __global herd_flock_partial *total) {
  __local herd_flock_partial tree[HERD_REDUCE_GROUP];
  __local int last;
  uint t = get_local_id(0);
  herd_first_pass_item(tree + t, pos, vel, agent, &grid, steer, steer_count, &info, env,
                       get_group_id(0) * HERD_REDUCE_BLOCK, t);
  herd_fold_last(tree, &last, t, steer_count, 0, partials, 0, get_group_id(0), get_num_groups(0), ticket, total);
}

/* Second pass: the agent farthest from the centroid of the first pass's total, the milling sum
 * and, with `sectors`, the sectors; the last group folds them into the total. */
__kernel __attribute__((reqd_work_group_size(HERD_REDUCE_GROUP, 1, 1))) void herd_reduce_far(
    __global const float *pos, __global const float *vel, __global const uint *agent, herd_grid grid,
    __global herd_flock_partial *total, __global herd_flock_partial *partials, __global uint *ticket, uint sectors) {
  __local herd_flock_partial tree[HERD_REDUCE_GROUP];
  __local int last;
  uint t = get_local_id(0);
  herd_far_pass_item(tree + t, pos, vel, agent, &grid, HERD_PARTIAL_CENTROID(*total, grid.count), sectors,
                     get_group_id(0) * HERD_REDUCE_BLOCK, t);
  herd_fold_last(tree, &last, t, 0, 1, partials, 0, get_group_id(0), get_num_groups(0), ticket, total);
}

/* ---- Batches: many worlds laid end to end (kernels/model.h, herd_world) ----------------------
 * Group g is block g - block_base of world block_world[g], summed as the kernels above sum that
 * block of the world alone; the world's last group leaves its total in totals[w] (tickets[w]
 * counts the world's groups). */

__kernel __attribute__((reqd_work_group_size(HERD_REDUCE_GROUP, 1, 1))) void herd_reduce_first_batch(
    __global const float *pos, __global const float *vel, __global const uint *agent, __global const herd_world *worlds,
    __global const uint *block_world, __global const float *steer, __global const float *env,
    __global herd_flock_partial *partials, __global uint *tickets, __global herd_flock_partial *totals) {
  __local herd_flock_partial tree[HERD_REDUCE_GROUP];
  __local int last;
  uint t = get_local_id(0), g = get_group_id(0), w = block_world[g];
  herd_world world = worlds[w];
  uint at = world.begin * (world.grid.dims == 2u ? 2u : 4u), count = world.info.steering_count;
  herd_first_pass_item(tree + t, pos + at, vel + at, agent + world.begin, &world.grid,
                       steer + HERD_STEER_FLOATS * world.steer_base, count, &world.info, env + world.env_base,
                       (g - world.block_base) * HERD_REDUCE_BLOCK, t);
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
  uint at = world.begin * (world.grid.dims == 2u ? 2u : 4u);
  herd_far_pass_item(tree + t, pos + at, vel + at, agent + world.begin, &world.grid,
                     HERD_PARTIAL_CENTROID(totals[w], world.grid.count), 1u /* a batch reduces every part */,
                     (g - world.block_base) * HERD_REDUCE_BLOCK, t);
  herd_fold_last(tree, &last, t, 0, 1, partials, world.block_base, g - world.block_base, world.blocks, tickets + w,
                 totals + w);
}

#include "knn_coop.cl"
