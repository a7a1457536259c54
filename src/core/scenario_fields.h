/* The table of scenario fields: one row per JSON leaf, with its default, its range and the
 * models it belongs to. Defaults, validation, --set, the JSON dump and the docs check are
 * all driven from it. The engine's own fields are listed in scenario_fields.c; each model's
 * come from its parameter list (kernels/models/, through core/models.c). */
#ifndef HERD_CORE_SCENARIO_FIELDS_H
#define HERD_CORE_SCENARIO_FIELDS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "layer.h"

#include "herd/herd.h"
#include "scenario.h"

typedef enum scenario_field_kind {
  FIELD_UINT,       /* uint32_t, a JSON integer (an integral real such as 1e4 is accepted) */
  FIELD_SEED,       /* uint64_t, a JSON integer up to 2^53 - 1 so every JSON tool keeps it exact */
  FIELD_FLOAT,      /* float, a JSON number */
  FIELD_VEC2,       /* float[2], an array of 2 numbers */
  FIELD_VEC,        /* float[3], an array of world.dims numbers */
  FIELD_SIZE,       /* world.size_m: 2 or 3 numbers > 0, which set world.dims */
  FIELD_SQUARE,     /* field.size_m: one number, the side of a square 2D world */
  FIELD_WRAP,       /* uint32_t[3], an array of world.dims booleans */
  FIELD_MODEL,      /* uint32_t, a model's name */
  FIELD_STRATEGY,   /* uint32_t, a steering strategy's name */
  FIELD_VEC_RANDOM, /* float[3], world.dims numbers or "random" (stored as NaN) */
  FIELD_CHOICE,     /* uint32_t, one of the names in `choices` (stored as its index) */
  FIELD_POINTS,     /* herd_point_list: an array of points, each world.dims numbers */
  FIELD_SPHERES,    /* herd_point_list: an array of spheres, each world.dims numbers and a radius > 0 */
  FIELD_SHAPES,     /* herd_shape_list: an array of objects, 2D shapes (which kind: by the field's offset) */
  FIELD_IDS,        /* herd_id_list: an array of integers from min to max, strictly ascending */
  FIELD_TEXT,       /* char[max_items]: a JSON string of fewer than max_items bytes of UTF-8, no NUL */
  FIELD_SCHEDULE    /* herd_schedule: an array of {"step", "path", "value"} objects, steps ascending */
} scenario_field_kind;

#define FIELD_ALL_MODELS 0xffffffffu
#define FIELD_STROMBOM (1u << HERD_MODEL_STROMBOM)
#define FIELD_NOT_STROMBOM (~FIELD_STROMBOM)

typedef struct scenario_field {
  const char *path; /* the JSON path; fields of each "agents" entry: "agents[].speed_m_per_step" */
  scenario_field_kind kind;
  size_t offset;   /* into herd_scenario, or into herd_steering_config for per_agent */
  double def[3];   /* default (def[k]: element k of a vector) */
  double min, max; /* allowed range, inclusive unless min_open */
  bool min_open;   /* the minimum itself is not allowed (a radius of exactly 0, say) */
  uint32_t models; /* bit m: a field of model m's scenarios */
  bool per_agent;  /* one per entry of the "agents" list */
  const char *unit, *meaning;
  const char *const *choices; /* FIELD_CHOICE: its names in index order, then NULL */
  uint32_t max_items; /* FIELD_POINTS, FIELD_SPHERES, FIELD_SHAPES, FIELD_IDS: the most the list holds; FIELD_TEXT:
                       * its bytes, the end included */
} scenario_field;

/* A field as found by its path: its row and, for a per-agent field, the entry. */
typedef struct field_ref {
  const scenario_field *f;
  uint32_t entry;
} field_ref;

/* Calls fn on every field of scenarios of `model`, in the order the dump writes them. */
void scenario_fields_each(uint32_t model, void (*fn)(const scenario_field *f, void *ctx), void *ctx);

/* Every field of every model, in table order: for lookups, suggestions and the docs. */
size_t scenario_field_total(void);
const scenario_field *scenario_field_at(size_t i);

/* The field at `path` ("sheep.count", "agents[2].strategy"), of any model; false when none
 * (then a malformed agents index leaves ref->f NULL). */
bool scenario_field_find(const char *path, field_ref *ref);

/* True when field f belongs to scenarios of `model`. */
bool scenario_field_of(const scenario_field *f, uint32_t model);

/* Where the field's value lives in sc. */
void *scenario_field_address(herd_scenario *sc, field_ref ref);
const void *scenario_field_caddress(const herd_scenario *sc, field_ref ref);

/* How many names a FIELD_CHOICE field has. */
uint32_t scenario_choice_count(const scenario_field *f);

/* Writes a choice field's names as "\"a\", \"b\"" into out. */
void scenario_choice_names(const scenario_field *f, char *out, size_t size);

/* How many numbers a vector field holds in sc: 2, 3 or world.dims. */
uint32_t scenario_field_length(const scenario_field *f, const herd_scenario *sc);

/* True when `path` names an object that holds fields ("sheep", "sheep.spawn"). */
bool scenario_group_exists(const char *path);

/* Writes the known field or group nearest to `path` by edit distance into out; false
 * when none is close enough to be a likely typo. */
bool scenario_nearest_name(const char *path, char *out, size_t size);

/* Writes the names known directly under group `prefix` ("" for the top) for scenarios of
 * `model` as "a, b, c". */
void scenario_names_under(const char *prefix, uint32_t model, char *out, size_t size);

/* Every field of `model` at its default, the world at the model's. */
void scenario_set_defaults(herd_scenario *sc, uint32_t model);

/* The shortest decimal that reads back as exactly the float v ("150", "0.6666667"). */
void scenario_format_float(float v, char *out, size_t size);

/* A new agents entry at its defaults. */
void scenario_agent_defaults(herd_steering_config *entry);

#endif
