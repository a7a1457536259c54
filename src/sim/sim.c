/* The run loop: owns a backend and the steering agents, and implements the herd_sim API.
 * It knows models and strategies only through their tables. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../backend/backend.h"
#include "../core/error.h"
#include "../steer/steer.h"

/* The step index used to key the random draws of the initial placement: never reached by
 * a run, so placement draws are independent of every step's draws. */
#define SPAWN_STEP 0xFFFFFFFFu

struct herd_sim {
  herd_scenario sc;
  const herd_model_info *model;
  const herd_backend_ops *ops;
  herd_backend *backend;
  char backend_note[700];
  uint32_t steering_count;
  herd_steering_state steering[HERD_MAX_STEERING];
  float steer_pos[4 * HERD_MAX_STEERING]; /* where they are: float4 per agent, for the backend */
  herd_steer_context steer_ctx;
  herd_goal goal; /* when the run succeeds */
  herd_observation obs;
  uint32_t step;
  herd_outcome outcome;
  bool manual[HERD_MAX_STEERING]; /* steered by the user toward manual_aim */
  float manual_aim[HERD_MAX_STEERING][3];
  const volatile sig_atomic_t *stop;
};

static herd_steering_input steering_input(const herd_sim *s) {
  return (herd_steering_input){s->steer_pos, s->steering_count};
}

static void publish_steering(herd_sim *s) {
  for (uint32_t d = 0; d < s->steering_count; ++d) {
    for (int k = 0; k < 3; ++k) s->steer_pos[4 * d + k] = s->steering[d].pos[k];
    s->steer_pos[4 * d + 3] = 0.0f;
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
  uint32_t dogs = sc->model == HERD_MODEL_STROMBOM ? sc->dogs.count : 0u;
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
    herd_store_vec(pos, i, dims, herd_world_wrap(&world, p));
    herd_store_vec(vel, i, dims, s->model->initial_velocity(sc->params.bytes, a, b, dims));
  }
  herd_status st = s->ops->upload(s->backend, pos, vel, err);
  free(pos);
  free(vel);
  return st;
}

/* The backend's description of this scenario. */
static herd_backend_desc backend_desc(const herd_sim *s, const herd_sim_desc *desc, const char *device) {
  const herd_scenario *sc = &s->sc;
  herd_backend_desc bd = {
      .count = sc->flock.count,
      .model = s->model,
      .params = sc->params.bytes,
      .dims = sc->world.dims,
      .goal_radius_m = sc->target.goal_radius_m,
      .seed = sc->seed,
      .threads = desc->threads,
      .device = device,
      .profile = desc->profile,
      .gl_share = desc->gl_share,
      .stop = desc->stop,
  };
  for (int k = 0; k < 3; ++k) {
    bd.world_size_m[k] = sc->world.size_m[k];
    bd.world_wrap[k] = sc->world.wrap[k];
    bd.goal_m[k] = k < 2 ? sc->target.position_m[k] : 0.0f;
  }
  return bd;
}

/* The observation of the flock as it is now. */
static herd_status observe(herd_sim *s, herd_error *err) {
  herd_status st = s->ops->reduce(s->backend, steering_input(s), &s->obs, err);
  if (st == HERD_OK) herd_goal_observe(&s->goal, &s->obs);
  return st;
}

/* Creates the backend; `auto` hands over to the CPU backend when the device it chose fails. */
static herd_status start_backend(herd_sim *s, const herd_sim_desc *desc, herd_error *err) {
  char device[128];
  herd_status st = herd_backend_choose(desc->backend, desc->device, &s->ops, device, sizeof device, s->backend_note,
                                       sizeof s->backend_note, err);
  if (st != HERD_OK) return st;
  herd_backend_desc bd = backend_desc(s, desc, device);
  st = s->ops->create(&bd, &s->backend, err);
  bool auto_chose = desc->backend && strcmp(desc->backend, "auto") == 0 && !(desc->device && *desc->device);
  if (st == HERD_E_BACKEND && auto_chose && s->ops != &herd_cpu_backend) {
    /* auto promises a run: a device that cannot start (a failed build, say) hands over. */
    snprintf(s->backend_note, sizeof s->backend_note,
             "auto: the OpenCL device failed (%.600s); using the native CPU backend", err->message);
    s->ops = &herd_cpu_backend;
    st = s->ops->create(&bd, &s->backend, err);
  }
  return st;
}

herd_status herd_sim_create(const herd_sim_desc *desc, herd_sim **out, herd_error *err) {
  if (!desc || !desc->scenario) return herd_fail(err, HERD_E_INPUT, "herd_sim_create: no scenario given");
  herd_status valid = herd_scenario_validate(desc->scenario, err);
  if (valid != HERD_OK) return valid;
  herd_sim *s = calloc(1, sizeof *s);
  if (!s) return herd_fail(err, HERD_E_MEMORY, "out of memory creating the simulation");
  s->sc = *desc->scenario;
  s->stop = desc->stop;
  s->model = herd_model_info_of(s->sc.model);
  s->steer_ctx = herd_steer_context_for(&s->sc);
  s->goal = herd_goal_for(&s->sc);
  herd_status st = start_backend(s, desc, err);
  if (st == HERD_OK) {
    place_steering(s);
    st = place_flock(s, err);
  }
  if (st == HERD_OK) st = observe(s, err);
  if (st == HERD_OK && herd_goal_reached(&s->goal, &s->obs)) s->outcome = HERD_SUCCEEDED; /* placed in the goal */
  if (st != HERD_OK) {
    herd_sim_destroy(s);
    return st;
  }
  *out = s;
  return HERD_OK;
}

