/* `herd experiment couzin-states`: Couzin et al. (2002)'s collective states over the widths of
 * the zones of orientation and attraction from random starts, the hysteresis between torus and
 * parallel group as Δr_o is raised and lowered through a schedule, and one diagram per reading
 * the paper leaves open (docs/models/couzin.md, docs/experiments.md). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sweep/stats.h"
#include "cli.h"
#include "experiment.h"

/* Random starts: the state forms in the first half of the run and is measured (runs.csv's
 * polarisation_late, milling_late) over the second. */
#define STATE_STEPS 2000u
/* The ramp holds each Δr_o this many steps: it settles in the first half and is measured over
 * the second (the last change before the run's end starts its late window). */
#define RAMP_HOLD 1000u
#define MAX_VALUES 24

/* ---- The states -------------------------------------------------------------------------- */

typedef enum { SWARM, TORUS, DYNAMIC, PARALLEL, OTHER, STATE_COUNT } couzin_state;

static const char *const state_names[STATE_COUNT] = {"swarm", "torus", "dynamic parallel group",
                                                     "highly parallel group", "none of the four"};
static const char *const state_colours[STATE_COUNT] = {"#e08214", "#7b3294", "#4dac26", "#0571b0", "#bababa"};

/* The state of a run from its late means (thresholds ours: the paper's figure is not at hand). */
static couzin_state state_of(double p, double m) {
  if (isnan(p) || isnan(m)) return OTHER;
  if (m > 0.6) return TORUS;
  if (m >= 0.3) return OTHER;
  if (p < 0.3) return SWARM;
  if (p >= 0.97) return PARALLEL;
  return p > 0.7 ? DYNAMIC : OTHER;
}

/* A parallel group, dynamic or highly (the hysteresis's other state): p > 0.9 and m < 0.3. */
static bool is_parallel_group(double p, double m) { return p > 0.9 && m < 0.3; }

/* The regions along Δr_o that a reimplementation gives at Δr_a = 15 ([jiwy2020] in
 * docs/models/couzin.md): swarm 0-0.5, torus 0.5-2.5, dynamic parallel 2.5-6, highly parallel
 * 6.5-15. A value on a shared edge belongs to the lower region. */
typedef struct region {
  couzin_state state;
  double from, to;
} region;
static const region regions[] = {{SWARM, 0, 0.5}, {TORUS, 0.5, 2.5}, {DYNAMIC, 2.5, 6}, {PARALLEL, 6.5, 15}};
#define REGION_COUNT (sizeof regions / sizeof regions[0])
#define REGION_DELTA_A 15.0

static bool in_region(const region *r, double delta_o) {
  return r == &regions[0] ? delta_o >= r->from && delta_o <= r->to : delta_o > r->from && delta_o <= r->to;
}

/* What a set of runs shows: how many, and how many in each state. */
typedef struct state_count {
  unsigned runs, in[STATE_COUNT], parallel_group;
  double polarisation, milling; /* means */
} state_count;

static void count_run(state_count *c, const sweep_run_row *r) {
  ++c->runs, ++c->in[state_of(r->late_polarisation, r->late_milling)];
  c->parallel_group += is_parallel_group(r->late_polarisation, r->late_milling);
  c->polarisation += isnan(r->late_polarisation) ? 0 : r->late_polarisation;
  c->milling += isnan(r->late_milling) ? 0 : r->late_milling;
}

static void count_done(state_count *c) {
  if (c->runs) c->polarisation /= c->runs, c->milling /= c->runs;
}

static state_count count_cell(const experiment_sweep *e, size_t cell) {
  state_count c = {0};
  for (size_t k = 0; k < e->row_count; ++k)
    if (e->rows[k].cell == cell) count_run(&c, &e->rows[k]);
  count_done(&c);
  return c;
}

/* The runs of the cells whose first varied field (Δr_o) lies in region r and whose second, if
 * any, is Δr_a = 15. */
