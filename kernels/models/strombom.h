/* The Strömbom et al. (2014) sheep: one update of one sheep, written once for both
 * backends. Equations and sources: docs/models/strombom.md.
 *
 *   H' = unit(h H + c C + rho_a R_a + rho_s R_s + e eps)    while a dog is within r_s
 *   H' = unit(rho_a R_a + e eps), with probability p          otherwise (grazing)
 *   P' = P + delta H'
 *
 * C points to the centre of the n nearest sheep, R_a away from sheep closer than r_a,
 * R_s away from every dog (every steering agent) within r_s, eps is a random direction;
 * each is a unit vector. 2D, open world. With obstacles (kernels/env.h), a sheep that moves
 * adds their push O (obstacles.push at a surface, none beyond obstacles.margin_m) to the sum
 * before it is made a unit vector [ours]; the engine keeps it out of them.
 *
 * Variants (scenario fields, defaults first): the n nearest come from every sheep, or only
 * from the sheep that themselves react to a dog; a run succeeds when every sheep has been
 * delivered, when the flock's centroid is within the goal radius, or when every sheep has
 * been delivered and removed (as the authors' 2020 code does). */
#ifndef HERD_KERNELS_MODELS_STROMBOM_H
#define HERD_KERNELS_MODELS_STROMBOM_H
#include "../model.h"
#include "strombom_params.h"

/* The state one sheep update produces. */
typedef struct herd_sheep_next {
  herd_vec2 pos;
  herd_vec2 heading;
  herd_u32 dogs_near;
} herd_sheep_next;

/* Unit sum of the directions away from every dog within r_s; *dogs_near counts them.
 * `dogs`: HERD_STEER_FLOATS per steering agent (agent.h). */
HERD_INLINE herd_vec2 herd_strombom_dog_repulsion(herd_vec2 p, HERD_GLOBAL const float *dogs, herd_u32 dog_count,
                                                  float dog_radius_m, herd_u32 *dogs_near) {
  herd_vec2 sum = herd_v2(0.0f, 0.0f);
  float r2 = dog_radius_m * dog_radius_m;
  *dogs_near = 0;
  for (herd_u32 d = 0; d < dog_count; ++d) {
    herd_vec2 away = herd_v2_sub(p, herd_v2(dogs[HERD_STEER_FLOATS * d], dogs[HERD_STEER_FLOATS * d + 1u]));
    if (herd_v2_len2(away) >= r2) continue;
    sum = herd_v2_add(sum, herd_v2_unit(away));
    *dogs_near += 1u;
  }
  return herd_v2_unit(sum);
}

/* True when a dog is within r_s of p: the same test as herd_strombom_dog_repulsion's. */
HERD_INLINE int herd_strombom_near_a_dog(herd_vec2 p, HERD_GLOBAL const float *dogs, herd_u32 dog_count,
                                         float dog_radius_m) {
  float r2 = dog_radius_m * dog_radius_m;
  for (herd_u32 d = 0; d < dog_count; ++d)
    if (herd_v2_len2(herd_v2_sub(p, herd_v2(dogs[HERD_STEER_FLOATS * d], dogs[HERD_STEER_FLOATS * d + 1u]))) < r2)
      return 1;
  return 0;
}

/* The flock as one sheep's attraction sees it: which sheep may be among its n nearest. */
typedef struct herd_strombom_flock {
  const herd_grid *g;
  HERD_GLOBAL const herd_vec2 *pos;
  HERD_GLOBAL const herd_u32 *agent; /* the agent words: removed sheep are nobody's neighbours */
  HERD_GLOBAL const herd_u32 *cell_end;
  HERD_GLOBAL const float *dogs;
  herd_u32 dog_count;
  HERD_GLOBAL const float *env;    /* the world's obstacles (kernels/env.h), with ... */
  const herd_env_info *world;      /* ... their layout; NULL: none */
  HERD_GLOBAL const herd_i64 *lcm; /* each sheep's herd_strombom_sum from the pre-pass; NULL: none */
} herd_strombom_flock;

