/* The zone model of Couzin, Krause, James, Ruxton & Franks (2002), "Collective memory and
 * spatial sorting in animal groups", J. theor. Biol. 218: 1-11, in 3D (and 2D). Every fish
 * swims at a constant speed s and turns toward a desired direction by at most theta*tau a
 * step. Equations, sources and what herd chooses: docs/models/couzin.md.
 *
 *   zor (|r_ij| < r_r, all around):         d = -sum unit(r_ij)          overrides the rest
 *   zoo (r_r <= |r_ij| < r_o, seen):        d_o = v_i + sum v_j          (self included)
 *   zoa (r_o <= |r_ij| <= r_a, seen):       d_a = sum unit(r_ij)
 *   both zones: d = 1/2 (d_o + d_a) (of unit(d_o), unit(d_a) with combine = unit_vectors);
 *   one zone: that term; none, or d = 0: d = v_i
 *   a steering agent within R_f [ours]:     d = sum unit(c_i - e)      overrides everything
 *   noise: unit(d) rotated by a wrapped Gaussian angle (sd sigma, isotropic about d)
 *   turn: v' = d if the angle (v, d) <= theta tau, else v turned by theta tau toward d
 *   move: c' = c + s tau v'
 *
 * "Seen": outside the blind cone of interior angle 360 - alpha behind the fish. Every fish is
 * updated from the previous step's state. The velocity buffer holds the unit direction v. */
#ifndef HERD_KERNELS_MODELS_COUZIN_H
#define HERD_KERNELS_MODELS_COUZIN_H
#include "../model.h"
#include "couzin_params.h"

#define HERD_COUZIN_RAD_PER_DEG 0.0174532925199432958f

#ifdef HERD_OPENCL
#define herd_couzin_logf(x) log(x)
#else
#define herd_couzin_logf(x) logf(x)
#endif

/* A unit vector perpendicular to unit u: in the xy plane in 2D, else u x (the axis least
 * along u). */
HERD_INLINE herd_vec3 herd_couzin_perpendicular(herd_vec3 u, herd_u32 dims) {
  if (dims == 2u) return herd_v3(-u.y, u.x, 0.0f);
  float ax = u.x < 0.0f ? -u.x : u.x, ay = u.y < 0.0f ? -u.y : u.y, az = u.z < 0.0f ? -u.z : u.z;
  herd_vec3 axis = ax <= ay && ax <= az ? herd_v3(1.0f, 0.0f, 0.0f)
                                        : (ay <= az ? herd_v3(0.0f, 1.0f, 0.0f) : herd_v3(0.0f, 0.0f, 1.0f));
  return herd_v3_unit(herd_v3_cross(u, axis));
}

/* The zone sums of one fish after one pass over its neighbours within r_a. */
typedef struct herd_couzin_zones {
  herd_u32 n_r, n_o, n_a;
  herd_vec3 d_r, d_o, d_a;
} herd_couzin_zones;

/* Repulsion counts every fish within r_r, all around; orientation and attraction only the
 * fish outside the blind cone. `vel` is the fish's unit direction; `unit_neighbours` makes
 * unit vectors of the neighbours' stored velocities (the fish model's hold speeds too). */
HERD_INLINE herd_couzin_zones herd_couzin_neighbours(const herd_couzin_params *m, const herd_flock_view *v,
                                                     herd_u32 self, herd_vec3 p, herd_vec3 vel, int unit_neighbours) {
  herd_couzin_zones z;
  z.n_r = z.n_o = z.n_a = 0u;
  z.d_r = z.d_a = herd_v3(0.0f, 0.0f, 0.0f);
  z.d_o = vel; /* the fish itself: d_o sums from j = 1, i included */
  float r_r = m->repulsion_radius_m, r_o = r_r + m->orientation_band_m, r_a = r_o + m->attraction_band_m;
  float r_r2 = r_r * r_r, r_o2 = r_o * r_o;
  float cos_half = m->field_of_perception_deg >= 360.0f
                       ? -2.0f
                       : herd_cosf(0.5f * m->field_of_perception_deg * HERD_COUZIN_RAD_PER_DEG);
  herd_radius_query q;
  herd_radius_begin(&q, v->grid, p, r_a, self);
  HERD_RADIUS_FOR_EACH(q, v->grid, v->pos, v->cell_end, v->grid->dims, j, d, d2, {
    if (d2 < r_r2) {
      z.d_r = herd_v3_sub(z.d_r, herd_v3_unit(d));
      ++z.n_r;
      continue;
    }
    if (z.n_r > 0u) continue;                                      /* repulsion already decides */
    if (herd_v3_dot(vel, d) < cos_half * herd_sqrtf(d2)) continue; /* in the blind cone */
    if (d2 < r_o2) {
      herd_vec3 w = herd_agent_vel(v, j);
      z.d_o = herd_v3_add(z.d_o, unit_neighbours ? herd_v3_unit(w) : w);
      ++z.n_o;
    } else {
      z.d_a = herd_v3_add(z.d_a, herd_v3_unit(d));
      ++z.n_a;
    }
  });
  return z;
}