static state_count count_region(const experiment_sweep *e, const region *r) {
  state_count c = {0};
  for (size_t k = 0; k < e->row_count; ++k) {
    size_t cell = e->rows[k].cell;
    if (!in_region(r, cell_value(&e->sw, cell, 0))) continue;
    if (e->sw.vary_count > 1 && cell_value(&e->sw, cell, 1) != REGION_DELTA_A) continue;
    count_run(&c, &e->rows[k]);
  }
  count_done(&c);
  return c;
}

static couzin_state most_common(const state_count *c) {
  couzin_state best = OTHER;
  for (int s = 0; s < STATE_COUNT; ++s)
    if (c->in[s] > c->in[best]) best = (couzin_state)s;
  return best;
}

/* "torus 9/10" */
static void state_text(const state_count *c, char *out, size_t size) {
  couzin_state s = most_common(c);
  snprintf(out, size, "%s %u/%u", state_names[s], c->in[s], c->runs);
}

/* ---- The sweeps ----------------------------------------------------------------------------- */

/* The base scenario: N = 100 in a 20 m open cube, the defaults otherwise (docs/models/couzin.md);
 * `fields` go into the object "couzin", `extra` into the top level (each from ", "). */
static char *base_scenario(unsigned max_steps, const char *fields, const char *extra) {
  size_t size = 256 + strlen(fields) + strlen(extra);
  char *json = malloc(size);
  if (json)
    snprintf(json, size,
             "{\"model\": \"couzin\", \"max_steps\": %u, \"world\": {\"size_m\": [20, 20, 20], \"wrap\": [false, "
             "false, false]}, \"couzin\": {\"count\": 100%s}%s}",
             max_steps, fields, extra);
  return json;
}

static const char *orientation_list(bool quick) {
  return quick ? "0,2.5,10" : "0,0.25,0.5,1,1.5,2,2.5,3,3.5,4,5,6,8,10,15";
}

static int states_run(const experiment_opts *o, experiment_sweep *e) {
  herd_sweep_init(&e->sw);
  herd_error err;
  e->sw.scenario_json = base_scenario(STATE_STEPS, "", "");
  if (!e->sw.scenario_json) return cli_fail(1, "out of memory");
  if (herd_sweep_add_vary(&e->sw, "couzin.orientation_band_m", orientation_list(o->quick), "couzin-states", &err) !=
          HERD_OK ||
      herd_sweep_add_vary(&e->sw, "couzin.attraction_band_m", o->quick ? "15" : "1,2,4,8,15", "couzin-states", &err) !=
          HERD_OK)
    return cli_error(&err);
  return run_part(e, o, "states");
}

/* The ramp's values of Δr_o, rising. */
static size_t ramp_values(bool quick, double *values) {
  size_t n = 0;
  for (double v = quick ? 2 : 0; v <= (quick ? 4 : 6) + 1e-9; v += quick ? 1 : 0.5) values[n++] = v;
  return n;
}

/* The ramp up (or down) to its k-th value: Δr_o starts at the ramp's first value and changes at
 * the end of every hold (the scenario's schedule) until the k-th, whose hold ends the run. A
 * sweep of its own in OUT/hysteresis/up/VALUE (a schedule must end before max_steps). */
static int ramp_run(const experiment_opts *o, bool up, size_t last, experiment_sweep *e) {
  double values[MAX_VALUES];
  size_t n = ramp_values(o->quick, values);
  char schedule[4096], start[64], folder[128];
  size_t used = (size_t)snprintf(schedule, sizeof schedule, ", \"schedule\": [");
  for (size_t k = 1; k <= last; ++k)
    used += (size_t)snprintf(schedule + used, sizeof schedule - used,
                             "%s{\"step\": %u, \"path\": \"couzin.orientation_band_m\", \"value\": %g}",
                             k > 1 ? ", " : "", (unsigned)k * RAMP_HOLD, values[up ? k : n - 1 - k]);
  snprintf(schedule + used, sizeof schedule - used, "]");
  snprintf(start, sizeof start, ", \"orientation_band_m\": %g", values[up ? 0 : n - 1]);
  herd_sweep_init(&e->sw);
  e->sw.scenario_json = base_scenario((unsigned)(last + 1) * RAMP_HOLD, start, last ? schedule : "");
  if (!e->sw.scenario_json) return cli_fail(1, "out of memory");
  snprintf(folder, sizeof folder, "hysteresis/%s/%g", up ? "up" : "down", values[up ? last : n - 1 - last]);
  return run_part(e, o, folder);
}

