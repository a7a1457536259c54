/* Scenario files: parsing, validation with messages a user can act on, --set overrides,
 * and the JSON dump. Every field comes from the table in scenario_fields.c. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../kernels/grid.h"
#include "error.h"
#include "scenario_fields.h"

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
static void format_float(float v, char *out, size_t size) {
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
  format_number(f->min, lo, sizeof lo);
  format_number(f->max, hi, sizeof hi);
  if (f->kind == FIELD_UINT || f->kind == FIELD_SEED)
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
static herd_status store_integer(load_ctx *c, const scenario_field *f, const json_t *v, char *at) {
  if (json_is_integer(v)) {
    json_int_t x = json_integer_value(v);
    if (x < (json_int_t)f->min || x > (json_int_t)f->max) {
      char range[120];
      describe_range(f, range, sizeof range);
      return herd_fail(c->err, HERD_E_INPUT, "%s: %s: %lld is out of range (allowed: %s)", c->where, f->path,
                       (long long)x, range);
    }
    if (f->kind == FIELD_SEED)
      *(uint64_t *)at = (uint64_t)x;
    else
      *(uint32_t *)at = (uint32_t)x;
    return HERD_OK;
  }
  if (!json_is_real(v) || json_real_value(v) != floor(json_real_value(v)))
    return type_error(c, f->path, "an integer", v);
  double x = json_real_value(v); /* 1e4 is an integer too: convenient in sweeps */
  if (!in_range(f, x)) return range_error(c, f->path, f, x);
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

static herd_status store_vec2(load_ctx *c, const scenario_field *f, const json_t *v, float *at) {
  if (!json_is_array(v) || json_array_size(v) != 2) return type_error(c, f->path, "an array of 2 numbers", v);
  for (size_t i = 0; i < 2; ++i) {
    char path[80];
    snprintf(path, sizeof path, "%s[%zu]", f->path, i);
    herd_status s = store_number(c, path, f, json_array_get(v, i), &at[i]);
    if (s != HERD_OK) return s;
  }
  return HERD_OK;
}

static herd_status store_model(load_ctx *c, const scenario_field *f, const json_t *v, herd_model *at) {
  if (!json_is_string(v)) return type_error(c, f->path, "a model name (allowed: \"strombom\")", v);
  if (strcmp(json_string_value(v), "strombom") != 0)
    return herd_fail(c->err, HERD_E_INPUT, "%s: %s: \"%.60s\" is not a known model (allowed: \"strombom\")", c->where,
                     f->path, json_string_value(v));
  *at = HERD_MODEL_STROMBOM;
  return HERD_OK;
}

static herd_status store_field(load_ctx *c, const scenario_field *f, const json_t *v) {
  char *at = (char *)c->sc + f->offset;
  switch (f->kind) {
    case FIELD_UINT:
    case FIELD_SEED: return store_integer(c, f, v, at);
    case FIELD_FLOAT: return store_number(c, f->path, f, v, (float *)at);
    case FIELD_VEC2: return store_vec2(c, f, v, (float *)at);
    case FIELD_MODEL: return store_model(c, f, v, (herd_model *)at);
  }
  return HERD_OK;
}

/* ---- Walking the document ------------------------------------------------------------ */

static herd_status unknown_field(load_ctx *c, const char *path, const char *group) {
  char near[80], known[400];
  if (scenario_nearest_name(path, near, sizeof near))
    return herd_fail(c->err, HERD_E_INPUT, "%s: %s: unknown field (did you mean %s?)", c->where, path, near);
  scenario_names_under(group, known, sizeof known);
  if (!*group)
    return herd_fail(c->err, HERD_E_INPUT, "%s: %s: unknown field (known top-level fields: %s)", c->where, path, known);
  return herd_fail(c->err, HERD_E_INPUT, "%s: %s: unknown field (known fields in %s: %s)", c->where, path, group,
                   known);
}

static herd_status load_object(load_ctx *c, const json_t *obj, const char *prefix) {
  const char *key;
  const json_t *value;
  json_object_foreach((json_t *)obj, key, value) {
    char path[160];
    int w = snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", key);
    if (w < 0 || (size_t)w >= sizeof path) return unknown_field(c, path, prefix);
    const scenario_field *f = scenario_field_find(path);
    herd_status s;
    if (f)
      s = store_field(c, f, value);
    else if (!scenario_group_exists(path))
      s = unknown_field(c, path, prefix);
    else if (!json_is_object(value))
      s = type_error(c, path, "an object", value);
    else
      s = load_object(c, value, path);
    if (s != HERD_OK) return s;
  }
  return HERD_OK;
}

/* ---- --set PATH=VALUE ---------------------------------------------------------------- */

/* The value as JSON when it parses as JSON, else as a string (so `--set model=strombom`
 * needs no quotes). Non-finite numbers, which JSON cannot hold, are reported here. */
