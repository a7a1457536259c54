/* Sweep specifications: reading, expanding into runs, and the scenario of each run. */
#define _POSIX_C_SOURCE 200809L
#include "sweep.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "../util/jsonfile.h"

/* The largest seed a scenario takes (2^53 - 1: every JSON tool reads it exactly). */
#define MAX_SEED 9007199254740991.0

void herd_sweep_init(herd_sweep *sw) {
  memset(sw, 0, sizeof *sw);
  sw->seeds = malloc(sizeof *sw->seeds);
  if (sw->seeds) sw->seeds[0] = 1, sw->seed_count = 1;
}

/* The array with room for element `count` (elements of `size` bytes): it doubles when full, so
 * its room is always the power of two at or above its count and n pushes copy O(n) bytes. NULL
 * when memory ran out (the array is still valid). */
static void *room_for_one(void *array, size_t count, size_t size) {
  if (count & (count - 1)) return array; /* not a power of two, nor 0: there is room */
  return realloc(array, (count ? 2 * count : 1) * size);
}

static void free_vary(herd_sweep_vary *v) {
  for (size_t k = 0; k < v->count; ++k) free(v->values[k]);
  free(v->values);
  free(v->path);
  memset(v, 0, sizeof *v);
}

void herd_sweep_free(herd_sweep *sw) {
  free(sw->origin);
  free(sw->scenario_path);
  free(sw->scenario_json);
  for (int k = 0; k < sw->set_count; ++k) free(sw->sets[k]);
  for (int k = 0; k < sw->vary_count; ++k) free_vary(&sw->vary[k]);
  free(sw->seeds);
  memset(sw, 0, sizeof *sw);
}

static herd_status out_of_memory(herd_error *err) {
  return herd_fail(err, HERD_E_MEMORY, "out of memory building the sweep");
}

/* ---- Values ----------------------------------------------------------------------------- */

static herd_status push_value(herd_sweep_vary *v, char *text, herd_error *err) {
  if (!text) return out_of_memory(err);
  if (v->count >= HERD_SWEEP_MAX_VALUES) {
    free(text);
    return herd_fail(err, HERD_E_INPUT, "%s: more than %d values", v->path, HERD_SWEEP_MAX_VALUES);
  }
  char **grown = room_for_one(v->values, v->count, sizeof *grown);
  if (!grown) {
    free(text);
    return out_of_memory(err);
  }
  v->values = grown;
  v->values[v->count++] = text;
  return HERD_OK;
}

/* A number as JSON text: integers exactly, others with the digits that survive a double. */
static char *number_text(double x) {
  char buf[64];
  if (x == floor(x) && fabs(x) < 1e15)
    snprintf(buf, sizeof buf, "%.0f", x);
  else
    snprintf(buf, sizeof buf, "%.15g", x);
  return strdup(buf);
}

/* A finite number from the whole of `text`. */
static bool parse_number(const char *text, double *out) {
  char *end;
  errno = 0;
  double x = strtod(text, &end);
  if (end == text || *end || errno == ERANGE || !isfinite(x)) return false;
  *out = x;
  return true;
}

/* FROM:TO[:STEP], both ends included (TO within a millionth of a step counts). */
static herd_status push_range(herd_sweep_vary *v, const char *item, const char *where, const char *label,
                              herd_error *err) {
  char copy[128];
  snprintf(copy, sizeof copy, "%s", item);
  char *second = strchr(copy, ':'), *third = second ? strchr(second + 1, ':') : NULL;
  *second = '\0';
  if (third) *third = '\0';
  double from, to, step = 1.0;
  if (!parse_number(copy, &from) || !parse_number(second + 1, &to) || (third && !parse_number(third + 1, &step)))
    return herd_fail(err, HERD_E_INPUT, "%s: %s: \"%s\" is not a range (allowed: FROM:TO or FROM:TO:STEP, numbers)",
                     where, label, item);
  if (!(step > 0.0)) return herd_fail(err, HERD_E_INPUT, "%s: %s: \"%s\": the step must be > 0", where, label, item);
  if (to < from)
    return herd_fail(err, HERD_E_INPUT, "%s: %s: \"%s\" is an empty range (TO is below FROM)", where, label, item);
  double count = floor((to - from) / step + 1e-6) + 1.0;
  if (count > HERD_SWEEP_MAX_VALUES)
    return herd_fail(err, HERD_E_INPUT, "%s: %s: \"%s\" has %.0f values (allowed: at most %d)", where, label, item,
                     count, HERD_SWEEP_MAX_VALUES);
  for (double k = 0; k < count; ++k) {
    herd_status s = push_value(v, number_text(from + k * step), err);
    if (s != HERD_OK) return s;
  }
  return HERD_OK;
}

