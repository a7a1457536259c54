/* The scenario fields a running simulation can change (herd_sim_set_param): the model's numeric
 * parameters and the Strömbom dogs' speed and noise. Everything else sets up the run: counts,
 * the world, obstacles, seeds, steering agents, choices of rule; changing it needs a new run. */
#ifndef HERD_CORE_SCENARIO_LIVE_H
#define HERD_CORE_SCENARIO_LIVE_H
#include <stdint.h>
#include "layer.h"

#include "herd/herd.h"
#include "scenario_fields.h"

/* True when field f may change during a run. */
bool scenario_field_live(const scenario_field *f);

/* The `index`-th field of `model` that may change during a run, in table order; NULL past the
 * last. *whole (unless NULL): it holds a whole number. */
const char *scenario_live_name(uint32_t model, uint32_t index, bool *whole);

/* Those fields' paths as a list for a message: "sheep.inertia, ..., dogs.noise". */
void scenario_live_names(uint32_t model, char *out, size_t size);

/* In scenario.c (which calls the above; they call nothing of it): sets field `path` of sc to
 * `value` as `--set PATH=VALUE` would (the same messages and ranges; the whole scenario checked
 * again), refusing a field that cannot change during a run. On error sc is unchanged. */
herd_status scenario_set_live(herd_scenario *sc, const char *path, double value, herd_error *err);

/* From scenario.c: one override applied, then the rules between fields checked. */
herd_status scenario_apply_set(herd_scenario *sc, const char *set, herd_error *err);

#endif
