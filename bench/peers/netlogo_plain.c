/* netlogo_plain: a speed-tuned plain C11 loop of NetLogo Flocking (Wilensky 1998), a peer for herd's
 * netlogo (no code shared). Build: gcc -O3 -march=native -std=c11 -o netlogo_plain netlogo_plain.c -lm
 * Rules: docs/models/netlogo-flocking.md with herd's defaults (vision 3, minimum separation 1, turns
 * 1.5 / 5 / 3 deg, 5 x fd 0.2), synchronous as herd, on a W x W torus; turns are done on the unit
 * heading vector with the cosine and sine of the largest turn, so no angle is ever computed. Grid,
 * cell size and why the pragma (reassociated sums) and the rsq bit trick (vectorisable 1/|d|): README.md.
 * usage: netlogo_plain N STEPS [WORLD_SIDE [SEED]]  (WORLD_SIDE: 71 sqrt(N / 300), herd's density)
 * Prints ms_per_step (CPU time of the step loop), the mean number of flockmates, a checksum. */
#pragma GCC optimize("associative-math", "no-signed-zeros", "no-trapping-math", "finite-math-only")
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { PAD = 8 };
static const float VISION = 3.0f, SEP = 1.0f, DEG = 0.017453293f, MOST[3] = {1.5f, 5.0f, 3.0f}; /* deg */
static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next(void) { /* xorshift64* */
  rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
  return rng * 0x2545f4914f6cdd1du;
}
static float unif(void) { return (float)(next() >> 40) * 0x1p-24f; }
static inline float rsq(float a) { /* 1 / sqrt(a), vectorisable */
  uint32_t k;
  float r;
  memcpy(&k, &a, 4), k = 0x5f375a86u - (k >> 1), memcpy(&r, &k, 4), r *= 1.5f - 0.5f * a * r * r;
  return r * (1.5f - 0.5f * a * r * r);
}
/* Turn heading h = (sin, cos) toward direction t (any length; 0: no turn) by at most the angle of
 * cosine c and sine sn: turn-at-most of subtract-headings; right (clockwise) also when t is behind. */
static void turn(float *hx, float *hy, float tx, float ty, float c, float sn) {
  float l = tx * tx + ty * ty, x = *hx, y = *hy;
  if (l <= 0.0f) return;
  l = 1.0f / sqrtf(l), tx *= l, ty *= l, sn = x * ty - y * tx <= 0.0f ? sn : -sn;
  int within = x * tx + y * ty >= c; /* within the limit: the target itself */
  *hx = within ? tx : x * c + y * sn, *hy = within ? ty : y * c - x * sn;
}

