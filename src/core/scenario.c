/* Scenario files: parsing, validation with messages a user can act on, --set overrides,
 * and the JSON dump. Every field comes from the table in scenario_fields.c and the model
 * table (models.c). A scenario is read in three passes: its model (which decides the
 * fields and their defaults), the world's size (which decides how long vectors are), then
 * everything else; --set overrides take part in each pass. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/grid.h"
#include "../../kernels/path.h"
#include "../util/error.h"
#include "../util/jsonfile.h"
#include "geometry.h"
#include "model_info.h"
#include "output.h"
#include "scenario.h"
#include "scenario_fields.h"
#include "scenario_live.h"

extern const char herd_embedded_default_scenario[];

const char *herd_default_scenario_json(void) { return herd_embedded_default_scenario; }

/* ---- Describing values in messages -------------------------------------------------- */

/* The shortest decimal that reads back as exactly `v`. */
static void format_number(double v, char *out, size_t size) {
  if (isnan(v)) {
    snprintf(out, size, "nan");
    return;
  }
  if (isinf(v)) {
    snprintf(out, size, v > 0 ? "inf" : "-inf");
    return;
  }
  /* Whole numbers in full (1000000000 and 9007199254740991, not 1e+09 and 9.007199254740991e+15):
   * a user reads them as integers, and these are exact below 2^53. */
  if (v == floor(v) && fabs(v) <= 9007199254740992.0) {
    snprintf(out, size, "%.0f", v);
    return;
  }
  for (int digits = 1; digits <= 17; ++digits) {
    snprintf(out, size, "%.*g", digits, v);
    if (strtod(out, NULL) == v) return;
  }
}

/* The shortest decimal that reads back as exactly the float `v`. */
void scenario_format_float(float v, char *out, size_t size) {
  if (v == floorf(v) && fabsf(v) <= 16777216.0f) { /* 100, not 1e+02 */
    snprintf(out, size, "%.0f", (double)v);
    return;
  }
  for (int digits = 1; digits <= 9; ++digits) {
    snprintf(out, size, "%.*g", digits, (double)v);
    if (strtof(out, NULL) == v) return;
  }
}

static void describe_json(const json_t *v, char *out, size_t size) {
  char num[40];
  switch (json_typeof(v)) {
    case JSON_OBJECT: snprintf(out, size, "an object"); break;
    case JSON_ARRAY: snprintf(out, size, "an array of %zu", json_array_size(v)); break;
    case JSON_STRING: snprintf(out, size, "the string \"%.60s\"", json_string_value(v)); break;
    case JSON_INTEGER: snprintf(out, size, "%lld", (long long)json_integer_value(v)); break;
    case JSON_REAL:
      format_number(json_real_value(v), num, sizeof num);
      snprintf(out, size, "%s", num);
      break;
    case JSON_TRUE: snprintf(out, size, "true"); break;
    case JSON_FALSE: snprintf(out, size, "false"); break;
    case JSON_NULL: snprintf(out, size, "null"); break;
  }
}

static void describe_range(const scenario_field *f, char *out, size_t size) {
  char lo[40], hi[40];
  if (f->kind == FIELD_WRAP) {
    snprintf(out, size, "true or false");
    return;
  }
  format_number(f->min, lo, sizeof lo);
  format_number(f->max, hi, sizeof hi);
  if (f->kind == FIELD_UINT || f->kind == FIELD_SEED || f->kind == FIELD_IDS)
    snprintf(out, size, "an integer from %s to %s", lo, hi);
  else
    snprintf(out, size, "a number %s %s and <= %s", f->min_open ? ">" : ">=", lo, hi);
}

/* ---- Storing one leaf ---------------------------------------------------------------- */

typedef struct load_ctx {
  const char *where; /* the file name, or "--set PATH=VALUE" */
  herd_scenario *sc;
  herd_error *err;
} load_ctx;

/* The path as the user wrote it: "agents[2].count" for a per-agent field. */
static void field_path(field_ref ref, char *out, size_t size) {
  if (ref.f->per_agent)
    snprintf(out, size, "agents[%u]%s", ref.entry, ref.f->path + strlen("agents[]"));
  else
    snprintf(out, size, "%s", ref.f->path);
}

static herd_status type_error(load_ctx *c, const char *path, const char *expected, const json_t *v) {
  char got[100];
  describe_json(v, got, sizeof got);
  return herd_fail(c->err, HERD_E_INPUT, "%s: %s: expected %s, got %s", c->where, path, expected, got);
}

static herd_status range_error(load_ctx *c, const char *path, const scenario_field *f, double v) {
  char num[40], range[120];
  format_number(v, num, sizeof num);
  describe_range(f, range, sizeof range);
  if (!isfinite(v))
    return herd_fail(c->err, HERD_E_INPUT, "%s: %s: %s is not a finite number (allowed: %s)", c->where, path, num,
                     range);
  return herd_fail(c->err, HERD_E_INPUT, "%s: %s: %s is out of range (allowed: %s)", c->where, path, num, range);
}

static bool in_range(const scenario_field *f, double v) {
  return isfinite(v) && (f->min_open ? v > f->min : v >= f->min) && v <= f->max;
}

/* Integers are compared as integers: a seed near 2^53 must be reported as typed, not rounded. */
static herd_status store_integer(load_ctx *c, const char *path, const scenario_field *f, const json_t *v, void *at) {
  if (json_is_integer(v)) {
    json_int_t x = json_integer_value(v);
    if (x < (json_int_t)f->min || x > (json_int_t)f->max) {
      char range[120];
      describe_range(f, range, sizeof range);
      return herd_fail(c->err, HERD_E_INPUT, "%s: %s: %lld is out of range (allowed: %s)", c->where, path, (long long)x,
                       range);
    }
    if (f->kind == FIELD_SEED)
      *(uint64_t *)at = (uint64_t)x;
    else
      *(uint32_t *)at = (uint32_t)x;
    return HERD_OK;
  }
  if (!json_is_real(v) || json_real_value(v) != floor(json_real_value(v))) return type_error(c, path, "an integer", v);
  double x = json_real_value(v); /* 1e4 is an integer too: convenient in sweeps */
  if (!in_range(f, x)) return range_error(c, path, f, x);
  if (f->kind == FIELD_SEED)
    *(uint64_t *)at = (uint64_t)x;
  else
    *(uint32_t *)at = (uint32_t)x;
  return HERD_OK;
}

/* Numbers are kept as 32-bit floats (the kernels' type): a value is accepted only if it
 * survives that conversion, so what is checked is what runs, and a dump reads back. */
static herd_status store_number(load_ctx *c, const char *path, const scenario_field *f, const json_t *v, float *at) {
  if (!json_is_number(v)) return type_error(c, path, "a number", v);
  double x = json_number_value(v);
  if (!in_range(f, x)) return range_error(c, path, f, x);
  float stored = (float)x;
  if (x != 0.0 && fabsf(stored) < FLT_MIN) {
    char num[40];
    format_number(x, num, sizeof num);
    return herd_fail(c->err, HERD_E_INPUT,
                     "%s: %s: %s is too small to keep: herd stores this field as a 32-bit float, which holds 0 or "
                     "magnitudes from 1.17549435e-38 to 3.40282347e+38",
                     c->where, path, num);
  }
  if (!in_range(f, stored)) return range_error(c, path, f, stored);
  *at = stored;
  return HERD_OK;
}

/* An array of n numbers, each checked as a number field. */
static herd_status store_vector(load_ctx *c, const char *path, const scenario_field *f, const json_t *v, float *at,
                                uint32_t n) {
  char expected[80];
  snprintf(expected, sizeof expected, "an array of %u numbers%s", n,
           f->kind == FIELD_VEC || f->kind == FIELD_VEC_RANDOM ? (n == 2 ? " (the world is 2D)" : " (the world is 3D)")
                                                               : "");
  if (!json_is_array(v) || json_array_size(v) != n) return type_error(c, path, expected, v);
  for (uint32_t i = 0; i < n; ++i) {
    char element[220];
    snprintf(element, sizeof element, "%s[%u]", path, i);
    herd_status s = store_number(c, element, f, json_array_get(v, i), &at[i]);
    if (s != HERD_OK) return s;
  }
  for (uint32_t i = n; i < 3 && f->kind != FIELD_VEC2; ++i) at[i] = 0.0f;
  return HERD_OK;
}

/* A sphere's radius, checked as a number field. */
static const scenario_field radius_field = {
    .path = "radius", .kind = FIELD_FLOAT, .min = 0, .max = 1.0e7, .min_open = true};

/* What one item of a list of points or spheres is, in words, for the world's dimensions. */
static void describe_item(const scenario_field *f, uint32_t dims, char *out, size_t size) {
  bool spheres = f->kind == FIELD_SPHERES;
  snprintf(out, size, "an array of %u numbers, %s%s (the world is %uD)", dims + (spheres ? 1u : 0u),
           dims == 3 ? "[x, y, z" : "[x, y", spheres ? ", radius]" : "]", dims);
}

/* An array field's shape: an array (else "expected") of at most the field's max_items. */
static herd_status array_at_most(load_ctx *c, const char *path, const scenario_field *f, const json_t *v,
                                 const char *expected, const char *items) {
  if (!json_is_array(v)) return type_error(c, path, expected, v);
  if (json_array_size(v) > f->max_items)
    return herd_fail(c->err, HERD_E_INPUT, "%s: %s: %zu %s (allowed: at most %u)", c->where, path, json_array_size(v),
                     items, f->max_items);
  return HERD_OK;
}