/* Both ramps, value by value: up[k] and down[k] end at the same Δr_o, values[k]. */
typedef struct ramps {
  experiment_sweep up[MAX_VALUES], down[MAX_VALUES];
  double values[MAX_VALUES];
  size_t n;
} ramps;

static int ramps_run(const experiment_opts *o, ramps *r) {
  size_t n = r->n = ramp_values(o->quick, r->values);
  char path[1100];
  int status = 0;
  for (int way = 0; way < 3 && status == 0; ++way) {
    snprintf(path, sizeof path, "%s/hysteresis%s", o->out, way == 0 ? "" : way == 1 ? "/up" : "/down");
    status = ensure_folder(path);
  }
  for (size_t k = 0; k < n && status == 0; ++k) {
    status = ramp_run(o, true, k, &r->up[k]);
    if (status == 0) status = ramp_run(o, false, n - 1 - k, &r->down[k]);
  }
  return status;
}

/* The readings the paper leaves open and what else might end the swarm early, each one field
 * changed from the default (docs/models/couzin.md#the-four-collective-states). */
static const experiment_variant variants[] = {
    {"unit-vectors", "`couzin.combine` = `unit_vectors` (d_o and d_a made unit vectors first)",
     "couzin.combine=unit_vectors"},
    {"no-noise", "no noise (σ = 0, as [jiwy2020])", "couzin.noise_rad=0"},
    {"noise-0.2", "σ = 0.2 rad (four times the default)", "couzin.noise_rad=0.2"},
    {"no-blind-cone", "no blind cone (α = 360°)", "couzin.field_of_perception_deg=360"},
    {"settle-6000", "three times as long to settle (6000 steps)", "max_steps=6000"},
    {"dense-start", "a dense start (a 5 m cube)", "couzin.spawn.to=[0.25,0.25,0.25]"},
    {"sparse-start", "a sparse start (a 50 m cube)", "couzin.spawn.to=[2.5,2.5,2.5]"},
};
#define VARIANT_COUNT (sizeof variants / sizeof variants[0])
#define QUICK_VARIANTS 2

static size_t variant_count(bool quick) { return quick ? QUICK_VARIANTS : VARIANT_COUNT; }

static int variants_run(const experiment_opts *o, experiment_sweep *parts) {
  char path[1100], folder[128];
  snprintf(path, sizeof path, "%s/variants", o->out);
  int status = ensure_folder(path);
  for (size_t v = 0; v < variant_count(o->quick) && status == 0; ++v) {
    herd_sweep_init(&parts[v].sw);
    herd_error err;
    parts[v].sw.scenario_json = base_scenario(STATE_STEPS, "", "");
    if (!parts[v].sw.scenario_json) return cli_fail(1, "out of memory");
    if (herd_sweep_add_vary(&parts[v].sw, "couzin.orientation_band_m", orientation_list(o->quick), "couzin-states",
                            &err) != HERD_OK ||
        herd_sweep_add_set(&parts[v].sw, variants[v].set, &err) != HERD_OK)
      return cli_error(&err);
    snprintf(folder, sizeof folder, "variants/%s", variants[v].folder);
    status = run_part(&parts[v], o, folder);
  }
  return status;
}

/* ---- The plots ---------------------------------------------------------------------------- */

