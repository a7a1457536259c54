/* The Strömbom pre-pass (included by herd.cl; docs/opencl.md): before herd_step_strombom,
 * the sum of the offsets to the n nearest of every sheep near a dog (the step's own test: only
 * those are attracted to their n nearest) into pre[2 i], pre[2 i + 1] (sorted index i,
 * kernels/models/strombom.h's fixed point), by herd_pre_strombom_coop: HERD_COOP_LANES lanes
 * per sheep (kernels/knn_coop.h), each group over its own HERD_COOP_AGENTS sorted sheep. A sheep
 * whose neighbours lie beyond the lanes' reach is marked HERD_PRE_SEARCH in pre[2 i],
 * and the step kernel searches for it itself, one work-item a sheep, as on the CPU. Sorted by
 * cell, the sheep near a dog lie in a few runs of the order: a group past them returns after
 * its test, and no list is gathered (a launch, and a counter every group would contend for).
 * Each entry's result depends on its sheep alone and lands in that sheep's slot. The host may
 * launch it in slices (a global offset). */
#include "knn_coop.h"

__kernel __attribute__((reqd_work_group_size(HERD_COOP_GROUP, 1, 1))) void herd_pre_strombom_coop(
    __global const float2 *pos, __global const uint *agent, __global const uint *cell_end, __global const float *steer,
    herd_strombom_params params, herd_grid grid, herd_step_info info, __global long *pre) {
  __local herd_coop_slot slot[HERD_COOP_AGENTS];
  __local uint hist[HERD_COOP_AGENTS * HERD_COOP_BINS];
  __local uint seen[HERD_COOP_AGENTS];
  __local uint part[HERD_COOP_GROUP]; /* each lane's chunk sum of its agent's bins */
  __local long sum_x[HERD_COOP_GROUP], sum_y[HERD_COOP_GROUP];
  uint t = get_local_id(0), a = t / HERD_COOP_LANES, lane = t % HERD_COOP_LANES;
  /* The group's place from its global id: the host launches slices with a global offset,
   * which get_group_id does not count. */
  uint first = (get_global_id(0) - t) / HERD_COOP_GROUP * HERD_COOP_AGENTS;
  if (first >= grid.count) return; /* the whole group: past the flock's end */
  if (lane == 0u) {
    herd_coop_slot s;
    s.self = first + a;
    int wanted = s.self < grid.count && !herd_agent_removed(agent[s.self]) &&
                 herd_strombom_near_a_dog(pos[s.self], steer, info.steering_count, params.dog_radius_m);
    s.state = wanted ? HERD_COOP_COUNT : HERD_COOP_IDLE;
    s.ring = 0, s.need = 0u, s.depth = 0u, s.prefix = 0ul, s.d1 = INFINITY;
    slot[a] = s;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (;;) {
    int busy = 0;
    for (uint b = 0; b < HERD_COOP_AGENTS; ++b) busy |= herd_coop_busy(slot[b].state);
    if (!busy) break; /* the same for every work-item: all read the same slots */
    herd_coop_slot s = slot[a];
    for (uint d = lane; d < HERD_COOP_BINS; d += HERD_COOP_LANES) hist[a * HERD_COOP_BINS + d] = 0u;
    if (lane == 0u) seen[a] = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (herd_coop_busy(s.state)) {
      uint n = herd_coop_sweep(&grid, pos, cell_end, s, lane, hist + a * HERD_COOP_BINS, 0);
      if (s.state == HERD_COOP_COUNT) atomic_add(&seen[a], n);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* The histogram's walk, shared by the agent's lanes (herd_coop_pick): each lane's chunk
     * sum, then the lane that holds the need-th key advances the agent. */
    int select = herd_coop_busy(s.state) && s.state != HERD_COOP_COUNT;
    if (select) {
      uint c = 0;
      for (uint d = lane * HERD_COOP_CHUNK; d < (lane + 1u) * HERD_COOP_CHUNK; ++d) c += hist[a * HERD_COOP_BINS + d];
      part[t] = c;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    uint digit = 0, below = 0;
    int mine = select ? herd_coop_pick(&s, lane, hist + a * HERD_COOP_BINS, part + a * HERD_COOP_LANES, &digit, &below)
                      : lane == 0u && herd_coop_busy(s.state);
    if (mine) {
      s = herd_coop_advance(&grid, pos, s, params.neighbours, seen[a], hist + a * HERD_COOP_BINS, digit, below);
      if (s.state == HERD_COOP_FAR) pre[2u * s.self] = HERD_PRE_SEARCH;
      slot[a] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  herd_coop_slot s = slot[a];
  herd_strombom_sum sum;
  sum.x = 0, sum.y = 0;
  if (s.state == HERD_COOP_DONE) herd_coop_sweep(&grid, pos, cell_end, s, lane, hist, &sum);
  sum_x[t] = sum.x, sum_y[t] = sum.y;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lane != 0u || s.state != HERD_COOP_DONE) return;
  for (uint l = 1; l < HERD_COOP_LANES; ++l) sum.x += sum_x[t + l], sum.y += sum_y[t + l]; /* integers: any order */
  pre[2u * s.self] = sum.x;
  pre[2u * s.self + 1u] = sum.y;
}
