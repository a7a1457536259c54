/* `herd bench`: time per step against flock size, per backend, device and thread count,
 * with per-stage times, memory, a fitted scaling exponent, CSV, Markdown and gnuplot plots. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "../record/provenance.h"
#include "../sweep/stats.h"
#include "../util/clock.h"
#include "../util/outfile.h"
#include "claims.h"
#include "cli.h"
#include "herd/herd.h"
#include "options.h"
#include "summary.h"

#define MAX_CONFIGS 32
#define MAX_SIZES 16
#define MAX_REPEATS 50
#define WARMUP_STEPS 2 /* untimed steps before each repeat */
/* The default steps of a repeat: about 5e5 / N, at most WINDOW_STEPS. Each repeat starts from
 * the scenario's own start, so that every N is timed at the density its workload states: over
 * 1000 steps a flock of 10^3 compacts and its step costs twice what it did (1.22 ms over the
 * first 100 steps, 2.24 ms over 1000, on the 2-core machine of bench/results). */
#define WINDOW_STEPS 50u

static const char bench_usage[] =
    "usage: herd bench [OPTIONS]\n"
    "\n"
    "Times the simulation against flock size on each backend, device and thread count, and\n"
    "writes results.csv, summary.md, machine.md and PNG plots (gnuplot) into --out.\n"
    "\n"
    "options (--opt=VALUE or --opt VALUE; -s5 or -s 5; a unique abbreviation is enough):\n"
    "  --backends LIST    cpu, opencl, opencl:DEVICE, comma-separated (default: cpu, plus opencl\n"
    "                     when a device exists)\n"
    "  --sizes LIST       flock sizes, e.g. 1e3,1e4,1e5 (default 1e3,3e3,1e4,3e4,5e4,1e5,3e5,1e6)\n"
    "  --model M          the flock model: strombom (default), boids, netlogo, couzin, fish\n"
    "  --dims D           2 or 3, as the model allows (default: the model's own)\n"
    "  --workload W       Strömbom only: all-active (every sheep does the full update;\n"
    "                     default) or herding (the default scenario, scaled to N at the same\n"
    "                     density)\n"
    "  --neighbours K     other models: agents start uniform in a wrapping world sized so that\n"
    "                     each has K others within its radius (boids: the visual range) on\n"
    "                     average (default 20)\n"
    "  -s, --steps S      steps per repeat (default: about 5e5 / N, from 1 to 50)\n"
    "  --repeat R         timed repeats per configuration (default 5), each from the workload's\n"
    "                     start (the same seed) after 2 warm-up steps\n"
    "  -t, --threads LIST CPU thread counts (default: 1 and all cores)\n"
    "  --budget SECONDS   stop adding larger sizes when the next would pass this (default 540)\n"
    "  -o, --out DIR      where to write (default bench-out; created if needed)\n"
    "  --force            replace result files already in DIR (otherwise herd bench refuses\n"
    "                     to start), and --summary's file\n"
    "  -q, --quiet        no table or notes on the console (errors only; the files are written)\n"
    "  -h, --help, -V, --version   as for herd run\n"
    "  --json             print that JSON on standard output (the progress table then goes to\n"
    "                     standard error)\n"
    "\n"
    "Every option, device and the output folder are checked before the first run. The files\n"
    "are made in a staging folder inside DIR and moved into place at the end; Ctrl-C stops\n"
    "within a second and leaves DIR as it was.\n";

typedef struct bench_config {
  char backend[16], device[64], label[96];
  int threads;
} bench_config;

typedef struct bench_opts {
  char command[600]; /* as typed, for the report */
  bench_config configs[MAX_CONFIGS];
  int config_count;
  double sizes[MAX_SIZES];
  int size_count;
  bool all_active;
  uint32_t model, dims; /* dims 0: the model's default */
  double neighbours;    /* other models: expected neighbours within the grid cell radius */
  bool workload_given, neighbours_given;
  long steps, repeat;
  double budget_s;
  const char *out;
  bool force;
  const char *backends, *threads, *threads_typed; /* --backends, --threads as given */
  summary_args summary;
  int argc; /* the command line, for the provenance */
  char **argv;
  FILE *text;        /* the progress table: stdout, or stderr under --json */
  char staging[600]; /* OUT/.herd-bench-XXXXXX: where the files are made */
} bench_opts;

/* What herd bench writes into --out. */
static const char *const result_files[] = {"results.csv",       "summary.md", "machine.md",  "plots.gp",
                                           "time_per_step.png", "stages.png", "speedup.png", NULL};
#define RESULT_FILE_COUNT (sizeof result_files / sizeof result_files[0] - 1)

typedef struct bench_row {
  const bench_config *config;
  uint32_t n, steps;
  double seconds[MAX_REPEATS];
  int repeats;
  double median, min, max;
  int threads_used;                  /* what the backend ran (herd_sim_threads): may be fewer than asked */
  double stage_ms[HERD_STAGE_COUNT]; /* per step, over the timed repeats */
  double peak_mib, device_mib;
  uint32_t dims;
} bench_row;

/* ---- Options ---------------------------------------------------------------------------- */

static int parse_list(const char *option, const char *text, double *out, int max, int *count, double lo, double hi) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s", text);
  *count = 0;
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *end;
    double v = strtod(tok, &end);
    if (end == tok || *end || !(v >= lo && v <= hi) || v != floor(v) || *count == max)
      return cli_fail(EXIT_BAD_INPUT, "%s: \"%s\" is not allowed (allowed: up to %d integers from %g to %g)", option,
                      tok, max, lo, hi);
    out[(*count)++] = v;
  }
  return *count ? 0 : cli_fail(EXIT_BAD_INPUT, "%s: empty list", option);
}

static void add_config(bench_opts *o, const char *backend, const char *device, int threads) {
  if (o->config_count == MAX_CONFIGS) return;
  bench_config *c = &o->configs[o->config_count++];
  snprintf(c->backend, sizeof c->backend, "%s", backend);
  snprintf(c->device, sizeof c->device, "%s", device ? device : "");
  c->threads = threads;
}

