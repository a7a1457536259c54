/* `herd sweep`: many runs over a grid of parameters and seeds, in parallel, written as they
 * finish (in run order) into a folder that a killed sweep resumes from; then the per-cell
 * summary (success rate with its Wilson interval, steps to success) and the plots. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../sweep/stats.h"
#include "../sweep/sweep.h"
#include "../util/clock.h"
#include "../util/error.h"
#include "../util/outfile.h"
#include "claims.h"
#include "cli.h"
#include "options.h"
#include "sweep_mpi.h"
#include "sweep_out.h"

static const char sweep_usage[] =
    "usage: herd sweep [SWEEP.json] [OPTIONS]\n"
    "\n"
    "Runs a scenario many times over a grid of parameter values and seeds, several runs at a\n"
    "time, and writes into --out: runs.csv (a row per run, as each finishes), summary.csv and\n"
    "summary.md (per cell: success rate with its 95 % Wilson interval, median and quartiles of\n"
    "the steps to success), sweep.json (what was run, by which herd, where) and plots.\n"
    "SWEEP.json is described in docs/sweep.md; the options below add to it or replace it.\n"
    "\n"
    "options (--opt=VALUE or --opt VALUE; -s5 or -s 5; a unique abbreviation is enough):\n"
    "  --scenario FILE    the base scenario (default: the sweep file's, else the built-in one)\n"
    "  --set PATH=VALUE   a fixed override for every run (repeatable)\n"
    "  --set-at STEP:PATH=VALUE\n"
    "                     a parameter every run changes once STEP steps have run (repeatable)\n"
    "  --vary PATH=LIST   a field to vary: values and FROM:TO[:STEP] ranges, e.g.\n"
    "                     --vary sheep.neighbours=5,10:50:5 (repeatable; crossed)\n"
    "  --zip              pair the varied lists value by value instead of crossing them\n"
    "  --seeds LIST       the seeds, e.g. 1-50 or 1,3,7 (default: the file's, else 1)\n"
    "  -s, --steps MAX    the step limit of every run\n"
    "  -t, --threads T    CPU threads (default: all cores)\n"
    "  --backend B        cpu (default), opencl or auto, as for herd run\n"
    "  --device D         the OpenCL device, as for herd run\n"
    "  --batch K          runs stepped together as one batch of worlds in the backend (default:\n"
    "                     1 on the CPU, where T runs go side by side, one thread each; 64 on\n"
    "                     OpenCL, every world of a batch in one launch of each kernel). Each run\n"
    "                     gives the same row whatever the batch\n"
    "  -o, --out DIR      where to write (default sweep-out)\n"
    "  --resume           continue the sweep already in DIR: rows written are kept, not redone\n"
    "  --force            start afresh in a DIR that holds a sweep, and allow more than\n"
    "                     100000 runs\n"
    "  --mpi              under mpirun -np P: rank 0 hands runs (--batch at a time) to the\n"
    "                     other ranks as they ask and writes every file; a rank runs on one\n"
    "                     thread unless -t says more; rows as without MPI (docs/sweep.md)\n"
    "  -q, --quiet        no progress line or notes (errors only; the files are written)\n"
    "  -h, --help, -V, --version, --   as for herd run\n"
    "\n"
    "Every cell's scenario is checked before the first run. Ctrl-C stops within a second and\n"
    "keeps every row written; --resume goes on from there.\n";

/* More runs than this is more likely a slip (a range step of 0.001) than a plan. */
#define MAX_RUNS_WITHOUT_FORCE 100000

/* More sweep-changing options than a command line holds in practice. */
#define SWEEP_MAX_DEFERRED 256

typedef struct sweep_deferred {
  int code;
  char typed[40];
  const char *value;
} sweep_deferred;

typedef struct sweep_opts {
  const char *file, *scenario;
  herd_sweep sw;
  sweep_run_opts run;
  backend_args backend;
  sweep_deferred deferred[SWEEP_MAX_DEFERRED];
  int deferred_count;
  char command[1200];
} sweep_opts;

/* ---- Options ---------------------------------------------------------------------------- */

static int take_vary(sweep_opts *o, const char *text) {
  const char *equals = strchr(text, '=');
  char path[256];
  if (!equals || (size_t)(equals - text) >= sizeof path)
    return cli_fail(EXIT_BAD_INPUT, "--vary %s: expected PATH=VALUES, e.g. --vary sheep.neighbours=5,10:50:5", text);
  snprintf(path, sizeof path, "%.*s", (int)(equals - text), text);
  herd_error err;
  return herd_sweep_add_vary(&o->sw, path, equals + 1, "--vary", &err) == HERD_OK ? 0 : cli_error(&err);
}