/* The desired direction from the zones, before noise (not yet of unit length); 0 for none. */
HERD_INLINE herd_vec3 herd_couzin_desired(const herd_couzin_params *m, herd_couzin_zones z) {
  if (z.n_r > 0u) return z.d_r;
  if (z.n_o > 0u && z.n_a > 0u) {
    if (m->combine == HERD_COUZIN_COMBINE_SUMS) return herd_v3_scale(herd_v3_add(z.d_o, z.d_a), 0.5f);
    return herd_v3_scale(herd_v3_add(herd_v3_unit(z.d_o), herd_v3_unit(z.d_a)), 0.5f);
  }
  if (z.n_o > 0u) return z.d_o;
  if (z.n_a > 0u) return z.d_a;
  return herd_v3(0.0f, 0.0f, 0.0f);
}

/* Flee [ours]: the sum of unit vectors away from every steering agent closer than R_f;
 * *alert when there was one. */
HERD_INLINE herd_vec3 herd_couzin_flee(const herd_couzin_params *m, const herd_flock_view *v, herd_vec3 p, int *alert) {
  herd_vec3 away = herd_v3(0.0f, 0.0f, 0.0f);
  float fear2 = m->fear_radius_m * m->fear_radius_m;
  *alert = 0;
  for (herd_u32 e = 0; e < v->info->steering_count; ++e) {
    herd_vec3 d = herd_world_delta(v->grid, herd_steer_pos(v, e), p);
    if (herd_v3_len2(d) >= fear2) continue;
    away = herd_v3_add(away, herd_v3_unit(d));
    *alert = HERD_ALERT_REACTED;
  }
  return away;
}

/* Unit d turned by a wrapped Gaussian angle: a tangent vector t at d with each component
 * N(0, sigma^2) (one component in 2D), mapped onto the sphere (circle): cos|t| d + sin|t|
 * t/|t|. Box-Muller from one draw of (seed, step, id, HERD_STREAM_COUZIN_NOISE). */
HERD_INLINE herd_vec3 herd_couzin_noise(const herd_couzin_params *m, const herd_flock_view *v, herd_u32 self,
                                        herd_vec3 d) {
  if (m->noise_rad <= 0.0f) return d;
  const herd_step_info *in = v->info;
  herd_u32 dims = v->grid->dims;
  herd_rng4 bits = herd_rng_draw(herd_step_seed(in), in->step, herd_agent_id(v->agent[self]), HERD_STREAM_COUZIN_NOISE);
  float u1 = 1.0f - herd_rng_unit_float(bits.v[0]); /* (0, 1] */
  float angle = 6.28318530717958647692f * herd_rng_unit_float(bits.v[1]);
  float radius = m->noise_rad * herd_sqrtf(-2.0f * herd_couzin_logf(u1));
  herd_vec3 e1 = herd_couzin_perpendicular(d, dims);
  herd_vec3 t = herd_v3_scale(e1, radius * herd_cosf(angle));
  if (dims == 3u) t = herd_v3_madd(t, radius * herd_sinf(angle), herd_v3_cross(d, e1));
  float psi = herd_sqrtf(herd_v3_len2(t));
  if (psi <= 0.0f) return d;
  return herd_v3_unit(herd_v3_madd(herd_v3_scale(d, herd_cosf(psi)), herd_sinf(psi) / psi, t));
}

/* The world's features (kernels/env.h) bend the desired direction of agent `self` at p
 * [ours]: unit d plus the path's field times path.weight and the obstacles' push, made a unit
 * vector again (d as it was when they cancel it). Without a path or obstacles, d is untouched. */
