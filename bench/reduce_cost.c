/* What the OpenCL observation costs (bench/results/opencl-reduce.md): the backend's reduce
 * alone, without the step around it, on a flock of N Strömbom sheep spread uniformly over a
 * square at the all-active density (one sheep per 4 m^2) with STEERING steering agents. Prints
 * the median wall-clock milliseconds of one reduce (a blocking read ends it) over ROUNDS calls,
 * after two untimed ones (the first launches compile on PoCL).
 *
 *   reduce_cost N STEERING ROUNDS [ROOM]
 *
 * ROOM: the steering agents the program's partials are sized for (desc.steering_count; default
 * STEERING). Built with -DHERD_REDUCE_BEFORE against a tree without that field (ca7f859) it
 * measures the reduction before issue 15. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "backend/cl/cl_backend.h"
#include "backend_util.h"
#include "rng.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: reduce_cost N STEERING ROUNDS [ROOM]\n");
    return 2;
  }
  uint32_t n = (uint32_t)strtoul(argv[1], NULL, 10), steering = (uint32_t)strtoul(argv[2], NULL, 10);
  int rounds = atoi(argv[3]);
  float side = 2.0f * sqrtf((float)n); /* n sheep on side^2 = 4n m^2 */
  herd_scenario sc = scenario_with(NULL, 0);
  herd_backend_desc d = backend_desc_for(&sc, n, 0);
#ifndef HERD_REDUCE_BEFORE
  d.steering_count = argc > 4 ? (uint32_t)strtoul(argv[4], NULL, 10) : steering;
#endif
  float *pos = malloc(2 * (size_t)n * sizeof *pos), *vel = malloc(2 * (size_t)n * sizeof *vel);
  double *ms = malloc((size_t)(rounds > 0 ? rounds : 1) * sizeof *ms);
  float steer[HERD_STEER_FLOATS * HERD_MAX_STEERING] = {0};
  for (uint32_t i = 0; i < n; ++i) {
    herd_rng4 r = herd_rng_draw(7, 0, i, 3);
    herd_vec2 h = herd_rng_direction(r.v[2]);
    pos[2 * i] = side * herd_rng_unit_float(r.v[0]), pos[2 * i + 1] = side * herd_rng_unit_float(r.v[1]);
    vel[2 * i] = h.x, vel[2 * i + 1] = h.y;
  }
  for (uint32_t k = 0; k < steering; ++k) /* around the flock's edge */
    steer[HERD_STEER_FLOATS * k] = side * (float)k / (float)steering, steer[HERD_STEER_FLOATS * k + 1] = -5.0f;
  herd_backend *b;
  herd_error err;
  herd_observation obs;
  herd_steering_input in = {steer, steering};
  if (herd_cl_backend.create(&d, &b, &err) != HERD_OK || herd_cl_backend.upload(b, pos, vel, &err) != HERD_OK) {
    fprintf(stderr, "reduce_cost: %s\n", err.message);
    return 1;
  }
  for (int r = -2; r < rounds; ++r) {
    double start = now_ms();
    if (herd_cl_backend.reduce(b, in, &obs, &err) != HERD_OK) {
      fprintf(stderr, "reduce_cost: %s\n", err.message);
      return 1;
    }
    if (r >= 0) ms[r] = now_ms() - start;
  }
  qsort(ms, (size_t)rounds, sizeof *ms, by_value);
  printf("n=%u steering=%u rounds=%d median_ms=%.4f centroid=(%.6f, %.6f)\n", n, steering, rounds, ms[rounds / 2],
         obs.centroid[0], obs.centroid[1]);
  herd_cl_backend.destroy(b);
  free(pos), free(vel), free(ms);
  return 0;
}
