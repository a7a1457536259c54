/* What a viewer learns of the model beyond the flock itself: the radii it draws
 * (herd_sim_model_marks), from the model table's hooks (kernels/models/models.h,
 * HERD_MARKS_MODELS). */
#include <math.h>

#include "models.h"

typedef void (*marks_fn)(const void *params, herd_u32 count, herd_u32 delivered, herd_model_marks_out *out);

#define MARKS_ROW(id) [HERD_MODEL_INDEX_##id] = herd_##id##_marks,
static const marks_fn marks[HERD_MODEL_INDEX_COUNT] = {HERD_MARKS_MODELS(MARKS_ROW)};

herd_model_marks herd_sim_model_marks(const herd_sim *sim) {
  herd_model_marks_out m = {NAN, NAN, 0, NAN};
  const herd_scenario *sc = herd_sim_scenario(sim);
  const herd_observation *o = herd_sim_observation(sim);
  marks_fn f = sc->model < HERD_MODEL_INDEX_COUNT ? marks[sc->model] : NULL;
  if (f) f(sc->params.bytes, o->count, o->delivered, &m);
  return (herd_model_marks){m.cohesion_m, m.reaction_m, m.nearest_n, m.interaction_m};
}