/* The offsets to the n nearest are summed in 64-bit fixed point, HERD_STROMBOM_FIX_SCALE
 * units per metre, so that the sum does not depend on the order it is taken in: the CPU's
 * heap order, a device's lanes (kernels/knn_coop.cl) and any split of them give the same
 * bits. 2^29 per metre keeps 1.9e-9 m, far below a float offset's own rounding at field
 * scale. Overflow: an offset is clamped to 2^25 m (3.4e7 m, beyond any two sheep of a world
 * of at most 1e7 m a side: sheep in the far pen are nobody's neighbours), so a term is below
 * 2^54 and a sum of n <= HERD_MAX_NEIGHBOURS = 2^8 terms below 2^62 < 2^63. The float to
 * integer cast truncates toward zero in C and in OpenCL C alike. */
#define HERD_STROMBOM_FIX_SCALE 536870912.0f  /* 2^29 */
#define HERD_STROMBOM_FIX_CLAMP_M 33554432.0f /* 2^25 */

typedef struct herd_strombom_sum {
  herd_i64 x, y;
} herd_strombom_sum;

HERD_INLINE herd_i64 herd_strombom_fix(float d) {
  /* Clamped without a branch (a max and a min instruction); NaN too, to the low end: its cast
   * is undefined. */
  d = d > -HERD_STROMBOM_FIX_CLAMP_M ? d : -HERD_STROMBOM_FIX_CLAMP_M;
  d = d < HERD_STROMBOM_FIX_CLAMP_M ? d : HERD_STROMBOM_FIX_CLAMP_M;
  return (herd_i64)(d * HERD_STROMBOM_FIX_SCALE); /* exact: a power of two, in range */
}

/* Adds the offset d (from the sheep to a neighbour) to s. */
HERD_INLINE void herd_strombom_sum_add(herd_strombom_sum *s, herd_vec2 d) {
  s->x += herd_strombom_fix(d.x);
  s->y += herd_strombom_fix(d.y);
}

/* The unit vector along a sum (zero for a zero sum): the direction of the centre of mass. */
HERD_INLINE herd_vec2 herd_strombom_sum_unit(herd_strombom_sum s) {
  float inv = 1.0f / HERD_STROMBOM_FIX_SCALE;
  return herd_v2_unit(herd_v2((float)s.x * inv, (float)s.y * inv));
}

/* True when the neighbour set is narrower than "every other sheep": the grid's queries, which
 * offer every sheep, then need checking. */
HERD_INLINE int herd_strombom_filters(const herd_strombom_params *m) {
  return m->neighbours_from != HERD_STROMBOM_FROM_ALL || m->success == HERD_STROMBOM_SUCCESS_REMOVE_DELIVERED;
}

/* True when sorted sheep j may be a neighbour: still in the flock and, with neighbours_from
 * = reacting, within r_s of a dog. */
HERD_INLINE int herd_strombom_candidate(const herd_strombom_params *m, const herd_strombom_flock *f, herd_u32 j) {
  if (herd_agent_removed(f->agent[j])) return 0;
  return m->neighbours_from == HERD_STROMBOM_FROM_ALL ||
         herd_strombom_near_a_dog(f->pos[j], f->dogs, f->dog_count, m->dog_radius_m);
}

/* The k nearest candidates to sorted sheep `self`, by a scan of the whole flock: the grid's
 * ring search offers every sheep, so when it found others this is the exact answer. Ties go
 * to the lower sorted index, as in the grid's search. */
HERD_INLINE herd_u32 herd_strombom_knn_candidates(const herd_strombom_params *m, const herd_strombom_flock *f,
                                                  herd_u32 self, herd_neighbour *best, herd_u32 k) {
  herd_vec2 p = f->pos[self];
  herd_u32 n = 0;
  for (herd_u32 j = 0; j < f->g->count; ++j) {
    if (j == self || !herd_strombom_candidate(m, f, j)) continue;
    n = herd_knn_insert(best, n, k, herd_v2_len2(herd_v2_sub(f->pos[j], p)), j);
  }
  return n;
}

