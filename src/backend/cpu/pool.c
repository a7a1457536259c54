#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "../../util/error.h"

/* How long a thread polls before it sleeps: a few microseconds, enough to catch the next
 * loop of the same step without a system call, too short to matter when the core is shared. */
#define SPIN_ROUNDS 2000

typedef struct herd_pool_job {
  herd_pool_fn fn;
  void *ctx;
  uint32_t n, chunk, chunks;
} herd_pool_job;

struct herd_pool {
  int threads;
  pthread_t *workers;
  pthread_mutex_t lock;
  pthread_cond_t start, done;
  herd_pool_job job;      /* valid while a loop is open */
  atomic_uint generation; /* one more for each loop */
  atomic_uint closed;     /* the last generation whose chunks are all handed out */
  atomic_uint next_chunk; /* of the open loop */
  atomic_int inside;      /* workers inside the open loop */
  atomic_bool quit;
};

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* Runs chunks of the open loop until none is left. */
static void run_chunks(herd_pool *p, const herd_pool_job *job) {
  for (;;) {
    uint32_t c = atomic_fetch_add(&p->next_chunk, 1);
    if (c >= job->chunks) return;
    uint32_t begin = c * job->chunk, end = begin + job->chunk;
    job->fn(job->ctx, begin, end < job->n ? end : job->n);
  }
}

/* Waits, spinning briefly then sleeping, until a loop newer than `seen` opens (or quit). */
static unsigned wait_for_loop(herd_pool *p, unsigned seen) {
  for (int k = 0; k < SPIN_ROUNDS; ++k) {
    unsigned g = atomic_load(&p->generation);
    if (g != seen || atomic_load(&p->quit)) return g;
    cpu_relax();
  }
  pthread_mutex_lock(&p->lock);
  unsigned g;
  while ((g = atomic_load(&p->generation)) == seen && !atomic_load(&p->quit)) pthread_cond_wait(&p->start, &p->lock);
  pthread_mutex_unlock(&p->lock);
  return g;
}

static void *worker(void *arg) {
  herd_pool *p = arg;
  unsigned seen = 0;
  for (;;) {
    unsigned g = wait_for_loop(p, seen);
    if (atomic_load(&p->quit)) return NULL;
    seen = g;
    /* Announce first, then check the loop is still open: once the caller has seen no
     * worker inside a closed loop it may reuse the job, so a late worker must not touch it. */
    atomic_fetch_add(&p->inside, 1);
    if (atomic_load(&p->generation) == g && atomic_load(&p->closed) != g) {
      herd_pool_job job = p->job;
      run_chunks(p, &job);
    }
    if (atomic_fetch_sub(&p->inside, 1) == 1) {
      pthread_mutex_lock(&p->lock);
      pthread_cond_signal(&p->done);
      pthread_mutex_unlock(&p->lock);
    }
  }
}

void herd_pool_for(herd_pool *p, uint32_t n, uint32_t chunk, herd_pool_fn fn, void *ctx) {
  if (n == 0) return;
  if (chunk == 0) chunk = 1;
  uint32_t chunks = (n - 1) / chunk + 1;
  if (p->threads == 1 || chunks == 1) {
    for (uint32_t begin = 0; begin < n; begin += chunk) fn(ctx, begin, n - begin < chunk ? n : begin + chunk);
    return;
  }
  herd_pool_job job = {fn, ctx, n, chunk, chunks};
  pthread_mutex_lock(&p->lock);
  p->job = job;
  atomic_store(&p->next_chunk, 0);
  unsigned g = atomic_fetch_add(&p->generation, 1) + 1;
  pthread_cond_broadcast(&p->start);
  pthread_mutex_unlock(&p->lock);
  run_chunks(p, &job);
  atomic_store(&p->closed, g); /* every chunk is handed out: latecomers stay out */
  for (int k = 0; k < SPIN_ROUNDS && atomic_load(&p->inside) > 0; ++k) cpu_relax();
  if (atomic_load(&p->inside) > 0) {
    pthread_mutex_lock(&p->lock);
    while (atomic_load(&p->inside) > 0) pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
  }
}

int herd_available_cpus(void) {
#ifdef __EMSCRIPTEN__ /* the web build runs on the page's one thread */
  return 1;
#else
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  return 1;
#endif
}

herd_status herd_pool_create(int threads, herd_pool **out, herd_error *err) {
  herd_pool *p = calloc(1, sizeof *p);
  if (!p) return herd_fail(err, HERD_E_MEMORY, "out of memory creating %d threads", threads);
  p->threads = threads < 1 ? 1 : threads;
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->start, NULL);
  pthread_cond_init(&p->done, NULL);
  if (p->threads > 1 && !(p->workers = calloc((size_t)p->threads - 1, sizeof *p->workers))) {
    herd_pool_destroy(p);
    return herd_fail(err, HERD_E_MEMORY, "out of memory creating %d threads", threads);
  }
  for (int k = 0; k < p->threads - 1; ++k) {
    if (pthread_create(&p->workers[k], NULL, worker, p) != 0) {
      p->threads = k + 1; /* the ones started are joined by destroy */
      herd_pool_destroy(p);
      return herd_fail(err, HERD_E_BACKEND, "cannot start %d threads (started %d)", threads, k);
    }
  }
  *out = p;
  return HERD_OK;
}

void herd_pool_destroy(herd_pool *p) {
  if (!p) return;
  pthread_mutex_lock(&p->lock);
  atomic_store(&p->quit, true);
  pthread_cond_broadcast(&p->start);
  pthread_mutex_unlock(&p->lock);
  for (int k = 0; p->workers && k < p->threads - 1; ++k) pthread_join(p->workers[k], NULL);
  free(p->workers);
  pthread_cond_destroy(&p->start);
  pthread_cond_destroy(&p->done);
  pthread_mutex_destroy(&p->lock);
  free(p);
}
