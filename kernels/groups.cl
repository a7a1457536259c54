/* The flock's groups on the device (kernels/groups.h has the math and the reasons), over the
 * state sorted for the grid of its current positions. The host runs, in order:
 *   herd_groups_start -> herd_groups_star -> herd_groups_hook -> herd_groups_compress (raw)
 *   [herd_groups_raw_sums -> herd_groups_mark_outside -> herd_groups_start_final
 *    -> herd_groups_star, herd_groups_hook (by side) -> herd_groups_compress]  (compact area)
 *   herd_groups_count -> herd_groups_roots, read back: the list of groups
 *   herd_groups_sum -> herd_groups_far_max -> herd_groups_far_id -> herd_groups_far_pos, read back
 * Kernels that sum take HERD_GROUP_RUN consecutive sorted agents per work-item, adding once
 * per run of one group; the others one agent. Only 32-bit atomics. */
#include "groups.h"

#define HERD_GROUP_RUN 32u

/* The sorted flock and its grid, first in every kernel that reads positions. */
#define HERD_GROUP_VIEW_ARGS                                                                                       \
  __global const float *pos, __global const float *vel, __global const uint *agent, __global const uint *cell_end, \
      herd_grid grid
#define HERD_GROUP_VIEW(v) \
  herd_group_view v;       \
  v.grid = &grid, v.pos = pos, v.vel = vel, v.agent = agent, v.cell_end = cell_end

/* This work-item's run of sorted agents, [begin, end); false when past the flock. */
HERD_INLINE int herd_group_run(uint count, uint *begin, uint *end) {
  *begin = get_global_id(0) * HERD_GROUP_RUN;
  *end = *begin + HERD_GROUP_RUN < count ? *begin + HERD_GROUP_RUN : count;
  return *begin < count;
}

HERD_SIMPLE_KERNEL void herd_groups_start(__global const uint *agent, uint n, __global uint *raw) {
  uint s = get_global_id(0);
  if (s < n) raw[s] = herd_group_start_label(agent, s);
}

/* Each cell one tree, where one link per cell holds: before herd_groups_hook, with its
 * arguments. */
HERD_SIMPLE_KERNEL void herd_groups_star(HERD_GROUP_VIEW_ARGS, float view_radius_m, __global const uint *raw,
                                         int by_side, __global uint *parent) {
  uint s = get_global_id(0);
  if (s >= grid.count) return;
  HERD_GROUP_VIEW(v);
  herd_group_star(&v, view_radius_m, raw, by_side, parent, s);
}

/* by_side 0: every link, into parent (raw may be any buffer); 1: links within one side of a
 * split raw group (raw: the raw labels), into the final labels. */
HERD_SIMPLE_KERNEL void herd_groups_hook(HERD_GROUP_VIEW_ARGS, float view_radius_m, __global const uint *raw,
                                         int by_side, __global uint *parent) {
  uint s = get_global_id(0);
  if (s >= grid.count) return;
  HERD_GROUP_VIEW(v);
  herd_group_hook(&v, view_radius_m, raw, by_side, parent, s);
}

HERD_SIMPLE_KERNEL void herd_groups_compress(__global uint *parent, uint n) {
  uint s = get_global_id(0);
  if (s < n) herd_group_compress(parent, s);
}

HERD_SIMPLE_KERNEL void herd_groups_raw_sums(HERD_GROUP_VIEW_ARGS, __global const uint *parent, __global uint *count,
                                             __global uint *sums) {
  uint begin, end;
  if (!herd_group_run(grid.count, &begin, &end)) return;
  HERD_GROUP_VIEW(v);
  herd_group_raw_sums(&v, parent, count, sums, begin, end);
}

HERD_SIMPLE_KERNEL void herd_groups_mark_outside(HERD_GROUP_VIEW_ARGS, __global uint *parent, __global uint *count,
                                                 __global const uint *sums, float member_radius_m) {
  uint s = get_global_id(0);
  if (s >= grid.count) return;
  HERD_GROUP_VIEW(v);
  herd_group_mark_outside(&v, parent, count, sums, member_radius_m, s);
}

HERD_SIMPLE_KERNEL void herd_groups_start_final(__global uint *raw, __global const uint *count, __global uint *label,
                                                uint n) {
  uint s = get_global_id(0);
  if (s < n) herd_group_start_final(raw, count, label, s);
}

HERD_SIMPLE_KERNEL void herd_groups_count(__global const uint *agent, __global const uint *label, __global uint *count,
                                          __global uint *first_id, uint n) {
  uint begin, end;
  if (herd_group_run(n, &begin, &end)) herd_group_count(agent, label, count, first_id, begin, end);
}

/* Lists every group's (root, count, first id) after first_id[0..n): a counter, then the
 * triples in whatever order the atomics give (the host sorts). */
HERD_SIMPLE_KERNEL void herd_groups_roots(__global const uint *label, __global const uint *count,
                                          __global uint *first_id, uint n) {
  uint s = get_global_id(0);
  if (s >= n || label[s] != s) return;
  __global uint *list = first_id + n;
  uint k = atomic_inc(&list[0]);
  list[1u + 3u * k] = s;
  list[2u + 3u * k] = count[s];
  list[3u + 3u * k] = first_id[s];
}

HERD_SIMPLE_KERNEL void herd_groups_sum(HERD_GROUP_VIEW_ARGS, __global const uint *label, herd_group_pick pick,
                                        __global uint *slot_by_id, __global herd_group_acc *acc) {
  uint begin, end;
  if (!herd_group_run(grid.count, &begin, &end)) return;
  HERD_GROUP_VIEW(v);
  herd_group_sum_tracked(&v, label, &pick, slot_by_id, acc, begin, end);
}

HERD_SIMPLE_KERNEL void herd_groups_far_max(HERD_GROUP_VIEW_ARGS, __global const uint *label, herd_group_pick pick,
                                            __global herd_group_acc *acc) {
  uint begin, end;
  if (!herd_group_run(grid.count, &begin, &end)) return;
  HERD_GROUP_VIEW(v);
  herd_group_far_max(&v, label, &pick, acc, begin, end);
}

HERD_SIMPLE_KERNEL void herd_groups_far_id(HERD_GROUP_VIEW_ARGS, __global const uint *label, herd_group_pick pick,
                                           __global herd_group_acc *acc) {
  uint s = get_global_id(0);
  if (s >= grid.count) return;
  HERD_GROUP_VIEW(v);
  herd_group_far_id(&v, label, &pick, acc, s);
}

HERD_SIMPLE_KERNEL void herd_groups_far_pos(HERD_GROUP_VIEW_ARGS, __global const uint *slot_by_id,
                                            __global herd_group_acc *acc) {
  uint s = get_global_id(0);
  if (s >= grid.count) return;
  HERD_GROUP_VIEW(v);
  herd_group_far_pos(&v, slot_by_id, acc, s);
}

/* Each agent's slot in the state's own order (herd_sim_map_groups). */
HERD_SIMPLE_KERNEL void herd_groups_map(__global const uint *agent, __global const uint *slot_by_id, uint n,
                                        __global uint *out) {
  uint i = get_global_id(0);
  if (i < n) out[i] = slot_by_id[herd_agent_id(agent[i])];
}
