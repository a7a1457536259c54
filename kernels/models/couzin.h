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
#include "../lanes.h"
#include "../model.h"
#include "couzin_params.h"

#define HERD_COUZIN_RAD_PER_DEG 0.0174532925199432958f

#ifdef HERD_OPENCL
#define herd_couzin_logf(x) log(x)
#else
#define herd_couzin_logf(x) ((float)log((double)(x))) /* as kernels/portable.h's: the same on every C library */
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

/* The same sums as components, for one fish (F float, I herd_u32) or for lanes of fish on a
 * CPU (F herd_lanef, I herd_lanei; kernels/lanes.h). */
#define HERD_COUZIN_SUMS(F, I) \
  struct {                     \
    I n_r, n_o, n_a;           \
    F r_x, r_y, r_z;           \
    F o_x, o_y, o_z;           \
    F a_x, a_y, a_z;           \
  }
typedef HERD_COUZIN_SUMS(float, herd_u32) herd_couzin_sums;

/* A neighbour at offset (DX, DY, DZ), D2 its square, moving along the herd_vec3 W (made a unit
 * vector where UNIT), added to the sums s of the fish where IN (M: int for one fish,
 * herd_lanei for lanes), each fish moving along (VX, VY, VZ). Repulsion counts every fish within
 * r_r, all around; orientation and attraction only the fish outside the blind cone, and only
 * while none is within r_r (repulsion then decides alone). Masked (kernels/lanes.h), so that one
 * fish and lanes run the same statements, each part only where some fish takes it (as the
 * one-fish loop's branches: fewer registers on a GPU); dims 2 leaves z out (its sums keep their
 * start). The comparisons are the loop's own turned round (>= for not <): the same for every
 * finite offset. */
#define HERD_COUZIN_ADD(M, F, s, IN, DX, DY, DZ, D2, VX, VY, VZ, W, UNIT, r_r2, r_o2, cos_half, dims)                 \
  do {                                                                                                                \
    M near_ = (IN) & ((D2) < (r_r2)); /* unit(d): d / |d|, where D2 > 0 */                                            \
    if (herd_some(near_)) {                                                                                           \
      F inv_ = 1.0f / herd_root(D2);                                                                                  \
      (s).r_x -= herd_when(near_ & ((D2) > 0.0f), (DX)*inv_), (s).r_y -= herd_when(near_ & ((D2) > 0.0f), (DY)*inv_); \
      if ((dims) == 3u) (s).r_z -= herd_when(near_ & ((D2) > 0.0f), (DZ)*inv_);                                       \
      (s).n_r += near_ & 1;                                                                                           \
    }                                                                                                                 \
    M rest_ = (IN) & ((D2) >= (r_r2)) & ((s).n_r == 0);                                                               \
    if (herd_some(rest_)) {                                                                                           \
      F dot_ = (VX) * (DX) + (VY) * (DY);                                                                             \
      if ((dims) == 3u) dot_ = dot_ + (VZ) * (DZ);                                                                    \
      M seen_ = rest_ & (dot_ >= (cos_half)*herd_root(D2));                                                           \
      M orient_ = seen_ & ((D2) < (r_o2)), attract_ = seen_ & ((D2) >= (r_o2));                                       \
      if (herd_any(orient_)) {                                                                                        \
        herd_vec3 w_ = (W); /* read only where used */                                                                \
        if (UNIT) w_ = herd_v3_unit(w_);                                                                              \
        (s).o_x += herd_when(orient_, herd_spread(F, w_.x));                                                          \
        (s).o_y += herd_when(orient_, herd_spread(F, w_.y));                                                          \
        if ((dims) == 3u) (s).o_z += herd_when(orient_, herd_spread(F, w_.z));                                        \
        (s).n_o += orient_ & 1;                                                                                       \
      }                                                                                                               \
      if (herd_some(attract_)) {                                                                                      \
        F inv_ = 1.0f / herd_root(D2);                                                                                \
        (s).a_x += herd_when(attract_ & ((D2) > 0.0f), (DX)*inv_),                                                    \
            (s).a_y += herd_when(attract_ & ((D2) > 0.0f), (DY)*inv_);                                                \
        if ((dims) == 3u) (s).a_z += herd_when(attract_ & ((D2) > 0.0f), (DZ)*inv_);                                  \
        (s).n_a += attract_ & 1;                                                                                      \
      }                                                                                                               \
    }                                                                                                                 \
  } while (0)

