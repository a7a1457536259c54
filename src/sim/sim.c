/* The run loop: owns a backend and the steering agents, and implements the herd_sim API.
 * It knows models and strategies only through their tables. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime (util/clock.h) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/env.h"
#include "../backend/backend.h"
#include "../core/geometry.h"
#include "../core/model_info.h"
#include "../core/scenario_live.h"
#include "../steer/steer.h"
#include "../util/clock.h"
#include "../util/error.h"
#include "goal.h"
#include "sim_state.h"

/* The step index used to key the random draws of the initial placement: never reached by
 * a run, so placement draws are independent of every step's draws. */
#define SPAWN_STEP 0xFFFFFFFFu

struct herd_sim {
  herd_scenario sc;
  const herd_model_info *model; /* what the model is */
  const herd_model_exec *exec;  /* how the backends run it */
  const herd_backend_ops *ops;
  herd_backend *backend; /* in a batch: the batch's, shared */
  bool in_batch;
  uint32_t world; /* its index in the batch */
  char backend_note[700];
  uint32_t steering_count;
  herd_steering_state steering[HERD_MAX_STEERING];
  float steer_pos[HERD_STEER_FLOATS * HERD_MAX_STEERING]; /* as the flock reads them (kernels/agent.h) */
  herd_steer_context steer_ctx;
  herd_goal goal; /* when the run succeeds */
  float *env;     /* the obstacles and the path (kernels/env.h) */
  uint32_t env_floats;
  herd_env_info env_info;
  herd_observation obs;
  uint32_t unobserved;       /* the optional parts the user left out (herd_sim_set_observed) */
  bool groups_on;            /* the flock's groups are observed (herd_scenario_observes_groups) */
  herd_groups_params groups; /* how */
  uint32_t step;
  uint32_t scheduled; /* the schedule's entries made so far (sc.schedule: before their steps) */
  herd_outcome outcome;
  bool manual[HERD_MAX_STEERING]; /* steered by the user toward manual_aim */
  float manual_aim[HERD_MAX_STEERING][3];
  const volatile sig_atomic_t *stop;
  /* Running a step ahead (run_ahead): step `step` and its reduce are already enqueued, the
   * observation to be read into backend slot `slot`. */
  bool run_ahead, ahead;
  int slot;
  bool profile;    /* time the steering (HERD_STAGE_STEER) */
  double steer_s;  /* its seconds so far */
  uint64_t steers; /* and its calls */
};

static herd_steering_input steering_input(const herd_sim *s) {
  return (herd_steering_input){s->steer_pos, s->steering_count};
}

/* What the flock makes of a steering agent in this mode. */
static uint32_t steering_role(herd_steering_mode mode) {
  switch (mode) {
    case HERD_MODE_FOOD: return HERD_ROLE_FOOD;
    case HERD_MODE_FOOD_BEST: return HERD_ROLE_FOOD_BEST;
    case HERD_MODE_EATEN: return HERD_ROLE_GONE;
    default: return HERD_ROLE_THREAT;
  }
}

static void publish_steering(herd_sim *s) {
  for (uint32_t d = 0; d < s->steering_count; ++d) {
    const herd_steering_state *a = &s->steering[d];
    float *out = &s->steer_pos[HERD_STEER_FLOATS * d];
    for (int k = 0; k < 3; ++k) {
      out[k] = a->pos[k];
      out[4 + k] = a->velocity[k];
    }
    out[3] = (float)steering_role(a->mode);
    out[7] = 0.0f;
  }
}

/* A uniform point in [0, 1) per axis, for steering agent `index`'s placement. */
static void steering_draw(const herd_scenario *sc, uint32_t index, uint32_t stream, float out[3]) {
  herd_rng4 r = herd_rng_draw(sc->seed, SPAWN_STEP, index, stream);
  out[0] = herd_rng_unit_float(r.v[0]);
  out[1] = herd_rng_unit_float(r.v[1]);
  out[2] = herd_rng_unit_float(r.v[2]);
}

/* Strömbom's dogs first (as always: a row from dogs.start, spacing_m apart), then each
 * agents entry: at its position or anywhere in the world, heading its way or anywhere. */
static void place_steering(herd_sim *s) {
  const herd_scenario *sc = &s->sc;
  uint32_t n = 0, dims = sc->world.dims;
  uint32_t dogs = herd_scenario_dog_count(sc);
  for (uint32_t d = 0; d < dogs; ++d, ++n) {
    herd_steering_state *dog = &s->steering[n];
    memset(dog, 0, sizeof *dog);
    dog->strategy = HERD_STRATEGY_DOG;
    dog->mode = HERD_MODE_COLLECT;
    dog->pos[0] = sc->dogs.start[0] * sc->world.size_m[0] + (float)d * sc->dogs.spacing_m;
    dog->pos[1] = sc->dogs.start[1] * sc->world.size_m[0];
    dog->heading[0] = 1.0f;
    dog->speed_m_per_step = sc->dogs.speed_m_per_step;
  }
  for (uint32_t e = 0; e < sc->agents.entries; ++e) {
    const herd_steering_config *c = &sc->agents.entry[e];
    for (uint32_t k = 0; k < c->count && n < HERD_MAX_STEERING; ++k, ++n) {
      herd_steering_state *a = &s->steering[n];
      memset(a, 0, sizeof *a);
      a->strategy = (herd_strategy)c->strategy;
      a->speed_m_per_step = c->speed_m_per_step;
      float u[3];
      steering_draw(sc, n, HERD_STREAM_STEERING_SPAWN, u);
      for (uint32_t i = 0; i < dims; ++i)
        a->pos[i] = isnan(c->position_m[0]) ? u[i] * sc->world.size_m[i] : c->position_m[i];
      herd_vec3 dir = isnan(c->direction[0])
                          ? herd_v3(c->direction[0], 0, 0)
                          : herd_v3(c->direction[0], c->direction[1], dims == 3 ? c->direction[2] : 0);
      if (isnan(c->direction[0])) { /* a random direction, from a draw of its own */
        herd_rng4 r = herd_rng_draw(sc->seed, SPAWN_STEP, n, HERD_STREAM_STEERING_DIRECTION);
        herd_vec2 flat = herd_rng_direction(r.v[0]);
        dir = dims == 3 ? herd_rng_direction3(r.v[1], r.v[2]) : herd_v3(flat.x, flat.y, 0.0f);
      }
      dir = herd_v3_unit(dir);
      a->heading[0] = dir.x, a->heading[1] = dir.y, a->heading[2] = dir.z;
      herd_steer_wrap(sc, a->pos);
    }
  }
  for (uint32_t f = 0; f < sc->food.points.count && n < HERD_MAX_STEERING; ++f, ++n) {
    herd_steering_state *a = &s->steering[n];
    memset(a, 0, sizeof *a);
    a->strategy = HERD_STRATEGY_FOOD;
    a->mode = HERD_MODE_FOOD;
    memcpy(a->pos, sc->food.points.v[f], sizeof a->pos);
  }
  for (uint32_t d = 0; d < n; ++d) s->steering[d].aim[0] = s->steering[d].aim[1] = s->steering[d].aim[2] = NAN;
  s->steering_count = n;
  publish_steering(s);
}