static herd_status parse_set_value(load_ctx *c, const char *path, const char *text, json_t **out) {
  *out = json_loads(text, JSON_DECODE_ANY, NULL);
  if (*out) return HERD_OK;
  const scenario_field *f = scenario_field_find(path);
  bool numeric = f && (f->kind == FIELD_FLOAT || f->kind == FIELD_UINT || f->kind == FIELD_SEED);
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

static herd_status apply_set(herd_scenario *sc, const char *set, herd_error *err) {
  char where[200];
  snprintf(where, sizeof where, "--set %.180s", set);
  load_ctx c = {where, sc, err};
  const char *eq = strchr(set, '=');
  if (!eq || eq == set)
    return herd_fail(err, HERD_E_INPUT, "%s: expected PATH=VALUE, e.g. --set sheep.count=80", where);
  char path[160];
  snprintf(path, sizeof path, "%.*s", (int)(eq - set) < 159 ? (int)(eq - set) : 159, set);
  const scenario_field *f = scenario_field_find(path);
  if (!f) {
    if (scenario_group_exists(path)) {
      char known[400];
      scenario_names_under(path, known, sizeof known);
      return herd_fail(err, HERD_E_INPUT, "%s: %s: is a group; set one of its fields (%s)", where, path, known);
    }
    const char *dot = strrchr(path, '.');
    char group[160] = "";
    if (dot) snprintf(group, sizeof group, "%.*s", (int)(dot - path), path);
    return unknown_field(&c, path, scenario_group_exists(group) ? group : "");
  }
  json_t *value;
  herd_status s = parse_set_value(&c, path, eq + 1, &value);
  if (s != HERD_OK) return s;
  s = store_field(&c, f, value);
  json_decref(value);
  return s;
}

/* ---- Rules between fields ------------------------------------------------------------ */

/* The n-nearest search keeps its selection in each agent's private memory on a device, so
 * it is bounded (kernels/grid.h); only n = N - 1 (the whole flock, through its centroid)
 * needs no search. */
#define MAX_SEARCHED_NEIGHBOURS ((uint32_t)HERD_MAX_NEIGHBOURS)

static herd_status check_relations(const herd_scenario *sc, const char *where, herd_error *err) {
  uint32_t n = sc->sheep.neighbours, everyone = sc->sheep.count - 1;
  if (n == 0 || (n > MAX_SEARCHED_NEIGHBOURS && n < sc->sheep.count && n != everyone))
    return herd_fail(err, HERD_E_INPUT,
                     "%s: sheep.neighbours: %u is out of range (allowed: an integer from 1 to %u, or sheep.count - 1 = "
                     "%u for attraction to the whole flock)",
                     where, n, MAX_SEARCHED_NEIGHBOURS, everyone);
  if (sc->sheep.neighbours >= sc->sheep.count)
    return herd_fail(err, HERD_E_INPUT,
                     "%s: sheep.neighbours: %u must be less than sheep.count (%u): a sheep has at most %u others",
                     where, sc->sheep.neighbours, sc->sheep.count, sc->sheep.count - 1);
  for (int i = 0; i < 2; ++i) {
    if (sc->sheep.spawn.from[i] > sc->sheep.spawn.to[i]) {
      char lo[40], hi[40];
      format_float(sc->sheep.spawn.to[i], hi, sizeof hi);
      format_float(sc->sheep.spawn.from[i], lo, sizeof lo);
      return herd_fail(err, HERD_E_INPUT, "%s: sheep.spawn.to[%d]: %s must be >= sheep.spawn.from[%d] (%s)", where, i,
                       hi, i, lo);
    }
  }
  return HERD_OK;
}

/* ---- Validating a scenario built in code ------------------------------------------------- */

/* The value of field f in sc, element k of a vector. */
static double field_value(const herd_scenario *sc, const scenario_field *f, int k) {
  const char *at = (const char *)sc + f->offset;
  switch (f->kind) {
    case FIELD_UINT: return *(const uint32_t *)at;
    case FIELD_SEED: return (double)*(const uint64_t *)at;
    case FIELD_FLOAT: return *(const float *)at;
    case FIELD_VEC2: return ((const float *)at)[k];
    case FIELD_MODEL: return *(const herd_model *)at == HERD_MODEL_STROMBOM ? 0 : -1;
  }
  return NAN;
}

herd_status herd_scenario_validate(const herd_scenario *sc, herd_error *err) {
  load_ctx c = {"scenario", (herd_scenario *)sc, err};
  for (size_t i = 0; i < scenario_field_count; ++i) {
    const scenario_field *f = &scenario_fields[i];
    for (int k = 0; k < (f->kind == FIELD_VEC2 ? 2 : 1); ++k) {
      double v = field_value(sc, f, k);
      if (f->kind == FIELD_MODEL ? v == 0 : in_range(f, v)) continue;
      if (f->kind == FIELD_MODEL) return herd_fail(err, HERD_E_INPUT, "scenario: model: not a known model");
      char path[80];
      snprintf(path, sizeof path, f->kind == FIELD_VEC2 ? "%s[%d]" : "%s", f->path, k);
      return range_error(&c, path, f, v);
    }
  }
  return check_relations(sc, "scenario", err);
}

/* ---- Entry points --------------------------------------------------------------------- */

herd_status herd_scenario_parse(const char *text, const char *origin, const char *const *sets, int set_count,
                                herd_scenario *out, herd_error *err) {
  json_error_t jerr;
  json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
  if (!root) return herd_fail(err, HERD_E_INPUT, "%s:%d:%d: %s", origin, jerr.line, jerr.column, jerr.text);
  herd_scenario sc;
  scenario_set_defaults(&sc);
  load_ctx c = {origin, &sc, err};
  herd_status s = json_is_object(root) ? load_object(&c, root, "") : type_error(&c, "(top level)", "an object", root);
  json_decref(root);
  for (int i = 0; s == HERD_OK && i < set_count; ++i) s = apply_set(&sc, sets[i], err);
  if (s == HERD_OK) {
    char where[300];
    snprintf(where, sizeof where, "%s%s", origin, set_count ? " (with --set)" : "");
    s = check_relations(&sc, where, err);
  }
  if (s == HERD_OK) *out = sc;
  return s;
}

/* A scenario is a small JSON file: anything larger is a mistake (a device, a log). */
#define MAX_SCENARIO_BYTES (64u << 20)

/* Reads the whole file into a malloc'd NUL-terminated string. */
static herd_status read_scenario_file(const char *path, char **out, herd_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return herd_fail(err, HERD_E_INPUT, "%s: cannot open: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
    fclose(f);
    return herd_fail(err, HERD_E_INPUT, "%s: is a folder; a scenario is a JSON file", path);
  }
  char *text = NULL;
  size_t len = 0, cap = 0;
  bool too_big = false;
  for (;;) {
    if (len + 4096 + 1 > cap) {
      cap = cap ? cap * 2 : 8192;
      char *grown = realloc(text, cap);
      if (!grown) {
        free(text);
        fclose(f);
        return herd_fail(err, HERD_E_MEMORY, "%s: out of memory reading the file", path);
      }
      text = grown;
    }
    size_t got = fread(text + len, 1, 4096, f);
    len += got;
    if (len > MAX_SCENARIO_BYTES) too_big = true;
    if (got < 4096 || too_big) break;
  }
  int read_errno = ferror(f) ? errno : 0;
  fclose(f);
  if (too_big || read_errno) {
    free(text);
    if (too_big)
      return herd_fail(err, HERD_E_INPUT, "%s: larger than %u MiB; a scenario is a small JSON file", path,
                       MAX_SCENARIO_BYTES >> 20);
    return herd_fail(err, HERD_E_INPUT, "%s: cannot read: %s", path, strerror(read_errno));
  }
  text[len] = '\0';
  if (strlen(text) != len) {
    free(text);
    return herd_fail(err, HERD_E_INPUT, "%s: contains a NUL byte; a scenario is JSON text", path);
  }
  *out = text;
  return HERD_OK;
}

herd_status herd_scenario_load(const char *path, const char *const *sets, int set_count, herd_scenario *out,
                               herd_error *err) {
  if (!path) return herd_scenario_parse(herd_default_scenario_json(), "<default>", sets, set_count, out, err);
  char *text = NULL;
  herd_status s = read_scenario_file(path, &text, err);
  if (s != HERD_OK) return s;
  /* A UTF-8 byte order mark, as some editors write: JSON allows a parser to skip it. */
  const char *json = strncmp(text, "\xef\xbb\xbf", 3) == 0 ? text + 3 : text;
  s = herd_scenario_parse(json, path, sets, set_count, out, err);
  free(text);
  return s;
}

/* ---- Dump ----------------------------------------------------------------------------- */

static json_t *float_json(float v) {
  char text[40];
  format_float(v, text, sizeof text);
  return json_real(strtod(text, NULL));
}

static json_t *field_json(const herd_scenario *sc, const scenario_field *f) {
  const char *at = (const char *)sc + f->offset;
  switch (f->kind) {
    case FIELD_UINT: return json_integer(*(const uint32_t *)at);
    case FIELD_SEED: return json_integer((json_int_t) * (const uint64_t *)at);
    case FIELD_FLOAT: return float_json(*(const float *)at);
    case FIELD_VEC2: return json_pack("[oo]", float_json(((const float *)at)[0]), float_json(((const float *)at)[1]));
    case FIELD_MODEL: return json_string("strombom");
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

char *herd_scenario_to_json(const herd_scenario *sc) {
  json_t *root = json_object();
  bool ok = root != NULL;
  for (size_t i = 0; ok && i < scenario_field_count; ++i) {
    json_t *v = field_json(sc, &scenario_fields[i]);
    ok = v && put_path(root, scenario_fields[i].path, v);
  }
  char *text = ok ? json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9)) : NULL;
  json_decref(root);
  return text;
}