/* The regions along Δr_o as shaded bands with their names, on an axis of Δr_o up to x_max. */
static void plot_regions(FILE *gp, double x_max) {
  static const char *const shade[] = {"#fdebd0", "#ebdef0", "#d5f5e3", "#d6eaf8"};
  for (size_t k = 0; k < REGION_COUNT && regions[k].from < x_max; ++k) {
    double to = regions[k].to < x_max ? regions[k].to : x_max;
    fprintf(gp,
            "set object %zu rect from %g, graph 0 to %g, graph 1 fc rgb '%s' fs solid 0.6 noborder behind\n"
            "set label %zu '%s' at %g, graph 0.94 center font ',9'\n",
            k + 1, regions[k].from, to, shade[k], k + 1, state_names[regions[k].state], 0.5 * (regions[k].from + to));
  }
}

/* The map over (Δr_o, Δr_a): each cell's most common state. */
static void plot_states(FILE *gp, const experiment_sweep *e) {
  fputs(
      "set output 'states.png'\nset title 'most common state over 100 fish from random starts'\n"
      "set xlabel 'Δr_o, width of the zone of orientation (m)'\nset ylabel 'Δr_a, width of the zone of attraction "
      "(m)'\nset key outside right\nset xrange [-0.5:15.5]\nset yrange [0:17.5]\n",
      gp);
  for (size_t k = 0; k < REGION_COUNT; ++k)
    fprintf(gp, "set arrow %zu from %g, 15.6 to %g, 15.6 heads size 0.15,90 lw 2 lc rgb '%s'\n", k + 1, regions[k].from,
            regions[k].to, state_colours[regions[k].state]);
  fputs("set label 20 'regions at Δr_a = 15 [jiwy2020]' at 7.5, 16.8 center font ',9'\nplot ", gp);
  for (int s = 0; s < STATE_COUNT; ++s)
    fprintf(gp, "NaN with points pt 5 ps 2 lc rgb '%s' title '%s', ", state_colours[s], state_names[s]);
  fputs("'-' using 1:2:3 with points pt 5 ps 2.2 lc rgb variable notitle\n", gp);
  for (size_t c = 0; c < e->sw.cell_count; ++c) {
    state_count n = count_cell(e, c);
    fprintf(gp, "%g %g %ld\n", cell_value(&e->sw, c, 0), cell_value(&e->sw, c, 1),
            strtol(state_colours[most_common(&n)] + 1, NULL, 16));
  }
  fputs("e\nunset arrow\nunset label\n", gp);
}

/* p and m over Δr_o: one line of a plot. */
typedef struct series {
  const char *title;
  bool dashed;
  size_t n;
  double x[MAX_VALUES];
  state_count at[MAX_VALUES];
} series;

/* A sweep over Δr_o (its cells at Δr_a = 15 when it varies Δr_a too) as a line. */
static series sweep_series(const experiment_sweep *e, const char *title) {
  series l = {.title = title};
  for (size_t c = 0; c < e->sw.cell_count && l.n < MAX_VALUES; ++c) {
    if (e->sw.vary_count > 1 && cell_value(&e->sw, c, 1) != REGION_DELTA_A) continue;
    l.x[l.n] = cell_value(&e->sw, c, 0), l.at[l.n++] = count_cell(e, c);
  }
  return l;
}

static series ramp_series(const ramps *r, bool up) {
  series l = {.title = up ? "raised" : "lowered", .dashed = !up, .n = r->n};
  for (size_t k = 0; k < r->n; ++k) l.x[k] = r->values[k], l.at[k] = count_cell(up ? &r->up[k] : &r->down[k], 0);
  return l;
}

static void plot_over_orientation(FILE *gp, const char *png, const char *title, const series *lines, size_t count) {
  double x_max = 0;
  for (size_t l = 0; l < count; ++l)
    for (size_t k = 0; k < lines[l].n; ++k) x_max = lines[l].x[k] > x_max ? lines[l].x[k] : x_max;
  fprintf(gp,
          "set output '%s'\nunset title\nset multiplot layout 2,1 title '%s'\nset key outside right top\n"
          "set xrange [0:%g]\nset yrange [0:1.1]\nset xlabel 'Δr_o (m)'\n",
          png, title, x_max);
  for (int panel = 0; panel < 2; ++panel) {
    plot_regions(gp, x_max);
    fprintf(gp, "set ylabel '%s'\nplot ", panel ? "milling m" : "polarisation p");
    for (size_t l = 0; l < count; ++l)
      fprintf(gp, "%s'-' using 1:2 with linespoints lw 2 pt %zu dt %d title '%s'", l ? ", " : "", 4 + l,
              lines[l].dashed ? 2 : 1, lines[l].title);
    fputc('\n', gp);
    for (size_t l = 0; l < count; ++l) {
      for (size_t k = 0; k < lines[l].n; ++k)
        fprintf(gp, "%g %.4f\n", lines[l].x[k], panel ? lines[l].at[k].milling : lines[l].at[k].polarisation);
      fputs("e\n", gp);
    }
    fputs("unset object\nunset label\n", gp);
  }
  fputs("unset multiplot\n", gp);
}