/* A list of points (FIELD_POINTS) or spheres (FIELD_SPHERES, a radius > 0 after the centre). */
static herd_status store_points(load_ctx *c, const char *path, const scenario_field *f, const json_t *v,
                                herd_point_list *at) {
  uint32_t dims = c->sc->world.dims, n = dims + (f->kind == FIELD_SPHERES ? 1u : 0u);
  char item[120], expected[200];
  describe_item(f, dims, item, sizeof item);
  snprintf(expected, sizeof expected, "an array of at most %u items, each %s", f->max_items, item);
  herd_status listed = array_at_most(c, path, f, v, expected, "items");
  if (listed != HERD_OK) return listed;
  herd_point_list list;
  memset(&list, 0, sizeof list);
  for (size_t i = 0; i < json_array_size(v); ++i) {
    char element[240], number[260];
    snprintf(element, sizeof element, "%s[%zu]", path, i);
    const json_t *p = json_array_get(v, i);
    if (!json_is_array(p) || json_array_size(p) != n) return type_error(c, element, item, p);
    for (uint32_t k = 0; k < n; ++k) {
      snprintf(number, sizeof number, "%s[%u]", element, k);
      bool radius = k == dims;
      herd_status s =
          store_number(c, number, radius ? &radius_field : f, json_array_get(p, k), &list.v[i][radius ? 3u : k]);
      if (s != HERD_OK) return s;
    }
  }
  list.count = (uint32_t)json_array_size(v);
  *at = list;
  return HERD_OK;
}

/* A list of agent ids (FIELD_IDS): integers in the field's range, strictly ascending. */
static herd_status store_ids(load_ctx *c, const char *path, const scenario_field *f, const json_t *v,
                             herd_id_list *at) {
  char expected[120];
  snprintf(expected, sizeof expected, "an array of at most %u integers, ascending", f->max_items);
  herd_status listed = array_at_most(c, path, f, v, expected, "items");
  if (listed != HERD_OK) return listed;
  herd_id_list list = {0};
  for (size_t i = 0; i < json_array_size(v); ++i) {
    char element[240];
    snprintf(element, sizeof element, "%s[%zu]", path, i);
    herd_status s = store_integer(c, element, f, json_array_get(v, i), &list.id[i]);
    if (s != HERD_OK) return s;
    if (i > 0 && list.id[i] <= list.id[i - 1])
      return herd_fail(c->err, HERD_E_INPUT,
                       "%s: %s: %u is not above the id before it, %u (allowed: ids in ascending order, each once)",
                       c->where, element, list.id[i], list.id[i - 1]);
  }
  list.count = (uint32_t)json_array_size(v);
  *at = list;
  return HERD_OK;
}

/* What one kind of obstacle shape is made of (obstacles.walls, .water, .pens, .bridges). */
typedef struct shape_spec {
  size_t offset;                   /* its list in herd_scenario */
  const char *item;                /* in messages: "a wall" */
  uint32_t min_points, max_points; /* points_m holds this many */
  const char *width_key;           /* its width's name, or NULL */
  double width_default;
  bool gate;  /* pens: gate_m, the gate's two ends (required) */
  bool water; /* bridges: water, the index of the water it spans (required) */
  const char *keys;
} shape_spec;

static const shape_spec shape_specs[] = {
    {offsetof(herd_scenario, obstacles.walls), "a wall", 2, HERD_MAX_SHAPE_POINTS, "thickness_m", 1.0, false, false,
     "points_m, thickness_m"},
    {offsetof(herd_scenario, obstacles.water), "a water polygon", 3, HERD_MAX_SHAPE_POINTS, NULL, 0.0, false, false,
     "points_m"},
    {offsetof(herd_scenario, obstacles.pens), "a pen", 3, HERD_MAX_SHAPE_POINTS, "fence_m", 0.5, true, false,
     "points_m, gate_m, fence_m"},
    {offsetof(herd_scenario, obstacles.bridges), "a bridge", 2, 2, "width_m", 4.0, false, true,
     "points_m, width_m, water"},
};

static const shape_spec *shape_spec_of(const scenario_field *f) {
  for (size_t k = 0; k < sizeof shape_specs / sizeof shape_specs[0]; ++k)
    if (shape_specs[k].offset == f->offset) return &shape_specs[k];
  return &shape_specs[0];
}

/* A shape's width, and a bridge's water index, checked as fields of their own. */
static const scenario_field width_field = {
    .path = "width", .kind = FIELD_FLOAT, .min = 0, .max = 1.0e6, .min_open = true};
static const scenario_field water_field = {.path = "water", .kind = FIELD_UINT, .min = 0, .max = HERD_MAX_SHAPES - 1};

/* n points of 2 numbers each (n from lo to hi) into out; consecutive points must differ when
 * `distinct`. */
static herd_status store_xy(load_ctx *c, const char *path, const scenario_field *f, const json_t *v, uint32_t lo,
                            uint32_t hi, float (*out)[2], uint32_t *count) {
  char expected[120];
  if (lo == hi)
    snprintf(expected, sizeof expected, "an array of %u points, each [x, y]", lo);
  else
    snprintf(expected, sizeof expected, "an array of %u to %u points, each [x, y]", lo, hi);
  if (!json_is_array(v) || json_array_size(v) < lo || json_array_size(v) > hi) return type_error(c, path, expected, v);
  for (size_t i = 0; i < json_array_size(v); ++i) {
    char element[360];
    snprintf(element, sizeof element, "%s[%zu]", path, i);
    const json_t *p = json_array_get(v, i);
    if (!json_is_array(p) || json_array_size(p) != 2) return type_error(c, element, "an array of 2 numbers, [x, y]", p);
    for (uint32_t k = 0; k < 2; ++k) {
      char number[380];
      snprintf(number, sizeof number, "%s[%u]", element, k);
      herd_status s = store_number(c, number, f, json_array_get(p, k), &out[i][k]);
      if (s != HERD_OK) return s;
    }
    if (i > 0 && out[i][0] == out[i - 1][0] && out[i][1] == out[i - 1][1])
      return herd_fail(c->err, HERD_E_INPUT, "%s: %s: the same point as %s[%zu] (allowed: consecutive points differ)",
                       c->where, element, path, i - 1);
  }
  *count = (uint32_t)json_array_size(v);
  return HERD_OK;
}

/* One element of a list of shapes: an object of the keys its kind has. */
static herd_status store_shape(load_ctx *c, const char *path, const scenario_field *f, const shape_spec *spec,
                               const json_t *v, herd_shape *out) {
  char expected[160], at[320];
  snprintf(expected, sizeof expected, "an object (%s: %s)", spec->item, spec->keys);
  if (!json_is_object(v)) return type_error(c, path, expected, v);
  memset(out, 0, sizeof *out);
  out->width_m = (float)spec->width_default;
  const char *key;
  const json_t *value;
  bool points = false, gate = false, water = false;
  json_object_foreach((json_t *)v, key, value) {
    snprintf(at, sizeof at, "%s.%.60s", path, key);
    herd_status s;
    uint32_t two;
    if (strcmp(key, "points_m") == 0) {
      s = store_xy(c, at, f, value, spec->min_points, spec->max_points, out->v, &out->count), points = true;
    } else if (spec->width_key && strcmp(key, spec->width_key) == 0) {
      s = store_number(c, at, &width_field, value, &out->width_m);
    } else if (spec->gate && strcmp(key, "gate_m") == 0) {
      s = store_xy(c, at, f, value, 2, 2, out->gate, &two), gate = true;
    } else if (spec->water && strcmp(key, "water") == 0) {
      s = store_integer(c, at, &water_field, value, &out->water), water = true;
    } else {
      char list[120];
      snprintf(list, sizeof list, "%.100s", path);
      char *bracket = strrchr(list, '[');
      if (bracket) *bracket = '\0';
      return herd_fail(c->err, HERD_E_INPUT, "%s: %s: unknown field (known fields of %s in %s: %s)", c->where, at,
                       spec->item, list, spec->keys);
    }
    if (s != HERD_OK) return s;
  }
  const char *missing = !points                   ? "points_m"
                        : (spec->gate && !gate)   ? "gate_m"
                        : (spec->water && !water) ? "water"
                                                  : NULL;
  if (missing)
    return herd_fail(c->err, HERD_E_INPUT, "%s: %s: %s has no %s (required: %s)", c->where, path, spec->item, missing,
                     spec->keys);
  return HERD_OK;
}

/* A list of obstacle shapes (FIELD_SHAPES). */
static herd_status store_shapes(load_ctx *c, const char *path, const scenario_field *f, const json_t *v,
                                herd_shape_list *at) {
  const shape_spec *spec = shape_spec_of(f);
  char expected[200];
  snprintf(expected, sizeof expected, "an array of at most %u objects (%s: %s)", f->max_items, spec->item, spec->keys);
  herd_status listed = array_at_most(c, path, f, v, expected, "items");
  if (listed != HERD_OK) return listed;
  herd_shape_list *list = calloc(1, sizeof *list);
  if (!list) return herd_fail(c->err, HERD_E_MEMORY, "out of memory");
  herd_status s = HERD_OK;
  for (size_t i = 0; s == HERD_OK && i < json_array_size(v); ++i) {
    char element[240];
    snprintf(element, sizeof element, "%s[%zu]", path, i);
    s = store_shape(c, element, f, spec, json_array_get(v, i), &list->s[i]);
  }
  list->count = (uint32_t)json_array_size(v);
  if (s == HERD_OK) *at = *list;
  free(list);
  return s;
}

/* world.size_m: its length sets the world's dimensions, which the model must support. */
static herd_status store_size(load_ctx *c, const char *path, const scenario_field *f, const json_t *v) {
  const herd_model_info *model = herd_model_info_of(c->sc->model);
  size_t n = json_is_array(v) ? json_array_size(v) : 0;
  bool two = model->dims & HERD_DIMS_2, three = model->dims & HERD_DIMS_3;
  if (n != 2 && n != 3) {
    const char *expected =
        two && three ? "an array of 2 numbers (2D) or 3 (3D)"
                     : (two ? "an array of 2 numbers (the model is 2D)" : "an array of 3 numbers (the model is 3D)");
    return type_error(c, path, expected, v);
  }
  if (!(model->dims & (1u << n)))
    return herd_fail(c->err, HERD_E_INPUT, "%s: %s: %zu numbers make a %zuD world, but model %s runs in %s only",
                     c->where, path, n, n, model->name, two ? "2D" : "3D");
  herd_scenario *sc = c->sc;
  sc->world.dims = (uint32_t)n;
  herd_status s = store_vector(c, path, f, v, sc->world.size_m, (uint32_t)n);
  if (s != HERD_OK) return s;
  for (uint32_t k = 0; k < 3; ++k) { /* the rest of the world follows its dimensions */
    if (k >= n) sc->world.wrap[k] = 0, sc->flock.spawn.from[k] = sc->flock.spawn.to[k] = 0.0f;
    if (k < n && k >= model->default_dims) {
      sc->flock.spawn.from[k] = sc->flock.spawn.from[0];
      sc->flock.spawn.to[k] = sc->flock.spawn.to[0];
    }
  }
  return HERD_OK;
}

