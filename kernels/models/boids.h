/* Reynolds boids as written up for Cornell ECE 4760 (V. Hunter Adams), in 2D and 3D:
 * separation from boids in the protected range, alignment with and cohesion toward boids in
 * the visual range but outside the protected range, a turn factor at the margins of the
 * world box, a flee kick from steering agents within the fear radius, and speed clamped to
 * [min, max]. Velocities, not headings. Equations and sources: docs/models/boids.md.
 *
 *   u  = v + [n > 0] (c_c mean(d_j) + c_m (mean(v_j) - v)) + c_a sum_{protected} (-d_j)
 *   u += tau (per axis, inside a margin of an edge that does not wrap)
 *   u += w_path v_path(p) + push sum_k w_k n_k (the world's path and obstacles: kernels/env.h)
 *   u += phi sgn(sum (p - e)) (per axis, steering agents e within R_f)
 *   v' = u clamped to [s_min, s_max] in length;  p' = p + v' (wrapped)
 *
 * d_j is the offset to boid j, taken through the wrap in a torus. Every boid is updated from
 * the previous step's state (the page updates in place; docs/models/boids.md). */
#ifndef HERD_KERNELS_MODELS_BOIDS_H
#define HERD_KERNELS_MODELS_BOIDS_H
#include "../lanes.h"
#include "../model.h"
#include "boids_params.h"

/* -1, 0 or 1: the sign of x. */
HERD_INLINE float herd_signf(float x) { return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : 0.0f); }

/* The sums over a boid's neighbours: for one boid (F float, I herd_u32) or for lanes of boids
 * on a CPU (F herd_lanef, I herd_lanei; kernels/lanes.h). */
#define HERD_BOIDS_SUMS(F, I)                                                                     \
  struct {                                                                                        \
    F close_x, close_y, close_z; /* minus the offsets of those in the protected range */          \
    F off_x, off_y, off_z;       /* the offsets of those beyond it and within the visual range */ \
    F vel_x, vel_y, vel_z;       /* their velocities */                                           \
    I seen;                      /* how many of them */                                           \
  }
typedef HERD_BOIDS_SUMS(float, herd_u32) herd_boids_sums;

/* A neighbour at offset (DX, DY, DZ), D2 its square, moving at (VX, VY, VZ), added to the sums s
 * of the boids where IN (M: int for one boid, herd_lanei for lanes): within the protected range
 * avoided, beyond it and within the visual range followed. Written once, masked (herd_when), for
 * both; dims 2 leaves z out (its sums stay +0, as adding 0 keeps them). */
#define HERD_BOIDS_ADD(M, s, IN, DX, DY, DZ, D2, VX, VY, VZ, protected2, visual2, dims) \
  do {                                                                                  \
    M near_ = (IN) & ((D2) < (protected2));                                             \
    M seen_ = (IN) & ((D2) >= (protected2)) & ((D2) < (visual2));                       \
    (s).close_x -= herd_when(near_, DX), (s).close_y -= herd_when(near_, DY);           \
    (s).off_x += herd_when(seen_, DX), (s).off_y += herd_when(seen_, DY);               \
    (s).vel_x += herd_when(seen_, VX), (s).vel_y += herd_when(seen_, VY);               \
    if ((dims) == 3u) {                                                                 \
      (s).close_z -= herd_when(near_, DZ);                                              \
      (s).off_z += herd_when(seen_, DZ);                                                \
      (s).vel_z += herd_when(seen_, VZ);                                                \
    }                                                                                   \
    (s).seen += seen_ & 1;                                                              \
  } while (0)

/* The neighbour sums of boid `self` at p, moving at vel, one boid at a time. */
HERD_INLINE herd_boids_sums herd_boids_neighbours(const herd_boids_params *m, const herd_flock_view *v, herd_u32 self,
                                                  herd_vec3 p, herd_vec3 vel) {
  herd_boids_sums s;
  s.close_x = s.close_y = s.close_z = s.off_x = s.off_y = s.off_z = s.vel_x = s.vel_y = s.vel_z = 0.0f;
  s.seen = 0u;
  float protected2 = m->protected_range_m * m->protected_range_m, visual2 = m->visual_range_m * m->visual_range_m;
  herd_radius_query q;
  herd_radius_begin(&q, v->grid, p, m->visual_range_m, self);
  if (m->view_angle_deg < 360.0f)
    herd_radius_cone(&q, herd_v3_unit(vel), herd_cosf(0.5f * m->view_angle_deg * 0.0174532925199432958f));
  HERD_RADIUS_FOR_EACH(q, v->grid, v->pos, v->cell_end, v->grid->dims, j, d, d2, {
    herd_vec3 vj = herd_agent_vel(v, j);
    HERD_BOIDS_ADD(int, s, 1, d.x, d.y, d.z, d2, vj.x, vj.y, vj.z, protected2, visual2, v->grid->dims);
  });
  return s;
}

