/* libFuzzer harness for the sweep-file parser (src/sweep/sweep.c): herd_sweep_load on the input
 * as a sweep file, then, for a small sweep, herd_sweep_expand and the scenarios of its runs.
 * Build and run with scripts/fuzz.sh; see tests/fuzz/README.md.
 *
 * The input is the file's bytes. It is written to sweep.json in a folder of the harness's own
 * (on /dev/shm, else $TMPDIR or /tmp) which also holds small-base.json, the base scenario of
 * tests/data/sweeps/small.json, so a relative "scenario" resolves as it does for a user. A
 * sweep naming any other scenario file is loaded but not expanded: the fuzzer does not read
 * the machine's files.
 *
 * Asserted, beyond the sanitizers' own checks (each failure prints why, then aborts):
 *   1. every error message is one non-empty line of valid UTF-8 with no control characters
 *      (fuzz_common.h);
 *   2. a sweep that loads is within the limits of src/sweep/sweep.h (fields varied, values,
 *      fixed settings, seeds), every varied field has a value and every value is JSON text:
 *      the values are given to the scenario as --set PATH=VALUE and recorded as JSON;
 *   3. herd_sweep_to_json gives JSON that lists every value and every seed, so sweep.json
 *      records the sweep that ran (--resume compares it);
 *   4. a sweep that expands has cells x seeds runs, each cell's value indices are in range,
 *      and the scenario of its first and last run builds and validates. */
#define _GNU_SOURCE
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FUZZ_TARGET "fuzz_sweep"
#include "fuzz_common.h"
#include "herd/herd.h"
#include "sweep/sweep.h"

/* A cross of more cells than this is loaded but not expanded: every cell is a scenario parse. */
#define MAX_EXPANDED_CELLS 16

static char folder[256], sweep_path[300], base_path[300];

static void clean_up(void) {
  unlink(sweep_path);
  unlink(base_path);
  rmdir(folder);
}

static void write_file(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
    perror(path);
    abort();
  }
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  scratch_folder("sweep", folder, sizeof folder);
  snprintf(sweep_path, sizeof sweep_path, "%s/sweep.json", folder);
  snprintf(base_path, sizeof base_path, "%s/small-base.json", folder);
  const char base[] = "{\"sheep\": {\"repulsion_radius_m\": 2.5}}\n";
  write_file(base_path, base, strlen(base));
  atexit(clean_up);
  return 0;
}

static void check_limits(const herd_sweep *sw) {
  if (sw->vary_count < 0 || sw->vary_count > HERD_SWEEP_MAX_VARY) fail("vary_count out of range", NULL);
  if (sw->set_count < 0 || sw->set_count > HERD_SWEEP_MAX_SETS) fail("set_count out of range", NULL);
  if (sw->seed_count > HERD_SWEEP_MAX_SEEDS) fail("a loaded sweep has too many seeds", NULL);
  for (int v = 0; v < sw->vary_count; ++v) {
    const herd_sweep_vary *vary = &sw->vary[v];
    if (!vary->path || vary->count < 1 || vary->count > HERD_SWEEP_MAX_VALUES)
      fail("a varied field without a path, or with no or too many values", vary->path);
    for (size_t k = 0; k < vary->count; ++k) {
      json_t *value = json_loads(vary->values[k], JSON_DECODE_ANY, NULL);
      if (!value) {
        char detail[1200];
        snprintf(detail, sizeof detail, "%s: value %zu is \"%s\"", vary->path, k, vary->values[k]);
        fail("a varied value is not JSON text (sweep.json would leave it out)", detail);
      }
      json_decref(value);
    }
  }
}