/* The k nearest candidates: the grid's k nearest when all of them are candidates (then no
 * candidate is nearer than the k-th), else the scan. */
HERD_INLINE herd_u32 herd_strombom_nearest(const herd_strombom_params *m, const herd_strombom_flock *f, herd_u32 self,
                                           herd_neighbour *best, herd_u32 k) {
  herd_u32 found = herd_grid_knn(f->g, f->pos, f->cell_end, self, best, k);
  if (!herd_strombom_filters(m)) return found;
  for (herd_u32 q = 0; q < found; ++q)
    if (!herd_strombom_candidate(m, f, best[q].j)) return herd_strombom_knn_candidates(m, f, self, best, k);
  return found;
}

/* The sum of the offsets from sorted sheep `self` to its n nearest candidates, in fixed
 * point: what the attraction points along (zero when it has no neighbour). Offsets rather
 * than absolute positions keep precision far from the origin. */
#ifndef HERD_KNN_BOUNDED
#define HERD_STROMBOM_SCRATCH HERD_MAX_NEIGHBOURS /* the selection's array (kernels/grid.h) */
HERD_INLINE herd_strombom_sum herd_strombom_lcm_sum(const herd_strombom_params *m, const herd_strombom_flock *f,
                                                    herd_u32 self, herd_neighbour *scratch) {
  herd_strombom_sum s;
  s.x = 0, s.y = 0;
  herd_u32 found = herd_strombom_nearest(m, f, self, scratch, m->neighbours);
  herd_vec2 p = f->pos[self];
  for (herd_u32 q = 0; q < found; ++q) herd_strombom_sum_add(&s, herd_v2_sub(f->pos[scratch[q].j], p));
  return s;
}
#else
/* A GPU build: the same set without an array (kernels/grid.h's cut), so the same bits. */
#define HERD_STROMBOM_SCRATCH 1 /* unused */
HERD_INLINE herd_strombom_sum herd_strombom_lcm_sum(const herd_strombom_params *m, const herd_strombom_flock *f,
                                                    herd_u32 self, herd_neighbour *scratch) {
  (void)scratch;
  herd_strombom_sum s;
  s.x = 0, s.y = 0;
  herd_knn_cut cut;
  herd_i32 ring;
  float reach2;
  herd_grid_knn_cut(f->g, f->pos, f->cell_end, self, m->neighbours, &cut, &ring, &reach2);
  int filters = herd_strombom_filters(m), scan = 0;
  herd_knn_walk w = herd_knn_walk_begin(f->g, f->pos[self], self, ring, reach2);
  herd_u32 j;
  herd_vec2 d;
  float d2;
  while (herd_knn_walk_next(&w, f->g, f->pos, f->cell_end, &j, &d, &d2)) {
    if (!herd_knn_cut_selected(&cut, herd_knn_key(d2, j))) continue;
    if (filters && !herd_strombom_candidate(m, f, j)) {
      scan = 1; /* herd_strombom_nearest's case: the k nearest candidates of the whole flock */
      break;
    }
    herd_strombom_sum_add(&s, d);
  }
  if (!scan) return s;
  herd_vec2 p = f->pos[self];
  cut = herd_knn_cut_begin(m->neighbours);
  while (!cut.done) {
    uint16 bins = (uint16)(0u);
    for (j = 0; j < f->g->count; ++j)
      if (j != self && herd_strombom_candidate(m, f, j))
        bins = herd_knn_cut_count(&cut, bins, herd_knn_key(herd_v2_len2(herd_v2_sub(f->pos[j], p)), j));
    herd_knn_cut_step(&cut, bins);
  }
  s.x = 0, s.y = 0;
  for (j = 0; j < f->g->count; ++j) {
    if (j == self || !herd_strombom_candidate(m, f, j)) continue;
    d = herd_v2_sub(f->pos[j], p);
    if (herd_knn_cut_selected(&cut, herd_knn_key(herd_v2_len2(d), j))) herd_strombom_sum_add(&s, d);
  }
  return s;
}
#endif

