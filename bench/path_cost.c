/* What the path field of kernels/path.h costs per agent, evaluated two ways:
 *
 *   (a) per agent: the closest point (table of K samples + Newton) and the target vector;
 *   (b) baked: the target vector computed once at the nodes of a grid over the field, then
 *       read per agent by bilinear (2D) or trilinear (3D) interpolation;
 *
 * at 10^5 random points of seed 004's field (100 x 100, or 100^3, centred on 0) for the 2D
 * path of seed 004 and the 3D default, and the baked grid's error against (a): the vector's
 * length and its angle. One thread; each time is the thread's CPU time, the best of a few
 * repeats. Prints Markdown
 * (bench/results/path-cost.md). Usage: path_cost [POINTS [REPEATS]]. */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "path.h"

#define FIELD_M 100.0f   /* seed 004: fieldSize = 100, centred on 0 */
#define LOOKAHEAD_M 1.0f /* seed 004: the normalised tangent, one field unit */

static const float doc2d[] = {-45, -45, 0, -30, 20, 0, 20, -30, 0, 35, 35, 0};
static const float doc3d[] = {-45, -45, -40, -30, 20, 40, 20, -30, -40, 35, 35, 40};

/* This thread's CPU time: on a shared machine, time spent descheduled is not counted. */
static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rng_state = 12345;
static float rnd_field(void) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return FIELD_M * ((float)(rng_state >> 40) / 16777216.0f - 0.5f);
}

static float *make_path(const float *xyz, unsigned intervals) {
  float *path = malloc(sizeof(float) * herd_path_floats(4, intervals));
  if (!path || herd_path_build(path, xyz, 4, intervals) != 0) {
    fprintf(stderr, "path_cost: cannot build the path\n");
    exit(1);
  }
  return path;
}

/* ---- (a) per agent ------------------------------------------------------------------------ */

static void field_exact(const float *path, const float *pts, int n, float *out) {
  for (int i = 0; i < n; ++i) {
    herd_vec3 p = herd_v3(pts[3 * i], pts[3 * i + 1], pts[3 * i + 2]);
    herd_vec3 v = herd_path_target(path, p, LOOKAHEAD_M);
    out[3 * i] = v.x, out[3 * i + 1] = v.y, out[3 * i + 2] = v.z;
  }
}

/* ---- (b) baked grid ----------------------------------------------------------------------- */

typedef struct baked {
  int dims, res; /* res nodes per axis, spanning [-FIELD/2, FIELD/2] */
  float *v;      /* 3 floats per node, x fastest */
} baked;

static baked bake(const float *path, int dims, int res) {
  baked b = {dims, res, NULL};
  size_t nodes = (size_t)res * (size_t)res * (dims == 3 ? (size_t)res : 1u);
  b.v = malloc(sizeof(float) * 3 * nodes);
  if (!b.v) exit(1);
  float step = FIELD_M / (float)(res - 1);
  for (size_t i = 0; i < nodes; ++i) {
    size_t x = i % (size_t)res, y = (i / (size_t)res) % (size_t)res, z = i / ((size_t)res * (size_t)res);
    herd_vec3 p = herd_v3(-0.5f * FIELD_M + step * (float)x, -0.5f * FIELD_M + step * (float)y,
                          dims == 3 ? -0.5f * FIELD_M + step * (float)z : 0.0f);
    herd_vec3 v = herd_path_target(path, p, LOOKAHEAD_M);
    b.v[3 * i] = v.x, b.v[3 * i + 1] = v.y, b.v[3 * i + 2] = v.z;
  }
  return b;
}

/* Cell index and fraction along one axis, clamped to the grid. */
static inline int axis(const baked *b, float x, float *frac) {
  float u = (x + 0.5f * FIELD_M) * (float)(b->res - 1) / FIELD_M;
  if (u < 0.0f) u = 0.0f;
  if (u > (float)(b->res - 1)) u = (float)(b->res - 1);
  int i = (int)u;
  if (i > b->res - 2) i = b->res - 2;
  *frac = u - (float)i;
  return i;
}