enum { OPT_VARY = OPT_COMMAND_FIRST, OPT_ZIP, OPT_SEEDS, OPT_BATCH, OPT_SCENARIO, OPT_RESUME, OPT_FORCE, OPT_MPI };
/* (--set-at: OPT_SET_AT, options.h) */

/* sweep's --set and --steps act on the sweep (applied after its file), not on one scenario. */
static const struct option sweep_own_options[] = {
    {"scenario", required_argument, NULL, OPT_SCENARIO},
    {"set", required_argument, NULL, OPT_SET},
    {"set-at", required_argument, NULL, OPT_SET_AT},
    {"vary", required_argument, NULL, OPT_VARY},
    {"zip", no_argument, NULL, OPT_ZIP},
    {"seeds", required_argument, NULL, OPT_SEEDS},
    {"steps", required_argument, NULL, OPT_STEPS},
    {"batch", required_argument, NULL, OPT_BATCH},
    {"out", required_argument, NULL, OPT_OUTPUT},
    {"resume", no_argument, NULL, OPT_RESUME},
    {"force", no_argument, NULL, OPT_FORCE},
    {"mpi", no_argument, NULL, OPT_MPI},
    {0, 0, 0, 0},
};

/* An option that changes the sweep, kept until the sweep file is read. */
static bool defer(sweep_opts *o, int code, const char *typed, const char *value) {
  if (o->deferred_count == SWEEP_MAX_DEFERRED) return false;
  sweep_deferred *d = &o->deferred[o->deferred_count++];
  d->code = code, d->value = value;
  snprintf(d->typed, sizeof d->typed, "%s", typed);
  return true;
}

static int take_sweep(void *ctx, int code, const char *typed, const char *value) {
  sweep_opts *o = ctx;
  unsigned long long n = 0;
  switch (code) {
    case CLI_OPERAND:
      if (o->file)
        return cli_fail(EXIT_BAD_INPUT, "%s: only one sweep file may be given (already have %s)", value, o->file);
      o->file = value;
      return CLI_GO_ON;
    case OPT_STEPS:
      if (cli_parse_integer(typed, value, 1, 1000000000, &n)) return EXIT_BAD_INPUT;
      __attribute__((fallthrough)); /* applied after the file, as the rest */
    case OPT_SET:
    case OPT_SET_AT:
    case OPT_VARY:
    case OPT_ZIP:
    case OPT_SEEDS:
      return defer(o, code, typed, value) ? CLI_GO_ON : cli_fail(EXIT_BAD_INPUT, "%s: too many options", typed);
    case OPT_BATCH: return sweep_parse_batch(value, &o->run.batch) ? EXIT_BAD_INPUT : CLI_GO_ON;
    case OPT_SCENARIO: o->scenario = value; return CLI_GO_ON;
    case OPT_OUTPUT: o->run.out = value; return CLI_GO_ON;
    case OPT_RESUME: o->run.resume = true; return CLI_GO_ON;
    case OPT_FORCE: o->run.force = true; return CLI_GO_ON;
    case OPT_MPI: return CLI_GO_ON; /* seen before parsing: cli_mpi_wanted */
  }
  return backend_args_option(&o->backend, code, typed, value);
}

/* The options that add to the sweep (vary, set) or replace its file's (seeds, steps, zip). */
static int apply_deferred(sweep_opts *o) {
  herd_error err;
  for (int k = 0; k < o->deferred_count; ++k) {
    const sweep_deferred *d = &o->deferred[k];
    herd_status st = HERD_OK;
    if (d->code == OPT_VARY) {
      if (take_vary(o, d->value)) return EXIT_BAD_INPUT;
    } else if (d->code == OPT_SET) {
      st = herd_sweep_add_set(&o->sw, d->value, &err);
    } else if (d->code == OPT_SET_AT) {
      char *set = cli_set_at(d->value);
      st = set ? herd_sweep_add_set(&o->sw, set, &err) : herd_fail(&err, HERD_E_MEMORY, "out of memory");
      free(set);
    } else if (d->code == OPT_SEEDS) {
      st = herd_sweep_set_seeds(&o->sw, d->value, d->typed, &err);
    } else if (d->code == OPT_STEPS) {
      o->sw.max_steps = (uint32_t)strtoul(d->value, NULL, 10);
    } else {
      o->sw.zip = true;
    }
    if (st != HERD_OK) return cli_error(&err);
  }
  return 0;
}

