/* The artificial fish school of Ban, Ning & Tu (2008), "Research on advanced self-organization
 * behavior for artificial fish school", Acta Automatica Sinica 34(10): 1327-1332, on top of
 * Couzin's zones (couzin.h), in 3D. Each fish is in one of three behaviours a step, chosen by
 * its fear F and hunger H (the document's motivation switch, after Tu's artificial fishes):
 *
 *   F = min(sum_i min(D0 / d_i, 1), 1)     d_i: distance to threat i (D0 = fish.fear_radius_m)
 *   H = min(H0 + digested, 1)              0 after a meal, + P0 each step
 *   escape   when F >= f0, or a fish within the alarm radius saw a threat (it "sends a message")
 *   forage   else when H >= beta and a food particle is known (its own find or the school's)
 *   school   otherwise: Couzin's zones at the cruising speed s
 *
 *   school:  d from the zones (couzin.h; the neighbours' directions as unit vectors), world,
 *            noise, turn by at most theta tau;
 *            speed relaxes toward s: |v'| = |v| + (s - |v|) min(tau / T, 1)
 *   forage:  V' = w V + c1 r1 (P_k - X) + c2 r2 (P_g - X)      (eq. 11; V, V' in m per step)
 *            a fish in its zone of repulsion turns away first; |V'| below v_d tau: restart at
 *            r3 V_max with P_k = P_g (eqs. 13-14); speed within [V_min, V_max]
 *   escape:  e = 180 deg if v.v_p / |v||v_p| = -1; 0 if >= 0; else arccos(v.v_p / |v||v_p|) - pi/2
 *            (eqs. 17-19), turning away from the side the threat is on;
 *            dv/dt = (v0 e_hat - v) / T + sum_j A exp((r_ij - d_ij) / B) n_ij / m   (eqs. 15-16),
 *            one Euler step of tau with tau / T capped at 1
 *            with v0 = V_max, r_ij = 2 body radii, n_ij the unit vector from j to i
 *
 * Food particles are steering agents (HERD_ROLE_FOOD; the school's best find HERD_ROLE_FOOD_BEST,
 * chosen on the host). Each fish keeps two floats to its next step (HERD_ALERT_MEMORY): its own
 * best find (the particle's steering index + 1, 0 for none) and how much it has digested. What
 * the garbled text leaves open and what herd chose: docs/models/fish.md. */
#ifndef HERD_KERNELS_MODELS_FISH_H
#define HERD_KERNELS_MODELS_FISH_H
#include "couzin.h"
#include "fish_params.h"

#define HERD_FISH_PI 3.14159265358979323846f

/* Fear from every threat, and the nearest one. */
typedef struct herd_fish_threat {
  float fear;    /* F */
  int any;       /* the world holds a threat */
  herd_u32 near; /* the nearest threat's steering index */
} herd_fish_threat;

HERD_INLINE herd_fish_threat herd_fish_fear(const herd_fish_params *m, const herd_flock_view *v, herd_vec3 p) {
  herd_fish_threat t;
  t.fear = 0.0f, t.any = 0, t.near = 0u;
  float near2 = INFINITY;
  for (herd_u32 e = 0; e < v->info->steering_count; ++e) {
    if (herd_steer_role(v, e) != HERD_ROLE_THREAT) continue;
    float d2 = herd_v3_len2(herd_world_delta(v->grid, p, herd_steer_pos(v, e)));
    float d = herd_sqrtf(d2);
    t.fear += d > m->fear_radius_m ? m->fear_radius_m / d : 1.0f;
    if (d2 < near2) near2 = d2, t.near = e;
    t.any = 1;
  }
  t.fear = t.fear < 1.0f ? t.fear : 1.0f;
  return t;
}

/* What the neighbours within the alarm radius or the escape force's reach add. */
typedef struct herd_fish_crowd {
  int alarmed;    /* one of them saw a threat last step */
  herd_vec3 push; /* sum_j A exp((r_ij - d_ij) / B) n_ij */
} herd_fish_crowd;

