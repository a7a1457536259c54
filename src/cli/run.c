/* `herd run` and `herd scenario`. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../record/provenance.h"
#include "../util/clock.h"
#include "../util/error.h"
#include "../util/outfile.h"
#include "checkpoint_cli.h"
#include "claims.h"
#include "cli.h"
#include "herd/herd.h"
#include "herd/herd_record.h"
#include "mpi_cli.h"
#include "options.h"
#include "steering_ui.h"
#include "summary.h"

static const char run_usage[] =
    "usage: herd run [SCENARIO] [OPTIONS]\n"
    "\n"
    "Runs SCENARIO (a JSON file; default: the built-in Strömbom et al. 2014 setup) until every\n"
    "agent is within the goal radius (scenarios with a goal) or the step limit is reached,\n"
    "then prints a summary.\n"
    "\n"
    "options (--opt=VALUE or --opt VALUE; -r7 or -r 7; a unique abbreviation is enough):\n"
    "  -r, --seed S       random seed (same scenario + seed = bit-identical run)\n"
    "  -s, --steps MAX    step limit (the scenario's max_steps)\n"
    "  --set PATH=VALUE   override a scenario field, e.g. --set sheep.count=80 (repeatable)\n"
    "  --set-at STEP:PATH=VALUE\n"
    "                     change a parameter during the run, once STEP steps have run, e.g.\n"
    "                     --set-at 500:sheep.repulsion=3 (repeatable; an entry of the\n"
    "                     scenario's schedule: docs/scenario.md)\n"
    "  -t, --threads T    CPU threads (default: all cores); results do not depend on it\n"
    "  --backend B        cpu (default), opencl, or auto (first GPU, else an OpenCL CPU\n"
    "                     device, else cpu); see herd devices\n"
    "  --device D         OpenCL device: index or name substring (default: $HERD_CL_DEVICE, else 0)\n"
    "  --profile          print the time spent in each stage at the end\n"
    "  --lockstep         never run a step ahead of its observation (OpenCL; the results are\n"
    "                     the same: for measuring what running ahead gains)\n"
    "  --csv FILE         write one row per step: observation, order parameters and steering\n"
    "                     agents (\"-\": standard output, the summary then on standard error).\n"
    "                     Written as FILE.part-XXXXXX, flushed every second, and renamed to\n"
    "                     FILE when the run ends (also on Ctrl-C)\n"
    "  --trajectories FILE.h5\n"
    "                     write per-agent positions and headings to HDF5 every\n"
    "                     output.trajectories.every_steps steps (layout: docs/output.md)\n"
    "  --force            let --csv, --trajectories, --summary and --checkpoint replace an existing file\n"
    "  -q, --quiet        no summary, progress line or notes (errors, --csv and --profile stay)\n"
    "  -h, --help         this text;  -V, --version  herd's version and commit\n"
    "  --                 the end of the options (for a scenario file named -x.json)\n"
    "  --summary FILE     also write the summary as JSON (docs/schema/run-summary.schema.json);\n"
    "                     --force lets it replace an existing file\n"
    "  --json             print the summary as JSON on standard output (the text summary then\n"
    "                     goes to standard error)\n"
    "  --checkpoint FILE  write the run's whole state to FILE when it ends (docs/checkpoint.md)\n"
    "  --checkpoint-every K  ... and every K steps (replacing its own last one)\n"
    "  --checkpoint-on-stop  ... and when Ctrl-C stops it (the last whole step)\n"
    "  --mpi              under mpirun -np P: split the flock over the P ranks, each stepping its part\n"
    "                     on --backend; the same results as one process, bit for bit (docs/cluster.md)\n"
    "  --mpi-layout slabs|grid  cut space into P slabs, or a 2D grid of ranks (default: grid when P allows)\n"
    "  --mpi-rebalance K  even the ranks' agent counts every K steps (default 50)\n"
    "  --resume FILE      continue the run checkpointed in FILE, bit for bit as it would have\n"
    "                     gone on (its scenario and backend; only --steps may be given)\n"
    "\n"
    "Ctrl-C (or SIGTERM) while the run is set up (reading its files, placing the flock, building\n"
    "kernels, baking fields) ends herd at once: nothing is written yet. Later it stops within a\n"
    "second, even inside a long step, and still prints the summary and writes the CSV (and\n"
    "with --checkpoint-on-stop the checkpoint) up to the last whole step; a second Ctrl-C\n"
    "exits at once, leaving every file it names as it was.\n"
    "\n"
    "exit status: 0 the run finished (herded or not: see the summary), 1 a run error,\n"
    "2 bad input, 130/143 interrupted.\n";

static const char scenario_usage[] =
    "usage: herd scenario [SCENARIO] [-r|--seed S] [-s|--steps MAX] [--set PATH=VALUE]... [-q]\n"
    "\n"
    "Validates SCENARIO and prints it with every field resolved (defaults filled in) as JSON.\n"
    "-h/--help, -V/--version, -q/--quiet (no effect: the JSON is the output asked for).\n";

typedef struct run_opts {
  scenario_args scenario;
  backend_args backend;
  summary_args summary;
  const char *csv, *trajectories;
  bool force, profile, lockstep;
  int argc; /* the command line, for the provenance */
  char **argv;
  checkpoint_opts ckpt;
  herd_mpi_options mpi; /* --mpi and its layout */
  bool mpi_tuned;       /* --mpi-layout or --mpi-rebalance given */
  bool follow_frames;   /* a rank other than 0 under --trajectories: it reads the flock at each frame */
  /* The observation's optional parts a step's output reads (HERD_OBSERVE_*: the CSV's and the
   * trajectories' columns, the progress line's polarisation), decided before rank 0 alone keeps
   * the outputs: every rank reduces alike. The others are reduced once, for the summary
   * (herd_sim_observe_now). */
  uint32_t observed;
} run_opts;

