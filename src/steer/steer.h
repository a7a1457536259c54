/* Steering agents (dogs, cruisers, pursuers, the user's): a table of strategies, each
 * moving one agent a step from the observation alone, never from the flock's arrays. The
 * run loop calls the table; it names no strategy. */
#ifndef HERD_STEER_STEER_H
#define HERD_STEER_STEER_H
#include "../core/scenario.h"
#include "herd/herd.h"
#include "layer.h"
#include "strombom_dog.h"

/* What a strategy may read this step. */
typedef struct herd_steer_context {
  const herd_scenario *sc;
  const herd_observation *obs;
  herd_strombom_dog_params dog; /* for HERD_STRATEGY_DOG */
  uint32_t step;
  const herd_steering_state *agents; /* every steering agent (those before `index` already moved) */
  /* Every steering agent as it was when the step began (NULL: as `agents`): what an agent reads
   * of the others, so the order in which they move does not change what they decide. */
  const herd_steering_state *start;
  uint32_t agent_count;
} herd_steer_context;

typedef void (*herd_steer_fn)(const herd_steer_context *ctx, uint32_t index, herd_steering_state *agent);

/* Each strategy's step, by herd_strategy (their names: herd_strategy_name). */
extern const herd_steer_fn herd_strategies[HERD_STRATEGY_COUNT];
/* Whether a steering agent of this strategy reads the observation's sectors
 * (HERD_OBSERVE_SECTORS) in scenario sc (Strömbom's dogs with dogs.team = sectors), which the
 * backend then reduces every step; the other optional parts are kept for any steering agent. */
bool herd_steer_reads_sectors(const herd_scenario *sc, herd_strategy strategy);

/* The context for a scenario (the dog's parameters from it, and its route among walls, water
 * and pens: NULL without them, or when out of memory). `sc` must outlive it. */
herd_steer_context herd_steer_context_for(const herd_scenario *sc);

/* The context's parameters again from `sc` after a field changed during the run
 * (herd_sim_set_param); the route, built for obstacles that cannot change, is kept. */
void herd_steer_context_refresh(herd_steer_context *ctx, const herd_scenario *sc);

/* The waypoint the steering agents drive the flock toward now, seen from `obs` (the dogs' drive
 * along the route); false when there is none. The sim asks it here, not of a strategy's module. */
bool herd_steer_flock_waypoint(const herd_steer_context *ctx, const herd_observation *obs, float out[2]);
void herd_steer_context_free(herd_steer_context *ctx);

/* Moves the agent `speed` toward `aim` (taken through the wrap of the world), stopping on
 * it; returns false when it is there already. */
bool herd_steer_toward(const herd_scenario *sc, herd_steering_state *agent, const float aim[3], float speed);

/* A position brought back into the world along its wrapping axes. */
void herd_steer_wrap(const herd_scenario *sc, float pos[3]);

#endif
