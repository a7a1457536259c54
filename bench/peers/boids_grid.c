/* A plain grid boids loop in one C11 file: what a user would write instead of herd, kept as a
 * peer for bench/boids-peers.sh. Not part of herd, and deliberately not tuned beyond what the
 * obvious version does.
 *
 * Rules: Cornell ECE 4760 "Boids" (V. Hunter Adams), herd's boids defaults
 * (docs/models/boids.md) on a wrap-around torus instead of the margins:
 *   - separation: sum of (self - other) over boids closer than the protected range (8),
 *     times avoidfactor 0.05;
 *   - alignment and cohesion over boids within the visual range (40) but not within the
 *     protected range: v += (mean_pos - pos) * 0.0005 + (mean_vel - vel) * 0.05;
 *   - speed clamped to [3, 6]; pos += v; positions wrap around [0, W)^2.
 * Distances use the torus (minimum image).
 *
 * Each step: a counting sort into a dense grid of cells (side >= the visual range, W /
 * floor(W / 40)), then every boid reads the sorted copy (its 3 x 3 block of cells) and writes
 * its new state into the other buffer (synchronous, like herd). Double precision, structure
 * of arrays. Built with -fopenmp the cell pass and the update run in parallel over boids.
 *
 * usage: boids_grid N STEPS [WORLD_SIZE [SEED]]
 *   default WORLD_SIZE = sqrt(N * pi * 40^2 / 20): 20 boids within the visual range of each
 *   at the uniform start, the density of `herd bench --model boids`.
 * Prints the time per step of the step loop, the mean number of neighbours within the visual
 * range and a checksum that is the same for any thread count. */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define VISUAL_RANGE 40.0
#define PROTECTED_RANGE 8.0
#define CENTERING 0.0005
#define AVOID 0.05
#define MATCHING 0.05
#define MIN_SPEED 3.0
#define MAX_SPEED 6.0
#define NEIGHBOURS_TARGET 20.0

typedef struct {
  double *x, *y, *vx, *vy;
} state;

static uint64_t rng_state;
static uint64_t splitmix64(void) {
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static double urand(void) { return (double)(splitmix64() >> 11) * 0x1.0p-53; }

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  return p;
}

static void state_alloc(state *s, size_t n) {
  s->x = xmalloc(n * sizeof(double));
  s->y = xmalloc(n * sizeof(double));
  s->vx = xmalloc(n * sizeof(double));
  s->vy = xmalloc(n * sizeof(double));
}