enum {
  OPT_PROFILE = OPT_COMMAND_FIRST,
  OPT_LOCKSTEP,
  OPT_CSV,
  OPT_FORCE,
  OPT_CHECKPOINT,
  OPT_CHECKPOINT_EVERY,
  OPT_CHECKPOINT_ON_STOP,
  OPT_RESUME,
  OPT_TRAJECTORIES,
  OPT_MPI,
  OPT_MPI_LAYOUT,
  OPT_MPI_REBALANCE
};

static const struct option run_own_options[] = {
    {"profile", no_argument, NULL, OPT_PROFILE},
    {"lockstep", no_argument, NULL, OPT_LOCKSTEP},
    {"csv", required_argument, NULL, OPT_CSV},
    {"force", no_argument, NULL, OPT_FORCE},
    {"checkpoint", required_argument, NULL, OPT_CHECKPOINT},
    {"checkpoint-every", required_argument, NULL, OPT_CHECKPOINT_EVERY},
    {"checkpoint-on-stop", no_argument, NULL, OPT_CHECKPOINT_ON_STOP},
    {"resume", required_argument, NULL, OPT_RESUME},
    {"trajectories", required_argument, NULL, OPT_TRAJECTORIES},
    {"mpi", no_argument, NULL, OPT_MPI},
    {"mpi-layout", required_argument, NULL, OPT_MPI_LAYOUT},
    {"mpi-rebalance", required_argument, NULL, OPT_MPI_REBALANCE},
    {0, 0, 0, 0},
};

static int take_mpi(run_opts *o, int code, const char *typed, const char *value) {
  o->mpi_tuned = true;
  if (code == OPT_MPI_LAYOUT) {
    if (strcmp(value, "slabs") != 0 && strcmp(value, "grid") != 0)
      return cli_fail(EXIT_BAD_INPUT, "%s: \"%s\" is not a layout (allowed: slabs, grid)", typed, cli_shown(value));
    o->mpi.layout = value;
    return CLI_GO_ON;
  }
  unsigned long long every = 0;
  if (cli_parse_integer(typed, value, 1, 1000000000ull, &every)) return EXIT_BAD_INPUT;
  o->mpi.rebalance_every = (uint32_t)every;
  return CLI_GO_ON;
}

/* What --mpi does not combine with: each needs the whole flock in one process. */
static int check_mpi(const run_opts *o) {
  if (!o->mpi.on) return o->mpi_tuned ? cli_fail(EXIT_BAD_INPUT, "--mpi-layout and --mpi-rebalance need --mpi") : -1;
  const char *alone = o->ckpt.path ? "--checkpoint" : o->ckpt.resume ? "--resume" : NULL;
  if (alone)
    return cli_fail(EXIT_BAD_INPUT, "%s with --mpi: not yet (the flock is split over the ranks); run without --mpi",
                    alone);
  return -1;
}