static herd_status store_wrap(load_ctx *c, const char *path, const json_t *v, uint32_t *at) {
  uint32_t n = c->sc->world.dims;
  char expected[80];
  snprintf(expected, sizeof expected, "an array of %u booleans (the world is %uD)", n, n);
  if (!json_is_array(v) || json_array_size(v) != n) return type_error(c, path, expected, v);
  for (uint32_t i = 0; i < n; ++i) {
    const json_t *b = json_array_get(v, i);
    char element[220];
    snprintf(element, sizeof element, "%s[%u]", path, i);
    if (!json_is_boolean(b)) return type_error(c, element, "true or false", b);
    at[i] = json_is_true(b) ? 1u : 0u;
  }
  return HERD_OK;
}

static herd_status store_model(load_ctx *c, const char *path, const json_t *v, uint32_t *at) {
  char names[200];
  herd_model_names(names, sizeof names);
  if (!json_is_string(v)) {
    char expected[260];
    snprintf(expected, sizeof expected, "a model name (allowed: %s)", names);
    return type_error(c, path, expected, v);
  }
  if (!herd_model_by_name(json_string_value(v), at))
    return herd_fail(c->err, HERD_E_INPUT, "%s: %s: \"%.60s\" is not a known model (allowed: %s)", c->where, path,
                     json_string_value(v), names);
  return HERD_OK;
}

/* The strategies an "agents" entry may take (dogs are the "dogs" group's). */
static herd_status store_strategy(load_ctx *c, const char *path, const json_t *v, uint32_t *at) {
  static const char allowed[] = "\"cruiser\", \"pursuer\", \"manual\", \"shepherd\"";
  if (!json_is_string(v))
    return type_error(c, path, "a strategy name (allowed: \"cruiser\", \"pursuer\", \"manual\", \"shepherd\")", v);
  for (uint32_t k = HERD_STRATEGY_CRUISER; k < HERD_STRATEGY_COUNT; ++k) {
    if (k == HERD_STRATEGY_FOOD || strcmp(json_string_value(v), herd_strategy_name((herd_strategy)k)) != 0) continue;
    *at = k;
    return HERD_OK;
  }
  if (strcmp(json_string_value(v), herd_strategy_name(HERD_STRATEGY_DOG)) == 0)
    return herd_fail(c->err, HERD_E_INPUT,
                     "%s: %s: dogs are set with the \"dogs\" group of a strombom scenario "
                     "(allowed here: %s)",
                     c->where, path, allowed);
  if (strcmp(json_string_value(v), herd_strategy_name(HERD_STRATEGY_FOOD)) == 0)
    return herd_fail(c->err, HERD_E_INPUT, "%s: %s: food particles are set with food.points_m (allowed here: %s)",
                     c->where, path, allowed);
  return herd_fail(c->err, HERD_E_INPUT, "%s: %s: \"%.60s\" is not a steering strategy (allowed: %s)", c->where, path,
                   json_string_value(v), allowed);
}

static herd_status store_vec_random(load_ctx *c, const char *path, const scenario_field *f, const json_t *v,
                                    float *at) {
  if (json_is_string(v) && strcmp(json_string_value(v), "random") == 0) {
    at[0] = at[1] = at[2] = NAN;
    return HERD_OK;
  }
  if (json_is_array(v)) return store_vector(c, path, f, v, at, c->sc->world.dims);
  char expected[80];
  snprintf(expected, sizeof expected, "an array of %u numbers or \"random\"", c->sc->world.dims);
  return type_error(c, path, expected, v);
}

/* One of a choice field's names, kept as its index. */
static herd_status store_choice(load_ctx *c, const char *path, const scenario_field *f, const json_t *v, uint32_t *at) {
  char names[300], expected[340];
  scenario_choice_names(f, names, sizeof names);
  snprintf(expected, sizeof expected, "one of %s", names);
  if (!json_is_string(v)) return type_error(c, path, expected, v);
  for (uint32_t k = 0; k < scenario_choice_count(f); ++k) {
    if (strcmp(json_string_value(v), f->choices[k]) != 0) continue;
    *at = k;
    return HERD_OK;
  }
  return herd_fail(c->err, HERD_E_INPUT, "%s: %s: \"%.60s\" is not a known value (allowed: %s)", c->where, path,
                   json_string_value(v), names);
}

/* One entry of the schedule: an object of exactly "step" (an integer), "path" (a field's path)
 * and "value" (a number). Whether the path may change, and the value's range, are checked with
 * the whole scenario (check_schedule). */
static herd_status store_schedule_entry(load_ctx *c, const char *path, const json_t *v, herd_schedule_entry *e) {
  static const char *const expected = "an object {\"step\": K, \"path\": P, \"value\": V}";
  if (!json_is_object(v)) return type_error(c, path, expected, v);
  const char *key;
  json_t *item;
  char at[280];
  json_object_foreach((json_t *)v, key, item) {
    if (strcmp(key, "step") && strcmp(key, "path") && strcmp(key, "value"))
      return herd_fail(c->err, HERD_E_INPUT, "%s: %s: unknown key \"%.60s\" (allowed: step, path, value)", c->where,
                       path, key);
  }
  static const scenario_field step_field = {"step", FIELD_UINT, 0, {0}, 0, 1.0e9, false, 0, false, "", "", NULL, 0};
  const json_t *step = json_object_get(v, "step"), *field = json_object_get(v, "path"),
               *value = json_object_get(v, "value");
  const char *missing = !step ? "step" : (!field ? "path" : (!value ? "value" : NULL));
  if (missing) return herd_fail(c->err, HERD_E_INPUT, "%s: %s: no \"%s\" (%s)", c->where, path, missing, expected);
  snprintf(at, sizeof at, "%s.step", path);
  herd_status s = store_integer(c, at, &step_field, step, &e->step);
  snprintf(at, sizeof at, "%s.path", path);
  if (s == HERD_OK && !json_is_string(field)) s = type_error(c, at, "a field's path, e.g. \"sheep.repulsion\"", field);
  if (s == HERD_OK && json_string_length(field) >= sizeof e->path)
    s = herd_fail(c->err, HERD_E_INPUT, "%s: %s: %zu bytes (allowed: at most %zu)", c->where, at,
                  json_string_length(field), sizeof e->path - 1);
  snprintf(at, sizeof at, "%s.value", path);
  if (s == HERD_OK && !json_is_number(value)) s = type_error(c, at, "a number", value);
  if (s != HERD_OK) return s;
  snprintf(e->path, sizeof e->path, "%s", json_string_value(field));
  e->value = json_number_value(value);
  return HERD_OK;
}

static herd_status store_schedule(load_ctx *c, const char *path, const scenario_field *f, const json_t *v,
                                  herd_schedule *at) {
  char expected[120];
  snprintf(expected, sizeof expected, "an array of at most %u objects {\"step\", \"path\", \"value\"}", f->max_items);
  herd_status listed = array_at_most(c, path, f, v, expected, "entries");
  if (listed != HERD_OK) return listed;
  herd_schedule *list = calloc(1, sizeof *list);
  if (!list) return herd_fail(c->err, HERD_E_MEMORY, "out of memory");
  herd_status s = HERD_OK;
  for (size_t i = 0; s == HERD_OK && i < json_array_size(v); ++i) {
    char element[240];
    snprintf(element, sizeof element, "%s[%zu]", path, i);
    s = store_schedule_entry(c, element, json_array_get(v, i), &list->entry[i]);
  }
  list->count = (uint32_t)json_array_size(v);
  if (s == HERD_OK) *at = *list;
  free(list);
  return s;
}

/* Free text: a JSON string of fewer than the field's bytes (its end needs one), without NUL. */
static herd_status store_text(load_ctx *c, const char *path, const scenario_field *f, const json_t *v, char *at) {
  if (!json_is_string(v)) return type_error(c, path, "a string", v);
  size_t n = json_string_length(v);
  if (memchr(json_string_value(v), '\0', n))
    return herd_fail(c->err, HERD_E_INPUT, "%s: %s: holds a NUL character (\\u0000), which text may not", c->where,
                     path);
  if (n >= f->max_items)
    return herd_fail(c->err, HERD_E_INPUT, "%s: %s: %zu bytes of text (allowed: at most %u)", c->where, path, n,
                     f->max_items - 1u);
  memcpy(at, json_string_value(v), n + 1);
  return HERD_OK;
}

static herd_status store_field(load_ctx *c, field_ref ref, const json_t *v) {
  const scenario_field *f = ref.f;
  char path[200];
  field_path(ref, path, sizeof path);
  void *at = scenario_field_address(c->sc, ref);
  switch (f->kind) {
    case FIELD_UINT:
    case FIELD_SEED: return store_integer(c, path, f, v, at);
    case FIELD_FLOAT: return store_number(c, path, f, v, at);
    case FIELD_VEC2: return store_vector(c, path, f, v, at, 2);
    case FIELD_VEC: return store_vector(c, path, f, v, at, c->sc->world.dims);
    case FIELD_SIZE: return store_size(c, path, f, v);
    case FIELD_SQUARE: {
      herd_status s = store_number(c, path, f, v, at);
      if (s == HERD_OK) ((float *)at)[1] = ((float *)at)[0];
      return s;
    }
    case FIELD_WRAP: return store_wrap(c, path, v, at);
    case FIELD_MODEL: return store_model(c, path, v, at);
    case FIELD_STRATEGY: return store_strategy(c, path, v, at);
    case FIELD_VEC_RANDOM: return store_vec_random(c, path, f, v, at);
    case FIELD_CHOICE: return store_choice(c, path, f, v, at);
    case FIELD_POINTS:
    case FIELD_SPHERES: return store_points(c, path, f, v, at);
    case FIELD_IDS: return store_ids(c, path, f, v, at);
    case FIELD_SHAPES: return store_shapes(c, path, f, v, at);
    case FIELD_TEXT: return store_text(c, path, f, v, at);
    case FIELD_SCHEDULE: return store_schedule(c, path, f, v, at);
  }
  return HERD_OK;
}