/* The zones' outer radius r_a, the squares of r_r and r_o, and the cosine of half the field of
 * perception (-2: no blind cone) of parameters m. */
HERD_INLINE void herd_couzin_radii(const herd_couzin_params *m, float *r_a, float *r_r2, float *r_o2, float *cos_half) {
  float r_r = m->repulsion_radius_m, r_o = r_r + m->orientation_band_m;
  *r_a = r_o + m->attraction_band_m;
  *r_r2 = r_r * r_r, *r_o2 = r_o * r_o;
  *cos_half = m->field_of_perception_deg >= 360.0f
                  ? -2.0f
                  : herd_cosf(0.5f * m->field_of_perception_deg * HERD_COUZIN_RAD_PER_DEG);
}

/* One fish's zones from its sums (or a lane's, taken out). */
HERD_INLINE herd_couzin_zones herd_couzin_zones_of(const herd_couzin_sums *s) {
  herd_couzin_zones z;
  z.n_r = s->n_r, z.n_o = s->n_o, z.n_a = s->n_a;
  z.d_r = herd_v3(s->r_x, s->r_y, s->r_z);
  z.d_o = herd_v3(s->o_x, s->o_y, s->o_z);
  z.d_a = herd_v3(s->a_x, s->a_y, s->a_z);
  return z;
}

/* The zones of fish `self` at p moving along unit `vel`, one fish at a time; `unit_neighbours`
 * makes unit vectors of the neighbours' stored velocities (the fish model's hold speeds too). */
HERD_INLINE herd_couzin_zones herd_couzin_neighbours(const herd_couzin_params *m, const herd_flock_view *v,
                                                     herd_u32 self, herd_vec3 p, herd_vec3 vel, int unit_neighbours) {
  herd_couzin_sums s;
  s.n_r = s.n_o = s.n_a = 0u;
  s.r_x = s.r_y = s.r_z = s.a_x = s.a_y = s.a_z = 0.0f;
  s.o_x = vel.x, s.o_y = vel.y, s.o_z = vel.z; /* the fish itself: d_o sums from j = 1, i included */
  float r_a, r_r2, r_o2, cos_half;
  herd_couzin_radii(m, &r_a, &r_r2, &r_o2, &cos_half);
  herd_radius_query q;
  herd_radius_begin(&q, v->grid, p, r_a, self);
  HERD_RADIUS_FOR_EACH(q, v->grid, v->pos, v->cell_end, v->grid->dims, j, d, d2, {
    HERD_COUZIN_ADD(int, float, s, 1, d.x, d.y, d.z, d2, vel.x, vel.y, vel.z, herd_agent_vel(v, j), unit_neighbours,
                    r_r2, r_o2, cos_half, v->grid->dims);
  });
  return herd_couzin_zones_of(&s);
}

#ifndef HERD_OPENCL
typedef HERD_COUZIN_SUMS(herd_lanef, herd_lanei) herd_couzin_lanes_sums;

/* The zones of a lanes query's fish (kernels/lanes.h), lane l moving along unit vel[l], in
 * `dims` dimensions (a constant): each as herd_couzin_neighbours gives it. */
static inline void herd_couzin_lanes_zones_in(const herd_couzin_params *m, const herd_flock_view *v,
                                              herd_lanes_query *lq, const herd_vec3 *vel, int unit_neighbours,
                                              herd_u32 dims, herd_couzin_zones *out) {
  float r_a, r_r2, r_o2, cos_half;
  herd_couzin_radii(m, &r_a, &r_r2, &r_o2, &cos_half);
  herd_couzin_lanes_sums s = {0};
  herd_lanef vx = s.r_x, vy = s.r_x, vz = s.r_x;
  for (herd_u32 l = 0; l < HERD_LANES; ++l) { /* idle lanes repeat lane 0 */
    herd_vec3 u = vel[l < lq->count ? l : 0u];
    vx[l] = u.x, vy[l] = u.y, vz[l] = u.z;
  }
  s.o_x = vx, s.o_y = vy, s.o_z = vz;
  HERD_LANES_FOR_EACH(*lq, v->grid, v->pos, v->cell_end, dims, j, dx, dy, dz, d2, in, {
    HERD_COUZIN_ADD(herd_lanei, herd_lanef, s, in, dx, dy, dz, d2, vx, vy, vz, herd_load_vec(v->vel, j, dims),
                    unit_neighbours, r_r2, r_o2, cos_half, dims);
  });
  for (herd_u32 l = 0; l < lq->count; ++l) {
    herd_couzin_sums one = {(herd_u32)s.n_r[l], (herd_u32)s.n_o[l], (herd_u32)s.n_a[l], s.r_x[l], s.r_y[l], s.r_z[l],
                            s.o_x[l],           s.o_y[l],           s.o_z[l],           s.a_x[l], s.a_y[l], s.a_z[l]};
    out[l] = herd_couzin_zones_of(&one);
  }
}

