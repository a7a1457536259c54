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
#include "../lanes.h"
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

/* What a bird knows of its flockmates after one pass over them: for one bird (F float, I
 * herd_u32) or for lanes of birds on a CPU (F herd_lanef, I herd_lanei; kernels/lanes.h). */
#define HERD_NETLOGO_MATES(F, I)                                                                                 \
  struct {                                                                                                       \
    I count, nearest_id, nearest_j; /* the nearest: its id and sorted index */                                   \
    F nearest_d2;                   /* its squared distance */                                                   \
    F head_x, head_y;               /* the flockmates' unit headings, summed */                                  \
    F bear_x, bear_y;               /* unit vectors toward them, summed (one at the bird's own spot left out) */ \
  }
typedef HERD_NETLOGO_MATES(float, herd_u32) herd_netlogo_mates;

/* A flockmate at offset (DX, DY), D2 its square, of id ID and sorted index J, heading (HX, HY),
 * added to what the birds where IN know (M: int for one bird, herd_lanei for lanes), masked
 * (kernels/lanes.h) so that both run the same statements. */
#define HERD_NETLOGO_ADD(M, F, f, IN, J, ID, DX, DY, D2, HX, HY)                                                    \
  do {                                                                                                              \
    /* The nearest, ties to the lower id (NetLogo picks at random). */                                              \
    M nearer_ =                                                                                                     \
        (IN) & (((f).count == 0) | ((D2) < (f).nearest_d2) | (((D2) == (f).nearest_d2) & ((ID) < (f).nearest_id))); \
    (f).nearest_d2 = herd_pick(nearer_, D2, (f).nearest_d2);                                                        \
    (f).nearest_id = herd_pick(nearer_, ID, (f).nearest_id);                                                        \
    (f).nearest_j = herd_pick(nearer_, J, (f).nearest_j);                                                           \
    (f).head_x += herd_when(IN, HX), (f).head_y += herd_when(IN, HY);                                               \
    M apart_ = (IN) & ((D2) > 0.0f);                                                                                \
    F inv_ = 1.0f / herd_root(D2); /* herd_v3_unit's */                                                             \
    (f).bear_x += herd_when(apart_, (DX)*inv_), (f).bear_y += herd_when(apart_, (DY)*inv_);                         \
    (f).count += (IN)&1;                                                                                            \
  } while (0)

HERD_INLINE herd_netlogo_mates herd_netlogo_flockmates(const herd_netlogo_params *m, const herd_flock_view *v,
                                                       herd_u32 self, herd_vec3 p) {
  herd_netlogo_mates f;
  f.count = 0u, f.nearest_id = f.nearest_j = 0xffffffffu, f.nearest_d2 = 0.0f;
  f.head_x = f.head_y = f.bear_x = f.bear_y = 0.0f;
  herd_radius_query q;
  herd_radius_begin(&q, v->grid, p, m->vision_patches, self);
  HERD_RADIUS_FOR_EACH(q, v->grid, v->pos, v->cell_end, v->grid->dims, j, d, d2, {
    herd_vec3 h = herd_agent_vel(v, j);
    HERD_NETLOGO_ADD(int, float, f, 1, j, herd_agent_id(v->agent[j]), d.x, d.y, d2, h.x, h.y);
  });
  return f;
}

/* The heading after the three flocking rules (the nearest's heading only where it is used:
 * an arc tangent a bird). */
