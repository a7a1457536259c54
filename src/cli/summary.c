#define _POSIX_C_SOURCE 200809L
#include "summary.h"

#include <math.h>
#include <string.h>
#include <sys/resource.h>

#include "../record/provenance.h"
#include "../util/outfile.h"
#include "cli.h"
#include "options.h"

const struct option cli_summary_options[] = {
    {"summary", required_argument, NULL, OPT_SUMMARY},
    {"json", no_argument, NULL, OPT_JSON},
    {0, 0, 0, 0},
};

int summary_args_option(summary_args *a, int code, const char *value) {
  if (code == OPT_JSON)
    a->json = true;
  else if (code == OPT_SUMMARY)
    a->path = value;
  else
    return CLI_NOT_MINE;
  return CLI_GO_ON;
}

int summary_check(const summary_args *a, bool force) {
  herd_error err;
  if (a->path && herd_outfile_check("--summary", a->path, force, &err) != HERD_OK) return cli_error(&err);
  return 0;
}

FILE *summary_text_stream(const summary_args *a, FILE *usual) { return a->json ? stderr : usual; }

int summary_emit(const summary_args *a, bool force, json_t *doc) {
  if (!doc) return cli_fail(1, "out of memory making the summary");
  /* Two-space indent, one value a line; 10 significant digits hold a float exactly enough. */
  const size_t flags = JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10);
  int status = 0;
  herd_error err;
  if (a->path) {
    herd_outfile f;
    if (herd_outfile_open(&f, "--summary", a->path, force, &err) != HERD_OK) {
      status = cli_error(&err);
    } else if (json_dumpf(doc, f.f, flags) != 0 || fputc('\n', f.f) == EOF) {
      herd_outfile_abandon(&f);
      status = cli_fail(1, "--summary %s: write failed", cli_shown(a->path));
    } else if (herd_outfile_commit(&f, &err) != HERD_OK) {
      status = cli_error(&err);
    }
  }
  if (a->json && status == 0) {
    json_dumpf(doc, stdout, flags);
    fputc('\n', stdout);
    if (fflush(stdout) != 0) status = cli_fail(1, "--json: writing standard output failed");
  }
  json_decref(doc);
  return status;
}

double summary_peak_memory_mib(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_maxrss / 1024.0; /* KiB on Linux */
}