static int take_run(void *ctx, int code, const char *typed, const char *value) {
  run_opts *o = ctx;
  switch (code) {
    case OPT_PROFILE: o->profile = true; return CLI_GO_ON;
    case OPT_LOCKSTEP: o->lockstep = true; return CLI_GO_ON;
    case OPT_CSV: o->csv = value; return CLI_GO_ON;
    case OPT_FORCE: o->force = true; return CLI_GO_ON;
    case OPT_CHECKPOINT: o->ckpt.path = value; return CLI_GO_ON;
    case OPT_CHECKPOINT_EVERY: o->ckpt.every_text = value; return CLI_GO_ON;
    case OPT_CHECKPOINT_ON_STOP: o->ckpt.on_stop = true; return CLI_GO_ON;
    case OPT_RESUME: o->ckpt.resume = value; return CLI_GO_ON;
    case OPT_TRAJECTORIES: o->trajectories = value; return CLI_GO_ON;
    case OPT_MPI: o->mpi.on = true; return CLI_GO_ON;
    case OPT_MPI_LAYOUT:
    case OPT_MPI_REBALANCE: return take_mpi(o, code, typed, value);
  }
  int status = scenario_args_option(&o->scenario, code, typed, value);
  if (status == CLI_NOT_MINE) status = backend_args_option(&o->backend, code, typed, value);
  return status != CLI_NOT_MINE ? status : summary_args_option(&o->summary, code, value);
}

/* Returns -1 when parsing succeeded, else the exit status (0 after --help). */
static int parse_run(int argc, char **argv, run_opts *o) {
  static const struct option *const tables[] = {cli_scenario_options, cli_backend_options, cli_summary_options,
                                                run_own_options, NULL};
  cli_command c = {.name = "run", .usage = run_usage, .tables = tables, .take = take_run, .ctx = o};
  int status = cli_parse(&c, argc, argv);
  return status == -1 ? check_mpi(o) : status;
}

/* ---- CSV ------------------------------------------------------------------------------ */

/* Steering agent d's column prefix: "dog0" for Strömbom's dogs, "agent1" for the rest. */
static void steering_label(const herd_sim *sim, uint32_t d, char *out, size_t size) {
  herd_strategy strategy = herd_sim_steering(sim, d)->strategy;
  snprintf(out, size, "%s%u",
           strategy == HERD_STRATEGY_DOG        ? "dog"
           : strategy == HERD_STRATEGY_FOOD     ? "food"
           : strategy == HERD_STRATEGY_SHEPHERD ? "shepherd"
                                                : "agent",
           d);
}

/* The axes of the world: "x", "y" and in 3D "z". */
static uint32_t dims_of(const herd_sim *sim) { return herd_scenario_describe(herd_sim_scenario(sim)).dims; }

static void csv_axes(FILE *f, const char *prefix, uint32_t dims) {
  static const char axis[3] = {'x', 'y', 'z'};
  for (uint32_t k = 0; k < dims; ++k) fprintf(f, ",%s_%c_m", prefix, axis[k]);
}

static bool has_path(const herd_sim *sim) { return herd_scenario_describe(herd_sim_scenario(sim)).path_points > 0; }

static bool has_groups(const herd_sim *sim) { return herd_scenario_describe(herd_sim_scenario(sim)).observes_groups; }

/* The scenario's output section decides which column groups a row has (every_steps 0: none)
 * and which are filled at a step; a row is written when any is due. */
static herd_scenario_info output_of(const herd_sim *sim) { return herd_scenario_describe(herd_sim_scenario(sim)); }

static void csv_header(FILE *f, const herd_sim *sim) {
  herd_scenario_info out = output_of(sim);
  uint32_t dims = dims_of(sim);
  fputs("step", f);
  if (out.observation_every) {
    fputs(",delivered,in_goal", f);
    csv_axes(f, "centroid", dims);
    csv_axes(f, "extent_min", dims);
    csv_axes(f, "extent_max", dims);
    fputs(",farthest_id", f);
    csv_axes(f, "farthest", dims);
    fputs(",farthest_dist_m", f);
  }
  if (out.order_every) fputs(",polarisation,milling", f);
  if (out.observation_every && has_path(sim)) fputs(",path_distance_m,path_end", f);
  if (out.observation_every && has_groups(sim)) fputs(",groups,groups_tracked", f);
  for (uint32_t d = 0; out.steering_every && d < herd_sim_steering_count(sim); ++d) {
    char label[32];
    steering_label(sim, d, label, sizeof label);
    csv_axes(f, label, dims);
    fprintf(f, ",%s_mode,%s_nearest_id,%s_nearest_dist_m", label, label, label);
  }
  fputc('\n', f);
}

static void csv_values(FILE *f, const float *v, uint32_t dims) {
  for (uint32_t k = 0; k < dims; ++k) fprintf(f, ",%.9g", v[k]);
}

/* Empty cells for a column group not due at this step. */
static void csv_blank(FILE *f, uint32_t columns) {
  for (uint32_t k = 0; k < columns; ++k) fputc(',', f);
}