HERD_INLINE float herd_netlogo_flock(const herd_netlogo_params *m, const herd_flock_view *v, herd_netlogo_mates f,
                                     float h) {
  if (f.count == 0u) return h;
  float sep = m->minimum_separation;
  if (f.nearest_d2 < sep * sep) {
    herd_vec3 nearest = herd_agent_vel(v, f.nearest_j);
    float away = herd_heading_of(nearest.x, nearest.y);
    return herd_heading_add(h, herd_turn_at_most(herd_subtract_headings(h, away), m->max_separate_turn_deg));
  }
  if (f.head_x != 0.0f || f.head_y != 0.0f) {
    float target = herd_heading_of(f.head_x, f.head_y);
    h = herd_heading_add(h, herd_turn_at_most(herd_subtract_headings(target, h), m->max_align_turn_deg));
  }
  if (f.bear_x != 0.0f || f.bear_y != 0.0f) {
    float target = herd_heading_of(f.bear_x, f.bear_y);
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
  next.memory[0] = next.memory[1] = 0.0f; /* none kept; set, as next is copied whole */
  next.alert = 0;
  if (m->flee == HERD_NETLOGO_FLEE_FACE_AWAY) h = herd_netlogo_flee(m, v, p, h, &next.alert);
  next.vel = herd_heading_vector(h);
  herd_vec3 step = herd_v3_scale(next.vel, m->speed_patches_per_tick / (float)m->substeps);
  for (herd_u32 k = 0; k < m->substeps; ++k) p = herd_world_wrap(v->grid, herd_v3_add(p, step));
  next.pos = p;
  return next;
}

/* Bird `self`'s tick from what it knows of its flockmates. */
HERD_INLINE herd_agent_next herd_netlogo_finish(const herd_netlogo_params *m, const herd_flock_view *v, herd_u32 self,
                                                herd_netlogo_mates f) {
  herd_vec3 p = herd_agent_pos(v, self), vel = herd_agent_vel(v, self);
  float h = herd_netlogo_flock(m, v, f, herd_heading_of(vel.x, vel.y));
  return herd_netlogo_flee_and_fly(m, v, p, herd_netlogo_avoid(v, p, h));
}

HERD_INLINE herd_agent_next herd_netlogo_update(const herd_netlogo_params *m, const herd_flock_view *v, herd_u32 self,
                                                herd_neighbour *scratch) {
  (void)scratch;
  return herd_netlogo_finish(m, v, self, herd_netlogo_flockmates(m, v, self, herd_agent_pos(v, self)));
}

#ifndef HERD_OPENCL
typedef HERD_NETLOGO_MATES(herd_lanef, herd_lanei) herd_netlogo_lanes_mates;

/* Birds [first, first + n) of a run (up to `last`) whose queries share their rows, their
 * flockmates in lanes (kernels/lanes.h), each finished alone; n, at least 1. One bird at a time
 * on the hash grid or for a run of one. The same bits either way. */
static inline herd_u32 herd_netlogo_update_run(const herd_netlogo_params *m, const herd_flock_view *v, herd_u32 first,
                                               herd_u32 last, herd_neighbour *scratch, herd_agent_next *next) {
  const herd_grid *g = v->grid;
  herd_lanes_query lq;
  herd_u32 n = herd_lanes_try(&lq, g, v->pos, first, last, m->vision_patches, g->dims == 2u);
  if (!n) {
    next[0] = herd_netlogo_update(m, v, first, scratch);
    return 1u;
  }
  herd_netlogo_lanes_mates f = {0};
  f.nearest_id = f.nearest_j = herd_lanes_ofi(-1); /* 0xffffffff, as for one bird */
  HERD_LANES_FOR_EACH(lq, g, v->pos, v->cell_end, 2u, j, dx, dy, dz, d2, in, {
    herd_lanei id = herd_lanes_ofi((herd_i32)herd_agent_id(v->agent[j]));
    HERD_NETLOGO_ADD(herd_lanei, herd_lanef, f, in, herd_lanes_ofi((herd_i32)j), id, dx, dy, d2,
                     herd_lanes_of(v->vel[2u * j]), herd_lanes_of(v->vel[2u * j + 1u]));
  });
  for (herd_u32 l = 0; l < n; ++l) {
    herd_netlogo_mates one = {(herd_u32)f.count[l],
                              (herd_u32)f.nearest_id[l],
                              (herd_u32)f.nearest_j[l],
                              f.nearest_d2[l],
                              f.head_x[l],
                              f.head_y[l],
                              f.bear_x[l],
                              f.bear_y[l]};
    next[l] = herd_netlogo_finish(m, v, first + l, one);
  }
  return n;
}
#endif

HERD_MODEL_ENTRY_BY_DIMS_IN_RUNS(netlogo, herd_netlogo_params, 1, 0)
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
