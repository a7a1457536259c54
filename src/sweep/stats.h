/* Summary statistics for sweeps: the Wilson score interval of a success rate and quantiles
 * of a sample. */
#ifndef HERD_SWEEP_STATS_H
#define HERD_SWEEP_STATS_H
#include <stddef.h>
#include "layer.h"

/* The 95 % Wilson score interval of `successes` out of `n` (Wilson 1927; Agresti & Coull
 * 1998 recommend it over the normal approximation for small n and rates near 0 or 1).
 * n = 0 gives [0, 1]. */
void herd_wilson95(unsigned successes, unsigned n, double *lo, double *hi);

/* The q-quantile (0 <= q <= 1) of the `n` values in `sorted` (ascending), interpolated
 * linearly between order statistics: R's and NumPy's default ("type 7"). NaN when n = 0. */
double herd_quantile(const double *sorted, size_t n, double q);

/* Sorts `values` ascending in place. */
void herd_sort_doubles(double *values, size_t n);

/* The least-squares line y = intercept + slope x through n points, with the 95 % half-width
 * of the slope's confidence interval (Student's t with n - 2 degrees of freedom; NaN when
 * n < 3). slope is NaN when n < 2 or every x is the same. */
typedef struct herd_line_fit {
  double slope, intercept, slope_half_width;
} herd_line_fit;
herd_line_fit herd_fit_line(const double *x, const double *y, size_t n);

#endif
