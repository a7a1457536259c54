/* Not a kernel of herd's (those come with the OpenCL backend): a check that the shared
 * model headers compile as OpenCL C 1.2, run by tests/test_opencl_syntax.sh. */
#include "agent.h"
#include "strombom.h"

__kernel void strombom_step(__global const float2 *pos, __global const float2 *heading, __global const uint *agent,
                            __global const uint *cell_end, __global const float2 *dogs, uint dog_count,
                            herd_strombom_params model, herd_grid grid, float2 goal, float goal_radius_m, ulong seed,
                            uint step, __global float2 *out_pos, __global float2 *out_heading,
                            __global uint *out_agent) {
  uint i = get_global_id(0);
  if (i >= grid.count) return;
  herd_neighbour scratch[HERD_MAX_NEIGHBOURS];
  herd_sheep_next next = herd_strombom_sheep(&model, &grid, pos, heading, cell_end, dogs, dog_count, i,
                                             herd_agent_id(agent[i]), seed, step, scratch);
  out_pos[i] = next.pos;
  out_heading[i] = next.heading;
  out_agent[i] = herd_agent_after_step(agent[i], pos[i], next.pos, goal, goal_radius_m);
}