/* Returns -1 when the sweep is ready to run, else the exit status (0 after --help). */
static int parse_sweep(int argc, char **argv, sweep_opts *o) {
  static const struct option *const tables[] = {cli_backend_options, sweep_own_options, NULL};
  cli_command c = {.name = "sweep", .usage = sweep_usage, .tables = tables, .take = take_sweep, .ctx = o};
  int parsed = cli_parse(&c, argc, argv);
  if (parsed != CLI_GO_ON) return parsed;
  o->run.threads = o->backend.threads, o->run.backend = o->backend.backend, o->run.device = o->backend.device;
  o->run.quiet = cli_quiet;
  herd_error err;
  if (o->file && herd_sweep_load(o->file, &o->sw, &err) != HERD_OK) return cli_error(&err);
  int status = apply_deferred(o);
  if (status) return status;
  if (o->scenario) {
    free(o->sw.scenario_path), free(o->sw.scenario_json);
    o->sw.scenario_json = NULL;
    if (!(o->sw.scenario_path = strdup(o->scenario))) return cli_fail(1, "out of memory");
  }
  if (o->run.force && o->run.resume) return cli_fail(EXIT_BAD_INPUT, "--force and --resume: choose one");
  size_t runs = herd_sweep_planned_runs(&o->sw);
  if (runs > MAX_RUNS_WITHOUT_FORCE && !o->run.force)
    return cli_fail(EXIT_BAD_INPUT, "the sweep has %zu runs (%zu cells x %zu seeds); over %d needs --force", runs,
                    runs / (o->sw.seed_count ? o->sw.seed_count : 1), o->sw.seed_count, MAX_RUNS_WITHOUT_FORCE);
  if (herd_sweep_expand(&o->sw, &err) != HERD_OK) return cli_error(&err);
  return -1;
}

/* ---- Running -------------------------------------------------------------------------------- */

/* The runs [first, total) shared by the workers; the main thread writes them in order. */
typedef struct sweep_job {
  sweep_runner run;
  size_t first, total, next;
  uint32_t batch;        /* runs a worker takes at a time, stepped as one batch of worlds */
  sweep_result *results; /* indexed by run - first */
  bool *done;
  pthread_mutex_t lock;
  pthread_cond_t changed;
  int active;       /* workers still running */
  herd_error error; /* the first run that failed, and which */
  size_t failed_run;
  bool failed;
} sweep_job;

/* Runs [first, first + count), whose scenarios are sc[] (one model, one dimension), to their
 * ends as one batch of worlds; results[k] is run first + k's. */
static herd_status run_batch(const sweep_runner *job, herd_scenario *const *sc, uint32_t count, sweep_result *results,
                             herd_error *err) {
  herd_sim_desc *descs = calloc(count, sizeof *descs);
  if (!descs) return herd_fail(err, HERD_E_MEMORY, "out of memory for a batch of %u runs", count);
  for (uint32_t k = 0; k < count; ++k)
    descs[k] = (herd_sim_desc){.scenario = sc[k],
                               .threads = job->batch_threads,
                               .backend = job->backend,
                               .device = job->device,
                               .stop = &cli_stop};
  herd_status s = herd_batch_run(descs, count, results, err);
  free(descs);
  return s;
}

herd_status sweep_run_group(const sweep_runner *job, size_t first, uint32_t count, sweep_result *results,
                            herd_error *err) {
  herd_scenario **sc = calloc(count, sizeof *sc);
  herd_scenario_info *info = calloc(count, sizeof *info);
  herd_status s = sc && info ? HERD_OK : herd_fail(err, HERD_E_MEMORY, "out of memory for %u runs", count);
  for (uint32_t k = 0; k < count && s == HERD_OK; ++k) {
    s = herd_sweep_scenario(job->sw, first + k, &sc[k], err);
    if (s == HERD_OK) info[k] = herd_scenario_describe(sc[k]);
  }
  for (uint32_t from = 0, to = 0; from < count && s == HERD_OK; from = to) {
    for (to = from + 1; to < count && info[to].model == info[from].model && info[to].dims == info[from].dims;) ++to;
    s = run_batch(job, sc + from, to - from, results + from, err);
  }
  for (uint32_t k = 0; sc && k < count; ++k) herd_scenario_free(sc[k]);
  free(sc), free(info);
  return s;
}