json_t *summary_number(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* The first `dims` components of v, as a JSON array. */
static json_t *vector_f(const float *v, uint32_t dims) {
  json_t *a = json_array();
  for (uint32_t k = 0; k < dims; ++k) json_array_append_new(a, summary_number(v[k]));
  return a;
}

static json_t *vector_d(const double *v, uint32_t dims) {
  json_t *a = json_array();
  for (uint32_t k = 0; k < dims; ++k) json_array_append_new(a, summary_number(v[k]));
  return a;
}

/* "success", "not_herded" (the step limit with a goal), "no_goal" (ran to the limit: there
 * is nothing to herd to) or "interrupted". */
static const char *outcome_name(const herd_sim *sim, const herd_scenario *sc) {
  switch (herd_sim_outcome(sim)) {
    case HERD_SUCCEEDED: return "success";
    case HERD_STEP_LIMIT: return herd_scenario_describe(sc).goal_radius_m >= 0.0f ? "not_herded" : "no_goal";
    default: return "interrupted";
  }
}

/* Why the run stopped: "finished" (its goal reached), "step_limit" or "interrupted". */
static const char *exit_reason(const herd_sim *sim) {
  herd_outcome o = herd_sim_outcome(sim);
  return o == HERD_SUCCEEDED ? "finished" : o == HERD_STEP_LIMIT ? "step_limit" : "interrupted";
}

/* Groups as the observation has them, or null when the scenario does not observe them. */
static json_t *groups_json(const herd_observation *o, const herd_scenario *sc) {
  double view_radius_m;
  if (!herd_scenario_describe(sc).observes_groups ||
      herd_scenario_get(sc, "groups.view_radius_m", &view_radius_m, NULL) != HERD_OK)
    return json_null();
  json_t *sizes = json_array();
  for (uint32_t g = 0; g < o->groups_tracked; ++g) json_array_append_new(sizes, json_integer(o->group[g].count));
  return json_pack("{s:I, s:I, s:o, s:o}", "count", (json_int_t)o->group_count, "tracked",
                   (json_int_t)o->groups_tracked, "view_radius_m", summary_number(view_radius_m), "largest", sizes);
}

static json_t *path_json(const herd_observation *o, const herd_scenario *sc) {
  if (!herd_scenario_describe(sc).path_points) return json_null();
  return json_pack("{s:o, s:I}", "mean_distance_m", summary_number(o->path_distance_m), "at_end",
                   (json_int_t)o->path_end);
}

static json_t *observation_json(const herd_sim *sim, const herd_scenario *sc) {
  const herd_observation *o = herd_sim_observation(sim);
  uint32_t dims = herd_scenario_describe(sc).dims;
  return json_pack("{s:I, s:I, s:I, s:o, s:o, s:o, s:{s:I, s:o, s:o}, s:o, s:o, s:o, s:o}", "agents",
                   (json_int_t)o->count, "delivered", (json_int_t)o->delivered, "in_goal", (json_int_t)o->in_goal,
                   "centroid_m", vector_d(o->centroid, dims), "extent_min_m", vector_f(o->extent_min, dims),
                   "extent_max_m", vector_f(o->extent_max, dims), "farthest", "id", (json_int_t)o->farthest_id,
                   "position_m", vector_f(o->farthest_pos, dims), "distance_m", summary_number(o->farthest_dist_m),
                   "polarisation", summary_number(o->polarisation), "milling", summary_number(o->milling), "groups",
                   groups_json(o, sc), "path", path_json(o, sc));
}

static json_t *steering_json(const herd_sim *sim, uint32_t dims) {
  const herd_observation *o = herd_sim_observation(sim);
  json_t *list = json_array();
  for (uint32_t d = 0; d < herd_sim_steering_count(sim); ++d) {
    const herd_steering_state *a = herd_sim_steering(sim, d);
    json_array_append_new(
        list, json_pack("{s:I, s:s, s:s, s:o, s:o, s:o, s:{s:I, s:o}}", "index", (json_int_t)d, "strategy",
                        herd_strategy_name(a->strategy), "mode", herd_steering_mode_name(a->mode), "position_m",
                        vector_f(a->pos, dims), "heading", vector_f(a->heading, dims), "speed_m_per_step",
                        summary_number(a->speed_m_per_step), "nearest", "id", (json_int_t)o->nearest[d].id,
                        "distance_m", summary_number(o->nearest[d].dist_m)));
  }
  return list;
}

static json_t *memory_json(const herd_sim *sim, uint32_t count) {
  double peak = summary_peak_memory_mib(), agents = count ? (double)count : NAN;
  return json_pack("{s:o, s:o, s:o}", "peak_rss_mib", summary_number(peak), "peak_rss_bytes_per_agent",
                   summary_number(peak * 1048576.0 / agents), "agent_grid_bytes_per_agent",
                   summary_number((double)herd_sim_memory_bytes(sim) / agents));
}

json_t *summary_run_json(const herd_sim *sim, const herd_scenario *sc, double wall_s, int argc, char **argv) {
  uint32_t steps = herd_sim_step_index(sim), count = herd_sim_observation(sim)->count;
  herd_scenario_info info = herd_scenario_describe(sc);
  double rate = wall_s > 0 ? steps / wall_s : NAN;
  json_t *doc = json_pack("{s:s, s:s, s:s, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "schema", SUMMARY_RUN_SCHEMA,
                          "outcome", outcome_name(sim, sc), "exit_reason", exit_reason(sim), "steps", (json_int_t)steps,
                          "step_limit", (json_int_t)info.max_steps, "wall_time_s", summary_number(wall_s),
                          "steps_per_s", summary_number(rate), "agent_steps_per_s", summary_number(rate * count),
                          "memory", memory_json(sim, count), "observation", observation_json(sim, sc), "steering",
                          steering_json(sim, info.dims), "provenance", herd_provenance(sc, sim, argc, argv));
  uint32_t entries = herd_scenario_schedule_count(sc);
  if (doc && entries)
    json_object_set_new(
        doc, "schedule",
        json_pack("{s:I, s:I}", "entries", (json_int_t)entries, "made", (json_int_t)herd_sim_schedule_made(sim)));
  return doc;
}

json_t *summary_with_mpi(json_t *doc, const herd_mpi_stats *m) {
  if (!doc || !m) return doc;
  double steps = m->steps ? (double)m->steps : 1.0;
  json_t *seconds = json_pack("{s:o, s:o, s:o}", "step", summary_number(m->step_s), "exchange",
                              summary_number(m->exchange_s), "reduce", summary_number(m->reduce_s));
  json_t *mpi = json_pack(
      "{s:I, s:s, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:I, s:o}", "ranks", (json_int_t)m->ranks,
      "layout", m->layout, "px", (json_int_t)m->px, "py", (json_int_t)m->py, "steps", (json_int_t)m->steps,
      "halo_width_m", summary_number(m->halo_width_m), "halo_agents_per_step",
      summary_number((double)m->halo_agents / steps), "halo_bytes_per_step",
      summary_number((double)m->halo_bytes / steps), "messages_per_step", summary_number((double)m->messages / steps),
      "migrated_per_step", summary_number((double)m->migrated / steps), "halo_bytes_per_agent",
      summary_number(m->halo_agents ? (double)m->halo_bytes / (double)m->halo_agents : NAN), "rebalances",
      (json_int_t)m->rebalances, "halo_grows", (json_int_t)m->halo_grows, "most_agents", (json_int_t)m->most_agents,
      "fewest_agents", (json_int_t)m->fewest_agents, "seconds", seconds);
  if (!mpi || json_object_set_new(doc, "mpi", mpi) != 0) {
    json_decref(doc);
    return NULL;
  }
  return doc;
}

void summary_mpi_text(FILE *out, const herd_mpi_stats *m) {
  double steps = m->steps ? (double)m->steps : 1.0;
  fprintf(out,
          "mpi: %u ranks (%s %ux%u); per step %.0f halo agents (%.1f KiB) in %.1f messages, %.1f migrated; halo "
          "%.3g m wide (widened %u times), %u rebalancings; %u to %u agents a rank; rank 0: step %.3f s, exchange "
          "%.3f s, reduce %.3f s\n",
          m->ranks, m->layout, m->px, m->py, (double)m->halo_agents / steps, (double)m->halo_bytes / steps / 1024.0,
          (double)m->messages / steps, (double)m->migrated / steps, (double)m->halo_width_m, m->halo_grows,
          m->rebalances, m->fewest_agents, m->most_agents, m->step_s, m->exchange_s, m->reduce_s);
}
