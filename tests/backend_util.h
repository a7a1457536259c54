/* Making backends directly (below the sim) in tests. */
#ifndef HERD_TESTS_BACKEND_UTIL_H
#define HERD_TESTS_BACKEND_UTIL_H
#include "backend/backend.h"
#include "sim_util.h"

/* The backend description a sim would make for scenario sc, with `count` agents. */
static inline herd_backend_desc backend_desc_for(const herd_scenario *sc, uint32_t count, int threads) {
  herd_backend_desc d = {.count = count,
                         .model = herd_model_exec_of(sc->model),
                         .params = sc->params.bytes,
                         .dims = sc->world.dims,
                         .goal_radius_m = sc->target.goal_radius_m,
                         .seed = sc->seed,
                         .threads = threads,
                         .steering_count = HERD_MAX_STEERING}; /* tests reduce with any number */
  for (int k = 0; k < 3; ++k) {
    d.world_size_m[k] = sc->world.size_m[k];
    d.world_wrap[k] = sc->world.wrap[k];
    d.goal_m[k] = k < 2 ? sc->target.position_m[k] : 0.0f;
  }
  return d;
}

#endif
