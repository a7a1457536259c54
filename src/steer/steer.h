/* Steering agents (dogs, cruisers, pursuers, the user's): a table of strategies, each
 * moving one agent a step from the observation alone, never from the flock's arrays. The
 * run loop calls the table; it names no strategy. */
#ifndef HERD_STEER_STEER_H
#define HERD_STEER_STEER_H
#include "herd/herd.h"
#include "strombom_dog.h"

/* What a strategy may read this step. */
typedef struct herd_steer_context {
  const herd_scenario *sc;
  const herd_observation *obs;
  herd_strombom_dog_params dog; /* for HERD_STRATEGY_DOG */
  uint32_t step;
} herd_steer_context;

typedef void (*herd_steer_fn)(const herd_steer_context *ctx, uint32_t index, herd_steering_state *agent);

/* Each strategy's step, by herd_strategy (their names: herd_strategy_name). */
extern const herd_steer_fn herd_strategies[HERD_STRATEGY_COUNT];

/* The context for a scenario (the dog's parameters from it). */
herd_steer_context herd_steer_context_for(const herd_scenario *sc);

/* Moves the agent `speed` toward `aim` (taken through the wrap of the world), stopping on
 * it; returns false when it is there already. */
bool herd_steer_toward(const herd_scenario *sc, herd_steering_state *agent, const float aim[3], float speed);

/* A position brought back into the world along its wrapping axes. */
void herd_steer_wrap(const herd_scenario *sc, float pos[3]);

#endif