/* ---- The report ----------------------------------------------------------------------------- */

/* The ramp's value where the way up is still a torus and the way down still a parallel group in
 * the most runs (the smaller of the two counts): *hits of *runs at *at. */
static void best_memory(const ramps *r, unsigned *hits, unsigned *runs, double *at) {
  *hits = *runs = 0, *at = NAN;
  for (size_t k = 0; k < r->n; ++k) {
    state_count u = count_cell(&r->up[k], 0), w = count_cell(&r->down[k], 0);
    unsigned both = u.in[TORUS] < w.parallel_group ? u.in[TORUS] : w.parallel_group;
    unsigned n = u.runs < w.runs ? u.runs : w.runs;
    if (n && (*runs == 0 || (double)both / n > (double)*hits / *runs)) *hits = both, *runs = n, *at = r->values[k];
  }
}

static void claims_section(FILE *f, const experiment_sweep *states, const ramps *r) {
  fputs("## Claims and verdicts\n\n", f);
  verdict_head(f);
  static const char *const claim[] = {
      "a swarm (cohesive, unaligned) for Δr_o from 0 to 0.5 at Δr_a = 15 (Couzin et al. 2002, the range as "
      "[jiwy2020] gives it)",
      "a torus (a mill) for 0.5 < Δr_o ≤ 2.5 (the same)", "a dynamic parallel group for 2.5 < Δr_o ≤ 6 (the same)",
      "a highly parallel group for 6.5 ≤ Δr_o ≤ 15 (the same)"};
  for (size_t k = 0; k < REGION_COUNT; ++k) {
    state_count c = count_region(states, &regions[k]);
    char what[96], why[256];
    snprintf(what, sizeof what, "end as a %s", state_names[regions[k].state]);
    if (c.runs)
      snprintf(why, sizeof why, "runs from random starts at those Δr_o; the most common end: %s (p̄ = %.2f, m̄ = %.2f)",
               state_names[most_common(&c)], c.polarisation, c.milling);
    else
      snprintf(why, sizeof why, "this version runs no Δr_o in that range");
    verdict_row(f, claim[k], c.in[regions[k].state], c.runs, what, why);
  }
  unsigned hits, runs;
  double at;
  best_memory(r, &hits, &runs, &at);
  char what[160], why[320];
  snprintf(what, sizeof what,
           "at Δr_o = %g stay a torus on the way up *and* a parallel group on the way down (the smaller count)", at);
  snprintf(why, sizeof why,
           "Δr_o raised from %g and lowered from %g, %u steps at each value (the hysteresis table); the value where "
           "the two ways differ most",
           r->values[0], r->values[r->n - 1], RAMP_HOLD);
  verdict_row(f,
              "collective memory: between torus and parallel group the state depends on the group's history (Couzin "
              "et al. 2002, abstract)",
              hits, runs, what, why);
  fputc('\n', f);
}

