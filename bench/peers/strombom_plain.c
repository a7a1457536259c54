/* strombom_plain: a speed-tuned plain C11 loop of Strömbom et al. (2014)'s sheep, a peer for herd's strombom
 * in its all-active workload, bench/all-active.json (no code shared). Build (no fast-math, no reassociation:
 * every float sum is done in the order written, IEEE, as herd's are):
 *   gcc -O3 -march=native -std=c11 -Wall -Wextra -Werror -o strombom_plain strombom_plain.c -lm
 * usage: strombom_plain N STEPS [FIELD_SIDE [SEED]]  (FIELD_SIDE: 3 sqrt(4 N), as bench/all-active.sh)
 * Sheep start uniform in [2L/3, L]^2, headings uniform; one dog at (0, 0). A step: the dog moves, then every
 * sheep (all react: r_s = 1e9 m) updates synchronously: H' = unit(h H + c unit(LCM - A) + rho_a R_a +
 * rho_s unit(A - S) + e eps), A' = A + delta H' (a zero sum keeps H), R_a = unit(sum unit(A - A_j)) over
 * 0 < |A - A_j| < r_a, LCM the centre of the n = 50 nearest others, exact (2 m grid, counting sort, rings of
 * cells until n lie within what they cover, quickselect). h 0.5, c 1.05, rho_a 2, rho_s 1, e 0.3, delta 1 m,
 * r_a 2 m. Dog: 1.5 m along unit(unit(P - S) + 0.3 eps), P = G + r_a sqrt(N) unit(G - T), T = (-1e6, -1e6);
 * still while a sheep is within 3 r_a. Simplified: no grazing, no collecting (neither happens here), own RNG.
 * Prints ms_per_step (CPU time of the step loop), the mean distance of the n-th neighbour, a checksum. */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { K = 50 };