static void csv_observation(FILE *f, const herd_sim *sim, bool due) {
  const herd_observation *o = herd_sim_observation(sim);
  uint32_t dims = dims_of(sim);
  if (!due) {
    csv_blank(f, 4 + 4 * dims);
    return;
  }
  fprintf(f, ",%u,%u", o->delivered, o->in_goal);
  for (uint32_t k = 0; k < dims; ++k) fprintf(f, ",%.9g", o->centroid[k]);
  csv_values(f, o->extent_min, dims);
  csv_values(f, o->extent_max, dims);
  fprintf(f, ",%u", o->farthest_id);
  csv_values(f, o->farthest_pos, dims);
  fprintf(f, ",%.9g", o->farthest_dist_m);
}

/* The observation's columns after the order parameters: the path's and the groups'. */
static void csv_observation_tail(FILE *f, const herd_sim *sim, bool due) {
  const herd_observation *o = herd_sim_observation(sim);
  if (has_path(sim) && due) fprintf(f, ",%.9g,%u", o->path_distance_m, o->path_end);
  if (has_groups(sim) && due) fprintf(f, ",%u,%u", o->group_count, o->groups_tracked);
  if (!due) csv_blank(f, (has_path(sim) ? 2u : 0u) + (has_groups(sim) ? 2u : 0u));
}

static void csv_steering(FILE *f, const herd_sim *sim, bool due) {
  const herd_observation *o = herd_sim_observation(sim);
  uint32_t dims = dims_of(sim);
  for (uint32_t d = 0; d < herd_sim_steering_count(sim); ++d) {
    const herd_steering_state *a = herd_sim_steering(sim, d);
    if (!due) {
      csv_blank(f, dims + 3);
      continue;
    }
    csv_values(f, a->pos, dims);
    fprintf(f, ",%s,%u,%.9g", herd_steering_mode_name(a->mode), o->nearest[d].id, o->nearest[d].dist_m);
  }
}

/* Writes the row of this step when any column group is due; true when it wrote one. */
static bool csv_row(FILE *f, const herd_sim *sim) {
  herd_scenario_info out = output_of(sim);
  uint32_t step = herd_sim_step_index(sim);
  bool observation = herd_output_due(out.observation_every, step), order = herd_output_due(out.order_every, step),
       steering = herd_output_due(out.steering_every, step);
  if (!observation && !order && !steering) return false;
  fprintf(f, "%u", step);
  if (out.observation_every) csv_observation(f, sim, observation);
  if (out.order_every && order)
    fprintf(f, ",%.6f,%.6f", herd_sim_observation(sim)->polarisation, herd_sim_observation(sim)->milling);
  else if (out.order_every)
    csv_blank(f, 2);
  if (out.observation_every) csv_observation_tail(f, sim, observation);
  if (out.steering_every) csv_steering(f, sim, steering);
  fputc('\n', f);
  return true;
}

/* ---- Progress and summary -------------------------------------------------------------- */

static void progress(const herd_sim *sim, uint32_t max_steps, double elapsed_s) {
  const herd_observation *o = herd_sim_observation(sim);
  uint32_t step = herd_sim_step_index(sim);
  fprintf(stderr, "\rstep %u/%u  %.0f steps/s", step, max_steps, elapsed_s > 0 ? step / elapsed_s : 0.0);
  if (herd_scenario_describe(herd_sim_scenario(sim)).goal_radius_m >= 0.0f)
    fprintf(stderr, "  delivered %u/%u", o->delivered, o->count);
  char groups[160], steering[512];
  steering_ui_groups(sim, true, groups, sizeof groups);
  steering_ui_progress(sim, steering, sizeof steering);
  fprintf(stderr, "  polarisation %.2f%s%s%s%s   ", o->polarisation, *groups ? "  " : "", groups, *steering ? "  " : "",
          steering);
  fflush(stderr);
}

static void profile_table(FILE *out, herd_sim *sim, uint32_t steps) {
  herd_profile p;
  herd_error err;
  if (herd_sim_profile(sim, &p, &err) != HERD_OK) return;
  double total = 0;
  for (int k = 0; k < HERD_STAGE_COUNT; ++k) total += p.seconds[k];
  fprintf(out, "\n%-10s %10s %12s %8s\n", "stage", "total ms", "ms per step", "share");
  for (int k = 0; k < HERD_STAGE_COUNT; ++k)
    fprintf(out, "%-10s %10.2f %12.4f %7.1f%%\n", herd_stage_name((herd_stage)k), 1e3 * p.seconds[k],
            steps ? 1e3 * p.seconds[k] / steps : 0.0, total > 0 ? 100.0 * p.seconds[k] / total : 0.0);
  fprintf(out, "%-10s %10.2f %12.4f\n", "all", 1e3 * total, steps ? 1e3 * total / steps : 0.0);
  /* What a GPU pays per step beyond the work itself: each launch and each wait costs
   * microseconds however small the flock (0 on the CPU backend, which launches nothing). */
  fprintf(out, "kernels per step %.2f, host waits per step %.2f\n", steps ? (double)p.kernels / steps : 0.0,
          steps ? (double)p.waits / steps : 0.0);
}