/* ---- Walking the document ------------------------------------------------------------ */

static herd_status unknown_field(load_ctx *c, const char *path, const char *group) {
  char near[80], known[600];
  if (scenario_nearest_name(path, near, sizeof near))
    return herd_fail(c->err, HERD_E_INPUT, "%s: %s: unknown field (did you mean %s?)", c->where, path, near);
  scenario_names_under(group, c->sc->model, known, sizeof known);
  if (!*group)
    return herd_fail(c->err, HERD_E_INPUT, "%s: %s: unknown field (known top-level fields: %s)", c->where, path, known);
  return herd_fail(c->err, HERD_E_INPUT, "%s: %s: unknown field (known fields in %s: %s)", c->where, path, group,
                   known);
}

/* A field that exists, but not in this scenario's model: names the models it belongs to. */
static herd_status foreign(load_ctx *c, const char *path, const scenario_field *f) {
  char owners[200] = "";
  size_t used = 0;
  uint32_t count = 0;
  for (uint32_t m = 0; m < herd_model_total && used < sizeof owners; ++m) {
    if (!f || !(f->models & (1u << m))) continue;
    used += (size_t)snprintf(owners + used, sizeof owners - used, "%s%s", count ? ", " : "", herd_model_name(m));
    ++count;
  }
  return herd_fail(c->err, HERD_E_INPUT, "%s: %s: a field of model%s %s, but this scenario's model is %s", c->where,
                   path, count > 1 ? "s" : "", owners, herd_model_name(c->sc->model));
}

/* A group of another model, named by its first field (boids.visual_range_m, not boids) so
 * the message points at what the user wrote; `example` is any field of the group. */
static herd_status foreign_group(load_ctx *c, const char *path, const json_t *value, const scenario_field *example) {
  void *first = json_is_object(value) ? json_object_iter((json_t *)value) : NULL;
  if (!first) return foreign(c, path, example);
  char inner[200];
  int w = snprintf(inner, sizeof inner, "%s.%s", path, json_object_iter_key(first));
  field_ref ref;
  if (w < 0 || (size_t)w >= sizeof inner) return foreign(c, path, example);
  if (scenario_field_find(inner, &ref)) return foreign(c, inner, ref.f);
  if (scenario_group_exists(inner)) return foreign_group(c, inner, json_object_iter_value(first), example);
  return foreign(c, path, example);
}

typedef struct group_probe {
  const char *prefix;
  size_t len;
  bool found;
  const scenario_field *any;
} group_probe;

static void probe_group(const scenario_field *f, void *arg) {
  group_probe *g = arg;
  if (strncmp(f->path, g->prefix, g->len) == 0 && f->path[g->len] == '.') g->found = true;
}

/* True when group `path` has a field in this scenario's model; *example: some field of it. */
static bool group_is_mine(load_ctx *c, const char *path, const scenario_field **example) {
  group_probe g = {path, strlen(path), false, NULL};
  scenario_fields_each(c->sc->model, probe_group, &g);
  *example = NULL;
  for (size_t i = 0; i < scenario_field_total() && !*example; ++i) {
    const scenario_field *f = scenario_field_at(i);
    if (strncmp(f->path, path, g.len) == 0 && f->path[g.len] == '.') *example = f;
  }
  return g.found;
}

/* Fields read before the rest: the model, then the world's size. */
static bool read_early(const scenario_field *f) { return f->kind == FIELD_MODEL || f->kind == FIELD_SIZE; }

static herd_status load_object(load_ctx *c, const json_t *obj, const char *prefix);

/* The "agents" list: each element an object of one entry's fields. */
static herd_status load_agents(load_ctx *c, const json_t *list) {
  if (!json_is_array(list)) return type_error(c, "agents", "an array of objects", list);
  if (json_array_size(list) > HERD_MAX_STEERING)
    return herd_fail(c->err, HERD_E_INPUT, "%s: agents: %zu entries; at most %d steering agents", c->where,
                     json_array_size(list), HERD_MAX_STEERING);
  herd_scenario *sc = c->sc;
  for (size_t i = 0; i < json_array_size(list); ++i) {
    char path[40];
    snprintf(path, sizeof path, "agents[%zu]", i);
    const json_t *entry = json_array_get(list, i);
    if (!json_is_object(entry)) return type_error(c, path, "an object", entry);
    if (i >= sc->agents.entries) {
      scenario_agent_defaults(&sc->agents.entry[i]);
      sc->agents.entries = (uint32_t)i + 1u;
    }
    herd_status s = load_object(c, entry, path);
    if (s != HERD_OK) return s;
  }
  return HERD_OK;
}

static herd_status load_member(load_ctx *c, const char *path, const char *prefix, const json_t *value) {
  field_ref ref;
  const scenario_field *example;
  if (scenario_field_find(path, &ref)) {
    if (!scenario_field_of(ref.f, c->sc->model)) return foreign(c, path, ref.f);
    return read_early(ref.f) ? HERD_OK : store_field(c, ref, value);
  }
  if (!*prefix && strcmp(path, "agents") == 0) return load_agents(c, value);
  if (!scenario_group_exists(path)) return unknown_field(c, path, prefix);
  if (!group_is_mine(c, path, &example)) return foreign_group(c, path, value, example);
  if (!json_is_object(value)) return type_error(c, path, "an object", value);
  return load_object(c, value, path);
}

static herd_status load_object(load_ctx *c, const json_t *obj, const char *prefix) {
  const char *key;
  const json_t *value;
  json_object_foreach((json_t *)obj, key, value) {
    char path[200];
    int w = snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", key);
    if (w < 0 || (size_t)w >= sizeof path) return unknown_field(c, path, prefix);
    herd_status s = load_member(c, path, prefix, value);
    if (s != HERD_OK) return s;
  }
  return HERD_OK;
}

/* ---- --set PATH=VALUE ---------------------------------------------------------------- */

/* The value as JSON when it parses as JSON, else as a string (so `--set model=boids` needs
 * no quotes). Non-finite numbers, which JSON cannot hold, are reported here. */
static herd_status parse_set_value(load_ctx *c, const char *path, const scenario_field *f, const char *text,
                                   json_t **out) {
  *out = json_loads(text, JSON_DECODE_ANY, NULL);
  if (*out && json_is_number(*out) && herd_number_underflows(text, strlen(text))) {
    json_decref(*out);
    *out = NULL;
    return herd_fail(c->err, HERD_E_INPUT, "%s: %s: %.40s is too small for a number here: it would read as 0", c->where,
                     path, text);
  }
  if (*out) return HERD_OK;
  bool numeric =
      f && (f->kind == FIELD_FLOAT || f->kind == FIELD_SQUARE || f->kind == FIELD_UINT || f->kind == FIELD_SEED);
  char *end;
  double x = strtod(text, &end);
  if (numeric && end != text && *end == '\0' && !isfinite(x)) return range_error(c, path, f, x);
  /* An integer too long for JSON's 64 bits: out of range, shown as typed (not as a string). */
  size_t sign = text[0] == '-';
  if (numeric && text[sign] && strspn(text + sign, "0123456789") == strlen(text + sign)) {
    char range[120];
    describe_range(f, range, sizeof range);
    return herd_fail(c->err, HERD_E_INPUT, "%s: %s: %.40s is out of range (allowed: %s)", c->where, path, text, range);
  }
  *out = json_string(text);
  return *out ? HERD_OK : herd_fail(c->err, HERD_E_MEMORY, "out of memory");
}

/* Which of a pass's --set overrides to apply: the model, the world's size, or the rest. */
typedef enum set_pass { SET_MODEL, SET_SIZE, SET_REST } set_pass;

static herd_status check_relations(const herd_scenario *sc, const char *where, herd_error *err);

/* "@STEP:PATH=VALUE" (herd's --set-at STEP:PATH=VALUE): an entry added to the schedule, after
 * those of a step up to STEP. The path must be a field that may change during a run; the value's
 * range is checked with the rest of the schedule (check_schedule). */
static herd_status apply_set_at(herd_scenario *sc, const char *text, herd_error *err) {
  char where[200];
  snprintf(where, sizeof where, "--set-at %.180s", text);
  const char *colon = strchr(text, ':'), *eq = colon ? strchr(colon, '=') : NULL;
  char *end;
  errno = 0;
  unsigned long step = strtoul(text, &end, 10);
  if (!colon || !eq || end != colon || text == colon || !isdigit((unsigned char)text[0]) || errno ||
      step > 1000000000ul)
    return herd_fail(err, HERD_E_INPUT,
                     "%s: expected STEP:PATH=VALUE, STEP a whole number of steps from 0 to 1000000000, e.g. "
                     "--set-at 500:sheep.repulsion=3",
                     where);
  herd_schedule_entry e = {.step = (uint32_t)step};
  size_t len = (size_t)(eq - colon - 1);
  if (len == 0 || len >= sizeof e.path)
    return herd_fail(err, HERD_E_INPUT, "%s: the path is %zu bytes (allowed: 1 to %zu)", where, len, sizeof e.path - 1);
  memcpy(e.path, colon + 1, len);
  e.path[len] = '\0';
  field_ref ref;
  if (!scenario_field_find(e.path, &ref) || !scenario_field_of(ref.f, sc->model) || !scenario_field_live(ref.f)) {
    char names[700];
    scenario_live_names(sc->model, names, sizeof names);
    return herd_fail(err, HERD_E_INPUT, "%s: %s is not a field of model %s that can change during a run (allowed: %s)",
                     where, e.path, herd_model_name(sc->model), names);
  }
  e.value = strtod(eq + 1, &end);
  if (end == eq + 1 || *end || !isfinite(e.value))
    return herd_fail(err, HERD_E_INPUT, "%s: %s is not a finite number", where, eq + 1);
  herd_schedule *list = &sc->schedule;
  if (list->count >= HERD_MAX_SCHEDULE)
    return herd_fail(err, HERD_E_INPUT, "%s: the schedule holds %d entries already (allowed: at most %d)", where,
                     HERD_MAX_SCHEDULE, HERD_MAX_SCHEDULE);
  uint32_t at = list->count;
  while (at > 0 && list->entry[at - 1].step > e.step) --at;
  memmove(&list->entry[at + 1], &list->entry[at], (list->count - at) * sizeof list->entry[0]);
  list->entry[at] = e;
  ++list->count;
  return HERD_OK;
}