/* The flock uniformly at random in the spawn box, with the model's initial velocities. */
static herd_status place_flock(herd_sim *s, herd_error *err) {
  const herd_scenario *sc = &s->sc;
  uint32_t n = sc->flock.count, dims = sc->world.dims, stride = herd_state_stride(dims);
  float *pos = calloc((size_t)n * stride, sizeof *pos), *vel = calloc((size_t)n * stride, sizeof *vel);
  if (!pos || !vel) {
    free(pos);
    free(vel);
    return herd_fail(err, HERD_E_MEMORY, "out of memory placing %u agents", n);
  }
  float x0[3], w[3];
  for (uint32_t k = 0; k < dims; ++k) {
    float l = sc->world.size_m[k];
    x0[k] = sc->flock.spawn.from[k] * l;
    w[k] = (sc->flock.spawn.to[k] - sc->flock.spawn.from[k]) * l;
  }
  herd_grid world = {.dims = dims};
  for (uint32_t k = 0; k < 3; ++k) {
    world.size_m[k] = sc->world.size_m[k];
    if (k < dims && sc->world.wrap[k]) world.wrap |= 1u << k;
  }
  for (uint32_t i = 0; i < n; ++i) {
    herd_rng4 a = herd_rng_draw(sc->seed, SPAWN_STEP, i, HERD_STREAM_SPAWN);
    herd_rng4 b = herd_rng_draw(sc->seed, SPAWN_STEP, i, HERD_STREAM_SPAWN_VELOCITY);
    herd_vec3 p = herd_v3(x0[0] + w[0] * herd_rng_unit_float(a.v[0]), x0[1] + w[1] * herd_rng_unit_float(a.v[1]),
                          dims == 3 ? x0[2] + w[2] * herd_rng_unit_float(a.v[3]) : 0.0f);
    p = herd_world_wrap(&world, p);
    if (s->env_info.spheres) p = herd_env_keep_out(s->env, &s->env_info, p); /* drawn inside an obstacle */
    if (s->env_info.has_field) { /* the same for walls, water and pens: out along the field's gradient */
      int out;
      p = herd_sdf_project(s->env + s->env_info.field_at, p, &out);
    }
    p = herd_world_wrap(&world, p); /* moved out of an obstacle past the period's end */
    herd_store_vec(pos, i, dims, p);
    herd_store_vec(vel, i, dims, s->exec->initial_velocity(sc->params.bytes, a, b, dims));
  }
  herd_status st = s->in_batch ? s->ops->upload_world(s->backend, s->world, sc->seed, pos, vel, err)
                               : s->ops->upload(s->backend, pos, vel, err);
  free(pos);
  free(vel);
  return st;
}

/* The backend's description of this scenario. */
static herd_backend_desc backend_desc(const herd_sim *s, const herd_sim_desc *desc, const char *device) {
  const herd_scenario *sc = &s->sc;
  herd_backend_desc bd = {
      .count = sc->flock.count,
      .model = s->exec,
      .params = sc->params.bytes,
      .dims = sc->world.dims,
      .goal_radius_m = sc->target.goal_radius_m,
      .seed = sc->seed,
      .threads = desc->threads,
      .device = device,
      .profile = desc->profile,
      .gl_share = desc->gl_share,
      .stop = desc->stop,
      .env = s->env,
      .env_floats = s->env_floats,
      .env_info = s->env_info,
      .steering_count = s->steering_count,
      .mpi = desc->mpi,
  };
  for (int k = 0; k < 3; ++k) {
    bd.world_size_m[k] = sc->world.size_m[k];
    bd.world_wrap[k] = sc->world.wrap[k];
    bd.goal_m[k] = k < 2 ? sc->target.position_m[k] : 0.0f;
  }
  return bd;
}

/* The MPI backend, each rank stepping its part on the backend chosen (*ops). */
static herd_status use_mpi(herd_backend_desc *bd, bool batch, const herd_backend_ops **ops, herd_error *err) {
#ifdef HERD_WITH_MPI
  if (batch) return herd_fail(err, HERD_E_INPUT, "--mpi: a batch of worlds is not split over MPI ranks");
  bd->inner = *ops;
  *ops = &herd_mpi_backend;
  return HERD_OK;
#else
  (void)bd, (void)batch, (void)ops;
  return herd_fail(err, HERD_E_INPUT, "--mpi: this herd was built without MPI (cmake -DHERD_WITH_MPI=ON)");
#endif
}

/* Creates the backend of the worlds (a batch when `batch`, else worlds[0] alone) on the backend
 * desc names; `auto` hands over to the CPU backend when the device it chose fails. */
static herd_status start_backend(herd_sim *const *worlds, uint32_t count, bool batch, const herd_sim_desc *desc,
                                 const herd_backend_ops **ops, herd_backend **out, char *note, size_t note_size,
                                 herd_error *err) {
  char device[128];
  herd_status st = herd_backend_choose(desc->backend, desc->device, ops, device, sizeof device, note, note_size, err);
  if (st != HERD_OK) return st;
  herd_backend_desc *bd = malloc(count * sizeof *bd);
  if (!bd) return herd_fail(err, HERD_E_MEMORY, "out of memory creating %u worlds", count);
  for (uint32_t w = 0; w < count; ++w) bd[w] = backend_desc(worlds[w], desc, device);
  if (batch) bd[0].stop = NULL; /* a batch stops between steps: every world or none has moved */
  if (desc->mpi.on) {           /* the chosen backend steps each rank's part (src/backend/mpi) */
    st = use_mpi(bd, batch, ops, err);
    if (st != HERD_OK) {
      free(bd);
      return st;
    }
  }
  st = batch ? (*ops)->create_batch(bd, count, out, err) : (*ops)->create(bd, out, err);
  bool auto_chose = desc->backend && strcmp(desc->backend, "auto") == 0 && !(desc->device && *desc->device);
  if (st == HERD_E_BACKEND && auto_chose && *ops != &herd_cpu_backend && !desc->mpi.on) {
    /* auto promises a run: a device that cannot start (a failed build, say) hands over. */
    snprintf(note, note_size, "auto: the OpenCL device failed (%.600s); using the native CPU backend", err->message);
    *ops = &herd_cpu_backend;
    st = batch ? (*ops)->create_batch(bd, count, out, err) : (*ops)->create(bd, out, err);
  }
  free(bd);
  return st;
}

/* The scenario's obstacles and path as the env array of kernels/env.h: the spheres, then the
 * path's table of HERD_PATH_INTERVALS intervals (seed 004's lookup in steps of 0.01), then the
 * signed-distance field of the walls, water, pens and bridges, baked here once. */
static herd_status build_env(herd_sim *s, herd_error *err) {
  const herd_scenario *sc = &s->sc;
  uint32_t spheres = sc->obstacles.spheres.count, points = sc->path.points.count, field_floats = 0;
  uint32_t path_floats = points ? herd_path_floats(points, HERD_PATH_INTERVALS) : 0u;
  float *field = NULL;
  int pen = herd_scenario_goal_pen(sc);
  uint32_t goal_points = pen >= 0 ? sc->obstacles.pens.s[pen].count : 0u;
  if (herd_geometry_any(sc) && !(field = herd_geometry_bake(sc, &field_floats)))
    return herd_fail(err, HERD_E_MEMORY, "out of memory for the obstacles' distance field");
  s->env_info = (herd_env_info){.spheres = spheres,
                                .path_at = 4u * spheres,
                                .has_path = points > 0,
                                .margin_m = sc->obstacles.margin_m,
                                .push = sc->obstacles.push,
                                .lookahead_m = sc->path.lookahead_m,
                                .path_weight = sc->path.weight,
                                .eat_radius_m = sc->food.eat_radius_m,
                                .sense_radius_m = sc->food.sense_radius_m,
                                .has_field = field != NULL,
                                .field_at = 4u * spheres + path_floats,
                                .goal_at = 4u * spheres + path_floats + field_floats,
                                .goal_points = goal_points};
  s->env_floats = 4u * spheres + path_floats + field_floats + 2u * goal_points;
  if (!s->env_floats) return HERD_OK;
  if (!(s->env = malloc(s->env_floats * sizeof *s->env))) {
    free(field);
    return herd_fail(err, HERD_E_MEMORY, "out of memory for the obstacles and the path");
  }
  memcpy(s->env, sc->obstacles.spheres.v, 4u * spheres * sizeof *s->env);
  if (field) memcpy(s->env + s->env_info.field_at, field, field_floats * sizeof *field);
  free(field);
  if (goal_points) memcpy(s->env + s->env_info.goal_at, sc->obstacles.pens.s[pen].v, 2u * goal_points * sizeof *s->env);
  float xyz[3 * HERD_MAX_PATH_POINTS];
  for (uint32_t i = 0; i < points; ++i)
    for (uint32_t k = 0; k < 3; ++k) xyz[3 * i + k] = sc->path.points.v[i][k];
  if (points && herd_path_build(s->env + 4u * spheres, xyz, points, HERD_PATH_INTERVALS) != 0)
    return herd_fail(err, HERD_E_INPUT, "path.points_m: the path cannot be built (%u points)", points);
  return HERD_OK;
}