/* The first line of the scenario's description, at most 100 bytes (cut at a whole UTF-8
 * character, "..." after): "" without one. `herd scenario` prints the whole of it. */
static const char *description_line(const herd_scenario *scenario, char *out, size_t size) {
  const char *text = herd_scenario_description(scenario);
  size_t n = strcspn(text, "\n"), room = size > 4 ? size - 4 : 0, cut = n < 100 ? n : 100;
  cut = cut < room ? cut : room;
  while (cut < n && cut > 0 && ((unsigned char)text[cut] & 0xC0u) == 0x80u) --cut; /* not inside a character */
  snprintf(out, size, "%.*s%s", (int)cut, text, cut < n ? "..." : "");
  return out;
}

/* "schedule: M of N changes made (the last at step K: PATH = VALUE)" when there is one. */
static void schedule_line(FILE *out, const herd_sim *sim, const herd_scenario *scenario) {
  uint32_t count = herd_scenario_schedule_count(scenario), made = herd_sim_schedule_made(sim), step;
  const char *path;
  double value;
  if (!count) return;
  fprintf(out, "schedule: %u of %u change%s made", made, count, count == 1 ? "" : "s");
  if (made && herd_scenario_schedule_entry(scenario, made - 1, &step, &path, &value))
    fprintf(out, " (the last at step %u: %s = %.9g)", step, path, value);
  fputc('\n', out);
}

static void summary(FILE *out, const herd_sim *sim, const herd_scenario *scenario, const char *name, double wall_s) {
  const herd_observation *o = herd_sim_observation(sim);
  herd_scenario_info sc = herd_scenario_describe(scenario);
  uint32_t steps = herd_sim_step_index(sim), steering = herd_sim_steering_count(sim);
  char about[128];
  fprintf(out, "scenario: %s (%s, %u agents, %uD, %u steering agent%s, seed %llu)\n", cli_shown(name),
          herd_model_name(sc.model), sc.count, sc.dims, steering, steering == 1 ? "" : "s",
          (unsigned long long)sc.seed);
  if (*description_line(scenario, about, sizeof about)) fprintf(out, "about: %s\n", cli_shown(about));
  schedule_line(out, sim, scenario);
  fprintf(out, "backend: %s (%s)\n", herd_sim_backend(sim), herd_sim_device(sim));
  bool goal = sc.goal_radius_m >= 0.0f;
  switch (herd_sim_outcome(sim)) {
    case HERD_SUCCEEDED:
      if (sc.goal_pen >= 0)
        fprintf(out, "result: success: all %u agents delivered (each entered obstacles.pens[%d])\n", o->count,
                (int)sc.goal_pen);
      else
        fprintf(out, "result: success: all %u agents delivered (each came within %g m of the target)\n", o->count,
                sc.goal_radius_m);
      break;
    case HERD_STEP_LIMIT:
      if (goal)
        fprintf(out, "result: not herded: step limit reached with %u of %u agents delivered\n", o->delivered, o->count);
      else
        fprintf(out, "result: ran to the step limit (this scenario has no goal)\n");
      break;
    case HERD_RUNNING:
      if (goal)
        fprintf(out, "result: interrupted with %u of %u agents delivered\n", o->delivered, o->count);
      else
        fprintf(out, "result: interrupted\n");
      break;
  }
  fprintf(out, "steps: %u (limit %u)\n", steps, sc.max_steps);
  fprintf(out, "order: polarisation %.4f, milling %.4f\n", o->polarisation, o->milling);
  double view_radius_m = 0.0;
  if (sc.observes_groups && herd_scenario_get(scenario, "groups.view_radius_m", &view_radius_m, NULL) == HERD_OK)
    fprintf(out, "groups: %u at the end (view radius %g m); the largest %u agents, %u tracked\n", o->group_count,
            view_radius_m, o->groups_tracked ? o->group[0].count : 0u, o->groups_tracked);
  if (sc.path_points)
    fprintf(out, "path: mean distance %.2f m; %u of %u agents at its end (last 5 %%)\n", o->path_distance_m,
            o->path_end, o->count);
  if (sc.food) {
    uint32_t eaten = 0;
    for (uint32_t d = 0; d < herd_sim_steering_count(sim); ++d)
      eaten += herd_sim_steering(sim, d)->mode == HERD_MODE_EATEN;
    fprintf(out, "food: %u of %u particles eaten\n", eaten, sc.food);
  }
  fprintf(out, "wall time: %.3f s\n", wall_s);
  fprintf(out, "speed: %.0f steps/s, %.3g agent-steps/s\n", wall_s > 0 ? steps / wall_s : 0.0,
          wall_s > 0 ? (double)steps * o->count / wall_s : 0.0);
  double peak = summary_peak_memory_mib();
  fprintf(out, "memory: %.1f MiB peak (%.1f bytes per agent); agent and grid arrays %.1f bytes per agent\n", peak,
          peak * 1048576.0 / o->count, (double)herd_sim_memory_bytes(sim) / o->count);
}