static herd_status apply_set(herd_scenario *sc, const char *set, set_pass pass, herd_error *err) {
  if (set[0] == '@') return pass == SET_REST ? apply_set_at(sc, set + 1, err) : HERD_OK;
  char where[200];
  snprintf(where, sizeof where, "--set %.180s", set);
  load_ctx c = {where, sc, err};
  if (!herd_utf8_valid(set)) /* JSON holds UTF-8 only: refused whatever the field */
    return pass == SET_REST ? herd_fail(err, HERD_E_INPUT, "%s: not valid UTF-8 text (allowed: UTF-8)", where)
                            : HERD_OK;
  const char *eq = strchr(set, '=');
  if (!eq || eq == set)
    return pass == SET_REST ? herd_fail(err, HERD_E_INPUT, "%s: expected PATH=VALUE, e.g. --set sheep.count=80", where)
                            : HERD_OK;
  char path[160];
  snprintf(path, sizeof path, "%.*s", (int)(eq - set) < 159 ? (int)(eq - set) : 159, set);
  field_ref ref;
  bool found = scenario_field_find(path, &ref);
  set_pass mine = !found                       ? SET_REST
                  : ref.f->kind == FIELD_MODEL ? SET_MODEL
                  : ref.f->kind == FIELD_SIZE  ? SET_SIZE
                                               : SET_REST;
  if (mine != pass) return HERD_OK;
  if (!found) {
    const scenario_field *example;
    if (scenario_group_exists(path)) {
      if (strcmp(path, "agents") != 0 && !group_is_mine(&c, path, &example)) return foreign(&c, path, example);
      char known[600];
      scenario_names_under(path, sc->model, known, sizeof known);
      return herd_fail(err, HERD_E_INPUT, "%s: %s: is a group; set one of its fields (%s)", where, path, known);
    }
    const char *dot = strrchr(path, '.');
    char group[160] = "";
    if (dot) snprintf(group, sizeof group, "%.*s", (int)(dot - path), path);
    return unknown_field(&c, path, scenario_group_exists(group) ? group : "");
  }
  if (!scenario_field_of(ref.f, sc->model)) return foreign(&c, path, ref.f);
  if (ref.f->per_agent && ref.entry > sc->agents.entries)
    return herd_fail(err, HERD_E_INPUT, "%s: %s: the agents list has %u entries; set agents[%u] first", where, path,
                     sc->agents.entries, sc->agents.entries);
  if (ref.f->per_agent && ref.entry >= HERD_MAX_STEERING)
    return herd_fail(err, HERD_E_INPUT, "%s: %s: at most %d steering agents", where, path, HERD_MAX_STEERING);
  if (ref.f->per_agent && ref.entry == sc->agents.entries) { /* a new entry */
    scenario_agent_defaults(&sc->agents.entry[ref.entry]);
    sc->agents.entries = ref.entry + 1u;
  }
  json_t *value;
  herd_status s = parse_set_value(&c, path, ref.f, eq + 1, &value);
  if (s != HERD_OK) return s;
  s = store_field(&c, ref, value);
  json_decref(value);
  return s;
}

static herd_status apply_sets(herd_scenario *sc, const char *const *sets, int count, set_pass pass, herd_error *err) {
  herd_status s = HERD_OK;
  for (int i = 0; s == HERD_OK && i < count; ++i) s = apply_set(sc, sets[i], pass, err);
  return s;
}

/* One override on a complete scenario, then the rules between its fields, as --set checks
 * them (herd_sim_set_param). On error sc may be partly changed: callers pass a copy. */
herd_status scenario_apply_set(herd_scenario *sc, const char *set, herd_error *err) {
  herd_status s = apply_set(sc, set, SET_REST, err);
  char where[200];
  snprintf(where, sizeof where, "--set %.180s", set);
  return s == HERD_OK ? check_relations(sc, where, err) : s;
}

/* "PATH=VALUE" with the value as a user would type it: a float's shortest decimal, an
 * integer's digits; anything else as %.17g, for --set's own message about it. */
static void format_set(const scenario_field *f, const char *path, double value, char *out, size_t size) {
  char text[64];
  if (f && f->kind == FIELD_FLOAT && isfinite(value) && fabs(value) < 3.4e38)
    scenario_format_float((float)value, text, sizeof text);
  else
    snprintf(text, sizeof text, "%.17g", value);
  snprintf(out, size, "%s=%s", path, text);
}

herd_status scenario_set_live(herd_scenario *sc, const char *path, double value, herd_error *err) {
  if (!path || !*path || strchr(path, '='))
    return herd_fail(err, HERD_E_INPUT, "herd_sim_set_param: expected a field's path, e.g. sheep.repulsion");
  field_ref ref;
  bool found = scenario_field_find(path, &ref);
  char set[300];
  format_set(found ? ref.f : NULL, path, value, set, sizeof set);
  if (found && !scenario_field_live(ref.f)) {
    char names[700];
    scenario_live_names(sc->model, names, sizeof names);
    return herd_fail(err, HERD_E_INPUT,
                     "%s: %s cannot change during a run (the run was set up for it); set it before the run. "
                     "Fields that can: %s",
                     set, path, names);
  }
  herd_scenario next = *sc;
  herd_status s = scenario_apply_set(&next, set, err); /* unknown or foreign paths, ranges: as --set says */
  if (s != HERD_OK) return s;
  *sc = next;
  return HERD_OK;
}

/* ---- Rules between fields ------------------------------------------------------------ */

uint32_t herd_scenario_dog_count(const herd_scenario *sc) {
  return sc->model == HERD_MODEL_STROMBOM ? sc->dogs.count : 0u;
}

uint32_t herd_scenario_steering_count(const herd_scenario *sc) {
  uint32_t n = herd_scenario_dog_count(sc);
  for (uint32_t e = 0; e < sc->agents.entries && e < HERD_MAX_STEERING; ++e) n += sc->agents.entry[e].count;
  return n + sc->food.points.count;
}

bool herd_scenario_observes_groups(const herd_scenario *sc) {
  if (sc->groups.observe == HERD_GROUPS_ALWAYS) return true;
  if (sc->groups.observe != HERD_GROUPS_WITH_SHEPHERDS) return false;
  for (uint32_t e = 0; e < sc->agents.entries && e < HERD_MAX_STEERING; ++e)
    if (sc->agents.entry[e].strategy == HERD_STRATEGY_SHEPHERD) return true;
  return false;
}

/* Dogs and agents entries together fit HERD_MAX_STEERING; names the count that overflows. */
static herd_status check_steering_total(const herd_scenario *sc, const char *where, herd_error *err) {
  uint32_t total = herd_scenario_dog_count(sc);
  for (uint32_t e = 0; e < sc->agents.entries; ++e) {
    total += sc->agents.entry[e].count;
    if (total > HERD_MAX_STEERING)
      return herd_fail(err, HERD_E_INPUT,
                       "%s: agents[%u].count: %u brings the steering agents to %u, counting dogs.count and every "
                       "agents[].count (allowed: at most %d in all)",
                       where, e, sc->agents.entry[e].count, total, HERD_MAX_STEERING);
  }
  if (total + sc->food.points.count > HERD_MAX_STEERING)
    return herd_fail(err, HERD_E_INPUT,
                     "%s: food.points_m: %u particles with %u other steering agents make %u (allowed: at most %d "
                     "steering agents in all, each food particle one of them)",
                     where, sc->food.points.count, total, total + sc->food.points.count, HERD_MAX_STEERING);
  return HERD_OK;
}

/* Lien's shepherds herd toward the target of a model with a goal: Strömbom's sheep. */
static herd_status check_shepherds(const herd_scenario *sc, const char *where, herd_error *err) {
  for (uint32_t e = 0; e < sc->agents.entries; ++e)
    if (sc->agents.entry[e].strategy == HERD_STRATEGY_SHEPHERD && sc->model != HERD_MODEL_STROMBOM)
      return herd_fail(err, HERD_E_INPUT,
                       "%s: agents[%u].strategy: shepherds herd a flock to its target, which only the strombom model "
                       "has (allowed here: \"cruiser\", \"pursuer\", \"manual\")",
                       where, e);
  return HERD_OK;
}

/* True when p (dims coordinates) lies inside sphere k of the obstacles. */
static bool inside_sphere(const herd_scenario *sc, const float *p, uint32_t k) {
  const float *c = sc->obstacles.spheres.v[k];
  double d2 = 0;
  for (uint32_t i = 0; i < sc->world.dims; ++i) d2 += ((double)p[i] - c[i]) * ((double)p[i] - c[i]);
  return d2 < (double)c[3] * c[3];
}

/* Food lies in the world (every axis within [0, world.size_m]) and outside every obstacle. */
static herd_status check_food(const herd_scenario *sc, const char *where, herd_error *err) {
  for (uint32_t i = 0; i < sc->food.points.count; ++i) {
    const float *p = sc->food.points.v[i];
    for (uint32_t k = 0; k < sc->world.dims; ++k)
      if (!(p[k] >= 0.0f && p[k] <= sc->world.size_m[k])) {
        char at[40], size[40];
        scenario_format_float(p[k], at, sizeof at);
        scenario_format_float(sc->world.size_m[k], size, sizeof size);
        return herd_fail(err, HERD_E_INPUT, "%s: food.points_m[%u][%u]: %s is outside the world (allowed: 0 to %s)",
                         where, i, k, at, size);
      }
    for (uint32_t k = 0; k < sc->obstacles.spheres.count; ++k)
      if (inside_sphere(sc, p, k))
        return herd_fail(err, HERD_E_INPUT,
                         "%s: food.points_m[%u]: inside obstacles.spheres[%u] (allowed: outside every obstacle)", where,
                         i, k);
  }
  return HERD_OK;
}

/* The path: none or at least 2 control points, no two in a row the same (its tangent would
 * vanish there). Steering agents placed at a position do not start inside an obstacle. */
