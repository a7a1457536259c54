/* herd's OpenCL kernels (OpenCL C 1.2). The model math comes from the same headers as the
 * CPU backend; these kernels only arrange it over work-items. One step:
 *   herd_bin -> (copy counts, herd_scan_* -> cell_end) -> herd_scatter -> herd_sort_buckets
 *   -> herd_reorder -> herd_mark_mixed -> herd_step_<model>
 * then the observation: herd_reduce_first -> herd_combine(0) -> herd_reduce_far -> herd_combine(1).
 * Every model of kernels/models/models.h brings its kernel herd_step_<name> (kernels/model.h),
 * and herd_step_batch_<name> for batches of worlds (the batch kernels at the end). A model of
 * HERD_PREPASS_MODELS runs its pre-pass first (kernels/knn_coop.cl: Strömbom's n nearest,
 * several lanes per sheep).
 * State buffers hold float2 per agent in 2D and float4 in 3D (grid.dims says which).
 * The flock's groups: kernels/groups.cl.
 * No work-group collectives, no float atomics: integer atomics only count, and every order
 * that reaches a result is restored or fixed (the stable sort, the fixed reduction tree). */
#include "models/models.h"
#include "reduce.h"

#ifndef HERD_SCAN_GROUP
#define HERD_SCAN_GROUP 256 /* work-items per scan group; each scans 4 values */
#endif
#ifndef HERD_REDUCE_GROUP
#define HERD_REDUCE_GROUP 64 /* work-items per reduction group */
#endif
#define HERD_SCAN_BLOCK (4 * HERD_SCAN_GROUP)
#define HERD_REDUCE_PER_ITEM 64
#define HERD_REDUCE_BLOCK (HERD_REDUCE_GROUP * HERD_REDUCE_PER_ITEM)

/* ---- Sort by bucket --------------------------------------------------------------------- */

__kernel void herd_bin(__global const float *pos, herd_grid grid, __global uint *key, __global uint *count) {
  uint i = get_global_id(0);
  if (i >= grid.count) return;
  uint b = herd_bucket_at(&grid, herd_load_vec(pos, i, grid.dims));
  key[i] = b;
  atomic_inc(&count[b]);
}

