/* Which scenario fields a running simulation may change (the change itself, checked as --set
 * checks it, is scenario.c's scenario_set_live). */
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

void scenario_live_names(uint32_t model, char *out, size_t size) {
  size_t used = 0;
  out[0] = '\0';
  const char *name;
  for (uint32_t i = 0; (name = scenario_live_name(model, i, NULL)) && used < size; ++i)
    used += (size_t)snprintf(out + used, size - used, "%s%s", i ? ", " : "", name);
}
