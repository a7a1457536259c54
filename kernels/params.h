/* How a model declares its parameters (kernels/models/<name>_params.h): an X-macro list of
 * fields, each row
 *     X(M, type, name, default, minimum, maximum, flags, unit, meaning)
 * from which HERD_PARAMS_STRUCT makes the parameter struct (4-byte fields, so C and OpenCL C
 * lay it out alike) and the scenario code makes the fields, defaults, ranges and the
 * documentation check. The scenario code reads this and the parameter lists only, never a
 * model's update (kernels/model.h). */
#ifndef HERD_KERNELS_PARAMS_H
#define HERD_KERNELS_PARAMS_H
#include "portable.h"

/* Largest n for the n-nearest-neighbour query: the selection lives in private memory (a
 * parameter limit: Strömbom's sheep.neighbours is checked against it). */
#define HERD_MAX_NEIGHBOURS 256

/* Field flags: which bound is open, and how the value is kept. */
#define HERD_FIELD_CLOSED 0u
#define HERD_FIELD_MIN_OPEN 1u /* the minimum itself is not allowed (a radius of 0) */

/* A field with named values: the scenario holds one of its names (HERD_CHOICES_<model>_<field>,
 * in order), the parameters its index. */
typedef herd_u32 herd_choice;

/* When a run with a goal succeeds (a model's goal rule: HERD_GOAL_MODELS, kernels/models/models.h;
 * every other model: HERD_GOAL_ALL_DELIVERED). */
#define HERD_GOAL_ALL_DELIVERED 0u    /* every agent has been within the goal radius */
#define HERD_GOAL_CENTROID_IN_GOAL 1u /* the flock's centroid is within the goal radius */
#define HERD_GOAL_REMOVE_DELIVERED 2u /* each delivered agent leaves; none is left */

#define HERD_PARAM_MEMBER(model, type, name, def, lo, hi, flags, unit, meaning) type name;
#define HERD_PARAMS_STRUCT(struct_name, FIELDS) \
  typedef struct struct_name {                  \
    FIELDS(HERD_PARAM_MEMBER, _)                \
  } struct_name;

#endif
