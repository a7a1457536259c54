#include "stats.h"

#include <math.h>
#include <stdlib.h>

/* The standard normal quantile for a two-sided 95 % interval. */
#define Z95 1.959963984540054

void herd_wilson95(unsigned successes, unsigned n, double *lo, double *hi) {
  if (n == 0) {
    *lo = 0.0, *hi = 1.0;
    return;
  }
  double p = (double)successes / n, z2 = Z95 * Z95, scale = 1.0 + z2 / n;
  double centre = (p + z2 / (2.0 * n)) / scale;
  double half = Z95 / scale * sqrt(p * (1.0 - p) / n + z2 / (4.0 * (double)n * n));
  *lo = fmax(0.0, centre - half);
  *hi = fmin(1.0, centre + half);
  /* The exact ends: rounding must not put 0 or n successes a hair inside them. */
  if (successes == 0) *lo = 0.0;
  if (successes == n) *hi = 1.0;
}

double herd_quantile(const double *sorted, size_t n, double q) {
  if (n == 0) return NAN;
  double h = (double)(n - 1) * q;
  size_t below = (size_t)floor(h);
  if (below + 1 >= n) return sorted[n - 1];
  return sorted[below] + (h - (double)below) * (sorted[below + 1] - sorted[below]);
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void herd_sort_doubles(double *values, size_t n) {
  if (n > 1) qsort(values, n, sizeof *values, compare_doubles);
}