static void check_record(const herd_sweep *sw) {
  char *text = herd_sweep_to_json(sw);
  if (!text) fail("herd_sweep_to_json returned NULL for a loaded sweep", NULL);
  json_error_t jerr;
  json_t *root = json_loads(text, 0, &jerr);
  if (!root) fail("herd_sweep_to_json gives text that is not JSON", jerr.text);
  const json_t *vary = json_object_get(root, "vary"), *seeds = json_object_get(root, "seeds");
  if (json_object_size(vary) != (size_t)sw->vary_count) fail("sweep.json's vary does not list every field", text);
  for (int v = 0; v < sw->vary_count; ++v)
    if (json_array_size(json_object_get(vary, sw->vary[v].path)) != sw->vary[v].count)
      fail("sweep.json's vary does not list every value of a field", sw->vary[v].path);
  if (json_array_size(seeds) != sw->seed_count) fail("sweep.json does not list every seed", NULL);
  json_decref(root);
  free(text);
}

/* The cells the sweep will have, or 0 when expanding should refuse it (zip of unequal lists)
 * or it is larger than we expand here. */
static size_t cells_of(const herd_sweep *sw) {
  size_t cells = 1;
  for (int v = 0; v < sw->vary_count; ++v) {
    size_t n = sw->vary[v].count;
    if (sw->zip) {
      if (v > 0 && n != sw->vary[0].count) return 0;
      cells = n;
    } else {
      if (n > MAX_EXPANDED_CELLS || cells * n > MAX_EXPANDED_CELLS) return 0;
      cells *= n;
    }
  }
  return cells <= MAX_EXPANDED_CELLS ? cells : 0;
}

static void check_run(const herd_sweep *sw, size_t run) {
  herd_scenario *sc = NULL, *again = NULL;
  herd_error err = no_error();
  if (herd_sweep_scenario(sw, run, &sc, &err) != HERD_OK || !sc) {
    check_message(&err);
    fail("the scenario of a run of an expanded sweep does not build:", err.message);
  }
  /* Valid as a file is: its dump reads back (the scenario is opaque to this layer). */
  char *dump = herd_scenario_to_json(sc);
  if (!dump) fail("herd_scenario_to_json returned NULL for a run's scenario", NULL);
  err = no_error();
  if (herd_scenario_parse(dump, "<dump>", NULL, 0, &again, &err) != HERD_OK) {
    check_message(&err);
    fail("the dump of a run's scenario of an expanded sweep does not read back:", err.message);
  }
  free(dump);
  herd_scenario_free(again);
  herd_scenario_info info = herd_scenario_describe(sc);
  herd_scenario_free(sc);
  if (info.seed != sw->seeds[run % sw->seed_count]) fail("a run's scenario does not have its seed", NULL);
  if (sw->max_steps && info.max_steps != sw->max_steps) fail("a run's scenario does not have the step limit", NULL);
}

static void check_expand(herd_sweep *sw, size_t cells) {
  herd_error err = no_error();
  if (herd_sweep_expand(sw, &err) != HERD_OK) {
    check_message(&err);
    return;
  }
  if (sw->cell_count != cells) fail("herd_sweep_expand counts other cells than the varied fields give", NULL);
  if (herd_sweep_run_count(sw) != cells * sw->seed_count) fail("runs are not cells x seeds", NULL);
  for (size_t cell = 0; cell < cells; ++cell)
    for (int v = 0; v < sw->vary_count; ++v)
      if (herd_sweep_value_index(sw, cell, v) >= sw->vary[v].count) fail("a value index out of range", NULL);
  check_run(sw, 0);
  check_run(sw, herd_sweep_run_count(sw) - 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  write_file(sweep_path, data, size);
  herd_sweep sw;
  herd_sweep_init(&sw);
  herd_error err = no_error();
  if (herd_sweep_load(sweep_path, &sw, &err) != HERD_OK) {
    check_message(&err);
    herd_sweep_free(&sw);
    return 0;
  }
  check_limits(&sw);
  check_record(&sw);
  size_t cells = cells_of(&sw);
  bool own_scenario = !sw.scenario_path || strcmp(sw.scenario_path, base_path) == 0;
  if (cells && own_scenario) check_expand(&sw, cells);
  herd_sweep_free(&sw);
  return 0;
}
