/* The run loop: owns a backend and the dogs, and implements the herd_sim API. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../backend/backend.h"
#include "../core/error.h"
#include "../steer/strombom_dog.h"

/* The step index used to key the random draws of the initial placement: never reached by
 * a run, so placement draws are independent of every step's draws. */
#define SPAWN_STEP 0xFFFFFFFFu

struct herd_sim {
  herd_scenario sc;
  const herd_backend_ops *ops;
  herd_backend *backend;
  char backend_note[700];
  herd_strombom_dog_params dog_params;
  herd_dog_state dogs[HERD_MAX_DOGS];
  herd_vec2 dog_pos[HERD_MAX_DOGS];
  herd_observation obs;
  uint32_t step;
  herd_outcome outcome;
  bool manual[HERD_MAX_DOGS]; /* steered by the user toward manual_aim */
  float manual_aim[HERD_MAX_DOGS][2];
  const volatile sig_atomic_t *stop;
};

/* A user-steered dog moves straight toward its aim at its usual speed, without noise. */
static void steer_manually(herd_sim *s, uint32_t d) {
  herd_dog_state *dog = &s->dogs[d];
  float dx = s->manual_aim[d][0] - dog->pos[0], dy = s->manual_aim[d][1] - dog->pos[1];
  float dist = sqrtf(dx * dx + dy * dy), step = s->dog_params.speed_m_per_step;
  dog->mode = HERD_DOG_MANUAL;
  if (dist <= 0.0f) return;
  float move = dist < step ? dist : step;
  dog->heading[0] = dx / dist, dog->heading[1] = dy / dist;
  dog->pos[0] += move * dog->heading[0];
  dog->pos[1] += move * dog->heading[1];
}

static herd_strombom_params model_params(const herd_scenario *sc) {
  herd_strombom_params m;
  m.repulsion_radius_m = sc->sheep.repulsion_radius_m;
  m.dog_radius_m = sc->sheep.dog_radius_m;
  m.inertia = sc->sheep.inertia;
  m.attraction = sc->sheep.attraction;
  m.repulsion = sc->sheep.repulsion;
  m.dog_repulsion = sc->sheep.dog_repulsion;
  m.noise = sc->sheep.noise;
  m.graze_probability = sc->sheep.graze_probability;
  m.speed_m_per_step = sc->sheep.speed_m_per_step;
  m.neighbours = sc->sheep.neighbours;
  return m;
}

static void place_dogs(herd_sim *s) {
  const herd_scenario *sc = &s->sc;
  s->dog_params = (herd_strombom_dog_params){
      .repulsion_radius_m = sc->sheep.repulsion_radius_m,
      .sheep_count = sc->sheep.count,
      .target_m = {sc->target.position_m[0], sc->target.position_m[1]},
      .speed_m_per_step = sc->dogs.speed_m_per_step,
      .noise = sc->dogs.noise,
  };
  for (uint32_t d = 0; d < sc->dogs.count; ++d) {
    herd_dog_state *dog = &s->dogs[d];
    dog->pos[0] = sc->dogs.start[0] * sc->field.size_m + (float)d * sc->dogs.spacing_m;
    dog->pos[1] = sc->dogs.start[1] * sc->field.size_m;
    dog->heading[0] = 1.0f, dog->heading[1] = 0.0f;
    dog->mode = HERD_DOG_COLLECT;
    s->dog_pos[d] = herd_v2(dog->pos[0], dog->pos[1]);
  }
}

