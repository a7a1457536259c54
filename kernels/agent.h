/* The per-agent word that travels with each agent through the sort: its id in the low
 * bits, state flags in the top bits. Shared by every backend and every model. */
#ifndef HERD_KERNELS_AGENT_H
#define HERD_KERNELS_AGENT_H
#include "portable.h"

#define HERD_AGENT_ID_MASK 0x0fffffffu   /* ids below 2^28 */
#define HERD_AGENT_DELIVERED 0x80000000u /* has been within the goal radius (latched) */
#define HERD_AGENT_MOVED 0x40000000u     /* moved in the last step */
#define HERD_AGENT_ALERT 0x20000000u     /* reacted to a steering agent in the last step */

HERD_INLINE herd_u32 herd_agent_id(herd_u32 word) { return word & HERD_AGENT_ID_MASK; }

/* A negative goal radius means the scenario has no goal. */
HERD_INLINE int herd_in_goal(herd_vec3 p, herd_vec3 goal, float goal_radius_m) {
  return goal_radius_m >= 0.0f && herd_v3_len2(herd_v3_sub(p, goal)) <= goal_radius_m * goal_radius_m;
}

/* The word after a step that left the agent at `pos`: delivery latches, MOVED and ALERT
 * are set anew (`alert`: the model reacted to a steering agent). */
HERD_INLINE herd_u32 herd_agent_after_step(herd_u32 word, herd_vec3 old_pos, herd_vec3 pos, int alert, herd_vec3 goal,
                                           float goal_radius_m) {
  herd_u32 next = word & (HERD_AGENT_ID_MASK | HERD_AGENT_DELIVERED);
  if (herd_in_goal(pos, goal, goal_radius_m)) next |= HERD_AGENT_DELIVERED;
  if (pos.x != old_pos.x || pos.y != old_pos.y || pos.z != old_pos.z) next |= HERD_AGENT_MOVED;
  if (alert) next |= HERD_AGENT_ALERT;
  return next;
}

#endif