static void state_free(state *s) {
  free(s->x);
  free(s->y);
  free(s->vx);
  free(s->vy);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline double wrap_pos(double p, double w) {
  if (p >= w)
    p -= w;
  else if (p < 0.0) {
    p += w;
    if (p >= w) /* -tiny + w rounded up to w */
      p = 0.0;
  }
  return p;
}

static inline double min_image(double d, double w) {
  if (d > 0.5 * w)
    d -= w;
  else if (d < -0.5 * w)
    d += w;
  return d;
}

/* New velocity and position of one boid from its accumulated neighbour sums
 * (offsets are relative to the boid, so cohesion is (mean offset) * CENTERING). */
static inline void apply_rules(double x, double y, double vx, double vy, double sum_dx, double sum_dy, double sum_vx,
                               double sum_vy, long cnt, double close_dx, double close_dy, double w, double *ox,
                               double *oy, double *ovx, double *ovy) {
  if (cnt > 0) {
    double inv = 1.0 / (double)cnt;
    vx += (sum_dx * inv) * CENTERING + (sum_vx * inv - vx) * MATCHING;
    vy += (sum_dy * inv) * CENTERING + (sum_vy * inv - vy) * MATCHING;
  }
  vx += close_dx * AVOID;
  vy += close_dy * AVOID;
  double speed = sqrt(vx * vx + vy * vy);
  if (speed > 0.0 && speed < MIN_SPEED) {
    vx = vx / speed * MIN_SPEED;
    vy = vy / speed * MIN_SPEED;
  } else if (speed > MAX_SPEED) {
    vx = vx / speed * MAX_SPEED;
    vy = vy / speed * MAX_SPEED;
  }
  *ox = wrap_pos(x + vx, w);
  *oy = wrap_pos(y + vy, w);
  *ovx = vx;
  *ovy = vy;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s N STEPS [WORLD_SIZE [SEED]]\n", argv[0]);
    return 2;
  }
  long n = atol(argv[1]);
  long steps = atol(argv[2]);
  double w = argc > 3 ? atof(argv[3]) : 0.0;
  uint64_t seed = argc > 4 ? strtoull(argv[4], NULL, 10) : 12345u;
  if (n < 1 || steps < 0) {
    fprintf(stderr, "N must be >= 1 and STEPS >= 0\n");
    return 2;
  }
  if (w <= 0.0) w = sqrt((double)n * M_PI * VISUAL_RANGE * VISUAL_RANGE / NEIGHBOURS_TARGET);
  if (w <= 2.0 * MAX_SPEED) {
    fprintf(stderr, "WORLD_SIZE too small\n");
    return 2;
  }

  /* grid: ncell x ncell cells of side w / ncell >= VISUAL_RANGE */
  long ncell = (long)floor(w / VISUAL_RANGE);
  /* with fewer than 3 cells a side the 3x3 block would revisit cells: fall back
   * to all pairs (BOIDS_BRUTE=1 forces it, to check the grid against it) */
  int brute = ncell < 3 || (getenv("BOIDS_BRUTE") && atoi(getenv("BOIDS_BRUTE")));
  if (ncell < 1) ncell = 1;
  long ncells = ncell * ncell;
  double inv_cell = (double)ncell / w;
  const double vis2 = VISUAL_RANGE * VISUAL_RANGE;
  const double prot2 = PROTECTED_RANGE * PROTECTED_RANGE;

  state cur, srt;
  state_alloc(&cur, (size_t)n);
  state_alloc(&srt, (size_t)n);
  int *cell_of = xmalloc((size_t)n * sizeof(int));
  long *start = xmalloc((size_t)(ncells + 1) * sizeof(long));
  long *fill = xmalloc((size_t)ncells * sizeof(long));

  rng_state = seed;
  for (long i = 0; i < n; i++) {
    double a = 2.0 * M_PI * urand();
    double sp = MIN_SPEED + (MAX_SPEED - MIN_SPEED) * urand();
    cur.x[i] = urand() * w;
    cur.y[i] = urand() * w;
    cur.vx[i] = sp * cos(a);
    cur.vy[i] = sp * sin(a);
  }

  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif

  double nb_total = 0.0; /* sum over steps of neighbours within visual range */
  double nb_last = 0.0;  /* the same, last step only */
  double t0 = now_s();
  for (long step = 0; step < steps; step++) {
    /* ---- 1. counting sort into cells: cur -> srt ---- */
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
      long cx = (long)(cur.x[i] * inv_cell);
      long cy = (long)(cur.y[i] * inv_cell);
      if (cx >= ncell) cx = ncell - 1;
      if (cy >= ncell) cy = ncell - 1;
      cell_of[i] = (int)(cy * ncell + cx);
    }
    memset(start, 0, (size_t)(ncells + 1) * sizeof(long));
    for (long i = 0; i < n; i++) start[cell_of[i] + 1]++;
    for (long c = 0; c < ncells; c++) start[c + 1] += start[c];
    memcpy(fill, start, (size_t)ncells * sizeof(long));
    for (long i = 0; i < n; i++) {
      long j = fill[cell_of[i]]++;
      srt.x[j] = cur.x[i];
      srt.y[j] = cur.y[i];
      srt.vx[j] = cur.vx[i];
      srt.vy[j] = cur.vy[i];
    }

    /* ---- 2. update: read srt, write cur ---- */
    double nb_step = 0.0;
    if (!brute) {
#pragma omp parallel for schedule(dynamic, 256) reduction(+ : nb_step)
      for (long i = 0; i < n; i++) {
        const double x = srt.x[i], y = srt.y[i];
        long cx = (long)(x * inv_cell), cy = (long)(y * inv_cell);
        if (cx >= ncell) cx = ncell - 1;
        if (cy >= ncell) cy = ncell - 1;
        double sum_dx = 0, sum_dy = 0, sum_vx = 0, sum_vy = 0;
        double close_dx = 0, close_dy = 0;
        long cnt = 0, ncl = 0;
        for (int oy = -1; oy <= 1; oy++) {
          long ny = cy + oy;
          double sy = 0.0; /* shift that maps the wrapped cell next to us */
          if (ny < 0) {
            ny += ncell;
            sy = -w;
          } else if (ny >= ncell) {
            ny -= ncell;
            sy = w;
          }
          for (int ox = -1; ox <= 1; ox++) {
            long nx = cx + ox;
            double sx = 0.0;
            if (nx < 0) {
              nx += ncell;
              sx = -w;
            } else if (nx >= ncell) {
              nx -= ncell;
              sx = w;
            }
            long c = ny * ncell + nx;
            for (long j = start[c]; j < start[c + 1]; j++) {
              if (j == i) continue;
              double dx = srt.x[j] + sx - x;
              double dy = srt.y[j] + sy - y;
              double d2 = dx * dx + dy * dy;
              if (d2 < prot2) {
                close_dx -= dx;
                close_dy -= dy;
                ncl++;
              } else if (d2 < vis2) {
                sum_dx += dx;
                sum_dy += dy;
                sum_vx += srt.vx[j];
                sum_vy += srt.vy[j];
                cnt++;
              }
            }
          }
        }
        nb_step += (double)(cnt + ncl);
        apply_rules(x, y, srt.vx[i], srt.vy[i], sum_dx, sum_dy, sum_vx, sum_vy, cnt, close_dx, close_dy, w, &cur.x[i],
                    &cur.y[i], &cur.vx[i], &cur.vy[i]);
      }
    } else {
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : nb_step)
      for (long i = 0; i < n; i++) {
        const double x = srt.x[i], y = srt.y[i];
        double sum_dx = 0, sum_dy = 0, sum_vx = 0, sum_vy = 0;
        double close_dx = 0, close_dy = 0;
        long cnt = 0, ncl = 0;
        for (long j = 0; j < n; j++) {
          if (j == i) continue;
          double dx = min_image(srt.x[j] - x, w);
          double dy = min_image(srt.y[j] - y, w);
          double d2 = dx * dx + dy * dy;
          if (d2 < prot2) {
            close_dx -= dx;
            close_dy -= dy;
            ncl++;
          } else if (d2 < vis2) {
            sum_dx += dx;
            sum_dy += dy;
            sum_vx += srt.vx[j];
            sum_vy += srt.vy[j];
            cnt++;
          }
        }
        nb_step += (double)(cnt + ncl);
        apply_rules(x, y, srt.vx[i], srt.vy[i], sum_dx, sum_dy, sum_vx, sum_vy, cnt, close_dx, close_dy, w, &cur.x[i],
                    &cur.y[i], &cur.vx[i], &cur.vy[i]);
      }
    }
    nb_total += nb_step;
    nb_last = nb_step;
  }
  double t1 = now_s();

  /* checksum: serial, fixed order (the boid order after the last step is
   * deterministic), so it is identical for any thread count */
  double cs_pos = 0.0, cs_vel = 0.0;
  for (long i = 0; i < n; i++) {
    cs_pos += cur.x[i] + 2.0 * cur.y[i];
    cs_vel += cur.vx[i] + 2.0 * cur.vy[i];
  }

  double el = t1 - t0;
  double per_step = steps > 0 ? el / (double)steps : 0.0;
  printf("boids N=%ld steps=%ld world=%.3f cells=%ldx%ld (side %.3f)%s threads=%d\n", n, steps, w, ncell, ncell,
         w / (double)ncell, brute ? " brute-force" : "", threads);
  printf(
      "density=%.6g expected_neighbours_uniform=%.3f mean_neighbours_in_visual_range=%.3f "
      "(all steps) %.3f (last step)\n",
      (double)n / (w * w), (double)(n - 1) / (w * w) * M_PI * vis2,
      steps > 0 ? nb_total / ((double)steps * (double)n) : 0.0, nb_last / (double)n);
  printf("time_s=%.6f ms_per_step=%.6f steps_per_s=%.3f boid_updates_per_s=%.4g\n", el, 1e3 * per_step,
         per_step > 0 ? 1.0 / per_step : 0.0, el > 0 ? (double)n * (double)steps / el : 0.0);
  printf("checksum pos=%.9e vel=%.9e\n", cs_pos, cs_vel);

  state_free(&cur);
  state_free(&srt);
  free(cell_of);
  free(start);
  free(fill);
  return 0;
}