/* herd_couzin_lanes_zones_in in the world's dims. */
static inline void herd_couzin_lanes_zones(const herd_couzin_params *m, const herd_flock_view *v, herd_lanes_query *lq,
                                           const herd_vec3 *vel, int unit_neighbours, herd_couzin_zones *out) {
  if (v->grid->dims == 2u)
    herd_couzin_lanes_zones_in(m, v, lq, vel, unit_neighbours, 2u, out);
  else
    herd_couzin_lanes_zones_in(m, v, lq, vel, unit_neighbours, 3u, out);
}

/* A fish's own direction for its zones as Couzin's fish hold it: the velocity, a unit vector. */
static inline herd_vec3 herd_couzin_own_direction(herd_vec3 vel) { return vel; }

/* Lanes for the run of fish from `first` (before `last`; zone parameters m) and each one's zones
 * (zones[l]), fish l moving along direction(its velocity), the neighbours' velocities made unit
 * vectors where unit_neighbours: how many fish (at least 2), or 0 where lanes do not apply (the
 * caller steps the first fish alone). */
static inline herd_u32 herd_couzin_zones_run(const herd_couzin_params *m, const herd_flock_view *v, herd_u32 first,
                                             herd_u32 last, herd_vec3 (*direction)(herd_vec3), int unit_neighbours,
                                             herd_couzin_zones *zones) {
  float r_a, r_r2, r_o2, cos_half;
  herd_couzin_radii(m, &r_a, &r_r2, &r_o2, &cos_half);
  herd_lanes_query lq;
  herd_u32 n = herd_lanes_try(&lq, v->grid, v->pos, first, last, r_a, 1);
  if (!n) return 0u;
  herd_vec3 dir[HERD_LANES];
  for (herd_u32 l = 0; l < n; ++l) dir[l] = direction(herd_agent_vel(v, first + l));
  herd_couzin_lanes_zones(m, v, &lq, dir, unit_neighbours, zones);
  return n;
}
#endif

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

/* Fish `self`'s step; its zones from `zones` (NULL: its own query, when it does not flee). */
HERD_INLINE herd_agent_next herd_couzin_step(const herd_couzin_params *m, const herd_flock_view *v, herd_u32 self,
                                             const herd_couzin_zones *zones) {
  herd_u32 dims = v->grid->dims;
  herd_vec3 p = herd_agent_pos(v, self), vel = herd_agent_vel(v, self);
  herd_agent_next next;
  next.memory[0] = next.memory[1] = 0.0f; /* none kept; set, as next is copied whole */
  herd_vec3 d = herd_couzin_flee(m, v, p, &next.alert);
  if (!next.alert) d = herd_couzin_desired(m, zones ? *zones : herd_couzin_neighbours(m, v, self, p, vel, 0));
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

HERD_INLINE herd_agent_next herd_couzin_update(const herd_couzin_params *m, const herd_flock_view *v, herd_u32 self,
                                               herd_neighbour *scratch) {
  (void)scratch;
  return herd_couzin_step(m, v, self, 0);
}

#ifndef HERD_OPENCL
/* Fish [first, first + n) of a run (up to `last`) whose queries share their rows, their zones
 * in lanes (kernels/lanes.h), each finished alone; n, at least 1. One fish at a time on the
 * hash grid or for a run of one. The same bits either way. */
static inline herd_u32 herd_couzin_update_run(const herd_couzin_params *m, const herd_flock_view *v, herd_u32 first,
                                              herd_u32 last, herd_neighbour *scratch, herd_agent_next *next) {
  herd_couzin_zones zones[HERD_LANES];
  herd_u32 n = herd_couzin_zones_run(m, v, first, last, herd_couzin_own_direction, 0, zones);
  if (!n) {
    next[0] = herd_couzin_update(m, v, first, scratch);
    return 1u;
  }
  for (herd_u32 l = 0; l < n; ++l) next[l] = herd_couzin_step(m, v, first + l, &zones[l]);
  return n;
}
#endif

HERD_MODEL_ENTRY_BY_DIMS_IN_RUNS(couzin, herd_couzin_params, 1, 1)
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
