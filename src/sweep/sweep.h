/* A sweep: one base scenario, fields to vary (lists and ranges, crossed or zipped), a set of
 * seeds and a step limit, expanded into runs. The format is in docs/sweep.md.
 *
 *   herd_sweep sw;
 *   if (herd_sweep_load("grid.json", &sw, &err) != HERD_OK) ...    (or herd_sweep_init)
 *   herd_sweep_add_vary(&sw, "sheep.neighbours", "5,10:50:5", "--vary", &err);
 *   herd_sweep_expand(&sw, &err);          every cell's scenario is checked here
 *   for (r = 0; r < herd_sweep_run_count(&sw); ++r) herd_sweep_scenario(&sw, r, &sc, &err);
 *   herd_sweep_free(&sw);
 *
 * Runs are numbered cell by cell, seeds innermost: run r is cell r / seeds, seed index
 * r % seeds. Cells of a cross vary the last field fastest. */
#ifndef HERD_SWEEP_SWEEP_H
#define HERD_SWEEP_SWEEP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "layer.h"

#include "herd/herd.h"

#define HERD_SWEEP_MAX_VARY 8
#define HERD_SWEEP_MAX_SETS 64
#define HERD_SWEEP_MAX_VALUES 100000
#define HERD_SWEEP_MAX_SEEDS 1000000

/* One varied field: its path and its values as JSON text ("50", "0.25", "\"pursuer\""). */
typedef struct herd_sweep_vary {
  char *path;
  char **values;
  size_t count;
} herd_sweep_vary;

typedef struct herd_sweep {
  char *origin;                    /* where it came from, for messages: the file, or "--vary" */
  char *scenario_path;             /* the base scenario file (NULL: built in, or scenario_json) */
  char *scenario_json;             /* the base scenario given inline in the sweep file */
  char *sets[HERD_SWEEP_MAX_SETS]; /* fixed overrides, "PATH=VALUE" */
  int set_count;
  herd_sweep_vary vary[HERD_SWEEP_MAX_VARY];
  int vary_count;
  bool zip; /* zip the lists (all as long) instead of crossing them */
  uint64_t *seeds;
  size_t seed_count;
  uint32_t max_steps; /* 0: the scenario's own */
  /* After herd_sweep_expand: */
  size_t cell_count;
} herd_sweep;

/* An empty sweep: the built-in scenario, seed 1, nothing varied. */
void herd_sweep_init(herd_sweep *sw);
void herd_sweep_free(herd_sweep *sw);

/* Reads a sweep file (docs/sweep.md); a relative scenario path is taken from the file's
 * folder. Every error names the file and the JSON path. */
herd_status herd_sweep_load(const char *path, herd_sweep *sw, herd_error *err);

/* What the options add to a sweep (`where` names the option in messages):
 *   vary:  "sheep.neighbours", "5,10:50:5" (values and FROM:TO[:STEP] ranges, inclusive)
 *   seeds: "1-50", "1,3,7", "1-10,20" (replaces the seeds)
 *   set:   "PATH=VALUE" (a fixed override, after the file's) */
herd_status herd_sweep_add_vary(herd_sweep *sw, const char *path, const char *list, const char *where, herd_error *err);
herd_status herd_sweep_set_seeds(herd_sweep *sw, const char *list, const char *where, herd_error *err);
herd_status herd_sweep_add_set(herd_sweep *sw, const char *set, herd_error *err);

/* Counts the cells and checks every cell's scenario (with the first seed): a bad value or a
 * combination the scenario rules refuse is reported with the cell's values. */
herd_status herd_sweep_expand(herd_sweep *sw, herd_error *err);

/* The runs the sweep will have (cells x seeds, SIZE_MAX past it), known before herd_sweep_expand
 * checks every cell: a limit on runs is checked first. */
size_t herd_sweep_planned_runs(const herd_sweep *sw);

size_t herd_sweep_run_count(const herd_sweep *sw);

/* The value index of varied field v in cell `cell`. */
size_t herd_sweep_value_index(const herd_sweep *sw, size_t cell, int v);

/* The scenario of run r: base, fixed sets, the cell's values, the seed and the step limit; a
 * new one (*out, for herd_scenario_free; NULL on error). */
herd_status herd_sweep_scenario(const herd_sweep *sw, size_t run, herd_scenario **out, herd_error *err);

/* The sweep as canonical JSON (scenario, sets, vary with every value listed, combine, seeds,
 * max_steps): what sweep.json records and --resume compares. Free with free(). */
char *herd_sweep_to_json(const herd_sweep *sw);

#endif