/* ---- The loop ------------------------------------------------------------------------- */

/* The CSV reaches the disk at least this often, so a killed run leaves its rows behind. */
#define CSV_FLUSH_S 1.0

typedef struct csv_out {
  herd_outfile file; /* file.f NULL: no --csv */
  bool every_row;    /* a terminal or pipe reader wants each row as it comes */
  double flushed_s;
} csv_out;

/* The schedule's entries [from, to) as comment lines: what changed before the next row. */
static void csv_schedule(csv_out *csv, const herd_sim *sim, uint32_t from, uint32_t to) {
  uint32_t step;
  const char *path;
  double value;
  for (uint32_t k = from; csv->file.f && k < to; ++k)
    if (herd_scenario_schedule_entry(herd_sim_scenario(sim), k, &step, &path, &value))
      fprintf(csv->file.f, "# schedule[%u]: at step %u, %s = %.9g\n", k, step, path, value);
}

static void csv_step(csv_out *csv, const herd_sim *sim, double now) {
  if (!csv->file.f || !csv_row(csv->file.f, sim)) return;
  if (csv->every_row || now - csv->flushed_s >= CSV_FLUSH_S) {
    fflush(csv->file.f);
    csv->flushed_s = now;
  }
}

/* A rank other than 0 under --mpi --trajectories: its part in the gather of a frame that rank
 * 0 writes (trajectories.c writes the frames herd_output_due says, at the same steps). */
static herd_status follow_frame(herd_sim *sim, herd_error *err) {
  herd_scenario_info sc = herd_scenario_describe(herd_sim_scenario(sim));
  if (!herd_output_due(sc.trajectories_every, herd_sim_step_index(sim))) return HERD_OK;
  float *scratch = malloc((size_t)sc.count * sc.dims * sizeof(float));
  if (!scratch) return herd_fail(err, HERD_E_MEMORY, "out of memory gathering a trajectory frame");
  herd_status s = herd_sim_read_flock(sim, scratch, NULL, err);
  free(scratch);
  return s;
}

/* With --profile: the frames written and the time writing took (wall and CPU). */
static void trajectories_profile(FILE *out, const herd_trajectories *t, uint32_t steps) {
  uint64_t frames;
  uint32_t agents;
  double wall, cpu;
  herd_trajectories_cost(t, &frames, &agents, &wall, &cpu);
  fprintf(out,
          "trajectories: %llu frames of %u agents; writing took %.1f ms (%.2f ms per step, %.1f ms per frame), "
          "CPU %.1f ms\n",
          (unsigned long long)frames, agents, 1e3 * wall, steps ? 1e3 * wall / steps : 0.0,
          frames ? 1e3 * wall / (double)frames : 0.0, 1e3 * cpu);
}

/* Steps until the run ends or a signal stops it; 0, or the exit status of an error. */
static int simulate(herd_sim *sim, const herd_scenario *sc, run_opts *o, csv_out *csv, herd_trajectories *traj,
                    double *wall_s) {
  bool live = !cli_quiet && isatty(STDERR_FILENO);
  herd_error err;
  double start = herd_clock_s(), last_shown = start;
  csv_step(csv, sim, start);
  int status = traj && herd_trajectories_step(traj, sim, &err) != HERD_OK ? cli_error(&err) : 0;
  if (status == 0 && o->follow_frames && follow_frame(sim, &err) != HERD_OK) status = cli_error(&err);
  while (status == 0 && herd_sim_outcome(sim) == HERD_RUNNING && !cli_stop) {
    uint32_t made = herd_sim_schedule_made(sim);
    herd_status stepped = herd_sim_step(sim, &err);
    csv_schedule(csv, sim, made, herd_sim_schedule_made(sim));
    if (stepped != HERD_OK) {
      /* Interrupted mid-step: the run stands as after the last whole step. */
      if (err.status != HERD_E_INTERRUPTED) status = cli_error(&err);
      break;
    }
    double t = herd_clock_s();
    csv_step(csv, sim, t);
    if ((status = checkpoint_after_step(&o->ckpt, sim)) != 0) break;
    if (traj && herd_trajectories_step(traj, sim, &err) != HERD_OK) status = cli_error(&err);
    if (o->follow_frames && follow_frame(sim, &err) != HERD_OK) status = cli_error(&err);
    if (live && t - last_shown > 0.25) {
      progress(sim, herd_scenario_describe(sc).max_steps, t - start);
      last_shown = t;
    }
  }
  *wall_s = herd_clock_s() - start;
  if (live) fputs("\r\033[K", stderr);
  return status ? status : checkpoint_at_end(&o->ckpt, sim, herd_sim_outcome(sim) == HERD_RUNNING);
}