/* Expands --backends and --threads into configurations. */
static int make_configs(bench_opts *o, const char *backends, const char *threads) {
  double t[8];
  int nt = 0;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  if (threads) {
    if (parse_list(o->threads_typed, threads, t, 8, &nt, 1, 1024)) return EXIT_BAD_INPUT;
  } else {
    t[nt++] = 1;
    if (cores > 1) t[nt++] = (double)cores;
  }
  herd_device_info info[4];
  int devices = 0;
  herd_error err;
  bool have_cl = herd_devices(info, 4, &devices, &err) == HERD_OK && devices > 0;
  char buf[512];
  snprintf(buf, sizeof buf, "%s", backends ? backends : (have_cl ? "cpu,opencl" : "cpu"));
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if (strcmp(tok, "cpu") == 0) {
      for (int k = 0; k < nt; ++k) add_config(o, "cpu", NULL, (int)t[k]);
    } else if (strncmp(tok, "opencl", 6) == 0 && (tok[6] == '\0' || tok[6] == ':')) {
      const char *device = tok[6] ? tok + 7 : NULL;
      herd_backend_choice choice;
      if (herd_choose_backend("opencl", device, &choice, &err) != HERD_OK) {
        cli_fail(EXIT_BAD_INPUT, "--backends %s: %s", tok, err.message);
        return EXIT_BAD_INPUT;
      }
      add_config(o, "opencl", device, 0);
    } else {
      return cli_fail(EXIT_BAD_INPUT, "--backends: \"%s\" is not a backend (allowed: cpu, opencl, opencl:DEVICE)", tok);
    }
  }
  if (o->config_count == 0)
    return cli_fail(EXIT_BAD_INPUT, "--backends: empty list (allowed: cpu, opencl, opencl:DEVICE, comma-separated)");
  return 0;
}

/* --model NAME: one of the model table's names. */
static int parse_model(const char *typed, const char *name, uint32_t *model) {
  char names[200] = "";
  size_t used = 0;
  for (uint32_t m = 0; m < herd_model_count(); ++m) {
    if (strcmp(name, herd_model_name(m)) == 0) return *model = m, 0;
    used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", m ? ", " : "", herd_model_name(m));
  }
  return cli_fail(EXIT_BAD_INPUT, "%s: \"%s\" is not a model (allowed: %s)", typed, cli_shown(name), names);
}

/* The options that depend on the model, once all are read. */
static int check_model_options(bench_opts *o) {
  const char *name = herd_model_name(o->model);
  bool strombom = o->model == HERD_MODEL_STROMBOM;
  if (o->dims && !herd_model_supports_dims(o->model, o->dims))
    return cli_fail(EXIT_BAD_INPUT, "--dims %u: model %s does not run in %uD", o->dims, name, o->dims);
  if (!strombom && o->workload_given)
    return cli_fail(EXIT_BAD_INPUT, "--workload: for --model strombom only; %s runs uniform flocks (see --neighbours)",
                    name);
  if (strombom && o->neighbours_given)
    return cli_fail(EXIT_BAD_INPUT, "--neighbours: not for --model strombom (its density is set by --workload)");
  return 0;
}

enum {
  OPT_BACKENDS = OPT_COMMAND_FIRST,
  OPT_SIZES,
  OPT_WORKLOAD,
  OPT_MODEL,
  OPT_DIMS,
  OPT_NEIGHBOURS,
  OPT_REPEAT,
  OPT_BUDGET,
  OPT_FORCE
};

/* bench's --threads and --steps are lists and counts of its own, not the shared groups'. */
static const struct option bench_own_options[] = {
    {"backends", required_argument, NULL, OPT_BACKENDS},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"sizes", required_argument, NULL, OPT_SIZES},
    {"workload", required_argument, NULL, OPT_WORKLOAD},
    {"model", required_argument, NULL, OPT_MODEL},
    {"dims", required_argument, NULL, OPT_DIMS},
    {"neighbours", required_argument, NULL, OPT_NEIGHBOURS},
    {"steps", required_argument, NULL, OPT_STEPS},
    {"repeat", required_argument, NULL, OPT_REPEAT},
    {"budget", required_argument, NULL, OPT_BUDGET},
    {"out", required_argument, NULL, OPT_OUTPUT},
    {"force", no_argument, NULL, OPT_FORCE},
    {0, 0, 0, 0},
};

static int take_workload(bench_opts *o, const char *typed, const char *v) {
  if (strcmp(v, "all-active") != 0 && strcmp(v, "herding") != 0)
    return cli_fail(EXIT_BAD_INPUT, "%s: \"%s\" is not a workload (allowed: all-active, herding)", typed, cli_shown(v));
  o->all_active = strcmp(v, "all-active") == 0;
  o->workload_given = true;
  return CLI_GO_ON;
}

/* An option that takes one number from lo to hi into *out. */
static int take_one(const char *typed, const char *v, double lo, double hi, double *out) {
  int count;
  return parse_list(typed, v, out, 1, &count, lo, hi) ? EXIT_BAD_INPUT : CLI_GO_ON;
}