/* "5,10:50:5,72": numbers and ranges; another item is a JSON value (true, "x") or else a
 * bare word taken as a string (a strategy name). `label` names the list in messages. */
/* A number as JSON writes it ("05", ".5", "+5", "0x10" are not: strtod reads them, but each
 * value is recorded, and given to the scenario, as JSON text). */
static bool is_json_number(const char *item) {
  json_t *j = json_loads(item, JSON_DECODE_ANY, NULL);
  bool number = j && json_is_number(j);
  json_decref(j);
  return number;
}

static herd_status push_list(herd_sweep_vary *v, const char *list, const char *where, const char *label,
                             herd_error *err) {
  if (!*list) return herd_fail(err, HERD_E_INPUT, "%s: %s: no values given", where, label);
  const char *at = list;
  for (;;) {
    size_t len = strcspn(at, ",");
    char item[128];
    if (len == 0 || len >= sizeof item)
      return herd_fail(err, HERD_E_INPUT, "%s: %s: an empty or overlong value in \"%s\"", where, label, list);
    memcpy(item, at, len);
    item[len] = '\0';
    herd_status s;
    double x;
    json_t *as_json = NULL;
    if (strchr(item, ':') && !strchr(item, '"'))
      s = push_range(v, item, where, label, err);
    else if (parse_number(item, &x))
      s = is_json_number(item)
              ? push_value(v, strdup(item), err)
              : herd_fail(err, HERD_E_INPUT, "%s: %s: \"%s\" is not a number as JSON writes one (e.g. 5, 0.5, 1e-3)",
                          where, label, item);
    else if ((as_json = json_loads(item, JSON_DECODE_ANY, NULL)))
      s = push_value(v, json_dumps(as_json, JSON_ENCODE_ANY | JSON_COMPACT), err);
    else /* a bare word: a string */
      s = push_value(v, json_dumps(as_json = json_string(item), JSON_ENCODE_ANY), err);
    json_decref(as_json);
    if (s != HERD_OK) return s;
    if (!at[len]) return HERD_OK;
    at += len + 1;
  }
}

static herd_sweep_vary *new_vary(herd_sweep *sw, const char *path, const char *where, herd_error *err) {
  for (int k = 0; k < sw->vary_count; ++k)
    if (strcmp(sw->vary[k].path, path) == 0) {
      herd_fail(err, HERD_E_INPUT, "%s: %s is varied twice", where, path);
      return NULL;
    }
  if (sw->vary_count >= HERD_SWEEP_MAX_VARY) {
    herd_fail(err, HERD_E_INPUT, "%s: %s: at most %d fields can be varied", where, path, HERD_SWEEP_MAX_VARY);
    return NULL;
  }
  herd_sweep_vary *v = &sw->vary[sw->vary_count];
  if (!(v->path = strdup(path))) {
    out_of_memory(err);
    return NULL;
  }
  ++sw->vary_count;
  return v;
}

herd_status herd_sweep_add_vary(herd_sweep *sw, const char *path, const char *list, const char *where,
                                herd_error *err) {
  if (!*path) return herd_fail(err, HERD_E_INPUT, "%s: no field named (expected PATH=VALUES)", where);
  herd_sweep_vary *v = new_vary(sw, path, where, err);
  return v ? push_list(v, list, where, path, err) : err->status;
}

/* ---- Seeds -------------------------------------------------------------------------------- */

static herd_status push_seed(herd_sweep *sw, double x, const char *where, herd_error *err) {
  if (!(x >= 0 && x <= MAX_SEED && x == floor(x)))
    return herd_fail(err, HERD_E_INPUT, "%s: %.17g is not a seed (allowed: integers from 0 to 9007199254740991)", where,
                     x);
  if (sw->seed_count >= HERD_SWEEP_MAX_SEEDS)
    return herd_fail(err, HERD_E_INPUT, "%s: more than %d seeds", where, HERD_SWEEP_MAX_SEEDS);
  uint64_t *grown = room_for_one(sw->seeds, sw->seed_count, sizeof *grown);
  if (!grown) return out_of_memory(err);
  sw->seeds = grown;
  sw->seeds[sw->seed_count++] = (uint64_t)x;
  return HERD_OK;
}