int main(int argc, char **argv) {
  if (argc < 3) return fprintf(stderr, "usage: %s N STEPS [WORLD_SIDE [SEED]]\n", argv[0]), 2;
  long n = atol(argv[1]), steps = atol(argv[2]), nb = n + PAD;
  float w = argc > 3 ? (float)atof(argv[3]) : 71.0f * sqrtf((float)n / 300.0f), cs[6], *p[4], *q[4], *bl[5];
  if (argc > 4) rng ^= strtoull(argv[4], 0, 10) * 0x9e3779b97f4a7c15u;
  int g = (int)(w / (2 * VISION)), *cell = n > 0 ? malloc(sizeof(int) * n) : 0; /* cells: >= 2 vision */
  int *start = malloc(8 * g * g + 4);
  float *mem = n > 0 ? malloc(sizeof(float) * (8 * n + 5 * nb)) : 0, inv = (float)g / w, v2 = VISION * VISION;
  if (!cell || !start || !mem || steps < 0 || g < 3) return fputs("bad N, STEPS or WORLD_SIDE\n", stderr), 2;
  for (int k = 0; k < 4; ++k) p[k] = mem + k * n, q[k] = mem + (4 + k) * n;
  for (int k = 0; k < 5; ++k) bl[k] = mem + 8 * n + k * nb;
  for (int k = 0; k < 3; ++k) cs[2 * k] = cosf(MOST[k] * DEG), cs[2 * k + 1] = sinf(MOST[k] * DEG);
  float *x = p[0], *y = p[1], *hx = p[2], *hy = p[3], *sx = q[0], *sy = q[1], *shx = q[2], *shy = q[3];
  float *bx = bl[0], *by = bl[1], *bhx = bl[2], *bhy = bl[3], *bd = bl[4]; /* bd: d^2, 1e30 if no mate */
  int *fill = start + g * g + 1;
  for (long i = 0; i < n; ++i) { /* a heading of a whole degree, as NetLogo's crt */
    float h = (float)(next() % 360) * DEG;
    x[i] = w * unif(), y[i] = w * unif(), hx[i] = sinf(h), hy[i] = cosf(h);
  }
  double mates = 0, cp = 0, cv = 0;
  struct timespec t0, t1;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
  for (long step = 0; step < steps; ++step) {
    memset(start, 0, sizeof(int) * (g * g + 1));
    for (long i = 0; i < n; ++i) { /* counting sort by cell; x * inv may round up to g */
      int cx = (int)(x[i] * inv), cy = (int)(y[i] * inv);
      cell[i] = (cy - (cy >= g)) * g + cx - (cx >= g), ++start[cell[i] + 1];
    }
    for (int c = 0; c < g * g; ++c) start[c + 1] += start[c], fill[c] = start[c];
    for (long i = 0; i < n; ++i)
      for (int k = 0, d = fill[cell[i]]++; k < 4; ++k) q[k][d] = p[k][i];
    for (int home = 0; home < g * g; ++home) {
      int cx = home % g, cy = home / g, h0 = start[home], h1 = start[home + 1], m = 0;
      if (h0 == h1) continue;
      for (int ny = cy - 1; ny <= cy + 1; ++ny) /* gather the 3 x 3 block, shifted through the torus */
        for (int nx = cx - 1; nx <= cx + 1; ++nx) {
          float ox = nx < 0 ? w : nx >= g ? -w : 0.0f, oy = ny < 0 ? w : ny >= g ? -w : 0.0f;
          int c = (ny + (ny < 0 ? g : ny >= g ? -g : 0)) * g + nx + (nx < 0 ? g : nx >= g ? -g : 0);
          for (int j = start[c]; j < start[c + 1]; ++j, ++m)
            bx[m] = sx[j] - ox, by[m] = sy[j] - oy, bhx[m] = shx[j], bhy[m] = shy[j];
        }
      for (; m % PAD; ++m) bx[m] = by[m] = 1e15f, bhx[m] = bhy[m] = 0.0f; /* never a flockmate */
      for (int i = h0; i < h1; ++i) {
        float xi = sx[i], yi = sy[i], ahx = 0, ahy = 0, bex = 0, bey = 0, near = 1e30f, cnt = 0;
        for (int j = 0; j < m; ++j) { /* the candidate loop: branch free */
          float dx = bx[j] - xi, dy = by[j] - yi, d2 = dx * dx + dy * dy;
          float in = d2 > 0.0f && d2 <= v2 ? 1.0f : 0.0f, u = in * rsq(d2 + 1e-30f);
          ahx += in * bhx[j], ahy += in * bhy[j], bex += u * dx, bey += u * dy, cnt += in;
          bd[j] = in > 0.0f ? d2 : 1e30f, near = bd[j] < near ? bd[j] : near;
        }
        mates += cnt;
        float nhx = shx[i], nhy = shy[i], nx = xi, ny = yi;
        if (cnt > 0 && near < SEP * SEP) { /* separate: turn h by h - h_nearest, at most 1.5 deg */
          int j = 0;
          while (bd[j] != near) ++j; /* the nearest (the first found if tied) */
          float cd = nhx * bhx[j] + nhy * bhy[j], sd = bhy[j] * nhx - bhx[j] * nhy;
          turn(&nhx, &nhy, nhx * cd + nhy * sd, nhy * cd - nhx * sd, cs[0], cs[1]);
        } else if (cnt > 0) { /* align (at most 5 deg), then cohere (at most 3 deg) */
          turn(&nhx, &nhy, ahx, ahy, cs[2], cs[3]);
          turn(&nhx, &nhy, bex, bey, cs[4], cs[5]);
        }
        float l = 1.0f / sqrtf(nhx * nhx + nhy * nhy);
        nhx *= l, nhy *= l;
        for (int k = 0; k < 5; ++k) { /* fd 0.2, five times, each wrapped (a tiny -x + w rounds to w) */
          nx += 0.2f * nhx, ny += 0.2f * nhy, nx += nx < 0 ? w : 0.0f, ny += ny < 0 ? w : 0.0f;
          nx -= nx >= w ? w : 0.0f, ny -= ny >= w ? w : 0.0f;
        }
        x[i] = nx, y[i] = ny, hx[i] = nhx, hy[i] = nhy; /* the new state, in sorted order */
      }
    }
  }
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
  double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
  for (long i = 0; i < 2 * n; ++i) cp += x[i], cv += hx[i]; /* x y, then hx hy, are contiguous */
  printf("netlogo_plain N=%ld steps=%ld world=%.3f cells=%dx%d (side %.3f)\n", n, steps, w, g, g, w / g);
  printf("mean_neighbours=%.3f (flockmates within %g, all steps; uniform start expects %.3f)\n",
         steps ? mates / ((double)n * steps) : 0.0, VISION, (n - 1) * 3.14159265 * v2 / ((double)w * w));
  printf("ms_per_step=%.4f\nchecksum pos=%.9e vel=%.9e\n", steps ? ms / steps : 0.0, cp, cv);
}
