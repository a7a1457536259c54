/* The run's goal, kept by the run loop (src/sim/sim.c): when a run has reached it, and what
 * the observation means once sheep leave the flock. The steering agents work toward it but
 * do not decide it. */
#ifndef HERD_SIM_GOAL_H
#define HERD_SIM_GOAL_H
#include "herd/herd.h"
#include "layer.h"

/* The goal the steering agents work toward, and when a run has reached it: the model's goal
 * rule (the model table's goal hook) over the target. */
typedef struct herd_goal {
  bool exists;
  uint32_t success;   /* HERD_GOAL_* (kernels/params.h) */
  double target_m[2]; /* T */
  double radius_m;    /* target.goal_radius_m */
} herd_goal;

herd_goal herd_goal_for(const herd_scenario *sc);

/* True when the flock, as observed, has reached the goal. */
bool herd_goal_reached(const herd_goal *goal, const herd_observation *obs);

/* With removal (HERD_GOAL_REMOVE_DELIVERED) the backends sum over the sheep still in the
 * flock but divide by all of them: brings the centroid, polarisation and milling back to
 * means over the sheep still in the flock. Nothing otherwise. */
void herd_goal_observe(const herd_goal *goal, herd_observation *obs);

#endif
