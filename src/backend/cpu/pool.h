/* The CPU backend's threads: a parallel loop over chunks of agents that stays fast when the
 * machine is busy. OpenMP's default barriers spin for a long time, so when another process
 * holds a core, a thread waiting for a descheduled one burns its slice; at 10^4 sheep 2
 * threads ran 3 to 12 times slower than 1 on a loaded 2-core machine. Here
 *
 *   - chunks are handed out one at a time, so a descheduled thread holds up at most the
 *     chunk it is on, never a fixed half of the loop;
 *   - the caller runs chunks too, and waits only for threads that took part in this loop,
 *     not for one that was not even woken in time;
 *   - waiting spins a few microseconds, then sleeps on a condition variable.
 *
 * Results never depend on which thread ran which chunk: each chunk writes only its own
 * outputs (the backend's loops are written that way). */
#ifndef HERD_BACKEND_CPU_POOL_H
#define HERD_BACKEND_CPU_POOL_H
#include <stdint.h>
#include "../layer.h"

#include "herd/herd.h"

typedef struct herd_pool herd_pool;

/* Items [begin, end) of one loop. */
typedef void (*herd_pool_fn)(void *ctx, uint32_t begin, uint32_t end);

/* A pool running loops on `threads` threads: the caller and threads - 1 workers. */
herd_status herd_pool_create(int threads, herd_pool **out, herd_error *err);
void herd_pool_destroy(herd_pool *pool);

/* Runs fn over [0, n) in chunks of `chunk` items, on every thread of the pool, and returns
 * when all are done. One thread, or a loop of one chunk, runs on the caller alone. */
void herd_pool_for(herd_pool *pool, uint32_t n, uint32_t chunk, herd_pool_fn fn, void *ctx);

/* The processors this process may run on (its affinity mask), at least 1. */
int herd_available_cpus(void);

#endif
