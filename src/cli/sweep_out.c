/* The sweep's folder: sweep.json, runs.csv (resumable), summaries and plots. */
#define _POSIX_C_SOURCE 200809L
#include "sweep_out.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../record/provenance.h"
#include "../sweep/stats.h"
#include "../util/infile.h"
#include "../util/jsonfile.h"
#include "../util/outfile.h"
#include "cli.h"

/* A sweep holds at most 100,000 runs of a few hundred bytes a row: a runs.csv larger than this
 * is not one herd wrote. */
#define SWEEP_MAX_RUNS_CSV_BYTES (1ull << 30)

/* Columns of runs.csv after the varied fields. */
static const char *const run_columns[] = {"outcome",
                                          "steps",
                                          "wall_s",
                                          "count",
                                          "delivered",
                                          "in_goal",
                                          "centroid_x",
                                          "centroid_y",
                                          "centroid_z",
                                          "farthest_m",
                                          "polarisation",
                                          "milling",
                                          "mode_changes",
                                          "drive_farthest_m",
                                          "polarisation_late",
                                          "milling_late",
                                          "steering_nearest_m",
                                          "food_eaten"};
enum {
  COL_OUTCOME,
  COL_STEPS,
  COL_WALL,
  COL_COUNT,
  COL_DELIVERED,
  COL_IN_GOAL,
  COL_CX,
  COL_CY,
  COL_CZ,
  COL_FARTHEST,
  COL_POLARISATION,
  COL_MILLING,
  COL_MODE_CHANGES,
  COL_DRIVE_FARTHEST,
  COL_LATE_POLARISATION,
  COL_LATE_MILLING,
  COL_STEERING_NEAREST,
  COL_FOOD_EATEN,
  RUN_COLUMNS
};
_Static_assert(RUN_COLUMNS == sizeof run_columns / sizeof run_columns[0], "a name per column");
/* Older herds wrote fewer columns, the last ones added since missing: the oldest layout read
 * ends at drive_farthest_m. A complete sweep of an older layout is summarised (its missing
 * columns empty); one with runs left cannot be resumed (its rows would differ). */
#define OLDEST_RUN_COLUMNS COL_LATE_POLARISATION

/* Columns before the varied fields: run, cell, seed. */
#define LEAD_COLUMNS 3

static void path_in(const sweep_writer *w, const char *name, char *out, size_t size) {
  snprintf(out, size, "%s/%s", w->dir, name);
}

/* A field for CSV: quoted (quotes doubled) when it holds a comma, a quote or a line break. */
static void csv_field(FILE *f, const char *text) {
  if (!strpbrk(text, ",\"\r\n")) {
    fputs(text, f);
    return;
  }
  fputc('"', f);
  for (const char *p = text; *p; ++p) {
    if (*p == '"') fputc('"', f);
    fputc(*p, f);
  }
  fputc('"', f);
}

/* A varied value (JSON text) as CSV: a string's own text, anything else as written. */
static void csv_value(FILE *f, const char *json_text) {
  json_t *v = json_loads(json_text, JSON_DECODE_ANY, NULL);
  csv_field(f, json_is_string(v) ? json_string_value(v) : json_text);
  json_decref(v);
}

/* The provenance as "# " comment lines heading runs.csv and summary.csv: as sweep.json has
 * it (herd, command, date, host, backend, the sweep), one line each. */
static void write_provenance(const sweep_writer *w, FILE *f) {
  json_t *p = herd_provenance(NULL, NULL, 0, NULL);
  if (!p) return;
  const sweep_run_opts *o = w->run;
  json_object_set_new(p, "command", json_string(w->command));
  json_object_set_new(p, "date", json_string(w->started));
  json_object_set_new(p, "backend", json_pack("{s:s, s:s}", "name", o->backend, "device", o->device_name));
  if (o->mpi_ranks) json_object_set_new(p, "mpi_ranks", json_integer(o->mpi_ranks));
  char *spec = herd_sweep_to_json(w->sw);
  if (spec) json_object_set_new(p, "sweep", json_loads(spec, 0, NULL));
  free(spec);
  herd_csv_comments(f, p);
  json_decref(p);
}

static void write_header(const sweep_writer *w, FILE *f) {
  fputs("run,cell,seed", f);
  for (int v = 0; v < w->sw->vary_count; ++v) fputc(',', f), csv_field(f, w->sw->vary[v].path);
  for (int c = 0; c < RUN_COLUMNS; ++c) fprintf(f, ",%s", run_columns[c]);
  fputc('\n', f);
}