static void states_table(FILE *f, const experiment_sweep *e) {
  fputs(
      "## States from random starts\n\n![the most common state over Δr_o and Δr_a](states.png)\n\n"
      "Each cell: the most common state with its count, and the mean p̄ / m̄ over the runs. Rows Δr_o (m), "
      "columns Δr_a (m); the runs are in `states/`.\n\n| Δr_o |",
      f);
  size_t columns = 0;
  for (size_t c = 0; c < e->sw.cell_count && (columns == 0 || cell_value(&e->sw, c, 0) == cell_value(&e->sw, 0, 0));
       ++c)
    fprintf(f, " Δr_a = %g |", cell_value(&e->sw, c, 1)), ++columns;
  fputs("\n|---:|", f);
  for (size_t k = 0; k < columns; ++k) fputs("---|", f);
  for (size_t c = 0; c < e->sw.cell_count; ++c) {
    if (c % columns == 0) fprintf(f, "\n| %g |", cell_value(&e->sw, c, 0));
    state_count n = count_cell(e, c);
    char text[64];
    state_text(&n, text, sizeof text);
    fprintf(f, " %s (%.2f / %.2f) |", text, n.polarisation, n.milling);
  }
  fputs("\n\n", f);
}

static void ramp_table(FILE *f, const ramps *r) {
  fprintf(f,
          "## Hysteresis\n\n![p and m over Δr_o, raised and lowered](hysteresis.png)\n\n"
          "Δr_o is raised from %g m and lowered from %g m through the scenario's `schedule`, at Δr_a = 15, holding "
          "each value %u steps; a row gives the runs' state over the second half of the hold at its value. Each "
          "value's runs are a sweep of their own (`hysteresis/up/VALUE/`, `hysteresis/down/VALUE/`), which ends "
          "after that hold. The paper's own protocol (how fast, from which state) could not be read; this one is "
          "ours.\n\n| Δr_o | raised: state | p̄ / m̄ | lowered: state | p̄ / m̄ |\n|---:|---|---|---|---|\n",
          r->values[0], r->values[r->n - 1], RAMP_HOLD);
  for (size_t k = 0; k < r->n; ++k) {
    state_count u = count_cell(&r->up[k], 0), w = count_cell(&r->down[k], 0);
    char a[64], b[64];
    state_text(&u, a, sizeof a);
    state_text(&w, b, sizeof b);
    fprintf(f, "| %g | %s | %.2f / %.2f | %s | %.2f / %.2f |\n", r->values[k], a, u.polarisation, u.milling, b,
            w.polarisation, w.milling);
  }
  fputc('\n', f);
}

/* Where a line has a state in at least EXPERIMENT_REPRODUCED of its runs: "0.5–2.5" (the
 * smallest and largest such Δr_o), or "–". */
static void state_span(const series *l, couzin_state s, char *out, size_t size) {
  double lo = NAN, hi = NAN;
  for (size_t k = 0; k < l->n; ++k) {
    if (!l->at[k].runs || (double)l->at[k].in[s] / l->at[k].runs < EXPERIMENT_REPRODUCED) continue;
    if (isnan(lo)) lo = l->x[k];
    hi = l->x[k];
  }
  if (isnan(lo))
    snprintf(out, size, "–");
  else if (lo == hi)
    snprintf(out, size, "%g", lo);
  else
    snprintf(out, size, "%g–%g", lo, hi);
}

static void variants_section(FILE *f, const series *lines, size_t count) {
  fputs(
      "## What moves the states\n\n![p and m over Δr_o for each reading](variants.png)\n\n"
      "Each row changes one field of the default, at Δr_a = 15 (runs in `variants/FOLDER/`; the default row is "
      "the Δr_a = 15 column above). A cell gives the Δr_o (m) at which at least 80 % of the runs end in that "
      "state (the smallest and the largest such value; – for none). The sources' regions: swarm 0–0.5, torus "
      "0.5–2.5, dynamic parallel 2.5–6, highly parallel 6.5–15.\n\n"
      "| reading | swarm | torus | dynamic parallel | highly parallel |\n|---|---|---|---|---|\n",
      f);
  for (size_t l = 0; l < count; ++l) {
    fprintf(f, "| %s |", l ? variants[l - 1].title : "default (`couzin.combine` = `sums`)");
    for (int s = SWARM; s <= PARALLEL; ++s) {
      char span[48];
      state_span(&lines[l], (couzin_state)s, span, sizeof span);
      fprintf(f, " %s |", span);
    }
    fputc('\n', f);
  }
  fputc('\n', f);
}

