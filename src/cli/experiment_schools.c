/* `herd experiment netlogo-flocking` and `herd experiment fish-school`: the claims of the NetLogo
 * flocking model with enemies (seed 003) and of Ban, Ning & Tu's fish school (seed 001), each
 * with its verdict computed from the runs (docs/experiments.md). Each sweep runs a shipped
 * scenario, compiled in, against a control that turns the behaviour off, seed by seed. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sweep/stats.h"
#include "cli.h"
#include "experiment.h"

extern const char herd_embedded_netlogo_flocking[], herd_embedded_netlogo_enemies[];
extern const char herd_embedded_fish_shark[], herd_embedded_fish_foraging[];

/* A sweep of `json` (a shipped scenario) with the fields `sets` and, when `vary` is not NULL, the
 * field vary = values (cell 0 the behaviour, cell 1 its control), into OUT/folder. */
static int school_run(const experiment_opts *o, experiment_sweep *e, const char *json, const char *const *sets,
                      size_t set_count, const char *vary, const char *values, const char *folder) {
  herd_sweep_init(&e->sw);
  herd_error err;
  if (!(e->sw.scenario_json = strdup(json))) return cli_fail(1, "out of memory");
  for (size_t k = 0; k < set_count; ++k)
    if (herd_sweep_add_set(&e->sw, sets[k], &err) != HERD_OK) return cli_error(&err);
  if (vary && herd_sweep_add_vary(&e->sw, vary, values, o->name, &err) != HERD_OK) return cli_error(&err);
  return run_part(e, o, folder);
}

/* A number of runs.csv for the paired comparisons: steering_nearest_m or food_eaten. */
typedef double (*row_value)(const sweep_run_row *);
static double nearest_value(const sweep_run_row *r) { return r->steering_nearest_m; }
static double eaten_value(const sweep_run_row *r) { return r->food_eaten; }

/* Seeds whose run in cell 0 (the behaviour) has a larger value than the same seed's run in cell 1
 * (the control); *pairs, the seeds with both values. The medians of each cell's values go to
 * medians[0] and medians[1]. */
static unsigned paired_larger(experiment_sweep *e, row_value value, unsigned *pairs, double medians[2]) {
  size_t seeds = e->sw.seed_count;
  unsigned larger = 0;
  *pairs = 0;
  for (size_t s = 0; s < seeds && seeds < e->row_count; ++s) {
    double on = value(&e->rows[s]), off = value(&e->rows[seeds + s]);
    if (isnan(on) || isnan(off)) continue;
    ++*pairs, larger += on > off;
  }
  for (size_t cell = 0; cell < 2; ++cell) {
    size_t m = 0;
    for (size_t k = 0; k < e->row_count; ++k)
      if (e->rows[k].cell == cell && !isnan(value(&e->rows[k]))) e->scratch[m++] = value(&e->rows[k]);
    herd_sort_doubles(e->scratch, m);
    medians[cell] = m ? herd_quantile(e->scratch, m, 0.5) : NAN;
  }
  return larger;
}

/* Runs of the sweep's cell whose value passes `at_least`; *runs, those with a value. */
static unsigned runs_at_least(const experiment_sweep *e, size_t cell, row_value value, double at_least,
                              unsigned *runs) {
  unsigned hits = 0;
  *runs = 0;
  for (size_t k = 0; k < e->row_count; ++k) {
    double x = value(&e->rows[k]);
    if (e->rows[k].cell != cell || isnan(x)) continue;
    ++*runs, hits += x >= at_least;
  }
  return hits;
}

static double late_polarisation_value(const sweep_run_row *r) { return r->late_polarisation; }

/* Opens OUT/report.md, writes its head and `intro`, and the verdicts' head. */
static FILE *school_report(const experiment_opts *o, herd_outfile *out, const char *title, const char *intro) {
  FILE *f = open_report(o, "report.md", out);
  if (!f) return NULL;
  report_head(f, o, title);
  fprintf(f, "%s\n\n## Claims and verdicts\n\n", intro);
  verdict_head(f);
  return f;
}

/* ---- netlogo-flocking ---------------------------------------------------------------------- */

#define ALIGNED 0.9 /* a run's late mean polarisation from which its birds fly as one (ours) */

