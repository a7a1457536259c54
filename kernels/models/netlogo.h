/* NetLogo's Flocking (Wilensky 1998) with the enemies of "Don't Follow this Leader": every
 * bird flies 1 patch per tick at a heading that three rules turn by bounded angles.
 * Equations, sources and what herd changes: docs/models/netlogo-flocking.md.
 *
 *   flockmates: other birds within `vision` (inclusive, through the wrap); none: no turn
 *   nearest flockmate closer than `minimum_separation`: separate only —
 *     turn away from its heading by at most max_separate_turn
 *   otherwise align (toward the summed headings, at most max_align_turn), then cohere
 *     (toward the summed unit bearings to the flockmates, at most max_cohere_turn)
 *   a steering agent (enemy) closer than `vision`: face the nearest, turn 180 degrees
 *   move: `substeps` steps of speed / substeps, each wrapped into the torus
 *
 * Headings are NetLogo's: degrees, 0 = north (+y), clockwise; the velocity buffer holds the
 * unit vector (sin h, cos h). Updated synchronously (NetLogo asks one bird at a time). */
#ifndef HERD_KERNELS_MODELS_NETLOGO_H
#define HERD_KERNELS_MODELS_NETLOGO_H
#include "../model.h"
#include "netlogo_params.h"

#define HERD_DEG_PER_RAD 57.295779513082320877f

/* NetLogo's heading of the vector (x, y): atan2(x, y) in degrees, in [0, 360). */
HERD_INLINE float herd_heading_of(float x, float y) {
  float h = herd_atan2f(x, y) * HERD_DEG_PER_RAD;
  return h < 0.0f ? h + 360.0f : (h >= 360.0f ? h - 360.0f : h);
}

/* subtract-headings: a - b wrapped into (-180, 180]. */
HERD_INLINE float herd_subtract_headings(float a, float b) {
  float d = a - b;
  while (d > 180.0f) d -= 360.0f;
  while (d <= -180.0f) d += 360.0f;
  return d;
}

/* turn-at-most: the turn itself, or the largest allowed turn the same way. */
HERD_INLINE float herd_turn_at_most(float turn, float max_turn) {
  if (turn > max_turn) return max_turn;
  if (turn < -max_turn) return -max_turn;
  return turn;
}

HERD_INLINE float herd_heading_add(float h, float turn) {
  h += turn;
  return h < 0.0f ? h + 360.0f : (h >= 360.0f ? h - 360.0f : h);
}

/* The unit vector of a heading: (sin h, cos h). */
HERD_INLINE herd_vec3 herd_heading_vector(float h) {
  float r = h / HERD_DEG_PER_RAD;
  return herd_v3(herd_sinf(r), herd_cosf(r), 0.0f);
}

/* What a bird knows of its flockmates after one pass over them. */
typedef struct herd_netlogo_mates {
  herd_u32 count, nearest_id;
  float nearest_d2, nearest_heading;
  herd_vec3 headings; /* the flockmates' unit headings, summed */
  herd_vec3 bearings; /* unit vectors toward them, summed (one at the bird's own spot left out) */
} herd_netlogo_mates;

HERD_INLINE herd_netlogo_mates herd_netlogo_flockmates(const herd_netlogo_params *m, const herd_flock_view *v,
                                                       herd_u32 self, herd_vec3 p) {
  herd_netlogo_mates f;
  f.count = 0u, f.nearest_id = 0xffffffffu, f.nearest_d2 = 0.0f, f.nearest_heading = 0.0f;
  f.headings = f.bearings = herd_v3(0.0f, 0.0f, 0.0f);
  herd_radius_query q;
  herd_radius_begin(&q, v->grid, p, m->vision_patches, self);
  HERD_RADIUS_FOR_EACH(q, v->grid, v->pos, v->cell_end, v->grid->dims, j, d, d2, {
    herd_vec3 h = herd_agent_vel(v, j);
    herd_u32 id = herd_agent_id(v->agent[j]);
    /* The nearest, ties to the lower id (NetLogo picks at random). */
    if (f.count == 0u || d2 < f.nearest_d2 || (d2 == f.nearest_d2 && id < f.nearest_id)) {
      f.nearest_d2 = d2, f.nearest_id = id;
      f.nearest_heading = herd_heading_of(h.x, h.y);
    }
    f.headings = herd_v3_add(f.headings, h);
    if (d2 > 0.0f) f.bearings = herd_v3_add(f.bearings, herd_v3_unit(d));
    ++f.count;
  });
  return f;
}