void herd_sim_destroy(herd_sim *s) {
  if (!s) return;
  if (s->backend) s->ops->destroy(s->backend);
  free(s);
}

/* Every steering agent moves on the last observation: its strategy, or the user's aim. */
static void move_steering(herd_sim *s) {
  s->steer_ctx.obs = &s->obs;
  s->steer_ctx.step = s->step;
  for (uint32_t d = 0; d < s->steering_count; ++d) {
    herd_steering_state *a = &s->steering[d];
    if (s->manual[d]) {
      float speed = a->strategy == HERD_STRATEGY_DOG ? s->sc.dogs.speed_m_per_step : a->speed_m_per_step;
      herd_steer_toward(&s->sc, a, s->manual_aim[d], speed);
      a->mode = HERD_MODE_MANUAL;
    } else {
      herd_strategies[a->strategy](&s->steer_ctx, d, a);
    }
  }
  publish_steering(s);
}

herd_status herd_sim_step(herd_sim *s, herd_error *err) {
  if (s->outcome != HERD_RUNNING) return HERD_OK;
  if (herd_stop_raised(s->stop)) return herd_fail(err, HERD_E_INTERRUPTED, "interrupted before step %u", s->step);
  herd_steering_state before[HERD_MAX_STEERING];
  memcpy(before, s->steering, sizeof before);
  float unmoved[4 * HERD_MAX_STEERING];
  memcpy(unmoved, s->steer_pos, sizeof unmoved);
  move_steering(s);
  herd_steering_input seen = steering_input(s);
  if (!s->model->sees_moved_steering) seen.pos = unmoved;
  float centroid[3] = {(float)s->obs.centroid[0], (float)s->obs.centroid[1], (float)s->obs.centroid[2]};
  herd_status st = s->ops->step(s->backend, seen, centroid, s->step, err);
  if (st == HERD_E_INTERRUPTED) { /* the flock is as before the step: so are the steering agents */
    memcpy(s->steering, before, sizeof before);
    publish_steering(s);
    return herd_fail(err, HERD_E_INTERRUPTED, "interrupted during step %u", s->step);
  }
  if (st == HERD_OK) st = observe(s, err);
  if (st != HERD_OK) return st;
  ++s->step;
  if (herd_goal_reached(&s->goal, &s->obs))
    s->outcome = HERD_SUCCEEDED;
  else if (s->step >= s->sc.max_steps)
    s->outcome = HERD_STEP_LIMIT;
  return HERD_OK;
}

uint32_t herd_sim_step_index(const herd_sim *s) { return s->step; }
herd_outcome herd_sim_outcome(const herd_sim *s) { return s->outcome; }
const herd_observation *herd_sim_observation(const herd_sim *s) { return &s->obs; }
uint32_t herd_sim_steering_count(const herd_sim *s) { return s->steering_count; }
const herd_steering_state *herd_sim_steering(const herd_sim *s, uint32_t index) {
  return index < s->steering_count ? &s->steering[index] : NULL;
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
  }
  return "?";
}

/* The backend's layout (float2 or float4 per agent) into world.dims floats per agent. */
static void compact(float *data, uint32_t n, uint32_t dims) {
  if (dims != 3) return;
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t k = 0; k < 3; ++k) data[3 * i + k] = data[4 * i + k];
}

herd_status herd_sim_read_flock(herd_sim *s, float *pos, float *vel, herd_error *err) {
  uint32_t n = s->sc.flock.count, dims = s->sc.world.dims;
  if (dims == 2) return s->ops->read_agents(s->backend, pos, vel, err);
  /* 3D: the backend writes float4 per agent, one more than the caller's room. */
  float *p = pos ? malloc((size_t)n * 4 * sizeof *p) : NULL, *v = vel ? malloc((size_t)n * 4 * sizeof *v) : NULL;
  herd_status st = (pos && !p) || (vel && !v) ? herd_fail(err, HERD_E_MEMORY, "out of memory reading the flock")
                                              : s->ops->read_agents(s->backend, p, v, err);
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
  return s->ops->map_state(s->backend, pos, vel, agent, err);
}

bool herd_sim_shares_gl(const herd_sim *s) { return s->ops->shares_gl(s->backend); }

void herd_sim_steer(herd_sim *s, uint32_t index, const float *aim) {
  if (index >= s->steering_count) return;
  s->manual[index] = true;
  for (uint32_t k = 0; k < 3; ++k) s->manual_aim[index][k] = k < s->sc.world.dims ? aim[k] : 0.0f;
}

void herd_sim_release(herd_sim *s, uint32_t index) {
  if (index < s->steering_count) s->manual[index] = false;
}

const herd_scenario *herd_sim_scenario(const herd_sim *s) { return &s->sc; }
const char *herd_sim_device(const herd_sim *s) { return s->ops->device_name(s->backend); }
const char *herd_sim_backend_note(const herd_sim *s) { return s->backend_note; }

herd_status herd_sim_profile(herd_sim *s, herd_profile *out, herd_error *err) {
  return s->ops->profile(s->backend, out, err);
}

const char *herd_stage_name(herd_stage stage) {
  static const char *const names[HERD_STAGE_COUNT] = {"bin",  "sort",   "ranges",   "reorder",
                                                      "step", "reduce", "read-back"};
  return stage < HERD_STAGE_COUNT ? names[stage] : "?";
}
