/* `herd experiment`'s shared pieces (experiment.h): running an experiment's sweeps and reading
 * their runs back, the report's files and head (with the herds that made its runs), and the
 * verdict beside each claim. The experiments (experiment.c, experiment_couzin.c,
 * experiment_schools.c) call these; these call none of them. */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../sweep/stats.h"
#include "../sweep/sweep.h"
#include "../util/error.h"
#include "../util/outfile.h"
#include "cli.h"
#include "experiment.h"
#include "sweep_out.h"

void experiment_sweep_free(experiment_sweep *e) {
  herd_sweep_free(&e->sw);
  free(e->rows), free(e->scratch);
  e->rows = NULL, e->scratch = NULL;
}

/* The herds that made the runs of this process's sweeps (runs.csv's "# herd:" line), in the
 * order first seen: the report names them when they are not this herd (--resume of an older
 * experiment). One experiment runs per process. */
#define MADE_BY_MAX 8
static char made_by[MADE_BY_MAX][64];
static size_t made_by_count;

static void note_made_by(const char *dir) {
  char path[1200], *line = NULL;
  size_t size = 0;
  snprintf(path, sizeof path, "%s/runs.csv", dir);
  FILE *f = fopen(path, "r");
  while (f && getline(&line, &size, f) > 0 && line[0] == '#') {
    if (strncmp(line, "# herd: ", 8) != 0) continue;
    json_t *herd = json_loads(line + 8, 0, NULL);
    const char *commit = json_string_value(json_object_get(herd, "commit"));
    bool seen = !commit;
    for (size_t k = 0; k < made_by_count && !seen; ++k) seen = strcmp(made_by[k], commit) == 0;
    if (!seen && made_by_count < MADE_BY_MAX) snprintf(made_by[made_by_count++], sizeof made_by[0], "%s", commit);
    json_decref(herd);
    break;
  }
  free(line);
  if (f) fclose(f);
}

/* Expands e->sw, runs it into OUT/subfolder and reads its runs back. */
int run_part(experiment_sweep *e, const experiment_opts *o, const char *subfolder) {
  herd_error err;
  if (herd_sweep_set_seeds(&e->sw, o->seeds, "--seeds", &err) != HERD_OK || herd_sweep_expand(&e->sw, &err) != HERD_OK)
    return cli_error(&err);
  snprintf(e->dir, sizeof e->dir, "%s/%s", o->out, subfolder);
  sweep_run_opts run = o->run;
  run.out = e->dir;
  /* --resume of an experiment stopped before this sweep began: there is none to go on with */
  char spec[1200];
  snprintf(spec, sizeof spec, "%s/sweep.json", e->dir);
  struct stat st;
  if (run.resume && stat(spec, &st) != 0) run.resume = false;
  int status = sweep_execute(&e->sw, &run);
  if (status) return status;
  note_made_by(e->dir);
  e->rows = sweep_read_runs(e->dir, &e->sw, &e->row_count);
  e->scratch = malloc((e->row_count ? e->row_count : 1) * sizeof *e->scratch);
  return e->rows && e->scratch ? 0 : 1;
}

double cell_value(const herd_sweep *sw, size_t cell, int v) {
  return strtod(sw->vary[v].values[herd_sweep_value_index(sw, cell, v)], NULL);
}

/* Makes folder `path` unless it exists (an experiment's own folders). */
int ensure_folder(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0 && mkdir(path, 0777) != 0)
    return cli_fail(EXIT_BAD_INPUT, "--out %s: cannot create the folder", cli_shown(path));
  return 0;
}

/* Opens OUT/name for writing (replaced: the experiment's own file). */
FILE *open_report(const experiment_opts *o, const char *name, herd_outfile *out) {
  char path[1200];
  snprintf(path, sizeof path, "%s/%s", o->out, name);
  herd_error err;
  if (herd_outfile_open(out, "--out", path, true, &err) != HERD_OK) {
    cli_error(&err);
    return NULL;
  }
  return out->f;
}

int close_report(herd_outfile *out) {
  herd_error err;
  return herd_outfile_commit(out, &err) == HERD_OK ? 0 : cli_error(&err);
}

void report_head(FILE *f, const experiment_opts *o, const char *title) {
  fprintf(f, "# %s\n\n`%s`, herd %s (%s). No number here is edited by hand.%s", title, o->command, herd_version(),
          herd_build_commit(),
          o->quick ? " **Quick version (--quick): few cells and seeds; not the experiment's result.**" : "");
  bool other = false;
  for (size_t k = 0; k < made_by_count; ++k) other = other || strcmp(made_by[k], herd_build_commit()) != 0;
  for (size_t k = 0; other && k < made_by_count; ++k)
    fprintf(f, "%s%s", k ? ", " : " The runs were made by herd ", made_by[k]);
  fputs(other ? " (runs.csv of each sweep); this herd wrote the report from them.\n\n" : "\n\n", f);
}

/* ---- Verdicts ---------------------------------------------------------------------------- */

const char *experiment_verdict(unsigned hits, unsigned runs) {
  if (runs == 0) return "cannot be checked";
  double share = (double)hits / runs;
  return share >= EXPERIMENT_REPRODUCED ? "reproduced" : share >= EXPERIMENT_PARTLY ? "partly" : "not reproduced";
}

void verdict_head(FILE *f) {
  fprintf(f,
          "Each verdict is computed from the runs: **reproduced** when at least %.0f %% of the runs (or of the "
          "seeds, cells or comparisons the row counts) show what the claim says, **partly** from %.0f %%, **not "
          "reproduced** below; the interval is the 95 %% Wilson score interval of that share.\n\n| claim (source) | "
          "herd | verdict | why |\n|---|---|---|---|\n",
          100 * EXPERIMENT_REPRODUCED, 100 * EXPERIMENT_PARTLY);
}

void verdict_row_of(FILE *f, const char *claim, unsigned hits, unsigned total, const char *unit, const char *what,
                    const char *why) {
  double lo = 0, hi = 1;
  herd_wilson95(hits, total, &lo, &hi);
  if (total)
    fprintf(f, "| %s | %u of %u %s %s (%.0f %%; %.0f–%.0f %%) | %s | %s |\n", claim, hits, total, unit, what,
            100.0 * hits / total, 100 * lo, 100 * hi, experiment_verdict(hits, total), why);
  else
    fprintf(f, "| %s | no %s | %s | %s |\n", claim, unit, experiment_verdict(0, 0), why);
}

void verdict_row(FILE *f, const char *claim, unsigned hits, unsigned runs, const char *what, const char *why) {
  verdict_row_of(f, claim, hits, runs, "runs", what, why);
}

void verdict_row_judged(FILE *f, const char *claim, const char *figure, const char *verdict, const char *why) {
  fprintf(f, "| %s | %s | %s | %s |\n", claim, figure, verdict, why);
}
