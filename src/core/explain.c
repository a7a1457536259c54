/* What a viewer learns of the model beyond the flock itself: the radii it draws
 * (herd_sim_model_marks), from the model table's hooks (kernels/models/models.h,
 * HERD_MARKS_MODELS). */
#include <math.h>

#include "models.h"

typedef void (*marks_fn)(const void *params, herd_u32 count, herd_u32 delivered, float *cohesion_m, float *reaction_m,
                         herd_u32 *nearest_n);

#define MARKS_ROW(id) [HERD_MODEL_INDEX_##id] = herd_##id##_marks,
static const marks_fn marks[HERD_MODEL_INDEX_COUNT] = {HERD_MARKS_MODELS(MARKS_ROW)};

herd_model_marks herd_sim_model_marks(const herd_sim *sim) {
  herd_model_marks out = {NAN, NAN, 0};
  const herd_scenario *sc = herd_sim_scenario(sim);
  const herd_observation *o = herd_sim_observation(sim);
  marks_fn f = sc->model < HERD_MODEL_INDEX_COUNT ? marks[sc->model] : NULL;
  if (f) f(sc->params.bytes, o->count, o->delivered, &out.cohesion_m, &out.reaction_m, &out.nearest_n);
  return out;
}