/* A number as the summary prints it: "" for NaN (no value). */
static const char *number(double x, const char *format) {
  static char ring[8][48];
  static int next;
  char *out = ring[next++ % 8];
  if (isnan(x))
    out[0] = '\0';
  else
    snprintf(out, 48, format, x);
  return out;
}

static const char *outcome_word(herd_outcome o) { return o == HERD_SUCCEEDED ? "succeeded" : "step_limit"; }

int sweep_write_run(sweep_writer *w, size_t r, const sweep_result *x) {
  const herd_sweep *sw = w->sw;
  size_t cell = r / sw->seed_count;
  FILE *f = w->runs;
  fprintf(f, "%zu,%zu,%llu", r, cell, (unsigned long long)sw->seeds[r % sw->seed_count]);
  for (int v = 0; v < sw->vary_count; ++v) {
    fputc(',', f);
    csv_value(f, sw->vary[v].values[herd_sweep_value_index(sw, cell, v)]);
  }
  const herd_observation *o = &x->obs;
  fprintf(f, ",%s,%u,%.4f,%u,%u,%u,%.9g,%.9g,%.9g,%.9g,%.6f,%.6f,%u,%s,%s,%s,%s,%s\n", outcome_word(x->outcome),
          x->steps, x->wall_s, o->count, o->delivered, o->in_goal, o->centroid[0], o->centroid[1], o->centroid[2],
          (double)o->farthest_dist_m, (double)o->polarisation, (double)o->milling, x->mode_changes,
          number(x->drive_farthest_m, "%.6g"), number(x->late_polarisation, "%.6f"), number(x->late_milling, "%.6f"),
          number(x->steering_nearest_m, "%.6g"), number(x->food_eaten, "%.0f"));
  if (fflush(f) != 0 || ferror(f))
    return cli_fail(1, "%s/runs.csv: write failed: %s", cli_shown(w->dir), strerror(errno));
  return 0;
}

/* ---- The backend ---------------------------------------------------------------------- */

int sweep_parse_batch(const char *text, unsigned *out) {
  char *end;
  errno = 0;
  long long k = strtoll(text, &end, 10);
  if (end == text || *end || errno || k < 1 || k > SWEEP_MAX_BATCH)
    return cli_fail(EXIT_BAD_INPUT, "--batch: \"%s\" is not allowed (allowed: an integer from 1 to %d)",
                    cli_shown(text), SWEEP_MAX_BATCH);
  *out = (unsigned)k;
  return 0;
}

int sweep_check_backend(sweep_run_opts *o) {
  herd_backend_choice choice;
  herd_error err;
  if (herd_choose_backend(o->backend, o->device, &choice, &err) != HERD_OK) return cli_error(&err);
  snprintf(o->backend_chosen, sizeof o->backend_chosen, "%s", choice.backend);
  snprintf(o->device_chosen, sizeof o->device_chosen, "%s", choice.device);
  snprintf(o->device_name, sizeof o->device_name, "%s", choice.device_name);
  o->backend = o->backend_chosen;
  o->device = o->device_chosen[0] ? o->device_chosen : NULL;
  if (o->batch == 0) o->batch = strcmp(o->backend, "cpu") == 0 ? 1 : SWEEP_OPENCL_BATCH;
  if (o->threads == 0) o->threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
  if (choice.note[0] && !o->quiet) fprintf(stderr, "herd: %s\n", choice.note);
  return 0;
}

/* ---- sweep.json ----------------------------------------------------------------------- */

