/* The plain reference for herd's k-nearest search (issue 15 item 7): what a competent
 * 80-line C program does. N sheep uniform at one per 4 m^2, a dense grid of 4 m cells (as
 * herd's Strömbom grid; faster here than 2 or 8 m), a counting sort, and for each sheep the exact k = 50 nearest: the 3
 * x 3 block, then ring by ring until the k-th is nearer than the square's edge, kept sorted by insertion. Sums the
 * neighbours' centre so that the work cannot be dropped. One thread.
 *
 * usage: knn_plain N STEPS   (prints seconds per pass and a checksum) */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define K 50
#define CELL 4.0f

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 10000, steps = argc > 2 ? atoi(argv[2]) : 10;
  float side = sqrtf(4.0f * (float)n);
  int cells = (int)(side / CELL) + 1, ncell = cells * cells;
  float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *sx = malloc(n * sizeof *sx),
        *sy = malloc(n * sizeof *sy);
  int *start = calloc(ncell + 1, sizeof *start), *cell = malloc(n * sizeof *cell);
  srand(1);
  for (int i = 0; i < n; ++i) x[i] = side * rand() / (float)RAND_MAX, y[i] = side * rand() / (float)RAND_MAX;
  double sum = 0;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int s = 0; s < steps; ++s) {
    for (int c = 0; c <= ncell; ++c) start[c] = 0;
    for (int i = 0; i < n; ++i) ++start[(cell[i] = (int)(y[i] / CELL) * cells + (int)(x[i] / CELL)) + 1];
    for (int c = 0; c < ncell; ++c) start[c + 1] += start[c];
    int *fill = malloc((ncell + 1) * sizeof *fill);
    for (int c = 0; c <= ncell; ++c) fill[c] = start[c];
    for (int i = 0; i < n; ++i) sx[fill[cell[i]]] = x[i], sy[fill[cell[i]]++] = y[i];
    free(fill);
    for (int i = 0; i < n; ++i) {
      float px = sx[i], py = sy[i], d2[K];
      int idx[K], m = 0, cx = (int)(px / CELL), cy = (int)(py / CELL);
      for (int r = 1;; ++r) { /* the 3 x 3 block, then ring r only */
        for (int yy = cy - r; yy <= cy + r; ++yy)
          for (int xx = cx - r; xx <= cx + r; ++xx) {
            if (xx < 0 || yy < 0 || xx >= cells || yy >= cells) continue;
            if (r > 1 && abs(xx - cx) < r && abs(yy - cy) < r) continue;
            for (int j = start[yy * cells + xx]; j < start[yy * cells + xx + 1]; ++j) {
              if (j == i) continue;
              float dx = sx[j] - px, dy = sy[j] - py, d = dx * dx + dy * dy;
              if (m == K && d >= d2[K - 1]) continue;
              int at = m < K ? m++ : K - 1; /* insertion into the sorted list */
              while (at > 0 && d2[at - 1] > d) d2[at] = d2[at - 1], idx[at] = idx[at - 1], --at;
              d2[at] = d, idx[at] = j;
            }
          }
        float edge = fminf(fminf(px - (cx - r) * CELL, (cx + r + 1) * CELL - px),
                           fminf(py - (cy - r) * CELL, (cy + r + 1) * CELL - py));
        if ((m == K && d2[K - 1] < edge * edge) || m == n - 1) break;
      }
      for (int q = 0; q < m; ++q) sum += sx[idx[q]] + sy[idx[q]];
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double sec = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
  printf("n=%d steps=%d ms_per_step=%.3f checksum=%.6g\n", n, steps, 1e3 * sec / steps, sum);
  return 0;
}
