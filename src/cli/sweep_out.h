/* The sweep's folder: sweep.json (what was run, by which herd, where), runs.csv (a row per
 * run, appended in run order and flushed, so that a killed sweep resumes from it), and at
 * the end summary.csv, summary.md and the plots, all computed from runs.csv. */
#ifndef HERD_CLI_SWEEP_OUT_H
#define HERD_CLI_SWEEP_OUT_H
#include <stdbool.h>
#include <stdio.h>

#include "../sweep/sweep.h"
#include "herd/herd.h"

/* What one run gives (herd.h). */
typedef herd_run_result sweep_result;

typedef struct sweep_run_opts sweep_run_opts;

typedef struct sweep_writer {
  const herd_sweep *sw;
  const sweep_run_opts *run;
  char dir[1024];
  const char *command;
  FILE *runs;
  size_t written; /* rows in runs.csv */
  double seconds; /* spent running, this time */
  char started[32];
  char *resumed_from; /* the herd that wrote the earlier rows, when resuming */
} sweep_writer;

/* Prepares o->out: a new folder, a folder without a sweep, or (force) one whose sweep is
 * replaced, or (resume) one whose sweep is this one; *first is the next run to do. Writes
 * sweep.json. 0 or an exit status (2 for a folder that cannot be used). */
/* The files a sweep's folder gets (NULL-terminated). */
extern const char *const sweep_folder_files[];

int sweep_open(sweep_writer *w, const herd_sweep *sw, const sweep_run_opts *o, size_t *first);

/* Appends run r's row (r must be the next) and flushes it. */
int sweep_write_run(sweep_writer *w, size_t r, const sweep_result *result);

/* Closes runs.csv; when `complete`, writes the summaries and plots and the final sweep.json. */
int sweep_close(sweep_writer *w, bool complete);

/* What the summaries need of one run, read back from runs.csv. */
typedef struct sweep_run_row {
  size_t cell;
  bool succeeded;
  double steps, farthest_m, polarisation, mode_changes, drive_farthest_m; /* NaN where runs.csv has none */
  double delivered_fraction;                                              /* delivered / count at the run's end */
  double late_polarisation, late_milling;                                 /* NaN where runs.csv has none */
  double steering_nearest_m, food_eaten;                                  /* NaN where runs.csv has none */
} sweep_run_row;

/* Every run in DIR/runs.csv (all of the sweep's runs, or NULL after a message). */
sweep_run_row *sweep_read_runs(const char *dir, const herd_sweep *sw, size_t *count);

/* A cell's runs summarised: success with its 95 % Wilson interval, steps to success (median,
 * quartiles) over the successful runs, means. `scratch` holds a double per run. */
typedef struct sweep_stats {
  unsigned runs, successes;
  double rate, lo, hi, median, q1, q3, polarisation, mode_changes;
} sweep_stats;
sweep_stats sweep_cell_stats(const herd_sweep *sw, const sweep_run_row *rows, size_t n, size_t cell, double *scratch);

/* Splits a CSV line in place (quoted fields unquoted); the field count, or max + 1 when there
 * are more than max. */
int sweep_split_csv(char *line, char **fields, int max);

/* How a sweep is run: into which folder, how many runs at a time (0: every core), the folder
 * rules, and the command line that sweep.json records. */
struct sweep_run_opts {
  const char *out, *command;
  int threads;                  /* CPU threads (0: every core) */
  const char *backend, *device; /* as for herd run (NULL: cpu) */
  unsigned batch;               /* runs stepped together as one batch of worlds (0: the backend's default) */
  bool force, resume, quiet;
  int mpi_ranks; /* under herd sweep --mpi: the ranks, master included (sweep.json's mpi_ranks); else 0 */
  char backend_chosen[16], device_chosen[16], device_name[128]; /* filled by sweep_check_backend */
};

/* Worlds per batch: the default on OpenCL, and the most --batch takes. */
#define SWEEP_OPENCL_BATCH 64
#define SWEEP_MAX_BATCH 4096

/* --batch K: 0 or an exit status. */
int sweep_parse_batch(const char *text, unsigned *out);

/* Resolves --backend and --device (before any output is opened) and fills in the defaults of
 * threads and batch; 0 or an exit status. */
int sweep_check_backend(sweep_run_opts *o);

/* Runs the (expanded) sweep into o->out, saying what it does: 0, or an exit status. */
int sweep_execute(const herd_sweep *sw, const sweep_run_opts *o);

/* What running a group of runs needs: the sweep and where its batches step. */
typedef struct sweep_runner {
  const herd_sweep *sw;
  const char *backend, *device;
  int batch_threads; /* CPU threads each batch uses */
} sweep_runner;

/* "  1234/4000 runs (31 %), 52.1 runs/s, 0:53 left" on one terminal line (stderr). */
void sweep_show_progress(size_t written, size_t total, size_t first, double started, bool final);

/* The end of a sweep's running, `written` rows in (w->written, w->seconds set): `status`, or
 * else the failure's (run failed_run's error, when failure is not NULL), or else 128 + the
 * signal when Ctrl-C left runs undone. */
int sweep_ended(sweep_writer *w, size_t written, double begun, int status, const herd_error *failure,
                size_t failed_run);

/* Runs [first, first + count) to their ends, in batches of runs of one model and dimension;
 * results[k] is run first + k's. Stops early (HERD_E_INTERRUPTED) once cli_stop is raised. */
herd_status sweep_run_group(const sweep_runner *r, size_t first, uint32_t count, sweep_result *results,
                            herd_error *err);

#endif