/* Separation, alignment and cohesion from the neighbour sums, added to v. */
HERD_INLINE herd_vec3 herd_boids_flocking(const herd_boids_params *m, const herd_boids_sums *s, herd_vec3 vel) {
  herd_vec3 close = herd_v3(s->close_x, s->close_y, s->close_z);
  herd_vec3 u = vel;
  if (s->seen > 0u) {
    float inv = 1.0f / (float)s->seen;
    herd_vec3 towards_centre = herd_v3_scale(herd_v3(s->off_x, s->off_y, s->off_z), inv);
    herd_vec3 match = herd_v3_sub(herd_v3_scale(herd_v3(s->vel_x, s->vel_y, s->vel_z), inv), vel);
    u = herd_v3_add(u, herd_v3_add(herd_v3_scale(towards_centre, m->centering), herd_v3_scale(match, m->matching)));
  }
  return herd_v3_madd(u, m->avoid, close);
}

/* The turn factor inside the margin of each edge that does not wrap. */
HERD_INLINE herd_vec3 herd_boids_margins(const herd_boids_params *m, const herd_grid *g, herd_vec3 p, herd_vec3 u) {
  if (m->margin_m <= 0.0f) return u;
  float lo = m->margin_m, t = m->turn_factor;
  if (!(g->wrap & 1u)) u.x += (p.x < lo ? t : 0.0f) - (p.x > g->size_m[0] - lo ? t : 0.0f);
  if (!(g->wrap & 2u)) u.y += (p.y < lo ? t : 0.0f) - (p.y > g->size_m[1] - lo ? t : 0.0f);
  if (g->dims == 3u && !(g->wrap & 4u)) u.z += (p.z < lo ? t : 0.0f) - (p.z > g->size_m[2] - lo ? t : 0.0f);
  return u;
}

/* The world's features (kernels/env.h): the path's field times path.weight (seed 004 adds it
 * to the velocity with its bias factor) and the obstacles' push, both added to u of boid
 * `self` at p. */
HERD_INLINE herd_vec3 herd_boids_world(const herd_flock_view *v, herd_u32 self, herd_vec3 p, herd_vec3 u) {
  const herd_env_info *e = &v->info->env;
  if (e->has_path) u = herd_v3_add(u, herd_agent_guide(v, self, p));
  if (herd_env_obstacles(e)) u = herd_v3_add(u, herd_env_push(v->env, e, p));
  return u;
}

/* The flee kick from steering agents within the fear radius; *alert when there was one. */
HERD_INLINE herd_vec3 herd_boids_flee(const herd_boids_params *m, const herd_flock_view *v, herd_vec3 p, herd_vec3 u,
                                      int *alert) {
  herd_vec3 away = herd_v3(0.0f, 0.0f, 0.0f);
  float fear2 = m->fear_radius_m * m->fear_radius_m;
  *alert = 0;
  for (herd_u32 e = 0; e < v->info->steering_count; ++e) {
    herd_vec3 d = herd_world_delta(v->grid, herd_steer_pos(v, e), p);
    if (herd_v3_len2(d) >= fear2) continue;
    away = herd_v3_add(away, d);
    *alert = 1;
  }
  if (!*alert) return u;
  float f = m->flee_factor;
  return herd_v3(u.x + f * herd_signf(away.x), u.y + f * herd_signf(away.y), u.z + f * herd_signf(away.z));
}

/* u with its length clamped to [s_min, s_max]; a zero u keeps the old direction at s_min. */
HERD_INLINE herd_vec3 herd_boids_clamp_speed(const herd_boids_params *m, herd_vec3 u, herd_vec3 old, herd_u32 dims) {
  float s = herd_sqrtf(herd_v3_len2(u));
  if (s <= 0.0f) {
    herd_vec3 dir = herd_v3_unit(old);
    if (herd_v3_len2(dir) <= 0.0f) dir = herd_v3(1.0f, 0.0f, 0.0f);
    return herd_v3_scale(dir, m->min_speed_m_per_step);
  }
  if (s < m->min_speed_m_per_step) u = herd_v3_scale(u, m->min_speed_m_per_step / s);
  if (s > m->max_speed_m_per_step) u = herd_v3_scale(u, m->max_speed_m_per_step / s);
  if (dims == 2u) u.z = 0.0f;
  return u;
}

/* Boid `self`'s step from its neighbour sums. */
HERD_INLINE herd_agent_next herd_boids_finish(const herd_boids_params *m, const herd_flock_view *v, herd_u32 self,
                                              const herd_boids_sums *s) {
  herd_vec3 p = herd_agent_pos(v, self), vel = herd_agent_vel(v, self);
  herd_agent_next next;
  herd_vec3 u = herd_boids_flocking(m, s, vel);
  u = herd_boids_margins(m, v->grid, p, u);
  u = herd_boids_world(v, self, p, u);
  u = herd_boids_flee(m, v, p, u, &next.alert);
  next.vel = herd_boids_clamp_speed(m, u, vel, v->grid->dims);
  next.pos = herd_world_wrap(v->grid, herd_v3_add(p, next.vel));
  return next;
}

