/* The scenario's output section: when each quantity is due, and which agents' trajectories
 * are written (docs/output.md). */
#include "output.h"

#include "../../kernels/rng.h"
#include "error.h"
#include "models.h"

bool herd_output_due(uint32_t every, uint32_t step) { return every != 0 && step % every == 0; }

/* A uniform draw in [0, 1) for agent `id`, 53 bits from the counter-based generator, so the
 * sample depends on the seed and the flock size alone (never on threads or backend). */
static double sample_draw(uint64_t seed, uint32_t id) {
  herd_rng4 r = herd_rng_draw(seed, 0u, id, HERD_STREAM_OUTPUT_SAMPLE);
  uint64_t bits = ((uint64_t)r.v[0] << 21) ^ (r.v[1] >> 11);
  return (double)(bits & ((1ull << 53) - 1)) * (1.0 / 9007199254740992.0);
}

/* Selection sampling (Knuth's algorithm S): every K-subset equally likely, ids come out
 * ascending, one draw per id considered. */
uint32_t herd_scenario_trajectory_ids(const herd_scenario *sc, uint32_t *ids) {
  uint32_t n = sc->flock.count, k = sc->output.trajectories_sample;
  if (k == 0 || k >= n) k = n;
  uint32_t chosen = 0;
  for (uint32_t id = 0; id < n && chosen < k; ++id) {
    bool take = k == n || sample_draw(sc->seed, id) * (double)(n - id) < (double)(k - chosen);
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
  return HERD_OK;
}