/* The escape force is negligible beyond r_ij + 8 B (exp(-8) < 0.0004 of A). */
HERD_INLINE herd_fish_crowd herd_fish_neighbours(const herd_fish_params *m, const herd_flock_view *v, herd_u32 self,
                                                 herd_vec3 p) {
  herd_fish_crowd c;
  c.alarmed = 0;
  c.push = herd_v3(0.0f, 0.0f, 0.0f);
  float contact = 2.0f * m->body_radius_m, reach = contact + 8.0f * m->push_range_m;
  float alarm2 = m->alarm_radius_m * m->alarm_radius_m;
  herd_radius_query q;
  herd_radius_begin(&q, v->grid, p, reach > m->alarm_radius_m ? reach : m->alarm_radius_m, self);
  HERD_RADIUS_FOR_EACH(q, v->grid, v->pos, v->cell_end, v->grid->dims, j, d, d2, {
    if (alarm2 > 0.0f && d2 <= alarm2 && (v->agent[j] & HERD_AGENT_ALERT)) c.alarmed = 1;
    float dist = herd_sqrtf(d2);
    if (dist > reach || dist <= 0.0f) continue;
    float f = m->push_n * herd_expf((contact - dist) / m->push_range_m);
    c.push = herd_v3_madd(c.push, -f / dist, d); /* n_ij points from j to i: -d / dist */
  });
  return c;
}

/* Eqs. 17-19: how far a fish heading `dir` turns from a threat moving at `vp`. */
HERD_INLINE float herd_fish_escape_angle(herd_vec3 dir, herd_vec3 vp) {
  float speed = herd_sqrtf(herd_v3_len2(vp));
  float c = speed > 0.0f ? herd_v3_dot(dir, vp) / speed : 0.0f;
  if (c <= -1.0f + 1e-6f) return HERD_FISH_PI;
  if (c >= 0.0f) return 0.0f;
  return herd_acosf(c) - 0.5f * HERD_FISH_PI;
}

/* The desired escape direction: dir turned by the escape angle toward the side away from the
 * threat at `threat` (across dir; any perpendicular when the threat is dead ahead or behind). */
HERD_INLINE herd_vec3 herd_fish_escape_dir(const herd_flock_view *v, herd_vec3 p, herd_vec3 dir, herd_u32 e) {
  herd_vec3 away = herd_world_delta(v->grid, herd_steer_pos(v, e), p);
  herd_vec3 side = herd_v3_madd(away, -herd_v3_dot(away, dir), dir);
  side = herd_v3_len2(side) > 1e-12f ? herd_v3_unit(side) : herd_couzin_perpendicular(dir, 3u);
  float angle = herd_fish_escape_angle(dir, herd_steer_vel(v, e));
  return herd_v3_unit(herd_v3_madd(herd_v3_scale(dir, herd_cosf(angle)), herd_sinf(angle), side));
}

/* v scaled so that its length lies in [lo, hi] (direction `fallback` when v is 0). */
HERD_INLINE herd_vec3 herd_fish_clamp_speed(herd_vec3 v, float lo, float hi, herd_vec3 fallback) {
  float s = herd_sqrtf(herd_v3_len2(v));
  if (s <= 0.0f) return herd_v3_scale(fallback, lo);
  float t = s < lo ? lo : (s > hi ? hi : s);
  return herd_v3_scale(v, t / s);
}

/* min(tau / T, 1): the share of the gap to the desired velocity closed in one step (an Euler
 * step of the relaxation, kept from overshooting when tau > T). */
HERD_INLINE float herd_fish_relax(const herd_fish_params *m) {
  return m->time_step_s < m->relaxation_time_s ? m->time_step_s / m->relaxation_time_s : 1.0f;
}

/* Escape (eqs. 15-16, one explicit Euler step of tau). */
HERD_INLINE herd_vec3 herd_fish_escape(const herd_fish_params *m, const herd_flock_view *v, herd_u32 self, herd_vec3 p,
                                       herd_vec3 vel, herd_vec3 dir, herd_u32 threat, herd_vec3 push) {
  herd_vec3 want = herd_couzin_world(v, self, p, herd_fish_escape_dir(v, p, dir, threat));
  herd_vec3 next = herd_v3_madd(vel, herd_fish_relax(m), herd_v3_sub(herd_v3_scale(want, m->max_speed_m_per_s), vel));
  next = herd_v3_madd(next, m->time_step_s / m->mass_kg, push);
  return herd_fish_clamp_speed(next, m->min_speed_m_per_s, m->max_speed_m_per_s, dir);
}