/* Writes sweep.json: provenance, the sweep, the base scenario as resolved for run 0. */
static int write_sweep_json(const sweep_writer *w, bool finished) {
  herd_scenario *sc;
  herd_error err;
  if (herd_sweep_scenario(w->sw, 0, &sc, &err) != HERD_OK) return cli_error(&err);
  char *spec = herd_sweep_to_json(w->sw), *base = herd_scenario_to_json(sc), finished_at[32];
  herd_scenario_free(sc);
  herd_utc_now(finished_at, sizeof finished_at);
  json_t *root = json_pack("{s:{s:s, s:s}, s:s, s:s, s:o, s:o, s:I, s:I, s:I}", "herd", "version", herd_version(),
                           "commit", herd_build_commit(), "command", w->command, "started", w->started, "finished",
                           finished ? json_string(finished_at) : json_null(), "machine", herd_host_json(), "runs",
                           (json_int_t)herd_sweep_run_count(w->sw), "cells", (json_int_t)w->sw->cell_count, "seeds",
                           (json_int_t)w->sw->seed_count);
  const sweep_run_opts *o = w->run;
  json_object_set_new(root, "backend",
                      json_pack("{s:s, s:s, s:i, s:I}", "name", o->backend, "device", o->device_name, "threads",
                                o->threads, "batch", (json_int_t)o->batch));
  if (o->mpi_ranks) json_object_set_new(root, "mpi_ranks", json_integer(o->mpi_ranks));
  if (w->resumed_from) json_object_set_new(root, "earlier_rows_by", json_string(w->resumed_from));
  if (finished) json_object_set_new(root, "seconds_this_time", json_real(w->seconds));
  json_object_set_new(root, "sweep", spec ? json_loads(spec, 0, NULL) : json_null());
  json_object_set_new(root, "base_scenario", base ? json_loads(base, 0, NULL) : json_null());
  free(spec), free(base);
  char path[1100];
  path_in(w, "sweep.json", path, sizeof path);
  herd_outfile out;
  int status = 0;
  if (herd_outfile_open(&out, "--out", path, true, &err) != HERD_OK) status = cli_error(&err);
  if (status == 0) {
    json_dumpf(root, out.f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', out.f);
    if (herd_outfile_commit(&out, &err) != HERD_OK) status = cli_error(&err);
  }
  json_decref(root);
  return status;
}

/* ---- Opening the folder --------------------------------------------------------------- */

const char *const sweep_folder_files[] = {"sweep.json", "runs.csv",    "summary.csv", "summary.md",
                                          "plots.gp",   "success.png", "steps.png",   NULL};

static bool exists(const char *path) { return access(path, F_OK) == 0; }

/* The folder exists (made when missing, unless resuming: *made says so) and is a folder. */
static int make_folder(const char *dir, bool resume, bool *made) {
  struct stat st;
  *made = false;
  if (stat(dir, &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return cli_fail(EXIT_BAD_INPUT, "--out %s: not a folder", cli_shown(dir));
    return 0;
  }
  if (resume && errno == ENOENT)
    return cli_fail(EXIT_BAD_INPUT, "--resume: %s: no such folder; there is no sweep to resume", cli_shown(dir));
  if (errno != ENOENT || mkdir(dir, 0777) != 0)
    return cli_fail(EXIT_BAD_INPUT, "--out %s: cannot create the folder: %s", cli_shown(dir), strerror(errno));
  return 0;
}

/* --resume: the sweep in the folder must be this one; remembers which herd wrote it. */
static int check_same_sweep(sweep_writer *w) {
  char path[1100];
  path_in(w, "sweep.json", path, sizeof path);
  json_error_t jerr;
  herd_error err;
  char *text = NULL;
  int status = 0;
  if (herd_read_json_file(path, "a sweep's record", &text, &err) != HERD_OK)
    status = cli_fail(EXIT_BAD_INPUT, "--resume: %s", err.message);
  json_t *old = text ? json_loads(text, 0, &jerr) : NULL, *mine = NULL;
  free(text);
  char *spec = herd_sweep_to_json(w->sw);
  if (spec) mine = json_loads(spec, 0, NULL);
  free(spec);
  if (status == 0 && !old)
    status = cli_fail(EXIT_BAD_INPUT, "--resume: %s: cannot read it: %s", cli_shown(path), jerr.text);
  else if (status == 0 && !json_equal(json_object_get(old, "sweep"), mine))
    status = cli_fail(EXIT_BAD_INPUT,
                      "--resume: the sweep differs from the one in %s (scenario, set, vary, combine, seeds or steps); "
                      "start afresh with --force",
                      cli_shown(path));
  const char *commit = old ? json_string_value(json_object_get(json_object_get(old, "herd"), "commit")) : NULL;
  if (status == 0 && commit && !(w->resumed_from = strdup(commit))) status = cli_fail(1, "out of memory");
  if (status == 0 && commit && strcmp(commit, herd_build_commit()) != 0 && !w->run->quiet)
    fprintf(stderr, "herd: note: the rows already in runs.csv came from herd %s; this is %s\n", cli_shown(commit),
            herd_build_commit());
  json_decref(old);
  json_decref(mine);
  return status;
}

/* True when `line` is `header` with some of the columns after OLDEST_RUN_COLUMNS left out: an
 * older herd's runs.csv of the same sweep. */
static bool older_header(const char *line, const char *header) {
  size_t n = strlen(line);
  if (n < 2 || line[n - 1] != '\n' || strncmp(line, header, n - 1) != 0 || header[n - 1] != ',') return false;
  for (int c = OLDEST_RUN_COLUMNS - 1; c < RUN_COLUMNS - 1; ++c) { /* it ends at one of these columns */
    size_t len = strlen(run_columns[c]);
    if (len + 1 < n && line[n - 2 - len] == ',' && strncmp(line + n - 1 - len, run_columns[c], len) == 0) return true;
  }
  return false;
}

/* Keeps the whole rows of runs.csv that are runs 0, 1, 2, ... in order (a killed sweep may
 * have left half a row) and cuts the rest; *kept is their count. */
static int keep_whole_rows(sweep_writer *w, const char *path, size_t *kept) {
  char label[1200];
  herd_error err;
  snprintf(label, sizeof label, "--resume: %s", path);
  if (herd_input_check(path, label, "runs.csv", SWEEP_MAX_RUNS_CSV_BYTES, &err) != HERD_OK) return cli_error(&err);
  FILE *f = fopen(path, "r+");
  if (!f) return cli_fail(EXIT_BAD_INPUT, "--resume: %s: %s", cli_shown(path), strerror(errno));
  char *header = NULL, *line = NULL;
  size_t header_size = 0, size = 0;
  FILE *want = open_memstream(&header, &header_size);
  write_header(w, want);
  fclose(want);
  ssize_t got;
  int status = 0;
  long keep = 0, comments = 0; /* the provenance lines before the header stay */
  while ((got = getline(&line, &size, f)) > 0 && line[0] == '#') comments += got;
  bool older = got > 0 && strcmp(line, header) != 0 && older_header(line, header);
  if (got < 0 || (strcmp(line, header) != 0 && !older))
    status = cli_fail(EXIT_BAD_INPUT, "--resume: %s: its header is not this sweep's; start afresh with --force",
                      cli_shown(path));
  for (keep = comments + (got > 0 ? got : 0), *kept = 0; status == 0 && (got = getline(&line, &size, f)) > 0; ++*kept) {
    char *end;
    unsigned long long run = strtoull(line, &end, 10);
    if (line[got - 1] != '\n' || *end != ',' || run != *kept) break;
    keep += got;
  }
  size_t total = herd_sweep_run_count(w->sw);
  if (status == 0 && older && *kept < total)
    status = cli_fail(EXIT_BAD_INPUT,
                      "--resume: %s: written by an older herd, without the last columns this one writes; its %zu of "
                      "%zu runs can be summarised but not added to: start afresh with --force",
                      cli_shown(path), *kept, total);
  if (status == 0 && (fflush(f) != 0 || ftruncate(fileno(f), keep) != 0))
    status = cli_fail(1, "%s: cannot cut the unfinished row: %s", cli_shown(path), strerror(errno));
  free(line);
  free(header);
  fclose(f);
  return status;
}

int sweep_open(sweep_writer *w, const herd_sweep *sw, const sweep_run_opts *o, size_t *first) {
  const char *dir = o->out;
  bool resume = o->resume, force = o->force;
  memset(w, 0, sizeof *w);
  w->sw = sw, w->command = o->command, w->run = o;
  snprintf(w->dir, sizeof w->dir, "%s", dir);
  herd_utc_now(w->started, sizeof w->started);
  *first = 0;
  bool made;
  int status = make_folder(dir, resume, &made);
  char runs[1100], spec[1100];
  path_in(w, "runs.csv", runs, sizeof runs);
  path_in(w, "sweep.json", spec, sizeof spec);
  bool holds = exists(runs) || exists(spec);
  if (status == 0 && resume && !(exists(runs) && exists(spec)))
    status =
        cli_fail(EXIT_BAD_INPUT, "--resume: %s holds no sweep to resume (no runs.csv and sweep.json)", cli_shown(dir));
  if (status == 0 && !resume && holds && !force)
    status = cli_fail(EXIT_BAD_INPUT,
                      "--out %s: holds a sweep already (runs.csv, sweep.json); go on with --resume or start afresh "
                      "with --force",
                      cli_shown(dir));
  if (status == 0 && resume) status = check_same_sweep(w);
  if (status == 0 && resume) status = keep_whole_rows(w, runs, first);
  if (status == 0) status = write_sweep_json(w, false);
  if (status == 0 && !(w->runs = fopen(runs, resume ? "a" : "w")))
    status = cli_fail(1, "%s: cannot write: %s", cli_shown(runs), strerror(errno));
  if (status == 0 && !resume) write_provenance(w, w->runs);
  if (status == 0 && !resume) write_header(w, w->runs);
  if (status == 0 && fflush(w->runs) != 0) status = cli_fail(1, "%s: write failed", cli_shown(runs));
  if (status) {
    if (w->runs) fclose(w->runs);
    if (made) { /* what this call wrote into the folder it made, and the folder */
      unlink(spec);
      unlink(runs);
      rmdir(dir);
    }
    free(w->resumed_from);
    w->runs = NULL, w->resumed_from = NULL;
  }
  w->written = *first;
  return status;
}

/* ---- The summary, from runs.csv --------------------------------------------------------- */

int sweep_split_csv(char *line, char **fields, int max) {
  int n = 0;
  char *p = line;
  for (;;) {
    if (n == max) return max + 1;
    char *out = p;
    fields[n++] = out;
    if (*p == '"') {
      for (++p; *p; ++p) {
        if (*p == '"' && p[1] != '"') {
          ++p;
          break;
        }
        *out++ = *p == '"' ? *++p : *p;
      }
    }
    while (*p && *p != ',' && *p != '\n' && *p != '\r') *out++ = *p++;
    char sep = *p;
    *out = '\0';
    if (sep != ',') return n;
    ++p;
  }
}

/* An empty field (no value) as NaN. */
static double optional_number(const char *field) { return *field ? strtod(field, NULL) : NAN; }

sweep_run_row *sweep_read_runs(const char *dir, const herd_sweep *sw, size_t *count) {
  char path[1100];
  snprintf(path, sizeof path, "%s/runs.csv", dir);
  FILE *f = fopen(path, "r");
  size_t total = herd_sweep_run_count(sw);
  sweep_run_row *rows = calloc(total ? total : 1, sizeof *rows);
  char *line = NULL, *fields[LEAD_COLUMNS + HERD_SWEEP_MAX_VARY + RUN_COLUMNS + 1];
  size_t size = 0, n = 0;
  int lead = LEAD_COLUMNS + sw->vary_count, want = lead + RUN_COLUMNS;
  bool header = true;
  while (f && rows && getline(&line, &size, f) > 0 && n < total) {
    if (line[0] == '#') continue; /* the provenance */
    if (header) {
      header = false;
      continue;
    }
    int got = sweep_split_csv(line, fields, want + 1);
    if (got < lead + OLDEST_RUN_COLUMNS || got > want) break;
    for (; got < want; ++got) fields[got] = ""; /* an older herd's layout: the later columns empty */
    rows[n].cell = strtoull(fields[1], NULL, 10);
    rows[n].succeeded = strcmp(fields[lead + COL_OUTCOME], "succeeded") == 0;
    rows[n].steps = strtod(fields[lead + COL_STEPS], NULL);
    rows[n].farthest_m = strtod(fields[lead + COL_FARTHEST], NULL);
    rows[n].polarisation = strtod(fields[lead + COL_POLARISATION], NULL);
    rows[n].mode_changes = strtod(fields[lead + COL_MODE_CHANGES], NULL);
    rows[n].drive_farthest_m = optional_number(fields[lead + COL_DRIVE_FARTHEST]);
    rows[n].late_polarisation = optional_number(fields[lead + COL_LATE_POLARISATION]);
    rows[n].late_milling = optional_number(fields[lead + COL_LATE_MILLING]);
    rows[n].steering_nearest_m = optional_number(fields[lead + COL_STEERING_NEAREST]);
    rows[n].food_eaten = optional_number(fields[lead + COL_FOOD_EATEN]);
    double agents = strtod(fields[lead + COL_COUNT], NULL);
    rows[n].delivered_fraction = agents > 0 ? strtod(fields[lead + COL_DELIVERED], NULL) / agents : NAN;
    ++n;
  }
  free(line);
  if (f) fclose(f);
  if (!rows || n != total) {
    cli_fail(1, "%s: holds %zu of the %zu runs; cannot summarise it", cli_shown(path), n, total);
    free(rows);
    return NULL;
  }
  *count = n;
  return rows;
}

/* The runs of a group of cells (those for which `in(cell)` holds), summarised. */
typedef bool (*cell_filter)(const herd_sweep *sw, size_t cell, const size_t *want);

static sweep_stats summarise(const herd_sweep *sw, const sweep_run_row *rows, size_t n, cell_filter in,
                             const size_t *want, double *scratch) {
  sweep_stats g = {0};
  size_t steps = 0;
  for (size_t k = 0; k < n; ++k) {
    if (!in(sw, rows[k].cell, want)) continue;
    ++g.runs;
    g.polarisation += rows[k].polarisation, g.mode_changes += rows[k].mode_changes;
    if (rows[k].succeeded) ++g.successes, scratch[steps++] = rows[k].steps;
  }
  herd_sort_doubles(scratch, steps);
  g.rate = g.runs ? (double)g.successes / g.runs : NAN;
  herd_wilson95(g.successes, g.runs, &g.lo, &g.hi);
  g.median = herd_quantile(scratch, steps, 0.5);
  g.q1 = herd_quantile(scratch, steps, 0.25);
  g.q3 = herd_quantile(scratch, steps, 0.75);
  g.polarisation = g.runs ? g.polarisation / g.runs : NAN;
  g.mode_changes = g.runs ? g.mode_changes / g.runs : NAN;
  return g;
}

/* want[0] = the cell. */
static bool one_cell(const herd_sweep *sw, size_t cell, const size_t *want) {
  (void)sw;
  return cell == want[0];
}

sweep_stats sweep_cell_stats(const herd_sweep *sw, const sweep_run_row *rows, size_t n, size_t cell, double *scratch) {
  return summarise(sw, rows, n, one_cell, &cell, scratch);
}

/* want[v] = the value index of varied field v, or SIZE_MAX for any (v < 2 only). */
static bool first_two(const herd_sweep *sw, size_t cell, const size_t *want) {
  for (int v = 0; v < 2 && v < sw->vary_count; ++v)
    if (want[v] != SIZE_MAX && herd_sweep_value_index(sw, cell, v) != want[v]) return false;
  return true;
}

/* The cell's values, each after `before` and followed by `after`. */
static void write_cell_values(FILE *f, const herd_sweep *sw, size_t cell, const char *before, const char *after) {
  for (int v = 0; v < sw->vary_count; ++v) {
    fputs(before, f);
    csv_value(f, sw->vary[v].values[herd_sweep_value_index(sw, cell, v)]);
    fputs(after, f);
  }
}

static int write_summaries(const sweep_writer *w, const sweep_run_row *rows, size_t n, double *scratch) {
  const herd_sweep *sw = w->sw;
  char csv_path[1100], md_path[1100];
  path_in(w, "summary.csv", csv_path, sizeof csv_path);
  path_in(w, "summary.md", md_path, sizeof md_path);
  herd_outfile csv, md;
  herd_error err;
  if (herd_outfile_open(&csv, "--out", csv_path, true, &err) != HERD_OK) return cli_error(&err);
  if (herd_outfile_open(&md, "--out", md_path, true, &err) != HERD_OK) {
    herd_outfile_abandon(&csv);
    return cli_error(&err);
  }
  write_provenance(w, csv.f);
  fputs("cell", csv.f);
  for (int v = 0; v < sw->vary_count; ++v) fputc(',', csv.f), csv_field(csv.f, sw->vary[v].path);
  fputs(
      ",runs,successes,success_rate,wilson_lo,wilson_hi,steps_median,steps_q1,steps_q3,polarisation_mean,"
      "mode_changes_mean\n",
      csv.f);
  fprintf(md.f, "# herd sweep\n\n`%s`, herd %s (%s), started %s. No number here is edited by hand.\n\n", w->command,
          herd_version(), herd_build_commit(), w->started);
  fprintf(md.f,
          "%zu cells × %zu seeds = %zu runs. Success: the run ended with every agent delivered before the step "
          "limit. The interval is the 95 %% Wilson score interval; steps are over the successful runs only "
          "(median and quartiles, linear interpolation). mode changes: of the first steering agent (a dog "
          "switching between collecting and driving).\n\n| cell |",
          sw->cell_count, sw->seed_count, n);
  for (int v = 0; v < sw->vary_count; ++v) fprintf(md.f, " %s |", sw->vary[v].path);
  fputs(" runs | success | 95 % interval | steps: median (q1–q3) | polarisation | mode changes |\n|---:|", md.f);
  for (int v = 0; v < sw->vary_count; ++v) fputs("---:|", md.f);
  fputs("---:|---:|---|---|---:|---:|\n", md.f);
  for (size_t cell = 0; cell < sw->cell_count; ++cell) {
    sweep_stats g = summarise(sw, rows, n, one_cell, &cell, scratch);
    fprintf(csv.f, "%zu", cell);
    write_cell_values(csv.f, sw, cell, ",", "");
    fprintf(csv.f, ",%u,%u,%s,%s,%s,%s,%s,%s,%s,%s\n", g.runs, g.successes, number(g.rate, "%.4f"),
            number(g.lo, "%.4f"), number(g.hi, "%.4f"), number(g.median, "%.1f"), number(g.q1, "%.1f"),
            number(g.q3, "%.1f"), number(g.polarisation, "%.4f"), number(g.mode_changes, "%.2f"));
    char steps[96] = "–";
    if (g.successes) snprintf(steps, sizeof steps, "%.0f (%.0f–%.0f)", g.median, g.q1, g.q3);
    fprintf(md.f, "| %zu |", cell);
    write_cell_values(md.f, sw, cell, " ", " |");
    fprintf(md.f, " %u | %u/%u | %.2f–%.2f | %s | %s | %s |\n", g.runs, g.successes, g.runs, g.lo, g.hi, steps,
            number(g.polarisation, "%.3f"), number(g.mode_changes, "%.1f"));
  }
  if (herd_outfile_commit(&csv, &err) != HERD_OK) {
    herd_outfile_abandon(&md);
    return cli_error(&err);
  }
  return herd_outfile_commit(&md, &err) == HERD_OK ? 0 : cli_error(&err);
}

/* ---- Plots ---------------------------------------------------------------------------------- */

/* True when every value of varied field v is a number: then they are the axis. */
static bool numeric_axis(const herd_sweep *sw, int v) {
  for (size_t k = 0; k < sw->vary[v].count; ++k) {
    char *end;
    strtod(sw->vary[v].values[k], &end);
    if (*end) return false;
  }
  return true;
}

/* The axis position of value k of field v: the value, or its index for words. */
static double axis_at(const herd_sweep *sw, int v, size_t k) {
  return numeric_axis(sw, v) ? strtod(sw->vary[v].values[k], NULL) : (double)k;
}

/* A gnuplot string: quotes and control characters would end it. */
static const char *gp_text(const char *text) {
  static char ring[4][300];
  static int next;
  char *out = ring[next++ % 4];
  snprintf(out, sizeof ring[0], "%s", text);
  for (char *p = out; *p; ++p)
    if (*p == '\'' || *p == '\\' || (unsigned char)*p < 0x20) *p = ' ';
  return out;
}

static void gp_axis(FILE *gp, const herd_sweep *sw, int v, char axis) {
  fprintf(gp, "set %clabel '%s'\n", axis, gp_text(sw->vary[v].path));
  if (numeric_axis(sw, v)) return;
  fprintf(gp, "set %ctics (", axis);
  for (size_t k = 0; k < sw->vary[v].count; ++k)
    fprintf(gp, "%s'%s' %zu", k ? ", " : "", gp_text(sw->vary[v].values[k]), k);
  fputs(")\n", gp);
}

/* The axis of field v spans its values with a margin, so the marks at the ends show whole. */
static void gp_range(FILE *gp, const herd_sweep *sw, int v, char axis) {
  double lo = axis_at(sw, v, 0), hi = lo;
  for (size_t k = 1; k < sw->vary[v].count; ++k) lo = fmin(lo, axis_at(sw, v, k)), hi = fmax(hi, axis_at(sw, v, k));
  double margin = hi > lo ? 0.06 * (hi - lo) : 0.5;
  fprintf(gp, "set %crange [%.9g:%.9g]\n", axis, lo - margin, hi + margin);
}

/* Success rate: over one field, with Wilson error bars; over two, a map. */
static void plot_success(FILE *gp, const herd_sweep *sw, const sweep_run_row *rows, size_t n, double *scratch) {
  fputs("set output 'success.png.part'\nset title 'success rate'\n", gp);
  gp_axis(gp, sw, 0, 'x');
  gp_range(gp, sw, 0, 'x');
  if (sw->vary_count == 1) {
    fputs(
        "set ylabel 'success rate (95 % Wilson interval)'\nset yrange [-0.05:1.05]\n"
        "plot '-' using 1:2:3:4 with yerrorlines title 'success'\n",
        gp);
    for (size_t k = 0; k < sw->vary[0].count; ++k) {
      size_t want[2] = {k, SIZE_MAX};
      sweep_stats g = summarise(sw, rows, n, first_two, want, scratch);
      fprintf(gp, "%.9g %.6f %.6f %.6f\n", axis_at(sw, 0, k), g.rate, g.lo, g.hi);
    }
    fputs("e\n", gp);
    return;
  }
  gp_axis(gp, sw, 1, 'y');
  gp_range(gp, sw, 1, 'y');
  fputs(
      "set cblabel 'success rate'\nset cbrange [0:1]\nset view map\nset palette defined (0 '#b2182b', 0.5 "
      "'#f4a442', 1 '#2166ac')\nsplot '-' using 1:2:3 with points pointtype 5 pointsize 2.5 palette notitle\n",
      gp);
  for (size_t a = 0; a < sw->vary[0].count; ++a)
    for (size_t b = 0; b < sw->vary[1].count; ++b) {
      size_t want[2] = {a, b};
      sweep_stats g = summarise(sw, rows, n, first_two, want, scratch);
      if (g.runs) fprintf(gp, "%.9g %.9g %.6f\n", axis_at(sw, 0, a), axis_at(sw, 1, b), g.rate);
    }
  fputs("e\nunset view\nunset cblabel\nset autoscale\nset ytics auto\n", gp);
}

/* Steps to success (median, quartiles) over the first field; a line per value of the
 * second when there are at most 8 of them. */
static void plot_steps(FILE *gp, const herd_sweep *sw, const sweep_run_row *rows, size_t n, double *scratch) {
  size_t lines = sw->vary_count >= 2 && sw->vary[1].count <= 8 ? sw->vary[1].count : 1;
  fputs(
      "set output 'steps.png.part'\nset title 'steps to success: median and quartiles'\nset autoscale y\n"
      "set ylabel 'steps (successful runs)'\n",
      gp);
  gp_axis(gp, sw, 0, 'x');
  gp_range(gp, sw, 0, 'x');
  fputs("plot ", gp);
  for (size_t l = 0; l < lines; ++l)
    fprintf(gp, "%s'-' using 1:2:3:4 with yerrorlines title '%s%s%s'", l ? ", " : "",
            lines > 1 ? gp_text(sw->vary[1].path) : "all", lines > 1 ? " = " : "",
            lines > 1 ? gp_text(sw->vary[1].values[l]) : "");
  fputc('\n', gp);
  for (size_t l = 0; l < lines; ++l) {
    for (size_t k = 0; k < sw->vary[0].count; ++k) {
      size_t want[2] = {k, lines > 1 ? l : SIZE_MAX};
      sweep_stats g = summarise(sw, rows, n, first_two, want, scratch);
      if (!isnan(g.median)) fprintf(gp, "%.9g %.1f %.1f %.1f\n", axis_at(sw, 0, k), g.median, g.q1, g.q3);
    }
    fputs("e\n", gp);
  }
}

static int write_plots(const sweep_writer *w, const sweep_run_row *rows, size_t n, double *scratch) {
  if (w->sw->vary_count == 0) return 0;
  char path[1100];
  path_in(w, "plots.gp", path, sizeof path);
  herd_outfile gp;
  herd_error err;
  if (herd_outfile_open(&gp, "--out", path, true, &err) != HERD_OK) return cli_error(&err);
  fputs("set terminal pngcairo size 900,600 noenhanced\nset grid\nset key outside right\n", gp.f);
  plot_success(gp.f, w->sw, rows, n, scratch);
  bool any_success = false;
  for (size_t k = 0; k < n && !any_success; ++k) any_success = rows[k].succeeded;
  if (any_success) plot_steps(gp.f, w->sw, rows, n, scratch);
  if (herd_outfile_commit(&gp, &err) != HERD_OK) return cli_error(&err);
  int status = cli_gnuplot(w->dir, "plots.gp", "herd sweep");
  static const char *const plots[] = {"success.png", "steps.png"};
  for (size_t k = 0; k < (any_success ? 2u : 1u); ++k) {
    char from[1200], to[1200];
    snprintf(from, sizeof from, "%s/%s.part", w->dir, plots[k]);
    snprintf(to, sizeof to, "%s/%s", w->dir, plots[k]);
    if (status == 0 && herd_move_into_place("--out", from, to, true, &err) != HERD_OK) status = cli_error(&err);
    unlink(from);
  }
  return status;
}

int sweep_close(sweep_writer *w, bool complete) {
  int status = 0;
  if (w->runs && fclose(w->runs) != 0) status = cli_fail(1, "%s/runs.csv: write failed", cli_shown(w->dir));
  w->runs = NULL;
  if (status == 0 && complete) {
    size_t n = 0, total = herd_sweep_run_count(w->sw);
    sweep_run_row *rows = sweep_read_runs(w->dir, w->sw, &n);
    double *scratch = malloc((total ? total : 1) * sizeof *scratch);
    status = rows && scratch ? 0 : 1;
    if (status == 0) status = write_summaries(w, rows, n, scratch);
    if (status == 0) status = write_plots(w, rows, n, scratch);
    if (status == 0) status = write_sweep_json(w, true);
    free(rows);
    free(scratch);
  }
  free(w->resumed_from);
  w->resumed_from = NULL;
  return status;
}