/* The heading after the three flocking rules. */
HERD_INLINE float herd_netlogo_flock(const herd_netlogo_params *m, herd_netlogo_mates f, float h) {
  if (f.count == 0u) return h;
  float sep = m->minimum_separation;
  if (f.nearest_d2 < sep * sep)
    return herd_heading_add(h,
                            herd_turn_at_most(herd_subtract_headings(h, f.nearest_heading), m->max_separate_turn_deg));
  if (f.headings.x != 0.0f || f.headings.y != 0.0f) {
    float target = herd_heading_of(f.headings.x, f.headings.y);
    h = herd_heading_add(h, herd_turn_at_most(herd_subtract_headings(target, h), m->max_align_turn_deg));
  }
  if (f.bearings.x != 0.0f || f.bearings.y != 0.0f) {
    float target = herd_heading_of(f.bearings.x, f.bearings.y);
    h = herd_heading_add(h, herd_turn_at_most(herd_subtract_headings(target, h), m->max_cohere_turn_deg));
  }
  return h;
}

/* Flee: face the nearest steering agent closer than `vision` and turn 180 degrees, i.e.
 * head straight away from it; at its very spot, reverse. *alert when fleeing. */
HERD_INLINE float herd_netlogo_flee(const herd_netlogo_params *m, const herd_flock_view *v, herd_vec3 p, float h,
                                    int *alert) {
  float best = m->vision_patches * m->vision_patches;
  herd_vec3 away = herd_v3(0.0f, 0.0f, 0.0f);
  *alert = 0;
  for (herd_u32 e = 0; e < v->info->steering_count; ++e) {
    herd_vec3 d = herd_world_delta(v->grid, herd_steer_pos(v, e), p);
    float d2 = herd_v3_len2(d);
    if (d2 >= best) continue;
    best = d2, away = d;
    *alert = 1;
  }
  if (!*alert) return h;
  if (away.x == 0.0f && away.y == 0.0f) return herd_heading_add(h, 180.0f);
  return herd_heading_of(away.x, away.y);
}

/* The world's obstacles bend the heading [ours]: to that of its unit vector plus their push
 * (kernels/env.h); without obstacles, or where the push is nil or cancels it, h as it was. */
HERD_INLINE float herd_netlogo_avoid(const herd_flock_view *v, herd_vec3 p, float h) {
  const herd_env_info *e = &v->info->env;
  if (!herd_env_obstacles(e)) return h;
  herd_vec3 push = herd_env_push(v->env, e, p);
  if (push.x == 0.0f && push.y == 0.0f) return h;
  herd_vec3 bent = herd_v3_add(herd_heading_vector(h), push);
  return bent.x != 0.0f || bent.y != 0.0f ? herd_heading_of(bent.x, bent.y) : h;
}

/* The rest of the tick for a bird at p that has turned to heading h: flee, then fly in
 * `substeps` wrapped steps. */
HERD_INLINE herd_agent_next herd_netlogo_flee_and_fly(const herd_netlogo_params *m, const herd_flock_view *v,
                                                      herd_vec3 p, float h) {
  herd_agent_next next;
  h = herd_netlogo_flee(m, v, p, h, &next.alert);
  next.vel = herd_heading_vector(h);
  herd_vec3 step = herd_v3_scale(next.vel, m->speed_patches_per_tick / (float)m->substeps);
  for (herd_u32 k = 0; k < m->substeps; ++k) p = herd_world_wrap(v->grid, herd_v3_add(p, step));
  next.pos = p;
  return next;
}

HERD_INLINE herd_agent_next herd_netlogo_update(const herd_netlogo_params *m, const herd_flock_view *v, herd_u32 self,
                                                herd_neighbour *scratch) {
  (void)scratch;
  herd_vec3 p = herd_agent_pos(v, self), vel = herd_agent_vel(v, self);
  float h = herd_netlogo_flock(m, herd_netlogo_flockmates(m, v, self, p), herd_heading_of(vel.x, vel.y));
  return herd_netlogo_flee_and_fly(m, v, p, herd_netlogo_avoid(v, p, h));
}

HERD_MODEL_ENTRY_BY_DIMS(netlogo, herd_netlogo_params, 1, 0)
HERD_MODEL_KERNELS_2D(netlogo, herd_netlogo_params, 1)

/* ---- Host side: how the backends run it (kernels/models/steps.h) ------------------------------- */
#ifndef HERD_OPENCL
static inline float herd_netlogo_cell_m(const void *params) {
  return ((const herd_netlogo_params *)params)->vision_patches;
}

/* Flockmates are within vision (the nearest one too). */
static inline int herd_netlogo_reach(const void *params, herd_u32 count, herd_model_reach *out, char *why,
                                     size_t size) {
  (void)count, (void)why, (void)size;
  out->radius_m = ((const herd_netlogo_params *)params)->vision_patches;
  out->nearest = 0u;
  return 0;
}

/* As NetLogo's `crt`: a random whole number of degrees. */
static inline herd_vec3 herd_netlogo_initial_velocity(const void *params, herd_rng4 spawn_draw, herd_rng4 draw,
                                                      herd_u32 dims) {
  (void)params, (void)spawn_draw, (void)dims;
  float degrees = herd_floorf(360.0f * herd_rng_unit_float(draw.v[0]));
  return herd_heading_vector(degrees);
}

#endif
#endif