/* Schooling: Couzin's turn toward the zones' direction at a speed relaxing toward s. */
HERD_INLINE herd_vec3 herd_fish_school(const herd_fish_params *m, const herd_couzin_params *z, const herd_flock_view *v,
                                       herd_u32 self, herd_vec3 p, herd_vec3 dir, float speed,
                                       herd_couzin_zones zones) {
  herd_vec3 d = herd_v3_unit(herd_couzin_desired(z, zones));
  if (herd_v3_len2(d) <= 0.0f) d = dir;
  d = herd_couzin_noise(z, v, self, herd_couzin_world(v, self, p, d));
  float tau = m->time_step_s, relax = herd_fish_relax(m);
  herd_vec3 turned = herd_couzin_turn(dir, d, m->turning_rate_deg_per_s * HERD_COUZIN_RAD_PER_DEG * tau, 3u);
  return herd_v3_scale(turned, speed + (m->speed_m_per_s - speed) * relax);
}

/* Where the fish's own best find and the school's lie; *own and *best are steering indices,
 * or steering_count for none. */
HERD_INLINE void herd_fish_finds(const herd_flock_view *v, herd_u32 own_memory, herd_u32 *own, herd_u32 *best) {
  herd_u32 n = v->info->steering_count;
  *own = own_memory >= 1u && own_memory <= n ? own_memory - 1u : n;
  if (*own < n && herd_steer_role(v, *own) != HERD_ROLE_FOOD && herd_steer_role(v, *own) != HERD_ROLE_FOOD_BEST)
    *own = n; /* eaten */
  *best = n;
  for (herd_u32 e = 0; e < n; ++e)
    if (herd_steer_role(v, e) == HERD_ROLE_FOOD_BEST) *best = e;
}

/* Foraging (eqs. 11-14): the particle swarm's step, in m per step. *own becomes the school's
 * best find when the fish stalls. */
HERD_INLINE herd_vec3 herd_fish_forage(const herd_fish_params *m, const herd_flock_view *v, herd_u32 self, herd_vec3 p,
                                       herd_vec3 vel, herd_vec3 dir, herd_u32 *own, herd_u32 best,
                                       herd_couzin_zones zones) {
  herd_u32 n = v->info->steering_count;
  herd_vec3 pk = herd_steer_pos(v, *own < n ? *own : best), pg = herd_steer_pos(v, best < n ? best : *own);
  const herd_step_info *in = v->info;
  herd_rng4 r = herd_rng_draw(herd_step_seed(in), in->step, herd_agent_id(v->agent[self]), HERD_STREAM_FISH_FORAGE);
  float tau = m->time_step_s;
  herd_vec3 step = herd_v3_scale(vel, m->inertia * tau);
  step = herd_v3_madd(step, m->cognitive * herd_rng_unit_float(r.v[0]), herd_world_delta(v->grid, p, pk));
  step = herd_v3_madd(step, m->social * herd_rng_unit_float(r.v[1]), herd_world_delta(v->grid, p, pg));
  float length = herd_sqrtf(herd_v3_len2(step));
  herd_vec3 heading = length > 0.0f ? herd_v3_scale(step, 1.0f / length) : dir;
  if (length < m->stall_speed_m_per_s * tau) { /* eqs. 13-14 */
    length = herd_rng_unit_float(r.v[2]) * m->max_speed_m_per_s * tau;
    if (best < n) *own = best;
  }
  if (zones.n_r > 0u) heading = herd_v3_unit(zones.d_r); /* avoid collisions first */
  heading = herd_couzin_world(v, self, p, heading);
  return herd_fish_clamp_speed(herd_v3_scale(heading, length / tau), m->min_speed_m_per_s, m->max_speed_m_per_s, dir);
}