static herd_status check_geometry(const herd_scenario *sc, const char *where, herd_error *err) {
  const herd_point_list *path = &sc->path.points;
  if (path->count == 1)
    return herd_fail(err, HERD_E_INPUT,
                     "%s: path.points_m: 1 point; a Bezier path needs at least 2 control points (or none: no path)",
                     where);
  for (uint32_t i = 1; i < path->count; ++i)
    if (memcmp(path->v[i], path->v[i - 1], sizeof path->v[i]) == 0)
      return herd_fail(err, HERD_E_INPUT,
                       "%s: path.points_m[%u]: the same point as path.points_m[%u] (consecutive control points must "
                       "differ)",
                       where, i, i - 1);
  for (uint32_t e = 0; e < sc->agents.entries; ++e) {
    const float *p = sc->agents.entry[e].position_m;
    for (uint32_t k = 0; !isnan(p[0]) && k < sc->obstacles.spheres.count; ++k)
      if (inside_sphere(sc, p, k))
        return herd_fail(err, HERD_E_INPUT,
                         "%s: agents[%u].position_m: inside obstacles.spheres[%u] (allowed: outside every obstacle)",
                         where, e, k);
  }
  return herd_geometry_check(sc, where, err);
}

static herd_status check_relations(const herd_scenario *sc, const char *where, herd_error *err) {
  const herd_model_info *model = herd_model_info_of(sc->model);
  char why[400];
  if (model->check(sc->params.bytes, sc->flock.count, why, sizeof why))
    return herd_fail(err, HERD_E_INPUT, "%s: %s", where, why);
  const char *section = model->section;
  for (uint32_t k = 0; k < sc->world.dims; ++k) {
    if (sc->flock.spawn.from[k] <= sc->flock.spawn.to[k]) continue;
    char lo[40], hi[40];
    scenario_format_float(sc->flock.spawn.to[k], hi, sizeof hi);
    scenario_format_float(sc->flock.spawn.from[k], lo, sizeof lo);
    return herd_fail(err, HERD_E_INPUT, "%s: %s.spawn.to[%u]: %s must be >= %s.spawn.from[%u] (%s)", where, section, k,
                     hi, section, k, lo);
  }
  herd_status s = check_steering_total(sc, where, err);
  if (s == HERD_OK) s = check_shepherds(sc, where, err);
  if (s == HERD_OK) s = check_geometry(sc, where, err);
  if (s == HERD_OK) s = check_food(sc, where, err);
  if (s == HERD_OK) s = output_check(sc, where, err);
  if (s != HERD_OK) return s;
  for (uint32_t e = 0; e < sc->agents.entries; ++e) {
    const float *d = sc->agents.entry[e].direction;
    if (!isnan(d[0]) && d[0] == 0.0f && d[1] == 0.0f && d[2] == 0.0f)
      return herd_fail(err, HERD_E_INPUT,
                       "%s: agents[%u].direction: a zero vector has no direction (give one, or "
                       "\"random\")",
                       where, e);
  }
  return HERD_OK;
}

/* The schedule, against the scenario it changes: steps ascending and before max_steps, each
 * path a field herd_sim_set_param may change, each value what it would accept at that point of
 * the run (the changes before it made: a range may depend on another field). */
static herd_status check_schedule(const herd_scenario *sc, const char *where, herd_error *err) {
  const herd_schedule *list = &sc->schedule;
  if (list->count > HERD_MAX_SCHEDULE)
    return herd_fail(err, HERD_E_INPUT, "%s: schedule: %u entries (allowed: at most %d)", where, list->count,
                     HERD_MAX_SCHEDULE);
  if (!list->count) return HERD_OK;
  herd_scenario *run = malloc(sizeof *run);
  if (!run) return herd_fail(err, HERD_E_MEMORY, "out of memory checking the schedule");
  *run = *sc;
  run->schedule.count = 0; /* each change is checked as herd_sim_set_param checks it */
  herd_status s = HERD_OK;
  for (uint32_t k = 0; s == HERD_OK && k < list->count; ++k) {
    const herd_schedule_entry *e = &list->entry[k];
    if (!memchr(e->path, '\0', sizeof e->path) || !herd_utf8_valid(e->path))
      s = herd_fail(err, HERD_E_INPUT, "%s: schedule[%u].path: not a path of at most %zu bytes", where, k,
                    sizeof e->path - 1);
    else if (k > 0 && e->step < list->entry[k - 1].step)
      s = herd_fail(err, HERD_E_INPUT,
                    "%s: schedule[%u].step: %u comes before schedule[%u].step, %u (allowed: steps in ascending "
                    "order)",
                    where, k, e->step, k - 1, list->entry[k - 1].step);
    else if (e->step >= sc->max_steps)
      s = herd_fail(err, HERD_E_INPUT,
                    "%s: schedule[%u].step: %u is not before max_steps (%u): the change would never apply", where, k,
                    e->step, sc->max_steps);
    else if (scenario_set_live(run, e->path, e->value, err) != HERD_OK) {
      char why[sizeof err->message];
      snprintf(why, sizeof why, "%s", strncmp(err->message, "--set ", 6) == 0 ? err->message + 6 : err->message);
      s = herd_fail(err, HERD_E_INPUT, "%s: schedule[%u] (at step %u): %s", where, k, e->step, why);
    }
  }
  free(run);
  return s;
}

/* ---- Validating a scenario built in code ------------------------------------------------- */

typedef struct validate_ctx {
  const herd_scenario *sc;
  herd_error *err;
  herd_status status;
} validate_ctx;

/* Every number of a list of points or spheres against its range. */
static herd_status validate_points(load_ctx *c, const scenario_field *f, const herd_point_list *list) {
  if (list->count > f->max_items)
    return herd_fail(c->err, HERD_E_INPUT, "scenario: %s: %u items (allowed: at most %u)", f->path, list->count,
                     f->max_items);
  uint32_t dims = c->sc->world.dims;
  for (uint32_t i = 0; i < list->count; ++i)
    for (uint32_t k = 0; k <= dims; ++k) {
      bool radius = k == dims;
      if (radius && f->kind != FIELD_SPHERES) break;
      const scenario_field *range = radius ? &radius_field : f;
      double x = list->v[i][radius ? 3u : k];
      char element[240];
      snprintf(element, sizeof element, "%s[%u][%u]", f->path, i, k);
      if (!in_range(range, x)) return range_error(c, element, range, x);
    }
  return HERD_OK;
}

/* Every shape of a list against what its kind allows. */
static herd_status validate_shapes(load_ctx *c, const scenario_field *f, const herd_shape_list *list) {
  const shape_spec *spec = shape_spec_of(f);
  if (list->count > f->max_items)
    return herd_fail(c->err, HERD_E_INPUT, "scenario: %s: %u items (allowed: at most %u)", f->path, list->count,
                     f->max_items);
  for (uint32_t i = 0; i < list->count; ++i) {
    const herd_shape *s = &list->s[i];
    char element[240];
    if (s->count < spec->min_points || s->count > spec->max_points)
      return herd_fail(c->err, HERD_E_INPUT, "scenario: %s[%u].points_m: %u points (allowed: %u to %u)", f->path, i,
                       s->count, spec->min_points, spec->max_points);
    for (uint32_t k = 0; k < 2 * s->count + (spec->gate ? 4u : 0u); ++k) {
      double x = k < 2 * s->count ? s->v[k / 2][k % 2] : s->gate[(k - 2 * s->count) / 2][k % 2];
      snprintf(element, sizeof element, "%s[%u].%s", f->path, i, k < 2 * s->count ? "points_m" : "gate_m");
      if (!in_range(f, x)) return range_error(c, element, f, x);
    }
    snprintf(element, sizeof element, "%s[%u].%s", f->path, i, spec->width_key ? spec->width_key : "");
    if (spec->width_key && !in_range(&width_field, s->width_m))
      return range_error(c, element, &width_field, s->width_m);
  }
  return HERD_OK;
}

/* Every number of field f (each entry's, for a per-agent field) against its range. */
static void validate_field(const scenario_field *f, void *arg) {
  validate_ctx *v = arg;
  load_ctx c = {"scenario", (herd_scenario *)v->sc, v->err};
  if (f->kind == FIELD_SCHEDULE) return; /* against the whole scenario: check_schedule */
  if (f->kind == FIELD_POINTS || f->kind == FIELD_SPHERES) {
    if (v->status == HERD_OK) v->status = validate_points(&c, f, scenario_field_caddress(v->sc, (field_ref){f, 0}));
    return;
  }
  if (f->kind == FIELD_IDS) { /* its order and range against the flock: output_check */
    const herd_id_list *ids = scenario_field_caddress(v->sc, (field_ref){f, 0});
    if (v->status == HERD_OK && ids->count > f->max_items)
      v->status = herd_fail(v->err, HERD_E_INPUT, "scenario: %s: %u items (allowed: at most %u)", f->path, ids->count,
                            f->max_items);
    return;
  }
  if (f->kind == FIELD_SHAPES) {
    if (v->status == HERD_OK) v->status = validate_shapes(&c, f, scenario_field_caddress(v->sc, (field_ref){f, 0}));
    return;
  }
  if (f->kind == FIELD_TEXT) { /* ended within its room, and UTF-8 (a JSON string) */
    const char *text = scenario_field_caddress(v->sc, (field_ref){f, 0});
    if (v->status == HERD_OK && (!memchr(text, '\0', f->max_items) || !herd_utf8_valid(text)))
      v->status = herd_fail(v->err, HERD_E_INPUT, "scenario: %s: not text of at most %u bytes of UTF-8", f->path,
                            f->max_items - 1u);
    return;
  }
  uint32_t entries = f->per_agent ? v->sc->agents.entries : 1u;
  for (uint32_t e = 0; v->status == HERD_OK && e < entries; ++e) {
    field_ref ref = {f, e};
    const void *at = scenario_field_caddress(v->sc, ref);
    char path[200];
    field_path(ref, path, sizeof path);
    uint32_t n = scenario_field_length(f, v->sc);
    for (uint32_t k = 0; v->status == HERD_OK && k < n; ++k) {
      double x;
      switch (f->kind) {
        case FIELD_UINT: x = *(const uint32_t *)at; break;
        case FIELD_SEED: x = (double)*(const uint64_t *)at; break;
        case FIELD_MODEL: x = *(const uint32_t *)at < herd_model_total ? 0 : NAN; break;
        case FIELD_STRATEGY: {
          uint32_t s = *(const uint32_t *)at;
          x = (s > HERD_STRATEGY_DOG && s <= HERD_STRATEGY_MANUAL) || s == HERD_STRATEGY_SHEPHERD ? 0 : NAN;
          break;
        }
        case FIELD_WRAP: x = ((const uint32_t *)at)[k] <= 1u ? 0 : NAN; break;
        case FIELD_CHOICE: x = *(const uint32_t *)at < scenario_choice_count(f) ? 0 : NAN; break;
        case FIELD_VEC_RANDOM: x = isnan(((const float *)at)[0]) ? 0.0 : ((const float *)at)[k]; break; /* random */
        default: x = ((const float *)at)[k]; break;
      }
      if (f->kind == FIELD_MODEL || f->kind == FIELD_STRATEGY || f->kind == FIELD_WRAP || f->kind == FIELD_CHOICE) {
        if (isnan(x)) v->status = herd_fail(v->err, HERD_E_INPUT, "scenario: %s: not a known value", path);
        continue;
      }
      if (in_range(f, x)) continue;
      char element[220];
      snprintf(element, sizeof element, n > 1 || f->kind == FIELD_VEC2 ? "%s[%u]" : "%s", path, k);
      v->status = range_error(&c, element, f, x);
    }
  }
}