/* Unit vector from sorted sheep `self` toward the centre of every other candidate (n = N - 1
 * with a narrowed neighbour set: the centroid of the whole flock is not theirs). */
HERD_INLINE herd_vec2 herd_strombom_toward_all(const herd_strombom_params *m, const herd_strombom_flock *f,
                                               herd_u32 self) {
  herd_vec2 p = f->pos[self], sum = herd_v2(0.0f, 0.0f);
  for (herd_u32 j = 0; j < f->g->count; ++j)
    if (j != self && herd_strombom_candidate(m, f, j)) sum = herd_v2_add(sum, herd_v2_sub(f->pos[j], p));
  return herd_v2_unit(sum);
}

/* Unit vector from p toward the centre of mass of the n nearest sheep. With n = N - 1 (all
 * the others) that centre is (N G - p) / (N - 1), whose direction from p is that of G - p:
 * the flock's centroid G stands in for a search of the whole flock. The observation's G leaves
 * out the sheep removed, so it stands in with sheep.success = remove_delivered too; with
 * neighbours_from = reacting the candidates are not the flock, and are summed. */
HERD_INLINE herd_vec2 herd_strombom_attraction(const herd_strombom_params *m, const herd_strombom_flock *f,
                                               herd_u32 self, herd_vec2 centroid, herd_neighbour *scratch) {
  herd_u32 neighbours = m->neighbours;
  if (neighbours + 1u >= f->g->flock_count) {
    if (m->neighbours_from != HERD_STROMBOM_FROM_ALL) return herd_strombom_toward_all(m, f, self);
    return herd_v2_unit(herd_v2_sub(centroid, f->pos[self]));
  }
  /* The pre-pass summed the same n nearest, unless it left this sheep to the search (every sum
   * is above -2^62, so none is HERD_PRE_SEARCH). */
  if (f->lcm && f->lcm[2u * self] != HERD_PRE_SEARCH) {
    herd_strombom_sum s;
    s.x = f->lcm[2u * self];
    s.y = f->lcm[2u * self + 1u];
    return herd_strombom_sum_unit(s);
  }
  return herd_strombom_sum_unit(herd_strombom_lcm_sum(m, f, self, scratch));
}

/* Next heading from the weighted terms; a heading that cancels to zero keeps the old one. */
HERD_INLINE herd_vec2 herd_strombom_heading(herd_vec2 heading, herd_vec2 sum) {
  herd_vec2 u = herd_v2_unit(sum);
  return herd_v2_len2(u) > 0.0f ? u : heading;
}

/* The terms of one sheep's update before they are weighted and summed: unit vectors, zero
 * where one does not apply. What herd_strombom_sheep moves by, and what a viewer shows of one
 * sheep's update (herd_strombom_explain): one computation for both. */
typedef struct herd_strombom_terms {
  herd_vec2 eps, r_a, heading, c, r_s;
  herd_vec2 push;     /* [ours] the obstacles' push (not a unit vector: obstacles.push at a surface) */
  int has_push;       /* the world has obstacles: push is added */
  int moves;          /* 0: a grazing sheep that stands still this step */
  herd_u32 dogs_near; /* the dogs within r_s: the full update (inertia, attraction, R_s) applies */
} herd_strombom_terms;

/* The terms of sorted sheep `self`'s update (identity `id`, step `step`); `centroid` is the
 * flock's centre of mass before the step (used when n = N - 1). */
