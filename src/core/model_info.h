/* The model table on the host, as data: for each row of kernels/models/models.h, what the
 * model is: its name and title, the dimensions it runs in, its default world, its fields and
 * their defaults, its parameter struct's size, the checks between its fields, an agent's drawn
 * length. Nothing here runs a model: how the backends do (update, kernel, pre-pass, grid cell,
 * reach, first velocities, explanation, marks) is src/backend/model_exec.h. */
#ifndef HERD_CORE_MODEL_INFO_H
#define HERD_CORE_MODEL_INFO_H
#include <stddef.h>
#include "layer.h"

#include "../../kernels/models/models.h" /* the rows and parameter lists only */
#include "herd/herd.h"
#include "scenario_fields.h"

/* Each model's row number: HERD_MODEL_INDEX_boids, ... (a scenario's "model"). */
#define HERD_MODEL_INDEX_ROW(name, ...) HERD_MODEL_INDEX_##name,
enum { HERD_MODELS(HERD_MODEL_INDEX_ROW) HERD_MODEL_INDEX_COUNT };

typedef struct herd_model_info {
  const char *name;    /* "boids": the scenario's "model" */
  const char *section; /* its fields' group: "boids" (Strömbom: "sheep") */
  const char *title;
  float body_m;             /* how long an agent is drawn */
  bool sees_moved_steering; /* HERD_SEES_MOVED: the flock reacts to this step's steering positions */
  uint32_t dims;            /* HERD_DIMS_2 | HERD_DIMS_3 */
  uint32_t default_dims;
  float default_size_m[3];
  uint32_t default_wrap[3];
  const scenario_field *fields; /* SECTION.count, SECTION.spawn.*, then its parameters */
  size_t field_count;
  size_t params_size;
  /* Relations between its fields: 0, or the length of the message written into `why`. */
  int (*check)(const void *params, herd_u32 count, char *why, size_t size);
  /* When a run with a goal succeeds (HERD_GOAL_*, kernels/params.h); *goal NULL: all delivered. */
  herd_u32 (*const *goal)(const void *params);
} herd_model_info;

extern const herd_model_info herd_models[];
extern const uint32_t herd_model_total;

/* The row of scenario model `model` (0 when out of range). */
const herd_model_info *herd_model_info_of(uint32_t model);

/* The row named `name`, or NULL. */
const herd_model_info *herd_model_by_name(const char *name, uint32_t *index);

/* "strombom, boids, netlogo" */
void herd_model_names(char *out, size_t size);

#endif