/* H >= beta, from what the fish has digested (H = H0 + D). */
HERD_INLINE int herd_fish_hungry(const herd_fish_params *m, float digested) {
  return m->initial_hunger + digested >= m->hunger_threshold;
}

/* After the move, for a hungry fish: food within food.sense_radius_m becomes its own best find
 * when nearer than the one it has; food within food.eat_radius_m is a meal (hunger 0, no find
 * kept). A sated fish ignores food: it keeps its find, eats nothing and says so
 * (HERD_ALERT_SATED), so that the food it swims through is not eaten either. */
HERD_INLINE void herd_fish_remember(const herd_fish_params *m, const herd_flock_view *v, herd_vec3 p, herd_u32 own,
                                    float digested, herd_agent_next *next) {
  const herd_env_info *e = &v->info->env;
  herd_u32 n = v->info->steering_count;
  float own2 = own < n ? herd_v3_len2(herd_world_delta(v->grid, p, herd_steer_pos(v, own))) : INFINITY;
  float sense2 = e->sense_radius_m * e->sense_radius_m, eat2 = e->eat_radius_m * e->eat_radius_m;
  int ate = 0, hungry = herd_fish_hungry(m, digested); /* recomputed: one register less in the step */
  if (!hungry) next->alert |= HERD_ALERT_SATED;
  for (herd_u32 f = 0; hungry && f < n; ++f) {
    herd_u32 role = herd_steer_role(v, f);
    if (role != HERD_ROLE_FOOD && role != HERD_ROLE_FOOD_BEST) continue;
    float d2 = herd_v3_len2(herd_world_delta(v->grid, p, herd_steer_pos(v, f)));
    if (d2 <= eat2) ate = 1;
    if (d2 <= sense2 && d2 < own2) own2 = d2, own = f;
  }
  digested += m->digestion_per_step;
  if (m->initial_hunger + digested > 1.0f) digested = 1.0f - m->initial_hunger;
  if (ate) digested = -m->initial_hunger, own = n;
  next->memory[0] = own < n ? (float)(own + 1u) : 0.0f;
  next->memory[1] = digested;
  next->alert |= HERD_ALERT_MEMORY;
}

/* The unit direction of a fish moving at vel (+x when it is still), and its speed. */
HERD_INLINE herd_vec3 herd_fish_dir(herd_vec3 vel, float *speed) {
  *speed = herd_sqrtf(herd_v3_len2(vel));
  return *speed > 0.0f ? herd_v3_scale(vel, 1.0f / *speed) : herd_v3(1.0f, 0.0f, 0.0f);
}

/* Fish `self`'s step; its Couzin zones from `zones` (NULL: its own query, when it schools or
 * forages). */
HERD_INLINE herd_agent_next herd_fish_step(const herd_fish_params *m, const herd_flock_view *v, herd_u32 self,
                                           const herd_couzin_zones *zones) {
  herd_couzin_params z = herd_fish_zone_params(m);
  herd_vec3 p = herd_agent_pos(v, self), vel = herd_agent_vel(v, self);
  float speed;
  herd_vec3 dir = herd_fish_dir(vel, &speed);
  float digested = herd_agent_memory(v, self, 1u);
  herd_u32 own, best, n = v->info->steering_count;
  herd_fish_finds(v, (herd_u32)herd_agent_memory(v, self, 0u), &own, &best);

  herd_agent_next next;
  next.alert = 0;
  herd_fish_threat threat = herd_fish_fear(m, v, p);
  int escaping = 0;
  herd_fish_crowd crowd;
  crowd.alarmed = 0;
  crowd.push = herd_v3(0.0f, 0.0f, 0.0f);
  if (threat.any && m->escape == HERD_FISH_ESCAPE_BAN2008) {
    crowd = herd_fish_neighbours(m, v, self, p);
    if (threat.fear >= m->fear_threshold) next.alert = HERD_ALERT_REACTED; /* saw it: alarms the others */
    escaping = next.alert || crowd.alarmed;
  }
  if (escaping) {
    next.vel = herd_fish_escape(m, v, self, p, vel, dir, threat.near, crowd.push);
  } else {
    herd_couzin_zones own_zones = zones ? *zones : herd_couzin_neighbours(&z, v, self, p, dir, 1);
    if (herd_fish_hungry(m, digested) && (own < n || best < n))
      next.vel = herd_fish_forage(m, v, self, p, vel, dir, &own, best, own_zones);
    else
      next.vel = herd_fish_school(m, &z, v, self, p, dir, speed, own_zones);
  }
  next.pos = herd_world_wrap(v->grid, herd_v3_madd(p, m->time_step_s, next.vel));
  next.pos = herd_agent_end(v, self, next.pos, next.alert); /* the meal is judged where it ends */
  next.alert |= HERD_ALERT_PLACED;
  herd_fish_remember(m, v, next.pos, own, digested, &next);
  return next;
}