/* Sheep uniformly at random in the spawn rectangle, with random headings. */
static herd_status place_sheep(herd_sim *s, herd_error *err) {
  const herd_scenario *sc = &s->sc;
  uint32_t n = sc->sheep.count;
  herd_vec2 *pos = malloc(n * sizeof *pos), *heading = malloc(n * sizeof *heading);
  if (!pos || !heading) {
    free(pos);
    free(heading);
    return herd_fail(err, HERD_E_MEMORY, "out of memory placing %u sheep", n);
  }
  float l = sc->field.size_m;
  float x0 = sc->sheep.spawn.from[0] * l, y0 = sc->sheep.spawn.from[1] * l;
  float w = (sc->sheep.spawn.to[0] - sc->sheep.spawn.from[0]) * l;
  float h = (sc->sheep.spawn.to[1] - sc->sheep.spawn.from[1]) * l;
  for (uint32_t i = 0; i < n; ++i) {
    herd_rng4 r = herd_rng_draw(sc->seed, SPAWN_STEP, i, HERD_STREAM_SPAWN);
    pos[i] = herd_v2(x0 + w * herd_rng_unit_float(r.v[0]), y0 + h * herd_rng_unit_float(r.v[1]));
    heading[i] = herd_rng_direction(r.v[2]);
  }
  herd_status st = s->ops->upload(s->backend, pos, heading, err);
  free(pos);
  free(heading);
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
  char device[128];
  herd_status st = herd_backend_choose(desc->backend, desc->device, &s->ops, device, sizeof device, s->backend_note,
                                       sizeof s->backend_note, err);
  if (st != HERD_OK) {
    free(s);
    return st;
  }
  herd_backend_desc bd = {
      .count = s->sc.sheep.count,
      .model = model_params(&s->sc),
      .goal_m = {s->sc.target.position_m[0], s->sc.target.position_m[1]},
      .goal_radius_m = s->sc.target.goal_radius_m,
      .seed = s->sc.seed,
      .threads = desc->threads,
      .device = device,
      .profile = desc->profile,
      .gl_share = desc->gl_share,
      .stop = desc->stop,
  };
  st = s->ops->create(&bd, &s->backend, err);
  bool auto_chose = desc->backend && strcmp(desc->backend, "auto") == 0 && !(desc->device && *desc->device);
  if (st == HERD_E_BACKEND && auto_chose && s->ops != &herd_cpu_backend) {
    /* auto promises a run: a device that cannot start (a failed build, say) hands over. */
    snprintf(s->backend_note, sizeof s->backend_note,
             "auto: the OpenCL device failed (%.600s); using the native CPU backend", err->message);
    s->ops = &herd_cpu_backend;
    st = s->ops->create(&bd, &s->backend, err);
  }
  if (st == HERD_OK) {
    place_dogs(s);
    st = place_sheep(s, err);
  }
  if (st == HERD_OK) st = s->ops->reduce(s->backend, s->dog_pos, s->sc.dogs.count, &s->obs, err);
  if (st == HERD_OK && s->obs.delivered == s->obs.count) s->outcome = HERD_SUCCEEDED; /* placed in the goal */
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

herd_status herd_sim_step(herd_sim *s, herd_error *err) {
  if (s->outcome != HERD_RUNNING) return HERD_OK;
  if (herd_stop_raised(s->stop)) return herd_fail(err, HERD_E_INTERRUPTED, "interrupted before step %u", s->step);
  herd_dog_state dogs_before[HERD_MAX_DOGS];
  memcpy(dogs_before, s->dogs, sizeof dogs_before);
  for (uint32_t d = 0; d < s->sc.dogs.count; ++d) {
    if (s->manual[d])
      steer_manually(s, d);
    else
      herd_strombom_dog_step(&s->dog_params, &s->obs, d, s->sc.seed, s->step, &s->dogs[d]);
    s->dog_pos[d] = herd_v2(s->dogs[d].pos[0], s->dogs[d].pos[1]);
  }
  herd_vec2 centroid = herd_v2((float)s->obs.centroid[0], (float)s->obs.centroid[1]);
  herd_status st = s->ops->step(s->backend, s->dog_pos, s->sc.dogs.count, centroid, s->step, err);
  if (st == HERD_E_INTERRUPTED) { /* the flock is as before the step: so are the dogs */
    memcpy(s->dogs, dogs_before, sizeof dogs_before);
    for (uint32_t d = 0; d < s->sc.dogs.count; ++d) s->dog_pos[d] = herd_v2(s->dogs[d].pos[0], s->dogs[d].pos[1]);
    return herd_fail(err, HERD_E_INTERRUPTED, "interrupted during step %u", s->step);
  }
  if (st == HERD_OK) st = s->ops->reduce(s->backend, s->dog_pos, s->sc.dogs.count, &s->obs, err);
  if (st != HERD_OK) return st;
  ++s->step;
  if (s->obs.delivered == s->obs.count)
    s->outcome = HERD_SUCCEEDED;
  else if (s->step >= s->sc.max_steps)
    s->outcome = HERD_STEP_LIMIT;
  return HERD_OK;
}

uint32_t herd_sim_step_index(const herd_sim *s) { return s->step; }
herd_outcome herd_sim_outcome(const herd_sim *s) { return s->outcome; }
const herd_observation *herd_sim_observation(const herd_sim *s) { return &s->obs; }
uint32_t herd_sim_dog_count(const herd_sim *s) { return s->sc.dogs.count; }
const herd_dog_state *herd_sim_dog(const herd_sim *s, uint32_t index) {
  return index < s->sc.dogs.count ? &s->dogs[index] : NULL;
}

const char *herd_dog_mode_name(herd_dog_mode mode) {
  switch (mode) {
    case HERD_DOG_COLLECT: return "collect";
    case HERD_DOG_DRIVE: return "drive";
    case HERD_DOG_WAIT: return "wait";
    case HERD_DOG_MANUAL: return "manual";
  }
  return "?";
}

herd_status herd_sim_read_sheep(herd_sim *s, float *pos_xy, float *heading_xy, herd_error *err) {
  /* herd_vec2 is two packed floats, so float[2*N] arrays can be filled in place. */
  return s->ops->read_agents(s->backend, (herd_vec2 *)pos_xy, (herd_vec2 *)heading_xy, err);
}

size_t herd_sim_memory_bytes(const herd_sim *s) { return s->ops->memory_bytes(s->backend); }

const char *herd_sim_backend(const herd_sim *s) { return s->ops->name; }

herd_status herd_sim_map_state(herd_sim *s, const float **pos_xy, const float **heading_xy, const uint32_t **agent,
                               herd_error *err) {
  const herd_vec2 *pos, *heading;
  herd_status st = s->ops->map_state(s->backend, &pos, &heading, agent, err);
  if (st == HERD_OK) *pos_xy = (const float *)pos, *heading_xy = (const float *)heading;
  return st;
}

bool herd_sim_shares_gl(const herd_sim *s) { return s->ops->shares_gl(s->backend); }

void herd_sim_steer_dog(herd_sim *s, uint32_t index, float x, float y) {
  if (index >= s->sc.dogs.count) return;
  s->manual[index] = true;
  s->manual_aim[index][0] = x, s->manual_aim[index][1] = y;
}

void herd_sim_release_dog(herd_sim *s, uint32_t index) {
  if (index < s->sc.dogs.count) s->manual[index] = false;
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