/* True when a steering agent of the scenario finds its way among obstacles by the route: a
 * Strömbom dog or one of Lien's shepherds. */
static bool walks_the_route(const herd_scenario *sc) {
  if (herd_scenario_dog_count(sc)) return true;
  for (uint32_t e = 0; e < sc->agents.entries; ++e)
    if (sc->agents.entry[e].strategy == HERD_STRATEGY_SHEPHERD) return true;
  return false;
}

/* A simulation of the scenario with no backend yet: its steering agents placed. */
static herd_status sim_new(const herd_sim_desc *desc, herd_sim **out, herd_error *err) {
  if (!desc || !desc->scenario) return herd_fail(err, HERD_E_INPUT, "herd_sim_create: no scenario given");
  herd_status valid = herd_scenario_validate(desc->scenario, err);
  if (valid != HERD_OK) return valid;
  herd_sim *s = calloc(1, sizeof *s);
  if (!s) return herd_fail(err, HERD_E_MEMORY, "out of memory creating the simulation");
  s->sc = *desc->scenario;
  s->stop = desc->stop;
  s->model = herd_model_info_of(s->sc.model);
  s->exec = herd_model_exec_of(s->sc.model);
  s->steer_ctx = herd_steer_context_for(&s->sc);
  s->goal = herd_goal_for(&s->sc);
  s->groups_on = herd_scenario_observes_groups(&s->sc);
  s->groups = (herd_groups_params){s->sc.groups.max, s->sc.groups.view_radius_m, s->sc.groups.member_radius_m};
  herd_status st = build_env(s, err);
  if (st == HERD_OK && walks_the_route(&s->sc) && herd_geometry_any(&s->sc) && !s->steer_ctx.dog.route)
    st = herd_fail(err, HERD_E_MEMORY, "out of memory for the dogs' route among the obstacles");
  if (st != HERD_OK) {
    herd_sim_destroy(s);
    return st;
  }
  place_steering(s);
  *out = s;
  return HERD_OK;
}

/* The observation of the flock as it is now: the backend's reduction, then its groups when
 * they are observed. */
static herd_status observe(herd_sim *s, herd_observation *obs, herd_error *err) {
  herd_status st = s->ops->reduce(s->backend, steering_input(s), obs, err);
  if (st == HERD_OK && s->groups_on) st = s->ops->groups(s->backend, &s->groups, obs, err);
  return st;
}

/* Takes the first observation (done by the caller) as the start: a flock placed in the goal
 * has succeeded already. */
static void take_first_observation(herd_sim *s, const herd_observation *obs) {
  s->obs = *obs;
  herd_goal_observe(&s->goal, &s->obs);
  if (herd_goal_reached(&s->goal, &s->obs)) s->outcome = HERD_SUCCEEDED;
}

/* A new flock, placed and observed. */
static herd_status start_flock(herd_sim *s, herd_error *err) {
  herd_status st = place_flock(s, err);
  herd_observation first;
  if (st == HERD_OK) st = observe(s, &first, err);
  if (st == HERD_OK) take_first_observation(s, &first);
  return st;
}

static herd_status restore_saved(herd_sim *s, const herd_sim_saved *saved, herd_error *err);

/* A simulation of desc's scenario: a new flock, or the saved state when `saved`. */
static herd_status sim_start(const herd_sim_desc *desc, const herd_sim_saved *saved, herd_sim **out, herd_error *err) {
  herd_sim *s;
  herd_status st = sim_new(desc, &s, err);
  if (st != HERD_OK) return st;
  st = start_backend(&s, 1, false, desc, &s->ops, &s->backend, s->backend_note, sizeof s->backend_note, err);
  if (st == HERD_OK) st = saved ? restore_saved(s, saved, err) : start_flock(s, err);
  if (st != HERD_OK) {
    herd_sim_destroy(s);
    return st;
  }
  /* A step may be enqueued before the last one's observation is back only where nothing that
   * step reads comes from that observation on the host: no steering agent moves on it, no
   * groups are observed, no renderer draws the shared state in between. */
  s->run_ahead = !desc->lockstep && s->ops->reduce_async && s->steering_count == 0 && !s->groups_on &&
                 !s->ops->shares_gl(s->backend);
  s->profile = desc->profile;
  *out = s;
  return HERD_OK;
}

herd_status herd_sim_create(const herd_sim_desc *desc, herd_sim **out, herd_error *err) {
  return sim_start(desc, NULL, out, err);
}

/* Abandons the step run ahead, so that the state is the one observed (before any read). The
 * flock goes back as that step found it, and a step's sort of it is stable, so the steps
 * after are as if it had never run. */
static herd_status settle(herd_sim *s, herd_error *err) {
  if (!s->ahead) return HERD_OK;
  s->ahead = false;
  return s->ops->cancel_step(s->backend, err);
}

bool herd_sim_route_waypoint(const herd_sim *s, const float from[2], float ahead_m, float out[2]) {
  return s->steer_ctx.dog.route && herd_route_waypoint(s->steer_ctx.dog.route, from, ahead_m, out);
}

bool herd_sim_flock_waypoint(const herd_sim *s, float out[2]) {
  return herd_steer_flock_waypoint(&s->steer_ctx, &s->obs, out);
}

void herd_sim_destroy(herd_sim *s) {
  if (!s) return;
  if (s->backend && !s->in_batch) s->ops->destroy(s->backend);
  herd_steer_context_free(&s->steer_ctx);
  free(s->env);
  free(s);
}

/* Every steering agent moves on the last observation: its strategy, or the user's aim.
 * `start`: the steering agents as the step began, which each strategy may read of the others. */
static void move_steering(herd_sim *s, const herd_steering_state *start) {
  s->steer_ctx.obs = &s->obs;
  s->steer_ctx.step = s->step;
  s->steer_ctx.agents = s->steering;
  s->steer_ctx.start = start;
  s->steer_ctx.agent_count = s->steering_count;
  for (uint32_t d = 0; d < s->steering_count; ++d) {
    herd_steering_state *a = &s->steering[d];
    float was[3] = {a->pos[0], a->pos[1], a->pos[2]};
    if (s->manual[d]) {
      float speed = a->strategy == HERD_STRATEGY_DOG ? s->sc.dogs.speed_m_per_step : a->speed_m_per_step;
      herd_steer_toward(&s->sc, a, s->manual_aim[d], speed);
      a->mode = HERD_MODE_MANUAL;
    } else {
      herd_strategies[a->strategy](&s->steer_ctx, d, a);
    }
    for (uint32_t k = 0; k < 3; ++k) {
      float moved = a->pos[k] - was[k];
      a->velocity[k] =
          k < s->sc.world.dims && s->sc.world.wrap[k] ? herd_wrap_offset(moved, s->sc.world.size_m[k]) : moved;
    }
  }
  s->steer_ctx.start = NULL; /* the step's copy is the caller's */
  publish_steering(s);
}