HERD_INLINE herd_strombom_terms herd_strombom_sheep_terms(const herd_strombom_params *m, const herd_strombom_flock *f,
                                                          HERD_GLOBAL const herd_vec2 *heading, herd_vec2 centroid,
                                                          herd_u32 self, herd_u32 id, herd_u64 seed, herd_u32 step,
                                                          herd_neighbour *scratch) {
  herd_strombom_terms t;
  herd_vec2 pos = f->pos[self], zero = herd_v2(0.0f, 0.0f);
  herd_u32 close;
  t.heading = heading[self];
  t.r_s = herd_strombom_dog_repulsion(pos, f->dogs, f->dog_count, m->dog_radius_m, &t.dogs_near);
  t.eps = t.r_a = t.c = t.push = zero, t.has_push = 0, t.moves = 1;
  if (t.dogs_near == 0) {
    herd_rng4 graze_bits = herd_rng_draw(seed, step, id, HERD_STREAM_SHEEP_GRAZE);
    if (herd_rng_unit_float(graze_bits.v[0]) >= m->graze_probability) {
      t.moves = 0;
      return t;
    }
  }
  /* The noise's direction only for a sheep that moves (its sine and cosine are a tenth of a
   * grazing flock's step); the draws are counter-based, so where it is drawn changes nothing. */
  herd_rng4 noise_bits = herd_rng_draw(seed, step, id, HERD_STREAM_SHEEP_NOISE);
  t.eps = herd_rng_direction(noise_bits.v[0]);
  HERD_GLOBAL const herd_u32 *removed = m->success == HERD_STROMBOM_SUCCESS_REMOVE_DELIVERED ? f->agent : 0;
  t.r_a =
      herd_v2_unit(herd_grid_repulsion_sum(f->g, f->pos, f->cell_end, removed, self, m->repulsion_radius_m, &close));
  if (t.dogs_near > 0) t.c = herd_strombom_attraction(m, f, self, centroid, scratch);
  if (f->world && herd_env_obstacles(f->world)) { /* [ours] the obstacles' push, obstacles.push at a surface */
    herd_vec3 o = herd_env_push(f->env, f->world, herd_v3(pos.x, pos.y, 0.0f));
    t.push = herd_v2(o.x, o.y);
    t.has_push = 1;
  }
  return t;
}

/* The weighted sum of the terms, in the order the model has always summed them (the bits of
 * every run depend on it). */
HERD_INLINE herd_vec2 herd_strombom_terms_sum(const herd_strombom_params *m, const herd_strombom_terms *t) {
  herd_vec2 sum = herd_v2_madd(herd_v2_scale(t->eps, m->noise), m->repulsion, t->r_a);
  if (t->dogs_near > 0) {
    sum = herd_v2_madd(sum, m->inertia, t->heading);
    sum = herd_v2_madd(sum, m->attraction, t->c);
    sum = herd_v2_madd(sum, m->dog_repulsion, t->r_s);
  }
  if (t->has_push) sum = herd_v2_add(sum, t->push);
  return sum;
}

/* One update of sorted sheep `self` with stable identity `id` at step `step`. */
HERD_INLINE herd_sheep_next herd_strombom_sheep(const herd_strombom_params *m, const herd_strombom_flock *f,
                                                HERD_GLOBAL const herd_vec2 *heading, herd_vec2 centroid, herd_u32 self,
                                                herd_u32 id, herd_u64 seed, herd_u32 step, herd_neighbour *scratch) {
  herd_sheep_next next;
  next.pos = f->pos[self];
  next.heading = heading[self];
  herd_strombom_terms t = herd_strombom_sheep_terms(m, f, heading, centroid, self, id, seed, step, scratch);
  next.dogs_near = t.dogs_near;
  if (!t.moves) return next;
  next.heading = herd_strombom_heading(next.heading, herd_strombom_terms_sum(m, &t));
  next.pos = herd_v2_madd(next.pos, m->speed_m_per_step, next.heading);
  return next;
}

/* With success = remove_delivered, a sheep that is delivered (or arrives now) leaves the
 * flock at the end of this step: it goes to the pen, out of every other sheep's reach, and
 * stays there. The agent word records it (HERD_ALERT_REMOVE). */
