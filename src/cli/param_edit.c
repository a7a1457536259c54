/* The viewer's parameter edits: which field, its next value, and the record of each change. */
#include "param_edit.h"

#include <math.h>
#include <string.h>

herd_status param_edit_open(param_edit *e, const char *path, bool force, herd_error *err) {
  e->logging = false;
  if (!path) return HERD_OK;
  herd_status st = herd_outfile_open(&e->log, "--log-edits", path, force, err);
  if (st != HERD_OK) return st;
  e->logging = true;
  fputs("step,path,old,new\n", e->log.f);
  return HERD_OK;
}

herd_status param_edit_close(param_edit *e, herd_error *err) {
  if (!e->logging) return HERD_OK;
  e->logging = false;
  return herd_outfile_commit(&e->log, err);
}

void param_edit_next(param_edit *e, const herd_sim *sim) {
  if (!herd_sim_param_name(sim, 0, NULL)) return;
  e->selected = herd_sim_param_name(sim, (uint32_t)(e->selected + 1), NULL) ? e->selected + 1 : 0;
}

double param_edit_stepped(double value, bool whole, int direction) {
  double factor = 1.0 + PARAM_EDIT_STEP;
  if (!whole) {
    if (value == 0.0) return direction > 0 ? PARAM_EDIT_STEP : 0.0;
    return direction > 0 ? value * factor : value / factor;
  }
  double by = fmax(1.0, round(value * PARAM_EDIT_STEP));
  return direction > 0 ? value + by : fmax(0.0, value - by);
}

herd_status param_edit_change(param_edit *e, herd_sim *sim, int direction) {
  bool whole = false;
  const char *path = e->selected >= 0 ? herd_sim_param_name(sim, (uint32_t)e->selected, &whole) : NULL;
  if (!path) return HERD_OK;
  herd_error err;
  double old = 0, now = 0;
  herd_scenario_get(herd_sim_scenario(sim), path, &old, &err);
  double next = param_edit_stepped(old, whole, direction);
  herd_status st = herd_sim_set_param(sim, path, next, &err);
  if (st != HERD_OK) {
    fprintf(stderr, "herd view: %s\n", err.message);
    return st;
  }
  herd_scenario_get(herd_sim_scenario(sim), path, &now, &err);
  uint32_t step = herd_sim_step_index(sim);
  fprintf(stderr, "herd view: step %u: %s %.9g -> %.9g\n", step, path, old, now);
  if (e->logging) {
    fprintf(e->log.f, "%u,%s,%.9g,%.9g\n", step, path, old, now);
    fflush(e->log.f);
  }
  ++e->edits;
  return HERD_OK;
}

void param_edit_hud(const param_edit *e, const herd_sim *sim, char *out, size_t size) {
  const char *path = e->selected >= 0 ? herd_sim_param_name(sim, (uint32_t)e->selected, NULL) : NULL;
  if (!path) {
    snprintf(out, size, "%s", herd_sim_param_name(sim, 0, NULL) ? "P pick a parameter to change" : "");
    return;
  }
  double value = 0;
  herd_error err;
  herd_scenario_get(herd_sim_scenario(sim), path, &value, &err);
  snprintf(out, size, "param %s = %.7g  (P next, [ ] -/+%.0f %%)", path, value, 100 * PARAM_EDIT_STEP);
}
