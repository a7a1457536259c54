/* The functions herd.h offers programs beyond stepping: the agents' flags
 * in id order, a run of many steps, names and struct sizes for foreign-function interfaces.
 * Built on the public API only, apart from the agent word's layout (kernels/agent.h). */
#include <math.h>
#include <string.h>

#include "../../kernels/agent.h"
#include "../backend/model_exec.h"
#include "../core/scenario.h"
#include "../util/error.h"
#include "herd/herd.h"
#include "herd/herd_view.h"

/* The public flags are the agent word's top four bits, shifted down, and its sated bit. */
#define FLAG_SHIFT 28
_Static_assert(HERD_AGENT_REMOVED >> FLAG_SHIFT == HERD_FLAG_REMOVED, "removed flag");
_Static_assert(HERD_AGENT_ALERT >> FLAG_SHIFT == HERD_FLAG_REACTED, "reacted flag");
_Static_assert(HERD_AGENT_MOVED >> FLAG_SHIFT == HERD_FLAG_MOVED, "moved flag");
_Static_assert(HERD_AGENT_DELIVERED >> FLAG_SHIFT == HERD_FLAG_DELIVERED, "delivered flag");

herd_status herd_sim_read_flags(herd_sim *sim, uint8_t *flags, herd_error *err) {
  const float *pos, *vel;
  const uint32_t *agent;
  herd_status st = herd_sim_map_state(sim, &pos, &vel, &agent, err);
  if (st != HERD_OK) return st;
  uint32_t n = herd_sim_scenario(sim)->flock.count;
  /* The backend holds the flock in its own order: each word names its agent. */
  for (uint32_t k = 0; k < n; ++k) {
    uint32_t id = agent[k] & HERD_AGENT_ID_MASK;
    if (id >= n) return herd_fail(err, HERD_E_BACKEND, "herd_sim_read_flags: agent id %u out of range", id);
    flags[id] = (uint8_t)((agent[k] >> FLAG_SHIFT) | (agent[k] & HERD_AGENT_SATED ? HERD_FLAG_SATED : 0u));
  }
  return HERD_OK;
}

void herd_headings_of_velocities(float *rows, uint32_t count, uint32_t dims) {
  for (uint32_t i = 0; i < count; ++i) { /* in float, as the trajectories have always been written */
    float *v = rows + (size_t)i * dims, len2 = 0.0f;
    for (uint32_t k = 0; k < dims; ++k) len2 += v[k] * v[k];
    float scale = len2 > 0.0f ? 1.0f / sqrtf(len2) : 1.0f;
    for (uint32_t k = 0; k < dims; ++k) v[k] *= scale;
  }
}

herd_status herd_sim_read_headings(herd_sim *sim, float *headings, herd_error *err) {
  herd_status st = herd_sim_read_flock(sim, NULL, headings, err);
  const herd_scenario *sc = herd_sim_scenario(sim);
  if (st == HERD_OK) herd_headings_of_velocities(headings, sc->flock.count, sc->world.dims);
  return st;
}

herd_status herd_sim_run(herd_sim *sim, uint32_t steps, uint32_t *done, herd_error *err) {
  uint32_t taken = 0;
  herd_status st = HERD_OK;
  while ((steps == 0 || taken < steps) && herd_sim_outcome(sim) == HERD_RUNNING) {
    st = herd_sim_step(sim, err);
    if (st != HERD_OK) break;
    ++taken;
  }
  if (done) *done = taken;
  return st;
}

const char *herd_outcome_name(herd_outcome outcome) {
  switch (outcome) {
    case HERD_RUNNING: return "running";
    case HERD_SUCCEEDED: return "succeeded";
    case HERD_STEP_LIMIT: return "step_limit";
  }
  return "?";
}

size_t herd_sizeof(const char *type) {
  static const struct {
    const char *name;
    size_t size;
  } types[] = {
      {"herd_scenario_info", sizeof(herd_scenario_info)},
      {"herd_observation", sizeof(herd_observation)},
      {"herd_steering_state", sizeof(herd_steering_state)},
      {"herd_sim_desc", sizeof(herd_sim_desc)},
      {"herd_error", sizeof(herd_error)},
      {"herd_profile", sizeof(herd_profile)},
      {"herd_run_result", sizeof(herd_run_result)},
      {"herd_update_terms", sizeof(herd_update_terms)},
  };
  for (size_t k = 0; type && k < sizeof types / sizeof types[0]; ++k)
    if (strcmp(type, types[k].name) == 0) return types[k].size;
  return 0;
}

/* Here, not in core: the grid cell is the model's execution (src/backend/model_exec.h). */
herd_scenario_info herd_scenario_describe(const herd_scenario *sc) {
  herd_scenario_info in;
  memset(&in, 0, sizeof in);
  in.model = sc->model;
  in.dims = sc->world.dims;
  for (uint32_t k = 0; k < 3; ++k) {
    bool axis = k < sc->world.dims;
    in.size_m[k] = axis ? sc->world.size_m[k] : 0.0f;
    in.wrap[k] = axis ? sc->world.wrap[k] : 0u;
    in.target_m[k] = axis ? sc->target.position_m[k] : 0.0f;
  }
  in.seed = sc->seed;
  in.max_steps = sc->max_steps;
  in.count = sc->flock.count;
  in.goal_radius_m = sc->target.goal_radius_m;
  in.goal_pen = herd_scenario_goal_pen(sc);
  in.dogs = herd_scenario_dog_count(sc);
  in.steering = herd_scenario_steering_count(sc);
  in.agent_entries = sc->agents.entries;
  in.food = sc->food.points.count;
  in.path_points = sc->path.points.count;
  in.spheres = sc->obstacles.spheres.count;
  in.shapes = sc->obstacles.walls.count + sc->obstacles.water.count + sc->obstacles.pens.count;
  in.observes_groups = herd_scenario_observes_groups(sc);
  in.grid_cell_m = herd_scenario_grid_cell_m(sc);
  in.observation_every = sc->output.observation_every;
  in.order_every = sc->output.order_every;
  in.steering_every = sc->output.steering_every;
  in.trajectories_every = sc->output.trajectories_every;
  return in;
}

const char *herd_scenario_description(const herd_scenario *sc) { return sc->description; }

uint32_t herd_scenario_schedule_count(const herd_scenario *sc) { return sc->schedule.count; }

bool herd_scenario_schedule_entry(const herd_scenario *sc, uint32_t k, uint32_t *step, const char **path,
                                  double *value) {
  if (k >= sc->schedule.count || k >= HERD_MAX_SCHEDULE) return false;
  const herd_schedule_entry *e = &sc->schedule.entry[k];
  if (step) *step = e->step;
  if (path) *path = e->path;
  if (value) *value = e->value;
  return true;
}
