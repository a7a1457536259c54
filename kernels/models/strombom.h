/* The Strömbom et al. (2014) sheep: one update of one sheep, written once for both
 * backends. Equations and sources: docs/models/strombom.md.
 *
 *   H' = unit(h H + c C + rho_a R_a + rho_s R_s + e eps)    while a dog is within r_s
 *   H' = unit(rho_a R_a + e eps), with probability p          otherwise (grazing)
 *   P' = P + delta H'
 *
 * C points to the centre of the n nearest sheep, R_a away from sheep closer than r_a,
 * R_s away from every dog (every steering agent) within r_s, eps is a random direction;
 * each is a unit vector. 2D, open world. */
#ifndef HERD_KERNELS_MODELS_STROMBOM_H
#define HERD_KERNELS_MODELS_STROMBOM_H
#include "../model.h"

/* The "sheep" fields: X(model, type, name, default, min, max, flags, unit, meaning).
 * sheep.count and sheep.spawn are the engine's (every model's flock has them). Further
 * limits on neighbours in the scenario code: 1 to 256, or sheep.count - 1. */
#define HERD_SECTION_strombom "sheep"
#define HERD_PARAMS_strombom(X, M)                                                                               \
  X(M, herd_u32, neighbours, 50, 0, 1e8, HERD_FIELD_CLOSED, "",                                                  \
    "n: the sheep attracted to the centre of its n nearest")                                                     \
  X(M, float, speed_m_per_step, 1, 0, 1000, HERD_FIELD_MIN_OPEN, "m/step", "delta: a sheep's step length")       \
  X(M, float, repulsion_radius_m, 2, 0, 1000, HERD_FIELD_MIN_OPEN, "m", "r_a: sheep closer than this repel")     \
  X(M, float, dog_radius_m, 65, 0, 1e9, HERD_FIELD_CLOSED, "m", "r_s: a sheep reacts to a dog closer than this") \
  X(M, float, inertia, 0.5, 0, 1000, HERD_FIELD_CLOSED, "", "h: weight of the previous heading")                 \
  X(M, float, attraction, 1.05, 0, 1000, HERD_FIELD_CLOSED, "", "c: weight of the attraction to the neighbours") \
  X(M, float, repulsion, 2, 0, 1000, HERD_FIELD_CLOSED, "", "rho_a: weight of the repulsion between sheep")      \
  X(M, float, dog_repulsion, 1, 0, 1000, HERD_FIELD_CLOSED, "", "rho_s: weight of the repulsion from dogs")      \
  X(M, float, noise, 0.3, 0, 1000, HERD_FIELD_CLOSED, "", "e: weight of the random direction")                   \
  X(M, float, graze_probability, 0.05, 0, 1, HERD_FIELD_CLOSED, "", "p: chance a sheep far from dogs moves")

HERD_PARAMS_STRUCT(herd_strombom_params, HERD_PARAMS_strombom)

/* The state one sheep update produces. */
typedef struct herd_sheep_next {
  herd_vec2 pos;
  herd_vec2 heading;
  herd_u32 dogs_near;
} herd_sheep_next;

/* Unit sum of the directions away from every dog within r_s; *dogs_near counts them.
 * `dogs`: float4 per steering agent. */
HERD_INLINE herd_vec2 herd_strombom_dog_repulsion(herd_vec2 p, HERD_GLOBAL const float *dogs, herd_u32 dog_count,
                                                  float dog_radius_m, herd_u32 *dogs_near) {
  herd_vec2 sum = herd_v2(0.0f, 0.0f);
  float r2 = dog_radius_m * dog_radius_m;
  *dogs_near = 0;
  for (herd_u32 d = 0; d < dog_count; ++d) {
    herd_vec2 away = herd_v2_sub(p, herd_v2(dogs[4u * d], dogs[4u * d + 1u]));
    if (herd_v2_len2(away) >= r2) continue;
    sum = herd_v2_add(sum, herd_v2_unit(away));
    *dogs_near += 1u;
  }
  return herd_v2_unit(sum);
}

/* Unit vector from p toward the centre of mass of the n nearest sheep. With n = N - 1 (all
 * the others) that centre is (N G - p) / (N - 1), whose direction from p is that of G - p:
 * the flock's centroid G stands in for a search of the whole flock. */
HERD_INLINE herd_vec2 herd_strombom_attraction(const herd_grid *g, HERD_GLOBAL const herd_vec2 *pos,
                                               HERD_GLOBAL const herd_u32 *cell_end, herd_u32 self, herd_u32 neighbours,
                                               herd_vec2 centroid, herd_neighbour *scratch) {
  if (neighbours + 1u >= g->count) return herd_v2_unit(herd_v2_sub(centroid, pos[self]));
  herd_u32 found = herd_grid_knn(g, pos, cell_end, self, scratch, neighbours);
  if (found == 0) return herd_v2(0.0f, 0.0f);
  herd_vec2 p = pos[self], sum = herd_v2(0.0f, 0.0f);
  /* Offsets from p rather than absolute positions keep precision far from the origin. */
  for (herd_u32 m = 0; m < found; ++m) sum = herd_v2_add(sum, herd_v2_sub(pos[scratch[m].j], p));
  return herd_v2_unit(sum);
}

/* Next heading from the weighted terms; a heading that cancels to zero keeps the old one. */
HERD_INLINE herd_vec2 herd_strombom_heading(herd_vec2 heading, herd_vec2 sum) {
  herd_vec2 u = herd_v2_unit(sum);
  return herd_v2_len2(u) > 0.0f ? u : heading;
}