static void field_baked(const baked *b, const float *pts, int n, float *out) {
  int r = b->res;
  for (int k = 0; k < n; ++k) {
    float fx, fy, fz = 0.0f;
    int ix = axis(b, pts[3 * k], &fx), iy = axis(b, pts[3 * k + 1], &fy), iz = 0;
    if (b->dims == 3) iz = axis(b, pts[3 * k + 2], &fz);
    const float *c = b->v + 3 * ((size_t)ix + (size_t)r * ((size_t)iy + (size_t)r * (size_t)iz));
    size_t dy = 3 * (size_t)r, dz = 3 * (size_t)r * (size_t)r;
    for (int a = 0; a < 3; ++a) {
      float v00 = c[a] + fx * (c[a + 3] - c[a]), v10 = c[a + dy] + fx * (c[a + dy + 3] - c[a + dy]);
      float v0 = v00 + fy * (v10 - v00);
      if (b->dims == 3) {
        const float *e = c + dz;
        float w00 = e[a] + fx * (e[a + 3] - e[a]), w10 = e[a + dy] + fx * (e[a + dy + 3] - e[a + dy]);
        float w0 = w00 + fy * (w10 - w00);
        v0 = v0 + fz * (w0 - v0);
      }
      out[3 * k + a] = v0;
    }
  }
}

/* ---- Measuring -------------------------------------------------------------------------- */

static volatile float sink;

static double best_ns(void (*run)(const void *, const float *, int, float *), const void *ctx, const float *pts, int n,
                      float *out, int repeats) {
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    double t0 = now_s();
    run(ctx, pts, n, out);
    double dt = now_s() - t0;
    best = dt < best ? dt : best;
    sink += out[3 * (r % n)];
  }
  return 1e9 * best / n;
}

static void run_exact(const void *ctx, const float *pts, int n, float *out) { field_exact(ctx, pts, n, out); }
static void run_baked(const void *ctx, const float *pts, int n, float *out) { field_baked(ctx, pts, n, out); }

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

typedef struct summary {
  double mean, p50, p99, max;
} summary;

static summary summarise(double *x, int n) {
  summary s = {0, 0, 0, 0};
  if (n == 0) return s;
  for (int i = 0; i < n; ++i) s.mean += x[i];
  s.mean /= n;
  qsort(x, (size_t)n, sizeof *x, cmp_double);
  s.p50 = x[n / 2], s.p99 = x[(int)(0.99 * (n - 1))], s.max = x[n - 1];
  return s;
}

/* The baked field's error against the exact one, over the points within `near_m` of the path
 * (all of them when near_m < 0): the length difference, and the angle where the exact vector
 * is at least 0.1 m long (on the path it is zero and has no direction). */
typedef struct error_stats {
  summary len, ang;
  int points, angled;
  double over10; /* % of the angled points off by more than 10 degrees */
} error_stats;

static error_stats errors(const float *exact, const float *grid, const float *dist, float near_m, int n) {
  error_stats e;
  double *dl = malloc(sizeof(double) * (size_t)n), *da = malloc(sizeof(double) * (size_t)n);
  int m = 0, k = 0, big = 0;
  for (int i = 0; i < n; ++i) {
    if (near_m >= 0.0f && dist[i] > near_m) continue;
    double ex = exact[3 * i], ey = exact[3 * i + 1], ez = exact[3 * i + 2];
    double gx = grid[3 * i], gy = grid[3 * i + 1], gz = grid[3 * i + 2];
    double le = sqrt(ex * ex + ey * ey + ez * ez), lg = sqrt(gx * gx + gy * gy + gz * gz);
    dl[k++] = fabs(lg - le);
    if (le >= 0.1 && lg > 0) {
      double c = (ex * gx + ey * gy + ez * gz) / (le * lg);
      da[m] = acos(c > 1 ? 1 : (c < -1 ? -1 : c)) * 57.29577951308232;
      big += da[m] > 10;
      ++m;
    }
  }
  e.len = summarise(dl, k);
  e.ang = summarise(da, m);
  e.points = k, e.angled = m;
  e.over10 = m ? 100.0 * big / m : 0;
  free(dl);
  free(da);
  return e;
}

static void error_row(const char *grid_name, error_stats e) {
  printf("| %s | %d | %.3f / %.3f / %.2f | %.2f / %.2f / %.1f / %.1f | %.2f %% |\n", grid_name, e.points, e.len.mean,
         e.len.p99, e.len.max, e.ang.mean, e.ang.p50, e.ang.p99, e.ang.max, e.over10);
}

#define NEAR_M 5.0f