static int take_bench(void *ctx, int code, const char *typed, const char *v) {
  bench_opts *o = ctx;
  double one[1];
  int status;
  switch (code) {
    case OPT_BACKENDS: o->backends = v; return CLI_GO_ON;
    case OPT_THREADS:
      o->threads = v;
      o->threads_typed = typed;
      return CLI_GO_ON;
    case OPT_SIZES:
      return parse_list(typed, v, o->sizes, MAX_SIZES, &o->size_count, 2, 1e8) ? EXIT_BAD_INPUT : CLI_GO_ON;
    case OPT_WORKLOAD: return take_workload(o, typed, v);
    case OPT_MODEL: return parse_model(typed, v, &o->model) ? EXIT_BAD_INPUT : CLI_GO_ON;
    case OPT_DIMS:
      if ((status = take_one(typed, v, 2, 3, one)) == CLI_GO_ON) o->dims = (uint32_t)one[0];
      return status;
    case OPT_NEIGHBOURS:
      if ((status = take_one(typed, v, 0.1, 1000, &o->neighbours)) == CLI_GO_ON) o->neighbours_given = true;
      return status;
    case OPT_STEPS:
    case OPT_REPEAT:
      if ((status = take_one(typed, v, 1, code == OPT_STEPS ? 1e6 : MAX_REPEATS, one)) == CLI_GO_ON)
        *(code == OPT_STEPS ? &o->steps : &o->repeat) = (long)one[0];
      return status;
    case OPT_BUDGET: return take_one(typed, v, 1, 86400, &o->budget_s);
    case OPT_OUTPUT: o->out = v; return CLI_GO_ON;
    case OPT_FORCE: o->force = true; return CLI_GO_ON;
  }
  if (summary_args_option(&o->summary, code, v) == CLI_GO_ON) return CLI_GO_ON;
  switch (code) {
    default: /* CLI_OPERAND */
      return cli_fail(EXIT_BAD_INPUT, "bench: %s: takes no operands (see herd bench --help)", typed);
  }
}

static int parse_bench(int argc, char **argv, bench_opts *o) {
  static const struct option *const tables[] = {cli_summary_options, bench_own_options, NULL};
  cli_command c = {.name = "bench", .usage = bench_usage, .tables = tables, .take = take_bench, .ctx = o};
  int status = cli_parse(&c, argc, argv);
  if (status != CLI_GO_ON) return status;
  if (check_model_options(o)) return EXIT_BAD_INPUT;
  return make_configs(o, o->backends, o->threads) ? EXIT_BAD_INPUT : -1;
}

/* A line on the console, unless --quiet: the files in --out are the output asked for. */
/* The console's lines: the progress table (standard error under --json), unless --quiet. */
static void say(FILE *to, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(FILE *to, const char *fmt, ...) {
  if (cli_quiet) return;
  va_list ap;
  va_start(ap, fmt);
  vfprintf(to, fmt, ap);
  va_end(ap);
  fflush(to);
}

/* ---- Measuring -------------------------------------------------------------------------- */

/* A model other than Strömbom: N agents uniform in a world that wraps along every axis, its
 * side chosen so that each agent has o->neighbours others within the grid cell radius r on
 * average: N pi r^2 / area (2D) or N 4/3 pi r^3 / volume (3D). */
static int uniform_workload(const bench_opts *o, uint32_t n, herd_scenario **sc) {
  herd_scenario *base;
  herd_error err;
  char model[64], count[64], size[160];
  snprintf(model, sizeof model, "model=%s", herd_model_name(o->model));
  const char *model_set[] = {model};
  if (herd_scenario_load(NULL, model_set, 1, &base, &err) != HERD_OK) return cli_fail(1, "bench: %s", err.message);
  herd_scenario_info info = herd_scenario_describe(base);
  herd_scenario_free(base);
  uint32_t dims = o->dims ? o->dims : info.dims;
  double r = info.grid_cell_m, pi = acos(-1.0);
  double side = dims == 2 ? sqrt(n * pi * r * r / o->neighbours) : cbrt(n * 4.0 / 3.0 * pi * r * r * r / o->neighbours);
  snprintf(count, sizeof count, "%s.count=%u", herd_model_section(o->model), n);
  if (dims == 2)
    snprintf(size, sizeof size, "world.size_m=[%.6g,%.6g]", side, side);
  else
    snprintf(size, sizeof size, "world.size_m=[%.6g,%.6g,%.6g]", side, side, side);
  const char *sets[] = {model, count, size, dims == 2 ? "world.wrap=[true,true]" : "world.wrap=[true,true,true]",
                        "max_steps=1000000000"};
  if (herd_scenario_load(NULL, sets, 5, sc, &err) != HERD_OK) return cli_fail(1, "bench workload: %s", err.message);
  return 0;
}

/* The workload's scenario for N agents: the same density at every N. */
static int workload(const bench_opts *o, uint32_t n, herd_scenario **sc) {
  if (o->model != HERD_MODEL_STROMBOM) return uniform_workload(o, n, sc);
  char count[48], field[48], neighbours[48];
  snprintf(count, sizeof count, "sheep.count=%u", n);
  /* all-active: one sheep per 4 m^2 in the spawn square (a third of the field); herding:
   * the default scenario's density, 100 sheep in 50 m x 50 m. */
  snprintf(field, sizeof field, "field.size_m=%.3f", o->all_active ? 3.0 * sqrt(4.0 * n) : 150.0 * sqrt(n / 100.0));
  snprintf(neighbours, sizeof neighbours, "sheep.neighbours=%u", n > 50 ? 50u : n - 1);
  /* max_steps: the bench decides how long to run */
  const char *sets[] = {"max_steps=1000000000",         count, field, neighbours, "sheep.dog_radius_m=1e9",
                        "target.position_m=[-1e7,-1e7]"};
  herd_error err;
  if (herd_scenario_load(NULL, sets, o->all_active ? 6 : 4, sc, &err) != HERD_OK)
    return cli_fail(1, "bench workload: %s", err.message);
  return 0;
}

/* Resets the process's peak resident set (Linux: "5" into clear_refs), so each
 * configuration reports its own peak. */
static void reset_peak_memory(void) {
  FILE *f = fopen("/proc/self/clear_refs", "w");
  if (f) fputs("5", f), fclose(f);
}

static double peak_memory_mib(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  double kib = 0;
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "VmHWM:", 6) == 0) kib = strtod(line + 6, NULL);
  if (f) fclose(f);
  return kib / 1024.0;
}

/* Steps of one timed repeat (--steps, or about 5e5 / N up to WINDOW_STEPS). */
static uint32_t repeat_steps(const bench_opts *o, uint32_t n) {
  return (uint32_t)(o->steps ? o->steps : fmin(WINDOW_STEPS, fmax(1.0, round(5e5 / n))));
}

/* One timed repeat: a sim of the workload from its start, WARMUP_STEPS untimed, then
 * row->steps timed into row->seconds; its stages added to row->stage_ms (seconds until
 * measure divides them). The last repeat's sim stays in *kept for what measure reads of it. */