/* "1-50", "1,3,7", "1-10,20". */
herd_status herd_sweep_set_seeds(herd_sweep *sw, const char *list, const char *where, herd_error *err) {
  sw->seed_count = 0;
  const char *at = list;
  for (;;) {
    size_t len = strcspn(at, ",");
    char item[64], *dash;
    double lo, hi;
    if (len == 0 || len >= sizeof item) break;
    memcpy(item, at, len);
    item[len] = '\0';
    dash = strchr(item + 1, '-'); /* not a leading minus */
    if (dash) *dash = '\0';
    if (!parse_number(item, &lo) || (dash && !parse_number(dash + 1, &hi))) break;
    if (!dash) hi = lo;
    if (hi < lo) return herd_fail(err, HERD_E_INPUT, "%s: \"%s\" is an empty range of seeds", where, list);
    if (hi - lo >= HERD_SWEEP_MAX_SEEDS)
      return herd_fail(err, HERD_E_INPUT, "%s: more than %d seeds", where, HERD_SWEEP_MAX_SEEDS);
    /* Within the cap before a seed is pushed: a range past it is refused at once. */
    if (sw->seed_count + (size_t)(hi - lo) + 1 > HERD_SWEEP_MAX_SEEDS)
      return herd_fail(err, HERD_E_INPUT, "%s: more than %d seeds", where, HERD_SWEEP_MAX_SEEDS);
    for (double s = lo; s <= hi; ++s) {
      herd_status st = push_seed(sw, s, where, err);
      if (st != HERD_OK) return st;
    }
    if (!at[len]) return HERD_OK;
    at += len + 1;
  }
  return herd_fail(err, HERD_E_INPUT, "%s: \"%s\" is not a list of seeds (allowed: e.g. 1-50, 1,3,7 or 1-10,20)", where,
                   list);
}

herd_status herd_sweep_add_set(herd_sweep *sw, const char *set, herd_error *err) {
  if (sw->set_count >= HERD_SWEEP_MAX_SETS)
    return herd_fail(err, HERD_E_INPUT, "--set %s: at most %d fixed settings", set, HERD_SWEEP_MAX_SETS);
  if (!(sw->sets[sw->set_count] = strdup(set))) return out_of_memory(err);
  ++sw->set_count;
  return HERD_OK;
}

/* ---- The sweep file ---------------------------------------------------------------------- */

static const char *const top_fields[] = {"scenario", "set", "vary", "combine", "seeds", "max_steps"};
#define TOP_FIELD_COUNT (sizeof top_fields / sizeof top_fields[0])

static herd_status file_error(const char *file, const char *path, herd_error *err, const char *what, const json_t *v) {
  char *shown = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
  herd_status s =
      herd_fail(err, HERD_E_INPUT, "%s: %s: %s%s%s", file, path, what, shown ? ", got " : "", shown ? shown : "");
  free(shown);
  return s;
}

static herd_status read_scenario_entry(herd_sweep *sw, const char *file, const json_t *v, herd_error *err) {
  if (json_is_object(v)) {
    sw->scenario_json = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
    return sw->scenario_json ? HERD_OK : out_of_memory(err);
  }
  if (!json_is_string(v)) return file_error(file, "scenario", err, "expected a file name or a scenario object", v);
  const char *name = json_string_value(v), *slash = strrchr(file, '/');
  /* Relative to the sweep file's folder, so a sweep and its scenario travel together. */
  size_t dir = name[0] != '/' && slash ? (size_t)(slash - file + 1) : 0;
  size_t len = dir + strlen(name) + 1;
  if (!(sw->scenario_path = malloc(len))) return out_of_memory(err);
  snprintf(sw->scenario_path, len, "%.*s%s", (int)dir, file, name);
  return HERD_OK;
}

static herd_status read_sets(herd_sweep *sw, const char *file, const json_t *v, herd_error *err) {
  if (!json_is_object(v)) return file_error(file, "set", err, "expected an object of PATH: VALUE", v);
  const char *key;
  json_t *value;
  json_object_foreach((json_t *)v, key, value) {
    char *text = json_dumps(value, JSON_ENCODE_ANY | JSON_COMPACT);
    size_t len = strlen(key) + (text ? strlen(text) : 0) + 2;
    char *set = text ? malloc(len) : NULL;
    if (set) snprintf(set, len, "%s=%s", key, text);
    free(text);
    herd_status s = set ? herd_sweep_add_set(sw, set, err) : out_of_memory(err);
    free(set);
    if (s != HERD_OK) return s;
  }
  return HERD_OK;
}

