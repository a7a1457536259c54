/* The scenario's output section: when each quantity is due, and which agents' trajectories
 * are written (docs/output.md). */
#include "output.h"

#include <string.h>
#include "../../kernels/rng.h"

#include "../util/error.h"
#include "model_info.h"

bool herd_output_due(uint32_t every, uint32_t step) { return every != 0 && step % every == 0; }

/* A uniform draw in [0, 1) for agent `id`, 53 bits from the counter-based generator, so the
 * sample depends on the seed and the flock size alone (never on threads or backend). */
static double sample_draw(uint64_t seed, uint32_t id) {
  herd_rng4 r = herd_rng_draw(seed, 0u, id, HERD_STREAM_OUTPUT_SAMPLE);
  uint64_t bits = ((uint64_t)r.v[0] << 21) ^ (r.v[1] >> 11);
  return (double)(bits & ((1ull << 53) - 1)) * (1.0 / 9007199254740992.0);
}

/* The candidates: output.trajectories.ids, or else every agent. */
static uint32_t candidate(const herd_scenario *sc, uint32_t i) {
  const herd_id_list *listed = &sc->output.trajectories_ids;
  return listed->count ? listed->id[i] : i;
}

/* K of the candidates by selection sampling (Knuth's algorithm S): every K-subset equally
 * likely, ids come out ascending, one draw per candidate considered, keyed by its id. */
uint32_t herd_scenario_trajectory_ids(const herd_scenario *sc, uint32_t *ids) {
  uint32_t n = sc->output.trajectories_ids.count ? sc->output.trajectories_ids.count : sc->flock.count;
  uint32_t k = sc->output.trajectories_sample;
  if (k == 0 || k >= n) k = n;
  uint32_t chosen = 0;
  for (uint32_t i = 0; i < n && chosen < k; ++i) {
    uint32_t id = candidate(sc, i);
    bool take = k == n || sample_draw(sc->seed, id) * (double)(n - i) < (double)(k - chosen);
    if (!take) continue;
    if (ids) ids[chosen] = id;
    ++chosen;
  }
  return chosen;
}

herd_status output_check(const herd_scenario *sc, const char *where, herd_error *err) {
  const herd_output_config *o = &sc->output;
  if (o->trajectories_sample > sc->flock.count)
    return herd_fail(err, HERD_E_INPUT,
                     "%s: output.trajectories.sample: %u is more than the flock's %u agents (%s.count) (allowed: 0 "
                     "for all, or 1 to %u)",
                     where, o->trajectories_sample, sc->flock.count, herd_model_info_of(sc->model)->section,
                     sc->flock.count);
  const herd_id_list *ids = &o->trajectories_ids;
  if (ids->count && o->trajectories_sample > ids->count)
    return herd_fail(err, HERD_E_INPUT,
                     "%s: output.trajectories.sample: %u is more than the %u ids of output.trajectories.ids (allowed: "
                     "0 for all of them, or 1 to %u)",
                     where, o->trajectories_sample, ids->count, ids->count);
  for (uint32_t i = 0; i < ids->count; ++i) {
    if (ids->id[i] >= sc->flock.count)
      return herd_fail(err, HERD_E_INPUT,
                       "%s: output.trajectories.ids[%u]: %u is not an agent of the flock (allowed: 0 to %u, below "
                       "%s.count)",
                       where, i, ids->id[i], sc->flock.count - 1, herd_model_info_of(sc->model)->section);
    if (i > 0 && ids->id[i] <= ids->id[i - 1])
      return herd_fail(err, HERD_E_INPUT,
                       "%s: output.trajectories.ids[%u]: %u is not above the id before it (allowed: ids in ascending "
                       "order, each once)",
                       where, i, ids->id[i]);
  }
  return HERD_OK;
}