static herd_status time_repeat(const bench_config *c, const herd_scenario *sc, bench_row *row, herd_sim **kept,
                               herd_error *err) {
  herd_sim_desc desc = {.scenario = sc,
                        .threads = c->threads,
                        .backend = c->backend,
                        .device = *c->device ? c->device : NULL,
                        .profile = true,
                        .stop = &cli_stop};
  herd_sim *sim;
  herd_status st = herd_sim_create(&desc, &sim, err);
  if (st != HERD_OK) return st;
  herd_profile before, after;
  for (int w = 0; w < WARMUP_STEPS && st == HERD_OK; ++w) st = herd_sim_step(sim, err);
  if (st == HERD_OK) st = herd_sim_profile(sim, &before, err);
  double t0 = herd_clock_s();
  for (uint32_t s = 0; s < row->steps && st == HERD_OK; ++s) st = herd_sim_step(sim, err);
  row->seconds[row->repeats++] = (herd_clock_s() - t0) / row->steps;
  if (st == HERD_OK) st = herd_sim_profile(sim, &after, err);
  for (int k = 0; k < HERD_STAGE_COUNT && st == HERD_OK; ++k) row->stage_ms[k] += after.seconds[k] - before.seconds[k];
  if (*kept) herd_sim_destroy(*kept);
  *kept = sim;
  return st;
}

static int measure(const bench_opts *o, bench_config *c, uint32_t n, bench_row *row) {
  herd_scenario *sc;
  if (workload(o, n, &sc)) return 1;
  reset_peak_memory();
  memset(row, 0, sizeof *row);
  row->config = c;
  row->n = n;
  row->dims = herd_scenario_describe(sc).dims;
  row->steps = repeat_steps(o, n);
  herd_sim *sim = NULL;
  herd_error err;
  herd_status st = HERD_OK;
  for (int r = 0; r < o->repeat && st == HERD_OK; ++r) st = time_repeat(c, sc, row, &sim, &err);
  herd_scenario_free(sc);
  if (st != HERD_OK) {
    if (sim) herd_sim_destroy(sim);
    if (err.status == HERD_E_INTERRUPTED) return 128 + cli_stop;
    return sim ? cli_fail(1, "%s, N = %u: %s", c->label, n, err.message) : cli_fail(1, "%s: %s", c->label, err.message);
  }
  for (int k = 0; k < HERD_STAGE_COUNT; ++k) row->stage_ms[k] *= 1e3 / ((double)row->steps * row->repeats);
  double sorted[MAX_REPEATS];
  memcpy(sorted, row->seconds, row->repeats * sizeof *sorted);
  herd_sort_doubles(sorted, (size_t)row->repeats);
  row->min = sorted[0], row->max = sorted[row->repeats - 1];
  row->median = herd_quantile(sorted, (size_t)row->repeats, 0.5);
  row->device_mib = herd_sim_memory_bytes(sim) / 1048576.0;
  row->threads_used = herd_sim_threads(sim);
  row->peak_mib = peak_memory_mib();
  if (strcmp(c->backend, "opencl") == 0) snprintf(c->label, sizeof c->label, "opencl (%s)", herd_sim_device(sim));
  herd_sim_destroy(sim);
  return 0;
}

/* ---- Writing ---------------------------------------------------------------------------- */

/* True when the CPU backend ran fewer threads than the configuration asked for (it runs
 * small flocks on one thread): the row then measures that many, and says so. */
static bool ran_fewer_threads(const bench_row *r) {
  return strcmp(r->config->backend, "cpu") == 0 && r->threads_used != r->config->threads;
}

/* What ran for this row: the configuration's label, and "(ran 1 thread)" where the backend
 * ran fewer threads than asked for. */
static const char *row_label(const bench_row *r) {
  static char label[128];
  if (ran_fewer_threads(r))
    snprintf(label, sizeof label, "%s (ran %d thread%s)", r->config->label, r->threads_used,
             r->threads_used == 1 ? "" : "s");
  else
    snprintf(label, sizeof label, "%s", r->config->label);
  return label;
}

/* Opens `name` in the staging folder. */
static FILE *open_out(const bench_opts *o, const char *name) {
  char path[700];
  snprintf(path, sizeof path, "%s/%s", o->staging, name);
  FILE *f = fopen(path, "w");
  if (!f) cli_fail(1, "%s: cannot write: %s", path, strerror(errno));
  return f;
}

/* Closes a file open_out opened: a write that failed (a full disk, a file size limit) is said,
 * naming the file, and makes the bench fail with 1. */
static int close_out(const bench_opts *o, FILE *f, const char *name) {
  bool failed = fflush(f) != 0 || ferror(f);
  int e = errno;
  if (fclose(f) != 0 && !failed) failed = true, e = errno;
  if (!failed) return 0;
  return cli_fail(1, "--out %s: %s: write failed: %s", cli_shown(o->out), name, strerror(e ? e : EIO));
}

/* A configuration's label as a gnuplot string: a device name may hold a quote. */
static const char *plot_label(const bench_config *c) {
  static char label[96];
  snprintf(label, sizeof label, "%s", c->label);
  for (char *p = label; *p; ++p)
    if (*p == '\'' || *p == '\\' || (unsigned char)*p < 0x20) *p = ' ';
  return label;
}