/* Inclusive scan of each block of HERD_SCAN_BLOCK values in place; block totals to sums. */
__kernel __attribute__((reqd_work_group_size(HERD_SCAN_GROUP, 1, 1))) void herd_scan_blocks(__global uint *data, uint n,
                                                                                            __global uint *sums) {
  __local uint totals[HERD_SCAN_GROUP];
  uint t = get_local_id(0), base = get_group_id(0) * HERD_SCAN_BLOCK + 4u * t;
  uint v[4], run = 0;
  for (uint k = 0; k < 4u; ++k) {
    v[k] = base + k < n ? data[base + k] : 0u;
    run += v[k];
    v[k] = run;
  }
  totals[t] = run;
  barrier(CLK_LOCAL_MEM_FENCE);
  /* Hillis-Steele over the per-item totals. */
  for (uint step = 1; step < HERD_SCAN_GROUP; step <<= 1) {
    uint add = t >= step ? totals[t - step] : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    totals[t] += add;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  uint before = t > 0 ? totals[t - 1] : 0u;
  for (uint k = 0; k < 4u; ++k)
    if (base + k < n) data[base + k] = v[k] + before;
  if (t == HERD_SCAN_GROUP - 1) sums[get_group_id(0)] = totals[t];
}

/* Adds the scanned totals of all earlier blocks to each block after the first. */
__kernel void herd_scan_add(__global uint *data, uint n, __global const uint *scanned_sums) {
  uint i = get_global_id(0), block = i / HERD_SCAN_BLOCK;
  if (i < n && block > 0) data[i] += scanned_sums[block - 1];
}

/* Places each agent in its bucket; the order inside a bucket is fixed by herd_sort_buckets. */
__kernel void herd_scatter(__global const uint *key, __global const uint *cell_end, __global uint *count,
                           __global uint *order, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  uint b = key[i];
  order[(cell_end[b] & HERD_BUCKET_END_MASK) - atomic_dec(&count[b])] = i;
}

/* Restores the previous order inside each bucket: a stable sort, whatever order the
 * atomics chose. Buckets hold a few agents, so insertion sort. */
__kernel void herd_sort_buckets(__global const uint *cell_end, __global uint *order, uint buckets) {
  uint b = get_global_id(0);
  if (b >= buckets) return;
  uint begin = herd_bucket_begin(cell_end, b), end = herd_bucket_end(cell_end, b);
  for (uint i = begin + 1; i < end; ++i) {
    uint v = order[i], j = i;
    while (j > begin && order[j - 1] > v) {
      order[j] = order[j - 1];
      --j;
    }
    order[j] = v;
  }
}

__kernel void herd_reorder(__global const uint *order, __global const float *pos, __global const float *vel,
                           __global const uint *agent, __global float *out_pos, __global float *out_vel,
                           __global uint *out_agent, uint n, uint dims) {
  uint i = get_global_id(0);
  if (i >= n) return;
  uint from = order[i];
  if (dims == 2u) {
    vstore2(vload2(from, pos), i, out_pos);
    vstore2(vload2(from, vel), i, out_vel);
  } else {
    vstore4(vload4(from, pos), i, out_pos);
    vstore4(vload4(from, vel), i, out_vel);
  }
  out_agent[i] = agent[from];
}

/* Flags each bucket holding more than one cell (see grid.h). */
__kernel void herd_mark_mixed(__global const float *pos, herd_grid grid, __global uint *cell_end) {
  uint i = get_global_id(0);
  if (i == 0 || i >= grid.count) return;
  herd_cell here = herd_cell_of(&grid, herd_load_vec(pos, i, grid.dims));
  herd_cell before = herd_cell_of(&grid, herd_load_vec(pos, i - 1u, grid.dims));
  uint b = herd_bucket_of_cell(&grid, here);
  if (b != herd_bucket_of_cell(&grid, before) || herd_same_cell(here, before)) return;
  atomic_or(&cell_end[b], HERD_BUCKET_MIXED);
}

/* ---- The observation -------------------------------------------------------------------- */

/* Folds tree[0..HERD_REDUCE_GROUP) into tree[0] in a fixed order. `far` picks the fold. */
void herd_tree_fold(__local herd_flock_partial *tree, uint t, uint steer_count, int far) {
  for (uint s = HERD_REDUCE_GROUP / 2; s > 0; s >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t < s)
      tree[t] = far ? herd_far_fold(tree[t], tree[t + s]) : herd_partial_fold(tree[t], tree[t + s], steer_count);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

/* First pass: one partial per block of HERD_REDUCE_BLOCK agents; item t takes every
 * HERD_REDUCE_GROUP-th agent of the block from t. */
__kernel __attribute__((reqd_work_group_size(HERD_REDUCE_GROUP, 1, 1))) void herd_reduce_first(
    __global const float *pos, __global const float *vel, __global const uint *agent, herd_grid grid,
    __global const float *steer, uint steer_count, herd_step_info info, __global const float *env,
    __global herd_flock_partial *partials) {
  __local herd_flock_partial tree[HERD_REDUCE_GROUP];
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
  herd_tree_fold(tree, t, steer_count, 0);
  if (t == 0) partials[get_group_id(0)] = tree[0];
}

/* Second pass: the agent farthest from the centroid of the first pass's total, and the
 * milling sum. */
__kernel __attribute__((reqd_work_group_size(HERD_REDUCE_GROUP, 1, 1))) void herd_reduce_far(
    __global const float *pos, __global const float *vel, __global const uint *agent, herd_grid grid,
    __global const herd_flock_partial *total, __global herd_flock_partial *partials) {
  __local herd_flock_partial tree[HERD_REDUCE_GROUP];
  uint t = get_local_id(0), base = get_group_id(0) * HERD_REDUCE_BLOCK;
  float3 g = herd_partial_centroid(total[0], grid.count);
  herd_flock_partial p = herd_partial_empty();
  for (uint k = 0; k < HERD_REDUCE_PER_ITEM; ++k) {
    uint i = base + k * HERD_REDUCE_GROUP + t;
    if (i < grid.count)
      p = herd_far_add(p, herd_load_vec(pos, i, grid.dims), herd_load_vec(vel, i, grid.dims), agent[i], g);
  }
  tree[t] = p;
  herd_tree_fold(tree, t, 0, 1);
  if (t == 0) partials[get_group_id(0)] = tree[0];
}

/* One group folds all partials into total[0]: pass 0 the first-pass fields, pass 1 the
 * farthest agent and the milling sum (keeping the first-pass fields). */
__kernel __attribute__((reqd_work_group_size(HERD_REDUCE_GROUP, 1, 1))) void herd_combine(
    __global const herd_flock_partial *partials, uint count, uint steer_count, int far,
    __global herd_flock_partial *total) {
  __local herd_flock_partial tree[HERD_REDUCE_GROUP];
  uint t = get_local_id(0);
  herd_flock_partial p = herd_partial_empty();
  for (uint k = t; k < count; k += HERD_REDUCE_GROUP)
    p = far ? herd_far_fold(p, partials[k]) : herd_partial_fold(p, partials[k], steer_count);
  tree[t] = p;
  herd_tree_fold(tree, t, steer_count, far);
  if (t != 0) return;
  if (far) {
    herd_flock_partial all = total[0];
    all = herd_far_fold(all, tree[0]);
    total[0] = all;
  } else {
    total[0] = tree[0];
  }
}

/* ---- Batches: many worlds laid end to end (kernels/model.h, herd_world) ----------------------
 * The sort runs over every world at once with each world's buckets in a range of its own
 * (bucket_base), so each world is sorted exactly as alone; the kernels above then serve as
 * they are, and the ones below are the per-world variants. */

/* The world of a batch's bucket b: the last world whose buckets start at or before b. */
uint herd_world_of_bucket(__global const herd_world *worlds, uint count, uint b) {
  uint lo = 0, hi = count;
  while (hi - lo > 1u) {
    uint mid = (lo + hi) / 2u;
    if (worlds[mid].bucket_base <= b)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

__kernel void herd_bin_batch(__global const float *pos, __global const herd_world *worlds,
                             __global const uint *world_of, uint total, __global uint *key, __global uint *count) {
  uint i = get_global_id(0);
  if (i >= total) return;
  herd_world world = worlds[world_of[i]];
  uint b = world.bucket_base + herd_bucket_at(&world.grid, herd_load_vec(pos, i, world.grid.dims));
  key[i] = b;
  atomic_inc(&count[b]);
}

/* Each world's cell ends made relative to its first agent, as a world alone has them. */
__kernel void herd_relative_ends(__global uint *cell_end, __global const herd_world *worlds, uint count, uint buckets) {
  uint b = get_global_id(0);
  if (b >= buckets) return;
  cell_end[b] -= worlds[herd_world_of_bucket(worlds, count, b)].begin;
}

__kernel void herd_mark_mixed_batch(__global const float *pos, __global const herd_world *worlds,
                                    __global const uint *world_of, uint total, __global uint *cell_end) {
  uint i = get_global_id(0);
  if (i >= total) return;
  herd_world world = worlds[world_of[i]];
  if (i == world.begin) return;
  herd_cell here = herd_cell_of(&world.grid, herd_load_vec(pos, i, world.grid.dims));
  herd_cell before = herd_cell_of(&world.grid, herd_load_vec(pos, i - 1u, world.grid.dims));
  uint b = herd_bucket_of_cell(&world.grid, here);
  if (b != herd_bucket_of_cell(&world.grid, before) || herd_same_cell(here, before)) return;
  atomic_or(&cell_end[world.bucket_base + b], HERD_BUCKET_MIXED);
}

/* First pass, per world: group g is block g - block_base of world block_world[g], summed as
 * herd_reduce_first sums that block of the world alone. */
__kernel __attribute__((reqd_work_group_size(HERD_REDUCE_GROUP, 1, 1))) void herd_reduce_first_batch(
    __global const float *pos, __global const float *vel, __global const uint *agent, __global const herd_world *worlds,
    __global const uint *block_world, __global const float *steer, __global const float *env,
    __global herd_flock_partial *partials) {
  __local herd_flock_partial tree[HERD_REDUCE_GROUP];
  uint t = get_local_id(0), g = get_group_id(0);
  herd_world world = worlds[block_world[g]];
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
  herd_tree_fold(tree, t, count, 0);
  if (t == 0) partials[g] = tree[0];
}

__kernel __attribute__((reqd_work_group_size(HERD_REDUCE_GROUP, 1, 1))) void herd_reduce_far_batch(
    __global const float *pos, __global const float *vel, __global const uint *agent, __global const herd_world *worlds,
    __global const uint *block_world, __global const herd_flock_partial *totals,
    __global herd_flock_partial *partials) {
  __local herd_flock_partial tree[HERD_REDUCE_GROUP];
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
  herd_tree_fold(tree, t, 0, 1);
  if (t == 0) partials[g] = tree[0];
}

/* One group per world folds that world's partials into totals[w], as herd_combine does. */
__kernel __attribute__((reqd_work_group_size(HERD_REDUCE_GROUP, 1, 1))) void herd_combine_batch(
    __global const herd_flock_partial *partials, __global const herd_world *worlds, int far,
    __global herd_flock_partial *totals) {
  __local herd_flock_partial tree[HERD_REDUCE_GROUP];
  uint t = get_local_id(0), w = get_group_id(0);
  herd_world world = worlds[w];
  uint count = world.info.steering_count;
  herd_flock_partial p = herd_partial_empty();
  for (uint k = t; k < world.blocks; k += HERD_REDUCE_GROUP)
    p = far ? herd_far_fold(p, partials[world.block_base + k])
            : herd_partial_fold(p, partials[world.block_base + k], count);
  tree[t] = p;
  herd_tree_fold(tree, t, count, far);
  if (t != 0) return;
  if (far) {
    herd_flock_partial all = totals[w];
    all = herd_far_fold(all, tree[0]);
    totals[w] = all;
  } else {
    totals[w] = tree[0];
  }
}

/* ---- For tests and analysis ------------------------------------------------------------- */

/* The k nearest of every sorted agent (2D), ascending by (distance, index): row i of `out`
 * (k entries, 0xffffffff past the end) lists sorted indices. */
__kernel void herd_knn(__global const float2 *pos, __global const uint *cell_end, herd_grid grid, uint k,
                       __global uint *out) {
  uint i = get_global_id(0);
  if (i >= grid.count) return;
  herd_neighbour best[HERD_MAX_NEIGHBOURS];
  uint found = herd_grid_knn(&grid, pos, cell_end, i, best, k);
  /* The selection is a heap: sort it (selection sort, k is small) for a canonical row. */
  for (uint a = 0; a < found; ++a) {
    uint m = a;
    for (uint c = a + 1; c < found; ++c)
      if (herd_neighbour_before(best[c].d2, best[c].j, best[m].d2, best[m].j)) m = c;
    herd_neighbour t = best[a];
    best[a] = best[m];
    best[m] = t;
    out[(size_t)i * k + a] = best[a].j;
  }
  for (uint a = found; a < k; ++a) out[(size_t)i * k + a] = 0xffffffffu;
}

#include "groups.cl"
#include "knn_coop.cl"
