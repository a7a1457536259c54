/* Summary statistics for sweeps: the Wilson score interval of a success rate and quantiles
 * of a sample. */
#ifndef HERD_SWEEP_STATS_H
#define HERD_SWEEP_STATS_H
#include <stddef.h>

/* The 95 % Wilson score interval of `successes` out of `n` (Wilson 1927; Agresti & Coull
 * 1998 recommend it over the normal approximation for small n and rates near 0 or 1).
 * n = 0 gives [0, 1]. */
void herd_wilson95(unsigned successes, unsigned n, double *lo, double *hi);

/* The q-quantile (0 <= q <= 1) of the `n` values in `sorted` (ascending), interpolated
 * linearly between order statistics: R's and NumPy's default ("type 7"). NaN when n = 0. */
double herd_quantile(const double *sorted, size_t n, double q);

/* Sorts `values` ascending in place. */
void herd_sort_doubles(double *values, size_t n);

#endif