static int write_csv(const bench_opts *o, const bench_row *rows, int count) {
  FILE *f = open_out(o, "results.csv");
  if (!f) return 1;
  if (!herd_provenance_csv(f, NULL, NULL, o->argc, o->argv))
    return close_out(o, f, "results.csv") || cli_fail(1, "out of memory");
  fprintf(f, "backend,device,threads,n,repeat,steps,seconds_per_step,agent_steps_per_second");
  for (int k = 0; k < HERD_STAGE_COUNT; ++k) fprintf(f, ",%s_ms_per_step", herd_stage_name((herd_stage)k));
  /* threads_used and the spread of the repeats come last, so earlier columns keep their place. */
  fprintf(f,
          ",peak_host_mib,device_mib,model,dims,threads_used,seconds_per_step_min,seconds_per_step_median,"
          "seconds_per_step_max\n");
  for (int i = 0; i < count; ++i) {
    const bench_row *r = &rows[i];
    /* The label without commas, so that plain comma-splitting tools read the file right. */
    char label[128];
    snprintf(label, sizeof label, "%s", row_label(r));
    for (char *c = label; *c; ++c)
      if (*c == ',') *c = ';';
    for (int k = 0; k < r->repeats; ++k) {
      fprintf(f, "%s,%s,%d,%u,%d,%u,%.6e,%.6e", r->config->backend, label, r->config->threads, r->n, k + 1, r->steps,
              r->seconds[k], r->n / r->seconds[k]);
      for (int s = 0; s < HERD_STAGE_COUNT; ++s) fprintf(f, ",%.4f", r->stage_ms[s]);
      fprintf(f, ",%.1f,%.1f,%s,%u,%d,%.6e,%.6e,%.6e\n", r->peak_mib, r->device_mib, herd_model_name(o->model), r->dims,
              r->threads_used, r->min, r->median, r->max);
    }
  }
  return close_out(o, f, "results.csv");
}

/* Least-squares slope of log(time) on log(N) over one configuration's rows, those that ran
 * fewer threads than asked for left out (they would mix two thread counts in one slope). */
static double fit_alpha(const bench_row *rows, int count, const bench_config *c, double *lo, double *hi) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int m = 0;
  *lo = INFINITY, *hi = 0;
  for (int i = 0; i < count; ++i) {
    if (rows[i].config != c || ran_fewer_threads(&rows[i])) continue;
    double x = log((double)rows[i].n), y = log(rows[i].median);
    sx += x, sy += y, sxx += x * x, sxy += x * y, ++m;
    *lo = fmin(*lo, rows[i].n), *hi = fmax(*hi, rows[i].n);
  }
  return m >= 2 ? (m * sxy - sx * sy) / (m * sxx - sx * sx) : NAN;
}

/* What was run, in a sentence or two. */
static void write_workload(FILE *f, const bench_opts *o) {
  if (o->model == HERD_MODEL_STROMBOM) {
    fprintf(f, "Workload: **Strömbom, %s**, %s. n = 50 nearest neighbours, r_a = 2 m, r_s = %s.",
            o->all_active ? "all-active" : "herding",
            o->all_active ? "every sheep does the full update every step, one sheep per 4 m²"
                          : "the default scenario scaled to N at 100 sheep per 2500 m²",
            o->all_active ? "10⁹ m" : "65 m");
    return;
  }
  herd_scenario *sc;
  if (uniform_workload(o, 1000, &sc)) return;
  herd_scenario_info info = herd_scenario_describe(sc);
  herd_scenario_free(sc);
  fprintf(f,
          "Workload: **%s %uD, uniform**: the model's default parameters; the agents start uniform at random in a "
          "world that wraps along every axis, sized so that each has %g others within r = %g m (its grid cell: "
          "the radius it sees within) on average at the start. Every agent does the full update every step; the "
          "flock then gathers as the model makes it.",
          herd_model_name(o->model), info.dims, o->neighbours, (double)info.grid_cell_m);
}

/* Where the CPU backend ran fewer threads than asked for (small flocks: a parallel region
 * would cost more than the work), from what the runs reported, not from a copy of its rule. */
static void write_fewer_threads_note(FILE *f, const bench_row *rows, int count) {
  uint32_t largest = 0;
  for (int i = 0; i < count; ++i)
    if (ran_fewer_threads(&rows[i]) && rows[i].n > largest) largest = rows[i].n;
  if (largest)
    fprintf(f,
            "\nThe CPU backend ran flocks up to N = %u on fewer threads than asked for (rows marked \"ran 1 "
            "thread\"): there a parallel region costs more than the work. Those rows measure that thread count, "
            "and the speed-up plot leaves them out.\n",
            largest);
}

static int write_summary(const bench_opts *o, const bench_row *rows, int count, const char *dropped) {
  FILE *f = open_out(o, "summary.md");
  if (!f) return 1;
  time_t now = time(NULL);
  char when[64];
  strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", gmtime(&now));
  fprintf(f, "# herd bench\n\n`%s`, %s. No number here is edited by hand.\n\n", o->command, when);
  write_workload(f, o);
  fprintf(f,
          " %ld timed repeats, each from the workload's start (the same seed) after %d warm-up steps, so that every N "
          "is timed at the density stated; time per step is the median of the repeats (min–max: "
          "their spread, also the error bars of the plots). The same model source and seeds run on every backend; "
          "the test suite checks that the backends agree in distribution (tests/test_opencl.c).\n\n",
          o->repeat, WARMUP_STEPS);
  fprintf(
      f,
      "| configuration | N | steps | ms/step (median) | min–max | agent-steps/s | peak host MiB | agent+grid MiB |\n");
  fprintf(f, "|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int i = 0; i < count; ++i) {
    const bench_row *r = &rows[i];
    fprintf(f, "| %s | %u | %u | %.3f | %.3f–%.3f | %.3g | %.1f | %.1f |\n", row_label(r), r->n, r->steps,
            1e3 * r->median, 1e3 * r->min, 1e3 * r->max, r->n / r->median, r->peak_mib, r->device_mib);
  }
  fprintf(f, "\n## Scaling exponent α (time per step ∝ N^α)\n\n");
  for (int c = 0; c < o->config_count; ++c) {
    double lo, hi, a = fit_alpha(rows, count, &o->configs[c], &lo, &hi);
    if (!isnan(a)) fprintf(f, "- %s: α = %.3f over N = %.0f to %.0f\n", o->configs[c].label, a, lo, hi);
  }
  if (*dropped) fprintf(f, "\n%s\n", dropped);
  write_fewer_threads_note(f, rows, count);
  fprintf(f, "\nPlots: time_per_step.png, stages.png, speedup.png. Machine: machine.md.\n");
  return close_out(o, f, "summary.md");
}