HERD_INLINE herd_agent_next herd_fish_update(const herd_fish_params *m, const herd_flock_view *v, herd_u32 self,
                                             herd_neighbour *scratch) {
  (void)scratch;
  return herd_fish_step(m, v, self, 0);
}

#ifndef HERD_OPENCL
/* herd_fish_dir without the speed. */
static inline herd_vec3 herd_fish_direction(herd_vec3 vel) {
  float speed;
  return herd_fish_dir(vel, &speed);
}

/* Fish [first, first + n) of a run (up to `last`) whose queries share their rows, their Couzin
 * zones in lanes (kernels/lanes.h; a fish that escapes leaves its lane unread), each finished
 * alone; n, at least 1. One fish at a time on the hash grid or for a run of one. The same bits
 * either way. */
static inline herd_u32 herd_fish_update_run(const herd_fish_params *m, const herd_flock_view *v, herd_u32 first,
                                            herd_u32 last, herd_neighbour *scratch, herd_agent_next *next) {
  herd_couzin_params z = herd_fish_zone_params(m);
  herd_couzin_zones zones[HERD_LANES];
  herd_u32 n = herd_couzin_zones_run(&z, v, first, last, herd_fish_direction, 1, zones);
  if (!n) {
    next[0] = herd_fish_update(m, v, first, scratch);
    return 1u;
  }
  for (herd_u32 l = 0; l < n; ++l) next[l] = herd_fish_step(m, v, first + l, &zones[l]);
  return n;
}
#endif

HERD_MODEL_ENTRY_BY_DIMS_IN_RUNS(fish, herd_fish_params, 1, 1)
HERD_MODEL_KERNELS_3D(fish, herd_fish_params, 1)

/* ---- Host side: how the backends run it (kernels/models/steps.h) ------------------------------- */
#ifndef HERD_OPENCL
/* Cells as large as the zone of attraction, as Couzin's. */
static inline float herd_fish_cell_m(const void *params) {
  herd_couzin_params z = herd_fish_zone_params(params);
  return herd_couzin_cell_m(&z);
}

/* Couzin's zones, the alarm radius, or the escape force's reach, whichever is largest. */
static inline int herd_fish_reach(const void *params, herd_u32 count, herd_model_reach *out, char *why, size_t size) {
  const herd_fish_params *m = params;
  (void)count, (void)why, (void)size;
  float push = 2.0f * m->body_radius_m + 8.0f * m->push_range_m, zones = herd_fish_cell_m(params);
  out->radius_m = push > m->alarm_radius_m ? push : m->alarm_radius_m;
  out->radius_m = zones > out->radius_m ? zones : out->radius_m;
  out->nearest = 0u;
  return 0;
}

/* Uniform directions on the sphere at the cruising speed s. */
static inline herd_vec3 herd_fish_initial_velocity(const void *params, herd_rng4 spawn_draw, herd_rng4 draw,
                                                   herd_u32 dims) {
  const herd_fish_params *m = params;
  return herd_v3_scale(herd_couzin_initial_velocity(params, spawn_draw, draw, dims), m->speed_m_per_s);
}

/* A school that starts sated (H0 < beta) starts flagged so: the first observation's nearest
 * fish to the food is a hungry one, as every later one is. */
static inline herd_u32 herd_fish_start_flags(const void *params) {
  const herd_fish_params *m = params;
  return m->initial_hunger < m->hunger_threshold ? HERD_AGENT_SATED : 0u;
}

#endif
#endif