int netlogo_flocking(const experiment_opts *o) {
  experiment_sweep flocking = {0}, enemies = {0};
  const char *quick[] = {"max_steps=1000"};
  size_t quick_count = o->quick ? 1 : 0;
  int status = school_run(o, &flocking, herd_embedded_netlogo_flocking, quick, quick_count, NULL, NULL, "flocking");
  if (status == 0)
    status = school_run(o, &enemies, herd_embedded_netlogo_enemies, quick, quick_count, "netlogo.flee",
                        "face_away,none", "enemies");
  herd_outfile report;
  FILE *f = status == 0 ? school_report(o, &report, "NetLogo Flocking with enemies (seed 003): the claims",
                                        "scenarios/netlogo-flocking.json (300 birds, random headings, 71 × 71 "
                                        "patches wrapped) and scenarios/netlogo-enemies.json (the same with three "
                                        "enemies cruising straight through), each seed run as shipped; the enemies' "
                                        "runs again with `netlogo.flee = none` (the birds ignore them), seed by seed. "
                                        "Runs.csv's `polarisation_late` is the mean polarisation over the second half "
                                        "of a run, `steering_nearest_m` the mean distance from the enemies to the "
                                        "bird nearest any of them (docs/sweep.md).")
                        : NULL;
  if (status == 0 && !f) status = 1;
  if (status == 0) {
    unsigned runs, aligned = runs_at_least(&flocking, 0, late_polarisation_value, ALIGNED, &runs);
    verdict_row(f,
                "flocks form without a leader: every bird follows the same rules and the birds come to fly together "
                "(Wilensky 1998, as seed 003 extends it)",
                aligned, runs, "align (mean polarisation ≥ 0.9 over the run's second half)",
                "from random headings, no leader; the threshold 0.9 is ours");
    unsigned pairs;
    double medians[2];
    unsigned farther = paired_larger(&enemies, nearest_value, &pairs, medians);
    char why[256];
    snprintf(why, sizeof why,
             "the same seed with `netlogo.flee = none`; the enemies' mean distance to the nearest bird, median "
             "over seeds: %.2f patches fleeing, %.2f ignoring",
             medians[0], medians[1]);
    verdict_row_of(f,
                   "the enemy repels the birds, which so avoid it (seed 003: birds within vision face it and turn "
                   "away)",
                   farther, pairs, "seeds", "keep the enemies farther from the nearest bird than without fleeing", why);
    verdict_row_judged(f, "a flock, once together, is not guaranteed to keep all its members (seed 003)", "—",
                       experiment_verdict(0, 0),
                       "runs.csv keeps no history of the flock's groups (`herd view` colours them, one run at a time)");
    fputc('\n', f);
    status = close_report(&report);
  }
  experiment_sweep_free(&flocking);
  experiment_sweep_free(&enemies);
  return status;
}

/* ---- fish-school --------------------------------------------------------------------------- */

/* The foraging runs end before a sated school (H0 = 0) grows hungry: H = 700 P0 = 0.47 < beta. */
#define FORAGE_STEPS "max_steps=700"

int fish_school(const experiment_opts *o) {
  experiment_sweep escape = {0}, forage = {0};
  const char *quick[] = {"max_steps=600"}, *forage_sets[] = {FORAGE_STEPS};
  int status = school_run(o, &escape, herd_embedded_fish_shark, quick, o->quick ? 1 : 0, "fish.escape", "ban2008,none",
                          "escape");
  if (status == 0)
    status =
        school_run(o, &forage, herd_embedded_fish_foraging, forage_sets, 1, "fish.initial_hunger", "1,0", "foraging");
  herd_outfile report;
  FILE *f = status == 0
                ? school_report(o, &report, "Ban, Ning & Tu (2008): the fish school's escape and foraging",
                                "scenarios/fish-shark.json (200 fish, a shark that pursues the nearest) with "
                                "`fish.escape` = `ban2008` and, seed by seed, `none` (the shark is ignored); "
                                "scenarios/fish-foraging.json (200 fish, six food particles, two reefs) for 700 steps "
                                "with the school hungry (H0 = 1) and sated (H0 = 0: at the document's P0 = 0.00067 "
                                "a step it stays below β = 0.5 for the whole run), seed by seed. Runs.csv's "
                                "`steering_nearest_m` is the mean distance from the shark to its nearest fish, "
                                "`food_eaten` the particles eaten by the run's end (docs/sweep.md, "
                                "docs/models/fish.md).")
                : NULL;
  if (status == 0 && !f) status = 1;
  if (status == 0) {
    unsigned pairs;
    double medians[2];
    char why[256];
    unsigned farther = paired_larger(&escape, nearest_value, &pairs, medians);
    snprintf(why, sizeof why,
             "the same seed with `fish.escape = none`; the shark's mean distance to its nearest fish, median over "
             "seeds: %.2f m escaping, %.2f m ignoring",
             medians[0], medians[1]);
    verdict_row_of(f,
                   "the school escapes the predator: a fish that finds it tells the others and they flee (Ban, Ning "
                   "& Tu 2008, §3.4, Figs. 9–10)",
                   farther, pairs, "seeds", "keep the shark farther from its nearest fish than without escape", why);
    unsigned runs, fed = runs_at_least(&forage, 0, eaten_value, 3, &runs);
    verdict_row(f, "a hungry school finds the food and forages it (the same, §3.3, Fig. 11)", fed, runs,
                "eat at least 3 of the 6 particles in 700 steps",
                "H0 = 1; the particles lie 26–38 m from the centre of the box the school starts in; the threshold "
                "(half) is ours");
    unsigned more = paired_larger(&forage, eaten_value, &pairs, medians);
    snprintf(why, sizeof why,
             "the same seed sated (H0 = 0), 700 steps; particles eaten, median over seeds: %.0f hungry, %.0f sated",
             medians[0], medians[1]);
    verdict_row_of(f,
                   "a sated fish does not forage: it ignores food unless hungry (the document's motivation "
                   "switch, after Tu)",
                   more, pairs, "seeds", "have the hungry school eat more than the sated one", why);
    fputc('\n', f);
    status = close_report(&report);
  }
  experiment_sweep_free(&escape);
  experiment_sweep_free(&forage);
  return status;
}