static const float RA = 2, H = 0.5f, C = 1.05f, RHO_A = 2, RHO_S = 1, E = 0.3f, CS = 2, INV = 0.5f;
static uint64_t rng = 0x9e3779b97f4a7c15u, *key; /* key[]: a candidate's distance^2 bits << 32 | slot */
static float unif(void) {                        /* xorshift64*, 24 bits in [0, 1) */
  return rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27, (rng * 0x2545f4914f6cdd1du >> 40) * 0x1p-24f;
}
static uint32_t bits(float f) { return *(uint32_t *)memcpy(&(uint32_t){0}, &f, 4); }
static float flt(uint32_t u) { return *(float *)memcpy(&(float){0}, &u, 4); }
static float minf(float a, float b) { return a < b ? a : b; }
static float maxf(float a, float b) { return a > b ? a : b; }
static void div2(float *x, float *y, float l) { l = l > 0 ? l : 1, *x /= l, *y /= l; }
static void unit(float *x, float *y) { div2(x, y, sqrtf(*x * *x + *y * *y)); }
static void eps(float *x, float *y) { *y = sinf(*x = 6.2831853f * unif()), *x = cosf(*x); }
static float *sx, *sy, *cdx, *cdy, *cd2, px, py; /* sorted positions; candidates' offsets, distances^2 */
static int m, gw, gh, *start;
static void row(int r, int a, int b) { /* adds the sheep of cells a..b of grid row r to the candidates */
  if (a = a < 0 ? 0 : a, b = b < gw ? b : gw - 1, r < 0 || r >= gh || a > b) return;
  for (int j = start[r * gw + a], j1 = start[r * gw + b + 1]; j < j1; ++j, ++m)
    cdx[m] = sx[j] - px, cdy[m] = sy[j] - py, cd2[m] = cdx[m] * cdx[m] + cdy[m] * cdy[m],
    key[m] = (uint64_t)bits(cd2[m]) << 32 | (uint32_t)m;
}
static void select_k(uint64_t *a, int n, int k) { /* a[0..k]: the k + 1 smallest (branch-free Lomuto) */
  for (int l = 0, r = n - 1, s; l < r; l = s < k ? s + 1 : s == k ? r : l, r = s > k ? s - 1 : r) {
    uint64_t p = a[k], t;
    a[k] = a[r], a[r] = p, s = l;
    for (int i = l; i < r; ++i) t = a[i], a[i] = a[s], a[s] = t, s += t < p;
    a[r] = a[s], a[s] = p;
  }
}
int main(int argc, char **argv) {
  if (argc < 3) return fprintf(stderr, "usage: %s N STEPS [FIELD_SIDE [SEED]]\n", argv[0]), 2;
  long n = atol(argv[1]), steps = atol(argv[2]);
  float L = argc > 3 ? (float)atof(argv[3]) : 3 * sqrtf(4.0f * n), dogx = 0, dogy = 0;
  if (argc > 4) rng ^= strtoull(argv[4], 0, 10) * 0x9e3779b97f4a7c15u;
  float *mem = n > K ? malloc(11 * sizeof(float) * n) : 0, *x, *y, *hx, *hy, *shx, *shy;
  int *cell = n > K ? malloc(sizeof(int) * n) : 0, cap = 0;
  if ((key = n > K ? malloc(sizeof(uint64_t) * n) : 0), !mem || !cell || !key || steps < 0 || !(L > 0))
    return fputs("need N > 50, L > 0, STEPS >= 0\n", stderr), 2;
  x = mem, y = x + n, hx = y + n, hy = hx + n, sx = hy + n, sy = sx + n, shx = sy + n, shy = shx + n;
  cdx = shy + n, cdy = cdx + n, cd2 = cdy + n;
  for (long i = 0; i < n; ++i) x[i] = L * (2 + unif()) / 3, y[i] = L * (2 + unif()) / 3, eps(hx + i, hy + i);
  double kdist = 0, cs[4] = {0};
  struct timespec t0, t1;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
  for (long step = 0; step < steps; ++step) {
    double gx = 0, gy = 0; /* the dog moves first, from the state at t */
    float x0 = x[0], y0 = y[0], x1 = x[0], y1 = y[0], near = INFINITY, dx, dy, ex, ey;
    for (long i = 0; i < n; ++i)
      dx = x[i] - dogx, dy = y[i] - dogy, gx += x[i], gy += y[i], near = minf(near, dx * dx + dy * dy),
      x0 = minf(x0, x[i]), y0 = minf(y0, y[i]), x1 = maxf(x1, x[i]), y1 = maxf(y1, y[i]);
    if (gx /= n, gy /= n, near >= 9 * RA * RA) {
      double tx = gx + 1e6, ty = gy + 1e6, b = RA * sqrt((double)n) / sqrt(tx * tx + ty * ty); /* G - T */
      dx = (float)(gx + b * tx) - dogx, dy = (float)(gy + b * ty) - dogy;
      unit(&dx, &dy), eps(&ex, &ey), dx += 0.3f * ex, dy += 0.3f * ey, unit(&dx, &dy);
      dogx += 1.5f * dx, dogy += 1.5f * dy;
    }
    gw = (int)((x1 - x0) * INV) + 1, gh = (int)((y1 - y0) * INV) + 1; /* the grid: the flock's box */
    int nc = gw * gh, gmax = gw > gh ? gw : gh, guess = 0;
    if (nc + 1 > cap) free(start), start = malloc(sizeof(int) * (cap = 2 * nc + 1));
    memset(start, 0, sizeof(int) * (nc + 1));
    for (long i = 0; i < n; ++i) /* rounding is monotone: no cell index beyond the box's */
      cell[i] = (int)((y[i] - y0) * INV) * gw + (int)((x[i] - x0) * INV), ++start[cell[i] + 1];
    for (int c = 0; c < nc; ++c) start[c + 1] += start[c];
    for (long i = 0, p; i < n; ++i) /* the sorted copy, the state at t */
      p = start[cell[i]]++, sx[p] = x[i], sy[p] = y[i], shx[p] = hx[i], shy[p] = hy[i];
    memmove(start + 1, start, sizeof(int) * nc), start[0] = 0;
    for (int c = 0; c < nc; ++c)
      for (int i = start[c], cx = c % gw, cy = c / gw, q = m = 0; i < start[c + 1]; ++i, q = m = 0) {
        float fx = ((px = sx[i]) - x0) * INV - cx, fy = ((py = sy[i]) - y0) * INV - cy, cov = 0, c2 = 0;
        float e = CS * minf(minf(fx, 1 - fx), minf(fy, 1 - fy)) - 1e-3f, lx = 0, ly = 0, rx = 0, ry = 0;
        /* block R0 (the last sheep's R - 1) by rows, then ring R, until n lie within the cover, R CS + e */
        for (int R = guess > 0 ? guess - 1 : 0, R0 = R; q <= K; guess = R++) {
          for (int r = cy - R; r <= cy + R; ++r)
            R == R0 || r == cy - R || r == cy + R ? row(r, cx - R, cx + R)
                                                  : (row(r, cx - R, cx - R), row(r, cx + R, cx + R));
          cov = R >= gmax ? INFINITY : R * CS + e, c2 = cov * cov, q = 0;
          if (m > K && cov >= RA)
            for (int j = 0; j < m; ++j) q += cd2[j] <= c2;
        }
        for (int j = q = 0; j < m; ++j) key[q] = key[j], q += cd2[j] <= c2; /* all within cov are here */
        for (int j = 0; j < m; ++j)
          if (cd2[j] < RA * RA && cd2[j] > 0) rx -= cdx[j] / sqrtf(cd2[j]), ry -= cdy[j] / sqrtf(cd2[j]);
        select_k(key, q, K); /* the sheep itself (distance 0) and the n nearest */
        for (int j = 0; j <= K; ++j) lx += cdx[(uint32_t)key[j]], ly += cdy[(uint32_t)key[j]];
        kdist += sqrtf(flt((uint32_t)(key[K] >> 32)));
        dx = px - dogx, dy = py - dogy, unit(&lx, &ly), unit(&rx, &ry), unit(&dx, &dy), eps(&ex, &ey);
        float nx = H * shx[i] + C * lx + RHO_A * rx + RHO_S * dx + E * ex;
        float ny = H * shy[i] + C * ly + RHO_A * ry + RHO_S * dy + E * ey;
        if (nx == 0 && ny == 0) nx = shx[i], ny = shy[i];
        unit(&nx, &ny), x[i] = px + nx, y[i] = py + ny, hx[i] = nx, hy[i] = ny;
      }
  }
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
  for (long i = 0; i < n; ++i) cs[0] += x[i], cs[1] += y[i], cs[2] += hx[i], cs[3] += hy[i];
  double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6, d = steps ? steps : 1;
  printf("ms_per_step=%.4f mean_kth_distance_m=%.4f checksum=%.6f %.6f %.6f %.6f dog=%.3f %.3f\n", ms / d,
         kdist / (n * d), cs[0], cs[1], cs[2], cs[3], dogx, dogy);
  return 0;
}