/* What a step keeps between its parts: the steering agents before it (to undo it), and
 * what the backend's step is given. */
typedef struct step_plan {
  herd_steering_state before[HERD_MAX_STEERING];
  float unmoved[HERD_STEER_FLOATS * HERD_MAX_STEERING];
  herd_steering_input seen; /* the steering agents as the flock sees them */
  float centroid[3];        /* the flock's, before the step */
} step_plan;

/* The step's first part: the steering agents move on the last observation. */
static void begin_step(herd_sim *s, step_plan *p) {
  memcpy(p->before, s->steering, sizeof p->before);
  memcpy(p->unmoved, s->steer_pos, sizeof p->unmoved);
  double started = s->profile ? herd_clock_s() : 0;
  move_steering(s, p->before);
  if (s->profile) s->steer_s += herd_clock_s() - started, ++s->steers;
  p->seen = steering_input(s);
  if (!s->model->sees_moved_steering) { /* where they were, in the roles they have now (eaten food is gone) */
    for (uint32_t d = 0; d < s->steering_count; ++d)
      p->unmoved[HERD_STEER_FLOATS * d + 3] = s->steer_pos[HERD_STEER_FLOATS * d + 3];
    p->seen.pos = p->unmoved;
  }
  for (int k = 0; k < 3; ++k) p->centroid[k] = (float)s->obs.centroid[k];
}

/* The steering agents as before the step (the backend abandoned it). */
static void undo_step(herd_sim *s, const step_plan *p) {
  memcpy(s->steering, p->before, sizeof p->before);
  publish_steering(s);
}

/* The step's last part, once the flock has moved and `obs` is its observation. */
static void end_step(herd_sim *s, const herd_observation *obs) {
  s->obs = *obs;
  herd_goal_observe(&s->goal, &s->obs);
  ++s->step;
  if (herd_goal_reached(&s->goal, &s->obs))
    s->outcome = HERD_SUCCEEDED;
  else if (s->step >= s->sc.max_steps)
    s->outcome = HERD_STEP_LIMIT;
}

/* The schedule's changes due now, once `step` steps have run, each as herd_sim_set_param makes
 * it (a step run ahead with the old values is abandoned first). */
static herd_status apply_schedule(herd_sim *s, herd_error *err) {
  const herd_schedule *list = &s->sc.schedule;
  for (; s->scheduled < list->count && list->entry[s->scheduled].step <= s->step; ++s->scheduled) {
    const herd_schedule_entry *e = &list->entry[s->scheduled];
    if (e->step < s->step) continue; /* a resumed run's past: the checkpoint's scenario holds it */
    herd_status st = herd_sim_set_param(s, e->path, e->value, err);
    if (st != HERD_OK) {
      char why[sizeof err->message];
      snprintf(why, sizeof why, "%s", err->message);
      return herd_fail(err, st, "schedule[%u] at step %u: %s", s->scheduled, e->step, why);
    }
  }
  return HERD_OK;
}

/* True when the schedule changes a parameter before step `step` runs: no step is run ahead
 * across it. */
static bool schedule_due(const herd_sim *s, uint32_t step) {
  const herd_schedule *list = &s->sc.schedule;
  return s->scheduled < list->count && list->entry[s->scheduled].step <= step;
}

/* herd_sim_step when running ahead: step `step` (enqueued by the last call, or now), then
 * step + 1 enqueued with the centroid the device keeps, and only then the wait for step's
 * observation, while the device works on step + 1. A stop found in that observation (the
 * goal reached) cancels step + 1: the result is as without running ahead. */
static herd_status step_ahead(herd_sim *s, herd_error *err) {
  herd_status st = HERD_OK;
  herd_steering_input none = steering_input(s);
  if (!s->ahead) {
    step_plan plan;
    begin_step(s, &plan);
    st = s->ops->step(s->backend, plan.seen, plan.centroid, s->step, err);
    if (st == HERD_E_INTERRUPTED) return herd_fail(err, HERD_E_INTERRUPTED, "interrupted during step %u", s->step);
    if (st == HERD_OK) st = s->ops->reduce_async(s->backend, none, s->slot, err);
    if (st != HERD_OK) return st;
  }
  s->ahead = false;
  bool next = s->step + 1 < s->sc.max_steps && !schedule_due(s, s->step + 1);
  if (next) {
    st = s->ops->step(s->backend, none, NULL, s->step + 1, err);
    if (st == HERD_OK) st = s->ops->reduce_async(s->backend, none, 1 - s->slot, err);
    /* Interrupted: that step is undone already; this one completes, the next call stops. */
    if (st == HERD_E_INTERRUPTED) next = false, st = HERD_OK;
    if (st != HERD_OK) return st;
  }
  herd_observation obs;
  st = s->ops->reduce_wait(s->backend, s->slot, &obs, err);
  if (st != HERD_OK) return st;
  end_step(s, &obs);
  s->slot = 1 - s->slot;
  s->ahead = next;
  return s->outcome == HERD_RUNNING ? HERD_OK : settle(s, err);
}

herd_status herd_sim_step(herd_sim *s, herd_error *err) {
  if (s->outcome != HERD_RUNNING) return HERD_OK;
  if (herd_stop_raised(s->stop)) {
    herd_status st = settle(s, err);
    return st != HERD_OK ? st : herd_fail(err, HERD_E_INTERRUPTED, "interrupted before step %u", s->step);
  }
  herd_status due = apply_schedule(s, err);
  if (due != HERD_OK) return due;
  if (s->run_ahead) return step_ahead(s, err);
  step_plan plan;
  begin_step(s, &plan);
  herd_status st = s->ops->step(s->backend, plan.seen, plan.centroid, s->step, err);
  if (st == HERD_E_INTERRUPTED) { /* the flock is as before the step: so are the steering agents */
    undo_step(s, &plan);
    return herd_fail(err, HERD_E_INTERRUPTED, "interrupted during step %u", s->step);
  }
  herd_observation obs;
  if (st == HERD_OK) st = observe(s, &obs, err);
  if (st != HERD_OK) return st;
  end_step(s, &obs);
  return HERD_OK;
}

/* The optional parts the steering agents read: every part but the sectors (their strategies
 * are given the whole observation, and Strömbom's and Lien's read the farthest agent), and the
 * sectors where a strategy reads them (herd_steer_reads_sectors). */
static uint32_t steering_reads(const herd_sim *s) {
  uint32_t parts = s->steering_count ? HERD_OBSERVE_ALL & ~HERD_OBSERVE_SECTORS : 0u;
  for (uint32_t d = 0; d < s->steering_count; ++d)
    if (herd_steer_reads_sectors(&s->sc, (herd_strategy)s->steering[d].strategy)) parts |= HERD_OBSERVE_SECTORS;
  return parts;
}

/* What the backend is to leave out: what the user did, but for what the steering agents read.
 * A batch's worlds share their backend: all. */
static void tell_observed(herd_sim *s, uint32_t unobserved) {
  if (s->in_batch || !s->ops->set_observed) return;
  unobserved &= ~steering_reads(s);
  s->ops->set_observed(s->backend, HERD_OBSERVE_ALL & ~unobserved);
}

void herd_sim_set_observed(herd_sim *s, uint32_t parts) {
  s->unobserved = HERD_OBSERVE_ALL & ~parts;
  tell_observed(s, s->unobserved);
}

