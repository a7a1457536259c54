/* Reynolds boids: the parameters (scenario fields) and the checks between them: what the
 * scenario code reads of the model. Its update is kernels/models/boids.h. */
#ifndef HERD_KERNELS_MODELS_BOIDS_PARAMS_H
#define HERD_KERNELS_MODELS_BOIDS_PARAMS_H
#include "../params.h"

#define HERD_SECTION_boids "boids"
#define HERD_PARAMS_boids(X, M)                                                                                     \
  X(M, float, visual_range_m, 40, 0, 1e6, HERD_FIELD_MIN_OPEN, "m", "r_v: boids closer than this are seen")         \
  X(M, float, protected_range_m, 8, 0, 1e6, HERD_FIELD_MIN_OPEN, "m", "r_p: boids closer than this are avoided")    \
  X(M, float, centering, 0.0005, 0, 1, HERD_FIELD_CLOSED, "1/step", "c_c: pull toward the visible boids' centre")   \
  X(M, float, avoid, 0.05, 0, 1, HERD_FIELD_CLOSED, "1/step", "c_a: push away from protected-range boids")          \
  X(M, float, matching, 0.05, 0, 1, HERD_FIELD_CLOSED, "1/step", "c_m: pull toward the visible boids' velocity")    \
  X(M, float, min_speed_m_per_step, 3, 0, 1e6, HERD_FIELD_MIN_OPEN, "m/step", "s_min: slowest a boid flies")        \
  X(M, float, max_speed_m_per_step, 6, 0, 1e6, HERD_FIELD_MIN_OPEN, "m/step", "s_max: fastest a boid flies")        \
  X(M, float, turn_factor, 0.2, 0, 1e6, HERD_FIELD_CLOSED, "m/step^2", "tau: turn back inside a margin")            \
  X(M, float, margin_m, 100, 0, 1e6, HERD_FIELD_CLOSED, "m", "m: the band along an edge where boids turn back")     \
  X(M, float, fear_radius_m, 100, 0, 1e6, HERD_FIELD_CLOSED, "m", "R_f: steering agents closer than this are fled") \
  X(M, float, flee_factor, 0.5, 0, 1e6, HERD_FIELD_CLOSED, "m/step^2", "phi: the flee kick per axis")               \
  X(M, float, view_angle_deg, 360, 0, 360, HERD_FIELD_MIN_OPEN, "deg",                                              \
    "field of view; the rest is a blind angle behind")

HERD_PARAMS_STRUCT(herd_boids_params, HERD_PARAMS_boids)

#ifndef HERD_OPENCL
#include <stdio.h>

static inline int herd_boids_check(const void *params, herd_u32 count, char *why, size_t size) {
  const herd_boids_params *m = params;
  (void)count;
  if (m->min_speed_m_per_step > m->max_speed_m_per_step)
    return snprintf(why, size, "boids.min_speed_m_per_step: %g must be <= boids.max_speed_m_per_step (%g)",
                    (double)m->min_speed_m_per_step, (double)m->max_speed_m_per_step);
  if (m->protected_range_m > m->visual_range_m)
    return snprintf(why, size, "boids.protected_range_m: %g must be <= boids.visual_range_m (%g)",
                    (double)m->protected_range_m, (double)m->visual_range_m);
  return 0;
}

#endif
#endif
