/* Whole runs stepped as a batch, each with the figures a sweep's row gives of it (herd.h,
 * herd_batch_run): herd sweep's runs.csv and Python's herd.sweep take them from here. Built on
 * the public API only. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>

#include "../util/clock.h"
#include "../util/error.h"
#include "herd/herd.h"

/* What a run's row needs besides its end: how often the first steering agent's mode changes
 * (a dog switching between collecting and driving), the mean distance of the farthest agent
 * from the centroid over the steps it drives, the mean order parameters late in the run, and
 * the mean distance from the steering agents (food left out) to the flock agent nearest them. */
typedef struct run_tracker {
  int mode; /* -1: no steering agent */
  uint32_t mode_changes, driving;
  double drive_farthest;
  uint32_t late_from, late_steps; /* steps after late_from are averaged */
  double late_polarisation, late_milling;
  uint32_t near_steps;
  double steering_nearest;
  double started_s;
  bool ended;
} run_tracker;

/* The step after which a run is "late": halfway through the last stretch of fixed parameters,
 * from the last change its schedule makes (or the start) to max_steps. A collective state
 * forms and settles in the stretch's first half; the second half is where it is measured. */
static uint32_t late_from(const herd_scenario *sc) {
  uint32_t last = herd_scenario_describe(sc).max_steps, changed = 0, step;
  const char *path;
  double value;
  for (uint32_t k = 0; herd_scenario_schedule_entry(sc, k, &step, &path, &value); ++k)
    if (step < last) changed = step;
  return changed + (last - changed) / 2;
}

static run_tracker track_start(const herd_sim *sim, double started_s) {
  return (run_tracker){.mode = herd_sim_steering_count(sim) ? (int)herd_sim_steering(sim, 0)->mode : -1,
                       .late_from = late_from(herd_sim_scenario(sim)),
                       .started_s = started_s};
}

static void track_step(run_tracker *t, const herd_sim *sim) {
  int now = t->mode >= 0 ? (int)herd_sim_steering(sim, 0)->mode : -1;
  const herd_observation *o = herd_sim_observation(sim);
  t->mode_changes += now != t->mode;
  t->mode = now;
  if (now == HERD_MODE_DRIVE) ++t->driving, t->drive_farthest += o->farthest_dist_m;
  if (herd_sim_step_index(sim) > t->late_from)
    ++t->late_steps, t->late_polarisation += o->polarisation, t->late_milling += o->milling;
  double nearest = INFINITY;
  for (uint32_t d = 0; d < herd_sim_steering_count(sim); ++d)
    if (herd_sim_steering(sim, d)->strategy != HERD_STRATEGY_FOOD && o->nearest[d].dist_m < nearest)
      nearest = o->nearest[d].dist_m;
  if (isfinite(nearest)) ++t->near_steps, t->steering_nearest += nearest;
}

/* Food particles eaten by now; NaN when the scenario has none. */
static double food_eaten(const herd_sim *sim) {
  uint32_t food = 0, eaten = 0;
  for (uint32_t d = 0; d < herd_sim_steering_count(sim); ++d) {
    const herd_steering_state *a = herd_sim_steering(sim, d);
    food += a->strategy == HERD_STRATEGY_FOOD;
    eaten += a->strategy == HERD_STRATEGY_FOOD && a->mode == HERD_MODE_EATEN;
  }
  return food ? eaten : NAN;
}

/* The figures of a run that has ended. */
static herd_run_result track_result(const run_tracker *t, const herd_sim *sim) {
  return (herd_run_result){.outcome = herd_sim_outcome(sim),
                           .steps = herd_sim_step_index(sim),
                           .obs = *herd_sim_observation(sim),
                           .dims = herd_scenario_describe(herd_sim_scenario(sim)).dims,
                           .mode_changes = t->mode_changes,
                           .drive_farthest_m = t->driving ? t->drive_farthest / t->driving : NAN,
                           .late_polarisation = t->late_steps ? t->late_polarisation / t->late_steps : NAN,
                           .late_milling = t->late_steps ? t->late_milling / t->late_steps : NAN,
                           .steering_nearest_m = t->near_steps ? t->steering_nearest / t->near_steps : NAN,
                           .food_eaten = food_eaten(sim),
                           .wall_s = herd_clock_s() - t->started_s};
}

herd_status herd_batch_run(const herd_sim_desc *descs, uint32_t count, herd_run_result *results, herd_error *err) {
  if (!results) return herd_fail(err, HERD_E_INPUT, "herd_batch_run: no room for the results given");
  run_tracker *track = calloc(count ? count : 1, sizeof *track);
  if (!track) return herd_fail(err, HERD_E_MEMORY, "out of memory for a batch of %u runs", count);
  double started = herd_clock_s();
  herd_batch *batch = NULL;
  herd_status s = herd_batch_create(descs, count, &batch, err);
  for (uint32_t k = 0; k < count && s == HERD_OK; ++k) track[k] = track_start(herd_batch_world(batch, k), started);
  while (s == HERD_OK) {
    for (uint32_t k = 0; k < count; ++k) {
      const herd_sim *world = herd_batch_world(batch, k);
      if (track[k].ended || herd_sim_outcome(world) == HERD_RUNNING) continue;
      results[k] = track_result(&track[k], world);
      track[k].ended = true;
    }
    if (herd_batch_running(batch) == 0) break;
    s = herd_batch_step(batch, err);
    for (uint32_t k = 0; k < count && s == HERD_OK; ++k)
      if (!track[k].ended) track_step(&track[k], herd_batch_world(batch, k));
  }
  herd_batch_destroy(batch);
  free(track);
  return s;
}