/* The missing parts from a reduction of the flock as it is (the same state and steering agents
 * as the step's own: the same bits), through the goal's adjustment as the step's went. */
herd_status herd_sim_observe_now(herd_sim *s, herd_error *err) {
  if (!(s->obs.missing & HERD_OBSERVE_ALL)) return HERD_OK;
  herd_status st = settle(s, err);
  if (st != HERD_OK) return st;
  herd_observation full;
  tell_observed(s, 0u);
  st = s->ops->reduce(s->backend, steering_input(s), &full, err);
  tell_observed(s, s->unobserved);
  if (st != HERD_OK) return st;
  herd_goal_observe(&s->goal, &full);
  herd_observation_fill_in(&s->obs, &full);
  return HERD_OK;
}

uint32_t herd_sim_step_index(const herd_sim *s) { return s->step; }
herd_outcome herd_sim_outcome(const herd_sim *s) { return s->outcome; }
const herd_observation *herd_sim_observation(const herd_sim *s) { return &s->obs; }
uint32_t herd_sim_steering_count(const herd_sim *s) { return s->steering_count; }
const herd_steering_state *herd_sim_steering(const herd_sim *s, uint32_t index) {
  return index < s->steering_count ? &s->steering[index] : NULL;
}

herd_status herd_sim_map_groups(herd_sim *s, const uint32_t **group, herd_error *err) {
  *group = NULL;
  if (!s->groups_on) return HERD_OK;
  if (s->in_batch)
    return herd_fail(err, HERD_E_INPUT, "herd_sim_map_groups: world %u of a batch has no map of its groups", s->world);
  return s->ops->map_groups(s->backend, group, err);
}

const char *herd_steering_mode_name(herd_steering_mode mode) {
  switch (mode) {
    case HERD_MODE_COLLECT: return "collect";
    case HERD_MODE_DRIVE: return "drive";
    case HERD_MODE_WAIT: return "wait";
    case HERD_MODE_MANUAL: return "manual";
    case HERD_MODE_CRUISE: return "cruise";
    case HERD_MODE_PURSUE: return "pursue";
    case HERD_MODE_IDLE: return "idle";
    case HERD_MODE_FOOD: return "food";
    case HERD_MODE_FOOD_BEST: return "best";
    case HERD_MODE_APPROACH: return "approach";
    case HERD_MODE_STEER: return "steer";
    case HERD_MODE_SIDE: return "side";
    case HERD_MODE_TURN: return "turn";
    case HERD_MODE_STOP: return "stop";
    case HERD_MODE_MERGE: return "merge";
    case HERD_MODE_HOLD: return "hold";
    case HERD_MODE_EATEN: return "eaten";
  }
  return "?";
}

/* The backend's layout (float2 or float4 per agent) into world.dims floats per agent. */
static void compact(float *data, uint32_t n, uint32_t dims) {
  if (dims != 3) return;
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t k = 0; k < 3; ++k) data[3 * i + k] = data[4 * i + k];
}

/* The flock in id order, device layout. */
static herd_status read_raw(herd_sim *s, float *pos, float *vel, herd_error *err) {
  return s->in_batch ? s->ops->read_world(s->backend, s->world, pos, vel, err)
                     : s->ops->read_agents(s->backend, pos, vel, err);
}

herd_status herd_sim_read_flock(herd_sim *s, float *pos, float *vel, herd_error *err) {
  uint32_t n = s->sc.flock.count, dims = s->sc.world.dims;
  herd_status settled = settle(s, err);
  if (settled != HERD_OK) return settled;
  if (dims == 2) return read_raw(s, pos, vel, err);
  /* 3D: the backend writes float4 per agent, one more than the caller's room. */
  float *p = pos ? malloc((size_t)n * 4 * sizeof *p) : NULL, *v = vel ? malloc((size_t)n * 4 * sizeof *v) : NULL;
  herd_status st = (pos && !p) || (vel && !v) ? herd_fail(err, HERD_E_MEMORY, "out of memory reading the flock")
                                              : read_raw(s, p, v, err);
  if (st == HERD_OK && p) compact(p, n, 3), memcpy(pos, p, (size_t)n * 3 * sizeof *p);
  if (st == HERD_OK && v) compact(v, n, 3), memcpy(vel, v, (size_t)n * 3 * sizeof *v);
  free(p);
  free(v);
  return st;
}

size_t herd_sim_memory_bytes(const herd_sim *s) { return s->ops->memory_bytes(s->backend); }

const char *herd_sim_backend(const herd_sim *s) { return s->ops->name; }

herd_status herd_sim_map_state(herd_sim *s, const float **pos, const float **vel, const uint32_t **agent,
                               herd_error *err) {
  herd_status st = settle(s, err);
  return st == HERD_OK ? s->ops->map_state(s->backend, pos, vel, agent, err) : st;
}

bool herd_sim_shares_gl(const herd_sim *s) { return s->ops->shares_gl(s->backend); }

/* "FN: WHAT 99: this simulation has 1 (0..0)" for an index past the `count` there are. */
static herd_status check_index(const char *fn, const char *what, uint32_t index, uint32_t count, herd_error *err) {
  if (index < count) return HERD_OK;
  if (count == 0) return herd_fail(err, HERD_E_INPUT, "%s: %s %u: this simulation has none", fn, what, index);
  return herd_fail(err, HERD_E_INPUT, "%s: %s %u: this simulation has %u (0..%u)", fn, what, index, count, count - 1u);
}

static herd_status check_steering_index(const herd_sim *s, const char *fn, uint32_t index, herd_error *err) {
  return check_index(fn, "steering agent", index, s->steering_count, err);
}

/* A point of world.dims coordinates given by the user (`what`: "aim", "position"): not NULL,
 * each coordinate a finite number. */
static herd_status check_point(const herd_sim *s, const char *fn, const char *what, const float *v, herd_error *err) {
  uint32_t dims = s->sc.world.dims;
  if (!v) return herd_fail(err, HERD_E_INPUT, "%s: no %s given (NULL): it takes %u numbers", fn, what, dims);
  for (uint32_t k = 0; k < dims; ++k)
    if (!isfinite(v[k]))
      return herd_fail(err, HERD_E_INPUT, "%s: %s[%u] (%c) = %g is not a finite number", fn, what, k, "xyz"[k],
                       (double)v[k]);
  return HERD_OK;
}

herd_status herd_sim_explain(herd_sim *s, uint32_t id, herd_error *err) {
  if (id != UINT32_MAX) {
    herd_status st = check_index("herd_sim_explain", "flock agent", id, s->sc.flock.count, err);
    if (st != HERD_OK) return st;
  }
  if (!s->ops->explain || s->in_batch)
    return herd_fail(err, HERD_E_INPUT, "terms: n/a on the %s backend", s->ops->name);
  return s->ops->explain(s->backend, id, err);
}

/* The radii the model gives a viewer (the backends' table: kernels/models/steps.h,
 * HERD_MARKS_MODELS), from the parameters in force and the last observation. */
herd_model_marks herd_sim_model_marks(const herd_sim *s) {
  herd_model_marks_out m = {NAN, NAN, 0, NAN};
  if (*s->exec->marks) (*s->exec->marks)(s->sc.params.bytes, s->obs.count, s->obs.delivered, &m);
  return (herd_model_marks){m.cohesion_m, m.reaction_m, m.nearest_n, m.interaction_m};
}

bool herd_sim_update_terms(const herd_sim *s, herd_update_terms *out) {
  return s->ops->update_terms && !s->in_batch && s->ops->update_terms(s->backend, out);
}

/* Steering agent `index` heads for `aim` (checked) from the next step on. */
static void take_aim(herd_sim *s, uint32_t index, const float *aim) {
  s->manual[index] = true;
  for (uint32_t k = 0; k < 3; ++k) s->manual_aim[index][k] = k < s->sc.world.dims ? aim[k] : 0.0f;
}

