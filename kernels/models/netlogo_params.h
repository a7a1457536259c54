/* NetLogo Flocking: the parameters (scenario fields) and the checks between them: what the
 * scenario code reads of the model. Its update is kernels/models/netlogo.h. */
#ifndef HERD_KERNELS_MODELS_NETLOGO_PARAMS_H
#define HERD_KERNELS_MODELS_NETLOGO_PARAMS_H
#include "../params.h"

#define HERD_NETLOGO_FLEE_FACE_AWAY 0u /* seed 003's flee: head straight away from the nearest enemy */
#define HERD_NETLOGO_FLEE_NONE 1u      /* enemies are ignored (the control for the enemies' experiment) */
#define HERD_CHOICES_netlogo_flee \
  { "face_away", "none", NULL }

#define HERD_SECTION_netlogo "netlogo"
#define HERD_PARAMS_netlogo(X, M)                                                                                     \
  X(M, float, vision_patches, 3, 0, 1e6, HERD_FIELD_MIN_OPEN, "patch", "birds within this are flockmates")            \
  X(M, float, minimum_separation, 1, 0, 1e6, HERD_FIELD_CLOSED, "patch", "closer than this: separate only")           \
  X(M, float, max_align_turn_deg, 5, 0, 180, HERD_FIELD_CLOSED, "deg", "largest turn toward the flockmates' heading") \
  X(M, float, max_cohere_turn_deg, 3, 0, 180, HERD_FIELD_CLOSED, "deg", "largest turn toward the flockmates")         \
  X(M, float, max_separate_turn_deg, 1.5, 0, 180, HERD_FIELD_CLOSED, "deg", "largest turn away from the nearest")     \
  X(M, float, speed_patches_per_tick, 1, 0, 1e6, HERD_FIELD_MIN_OPEN, "patch/tick", "how far a bird flies a tick")    \
  X(M, herd_u32, substeps, 5, 1, 1000, HERD_FIELD_CLOSED, "",                                                         \
    "the tick's flight in this many equal steps, each wrapped")                                                       \
  X(M, herd_choice, flee, 0, 0, 1, HERD_FIELD_CLOSED, "",                                                             \
    "how birds meet an enemy within vision: face_away (seed 003: face it, turn 180 degrees) or none (ignored)")

HERD_PARAMS_STRUCT(herd_netlogo_params, HERD_PARAMS_netlogo)

#ifndef HERD_OPENCL
#include <stdio.h>

static inline int herd_netlogo_check(const void *params, herd_u32 count, char *why, size_t size) {
  (void)params, (void)count, (void)why, (void)size;
  return 0;
}

#endif
#endif