static int write_machine(const bench_opts *o) {
  FILE *f = open_out(o, "machine.md");
  if (!f) return 1;
  char cpu[256], mem[64], os[128];
  herd_read_key("/proc/cpuinfo", "model name", cpu, sizeof cpu);
  herd_read_key("/proc/meminfo", "MemTotal:", mem, sizeof mem);
  herd_read_key("/etc/os-release", "PRETTY_NAME=", os, sizeof os);
  struct utsname u;
  uname(&u);
  fprintf(f, "# Machine\n\n- CPU: %s\n- cores online: %ld\n- memory: %s\n- OS: %s (kernel %s %s)\n- compiler: %s\n",
          cpu, sysconf(_SC_NPROCESSORS_ONLN), mem, os, u.release, u.machine, herd_compiler_text());
  herd_device_info info[16];
  int count = 0;
  herd_error err;
  if (herd_devices(info, 16, &count, &err) != HERD_OK) fprintf(f, "- OpenCL: %s\n", err.message);
  for (int k = 0; k < count; ++k)
    fprintf(f, "- OpenCL device %d: %s (%s, %s), %u compute units, %.1f GiB, %s, driver %s\n", k, info[k].name,
            info[k].type, info[k].platform, info[k].compute_units, info[k].global_mem_bytes / 1073741824.0,
            info[k].opencl_c_version, info[k].driver_version);
  return close_out(o, f, "machine.md");
}

/* ---- Plots ------------------------------------------------------------------------------ */

/* The largest N at which configuration c ran fewer threads than it asked for; 0 if none. */
static uint32_t fewer_threads_up_to(const bench_config *c, const bench_row *rows, int count) {
  uint32_t largest = 0;
  for (int i = 0; i < count; ++i)
    if (rows[i].config == c && ran_fewer_threads(&rows[i]) && rows[i].n > largest) largest = rows[i].n;
  return largest;
}

/* The `plot` line with one inline data series per configuration: "x y low high" rows drawn
 * as lines with error bars (the repeats' min and max). A configuration that ran fewer
 * threads at small N says so in its title. */
static void plot_per_config(FILE *gp, const bench_opts *o, const bench_row *rows, int count) {
  fprintf(gp, "plot ");
  for (int c = 0; c < o->config_count; ++c) {
    uint32_t fewer = fewer_threads_up_to(&o->configs[c], rows, count);
    char note[64] = "";
    if (fewer) snprintf(note, sizeof note, " (1 thread ran up to N = %u)", fewer);
    fprintf(gp, "%s'-' using 1:2:3:4 with yerrorlines title '%s%s'", c ? ", " : "", plot_label(&o->configs[c]), note);
  }
  fprintf(gp, "\n");
}

/* Time per step, log-log, a line per configuration. */
static void plot_time_per_step(FILE *gp, const bench_opts *o, const bench_row *rows, int count) {
  fprintf(gp,
          "set output 'time_per_step.png'\nset logscale xy\nset xlabel 'agents N'\n"
          "set ylabel 'time per step (ms): median, bars min to max of the repeats'\n"
          "set title 'herd bench: time per step'\n");
  plot_per_config(gp, o, rows, count);
  for (int c = 0; c < o->config_count; ++c) {
    for (int i = 0; i < count; ++i)
      if (rows[i].config == &o->configs[c])
        fprintf(gp, "%u %.6g %.6g %.6g\n", rows[i].n, 1e3 * rows[i].median, 1e3 * rows[i].min, 1e3 * rows[i].max);
    fprintf(gp, "e\n");
  }
}

/* The configuration speed-ups are relative to: the CPU backend on the fewest threads, else
 * the first configuration. */
static const bench_config *speedup_base(const bench_opts *o) {
  const bench_config *base = &o->configs[0];
  for (int c = 0; c < o->config_count; ++c) {
    const bench_config *k = &o->configs[c];
    bool cpu = strcmp(k->backend, "cpu") == 0, base_cpu = strcmp(base->backend, "cpu") == 0;
    if (cpu && (!base_cpu || k->threads < base->threads)) base = k;
  }
  return base;
}

/* True when row r ran just what `base` ran at its N (the CPU backend on the same number of
 * threads): their ratio is noise, not a speed-up, and is not plotted. */
static bool same_as_base(const bench_row *r, const bench_row *base) {
  return strcmp(r->config->backend, "cpu") == 0 && strcmp(base->config->backend, "cpu") == 0 &&
         r->threads_used == base->threads_used;
}

/* Speed-up over speedup_base() at each N: the ratio of medians, bars from the slowest to
 * the fastest pairing of the repeats (base min / row max to base max / row min). */
static void plot_speedup(FILE *gp, const bench_opts *o, const bench_row *rows, int count) {
  const bench_config *base = speedup_base(o);
  fprintf(gp, "set output 'speedup.png'\nunset logscale y\nset ylabel 'speed-up over %s'\n", plot_label(base));
  fprintf(gp, "set title 'herd bench: speed-up (N where a row ran the same threads as the base: left out)'\n");
  plot_per_config(gp, o, rows, count);
  for (int c = 0; c < o->config_count; ++c) {
    for (int i = 0; i < count; ++i) {
      if (rows[i].config != &o->configs[c]) continue;
      for (int j = 0; j < count; ++j)
        if (rows[j].config == base && rows[j].n == rows[i].n &&
            (rows[i].config == base || !same_as_base(&rows[i], &rows[j])))
          fprintf(gp, "%u %.6g %.6g %.6g\n", rows[i].n, rows[j].median / rows[i].median, rows[j].min / rows[i].max,
                  rows[j].max / rows[i].min);
    }
    fprintf(gp, "e\n");
  }
}