static void measure(const char *name, const float *xyz, int dims, const int *grids, int grid_count, int n,
                    int repeats) {
  float *pts = malloc(sizeof(float) * 3 * (size_t)n), *exact = malloc(sizeof(float) * 3 * (size_t)n),
        *grid = malloc(sizeof(float) * 3 * (size_t)n), *dist = malloc(sizeof(float) * (size_t)n);
  if (!pts || !exact || !grid || !dist) exit(1);
  for (int i = 0; i < n; ++i) {
    pts[3 * i] = rnd_field(), pts[3 * i + 1] = rnd_field();
    pts[3 * i + 2] = dims == 3 ? rnd_field() : 0.0f;
  }
  float *path = make_path(xyz, HERD_PATH_INTERVALS);
  printf("\n### %s (arc length %.2f m)\n\n", name, (double)herd_path_length(path));
  printf("(a) per agent, table of K intervals + Newton (closest point, tangent, target vector):\n\n");
  printf("| K | ns per agent |\n|---:|---:|\n");
  const unsigned ks[] = {25, 50, 100, 200};
  for (int k = 0; k < 4; ++k) {
    float *pk = make_path(xyz, ks[k]);
    double ns = best_ns(run_exact, pk, pts, n, exact, repeats);
    printf("| %u%s | %.0f |\n", ks[k], ks[k] == HERD_PATH_INTERVALS ? " (default)" : "", ns);
    free(pk);
  }
  field_exact(path, pts, n, exact); /* the reference, K = 100 */
  for (int i = 0; i < n; ++i) dist[i] = herd_path_distance(path, herd_v3(pts[3 * i], pts[3 * i + 1], pts[3 * i + 2]));
  printf("\n(b) baked grid over the field, %s interpolation of the target vector:\n\n",
         dims == 3 ? "trilinear" : "bilinear");
  printf("| grid | spacing | memory | bake, s | ns per agent |\n|---|---:|---:|---:|---:|\n");
  error_stats all[8], near[8];
  for (int g = 0; g < grid_count; ++g) {
    double t0 = now_s();
    baked b = bake(path, dims, grids[g]);
    double bake_s = now_s() - t0;
    double ns = best_ns(run_baked, &b, pts, n, grid, repeats);
    all[g] = errors(exact, grid, dist, -1.0f, n);
    near[g] = errors(exact, grid, dist, NEAR_M, n);
    size_t nodes = (size_t)grids[g] * (size_t)grids[g] * (dims == 3 ? (size_t)grids[g] : 1u);
    printf("| %d^%d | %.2f m | %.1f MiB | %.2f | %.1f |\n", grids[g], dims, (double)(FIELD_M / (float)(grids[g] - 1)),
           (double)(nodes * 3 * sizeof(float)) / 1048576.0, bake_s, ns);
    free(b.v);
  }
  const char *head =
      "| points | length error mean / p99 / max, m | angle error mean / p50 / p99 / max, deg | "
      "angle > 10 deg |\n|---|---:|---|---|---:|\n";
  printf("\nBaked against per agent, all points (angles where the exact vector is >= 0.1 m long):\n\n| grid %s", head);
  for (int g = 0; g < grid_count; ++g) {
    char gname[16];
    snprintf(gname, sizeof gname, "%d^%d", grids[g], dims);
    error_row(gname, all[g]);
  }
  printf("\nThe same over the points within %.0f m of the path:\n\n| grid %s", (double)NEAR_M, head);
  for (int g = 0; g < grid_count; ++g) {
    char gname[16];
    snprintf(gname, sizeof gname, "%d^%d", grids[g], dims);
    error_row(gname, near[g]);
  }
  free(path);
  free(pts);
  free(exact);
  free(grid);
  free(dist);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100000, repeats = argc > 2 ? atoi(argv[2]) : 5;
  if (n < 1 || repeats < 1) {
    fprintf(stderr, "usage: path_cost [POINTS [REPEATS]]\n");
    return 2;
  }
  printf("path_cost: %d random points in the field, one thread, CPU time, best of %d\n", n, repeats);
  const int grids2[] = {128, 256, 512}, grids3[] = {32, 64, 128};
  measure("2D: seed 004's path", doc2d, 2, grids2, 3, n, repeats);
  measure("3D: the 3D default path", doc3d, 3, grids3, 3, n, repeats);
  return 0;
}