HERD_INLINE int herd_strombom_leaves(const herd_strombom_params *m, const herd_flock_view *v, herd_u32 self,
                                     herd_vec2 pos) {
  const herd_step_info *in = v->info;
  herd_vec3 goal = herd_v3(in->goal[0], in->goal[1], in->goal[2]);
  return m->success == HERD_STROMBOM_SUCCESS_REMOVE_DELIVERED &&
         ((v->agent[self] & HERD_AGENT_DELIVERED) ||
          herd_env_in_goal(v->env, &in->env, herd_v3(pos.x, pos.y, 0.0f), goal, in->goal_radius_m));
}

/* The flock as the engine's view gives it. */
HERD_INLINE herd_strombom_flock herd_strombom_flock_of(const herd_flock_view *v) {
  herd_strombom_flock f;
  f.g = v->grid, f.pos = (HERD_GLOBAL const herd_vec2 *)v->pos, f.agent = v->agent, f.cell_end = v->cell_end;
  f.dogs = v->steer, f.dog_count = v->info->steering_count, f.env = v->env, f.world = &v->info->env, f.lcm = v->pre;
  return f;
}

/* The model's update in the engine's terms (kernels/model.h). */
HERD_INLINE herd_agent_next herd_strombom_update(const herd_strombom_params *m, const herd_flock_view *v, herd_u32 self,
                                                 herd_neighbour *scratch) {
  const herd_step_info *in = v->info;
  herd_agent_next next;
  next.pos = herd_agent_pos(v, self);
  next.vel = herd_agent_vel(v, self);
  next.alert = 0;
  if (herd_agent_removed(v->agent[self])) return next; /* in the pen for good */
  herd_strombom_flock f = herd_strombom_flock_of(v);
  herd_sheep_next s =
      herd_strombom_sheep(m, &f, (HERD_GLOBAL const herd_vec2 *)v->vel, herd_v2(in->centroid[0], in->centroid[1]), self,
                          herd_agent_id(v->agent[self]), herd_step_seed(in), in->step, scratch);
  next.pos = herd_v3(s.pos.x, s.pos.y, 0.0f);
  next.vel = herd_v3(s.heading.x, s.heading.y, 0.0f);
  next.alert = s.dogs_near > 0u ? HERD_ALERT_REACTED : 0;
  if (in->env.has_field || in->env.spheres) { /* where it really ends: a fence may stop it short of the goal */
    next.pos = herd_agent_end(v, self, next.pos, 0);
    next.alert |= HERD_ALERT_PLACED;
    s.pos = herd_v2(next.pos.x, next.pos.y);
  }
  if (herd_strombom_leaves(m, v, self, s.pos)) {
    /* A pen in the world keeps its sheep where they stand (nobody's neighbour any more); the
     * abstract pen is far away. */
    if (!in->env.goal_points) next.pos = herd_v3(HERD_STROMBOM_PEN_M, HERD_STROMBOM_PEN_M, 0.0f);
    next.alert |= HERD_ALERT_REMOVE;
  }
  return next;
}

HERD_MODEL_ENTRY(strombom, herd_strombom_params, HERD_STROMBOM_SCRATCH)

/* ---- Host side: how the backends run it (kernels/models/steps.h) ------------------------------- */
#ifndef HERD_OPENCL
/* Two r_a: a packed flock (sheep about r_a apart) puts a few sheep in each cell, so an
 * n = 50 query visits tens of cells rather than hundreds (bench/README.md). */
static inline float herd_strombom_cell_m(const void *params) {
  return 2.0f * ((const herd_strombom_params *)params)->repulsion_radius_m;
}

/* Its repulsion radius r_a and its n nearest; with n >= N - 1 the centroid (of the observation)
 * stands in for the nearest. A narrowed neighbour set scans the whole flock. */
static inline int herd_strombom_reach(const void *params, herd_u32 count, herd_model_reach *out, char *why,
                                      size_t size) {
  const herd_strombom_params *m = (const herd_strombom_params *)params;
  out->radius_m = m->repulsion_radius_m;
  out->nearest = m->neighbours + 1u >= count ? 0u : m->neighbours;
  if (m->neighbours_from != HERD_STROMBOM_FROM_ALL)
    return snprintf(why, size, "sheep.neighbours_from = reacting: a sheep's nearest are sought in the whole flock");
  if (m->success == HERD_STROMBOM_SUCCESS_REMOVE_DELIVERED)
    return snprintf(why, size, "sheep.success = remove_delivered: a sheep's nearest are sought in the whole flock");
  return 0;
}

