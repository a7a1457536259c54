/* Run and bench summaries as JSON (--summary FILE.json, --json): the same facts as the text
 * summary, as numbers a program can read, with the provenance of herd_provenance(). The
 * documents follow docs/schema/run-summary.schema.json and bench-summary.schema.json. */
#ifndef HERD_CLI_SUMMARY_H
#define HERD_CLI_SUMMARY_H
#include <getopt.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "herd/herd.h"

/* The "schema" member of each document: the schema's name and version. */
#define SUMMARY_RUN_SCHEMA "herd-run-summary/1"
#define SUMMARY_BENCH_SCHEMA "herd-bench-summary/1"

/* --summary FILE and --json, shared by run, record and bench. */
typedef struct summary_args {
  const char *path; /* --summary FILE; NULL: none */
  bool json;        /* --json: the document on standard output */
} summary_args;

/* Their rows for a command's option table (options.h), ending in a zero row, and their take
 * function: CLI_GO_ON when `code` was --summary or --json, else CLI_NOT_MINE. */
extern const struct option cli_summary_options[];
int summary_args_option(summary_args *a, int code, const char *value);

/* Before anything runs: --summary's file can be written (not replaced without force). 0 or
 * EXIT_BAD_INPUT after saying why. */
int summary_check(const summary_args *a, bool force);

/* Where the human-readable summary goes: standard error under --json (standard output
 * then carries only the JSON document), else `usual`. */
FILE *summary_text_stream(const summary_args *a, FILE *usual);

/* Writes `doc` to --summary (temporary name, renamed) and/or standard output (--json);
 * takes ownership of doc. 0 or an exit status after saying why. */
int summary_emit(const summary_args *a, bool force, json_t *doc);

/* The process's peak resident set in MiB (getrusage). */
double summary_peak_memory_mib(void);

/* The document for a finished, failed-to-finish or interrupted run of `sim` (run and
 * record): outcome, steps, timing, memory, the final observation, the steering agents and
 * the provenance. NULL when out of memory. */
json_t *summary_run_json(const herd_sim *sim, const herd_scenario *sc, double wall_s, int argc, char **argv);

/* Doc with an "mpi" object added when `mpi` is given (herd run --mpi: the process
 * grid, the halos and migrations per step, rank 0's wall time by part); doc as it is otherwise. */
json_t *summary_with_mpi(json_t *doc, const herd_mpi_stats *mpi);

/* The same as a line of the text summary. */
void summary_mpi_text(FILE *out, const herd_mpi_stats *mpi);

/* A double as JSON: a number, or null when not finite (NaN, infinity). */
json_t *summary_number(double v);

#endif