static void *worker(void *arg) {
  sweep_job *job = arg;
  sweep_result *results = malloc(job->batch * sizeof *results);
  pthread_mutex_lock(&job->lock);
  while (results && !job->failed && !cli_stop && job->next < job->total) {
    size_t first = job->next, left = job->total - first;
    uint32_t count = left < job->batch ? (uint32_t)left : job->batch;
    job->next += count;
    pthread_mutex_unlock(&job->lock);
    herd_error err;
    herd_status s = sweep_run_group(&job->run, first, count, results, &err);
    pthread_mutex_lock(&job->lock);
    if (s == HERD_OK) {
      for (uint32_t k = 0; k < count; ++k) {
        job->results[first + k - job->first] = results[k];
        job->done[first + k - job->first] = true;
      }
    } else if (!job->failed && s != HERD_E_INTERRUPTED) {
      job->failed = true;
      job->error = err;
      job->failed_run = first;
    }
    pthread_cond_broadcast(&job->changed);
  }
  if (!results && !job->failed) {
    job->failed = true;
    herd_fail(&job->error, HERD_E_MEMORY, "out of memory for a batch of %u runs", job->batch);
    job->failed_run = job->next;
  }
  --job->active;
  pthread_cond_broadcast(&job->changed);
  pthread_mutex_unlock(&job->lock);
  free(results);
  return NULL;
}

void sweep_show_progress(size_t written, size_t total, size_t first, double started, bool final) {
  double rate = (double)(written - first) / fmax(herd_clock_s() - started, 1e-3);
  double left = rate > 0 ? (double)(total - written) / rate : 0;
  fprintf(stderr, "\r  %zu/%zu runs (%.0f %%), %.1f runs/s, %d:%02d left   %s", written, total,
          100.0 * (double)written / (double)total, rate, (int)(left / 60), (int)fmod(left, 60), final ? "\n" : "");
  fflush(stderr);
}

/* Starts the workers, writes each finished run's row in run order, and waits for the end:
 * 0, or an exit status (130/143 after Ctrl-C, with every finished row in order kept). */