herd_status herd_scenario_validate(const herd_scenario *sc, herd_error *err) {
  if (sc->model >= herd_model_total) return herd_fail(err, HERD_E_INPUT, "scenario: model: not a known model");
  if (!herd_model_supports_dims(sc->model, sc->world.dims))
    return herd_fail(err, HERD_E_INPUT, "scenario: world: model %s does not run in %uD", herd_model_name(sc->model),
                     sc->world.dims);
  if (sc->agents.entries > HERD_MAX_STEERING)
    return herd_fail(err, HERD_E_INPUT, "scenario: agents: %u entries; at most %d", sc->agents.entries,
                     HERD_MAX_STEERING);
  validate_ctx v = {sc, err, HERD_OK};
  scenario_fields_each(sc->model, validate_field, &v);
  if (v.status != HERD_OK) return v.status;
  herd_status s = check_relations(sc, "scenario", err);
  return s == HERD_OK ? check_schedule(sc, "scenario", err) : s;
}

/* ---- Entry points --------------------------------------------------------------------- */

/* The value at a dotted path of a JSON document, or NULL. */
static const json_t *json_at(const json_t *root, const char *first, const char *second) {
  const json_t *v = json_is_object(root) ? json_object_get(root, first) : NULL;
  if (v && second) v = json_is_object(v) ? json_object_get(v, second) : NULL;
  return v;
}

/* The model, from the document and then the --set overrides; the defaults follow from it. */
static herd_status read_model(load_ctx *c, const json_t *root, const char *const *sets, int set_count) {
  uint32_t model = HERD_MODEL_STROMBOM;
  c->sc->model = model;
  const json_t *v = json_at(root, "model", NULL);
  herd_status s = v ? store_model(c, "model", v, &model) : HERD_OK;
  if (s == HERD_OK) {
    c->sc->model = model;
    s = apply_sets(c->sc, sets, set_count, SET_MODEL, c->err);
  }
  if (s == HERD_OK) {
    model = c->sc->model;
    scenario_set_defaults(c->sc, model);
  }
  return s;
}

/* The world's size (its dimensions) before any vector is read. */
static herd_status read_size(load_ctx *c, const json_t *root, const char *const *sets, int set_count) {
  field_ref ref;
  scenario_field_find("world.size_m", &ref);
  const json_t *v = json_at(root, "world", "size_m");
  herd_status s = HERD_OK;
  if (v && scenario_field_of(ref.f, c->sc->model)) s = store_field(c, ref, v);
  return s == HERD_OK ? apply_sets(c->sc, sets, set_count, SET_SIZE, c->err) : s;
}

herd_status scenario_parse(const char *text, const char *origin, const char *const *sets, int set_count,
                           herd_scenario *out, herd_error *err) {
  json_error_t jerr;
  json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
  if (!root) return herd_fail(err, HERD_E_INPUT, "%s:%d:%d: %s", origin, jerr.line, jerr.column, jerr.text);
  herd_status checked = herd_check_json_numbers(text, origin, err);
  if (checked != HERD_OK) {
    json_decref(root);
    return checked;
  }
  herd_scenario sc;
  scenario_set_defaults(&sc, HERD_MODEL_STROMBOM);
  load_ctx c = {origin, &sc, err};
  herd_status s = json_is_object(root) ? HERD_OK : type_error(&c, "(top level)", "an object", root);
  if (s == HERD_OK) s = read_model(&c, root, sets, set_count);
  if (s == HERD_OK) s = read_size(&c, root, sets, set_count);
  if (s == HERD_OK) s = load_object(&c, root, "");
  json_decref(root);
  if (s == HERD_OK) s = apply_sets(&sc, sets, set_count, SET_REST, err);
  if (s == HERD_OK) {
    char where[300];
    snprintf(where, sizeof where, "%s%s", origin, set_count ? " (with --set)" : "");
    s = check_relations(&sc, where, err);
    if (s == HERD_OK) s = check_schedule(&sc, where, err);
  }
  if (s == HERD_OK) *out = sc;
  return s;
}

herd_status scenario_load(const char *path, const char *const *sets, int set_count, herd_scenario *out,
                          herd_error *err) {
  if (!path) {
    /* The built-in default is Strömbom's setup; with --set model=X, it is X's defaults. */
    const char *text = herd_default_scenario_json();
    for (int i = 0; i < set_count; ++i)
      if (strncmp(sets[i], "model=", 6) == 0) text = strcmp(sets[i] + 6, "strombom") == 0 ? text : "{}";
    return scenario_parse(text, "<default>", sets, set_count, out, err);
  }
  char *text = NULL;
  herd_status s = herd_read_json_file(path, "a scenario", &text, err);
  if (s != HERD_OK) return s;
  s = scenario_parse(herd_skip_bom(text), path, sets, set_count, out, err);
  free(text);
  return s;
}

herd_status herd_scenario_get(const herd_scenario *sc, const char *path, double *value, herd_error *err) {
  char base[200];
  snprintf(base, sizeof base, "%s", path);
  unsigned element = 0;
  field_ref ref;
  size_t len = strlen(base);
  char *bracket = strrchr(base, '[');
  /* "world.size_m[1]": an element of a vector ("agents[2].count" is a field of its own). */
  if (!scenario_field_find(base, &ref) && len && base[len - 1] == ']' && bracket) {
    element = (unsigned)strtoul(bracket + 1, NULL, 10);
    *bracket = '\0';
  }
  if (!scenario_field_find(base, &ref) || !scenario_field_of(ref.f, sc->model))
    return herd_fail(err, HERD_E_INPUT, "%s: not a field of model %s", path, herd_model_name(sc->model));
  if (ref.f->per_agent && ref.entry >= sc->agents.entries)
    return herd_fail(err, HERD_E_INPUT, "%s: the agents list has %u entries", path, sc->agents.entries);
  if (ref.f->kind == FIELD_POINTS || ref.f->kind == FIELD_SPHERES || ref.f->kind == FIELD_SHAPES ||
      ref.f->kind == FIELD_IDS || ref.f->kind == FIELD_SCHEDULE)
    return herd_fail(err, HERD_E_INPUT, "%s: a list, not a number", path);
  if (ref.f->kind == FIELD_TEXT) return herd_fail(err, HERD_E_INPUT, "%s: text, not a number", path);
  const void *at = scenario_field_caddress(sc, ref);
  uint32_t n = scenario_field_length(ref.f, sc);
  if (element >= n) return herd_fail(err, HERD_E_INPUT, "%s: index out of range (the field holds %u)", path, n);
  switch (ref.f->kind) {
    case FIELD_UINT:
    case FIELD_MODEL:
    case FIELD_STRATEGY:
    case FIELD_CHOICE: *value = *(const uint32_t *)at; break;
    case FIELD_SEED: *value = (double)*(const uint64_t *)at; break;
    case FIELD_WRAP: *value = ((const uint32_t *)at)[element]; break;
    case FIELD_FLOAT:
    case FIELD_SQUARE: *value = *(const float *)at; break;
    default: *value = ((const float *)at)[element]; break;
  }
  return HERD_OK;
}

bool herd_scenario_path_points(const herd_scenario *sc, uint32_t count, float *xyz) {
  uint32_t n = sc->path.points.count;
  if (n < 2 || count < 2) return false;
  float control[3 * HERD_MAX_PATH_POINTS];
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t k = 0; k < 3; ++k) control[3 * i + k] = sc->path.points.v[i][k];
  float *path = malloc(herd_path_floats(n, 1u) * sizeof *path); /* only the control points are read */
  if (!path || herd_path_build(path, control, n, 1u) != 0) {
    free(path);
    return false;
  }
  for (uint32_t j = 0; j < count; ++j) {
    herd_vec3 p = herd_path_point(path, (float)j / (float)(count - 1));
    xyz[3 * j] = p.x, xyz[3 * j + 1] = p.y, xyz[3 * j + 2] = p.z;
  }
  free(path);
  return true;
}

/* ---- Dump ----------------------------------------------------------------------------- */

static json_t *float_json(float v) {
  char text[40];
  scenario_format_float(v, text, sizeof text);
  return json_real(strtod(text, NULL));
}

static json_t *floats_json(const float *v, uint32_t n) {
  json_t *a = json_array();
  for (uint32_t k = 0; a && k < n; ++k) json_array_append_new(a, float_json(v[k]));
  return a;
}

static json_t *xy_json(const float (*v)[2], uint32_t n) {
  json_t *a = json_array();
  for (uint32_t i = 0; a && i < n; ++i) json_array_append_new(a, floats_json(v[i], 2));
  return a;
}

