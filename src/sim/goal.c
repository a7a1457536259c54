/* The run's goal: when a run has succeeded, from the observation (src/sim/goal.h). */
#include "goal.h"

#include "../core/model_info.h"
#include "../core/scenario.h"

herd_goal herd_goal_for(const herd_scenario *sc) {
  herd_goal goal = {.exists = sc->target.goal_radius_m >= 0.0f};
  herd_u32 (*rule)(const void *params) = *herd_model_info_of(sc->model)->goal;
  goal.success = rule ? rule(sc->params.bytes) : HERD_GOAL_ALL_DELIVERED;
  goal.target_m[0] = sc->target.position_m[0];
  goal.target_m[1] = sc->target.position_m[1];
  goal.radius_m = sc->target.goal_radius_m;
  return goal;
}

bool herd_goal_reached(const herd_goal *goal, const herd_observation *obs) {
  if (!goal->exists) return false;
  if (goal->success != HERD_GOAL_CENTROID_IN_GOAL) return obs->delivered == obs->count;
  double dx = obs->centroid[0] - goal->target_m[0], dy = obs->centroid[1] - goal->target_m[1];
  return dx * dx + dy * dy <= goal->radius_m * goal->radius_m;
}

void herd_goal_observe(const herd_goal *goal, herd_observation *obs) {
  if (goal->success != HERD_GOAL_REMOVE_DELIVERED || obs->delivered == 0 || obs->delivered >= obs->count) return;
  double scale = (double)obs->count / (double)(obs->count - obs->delivered);
  for (int k = 0; k < 3; ++k) obs->centroid[k] *= scale;
  obs->polarisation = (float)(obs->polarisation * scale);
  obs->milling = (float)(obs->milling * scale);
}