HERD_INLINE herd_agent_next herd_boids_update(const herd_boids_params *m, const herd_flock_view *v, herd_u32 self,
                                              herd_neighbour *scratch) {
  (void)scratch;
  herd_boids_sums s = herd_boids_neighbours(m, v, self, herd_agent_pos(v, self), herd_agent_vel(v, self));
  return herd_boids_finish(m, v, self, &s);
}

#ifndef HERD_OPENCL
typedef HERD_BOIDS_SUMS(herd_lanef, herd_lanei) herd_boids_lanes_sums;

/* The neighbour sums of a lanes query's boids, in `dims` dimensions (a constant). */
static inline void herd_boids_lanes_neighbours(const herd_boids_params *m, const herd_flock_view *v,
                                               herd_lanes_query *lq, herd_boids_lanes_sums *s, herd_u32 dims) {
  float protected2 = m->protected_range_m * m->protected_range_m, visual2 = m->visual_range_m * m->visual_range_m;
  HERD_LANES_FOR_EACH(*lq, v->grid, v->pos, v->cell_end, dims, j, dx, dy, dz, d2, in, {
    herd_vec3 vj = herd_load_vec(v->vel, j, dims);
    HERD_BOIDS_ADD(herd_lanei, *s, in, dx, dy, dz, d2, herd_lanes_of(vj.x), herd_lanes_of(vj.y), herd_lanes_of(vj.z),
                   protected2, visual2, dims);
  });
}

/* Boids [first, first + n) of a run (up to `last`) whose queries share their rows, their sums
 * in lanes (kernels/lanes.h), each finished alone; n, at least 1. One boid at a time where lanes
 * do not apply: the hash grid, a view cone, a run of one. The same bits either way. */
static inline herd_u32 herd_boids_update_run(const herd_boids_params *m, const herd_flock_view *v, herd_u32 first,
                                             herd_u32 last, herd_neighbour *scratch, herd_agent_next *next) {
  const herd_grid *g = v->grid;
  herd_lanes_query lq;
  herd_u32 n = herd_lanes_try(&lq, g, v->pos, first, last, m->visual_range_m, m->view_angle_deg >= 360.0f);
  if (!n) {
    next[0] = herd_boids_update(m, v, first, scratch);
    return 1u;
  }
  herd_boids_lanes_sums s = {0};
  if (g->dims == 2u)
    herd_boids_lanes_neighbours(m, v, &lq, &s, 2u);
  else
    herd_boids_lanes_neighbours(m, v, &lq, &s, 3u);
  for (herd_u32 l = 0; l < n; ++l) {
    herd_boids_sums one = {s.close_x[l], s.close_y[l], s.close_z[l], s.off_x[l], s.off_y[l],
                           s.off_z[l],   s.vel_x[l],   s.vel_y[l],   s.vel_z[l], (herd_u32)s.seen[l]};
    next[l] = herd_boids_finish(m, v, first + l, &one);
  }
  return n;
}
#endif

HERD_MODEL_ENTRY_BY_DIMS_IN_RUNS(boids, herd_boids_params, 1, 1)
HERD_MODEL_KERNELS_2D(boids, herd_boids_params, 1)
HERD_MODEL_KERNELS_3D(boids, herd_boids_params, 1)

/* ---- Host side: how the backends run it (kernels/models/steps.h) ------------------------------- */
#ifndef HERD_OPENCL
/* The viewer's marks (herd_sim_model_marks): r_v, whom a boid sees; R_f about each steering
 * agent. */
static inline void herd_boids_marks(const void *params, herd_u32 count, herd_u32 delivered, herd_model_marks_out *out) {
  const herd_boids_params *m = (const herd_boids_params *)params;
  (void)count, (void)delivered;
  out->interaction_m = m->visual_range_m;
  out->reaction_m = m->fear_radius_m;
}

/* Cells as large as the visual range: a query then visits 3 x 3 (x 3) cells. */
static inline float herd_boids_cell_m(const void *params) {
  return ((const herd_boids_params *)params)->visual_range_m;
}

/* Boids see (and avoid) only within the visual range. */
static inline int herd_boids_reach(const void *params, herd_u32 count, herd_model_reach *out, char *why, size_t size) {
  (void)count, (void)why, (void)size;
  out->radius_m = ((const herd_boids_params *)params)->visual_range_m;
  out->nearest = 0u;
  return 0;
}

/* A random direction (on the circle, or the sphere in 3D) at a speed uniform in
 * [s_min, s_max]. */
static inline herd_vec3 herd_boids_initial_velocity(const void *params, herd_rng4 spawn_draw, herd_rng4 draw,
                                                    herd_u32 dims) {
  const herd_boids_params *m = params;
  (void)spawn_draw;
  float speed =
      m->min_speed_m_per_step + (m->max_speed_m_per_step - m->min_speed_m_per_step) * herd_rng_unit_float(draw.v[2]);
  herd_vec3 dir = dims == 3u ? herd_rng_direction3(draw.v[0], draw.v[1])
                             : herd_v3(herd_rng_direction(draw.v[0]).x, herd_rng_direction(draw.v[0]).y, 0.0f);
  return herd_v3_scale(dir, speed);
}

#endif
#endif