HERD_INLINE herd_vec3 herd_couzin_world(const herd_flock_view *v, herd_u32 self, herd_vec3 p, herd_vec3 d) {
  const herd_env_info *e = &v->info->env;
  if (!e->has_path && !herd_env_obstacles(e)) return d;
  herd_vec3 bent = herd_v3_add(herd_v3_add(d, herd_agent_guide(v, self, p)), herd_env_push(v->env, e, p));
  if (v->grid->dims == 2u) bent.z = 0.0f;
  bent = herd_v3_unit(bent);
  return herd_v3_len2(bent) > 0.0f ? bent : d;
}

/* v turned toward unit d by at most max_turn (radians): d itself when it is that close. */
HERD_INLINE herd_vec3 herd_couzin_turn(herd_vec3 vel, herd_vec3 d, float max_turn, herd_u32 dims) {
  float c = herd_v3_dot(vel, d), cos_max = herd_cosf(max_turn);
  if (max_turn >= 3.14159265358979323846f || c >= cos_max) return d;
  herd_vec3 w = herd_v3_madd(d, -c, vel); /* the part of d across v */
  w = herd_v3_len2(w) > 1e-12f ? herd_v3_unit(w) : herd_couzin_perpendicular(vel, dims);
  return herd_v3_unit(herd_v3_madd(herd_v3_scale(vel, cos_max), herd_sinf(max_turn), w));
}

HERD_INLINE herd_agent_next herd_couzin_update(const herd_couzin_params *m, const herd_flock_view *v, herd_u32 self,
                                               herd_neighbour *scratch) {
  (void)scratch;
  herd_u32 dims = v->grid->dims;
  herd_vec3 p = herd_agent_pos(v, self), vel = herd_agent_vel(v, self);
  herd_agent_next next;
  herd_vec3 d = herd_couzin_flee(m, v, p, &next.alert);
  if (!next.alert) d = herd_couzin_desired(m, herd_couzin_neighbours(m, v, self, p, vel, 0));
  d = herd_v3_unit(d);
  if (herd_v3_len2(d) <= 0.0f) d = vel; /* no one seen, or the influences cancel */
  d = herd_couzin_world(v, self, p, d);
  d = herd_couzin_noise(m, v, self, d);
  float tau = m->time_step_s;
  next.vel = herd_couzin_turn(vel, d, m->turning_rate_deg_per_s * HERD_COUZIN_RAD_PER_DEG * tau, dims);
  if (dims == 2u) next.vel.z = 0.0f;
  next.pos = herd_world_wrap(v->grid, herd_v3_madd(p, m->speed_m_per_s * tau, next.vel));
  return next;
}

HERD_MODEL_ENTRY_BY_DIMS(couzin, herd_couzin_params, 1, 1)
HERD_MODEL_KERNELS_2D(couzin, herd_couzin_params, 1)
HERD_MODEL_KERNELS_3D(couzin, herd_couzin_params, 1)

/* ---- Host side: how the backends run it (kernels/models/steps.h) ------------------------------- */
#ifndef HERD_OPENCL
/* The viewer's marks (herd_sim_model_marks): r_a = r_r + Delta r_o + Delta r_a, the farthest
 * zone a fish reads (its blind zone aside); the fear radius about each steering agent. */
static inline void herd_couzin_marks(const void *params, herd_u32 count, herd_u32 delivered,
                                     herd_model_marks_out *out) {
  const herd_couzin_params *m = (const herd_couzin_params *)params;
  (void)count, (void)delivered;
  out->interaction_m = m->repulsion_radius_m + m->orientation_band_m + m->attraction_band_m;
  out->reaction_m = m->fear_radius_m;
}

/* Cells as large as the zone of attraction: a query then visits 3 x 3 x 3 cells. */
static inline float herd_couzin_cell_m(const void *params) {
  const herd_couzin_params *m = params;
  return m->repulsion_radius_m + m->orientation_band_m + m->attraction_band_m;
}

/* The zone of attraction's outer radius. */
static inline int herd_couzin_reach(const void *params, herd_u32 count, herd_model_reach *out, char *why, size_t size) {
  (void)count, (void)why, (void)size;
  out->radius_m = herd_couzin_cell_m(params);
  out->nearest = 0u;
  return 0;
}

/* A unit direction, uniform on the sphere (the circle in 2D). */
static inline herd_vec3 herd_couzin_initial_velocity(const void *params, herd_rng4 spawn_draw, herd_rng4 draw,
                                                     herd_u32 dims) {
  (void)params, (void)spawn_draw;
  if (dims == 3u) return herd_rng_direction3(draw.v[0], draw.v[1]);
  herd_vec2 h = herd_rng_direction(draw.v[0]);
  return herd_v3(h.x, h.y, 0.0f);
}

#endif
#endif