/* Everything that can be checked is checked before the simulation is made (which may take
 * seconds: an OpenCL build) and before any file is opened. */
/* The run's files together: its inputs, and outputs that are not one another. */
static int claim_files(const run_opts *o) {
  cli_claims c = {.force = o->force};
  /* A run resumed from FILE may go on writing FILE: it is the same run's. */
  bool own = o->ckpt.resume && o->ckpt.path && cli_same_file(o->ckpt.resume, o->ckpt.path);
  if (cli_claim_input(&c, "the scenario", o->scenario.path) ||
      cli_claim_input(&c, "the checkpoint", own ? NULL : o->ckpt.resume) || cli_claim_output(&c, "--csv", o->csv) ||
      cli_claim_output(&c, "--summary", o->summary.path) || cli_claim_output(&c, "--trajectories", o->trajectories) ||
      cli_claim_output(&c, "--checkpoint", o->ckpt.path))
    return EXIT_BAD_INPUT;
  return 0;
}

static int prepare(run_opts *o, herd_scenario **scp, herd_sim **sim, csv_out *csv, herd_trajectories **traj) {
  herd_error err;
  o->ckpt.force = o->force;
  int status = claim_files(o);
  if (status == 0) status = checkpoint_check(&o->ckpt, &o->scenario);
  if (status != 0) return status;
  if (o->ckpt.resume && (status = checkpoint_scenario_of(&o->ckpt, &o->scenario, scp)) != 0) return status;
  if (!o->ckpt.resume &&
      herd_scenario_load(o->scenario.path, o->scenario.sets, o->scenario.set_count, scp, &err) != HERD_OK)
    return cli_error(&err);
  herd_scenario *sc = *scp;
  herd_scenario_info info = herd_scenario_describe(sc);
  if (o->csv && !info.observation_every && !info.order_every && !info.steering_every)
    return cli_fail(EXIT_BAD_INPUT,
                    "--csv %s: output.observation, output.order and output.steering.every_steps are all 0: nothing to "
                    "write (allowed: at least one above 0)",
                    cli_shown(o->csv));
  if (o->csv && herd_outfile_check("--csv", o->csv, o->force, &err) != HERD_OK) return cli_error(&err);
  if (o->summary.json && o->csv && strcmp(o->csv, "-") == 0)
    return cli_fail(EXIT_BAD_INPUT, "--json: standard output already carries --csv -; use --summary FILE");
  if (summary_check(&o->summary, o->force)) return EXIT_BAD_INPUT;
  if (o->trajectories && herd_trajectories_check("--trajectories", o->trajectories, o->force, &err) != HERD_OK)
    return cli_error(&err);
  herd_sim_desc desc = {.scenario = sc,
                        .threads = o->backend.threads,
                        .backend = o->backend.backend,
                        .device = o->backend.device,
                        .profile = o->profile,
                        .stop = &cli_stop,
                        .lockstep = o->lockstep,
                        .mpi = o->mpi};
  if (o->ckpt.resume) {
    if ((status = checkpoint_resume(&o->ckpt, sc, &desc, sim)) != 0) return status;
  } else if (herd_sim_create(&desc, sim, &err) != HERD_OK) {
    return cli_error(&err);
  }
  cli_begin_output();
  if (cli_stop) return 128 + cli_stop;
  if (*herd_sim_backend_note(*sim)) cli_note("%s", herd_sim_backend_note(*sim));
  if (o->trajectories) {
    char *command = herd_command_line(o->argc, o->argv);
    herd_status opened = herd_trajectories_open(*sim, "--trajectories", o->trajectories, o->force, command, traj, &err);
    free(command);
    if (opened != HERD_OK) return cli_error(&err);
  }
  if (!o->csv) return 0;
  if (herd_outfile_open(&csv->file, "--csv", o->csv, o->force, &err) != HERD_OK) return cli_error(&err);
  csv->every_row = isatty(fileno(csv->file.f)) || strcmp(o->csv, "-") == 0;
  if (!herd_provenance_csv(csv->file.f, sc, *sim, o->argc, o->argv)) return cli_fail(1, "out of memory");
  csv_header(csv->file.f, *sim);
  return 0;
}

/* Under --mpi every rank runs the same steps; only rank 0 writes and speaks. The others join
 * each trajectory frame's gather of the flock (follow_frame). */
