/* The Strömbom et al. (2014) sheep: one update of one sheep, written once for both
 * backends. Equations and sources: docs/models/strombom.md.
 *
 *   H' = unit(h H + c C + rho_a R_a + rho_s R_s + e eps)    while a dog is within r_s
 *   H' = unit(rho_a R_a + e eps), with probability p          otherwise (grazing)
 *   P' = P + delta H'
 *
 * C points to the centre of the n nearest sheep, R_a away from sheep closer than r_a,
 * R_s away from every dog within r_s, eps is a random direction; each is a unit vector. */
#ifndef HERD_KERNELS_STROMBOM_H
#define HERD_KERNELS_STROMBOM_H
#include "grid.h"
#include "rng.h"

/* Plain 4-byte fields only, so the layout is identical in C and OpenCL C. */
typedef struct herd_strombom_params {
  float repulsion_radius_m; /* r_a */
  float dog_radius_m;       /* r_s */
  float inertia;            /* h */
  float attraction;         /* c */
  float repulsion;          /* rho_a */
  float dog_repulsion;      /* rho_s */
  float noise;              /* e */
  float graze_probability;  /* p */
  float speed_m_per_step;   /* delta */
  herd_u32 neighbours;      /* n */
} herd_strombom_params;

/* The state one sheep update produces. */
typedef struct herd_sheep_next {
  herd_vec2 pos;
  herd_vec2 heading;
} herd_sheep_next;

/* Unit sum of the directions away from every dog within r_s; *dogs_near counts them. */
HERD_INLINE herd_vec2 herd_strombom_dog_repulsion(herd_vec2 p, HERD_GLOBAL const herd_vec2 *dogs, herd_u32 dog_count,
                                                  float dog_radius_m, herd_u32 *dogs_near) {
  herd_vec2 sum = herd_v2(0.0f, 0.0f);
  float r2 = dog_radius_m * dog_radius_m;
  *dogs_near = 0;
  for (herd_u32 d = 0; d < dog_count; ++d) {
    herd_vec2 away = herd_v2_sub(p, dogs[d]);
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
                                                HERD_GLOBAL const herd_u32 *cell_end, HERD_GLOBAL const herd_vec2 *dogs,
                                                herd_u32 dog_count, herd_vec2 centroid, herd_u32 self, herd_u32 id,
                                                herd_u64 seed, herd_u32 step, herd_neighbour *scratch) {
  herd_sheep_next next;
  next.pos = pos[self];
  next.heading = heading[self];
  herd_u32 dogs_near, close;
  herd_vec2 r_s = herd_strombom_dog_repulsion(next.pos, dogs, dog_count, m->dog_radius_m, &dogs_near);
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

#endif
