/* Changing a scenario field during a run: which fields may, and the change itself, checked
 * exactly as --set checks it. */
#include "scenario_live.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "../util/error.h"

/* Numbers the backends read afresh each step: nothing was built from them. */
bool scenario_field_live(const scenario_field *f) {
  size_t params = offsetof(herd_scenario, params);
  bool in_params = !f->per_agent && f->offset >= params && f->offset < params + HERD_MODEL_PARAMS_BYTES;
  if (in_params) return f->kind == FIELD_FLOAT || f->kind == FIELD_UINT;
  return strcmp(f->path, "dogs.speed_m_per_step") == 0 || strcmp(f->path, "dogs.noise") == 0;
}

const char *scenario_live_name(uint32_t model, uint32_t index, bool *whole) {
  for (size_t i = 0; i < scenario_field_total(); ++i) {
    const scenario_field *f = scenario_field_at(i);
    if (!scenario_field_of(f, model) || !scenario_field_live(f)) continue;
    if (index-- > 0) continue;
    if (whole) *whole = f->kind == FIELD_UINT;
    return f->path;
  }
  return NULL;
}

/* "PATH=VALUE" with the value as a user would type it: a float's shortest decimal, an
 * integer's digits; anything else as %.17g, for --set's own message about it. */
static void format_set(const scenario_field *f, const char *path, double value, char *out, size_t size) {
  char text[64];
  if (f && f->kind == FIELD_FLOAT && isfinite(value) && fabs(value) < 3.4e38)
    scenario_format_float((float)value, text, sizeof text);
  else
    snprintf(text, sizeof text, "%.17g", value);
  snprintf(out, size, "%s=%s", path, text);
}

/* The fields that may change, for a refusal's message: "sheep.inertia, ..., dogs.noise". */
static void live_names(uint32_t model, char *out, size_t size) {
  size_t used = 0;
  out[0] = '\0';
  const char *name;
  for (uint32_t i = 0; (name = scenario_live_name(model, i, NULL)) && used < size; ++i)
    used += (size_t)snprintf(out + used, size - used, "%s%s", i ? ", " : "", name);
}

herd_status scenario_set_live(herd_scenario *sc, const char *path, double value, herd_error *err) {
  if (!path || !*path || strchr(path, '='))
    return herd_fail(err, HERD_E_INPUT, "herd_sim_set_param: expected a field's path, e.g. sheep.repulsion");
  field_ref ref;
  bool found = scenario_field_find(path, &ref);
  char set[300];
  format_set(found ? ref.f : NULL, path, value, set, sizeof set);
  if (found && !scenario_field_live(ref.f)) {
    char names[700];
    live_names(sc->model, names, sizeof names);
    return herd_fail(err, HERD_E_INPUT,
                     "%s: %s cannot change during a run (the run was set up for it); set it before the run. "
                     "Fields that can: %s",
                     set, path, names);
  }
  herd_scenario next = *sc;
  herd_status s = scenario_apply_set(&next, set, err); /* unknown or foreign paths, ranges: as --set says */
  if (s != HERD_OK) return s;
  *sc = next;
  return HERD_OK;
}