/* One "vary" member: an array of values, a list string ("5,10:50:5"), or {from, to, step}. */
static herd_status read_vary_member(herd_sweep *sw, const char *file, const char *key, const json_t *v,
                                    herd_error *err) {
  char jpath[300];
  snprintf(jpath, sizeof jpath, "vary.%s", key);
  herd_sweep_vary *vary = new_vary(sw, key, file, err);
  if (!vary) return err->status;
  if (json_is_string(v)) return push_list(vary, json_string_value(v), file, jpath, err);
  if (json_is_object(v)) {
    const json_t *from = json_object_get(v, "from"), *to = json_object_get(v, "to"), *step = json_object_get(v, "step");
    if (!json_is_number(from) || !json_is_number(to) || (step && !json_is_number(step)) ||
        json_object_size(v) != 2u + (step != NULL))
      return file_error(file, jpath, err, "expected {\"from\": X, \"to\": Y, \"step\": Z} (step optional)", v);
    char range[128];
    snprintf(range, sizeof range, "%.17g:%.17g:%.17g", json_number_value(from), json_number_value(to),
             step ? json_number_value(step) : 1.0);
    return push_range(vary, range, file, jpath, err);
  }
  if (!json_is_array(v) || json_array_size(v) == 0)
    return file_error(file, jpath, err,
                      "expected a non-empty array of values, a list such as \"5,10:50:5\", or "
                      "{\"from\", \"to\", \"step\"}",
                      v);
  size_t k;
  json_t *item;
  json_array_foreach((json_t *)v, k, item) {
    herd_status s = push_value(vary, json_dumps(item, JSON_ENCODE_ANY | JSON_COMPACT), err);
    if (s != HERD_OK) return s;
  }
  return HERD_OK;
}

static herd_status read_vary(herd_sweep *sw, const char *file, const json_t *v, herd_error *err) {
  if (!json_is_object(v) || json_object_size(v) == 0)
    return file_error(file, "vary", err, "expected a non-empty object of PATH: VALUES", v);
  const char *key;
  json_t *value;
  json_object_foreach((json_t *)v, key, value) {
    herd_status s = read_vary_member(sw, file, key, value, err);
    if (s != HERD_OK) return s;
  }
  return HERD_OK;
}

static herd_status read_seeds(herd_sweep *sw, const char *file, const json_t *v, herd_error *err) {
  char where[512];
  snprintf(where, sizeof where, "%s: seeds", file);
  if (json_is_string(v)) return herd_sweep_set_seeds(sw, json_string_value(v), where, err);
  if (json_is_integer(v)) {
    json_int_t n = json_integer_value(v);
    if (n < 1 || n > HERD_SWEEP_MAX_SEEDS)
      return file_error(file, "seeds", err, "a count of seeds must be from 1 to 1000000", v);
    char list[64];
    snprintf(list, sizeof list, "1-%lld", (long long)n);
    return herd_sweep_set_seeds(sw, list, where, err);
  }
  if (!json_is_array(v) || json_array_size(v) == 0)
    return file_error(file, "seeds", err, "expected a count, a non-empty array of seeds, or a list such as \"1-50\"",
                      v);
  sw->seed_count = 0;
  size_t k;
  json_t *item;
  json_array_foreach((json_t *)v, k, item) {
    if (!json_is_integer(item)) return file_error(file, "seeds", err, "every seed must be an integer", item);
    herd_status s = push_seed(sw, (double)json_integer_value(item), where, err);
    if (s != HERD_OK) return s;
  }
  return HERD_OK;
}