static void keep_to_rank_0(run_opts *o, const cli_mpi *m) {
  if (!m->on || m->rank == 0) return;
  o->follow_frames = o->trajectories != NULL;
  o->trajectories = NULL;
  o->csv = NULL;
  o->summary = (summary_args){0};
  o->profile = false;
  cli_quiet = true;
}

int cmd_run(int argc, char **argv) {
  run_opts o = {.argc = argc, .argv = argv};
  herd_scenario *sc = NULL;
  herd_sim *sim = NULL;
  csv_out csv = {0};
  herd_trajectories *traj = NULL;
  cli_mpi m = CLI_MPI_OFF;
  cli_catch_signals();
  int status = cli_mpi_wanted(argc, argv) ? cli_mpi_start(&m) : 0;
  if (status != 0) return status;
  status = parse_run(argc, argv, &o);
  if (m.on) status = cli_mpi_agree(&m, status, false);
  o.observed = o.csv || o.trajectories ? HERD_OBSERVE_FAR | HERD_OBSERVE_POLARISATION /* not the sectors */
               : cli_quiet             ? 0u
                                       : HERD_OBSERVE_POLARISATION;
  keep_to_rank_0(&o, &m);
  if (status == -1) status = prepare(&o, &sc, &sim, &csv, &traj);
  if (m.on) { /* a rank that could not start stops them all */
    int agreed = cli_mpi_agree(&m, status == 0 ? -1 : status, true);
    status = agreed == -1 ? 0 : agreed;
  }
  herd_mpi_stats mpi_stats;
  bool mpi = false;
  if (status == 0 && sim) {
    double wall_s = 0;
    herd_error err;
    herd_sim_set_observed(sim, o.observed);
    status = simulate(sim, sc, &o, &csv, traj, &wall_s);
    if (status == 0 && herd_sim_observe_now(sim, &err) != HERD_OK) status = cli_error(&err); /* for the summary */
    mpi = herd_sim_mpi_stats(sim, &mpi_stats); /* every rank: it sums over them */
    /* With the CSV on standard output the summary goes to standard error. */
    FILE *out = summary_text_stream(&o.summary, o.csv && strcmp(o.csv, "-") == 0 ? stderr : stdout);
    if (status == 0 && !cli_quiet)
      summary(out, sim, sc, o.ckpt.resume ? o.ckpt.resume : o.scenario.path ? o.scenario.path : "<default>", wall_s);
    if (status == 0 && !cli_quiet && mpi) summary_mpi_text(out, &mpi_stats);
    if (status == 0 && o.profile) profile_table(out, sim, herd_sim_step_index(sim));
    if (status == 0 && o.profile && traj) trajectories_profile(out, traj, herd_sim_step_index(sim));
    /* The rows so far are kept after an interruption too: they are a valid record. */
    if (csv.file.f && status == 0 && herd_outfile_commit(&csv.file, &err) != HERD_OK) status = cli_error(&err);
    /* Like the CSV, the frames so far are kept after an interruption. */
    if (traj && status == 0) {
      if (herd_trajectories_close(traj, true, &err) != HERD_OK) status = cli_error(&err);
      traj = NULL;
    }
    if (status == 0 && (o.summary.path || o.summary.json))
      status = summary_emit(&o.summary, o.force,
                            summary_with_mpi(summary_run_json(sim, sc, wall_s, argc, argv), mpi ? &mpi_stats : NULL));
    if (status == 0 && cli_stop) status = 128 + cli_stop;
  }
  if (csv.file.f) herd_outfile_abandon(&csv.file);
  herd_trajectories_close(traj, false, NULL);
  herd_sim_destroy(sim);
  herd_scenario_free(sc);
  scenario_args_free(&o.scenario);
  return cli_mpi_end(&m, status == -1 ? 0 : status);
}

static int take_scenario(void *ctx, int code, const char *typed, const char *value) {
  return scenario_args_option(ctx, code, typed, value);
}

int cmd_scenario(int argc, char **argv) {
  static const struct option *const tables[] = {cli_scenario_options, NULL};
  scenario_args a = {0};
  cli_command c = {.name = "scenario", .usage = scenario_usage, .tables = tables, .take = take_scenario, .ctx = &a};
  int status = cli_parse(&c, argc, argv);
  herd_scenario *sc = NULL;
  herd_error err;
  if (status == -1 && herd_scenario_load(a.path, a.sets, a.set_count, &sc, &err) != HERD_OK) status = cli_error(&err);
  if (status == -1) {
    char *json = herd_scenario_to_json(sc);
    status = json ? 0 : cli_fail(1, "out of memory");
    if (json) puts(json);
    free(json);
  }
  herd_scenario_free(sc);
  scenario_args_free(&a);
  return status;
}
