/* Strömbom et al. (2014)'s sheep: the parameters (scenario fields) and the checks between them: what the
 * scenario code reads of the model. Its update is kernels/models/strombom.h. */
#ifndef HERD_KERNELS_MODELS_STROMBOM_PARAMS_H
#define HERD_KERNELS_MODELS_STROMBOM_PARAMS_H
#include "../params.h"

/* sheep.neighbours_from: which sheep a reacting sheep's n nearest are taken from. */
#define HERD_STROMBOM_FROM_ALL 0u      /* every other sheep (the paper, as far as we can tell) */
#define HERD_STROMBOM_FROM_REACTING 1u /* only those within r_s of a dog themselves */
#define HERD_CHOICES_strombom_neighbours_from \
  { "all", "reacting", NULL }

/* sheep.success: when a run succeeds (decided by the run loop, src/steer/strategies.c). */
#define HERD_STROMBOM_SUCCESS_ALL_DELIVERED HERD_GOAL_ALL_DELIVERED
#define HERD_STROMBOM_SUCCESS_CENTROID_IN_GOAL HERD_GOAL_CENTROID_IN_GOAL
#define HERD_STROMBOM_SUCCESS_REMOVE_DELIVERED HERD_GOAL_REMOVE_DELIVERED
#define HERD_CHOICES_strombom_success \
  { "all_delivered", "centroid_in_goal", "remove_delivered", NULL }

/* Where a removed sheep waits out the run: far from any field (up to 10^7 m) and any
 * target, so that no grid query of a sheep in the flock reaches it. */
#define HERD_STROMBOM_PEN_M (-1.0e9f)

/* The "sheep" fields: X(model, type, name, default, min, max, flags, unit, meaning).
 * sheep.count and sheep.spawn are the engine's (every model's flock has them). Further
 * limits on neighbours in the scenario code: 1 to 256, or sheep.count - 1. */
#define HERD_SECTION_strombom "sheep"
#define HERD_PARAMS_strombom(X, M)                                                                               \
  X(M, herd_u32, neighbours, 50, 0, 1e8, HERD_FIELD_CLOSED, "",                                                  \
    "n: the sheep attracted to the centre of its n nearest")                                                     \
  X(M, float, speed_m_per_step, 1, 0, 1000, HERD_FIELD_MIN_OPEN, "m/step", "delta: a sheep's step length")       \
  X(M, float, repulsion_radius_m, 2, 0, 1000, HERD_FIELD_MIN_OPEN, "m", "r_a: sheep closer than this repel")     \
  X(M, float, dog_radius_m, 65, 0, 1e9, HERD_FIELD_CLOSED, "m", "r_s: a sheep reacts to a dog closer than this") \
  X(M, float, inertia, 0.5, 0, 1000, HERD_FIELD_CLOSED, "", "h: weight of the previous heading")                 \
  X(M, float, attraction, 1.05, 0, 1000, HERD_FIELD_CLOSED, "", "c: weight of the attraction to the neighbours") \
  X(M, float, repulsion, 2, 0, 1000, HERD_FIELD_CLOSED, "", "rho_a: weight of the repulsion between sheep")      \
  X(M, float, dog_repulsion, 1, 0, 1000, HERD_FIELD_CLOSED, "", "rho_s: weight of the repulsion from dogs")      \
  X(M, float, noise, 0.3, 0, 1000, HERD_FIELD_CLOSED, "", "e: weight of the random direction")                   \
  X(M, float, graze_probability, 0.05, 0, 1, HERD_FIELD_CLOSED, "", "p: chance a sheep far from dogs moves")     \
  X(M, herd_choice, neighbours_from, 0, 0, 1, HERD_FIELD_CLOSED, "",                                             \
    "which sheep the n nearest are taken from: all, or reacting (within r_s of a dog)")                          \
  X(M, herd_choice, success, 0, 0, 2, HERD_FIELD_CLOSED, "",                                                     \
    "when a run succeeds: all_delivered, centroid_in_goal or remove_delivered")

HERD_PARAMS_STRUCT(herd_strombom_params, HERD_PARAMS_strombom)

#ifndef HERD_OPENCL
#include <stdio.h>

/* The goal rule (HERD_GOAL_MODELS): sheep.success. */
static inline herd_u32 herd_strombom_goal(const void *params) {
  return ((const herd_strombom_params *)params)->success;
}

/* The n-nearest search keeps its selection in each agent's private memory on a device, so
 * it is bounded (kernels/grid.h); only n = N - 1 (the whole flock, through its centroid)
 * needs no search. Writes what is wrong into `why`; 0 when nothing is. */
static inline int herd_strombom_check(const void *params, herd_u32 count, char *why, size_t size) {
  herd_u32 n = ((const herd_strombom_params *)params)->neighbours, everyone = count - 1u;
  if (n == 0u || (n > HERD_MAX_NEIGHBOURS && n < count && n != everyone))
    return snprintf(why, size,
                    "sheep.neighbours: %u is out of range (allowed: an integer from 1 to %u, or sheep.count - 1 = %u "
                    "for attraction to the whole flock)",
                    n, (herd_u32)HERD_MAX_NEIGHBOURS, everyone);
  if (n >= count)
    return snprintf(why, size, "sheep.neighbours: %u must be less than sheep.count (%u): a sheep has at most %u others",
                    n, count, everyone);
  return 0;
}

#endif
#endif