herd_status herd_sim_steer(herd_sim *s, uint32_t index, const float *aim, herd_error *err) {
  herd_status st = check_steering_index(s, "herd_sim_steer", index, err);
  if (st == HERD_OK) st = check_point(s, "herd_sim_steer", "aim", aim, err);
  if (st == HERD_OK) take_aim(s, index, aim);
  return st;
}

herd_status herd_sim_release(herd_sim *s, uint32_t index, herd_error *err) {
  herd_status st = check_steering_index(s, "herd_sim_release", index, err);
  if (st == HERD_OK) s->manual[index] = false;
  return st;
}

/* A program places a steering agent (herd.h, "For programs"). A step run
 * ahead is abandoned first, so the next step starts from the new place. */
herd_status herd_sim_place_steering(herd_sim *s, uint32_t index, const float *pos, herd_error *err) {
  herd_status st = check_steering_index(s, "herd_sim_place_steering", index, err);
  if (st == HERD_OK) st = check_point(s, "herd_sim_place_steering", "position", pos, err);
  if (st != HERD_OK) return st;
  for (uint32_t k = 0; k < s->sc.world.dims; ++k)
    if (!s->sc.world.wrap[k] && (pos[k] < 0.0f || pos[k] > s->sc.world.size_m[k]))
      return herd_fail(err, HERD_E_INPUT,
                       "herd_sim_place_steering: position[%u] (%c) = %g is outside the world (0 to %g m)", k, "xyz"[k],
                       (double)pos[k], (double)s -> sc.world.size_m[k]);
  st = settle(s, err);
  if (st != HERD_OK) return st;
  herd_steering_state *a = &s->steering[index];
  for (uint32_t k = 0; k < 3; ++k) a->pos[k] = k < s->sc.world.dims ? pos[k] : 0.0f, a->velocity[k] = 0.0f;
  herd_steer_wrap(&s->sc, a->pos);
  publish_steering(s);
  return HERD_OK;
}

const herd_scenario *herd_sim_scenario(const herd_sim *s) { return &s->sc; }

/* ---- Parameters changed during the run ------------------------------------------ */

herd_status herd_sim_set_param(herd_sim *s, const char *path, double value, herd_error *err) {
  herd_scenario *next = malloc(sizeof *next);
  if (!next) return herd_fail(err, HERD_E_MEMORY, "out of memory changing %s", path ? path : "a parameter");
  *next = s->sc;
  herd_status st = scenario_set_live(next, path, value, err);
  if (st == HERD_OK) st = settle(s, err); /* a step run ahead was enqueued with the old values */
  if (st == HERD_OK && !(s->in_batch ? s->ops->set_world_params != NULL : s->ops->set_params != NULL))
    st = herd_fail(err, HERD_E_INPUT, "herd_sim_set_param: the %s backend cannot change parameters during a run",
                   s->ops->name);
  if (st == HERD_OK)
    st = s->in_batch ? s->ops->set_world_params(s->backend, s->world, next->params.bytes, err)
                     : s->ops->set_params(s->backend, next->params.bytes, err);
  if (st == HERD_OK) s->sc = *next;
  free(next);
  if (st != HERD_OK) return st;
  herd_steer_context_refresh(&s->steer_ctx, &s->sc);
  for (uint32_t d = 0; d < s->steering_count; ++d)
    if (s->steering[d].strategy == HERD_STRATEGY_DOG) s->steering[d].speed_m_per_step = s->sc.dogs.speed_m_per_step;
  return HERD_OK;
}

uint32_t herd_sim_schedule_made(const herd_sim *s) { return s->scheduled; }

const char *herd_sim_param_name(const herd_sim *s, uint32_t index, bool *whole) {
  return scenario_live_name(s->sc.model, index, whole);
}
const char *herd_sim_device(const herd_sim *s) { return s->ops->device_name(s->backend); }
const char *herd_sim_backend_note(const herd_sim *s) { return s->backend_note; }
int herd_sim_threads(const herd_sim *s) { return s->ops->threads ? s->ops->threads(s->backend) : 0; }

herd_status herd_sim_profile(herd_sim *s, herd_profile *out, herd_error *err) {
  herd_status st = s->ops->profile(s->backend, out, err);
  if (st == HERD_OK) out->seconds[HERD_STAGE_STEER] = s->steer_s, out->calls[HERD_STAGE_STEER] = s->steers;
  return st;
}

bool herd_sim_mpi_stats(herd_sim *s, herd_mpi_stats *out) {
  return s->ops->mpi_stats && !s->in_batch && s->ops->mpi_stats(s->backend, out);
}

const char *herd_stage_name(herd_stage stage) {
  static const char *const names[HERD_STAGE_COUNT] = {"bin",    "sort",      "ranges", "reorder", "step",
                                                      "reduce", "read-back", "groups", "steer"};
  return stage < HERD_STAGE_COUNT ? names[stage] : "?";
}

/* ---- Checkpoints (src/sim/checkpoint.c) -------------------------------------------------- */

herd_status herd_sim_save_state(herd_sim *s, herd_sim_saved *out, herd_error *err) {
  if (s->in_batch) return herd_fail(err, HERD_E_INPUT, "world %u of a batch cannot be checkpointed", s->world);
  memset(out, 0, sizeof *out);
  herd_status st = herd_sim_map_state(s, &out->pos, &out->vel, &out->agent, err);
  if (st != HERD_OK) return st;
  snprintf(out->backend, sizeof out->backend, "%s", s->ops->name);
  out->step = s->step;
  out->outcome = (uint32_t)s->outcome;
  out->obs = s->obs;
  out->steering_count = s->steering_count;
  memcpy(out->steering, s->steering, sizeof out->steering);
  for (uint32_t d = 0; d < HERD_MAX_STEERING; ++d) out->manual[d] = s->manual[d];
  memcpy(out->manual_aim, s->manual_aim, sizeof out->manual_aim);
  s->ops->box_history(s->backend, &out->boxes);
  out->agents = s->sc.flock.count;
  out->stride = herd_state_stride(s->sc.world.dims);
  return HERD_OK;
}

/* Along a wrapping axis every agent lies in [0, size) (the grid's queries rely on it: grid.h,
 * herd_run_wrap); a run keeps it, so a checkpoint's flock beyond it was not written by herd. */
static herd_status check_saved_within_period(const herd_sim *s, const herd_sim_saved *saved, herd_error *err) {
  for (uint32_t i = 0; i < saved->agents; ++i)
    for (uint32_t k = 0; k < s->sc.world.dims; ++k) {
      float x = saved->pos[(size_t)i * saved->stride + k], size = s->sc.world.size_m[k];
      if (s->sc.world.wrap[k] && !(x >= 0.0f && x < size))
        return herd_fail(err, HERD_E_INPUT,
                         "the checkpoint's agent %u (in the backend's order) lies at %g m along axis %u, outside "
                         "[0, %g) m, where its scenario's world wraps: the checkpoint is damaged",
                         i, (double)x, k, (double)size);
    }
  return HERD_OK;
}