static herd_status read_member(herd_sweep *sw, const char *file, const char *key, const json_t *v, herd_error *err) {
  if (strcmp(key, "scenario") == 0) return read_scenario_entry(sw, file, v, err);
  if (strcmp(key, "set") == 0) return read_sets(sw, file, v, err);
  if (strcmp(key, "vary") == 0) return read_vary(sw, file, v, err);
  if (strcmp(key, "seeds") == 0) return read_seeds(sw, file, v, err);
  if (strcmp(key, "combine") == 0) {
    const char *c = json_is_string(v) ? json_string_value(v) : "";
    if (strcmp(c, "cross") != 0 && strcmp(c, "zip") != 0)
      return file_error(file, "combine", err, "expected \"cross\" or \"zip\"", v);
    sw->zip = strcmp(c, "zip") == 0;
    return HERD_OK;
  }
  if (strcmp(key, "max_steps") == 0) {
    json_int_t n = json_is_integer(v) ? json_integer_value(v) : 0;
    if (n < 1 || n > 1000000000)
      return file_error(file, "max_steps", err, "expected an integer from 1 to 1000000000", v);
    sw->max_steps = (uint32_t)n;
    return HERD_OK;
  }
  char known[200] = "";
  for (size_t k = 0; k < TOP_FIELD_COUNT; ++k)
    snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", k ? ", " : "", top_fields[k]);
  return herd_fail(err, HERD_E_INPUT, "%s: %s: unknown field (known fields of a sweep: %s)", file, key, known);
}

