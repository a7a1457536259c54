/* The per-agent word that travels with each agent through the sort: its id in the low
 * bits, state flags in the top bits. Shared by every backend and every model. */
#ifndef HERD_KERNELS_AGENT_H
#define HERD_KERNELS_AGENT_H
#include "portable.h"

#define HERD_AGENT_ID_MASK 0x07ffffffu   /* ids below 2^27 (a flock holds at most 10^8) */
#define HERD_AGENT_DELIVERED 0x80000000u /* has been within the goal radius (latched) */
#define HERD_AGENT_MOVED 0x40000000u     /* moved in the last step */
#define HERD_AGENT_ALERT 0x20000000u     /* reacted to a steering agent in the last step */
#define HERD_AGENT_REMOVED 0x10000000u   /* taken out of the flock by its model (latched) */
/* Ignored food in the last step (a sated fish): takes no part in the food's nearest agent, so
 * the food it swims through is not eaten (herd_near_takes_part). */
#define HERD_AGENT_SATED 0x08000000u

/* What a model's update reports besides the new state (herd_agent_next.alert, a bit set):
 * it reacted to a steering agent; it leaves the flock (and so counts as delivered) at the
 * end of this step. A removed agent is nobody's neighbour and not in the observation. */
#define HERD_ALERT_REACTED 1
#define HERD_ALERT_REMOVE 2
/* The update wrote herd_agent_next.memory: two floats the agent keeps to its next step (in 3D
 * the w of its position and velocity; models that keep memory run in 3D only). */
#define HERD_ALERT_MEMORY 4
/* The update already placed the agent where it ends (herd_agent_end): nothing to redo. */
#define HERD_ALERT_PLACED 8
/* It ignored food this step (HERD_AGENT_SATED). */
#define HERD_ALERT_SATED 16

/* The steering buffer the flock reads: HERD_STEER_FLOATS floats per steering agent, its
 * position x, y, z and its role (HERD_ROLE_*), then its velocity in m per step x, y, z and 0. */
#define HERD_STEER_FLOATS 8u
#define HERD_ROLE_THREAT 0u    /* dogs, cruisers, pursuers: fled (every model) */
#define HERD_ROLE_FOOD 1u      /* a food particle not yet eaten (food.points_m) */
#define HERD_ROLE_FOOD_BEST 2u /* the food particle the flock as a whole knows best (gbest) */
#define HERD_ROLE_GONE 3u      /* eaten food: nothing reacts to it */

HERD_INLINE herd_u32 herd_agent_id(herd_u32 word) { return word & HERD_AGENT_ID_MASK; }

/* A negative goal radius means the scenario has no goal. */
HERD_INLINE int herd_in_goal(herd_vec3 p, herd_vec3 goal, float goal_radius_m) {
  return goal_radius_m >= 0.0f && herd_v3_len2(herd_v3_sub(p, goal)) <= goal_radius_m * goal_radius_m;
}

HERD_INLINE int herd_agent_removed(herd_u32 word) { return (word & HERD_AGENT_REMOVED) != 0u; }

/* Whether the agent (its word) counts for the nearest agent to a steering agent of `role`:
 * removed agents never; a sated one not for food (it does not eat what it swims through). */
HERD_INLINE int herd_near_takes_part(herd_u32 word, herd_u32 role) {
  int food = role == HERD_ROLE_FOOD || role == HERD_ROLE_FOOD_BEST;
  return !herd_agent_removed(word) && !(food && (word & HERD_AGENT_SATED) != 0u);
}

/* The word after a step that left the agent at `pos` (`in_goal`: pos is in the goal,
 * herd_env_in_goal): delivery and removal latch, MOVED and ALERT are set anew (`alert`:
 * HERD_ALERT_* bits from the model). */
HERD_INLINE herd_u32 herd_agent_after_step(herd_u32 word, herd_vec3 old_pos, herd_vec3 pos, int alert, int in_goal) {
  herd_u32 next = word & (HERD_AGENT_ID_MASK | HERD_AGENT_DELIVERED | HERD_AGENT_REMOVED);
  int leaves = (alert & HERD_ALERT_REMOVE) != 0;
  if (leaves || in_goal) next |= HERD_AGENT_DELIVERED;
  if (leaves) next |= HERD_AGENT_REMOVED;
  if (pos.x != old_pos.x || pos.y != old_pos.y || pos.z != old_pos.z) next |= HERD_AGENT_MOVED;
  if (alert & HERD_ALERT_REACTED) next |= HERD_AGENT_ALERT;
  if (alert & HERD_ALERT_SATED) next |= HERD_AGENT_SATED;
  return next;
}

#endif
