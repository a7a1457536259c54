/* The per-agent word that travels with each agent through the sort: its id in the low
 * bits, state flags in the top bits. Shared by every backend. */
#ifndef HERD_KERNELS_AGENT_H
#define HERD_KERNELS_AGENT_H
#include "portable.h"

#define HERD_AGENT_ID_MASK 0x0fffffffu   /* ids below 2^28 */
#define HERD_AGENT_DELIVERED 0x80000000u /* has been within the goal radius (latched) */
#define HERD_AGENT_MOVED 0x40000000u     /* moved in the last step (reacting or grazing) */

HERD_INLINE herd_u32 herd_agent_id(herd_u32 word) { return word & HERD_AGENT_ID_MASK; }

HERD_INLINE int herd_in_goal(herd_vec2 p, herd_vec2 goal, float goal_radius_m) {
  return herd_v2_len2(herd_v2_sub(p, goal)) <= goal_radius_m * goal_radius_m;
}

/* The word after a step that left the agent at `pos`: delivery latches, MOVED is set anew. */
HERD_INLINE herd_u32 herd_agent_after_step(herd_u32 word, herd_vec2 old_pos, herd_vec2 pos, herd_vec2 goal,
                                           float goal_radius_m) {
  herd_u32 next = word & (HERD_AGENT_ID_MASK | HERD_AGENT_DELIVERED);
  if (herd_in_goal(pos, goal, goal_radius_m)) next |= HERD_AGENT_DELIVERED;
  if (pos.x != old_pos.x || pos.y != old_pos.y) next |= HERD_AGENT_MOVED;
  return next;
}

#endif
