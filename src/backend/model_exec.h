/* How the backends run each model of the table (kernels/models/models.h): its CPU loop,
 * OpenCL kernel, pre-pass, grid cell, reach, first velocities, explained update and viewer
 * marks, made from the rows of kernels/models/steps.h. What a model is (name, fields,
 * defaults, checks) is src/core/model_info.h, the scenario code's; this table is the
 * backends' and the simulation's. Row m is the model table's row m. */
#ifndef HERD_BACKEND_MODEL_EXEC_H
#define HERD_BACKEND_MODEL_EXEC_H
#include <stdbool.h>
#include <stddef.h>
#include "layer.h"

#include "../../kernels/models/steps.h"
#include "herd/herd.h"

/* A model's pre-pass (kernels/models/steps.h, HERD_PREPASS_MODELS): the prefix of its
 * kernel <kernel>_coop, whether its step wants it with these parameters, and
 * the distance from a steering agent within which it has work (reach_m). kernel is NULL for a
 * model without one. */
typedef struct herd_model_prepass {
  const char *kernel;
  int (*wanted)(const void *params, herd_u32 count);
  float (*reach_m)(const void *params);
} herd_model_prepass;

/* One agent's update explained (HERD_EXPLAIN_MODELS). */
typedef void (*herd_model_explain_fn)(const void *params, const herd_flock_view *v, herd_u32 self,
                                      herd_neighbour *scratch, herd_model_explanation *out);

/* The flags every agent starts with (HERD_START_FLAGS_MODELS). */
typedef herd_u32 (*herd_model_start_flags_fn)(const void *params);

/* The radii a viewer draws (HERD_MARKS_MODELS); count and delivered are the observation's. */
typedef void (*herd_model_marks_fn)(const void *params, herd_u32 count, herd_u32 delivered, herd_model_marks_out *out);

typedef struct herd_model_exec {
  const char *name;             /* the model table's name, for messages */
  size_t params_size;           /* its parameter struct's size */
  herd_model_chunk_fn cpu_step; /* the CPU backend's loop over agents */
  /* The name of its OpenCL step kernel (batch: the batch variant) for a world of `dims`:
   * herd_step_<name>, or herd_step_<name>_2d / _3d (kernels/model.h). */
  const char *(*kernel)(herd_u32 dims, int batch);
  /* Its update follows a world's path: on OpenCL the guide pass (herd_path_guide) runs first. */
  bool reads_path;
  const herd_model_prepass *prepass;
  float (*cell_m)(const void *params);
  /* What an update reads of the others (kernels/model.h, herd_model_reach): 0, or the length
   * of the message in `why` when it may read the whole flock. */
  int (*reach)(const void *params, herd_u32 count, herd_model_reach *out, char *why, size_t size);
  /* The velocity agent i starts with, from its two spawn draws (position, velocity). */
  herd_vec3 (*initial_velocity)(const void *params, herd_rng4 spawn_draw, herd_rng4 velocity_draw, herd_u32 dims);
  const herd_model_explain_fn *explain;         /* *explain NULL: the model cannot explain an update */
  const herd_model_marks_fn *marks;             /* *marks NULL: the model draws no radii */
  const herd_model_start_flags_fn *start_flags; /* *start_flags NULL: the agents start with none */
  /* *capped_registers: a GPU builds its step kernels (one-world and batch) with at most this
   * many registers per work-item (HERD_CAPPED_MODELS); 0: without a bound */
  const uint32_t *capped_registers;
} herd_model_exec;

/* The row of scenario model `model` (row 0 when out of range, as the model table). */
const herd_model_exec *herd_model_exec_of(uint32_t model);

/* The neighbour grid's cell size for this scenario, from its model's parameters. For models
 * that query a radius it is that radius, the distance within which agents see each other; a
 * nearest-neighbour query takes its own (each model's cell_m hook). */
float herd_scenario_grid_cell_m(const herd_scenario *sc);

#endif