/* Stacked stages at each configuration's largest N. */
static void plot_stages(FILE *gp, const bench_opts *o, const bench_row *rows, int count) {
  fprintf(gp,
          "set output 'stages.png'\nunset logscale\nset style data histograms\nset style histogram rowstacked\n"
          "set style fill solid 0.8 border -1\nset boxwidth 0.6\nset xtics rotate by -20\nset key outside right\n"
          "set ylabel 'ms per step'\nset xlabel ''\nset title 'herd bench: time per stage at the largest N'\nplot ");
  for (int k = 0; k < HERD_STAGE_COUNT; ++k)
    fprintf(gp, "%s'-' using 2:xtic(1) title '%s'", k ? ", " : "", herd_stage_name((herd_stage)k));
  fprintf(gp, "\n");
  for (int k = 0; k < HERD_STAGE_COUNT; ++k) {
    for (int c = 0; c < o->config_count; ++c) {
      const bench_row *last = NULL;
      for (int i = 0; i < count; ++i)
        if (rows[i].config == &o->configs[c]) last = &rows[i];
      if (!last) continue;
      char ran[32] = "";
      if (ran_fewer_threads(last)) snprintf(ran, sizeof ran, " (ran %dt)", last->threads_used);
      if (strcmp(o->configs[c].backend, "cpu") == 0)
        fprintf(gp, "\"cpu %dt%s, N=%u\" %.6g\n", o->configs[c].threads, ran, last->n, last->stage_ms[k]);
      else
        fprintf(gp, "\"opencl, N=%u\" %.6g\n", last->n, last->stage_ms[k]);
    }
    fprintf(gp, "e\n");
  }
}

static int write_plots(const bench_opts *o, const bench_row *rows, int count) {
  FILE *gp = open_out(o, "plots.gp");
  if (!gp) return 1;
  /* The key below the plot area, never over a curve. */
  fprintf(gp, "set terminal pngcairo size 900,650 noenhanced\nset grid\nset key outside below left Left reverse\n");
  plot_time_per_step(gp, o, rows, count);
  plot_speedup(gp, o, rows, count);
  plot_stages(gp, o, rows, count);
  if (close_out(o, gp, "plots.gp")) return 1;
  return cli_gnuplot(o->staging, "plots.gp", "herd bench");
}

/* ---- JSON (--summary, --json) ------------------------------------------------------------ */

static json_t *row_json(const bench_row *r) {
  json_t *repeats = json_array(), *stages = json_object();
  for (int k = 0; k < r->repeats; ++k) json_array_append_new(repeats, summary_number(r->seconds[k]));
  for (int k = 0; k < HERD_STAGE_COUNT; ++k)
    json_object_set_new(stages, herd_stage_name((herd_stage)k), summary_number(r->stage_ms[k]));
  return json_pack("{s:s, s:s, s:i, s:i, s:I, s:I, s:{s:o, s:o, s:o, s:o}, s:o, s:o, s:o, s:o}", "backend",
                   r->config->backend, "label", row_label(r), "threads", r->config->threads, "threads_used",
                   r->threads_used, "n", (json_int_t)r->n, "steps", (json_int_t)r->steps, "seconds_per_step", "min",
                   summary_number(r->min), "median", summary_number(r->median), "max", summary_number(r->max),
                   "repeats", repeats, "agent_steps_per_s", summary_number(r->n / r->median), "stage_ms_per_step",
                   stages, "peak_host_mib", summary_number(r->peak_mib), "device_mib", summary_number(r->device_mib));
}

/* The scaling exponents, one per configuration with two sizes or more that ran as asked. */
static json_t *alphas_json(const bench_opts *o, const bench_row *rows, int count) {
  json_t *list = json_array();
  for (int c = 0; c < o->config_count; ++c) {
    double lo, hi, a = fit_alpha(rows, count, &o->configs[c], &lo, &hi);
    if (!isnan(a))
      json_array_append_new(list, json_pack("{s:s, s:o, s:f, s:f}", "label", o->configs[c].label, "alpha",
                                            summary_number(a), "n_min", lo, "n_max", hi));
  }
  return list;
}

/* The whole bench as one document (docs/schema/bench-summary.schema.json). */
static json_t *bench_json(const bench_opts *o, const bench_row *rows, int count, const char *dropped, int argc,
                          char **argv) {
  json_t *list = json_array();
  for (int i = 0; i < count; ++i) json_array_append_new(list, row_json(&rows[i]));
  json_t *workload = json_pack("{s:s, s:i}", "model", herd_model_name(o->model), "dims", count ? (int)rows[0].dims : 0);
  if (o->model == HERD_MODEL_STROMBOM)
    json_object_set_new(workload, "workload", json_string(o->all_active ? "all-active" : "herding"));
  else
    json_object_set_new(workload, "neighbours", summary_number(o->neighbours));
  return json_pack("{s:s, s:o, s:o, s:I, s:I, s:o, s:o, s:s*}", "schema", SUMMARY_BENCH_SCHEMA, "provenance",
                   herd_provenance(NULL, NULL, argc, argv), "workload", workload, "repeat", (json_int_t)o->repeat,
                   "warmup_steps", (json_int_t)WARMUP_STEPS, "rows", list, "alpha", alphas_json(o, rows, count),
                   "dropped", *dropped ? dropped : NULL);
}

/* ---- The output folder ------------------------------------------------------------------ */

/* Before any run: --out is (or can be made) a writable folder, no result file in it would be
 * replaced without --force, and the staging folder exists. */
static int prepare_out(bench_opts *o) {
  struct stat st;
  if (stat(o->out, &st) != 0) {
    if (errno != ENOENT || mkdir(o->out, 0777) != 0)
      return cli_fail(EXIT_BAD_INPUT, "--out %s: cannot create the folder: %s", o->out, strerror(errno));
  } else if (!S_ISDIR(st.st_mode)) {
    return cli_fail(EXIT_BAD_INPUT, "--out %s: not a folder", o->out);
  }
  for (size_t k = 0; k < RESULT_FILE_COUNT && !o->force; ++k) {
    char path[700];
    snprintf(path, sizeof path, "%s/%s", o->out, result_files[k]);
    if (access(path, F_OK) == 0)
      return cli_fail(EXIT_BAD_INPUT, "--out %s: holds results already (%s); not replacing them (use --force)", o->out,
                      result_files[k]);
  }
  snprintf(o->staging, sizeof o->staging, "%s/.herd-bench-XXXXXX", o->out);
  if (!mkdtemp(o->staging)) {
    int e = errno;
    o->staging[0] = '\0';
    return cli_fail(EXIT_BAD_INPUT, "--out %s: cannot write in the folder: %s", o->out, strerror(e));
  }
  return 0;
}