static int run_sweep(const herd_sweep *sw, const sweep_run_opts *o, sweep_writer *w, size_t first) {
  size_t total = herd_sweep_run_count(sw), todo = total - first;
  sweep_job job = {.run.sw = sw, .first = first, .total = total, .next = first};
  job.results = calloc(todo ? todo : 1, sizeof *job.results);
  job.done = calloc(todo ? todo : 1, sizeof *job.done);
  if (!job.results || !job.done) {
    free(job.results), free(job.done);
    return cli_fail(1, "out of memory for %zu runs", todo);
  }
  pthread_mutex_init(&job.lock, NULL);
  pthread_cond_init(&job.changed, NULL);
  int cores = o->threads ? o->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
  cores = cores < 1 ? 1 : cores > 256 ? 256 : cores;
  /* Runs one at a time side by side on the CPU, one thread each; else one batch at a time,
   * on all the threads (the CPU backend's batch) or on the device. */
  bool side_by_side = o->batch == 1 && strcmp(o->backend, "cpu") == 0;
  int threads = side_by_side ? cores : 1;
  job.run.backend = o->backend, job.run.device = o->device, job.batch = o->batch;
  job.run.batch_threads = side_by_side ? 1 : cores;
  pthread_t tid[256];
  int started = 0;
  job.active = threads;
  for (; started < threads; ++started)
    if (pthread_create(&tid[started], NULL, worker, &job) != 0) break;
  pthread_mutex_lock(&job.lock);
  job.active -= threads - started;
  bool tty = !o->quiet && isatty(STDERR_FILENO);
  double begun = herd_clock_s(), shown = 0;
  size_t written = first;
  int status = 0;
  while (written < total && status == 0) {
    if (job.done[written - first]) {
      sweep_result r = job.results[written - first];
      pthread_mutex_unlock(&job.lock);
      status = sweep_write_run(w, written, &r);
      pthread_mutex_lock(&job.lock);
      ++written;
      continue;
    }
    if (job.active == 0) break;
    if (tty && herd_clock_s() - shown > 0.2) {
      sweep_show_progress(written, total, first, begun, false);
      shown = herd_clock_s();
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 200000000;
    if (until.tv_nsec >= 1000000000) until.tv_sec += 1, until.tv_nsec -= 1000000000;
    pthread_cond_timedwait(&job.changed, &job.lock, &until);
  }
  if (status) job.failed = true; /* a write failed: the workers stop taking runs */
  pthread_mutex_unlock(&job.lock);
  for (int k = 0; k < started; ++k) pthread_join(tid[k], NULL);
  if (tty) sweep_show_progress(written, total, first, begun, true);
  status = sweep_ended(w, written, begun, status, job.failed ? &job.error : NULL, job.failed_run);
  pthread_cond_destroy(&job.changed);
  pthread_mutex_destroy(&job.lock);
  free(job.results);
  free(job.done);
  return status;
}

int sweep_ended(sweep_writer *w, size_t written, double begun, int status, const herd_error *failure,
                size_t failed_run) {
  w->written = written;
  w->seconds = herd_clock_s() - begun;
  if (status == 0 && failure)
    status =
        cli_fail(failure->status == HERD_E_INPUT ? EXIT_BAD_INPUT : 1, "run %zu: %s", failed_run, failure->message);
  if (status == 0 && written < herd_sweep_run_count(w->sw) && cli_stop) status = 128 + cli_stop;
  return status;
}

int sweep_execute(const herd_sweep *sw, const sweep_run_opts *o) {
  sweep_writer w;
  size_t first = 0, total = herd_sweep_run_count(sw);
  cli_begin_output();
  int status = sweep_open(&w, sw, o, &first);
  if (status) return status;
  if (!o->quiet)
    printf("sweep: %zu cells x %zu seeds = %zu runs%s, into %s\n", sw->cell_count, sw->seed_count, total,
           first ? " (resuming)" : "", cli_shown(o->out));
  if (first && !o->quiet) printf("resume: %zu runs already in runs.csv, %zu to go\n", first, total - first);
  fflush(stdout);
  /* One rank (a singleton herd sweep --mpi included) runs the sweep as without MPI. */
  status = o->mpi_ranks > 1 ? sweep_mpi_master(sw, o, &w, first) : run_sweep(sw, o, &w, first);
  int closing = sweep_close(&w, status == 0);
  if (status == 0) status = closing;
  if (status == 0 && !o->quiet)
    printf("done: %zu runs in %.1f s (%.1f runs/s); summary.md, summary.csv, runs.csv, sweep.json and plots in %s\n",
           total - first, w.seconds, (double)(total - first) / fmax(w.seconds, 1e-9), cli_shown(o->out));
  else if (status > 128)
    fprintf(stderr, "herd: interrupted: %zu of %zu runs are in %s/runs.csv; go on with --resume\n", w.written, total,
            cli_shown(o->out));
  return status;
}

/* ---- The command ------------------------------------------------------------------------- */

/* Parses and checks the backend: -1 when the sweep is ready to run, else the exit status. */
static int prepare(int argc, char **argv, sweep_opts *o, const sweep_mpi *m) {
  int status = parse_sweep(argc, argv, o);
  if (status != -1) return status;
  size_t typed = (size_t)snprintf(o->command, sizeof o->command, "herd sweep");
  for (int i = 1; i < argc && typed < sizeof o->command; ++i)
    typed += (size_t)snprintf(o->command + typed, sizeof o->command - typed, " %s", argv[i]);
  o->run.command = o->command;
  /* --resume reads the folder's own sweep.json: an input there is expected. */
  cli_claims files = {.force = o->run.force || o->run.resume};
  if (cli_claim_input(&files, "the sweep", o->file) || cli_claim_input(&files, "the scenario", o->scenario) ||
      cli_claim_folder(&files, "--out", o->run.out, sweep_folder_files))
    return EXIT_BAD_INPUT;
  o->run.mpi_ranks = m->on ? m->ranks : 0;
  /* Under MPI a rank is the unit of parallelism (one per core or GPU), so one thread each. */
  if (m->on && o->run.threads == 0) o->run.threads = 1;
  status = sweep_check_backend(&o->run);
  return status ? status : -1;
}

int cmd_sweep(int argc, char **argv) {
  static sweep_opts o;
  memset(&o, 0, sizeof o);
  o.run.out = "sweep-out";
  herd_sweep_init(&o.sw);
  sweep_mpi m = CLI_MPI_OFF;
  if (cli_mpi_wanted(argc, argv)) {
    int started = sweep_mpi_start(&m);
    if (started) return started;
  }
  cli_catch_signals();
  int status = prepare(argc, argv, &o, &m);
  if (m.on) status = sweep_mpi_agree(&m, status);
  if (status == -1 && m.on && m.rank > 0) {
    cli_begin_output(); /* a worker's runs go to rank 0, which writes them: a stop is clean from here */
    status = sweep_mpi_worker(&o.sw, &o.run);
  } else if (status == -1)
    status = sweep_execute(&o.sw, &o.run);
  status = sweep_mpi_end(&m, status);
  herd_sweep_free(&o.sw);
  return status;
}
