/* boids_plain: a speed-tuned plain C11 boids loop, a peer for herd's boids (shares no code with herd).
 * Build: gcc -O3 -march=native -std=c11 -o boids_plain boids_plain.c -lm
 * Rules: docs/models/boids.md (ECE 4760, herd's defaults) on a W x W torus without margins. Protected
 * |d| < 8: close += x_i - x_j; visual 8 <= |d| < 40: v += 0.0005 mean(d) + 0.05 (mean(v_j) - v); then
 * v += 0.05 close, |v| clamped to [3, 6], x += v wrapped; synchronous. Start: uniform position and
 * direction, speed uniform in [3, 6] (xorshift64*). Grid: cells of side W / floor(W / 40) >= 40, a
 * counting sort per step into float arrays; per home cell its 3 x 3 block is gathered once, the torus
 * shift added per neighbouring cell, padded to 8, and each boid of the cell runs one branch-free loop
 * over it that GCC vectorises (the pragma allows reassociating its float sums).
 * usage: boids_plain N STEPS [WORLD_SIDE [SEED]]  (WORLD_SIDE: sqrt(N pi 40^2 / 20), 20 boids within 40)
 * Prints ms_per_step (CPU time of the step loop), the mean count of others within 40, a checksum. */
#pragma GCC optimize("associative-math", "no-signed-zeros", "no-trapping-math")
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { PAD = 8 };
static const float RV = 40.0f, RP = 8.0f, CC = 0.0005f, CA = 0.05f, CM = 0.05f, SMIN = 3.0f, SMAX = 6.0f;
static uint64_t rng = 0x9e3779b97f4a7c15u;
static float unif(void) { /* xorshift64*, 24 bits in [0, 1) */
  rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
  return (float)((rng * 0x2545f4914f6cdd1du) >> 40) * 0x1p-24f;
}
static void *alloc(size_t n) {
  void *p = malloc(n);
  if (!p) fputs("out of memory\n", stderr), exit(1);
  return p;
}