/* Moves every finished file from the staging folder into --out. */
static int place_results(const bench_opts *o) {
  for (size_t k = 0; k < RESULT_FILE_COUNT; ++k) {
    char from[700], to[700];
    snprintf(from, sizeof from, "%s/%s", o->staging, result_files[k]);
    snprintf(to, sizeof to, "%s/%s", o->out, result_files[k]);
    herd_error err;
    if (herd_move_into_place("--out", from, to, o->force, &err) != HERD_OK) return cli_error(&err);
  }
  return 0;
}

/* Removes the staging folder and whatever is left in it. */
static void remove_staging(const bench_opts *o) {
  if (!o->staging[0]) return;
  for (size_t k = 0; k < RESULT_FILE_COUNT; ++k) {
    char path[700];
    snprintf(path, sizeof path, "%s/%s", o->staging, result_files[k]);
    unlink(path);
  }
  rmdir(o->staging);
}

/* ---- The command -------------------------------------------------------------------------- */

/* Measures every configuration at every size that fits the budget; 0 or an exit status. */
static int run_configs(bench_opts *o, bench_row *rows, int *count, char *dropped, size_t dropped_size) {
  double start = herd_clock_s();
  say(o->text, "%-44s %9s %6s %12s %14s %9s\n", "configuration", "N", "steps", "ms/step", "agent-steps/s", "peak MiB");
  for (int c = 0; c < o->config_count; ++c) {
    bench_config *cfg = &o->configs[c];
    if (strcmp(cfg->backend, "cpu") == 0)
      snprintf(cfg->label, sizeof cfg->label, "cpu, %d thread%s", cfg->threads, cfg->threads == 1 ? "" : "s");
    else
      snprintf(cfg->label, sizeof cfg->label, "opencl");
    double per_agent_step = 0; /* seconds, from this configuration's last size */
    for (int s = 0; s < o->size_count; ++s) {
      uint32_t n = (uint32_t)o->sizes[s];
      double steps = repeat_steps(o, n);
      double estimate = per_agent_step * n * (steps + WARMUP_STEPS) * o->repeat * 1.3;
      if (per_agent_step > 0 && herd_clock_s() - start + estimate > o->budget_s) {
        size_t used = strlen(dropped);
        snprintf(dropped + used, dropped_size - used,
                 "%sDropped for the %.0f s budget: %s from N = %u up (about %.0f s more).", used ? " " : "",
                 o->budget_s, cfg->label, n, estimate);
        say(o->text, "%-44s %9u  dropped: about %.0f s would pass the %.0f s budget\n", cfg->label, n, estimate,
            o->budget_s);
        break;
      }
      int status = cli_stop ? 128 + cli_stop : measure(o, cfg, n, &rows[*count]);
      if (status) return status;
      bench_row *r = &rows[(*count)++];
      per_agent_step = r->median / n;
      say(o->text, "%-44.44s %9u %6u %12.3f %14.3g %9.1f\n", row_label(r), n, r->steps, 1e3 * r->median, n / r->median,
          r->peak_mib);
    }
  }
  return 0;
}

int cmd_bench(int argc, char **argv) {
  static bench_opts o;
  memset(&o, 0, sizeof o);
  o.all_active = true, o.repeat = 5, o.budget_s = 540, o.out = "bench-out", o.neighbours = 20;
  static const double default_sizes[] = {1e3, 3e3, 1e4, 3e4, 5e4, 1e5, 3e5, 1e6};
  memcpy(o.sizes, default_sizes, sizeof default_sizes);
  o.size_count = 8;
  cli_catch_signals();
  int status = parse_bench(argc, argv, &o);
  if (status != -1) return status;
  o.text = summary_text_stream(&o.summary, stdout);
  o.argc = argc, o.argv = argv;
  cli_claims files = {.force = o.force};
  if (cli_claim_folder(&files, "--out", o.out, result_files) || cli_claim_output(&files, "--summary", o.summary.path))
    return EXIT_BAD_INPUT;
  if (summary_check(&o.summary, o.force)) return EXIT_BAD_INPUT;
  size_t typed = (size_t)snprintf(o.command, sizeof o.command, "herd bench");
  for (int i = 1; i < argc && typed < sizeof o.command; ++i)
    typed += (size_t)snprintf(o.command + typed, sizeof o.command - typed, " %s", argv[i]);
  cli_begin_output();
  status = prepare_out(&o);
  static bench_row rows[MAX_CONFIGS * MAX_SIZES];
  int count = 0;
  char dropped[1200] = "";
  double start = herd_clock_s();
  if (status == 0) status = run_configs(&o, rows, &count, dropped, sizeof dropped);
  if (status == 0) {
    for (int c = 0; c < o.config_count; ++c) {
      double lo, hi, a = fit_alpha(rows, count, &o.configs[c], &lo, &hi);
      if (!isnan(a)) say(o.text, "alpha = %.3f for %s over N = %.0f to %.0f\n", a, o.configs[c].label, lo, hi);
    }
    if (*dropped) say(o.text, "%s\n", dropped);
    if (write_csv(&o, rows, count) || write_summary(&o, rows, count, dropped) || write_machine(&o) ||
        write_plots(&o, rows, count))
      status = 1;
  }
  if (status == 0) status = place_results(&o);
  if (status == 0 && (o.summary.path || o.summary.json))
    status = summary_emit(&o.summary, o.force, bench_json(&o, rows, count, dropped, argc, argv));
  if (status == 0)
    say(o.text,
        "wrote results.csv, summary.md, machine.md, time_per_step.png, stages.png, speedup.png to %s (%.0f s)\n",
        cli_shown(o.out), herd_clock_s() - start);
  if (status > 128) fprintf(stderr, "herd: interrupted; %s is as it was\n", cli_shown(o.out));
  remove_staging(&o);
  return status;
}
