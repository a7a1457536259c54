/* couzin_plain: a speed-tuned plain C11 loop of Couzin et al. (2002)'s zones in 3D, a peer for herd's
 * couzin (no code shared). Build: gcc -O3 -march=native -std=c11 -o couzin_plain couzin_plain.c -lm
 * Rules: docs/models/couzin.md with herd's defaults, synchronous, open world; rules, grid, cell size
 * and why the pragma (reassociated sums) and the rsq bit trick (vectorisable 1/|d|): README.md here.
 * usage: couzin_plain N STEPS [WORLD_SIDE [SEED]]  (WORLD_SIDE: 20 (N / 100)^(1/3), herd's density)
 * Prints ms_per_step (CPU time of the step loop), the mean count of others within r_a, a checksum. */
#pragma GCC optimize("associative-math", "no-signed-zeros", "no-trapping-math")
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { SPLIT = 2 };
typedef struct {
  float x, y, z;
} v3;
static const float RR2 = 1.0f, RO2 = 121.0f, RA = 26.0f, SIGMA = 0.05f, STEP_M = 0.3f, TURN = 0.06981317f;
static uint64_t rng = 0x9e3779b97f4a7c15u;
static float unif(void) { /* xorshift64*, 24 bits in [0, 1) */
  rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
  return (float)((rng * 0x2545f4914f6cdd1du) >> 40) * 0x1p-24f;
}
static inline float rsq(float a) { /* 1 / sqrt(a), vectorisable */
  uint32_t k;
  float r;
  memcpy(&k, &a, 4), k = 0x5f375a86u - (k >> 1), memcpy(&r, &k, 4), r *= 1.5f - 0.5f * a * r * r;
  return r * (1.5f - 0.5f * a * r * r);
}
static float dot(v3 a, v3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static v3 mad(float s, v3 a, float t, v3 b) { /* s a + t b */
  return (v3){s * a.x + t * b.x, s * a.y + t * b.y, s * a.z + t * b.z};
}
static v3 unit(v3 a) { return dot(a, a) > 0 ? mad(1.0f / sqrtf(dot(a, a)), a, 0, a) : a; }
static v3 cross(v3 a, v3 b) { /* a x b */
  return (v3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static v3 perp(v3 u) { return unit(cross(u, fabsf(u.x) < 0.6f ? (v3){1, 0, 0} : (v3){0, 1, 0})); }

int main(int argc, char **argv) {
  if (argc < 3) return fprintf(stderr, "usage: %s N STEPS [WORLD_SIDE [SEED]]\n", argv[0]), 2;
  long n = atol(argv[1]), steps = atol(argv[2]);
  float w = argc > 3 ? (float)atof(argv[3]) : 20.0f * cbrtf((float)n / 100.0f), *p[6], *q[6], lo[3], hi[3];
  if (argc > 4) rng ^= strtoull(argv[4], 0, 10) * 0x9e3779b97f4a7c15u;
  float *mem = n > 0 ? malloc(12 * sizeof(float) * n) : 0; /* p: x y z vx vy vz; q: their sorted copy */
  int *cell = n > 0 ? malloc(sizeof(int) * n) : 0, *start = 0, *fill = 0, cap = 0, g[3];
  if (!mem || !cell || steps < 0 || !(w > 0)) return fputs("need N, WORLD_SIDE > 0, STEPS >= 0\n", stderr), 2;
  for (int k = 0; k < 6; ++k) p[k] = mem + k * n, q[k] = mem + (6 + k) * n;
  for (long i = 0; i < n; ++i) {
    float z = 2.0f * unif() - 1.0f, a = 6.2831853f * unif(), r = sqrtf(1.0f - z * z);
    p[0][i] = w * unif(), p[1][i] = w * unif(), p[2][i] = w * unif();
    p[3][i] = r * cosf(a), p[4][i] = r * sinf(a), p[5][i] = z;
  }
  float cos_half = cosf(2.3561945f), ct = cosf(TURN), snt = sinf(TURN), inv = SPLIT / RA, ra2 = RA * RA;
  double neighbours = 0, cp = 0, cv = 0;
  struct timespec t0, t1;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
  for (long step = 0; step < steps; ++step) {
    for (int k = 0; k < 3; ++k) { /* the bounding box and its grid */
      lo[k] = hi[k] = p[k][0];
      for (long i = 1; i < n; ++i) lo[k] = fminf(lo[k], p[k][i]), hi[k] = fmaxf(hi[k], p[k][i]);
      g[k] = (int)((hi[k] - lo[k]) * inv) + 1;
    }
    int nc = g[0] * g[1] * g[2];
    if (nc + 1 > cap && !(start = realloc(start, 2 * sizeof(int) * (cap = 2 * nc + 1)))) return 1;
    fill = start + cap, memset(start, 0, sizeof(int) * (nc + 1));
    for (long i = 0; i < n; ++i) { /* counting sort by cell */
      int c[3];
      for (int k = 0; k < 3; ++k) c[k] = (int)((p[k][i] - lo[k]) * inv), c[k] -= c[k] >= g[k];
      cell[i] = (c[2] * g[1] + c[1]) * g[0] + c[0], ++start[cell[i] + 1];
    }
    for (int c = 0; c < nc; ++c) start[c + 1] += start[c], fill[c] = start[c];
    for (long i = 0; i < n; ++i)
      for (int k = 0, d = fill[cell[i]]++; k < 6; ++k) q[k][d] = p[k][i];
    for (int home = 0; home < nc; ++home) {
      int cx = home % g[0], cy = home / g[0] % g[1], cz = home / g[0] / g[1];
      int x0 = cx > SPLIT ? cx - SPLIT : 0, x1 = cx + SPLIT < g[0] ? cx + SPLIT : g[0] - 1;
      for (int i = start[home]; i < start[home + 1]; ++i) {
        float xi = q[0][i], yi = q[1][i], zi = q[2][i], vx = q[3][i], vy = q[4][i], vz = q[5][i];
        float rx = 0, ry = 0, rz = 0, ox = 0, oy = 0, oz = 0, ax = 0, ay = 0, az = 0, nr = 0, no = 0;
        float na = 0, seen = 0;
        for (int z = cz > SPLIT ? cz - SPLIT : 0; z <= cz + SPLIT && z < g[2]; ++z)
          for (int y = cy > SPLIT ? cy - SPLIT : 0; y <= cy + SPLIT && y < g[1]; ++y) {
            int row = (z * g[1] + y) * g[0];
            for (int j = start[row + x0]; j < start[row + x1 + 1]; ++j) { /* branch free */
              float dx = q[0][j] - xi, dy = q[1][j] - yi, dz = q[2][j] - zi;
              float d2 = dx * dx + dy * dy + dz * dz, u = rsq(d2 + 1e-30f);
              float in = d2 > 0.0f && d2 <= ra2 ? 1.0f : 0.0f, r = d2 < RR2 ? in : 0.0f;
              float vis = vx * dx + vy * dy + vz * dz >= cos_half * d2 * u ? in - r : 0.0f; /* not blind */
              float o = d2 < RO2 ? vis : 0.0f, a = vis - o;
              rx -= r * u * dx, ry -= r * u * dy, rz -= r * u * dz, nr += r, seen += in;
              ox += o * q[3][j], oy += o * q[4][j], oz += o * q[5][j], no += o;
              ax += a * u * dx, ay += a * u * dy, az += a * u * dz, na += a;
            }
          }
        neighbours += seen;
        v3 v = {vx, vy, vz}, dor = {vx + ox, vy + oy, vz + oz}, dat = {ax, ay, az};
        v3 d = no > 0 && na > 0 ? mad(0.5f, unit(dor), 0.5f, unit(dat)) : no > 0 ? dor : dat;
        d = unit(nr > 0 ? (v3){rx, ry, rz} : d);
        d = dot(d, d) > 0 ? d : v;          /* nobody seen, or the influences cancel */
        v3 e1 = perp(d), e2 = cross(d, e1); /* noise: the Gaussian tangent vector, wrapped */
        float rad = SIGMA * sqrtf(-2.0f * logf(1.0f - unif())), ang = 6.2831853f * unif();
        d = unit(mad(cosf(rad), d, sinf(rad), mad(cosf(ang), e1, sinf(ang), e2)));
        float c = dot(v, d);
        v3 across = mad(1, d, -c, v); /* then turn by theta tau toward d, or to d when it is that close: */
        if (c < ct) d = unit(mad(ct, v, snt, dot(across, across) > 1e-12f ? unit(across) : perp(v)));
        p[0][i] = xi + STEP_M * d.x, p[1][i] = yi + STEP_M * d.y, p[2][i] = zi + STEP_M * d.z;
        p[3][i] = d.x, p[4][i] = d.y, p[5][i] = d.z;
      }
    }
  }
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
  double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
  for (long i = 0; i < 3 * n; ++i) cp += p[0][i], cv += p[3][i]; /* x y z, then vx vy vz, are contiguous */
  printf("couzin_plain N=%ld steps=%ld world=%.3f (open; start cube) cell=%.1f\n", n, steps, w, RA / SPLIT);
  printf("mean_neighbours=%.3f (within r_a, all steps)\n", steps ? neighbours / ((double)n * steps) : 0.0);
  printf("ms_per_step=%.4f\nchecksum pos=%.9e vel=%.9e\n", steps ? ms / steps : 0.0, cp, cv);
}