static json_t *shapes_json(const shape_spec *spec, const herd_shape_list *list) {
  json_t *a = json_array();
  for (uint32_t i = 0; a && i < list->count; ++i) {
    const herd_shape *s = &list->s[i];
    json_t *o = json_object();
    if (!o) break;
    json_object_set_new(o, "points_m", xy_json(s->v, s->count));
    if (spec->width_key) json_object_set_new(o, spec->width_key, float_json(s->width_m));
    if (spec->gate) json_object_set_new(o, "gate_m", xy_json(s->gate, 2));
    if (spec->water) json_object_set_new(o, "water", json_integer(s->water));
    json_array_append_new(a, o);
  }
  return a;
}

/* Each entry's value as the field it sets holds it: a float's shortest decimal, an integer's
 * digits (every value a checked schedule holds is one of them). */
static json_t *schedule_value_json(const herd_schedule_entry *e) {
  field_ref ref;
  if (scenario_field_find(e->path, &ref) && ref.f->kind == FIELD_FLOAT) return float_json((float)e->value);
  if (e->value == floor(e->value) && fabs(e->value) < 9007199254740992.0) return json_integer((json_int_t)e->value);
  return json_real(e->value);
}

static json_t *schedule_json(const herd_schedule *list) {
  json_t *a = json_array();
  for (uint32_t i = 0; a && i < list->count && i < HERD_MAX_SCHEDULE; ++i) {
    const herd_schedule_entry *e = &list->entry[i];
    json_t *o = json_object();
    if (!o) break;
    json_object_set_new(o, "step", json_integer(e->step));
    json_object_set_new(o, "path", json_string(e->path));
    json_object_set_new(o, "value", schedule_value_json(e));
    json_array_append_new(a, o);
  }
  return a;
}

static json_t *field_json(const herd_scenario *sc, field_ref ref) {
  const void *at = scenario_field_caddress(sc, ref);
  uint32_t n = scenario_field_length(ref.f, sc);
  switch (ref.f->kind) {
    case FIELD_UINT: return json_integer(*(const uint32_t *)at);
    case FIELD_SEED: return json_integer((json_int_t) * (const uint64_t *)at);
    case FIELD_FLOAT:
    case FIELD_SQUARE: return float_json(*(const float *)at);
    case FIELD_VEC2:
    case FIELD_VEC:
    case FIELD_SIZE: return floats_json(at, n);
    case FIELD_VEC_RANDOM: return isnan(((const float *)at)[0]) ? json_string("random") : floats_json(at, n);
    case FIELD_WRAP: {
      json_t *a = json_array();
      for (uint32_t k = 0; a && k < n; ++k) json_array_append_new(a, json_boolean(((const uint32_t *)at)[k]));
      return a;
    }
    case FIELD_MODEL: return json_string(herd_model_name(*(const uint32_t *)at));
    case FIELD_STRATEGY: return json_string(herd_strategy_name((herd_strategy) * (const uint32_t *)at));
    case FIELD_CHOICE: {
      uint32_t k = *(const uint32_t *)at;
      return json_string(k < scenario_choice_count(ref.f) ? ref.f->choices[k] : "?");
    }
    case FIELD_SHAPES: return shapes_json(shape_spec_of(ref.f), at);
    case FIELD_TEXT: return json_string(at);
    case FIELD_SCHEDULE: return schedule_json(at);
    case FIELD_IDS: {
      const herd_id_list *list = at;
      json_t *a = json_array();
      for (uint32_t i = 0; a && i < list->count; ++i) json_array_append_new(a, json_integer(list->id[i]));
      return a;
    }
    case FIELD_POINTS:
    case FIELD_SPHERES: {
      const herd_point_list *list = at;
      json_t *a = json_array();
      for (uint32_t i = 0; a && i < list->count; ++i) {
        json_t *p = floats_json(list->v[i], sc->world.dims);
        if (p && ref.f->kind == FIELD_SPHERES) json_array_append_new(p, float_json(list->v[i][3]));
        json_array_append_new(a, p);
      }
      return a;
    }
  }
  return NULL;
}

/* Sets `value` at the dotted `path` under root, creating the groups on the way. */
static bool put_path(json_t *root, const char *path, json_t *value) {
  const char *dot = strchr(path, '.');
  if (!dot) return json_object_set_new(root, path, value) == 0;
  char head[80];
  snprintf(head, sizeof head, "%.*s", (int)(dot - path), path);
  json_t *child = json_object_get(root, head);
  if (!child) {
    child = json_object();
    if (!child || json_object_set_new(root, head, child) != 0) {
      json_decref(value);
      return false;
    }
  }
  return put_path(child, dot + 1, value);
}

typedef struct dump_ctx {
  const herd_scenario *sc;
  json_t *root, *agents;
  bool ok;
} dump_ctx;

static void dump_field(const scenario_field *f, void *arg) {
  dump_ctx *d = arg;
  if (!d->ok) return;
  if (!f->per_agent) {
    json_t *v = field_json(d->sc, (field_ref){f, 0});
    d->ok = v && put_path(d->root, f->path, v);
    return;
  }
  for (uint32_t e = 0; d->ok && e < d->sc->agents.entries; ++e) {
    json_t *entry = json_array_get(d->agents, e), *v = field_json(d->sc, (field_ref){f, e});
    d->ok = entry && v && json_object_set_new(entry, f->path + strlen("agents[]."), v) == 0;
  }
}

char *herd_scenario_to_json(const herd_scenario *sc) {
  dump_ctx d = {sc, json_object(), json_array(), true};
  d.ok = d.root && d.agents;
  for (uint32_t e = 0; d.ok && e < sc->agents.entries; ++e) d.ok = json_array_append_new(d.agents, json_object()) == 0;
  scenario_fields_each(sc->model, dump_field, &d);
  if (d.ok && sc->agents.entries) {
    d.ok = json_object_set(d.root, "agents", d.agents) == 0;
  }
  char *text = d.ok ? json_dumps(d.root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9)) : NULL;
  json_decref(d.agents);
  json_decref(d.root);
  return text;
}

/* ---- The handle programs hold --------------------------------------------------------- */

/* A new scenario holding *sc, or NULL (and err filled) when out of memory. */
static herd_scenario *scenario_new(const herd_scenario *sc, herd_error *err) {
  herd_scenario *out = malloc(sizeof *out);
  if (!out) {
    herd_fail(err, HERD_E_MEMORY, "out of memory for a scenario");
    return NULL;
  }
  memcpy(out, sc, sizeof *out);
  return out;
}

/* *out: sc, read with status s; NULL (and sc freed) when that failed. */
static herd_status scenario_hand_out(herd_status s, herd_scenario *sc, herd_scenario **out) {
  *out = s == HERD_OK ? sc : NULL;
  if (s != HERD_OK) free(sc);
  return s;
}

herd_status herd_scenario_parse(const char *text, const char *origin, const char *const *sets, int set_count,
                                herd_scenario **out, herd_error *err) {
  herd_scenario *sc = malloc(sizeof *sc); /* 26 KB: not on the caller's stack */
  if (!sc) {
    *out = NULL;
    return herd_fail(err, HERD_E_MEMORY, "out of memory for a scenario");
  }
  return scenario_hand_out(scenario_parse(text, origin, sets, set_count, sc, err), sc, out);
}

herd_status herd_scenario_load(const char *path, const char *const *sets, int set_count, herd_scenario **out,
                               herd_error *err) {
  herd_scenario *sc = malloc(sizeof *sc);
  if (!sc) {
    *out = NULL;
    return herd_fail(err, HERD_E_MEMORY, "out of memory for a scenario");
  }
  return scenario_hand_out(scenario_load(path, sets, set_count, sc, err), sc, out);
}

herd_status herd_scenario_copy(const herd_scenario *sc, herd_scenario **out, herd_error *err) {
  *out = scenario_new(sc, err);
  return *out ? HERD_OK : HERD_E_MEMORY;
}

void herd_scenario_free(herd_scenario *sc) { free(sc); }

/* world.size_m decides how long every vector is, so it is set as at loading: the scenario
 * written out and read back with the override (exact: the dump keeps every float's bits). */
static herd_status set_size(herd_scenario *sc, const char *set, herd_error *err) {
  char *json = herd_scenario_to_json(sc);
  if (!json) return herd_fail(err, HERD_E_MEMORY, "out of memory");
  herd_scenario *next = malloc(sizeof *next);
  herd_status s = next ? scenario_parse(json, "scenario", &set, 1, next, err)
                       : herd_fail(err, HERD_E_MEMORY, "out of memory for a scenario");
  if (s == HERD_OK) memcpy(sc, next, sizeof *sc);
  free(next);
  free(json);
  return s;
}

herd_status herd_scenario_set(herd_scenario *sc, const char *path, const char *value, herd_error *err) {
  if (!path || !*path) return herd_fail(err, HERD_E_INPUT, "herd_scenario_set: no field path given");
  if (!value) return herd_fail(err, HERD_E_INPUT, "herd_scenario_set: %.160s: no value given", path);
  size_t size = strlen(path) + strlen(value) + 2;
  char *set = malloc(size);
  if (!set) return herd_fail(err, HERD_E_MEMORY, "out of memory");
  snprintf(set, size, "%s=%s", path, value);
  field_ref ref;
  herd_status s;
  if (strchr(path, '=')) {
    s = herd_fail(err, HERD_E_INPUT, "herd_scenario_set: %.160s: a field path holds no '='", path);
  } else if (scenario_field_find(path, &ref) && ref.f->kind == FIELD_MODEL) {
    s = herd_fail(err, HERD_E_INPUT,
                  "--set %.180s: model: the model is chosen when the scenario is loaded (a set of model=NAME there), "
                  "since it decides every other field",
                  set);
  } else if (scenario_field_find(path, &ref) && ref.f->kind == FIELD_SIZE) {
    s = set_size(sc, set, err);
  } else {
    herd_scenario *next = scenario_new(sc, err); /* on error sc stays as it was */
    s = next ? scenario_apply_set(next, set, err) : HERD_E_MEMORY;
    if (s == HERD_OK) memcpy(sc, next, sizeof *sc);
    free(next);
  }
  free(set);
  return s;
}

void herd_scenario_obstacles(const herd_scenario *sc, herd_obstacles *out) {
  memset(out, 0, sizeof *out);
  out->spheres = sc->obstacles.spheres;
  out->walls = sc->obstacles.walls;
  out->water = sc->obstacles.water;
  out->pens = sc->obstacles.pens;
  out->bridges = sc->obstacles.bridges;
}
