/* `herd experiment`'s shared pieces (src/cli/experiment_parts.c): an experiment's options, its sweeps
 * and report files, and the verdict beside each claim. Each experiment of its own file
 * (experiment_couzin.c, experiment_schools.c) and experiment.c use these. */
#ifndef HERD_CLI_EXPERIMENT_H
#define HERD_CLI_EXPERIMENT_H
#include <stdbool.h>
#include <stdio.h>

#include "../util/outfile.h"
#include "options.h"
#include "sweep_out.h"

#define EXPERIMENT_MAX_SHEEP 8 /* --sheep: at most this many flock sizes */

typedef struct experiment_opts {
  const char *name, *seeds;
  const char *verdicts;                 /* --verdicts DIR */
  unsigned sheep[EXPERIMENT_MAX_SHEEP]; /* --sheep (massive-herding): the flock sizes */
  size_t sheep_count;
  char out[1024];
  bool quick, list;
  sweep_run_opts run;
  backend_args backend;
  char command[1200];
} experiment_opts;

/* One sweep of an experiment, and what it gave. */
typedef struct experiment_sweep {
  herd_sweep sw;
  char dir[1100];
  sweep_run_row *rows;
  size_t row_count;
  double *scratch;
} experiment_sweep;

/* A variant of an experiment: a sweep of its own in OUT/.../folder, its title in the report, and
 * the one field it changes (PATH=VALUE; NULL: the default). */
typedef struct experiment_variant {
  const char *folder, *title, *set;
} experiment_variant;

void experiment_sweep_free(experiment_sweep *e);

/* Expands e->sw, runs it into OUT/subfolder and reads its runs back: 0 or an exit status. */
int run_part(experiment_sweep *e, const experiment_opts *o, const char *subfolder);

/* The value of varied field v in a cell, as a number. */
double cell_value(const herd_sweep *sw, size_t cell, int v);

/* Makes folder `path` unless it exists (an experiment's own folders): 0 or an exit status. */
int ensure_folder(const char *path);

/* Opens OUT/name for writing (replaced: the experiment's own file); NULL after a message. */
FILE *open_report(const experiment_opts *o, const char *name, herd_outfile *out);
int close_report(herd_outfile *out);

/* The report's title and the line naming the command and the herd that made it, and the herds
 * that made its runs where they are others (called after run_part). */
void report_head(FILE *f, const experiment_opts *o, const char *title);

/* ---- Verdicts --------------------------------------------------------------------------------- */

/* A claim's verdict from the share of runs that show what it says: reproduced from
 * EXPERIMENT_REPRODUCED of the runs, partly from EXPERIMENT_PARTLY, else not; "cannot be
 * checked" without runs. */
#define EXPERIMENT_REPRODUCED 0.8
#define EXPERIMENT_PARTLY 0.3
const char *experiment_verdict(unsigned hits, unsigned runs);

/* The verdict table's head, and a row: claim (with its source and number) | herd's figure with
 * its 95 % Wilson interval | verdict | why. */
void verdict_head(FILE *f);
void verdict_row(FILE *f, const char *claim, unsigned hits, unsigned runs, const char *what, const char *why);
/* The same over other units than runs ("cells", "comparisons"): hits of total. */
void verdict_row_of(FILE *f, const char *claim, unsigned hits, unsigned total, const char *unit, const char *what,
                    const char *why);
/* A row whose figure is not a share (a fitted exponent): its text and the verdict judged. */
void verdict_row_judged(FILE *f, const char *claim, const char *figure, const char *verdict, const char *why);

/* Experiments of their own files. */
int couzin_states(const experiment_opts *o);
int netlogo_flocking(const experiment_opts *o); /* experiment_schools.c */
int fish_school(const experiment_opts *o);

#endif