/* The saved state into a sim just made of its scenario, on the backend that saved it. */
static herd_status restore_saved(herd_sim *s, const herd_sim_saved *saved, herd_error *err) {
  if (!s->ops->restore) return herd_fail(err, HERD_E_INPUT, "the %s backend cannot resume a checkpoint", s->ops->name);
  if (strcmp(saved->backend, s->ops->name) != 0)
    return herd_fail(err, HERD_E_INPUT,
                     "the checkpoint was written by the %s backend and cannot be resumed on the %s backend (the "
                     "flock's order and sums are the backend's own: the run would not continue as it would have); "
                     "resume it with --backend %s",
                     saved->backend, s->ops->name, saved->backend);
  if (saved->agents != s->sc.flock.count || saved->stride != herd_state_stride(s->sc.world.dims) ||
      saved->steering_count != s->steering_count)
    return herd_fail(err, HERD_E_INPUT,
                     "the checkpoint holds %u agents and %u steering agents; its scenario has %u and %u", saved->agents,
                     saved->steering_count, s->sc.flock.count, s->steering_count);
  for (uint32_t d = 0; d < s->steering_count; ++d)
    if (saved->steering[d].strategy != s->steering[d].strategy)
      return herd_fail(err, HERD_E_INPUT, "the checkpoint's steering agent %u is a %s; its scenario's, a %s", d,
                       herd_strategy_name(saved->steering[d].strategy), herd_strategy_name(s->steering[d].strategy));
  herd_status st = check_saved_within_period(s, saved, err);
  if (st == HERD_OK)
    st = s->ops->restore(s->backend, saved->agents, saved->pos, saved->vel, saved->agent, &saved->boxes, saved->step,
                         err);
  if (st != HERD_OK) return st;
  s->step = saved->step;
  s->outcome = (herd_outcome)saved->outcome;
  s->obs = saved->obs;
  s->obs.missing &= HERD_OBSERVE_ALL; /* bits no herd sets (a file made by hand) mean nothing */
  memcpy(s->steering, saved->steering, sizeof s->steering);
  for (uint32_t d = 0; d < HERD_MAX_STEERING; ++d) s->manual[d] = saved->manual[d] != 0;
  memcpy(s->manual_aim, saved->manual_aim, sizeof s->manual_aim);
  publish_steering(s);
  return HERD_OK;
}

herd_status herd_sim_create_saved(const herd_sim_desc *desc, const herd_sim_saved *saved, herd_sim **out,
                                  herd_error *err) {
  return sim_start(desc, saved, out, err);
}

/* ---- Batches ----------------------------------------------------------------------------- */

struct herd_batch {
  const herd_backend_ops *ops;
  herd_backend *backend;
  uint32_t count;
  herd_sim **worlds;
  step_plan *plans;
  herd_world_input *in;
  herd_observation *obs;
  const volatile sig_atomic_t *stop;
};

void herd_batch_destroy(herd_batch *b) {
  if (!b) return;
  for (uint32_t w = 0; w < b->count; ++w) herd_sim_destroy(b->worlds ? b->worlds[w] : NULL);
  if (b->backend) b->ops->destroy(b->backend);
  free(b->worlds), free(b->plans), free(b->in), free(b->obs);
  free(b);
}

/* Every world's scenario is valid and of world 0's model and dimension. */
static herd_status batch_worlds(herd_batch *b, const herd_sim_desc *descs, herd_error *err) {
  for (uint32_t w = 0; w < b->count; ++w) {
    herd_error why;
    herd_status st = sim_new(&descs[w], &b->worlds[w], &why);
    if (st != HERD_OK) return herd_fail(err, st, "world %u: %s", w, why.message);
    const herd_scenario *first = &b->worlds[0]->sc, *sc = &b->worlds[w]->sc;
    if (sc->model != first->model || sc->world.dims != first->world.dims)
      return herd_fail(err, HERD_E_INPUT,
                       "world %u is %s in %uD, world 0 %s in %uD: a batch holds one model in one dimension", w,
                       herd_model_info_of(sc->model)->name, sc->world.dims, herd_model_info_of(first->model)->name,
                       first->world.dims);
    b->worlds[w]->in_batch = true;
    b->worlds[w]->world = w;
  }
  return HERD_OK;
}

/* A backend whose batches do not find groups refuses worlds that observe them. */
static herd_status batch_groups_supported(const herd_batch *b, herd_error *err) {
  for (uint32_t w = 0; w < b->count && !b->ops->batch_groups; ++w)
    if (b->worlds[w]->groups_on)
      return herd_fail(err, HERD_E_INPUT,
                       "world %u observes the flock's groups (groups.observe = %s), which the %s backend does not "
                       "find in a batch of worlds; run it with --backend cpu, or set groups.observe = never",
                       w, b->worlds[w]->sc.groups.observe == HERD_GROUPS_ALWAYS ? "always" : "with_shepherds",
                       b->ops->name);
  return HERD_OK;
}

herd_status herd_batch_create(const herd_sim_desc *descs, uint32_t count, herd_batch **out, herd_error *err) {
  if (!descs || count == 0) return herd_fail(err, HERD_E_INPUT, "herd_batch_create: no worlds given");
  herd_batch *b = calloc(1, sizeof *b);
  if (b) b->count = count, b->stop = descs[0].stop;
  if (b) b->worlds = calloc(count, sizeof *b->worlds), b->plans = calloc(count, sizeof *b->plans);
  if (b) b->in = calloc(count, sizeof *b->in), b->obs = calloc(count, sizeof *b->obs);
  if (!b || !b->worlds || !b->plans || !b->in || !b->obs) {
    herd_batch_destroy(b);
    return herd_fail(err, HERD_E_MEMORY, "out of memory creating a batch of %u worlds", count);
  }
  char note[700];
  herd_status st = batch_worlds(b, descs, err);
  if (st == HERD_OK)
    st = start_backend(b->worlds, count, true, &descs[0], &b->ops, &b->backend, note, sizeof note, err);
  if (st == HERD_OK) st = batch_groups_supported(b, err);
  for (uint32_t w = 0; w < count && st == HERD_OK; ++w) {
    herd_sim *s = b->worlds[w];
    s->ops = b->ops, s->backend = b->backend;
    snprintf(s->backend_note, sizeof s->backend_note, "%s", note);
    st = place_flock(s, err);
    b->in[w].steer = steering_input(s);
    b->in[w].groups = s->groups_on ? &s->groups : NULL;
  }
  if (st == HERD_OK) st = b->ops->reduce_batch(b->backend, b->in, b->obs, err);
  if (st != HERD_OK) {
    herd_batch_destroy(b);
    return st;
  }
  for (uint32_t w = 0; w < count; ++w) take_first_observation(b->worlds[w], &b->obs[w]);
  *out = b;
  return HERD_OK;
}

herd_status herd_batch_step(herd_batch *b, herd_error *err) {
  if (herd_stop_raised(b->stop)) return herd_fail(err, HERD_E_INTERRUPTED, "interrupted between steps");
  for (uint32_t w = 0; w < b->count; ++w) { /* every world's schedule first: a failure then changes no step */
    herd_status due = b->worlds[w]->outcome == HERD_RUNNING ? apply_schedule(b->worlds[w], err) : HERD_OK;
    if (due != HERD_OK) return due;
  }
  for (uint32_t w = 0; w < b->count; ++w) {
    herd_sim *s = b->worlds[w];
    herd_world_input *in = &b->in[w];
    in->active = s->outcome == HERD_RUNNING;
    in->step = s->step;
    in->steer = steering_input(s);
    if (!in->active) continue;
    begin_step(s, &b->plans[w]);
    in->steer = b->plans[w].seen;
    memcpy(in->centroid, b->plans[w].centroid, sizeof in->centroid);
  }
  herd_status st = b->ops->step_batch(b->backend, b->in, err);
  for (uint32_t w = 0; w < b->count; ++w) b->in[w].steer = steering_input(b->worlds[w]); /* as they are now */
  if (st == HERD_OK) st = b->ops->reduce_batch(b->backend, b->in, b->obs, err);
  for (uint32_t w = 0; w < b->count; ++w) {
    if (!b->in[w].active) continue;
    if (st == HERD_OK)
      end_step(b->worlds[w], &b->obs[w]);
    else
      undo_step(b->worlds[w], &b->plans[w]);
  }
  return st;
}