herd_status herd_sweep_load(const char *path, herd_sweep *sw, herd_error *err) {
  char *text = NULL;
  herd_status s = herd_read_json_file(path, "a sweep", &text, err);
  if (s != HERD_OK) return s;
  json_error_t jerr;
  json_t *root = json_loads(herd_skip_bom(text), JSON_REJECT_DUPLICATES, &jerr);
  if (root) s = herd_check_json_numbers(herd_skip_bom(text), path, err);
  free(text);
  if (!root) return herd_fail(err, HERD_E_INPUT, "%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
  if (s != HERD_OK) {
    json_decref(root);
    return s;
  }
  if (!(sw->origin = strdup(path))) s = out_of_memory(err);
  if (s == HERD_OK && !json_is_object(root)) s = file_error(path, "(top level)", err, "expected an object", root);
  const char *key;
  json_t *value;
  if (s == HERD_OK) json_object_foreach(root, key, value) {
      if ((s = read_member(sw, path, key, value, err)) != HERD_OK) break;
    }
  json_decref(root);
  return s;
}

/* ---- Expansion -------------------------------------------------------------------------- */

size_t herd_sweep_value_index(const herd_sweep *sw, size_t cell, int v) {
  if (sw->zip) return cell;
  size_t stride = 1;
  for (int k = sw->vary_count - 1; k > v; --k) stride *= sw->vary[k].count;
  return (cell / stride) % sw->vary[v].count;
}

size_t herd_sweep_run_count(const herd_sweep *sw) { return sw->cell_count * sw->seed_count; }

/* "sheep.count=100, sheep.neighbours=50": the cell's values, for messages. */
static void describe_cell(const herd_sweep *sw, size_t cell, char *out, size_t size) {
  size_t used = 0;
  out[0] = '\0';
  for (int v = 0; v < sw->vary_count && used < size; ++v)
    used += (size_t)snprintf(out + used, size - used, "%s%s=%s", v ? ", " : "", sw->vary[v].path,
                             sw->vary[v].values[herd_sweep_value_index(sw, cell, v)]);
}

/* The scenario code reports a bad override as "--set PATH=VALUE: ..." or "FILE (with --set):
 * ..."; in a sweep nobody typed --set, and the cell is named instead. */
static const char *without_set_prefix(const char *message) {
  const char *with = strstr(message, " (with --set): ");
  if (with) return with + strlen(" (with --set): ");
  if (strncmp(message, "--set ", 6) != 0) return message;
  const char *equals = strchr(message, '='), *colon = equals ? strstr(equals, ": ") : NULL;
  return colon ? colon + 2 : message;
}

size_t herd_sweep_planned_runs(const herd_sweep *sw) {
  size_t cells = 1;
  for (int v = 0; v < sw->vary_count; ++v) {
    size_t n = sw->vary[v].count;
    if (sw->zip)
      cells = n;
    else if (n && cells > SIZE_MAX / n)
      return SIZE_MAX;
    else
      cells *= n;
  }
  return sw->seed_count && cells > SIZE_MAX / sw->seed_count ? SIZE_MAX : cells * sw->seed_count;
}

herd_status herd_sweep_expand(herd_sweep *sw, herd_error *err) {
  const char *where = sw->origin ? sw->origin : "sweep";
  size_t cells = 1;
  for (int v = 0; v < sw->vary_count; ++v) {
    size_t n = sw->vary[v].count;
    if (sw->zip && v > 0 && n != sw->vary[0].count)
      return herd_fail(err, HERD_E_INPUT,
                       "%s: combine \"zip\" needs lists of one length: %s has %zu values, %s has %zu", where,
                       sw->vary[0].path, sw->vary[0].count, sw->vary[v].path, n);
    if (!sw->zip && cells > (size_t)HERD_SWEEP_MAX_VALUES * 100 / n)
      return herd_fail(err, HERD_E_INPUT, "%s: the cross of the varied fields has over %d cells", where,
                       HERD_SWEEP_MAX_VALUES * 100);
    cells = sw->zip ? n : cells * n;
  }
  if (sw->seed_count == 0) return herd_fail(err, HERD_E_INPUT, "%s: no seeds", where);
  sw->cell_count = cells;
  for (size_t cell = 0; cell < cells; ++cell) {
    herd_scenario *sc = NULL;
    herd_status s = herd_sweep_scenario(sw, cell * sw->seed_count, &sc, err);
    herd_scenario_free(sc);
    if (s == HERD_OK) continue;
    char values[600], message[sizeof err->message];
    describe_cell(sw, cell, values, sizeof values);
    snprintf(message, sizeof message, "%s", without_set_prefix(err->message));
    if (sw->vary_count == 0) return herd_fail(err, s, "%s: %s", where, message);
    return herd_fail(err, s, "%s: cell %zu (%s): %s", where, cell, values, message);
  }
  return HERD_OK;
}

herd_status herd_sweep_scenario(const herd_sweep *sw, size_t run, herd_scenario **out, herd_error *err) {
  size_t cell = run / sw->seed_count;
  char seed[64], steps[64], vary_sets[HERD_SWEEP_MAX_VARY][1024];
  const char *sets[HERD_SWEEP_MAX_SETS + HERD_SWEEP_MAX_VARY + 2];
  int n = 0;
  for (int k = 0; k < sw->set_count; ++k) sets[n++] = sw->sets[k];
  for (int v = 0; v < sw->vary_count; ++v) {
    snprintf(vary_sets[v], sizeof vary_sets[v], "%s=%s", sw->vary[v].path,
             sw->vary[v].values[herd_sweep_value_index(sw, cell, v)]);
    sets[n++] = vary_sets[v];
  }
  snprintf(seed, sizeof seed, "seed=%llu", (unsigned long long)sw->seeds[run % sw->seed_count]);
  sets[n++] = seed;
  if (sw->max_steps) {
    snprintf(steps, sizeof steps, "max_steps=%u", sw->max_steps);
    sets[n++] = steps;
  }
  if (sw->scenario_json) return herd_scenario_parse(sw->scenario_json, "scenario (in the sweep)", sets, n, out, err);
  return herd_scenario_load(sw->scenario_path, sets, n, out, err);
}

char *herd_sweep_to_json(const herd_sweep *sw) {
  json_t *root = json_object(), *sets = json_array(), *vary = json_object(), *seeds = json_array();
  if (sw->scenario_json)
    json_object_set_new(root, "scenario", json_loads(sw->scenario_json, 0, NULL));
  else
    json_object_set_new(root, "scenario", sw->scenario_path ? json_string(sw->scenario_path) : json_null());
  for (int k = 0; k < sw->set_count; ++k) json_array_append_new(sets, json_string(sw->sets[k]));
  json_object_set_new(root, "set", sets);
  for (int v = 0; v < sw->vary_count; ++v) {
    json_t *values = json_array();
    for (size_t k = 0; k < sw->vary[v].count; ++k)
      json_array_append_new(values, json_loads(sw->vary[v].values[k], JSON_DECODE_ANY, NULL));
    json_object_set_new(vary, sw->vary[v].path, values);
  }
  json_object_set_new(root, "vary", vary);
  json_object_set_new(root, "combine", json_string(sw->zip ? "zip" : "cross"));
  for (size_t k = 0; k < sw->seed_count; ++k) json_array_append_new(seeds, json_integer((json_int_t)sw->seeds[k]));
  json_object_set_new(root, "seeds", seeds);
  json_object_set_new(root, "max_steps", sw->max_steps ? json_integer(sw->max_steps) : json_null());
  char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  json_decref(root);
  return text;
}