/* A random heading, from the spawn draw (as since the first release: runs stay identical). */
static inline herd_vec3 herd_strombom_initial_velocity(const void *params, herd_rng4 spawn_draw,
                                                       herd_rng4 velocity_draw, herd_u32 dims) {
  (void)params, (void)velocity_draw, (void)dims;
  herd_vec2 h = herd_rng_direction(spawn_draw.v[2]);
  return herd_v3(h.x, h.y, 0.0f);
}

/* The viewer's radii (herd_sim_model_marks): f(N) = r_a N^(2/3) about the centroid, the
 * cohesion the dog gathers the flock to (src/steer/strombom_dog.c), N the sheep still in the
 * flock; r_s about each dog. */
static inline void herd_strombom_marks(const void *params, herd_u32 count, herd_u32 delivered,
                                       herd_model_marks_out *out) {
  const herd_strombom_params *m = (const herd_strombom_params *)params;
  herd_u32 n =
      m->success == HERD_STROMBOM_SUCCESS_REMOVE_DELIVERED ? (delivered < count ? count - delivered : 0u) : count;
  out->cohesion_m = m->repulsion_radius_m * powf((float)n, 2.0f / 3.0f);
  out->reaction_m = m->dog_radius_m;
  out->nearest_n = m->neighbours;
}

/* The terms of sorted sheep `self`'s update in this step's view, for a viewer
 * (HERD_EXPLAIN_MODELS): each weight times each unit direction, summed in this order, is the
 * sum herd_strombom_sheep turns into the new heading. A grazing sheep that stands still has
 * none (moved = 0); one far from every dog only noise and repulsion. */
static inline void herd_strombom_explain(const void *params, const herd_flock_view *v, herd_u32 self,
                                         herd_neighbour *scratch, herd_model_explanation *out) {
  const herd_strombom_params *m = (const herd_strombom_params *)params;
  herd_strombom_flock f = herd_strombom_flock_of(v);
  herd_strombom_terms t =
      herd_strombom_sheep_terms(m, &f, (const herd_vec2 *)v->vel, herd_v2(v->info->centroid[0], v->info->centroid[1]),
                                self, herd_agent_id(v->agent[self]), herd_step_seed(v->info), v->info->step, scratch);
  out->count = 0, out->moved = (herd_u32)t.moves;
  if (!t.moves) return;
  herd_model_explain_add(out, "noise e eps", m->noise, t.eps);
  herd_model_explain_add(out, "repulsion rho_a R_a", m->repulsion, t.r_a);
  if (t.dogs_near > 0) {
    herd_model_explain_add(out, "inertia h H", m->inertia, t.heading);
    herd_model_explain_add(out, "attraction c C", m->attraction, t.c);
    herd_model_explain_add(out, "dog repulsion rho_s R_s", m->dog_repulsion, t.r_s);
  }
  if (t.has_push) herd_model_explain_add(out, "obstacles O", 1.0f, t.push);
}

/* Whether the step needs the pre-pass of kernels/knn_coop.cl (the n nearest of the sheep
 * near a dog, found by several lanes per sheep): with the plain neighbour set and n < N - 1.
 * Otherwise the step kernel finds them itself. */
static inline int herd_strombom_prepass(const void *params, herd_u32 count) {
  const herd_strombom_params *m = (const herd_strombom_params *)params;
  return !herd_strombom_filters(m) && m->neighbours > 0u && m->neighbours + 1u < count;
}

/* The pre-pass serves the sheep within r_s of a dog (herd_pre_strombom_coop). */
static inline float herd_strombom_prepass_reach_m(const void *params) {
  return ((const herd_strombom_params *)params)->dog_radius_m;
}

#endif
#endif
