/* The host's model table as data, generated from the rows of kernels/models/models.h and
 * each model's parameter list: adding a model adds nothing here. */
#include "model_info.h"

#include <stdio.h>
#include <string.h>

/* Row indices, in table order. */
_Static_assert(HERD_MODEL_INDEX_strombom == HERD_MODEL_STROMBOM, "Strömbom's model must stay the first row");

#define PARAMS_OFFSET(M, name) (offsetof(herd_scenario, params) + offsetof(herd_##M##_params, name))
#define FIELD_KIND_float FIELD_FLOAT
#define FIELD_KIND_herd_u32 FIELD_UINT
#define FIELD_KIND_herd_choice FIELD_CHOICE

/* A choice field's names (HERD_CHOICES_<model>_<field>, in its model's header); none for numbers. */
#define FIELD_CHOICES_float(M, name) NULL
#define FIELD_CHOICES_herd_u32(M, name) NULL
#define FIELD_CHOICES_herd_choice(M, name) ((const char *const[])HERD_CHOICES_##M##_##name)

/* One parameter row of a model's X-macro list as a scenario field. */
#define PARAM_FIELD(M, type, name, def, lo, hi, flags, unit, meaning) \
  {HERD_SECTION_##M "." #name,                                        \
   FIELD_KIND_##type,                                                 \
   PARAMS_OFFSET(M, name),                                            \
   {def, 0, 0},                                                       \
   lo,                                                                \
   hi,                                                                \
   ((flags)&HERD_FIELD_MIN_OPEN) != 0,                                \
   1u << HERD_MODEL_INDEX_##M,                                        \
   false,                                                             \
   unit,                                                              \
   meaning,                                                           \
   FIELD_CHOICES_##type(M, name),                                     \
   0},

/* Every model's flock has a size and a spawn box; then come its own parameters. */
#define MODEL_FIELDS(id, dims_mask, ddims, sx, sy, sz, wx, wy, wz, default_count, least, spawn_from, body, sees, \
                     title)                                                                                      \
  static const scenario_field id##_fields[] = {                                                                  \
      {HERD_SECTION_##id ".count",                                                                               \
       FIELD_UINT,                                                                                               \
       offsetof(herd_scenario, flock.count),                                                                     \
       {default_count, 0, 0},                                                                                    \
       least,                                                                                                    \
       1.0e8,                                                                                                    \
       false,                                                                                                    \
       1u << HERD_MODEL_INDEX_##id,                                                                              \
       false,                                                                                                    \
       "",                                                                                                       \
       "N: agents in the flock",                                                                                 \
       NULL,                                                                                                     \
       0},                                                                                                       \
      {HERD_SECTION_##id ".spawn.from",                                                                          \
       FIELD_VEC,                                                                                                \
       offsetof(herd_scenario, flock.spawn.from),                                                                \
       {spawn_from, spawn_from, spawn_from},                                                                     \
       -100,                                                                                                     \
       100,                                                                                                      \
       false,                                                                                                    \
       1u << HERD_MODEL_INDEX_##id,                                                                              \
       false,                                                                                                    \
       "fraction",                                                                                               \
       "one corner of the box agents start in, as fractions of the world's size",                                \
       NULL,                                                                                                     \
       0},                                                                                                       \
      {HERD_SECTION_##id ".spawn.to",                                                                            \
       FIELD_VEC,                                                                                                \
       offsetof(herd_scenario, flock.spawn.to),                                                                  \
       {1, 1, 1},                                                                                                \
       -100,                                                                                                     \
       100,                                                                                                      \
       false,                                                                                                    \
       1u << HERD_MODEL_INDEX_##id,                                                                              \
       false,                                                                                                    \
       "fraction",                                                                                               \
       "the opposite corner",                                                                                    \
       NULL,                                                                                                     \
       0},                                                                                                       \
      HERD_PARAMS_##id(PARAM_FIELD, id)};                                                                        \
  _Static_assert(sizeof(herd_##id##_params) <= HERD_MODEL_PARAMS_BYTES, #id "'s parameters do not fit");

HERD_MODELS(MODEL_FIELDS)

#define GOAL_ROW(id) [HERD_MODEL_INDEX_##id] = herd_##id##_goal,
static herd_u32 (*const goals[HERD_MODEL_INDEX_COUNT])(const void *params) = {HERD_GOAL_MODELS(GOAL_ROW)};

#define MODEL_ROW(id, dims_mask, ddims, sx, sy, sz, wx, wy, wz, count, least, spawn_from, body, sees, model_title) \
  {.name = #id,                                                                                                    \
   .section = HERD_SECTION_##id,                                                                                   \
   .title = model_title,                                                                                           \
   .body_m = body,                                                                                                 \
   .sees_moved_steering = sees == HERD_SEES_MOVED,                                                                 \
   .dims = dims_mask,                                                                                              \
   .default_dims = ddims,                                                                                          \
   .default_size_m = {sx, sy, sz},                                                                                 \
   .default_wrap = {wx, wy, wz},                                                                                   \
   .fields = id##_fields,                                                                                          \
   .field_count = sizeof id##_fields / sizeof id##_fields[0],                                                      \
   .params_size = sizeof(herd_##id##_params),                                                                      \
   .check = herd_##id##_check,                                                                                     \
   .goal = &goals[HERD_MODEL_INDEX_##id]},

const herd_model_info herd_models[] = {HERD_MODELS(MODEL_ROW)};
const uint32_t herd_model_total = HERD_MODEL_INDEX_COUNT;

const herd_model_info *herd_model_info_of(uint32_t model) { return &herd_models[model < herd_model_total ? model : 0]; }

const herd_model_info *herd_model_by_name(const char *name, uint32_t *index) {
  for (uint32_t m = 0; m < herd_model_total; ++m) {
    if (strcmp(herd_models[m].name, name) != 0) continue;
    if (index) *index = m;
    return &herd_models[m];
  }
  return NULL;
}

void herd_model_names(char *out, size_t size) {
  size_t used = 0;
  out[0] = '\0';
  for (uint32_t m = 0; m < herd_model_total && used < size; ++m) {
    int w = snprintf(out + used, size - used, "%s\"%s\"", m ? ", " : "", herd_models[m].name);
    if (w > 0) used += (size_t)w;
  }
}

uint32_t herd_model_count(void) { return herd_model_total; }
const char *herd_model_name(uint32_t model) { return herd_model_info_of(model)->name; }
const char *herd_model_section(uint32_t model) { return herd_model_info_of(model)->section; }
const char *herd_model_title(uint32_t model) { return herd_model_info_of(model)->title; }
float herd_model_body_m(uint32_t model) { return herd_model_info_of(model)->body_m; }
bool herd_model_supports_dims(uint32_t model, uint32_t dims) {
  return model < herd_model_total && (dims == 2u || dims == 3u) && (herd_model_info_of(model)->dims & (1u << dims));
}
