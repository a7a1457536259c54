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

/* The two-sided 95 % quantile of Student's t with `df` degrees of freedom: a table to 30, then
 * the series t = z + (z^3 + z) / (4 df) + ... (Abramowitz & Stegun 26.7.5), good to 1e-4. */
static double t975(size_t df) {
  static const double table[] = {NAN,   12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                 2.201, 2.179,  2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080,
                                 2.074, 2.069,  2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df < sizeof table / sizeof table[0]) return table[df];
  double z = Z95, d = (double)df;
  return z + (pow(z, 3) + z) / (4 * d) + (5 * pow(z, 5) + 16 * pow(z, 3) + 3 * z) / (96 * d * d);
}

herd_line_fit herd_fit_line(const double *x, const double *y, size_t n) {
  herd_line_fit fit = {NAN, NAN, NAN};
  if (n < 2) return fit;
  double mx = 0, my = 0;
  for (size_t k = 0; k < n; ++k) mx += x[k] / (double)n, my += y[k] / (double)n;
  double sxx = 0, sxy = 0;
  for (size_t k = 0; k < n; ++k) sxx += (x[k] - mx) * (x[k] - mx), sxy += (x[k] - mx) * (y[k] - my);
  if (!(sxx > 0)) return fit;
  fit.slope = sxy / sxx;
  fit.intercept = my - fit.slope * mx;
  if (n < 3) return fit;
  double rss = 0;
  for (size_t k = 0; k < n; ++k) rss += pow(y[k] - fit.intercept - fit.slope * x[k], 2);
  fit.slope_half_width = t975(n - 2) * sqrt(rss / (double)(n - 2) / sxx);
  return fit;
}