int main(int argc, char **argv) {
  if (argc < 3) return fprintf(stderr, "usage: %s N STEPS [WORLD_SIDE [SEED]]\n", argv[0]), 2;
  long n = atol(argv[1]), steps = atol(argv[2]), nb = n + PAD;
  float w = argc > 3 ? (float)atof(argv[3]) : (float)sqrt(n * 3.14159265358979 * 1600.0 / 20.0);
  if (argc > 4) rng ^= strtoull(argv[4], 0, 10) * 0x9e3779b97f4a7c15u;
  int g = (int)(w / RV);
  if (n < 1 || steps < 0 || g < 3) return fputs("need N >= 1, STEPS >= 0, WORLD_SIDE >= 120\n", stderr), 2;
  float inv = (float)g / w, rv2 = RV * RV, rp2 = RP * RP, *p[4], *q[4], *bl[4]; /* x y vx vy */
  float *mem = alloc(sizeof(float) * (8 * n + 4 * nb));
  for (int k = 0; k < 4; ++k) p[k] = mem + k * n, q[k] = mem + (4 + k) * n, bl[k] = mem + 8 * n + k * nb;
  float *x = p[0], *y = p[1], *vx = p[2], *vy = p[3], *sx = q[0], *sy = q[1], *svx = q[2], *svy = q[3];
  float *bx = bl[0], *by = bl[1], *bvx = bl[2], *bvy = bl[3];
  int *cell = alloc(sizeof(int) * n), *start = alloc(sizeof(int) * (2 * g * g + 1));
  int *fill = start + g * g + 1;
  for (long i = 0; i < n; ++i) {
    float a = 6.2831853f * unif(), sp = SMIN + (SMAX - SMIN) * unif();
    x[i] = w * unif(), y[i] = w * unif(), vx[i] = sp * cosf(a), vy[i] = sp * sinf(a);
  }
  double neighbours = 0;
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
    for (int cy = 0; cy < g; ++cy)
      for (int cx = 0; cx < g; ++cx) {
        int h0 = start[cy * g + cx], h1 = start[cy * g + cx + 1], m = 0;
        if (h0 == h1) continue;
        for (int ny = cy - 1; ny <= cy + 1; ++ny) /* gather the 3 x 3 block, shifted through the torus */
          for (int nx = cx - 1; nx <= cx + 1; ++nx) {
            float ox = nx < 0 ? w : nx >= g ? -w : 0.0f, oy = ny < 0 ? w : ny >= g ? -w : 0.0f;
            int c = (ny + (ny < 0 ? g : ny >= g ? -g : 0)) * g + nx + (nx < 0 ? g : nx >= g ? -g : 0);
            for (int j = start[c]; j < start[c + 1]; ++j, ++m)
              bx[m] = sx[j] - ox, by[m] = sy[j] - oy, bvx[m] = svx[j], bvy[m] = svy[j];
          }
        for (; m % PAD; ++m) bx[m] = by[m] = 1e15f, bvx[m] = bvy[m] = 0.0f; /* never a neighbour */
        for (int i = h0; i < h1; ++i) {
          float xi = sx[i], yi = sy[i], clx = 0, cly = 0, ox = 0, oy = 0, mvx = 0, mvy = 0, nv = 0;
          int seen = 0;
          for (int j = 0; j < m; ++j) { /* the candidate loop: branch free */
            float dx = bx[j] - xi, dy = by[j] - yi, d2 = dx * dx + dy * dy;
            float pr = d2 < rp2 ? 1.0f : 0.0f, v = (d2 < rv2 ? 1.0f : 0.0f) - pr;
            clx -= pr * dx, cly -= pr * dy, ox += v * dx, oy += v * dy, mvx += v * bvx[j], mvy += v * bvy[j];
            nv += v, seen += d2 < rv2;
          }
          neighbours += seen - 1; /* the boid itself is in its block, at distance 0 */
          float ux = svx[i] + CA * clx, uy = svy[i] + CA * cly;
          if (nv > 0) ux += (CC * ox + CM * (mvx - nv * svx[i])) / nv;
          if (nv > 0) uy += (CC * oy + CM * (mvy - nv * svy[i])) / nv;
          float sp = sqrtf(ux * ux + uy * uy), f = sp < SMIN ? SMIN / sp : sp > SMAX ? SMAX / sp : 1.0f;
          if (sp <= 0.0f) /* no speed left: the old direction at the least speed */
            ux = svx[i], uy = svy[i], f = SMIN / sqrtf(ux * ux + uy * uy);
          ux *= f, uy *= f;
          float nx = xi + ux, ny = yi + uy;
          nx += nx < 0 ? w : 0.0f, ny += ny < 0 ? w : 0.0f; /* wrap (a tiny -x + w rounds to w) */
          nx -= nx >= w ? w : 0.0f, ny -= ny >= w ? w : 0.0f;
          x[i] = nx, y[i] = ny, vx[i] = ux, vy[i] = uy; /* the new state, in sorted order */
        }
      }
  }
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
  double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
  double cp = 0, cv = 0;
  for (long i = 0; i < n; ++i) cp += (double)x[i] + y[i], cv += (double)vx[i] + vy[i];
  printf("boids_plain N=%ld steps=%ld world=%.3f cells=%dx%d (side %.3f)\n", n, steps, w, g, g, w / g);
  printf("mean_neighbours=%.3f (within %g, all steps; uniform start expects %.3f)\n",
         steps ? neighbours / ((double)n * steps) : 0.0, RV, (n - 1) * 3.14159265 * rv2 / ((double)w * w));
  printf("ms_per_step=%.4f\nchecksum pos=%.9e vel=%.9e\n", steps ? ms / steps : 0.0, cp, cv);
  return 0;
}