/* One update of sorted sheep `self` with stable identity `id` at step `step`; `centroid` is
 * the flock's centre of mass before the step (used when n = N - 1). */
HERD_INLINE herd_sheep_next herd_strombom_sheep(const herd_strombom_params *m, const herd_grid *g,
                                                HERD_GLOBAL const herd_vec2 *pos, HERD_GLOBAL const herd_vec2 *heading,
                                                HERD_GLOBAL const herd_u32 *cell_end, HERD_GLOBAL const float *dogs,
                                                herd_u32 dog_count, herd_vec2 centroid, herd_u32 self, herd_u32 id,
                                                herd_u64 seed, herd_u32 step, herd_neighbour *scratch) {
  herd_sheep_next next;
  next.pos = pos[self];
  next.heading = heading[self];
  herd_u32 dogs_near, close;
  herd_vec2 r_s = herd_strombom_dog_repulsion(next.pos, dogs, dog_count, m->dog_radius_m, &dogs_near);
  next.dogs_near = dogs_near;
  herd_rng4 noise_bits = herd_rng_draw(seed, step, id, HERD_STREAM_SHEEP_NOISE);
  herd_vec2 eps = herd_rng_direction(noise_bits.v[0]);
  if (dogs_near == 0) {
    herd_rng4 graze_bits = herd_rng_draw(seed, step, id, HERD_STREAM_SHEEP_GRAZE);
    if (herd_rng_unit_float(graze_bits.v[0]) >= m->graze_probability) return next;
  }
  herd_vec2 r_a = herd_v2_unit(herd_grid_repulsion_sum(g, pos, cell_end, self, m->repulsion_radius_m, &close));
  herd_vec2 sum = herd_v2_madd(herd_v2_scale(eps, m->noise), m->repulsion, r_a);
  if (dogs_near > 0) {
    herd_vec2 c = herd_strombom_attraction(g, pos, cell_end, self, m->neighbours, centroid, scratch);
    sum = herd_v2_madd(sum, m->inertia, next.heading);
    sum = herd_v2_madd(sum, m->attraction, c);
    sum = herd_v2_madd(sum, m->dog_repulsion, r_s);
  }
  next.heading = herd_strombom_heading(next.heading, sum);
  next.pos = herd_v2_madd(next.pos, m->speed_m_per_step, next.heading);
  return next;
}

/* The model's update in the engine's terms (kernels/model.h). */
HERD_INLINE herd_agent_next herd_strombom_update(const herd_strombom_params *m, const herd_flock_view *v, herd_u32 self,
                                                 herd_neighbour *scratch) {
  const herd_step_info *in = v->info;
  herd_sheep_next s =
      herd_strombom_sheep(m, v->grid, (HERD_GLOBAL const herd_vec2 *)v->pos, (HERD_GLOBAL const herd_vec2 *)v->vel,
                          v->cell_end, v->steer, in->steering_count, herd_v2(in->centroid[0], in->centroid[1]), self,
                          herd_agent_id(v->agent[self]), herd_step_seed(in), in->step, scratch);
  herd_agent_next next;
  next.pos = herd_v3(s.pos.x, s.pos.y, 0.0f);
  next.vel = herd_v3(s.heading.x, s.heading.y, 0.0f);
  next.alert = s.dogs_near > 0u;
  return next;
}

HERD_MODEL_ENTRY(strombom, herd_strombom_params, HERD_MAX_NEIGHBOURS)

/* ---- Host side: the rest of the model's row (kernels/models/models.h) ------------------------ */
#ifndef HERD_OPENCL
#include <stdio.h>

/* Two r_a: a packed flock (sheep about r_a apart) puts a few sheep in each cell, so an
 * n = 50 query visits tens of cells rather than hundreds (bench/README.md). */
static inline float herd_strombom_cell_m(const void *params) {
  return 2.0f * ((const herd_strombom_params *)params)->repulsion_radius_m;
}

/* A random heading, from the spawn draw (as since the first release: runs stay identical). */
static inline herd_vec3 herd_strombom_initial_velocity(const void *params, herd_rng4 spawn_draw,
                                                       herd_rng4 velocity_draw, herd_u32 dims) {
  (void)params, (void)velocity_draw, (void)dims;
  herd_vec2 h = herd_rng_direction(spawn_draw.v[2]);
  return herd_v3(h.x, h.y, 0.0f);
}

/* The n-nearest search keeps its selection in each agent's private memory on a device, so
 * it is bounded (kernels/grid.h); only n = N - 1 (the whole flock, through its centroid)
 * needs no search. Writes what is wrong into `why`; 0 when nothing is. */
static inline int herd_strombom_check(const void *params, herd_u32 count, char *why, size_t size) {
  herd_u32 n = ((const herd_strombom_params *)params)->neighbours, everyone = count - 1u;
  if (n == 0u || (n > HERD_MAX_NEIGHBOURS && n < count && n != everyone))
    return snprintf(why, size,
                    "sheep.neighbours: %u is out of range (allowed: an integer from 1 to %u, or sheep.count - 1 = %u "
                    "for attraction to the whole flock)",
                    n, (herd_u32)HERD_MAX_NEIGHBOURS, everyone);
  if (n >= count)
    return snprintf(why, size, "sheep.neighbours: %u must be less than sheep.count (%u): a sheep has at most %u others",
                    n, count, everyone);
  return 0;
}

#endif
#endif
