/* Seconds on the monotonic clock, for timing stages (--profile) and runs. */
#include "layer.h"
#ifndef HERD_UTIL_CLOCK_H
#define HERD_UTIL_CLOCK_H
#include <time.h>

static inline double herd_clock_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif
