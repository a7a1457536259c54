/* The table of scenario fields: one row per JSON leaf, with its default and its range.
 * Defaults, validation, --set and the JSON dump are all driven from this one table. */
#ifndef HERD_CORE_SCENARIO_FIELDS_H
#define HERD_CORE_SCENARIO_FIELDS_H
#include <stdbool.h>
#include <stddef.h>

#include "herd/herd.h"

typedef enum scenario_field_kind {
  FIELD_UINT,  /* uint32_t, a JSON integer (an integral real such as 1e4 is accepted) */
  FIELD_SEED,  /* uint64_t, a JSON integer up to 2^53 - 1 so every JSON tool keeps it exact */
  FIELD_FLOAT, /* float, a JSON number */
  FIELD_VEC2,  /* float[2], a JSON array of two numbers */
  FIELD_MODEL, /* herd_model, a JSON string */
} scenario_field_kind;

typedef struct scenario_field {
  const char *path;
  scenario_field_kind kind;
  size_t offset;   /* into herd_scenario */
  double def[2];   /* default (def[1] for the second element of a vector) */
  double min, max; /* allowed range, inclusive unless min_open */
  bool min_open;   /* the minimum itself is not allowed (a radius of exactly 0, say) */
} scenario_field;

extern const scenario_field scenario_fields[];
extern const size_t scenario_field_count;

const scenario_field *scenario_field_find(const char *path);

/* True when `path` names an object that holds fields ("sheep", "sheep.spawn"). */
bool scenario_group_exists(const char *path);

/* Writes the known field or group nearest to `path` by edit distance into out; false
 * when none is close enough to be a likely typo. */
bool scenario_nearest_name(const char *path, char *out, size_t size);

/* Writes the names known directly under group `prefix` ("" for the top) as "a, b, c". */
void scenario_names_under(const char *prefix, char *out, size_t size);

void scenario_set_defaults(herd_scenario *sc);

#endif
