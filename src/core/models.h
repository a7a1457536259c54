/* The model table on the host: for each row of kernels/models/models.h, what the engine
 * needs to know of the model: its fields, its parameter struct's size, its CPU entry point
 * and OpenCL kernel, its grid cell, how its agents start, its checks and its defaults. */
#ifndef HERD_CORE_MODELS_H
#define HERD_CORE_MODELS_H
#include <stddef.h>

#include "../../kernels/models/models.h"
#include "herd/herd.h"
#include "scenario_fields.h"

/* Each model's row number: HERD_MODEL_INDEX_boids, ... (a scenario's "model"). */
#define HERD_MODEL_INDEX_ROW(name, ...) HERD_MODEL_INDEX_##name,
enum { HERD_MODELS(HERD_MODEL_INDEX_ROW) HERD_MODEL_INDEX_COUNT };

/* A model's pre-pass (kernels/models/models.h, HERD_PREPASS_MODELS): the prefix of its
 * kernels <kernel>_list, _coop, _far, and whether its step wants it with these parameters.
 * kernel is NULL for a model without one. */
typedef struct herd_model_prepass {
  const char *kernel;
  int (*wanted)(const void *params, herd_u32 count);
} herd_model_prepass;

/* One agent's update explained (kernels/models/models.h, HERD_EXPLAIN_MODELS). */
typedef void (*herd_model_explain_fn)(const void *params, const herd_flock_view *v, herd_u32 self,
                                      herd_neighbour *scratch, herd_model_explanation *out);

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
  herd_model_chunk_fn cpu_step; /* the CPU backend's loop over agents */
  const char *kernel;           /* the OpenCL kernel: herd_step_<name> */
  const herd_model_prepass *prepass;
  float (*cell_m)(const void *params);
  /* What an update reads of the others (kernels/model.h, herd_model_reach): 0, or the length
   * of the message in `why` when it may read the whole flock. */
  int (*reach)(const void *params, herd_u32 count, herd_model_reach *out, char *why, size_t size);
  /* The velocity agent i starts with, from its two spawn draws (position, velocity). */
  herd_vec3 (*initial_velocity)(const void *params, herd_rng4 spawn_draw, herd_rng4 velocity_draw, herd_u32 dims);
  /* Relations between its fields: 0, or the length of the message written into `why`. */
  int (*check)(const void *params, herd_u32 count, char *why, size_t size);
  const herd_model_explain_fn *explain; /* *explain NULL: the model cannot explain an update */
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