/* The lines of the variants' plot: the default, then each variant. */
static size_t variant_lines(const experiment_opts *o, const experiment_sweep *states, const experiment_sweep *parts,
                            series *lines) {
  lines[0] = sweep_series(states, "default");
  for (size_t v = 0; v < variant_count(o->quick); ++v) lines[1 + v] = sweep_series(&parts[v], variants[v].folder);
  return 1 + variant_count(o->quick);
}

static int write_plots(const experiment_opts *o, const experiment_sweep *states, const ramps *r, const series *lines,
                       size_t count) {
  herd_outfile plot;
  FILE *gp = open_report(o, "plots.gp", &plot);
  if (!gp) return 1;
  fputs("set terminal pngcairo size 1000,700 noenhanced\nset grid\n", gp);
  plot_states(gp, states);
  series ramp[2] = {ramp_series(r, true), ramp_series(r, false)};
  plot_over_orientation(gp, "hysteresis.png", "Δr_o raised and lowered (Δr_a = 15; shaded: the regions of [jiwy2020])",
                        ramp, 2);
  plot_over_orientation(gp, "variants.png",
                        "random starts (Δr_a = 15; shaded: the regions of [jiwy2020]), one line per reading", lines,
                        count);
  int status = close_report(&plot);
  return status ? status : cli_gnuplot(o->out, "plots.gp", "herd experiment");
}

static void write_report(FILE *f, const experiment_opts *o, const experiment_sweep *states, const ramps *r,
                         const series *lines, size_t count) {
  report_head(f, o, "Couzin et al. (2002): the collective states, their hysteresis, and the open readings");
  fprintf(f,
          "100 fish start at random in a 20 m cube of open space, each heading anywhere, with the defaults of "
          "docs/models/couzin.md (r_r = 1, α = 270°, s = 3, θ = 40 °/s, τ = 0.1, σ = 0.05, `couzin.combine` = "
          "`sums`). A run from a random start lasts %u steps; its state is read from the mean polarisation p̄ and "
          "milling m̄ over its second half (runs.csv's `polarisation_late`, `milling_late`): swarm p̄ < 0.3 and "
          "m̄ < 0.3; torus m̄ > 0.6; dynamic parallel 0.7 < p̄ < 0.97 and m̄ < 0.3; highly parallel p̄ ≥ 0.97 and "
          "m̄ < 0.3 (these thresholds are ours). The paper's figure could not be read: its regions come from a "
          "reimplementation's notes ([jiwy2020], docs/models/couzin.md), at Δr_a = 15 only.\n\n",
          STATE_STEPS);
  claims_section(f, states, r);
  states_table(f, states);
  ramp_table(f, r);
  variants_section(f, lines, count);
}

int couzin_states(const experiment_opts *o) {
  static ramps r; /* large: two sweeps per value */
  static series lines[1 + VARIANT_COUNT];
  experiment_sweep states = {0}, parts[VARIANT_COUNT];
  memset(&r, 0, sizeof r);
  memset(parts, 0, sizeof parts);
  int status = states_run(o, &states);
  if (status == 0) status = ramps_run(o, &r);
  if (status == 0) status = variants_run(o, parts);
  size_t count = status == 0 ? variant_lines(o, &states, parts, lines) : 0;
  herd_outfile report;
  FILE *f = status == 0 ? open_report(o, "report.md", &report) : NULL;
  if (status == 0 && !f) status = 1;
  if (status == 0) status = write_plots(o, &states, &r, lines, count);
  if (f) {
    write_report(f, o, &states, &r, lines, count);
    int closing = close_report(&report);
    if (status == 0) status = closing;
  }
  experiment_sweep_free(&states);
  for (size_t k = 0; k < MAX_VALUES; ++k) experiment_sweep_free(&r.up[k]), experiment_sweep_free(&r.down[k]);
  for (size_t v = 0; v < VARIANT_COUNT; ++v) experiment_sweep_free(&parts[v]);
  return status;
}