uint32_t herd_batch_count(const herd_batch *b) { return b->count; }

uint32_t herd_batch_running(const herd_batch *b) {
  uint32_t running = 0;
  for (uint32_t w = 0; w < b->count; ++w) running += b->worlds[w]->outcome == HERD_RUNNING;
  return running;
}

const herd_sim *herd_batch_world(const herd_batch *b, uint32_t w) { return w < b->count ? b->worlds[w] : NULL; }

herd_status herd_batch_read_flock(herd_batch *b, uint32_t w, float *pos, float *vel, herd_error *err) {
  if (w >= b->count)
    return herd_fail(err, HERD_E_INPUT, "herd_batch_read_flock: no world %u (the batch has %u)", w, b->count);
  return herd_sim_read_flock(b->worlds[w], pos, vel, err);
}

/* What of a restarted world's scenario must be as the batch's backend laid the world out
 * (backend_desc): "" when all is, else the first that differs. */
static const char *layout_differs(const herd_sim *was, const herd_sim *now) {
  const herd_scenario *a = &was->sc, *b = &now->sc;
  if (a->model != b->model || a->world.dims != b->world.dims) return "the model or world.dims";
  if (a->flock.count != b->flock.count) return "the flock's count";
  if (memcmp(a->world.size_m, b->world.size_m, sizeof a->world.size_m) != 0 ||
      memcmp(a->world.wrap, b->world.wrap, sizeof a->world.wrap) != 0)
    return "world.size_m or world.wrap";
  if (a->target.goal_radius_m != b->target.goal_radius_m ||
      memcmp(a->target.position_m, b->target.position_m, sizeof a->target.position_m) != 0)
    return "the target";
  if (was->steering_count != now->steering_count) return "the number of steering agents";
  if (was->groups_on != now->groups_on) return "groups.observe";
  /* herd_env_info is 4-byte fields alone: no padding to compare */
  if (was->env_floats != now->env_floats || memcmp(&was->env_info, &now->env_info, sizeof was->env_info) != 0 ||
      (was->env_floats && memcmp(was->env, now->env, was->env_floats * sizeof *was->env) != 0))
    return "the obstacles, the path or the food";
  return "";
}

/* The new simulation of world w's restart, checked against the batch's layout of the world. */
static herd_status restart_sim(const herd_batch *b, uint32_t w, const herd_scenario *sc, herd_sim **out,
                               herd_error *err) {
  if (w >= b->count)
    return herd_fail(err, HERD_E_INPUT, "herd_batch_restart: no world %u (the batch has %u)", w, b->count);
  herd_sim_desc desc = {.scenario = sc, .stop = b->stop};
  herd_error why;
  herd_status st = sim_new(&desc, out, &why);
  if (st != HERD_OK) return herd_fail(err, st, "herd_batch_restart: world %u: %s", w, why.message);
  const char *differs = layout_differs(b->worlds[w], *out);
  if (!*differs) return HERD_OK;
  herd_sim_destroy(*out);
  *out = NULL;
  return herd_fail(err, HERD_E_INPUT,
                   "herd_batch_restart: world %u: %s differs from the scenario the world was made with; a restart may "
                   "change the seed, max_steps, the schedule and the parameters herd_sim_set_param changes",
                   w, differs);
}

/* World w becomes `fresh`, its flock placed in the batch's backend. */
static herd_status restart_world(herd_batch *b, uint32_t w, herd_sim *fresh, herd_error *err) {
  herd_sim *was = b->worlds[w];
  fresh->in_batch = true, fresh->world = w, fresh->ops = b->ops, fresh->backend = b->backend;
  memcpy(fresh->backend_note, was->backend_note, sizeof fresh->backend_note);
  b->worlds[w] = fresh;
  herd_sim_destroy(was);
  herd_status st = b->ops->set_world_params(b->backend, w, fresh->sc.params.bytes, err);
  if (st == HERD_OK) st = place_flock(fresh, err);
  b->in[w] = (herd_world_input){.steer = steering_input(fresh), .groups = fresh->groups_on ? &fresh->groups : NULL};
  return st;
}

herd_status herd_batch_restart(herd_batch *b, const uint32_t *worlds, const herd_scenario *const *scenarios, uint32_t n,
                               herd_error *err) {
  if (n && (!worlds || !scenarios)) return herd_fail(err, HERD_E_INPUT, "herd_batch_restart: no worlds given (NULL)");
  herd_sim **fresh = calloc(n ? n : 1, sizeof *fresh);
  if (!fresh) return herd_fail(err, HERD_E_MEMORY, "out of memory restarting %u worlds", n);
  herd_status st = HERD_OK; /* every world checked before any changes */
  for (uint32_t k = 0; k < n && st == HERD_OK; ++k) {
    for (uint32_t j = 0; j < k && st == HERD_OK; ++j)
      if (worlds[j] == worlds[k])
        st = herd_fail(err, HERD_E_INPUT, "herd_batch_restart: world %u given twice", worlds[k]);
    if (st == HERD_OK) st = restart_sim(b, worlds[k], scenarios[k], &fresh[k], err);
  }
  for (uint32_t k = 0; k < n && st == HERD_OK; ++k) st = restart_world(b, worlds[k], fresh[k], err), fresh[k] = NULL;
  for (uint32_t k = 0; k < n; ++k) herd_sim_destroy(fresh[k]);
  free(fresh);
  /* The first observations (the others' are made again from the same state: the same) */
  if (st == HERD_OK && n) st = b->ops->reduce_batch(b->backend, b->in, b->obs, err);
  for (uint32_t k = 0; k < n && st == HERD_OK; ++k) take_first_observation(b->worlds[worlds[k]], &b->obs[worlds[k]]);
  return st;
}

herd_status herd_batch_steer(herd_batch *b, const uint32_t *agents, uint32_t agent_count, const float *aims,
                             herd_error *err) {
  if (agent_count && (!agents || !aims))
    return herd_fail(err, HERD_E_INPUT, "herd_batch_steer: no agents or aims given (NULL)");
  uint32_t dims = b->worlds[0]->sc.world.dims;
  for (uint32_t w = 0; w < b->count; ++w) /* every aim checked before any is taken */
    for (uint32_t j = 0; j < agent_count; ++j) {
      herd_error why;
      herd_status st = check_steering_index(b->worlds[w], "herd_batch_steer", agents[j], &why);
      if (st == HERD_OK)
        st = check_point(b->worlds[w], "aim", "its aim", aims + ((size_t)w * agent_count + j) * dims, &why);
      if (st != HERD_OK) return herd_fail(err, st, "world %u, steering agent %u: %s", w, agents[j], why.message);
    }
  for (uint32_t w = 0; w < b->count; ++w)
    for (uint32_t j = 0; j < agent_count; ++j)
      take_aim(b->worlds[w], agents[j], aims + ((size_t)w * agent_count + j) * dims);
  return HERD_OK;
}

void herd_batch_read_worlds(const herd_batch *b, herd_observation *obs, herd_steering_state *steering, uint32_t *steps,
                            uint32_t *outcomes) {
  for (uint32_t w = 0; w < b->count; ++w) {
    const herd_sim *s = b->worlds[w];
    if (obs) obs[w] = s->obs;
    if (steering) memcpy(steering + (size_t)w * HERD_MAX_STEERING, s->steering, sizeof s->steering);
    if (steps) steps[w] = s->step;
    if (outcomes) outcomes[w] = (uint32_t)s->outcome;
  }
}
