/* NetLogo asks its birds one at a time in a fresh random order, each seeing the headings of
 * those asked before it already turned; herd turns every bird from the headings at the start
 * of the tick. This program measures what that changes, with the model's own rule functions
 * (kernels/models/netlogo.h) and the CPU backend's grid:
 *
 *   - polarisation against ticks, averaged over seeds, for the synchronous update (herd) and
 *     for a sequential random-order update (NetLogo's), from the same starting flocks;
 *   - the tick at which each seed's polarisation first passes 0.8;
 *   - two birds in each other's vision, headings 4 degrees apart, tick by tick, with and
 *     without cohesion.
 *
 * Its own synchronous loop is first checked bit for bit against herd_sim, so the two
 * columns differ by the update order alone. Usage: netlogo_order [SEEDS [TICKS]]; prints
 * Markdown (docs/models/netlogo-flocking.md quotes it). */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cpu/cpu_backend.h"
#include "backend_util.h"
#include "models/netlogo.h"

typedef enum { SYNCHRONOUS, SEQUENTIAL } update_order;

/* A flock: float2 positions and unit headings, in the order the last tick sorted them (as
 * herd's backend keeps it, so that neighbours are summed in the same order), and each
 * bird's id. */
typedef struct flock {
  uint32_t n;
  float *pos, *vel;
  uint32_t *id;
} flock;

typedef struct ticker {
  herd_scenario sc;
  herd_netlogo_params m;
  herd_backend *backend;
  float *vel;     /* the sorted headings as vectors, updated in place by a sequential tick */
  float *heading; /* the sorted birds' headings after turning, in degrees */
  uint64_t shuffle;
  uint32_t *order;
} ticker;

static void die(const char *what, const herd_error *err) {
  fprintf(stderr, "netlogo_order: %s: %s\n", what, err->message);
  exit(1);
}

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static herd_scenario netlogo_scenario(uint64_t seed, uint32_t count) {
  char seed_set[40], count_set[40];
  snprintf(seed_set, sizeof seed_set, "seed=%llu", (unsigned long long)seed);
  snprintf(count_set, sizeof count_set, "netlogo.count=%u", count);
  const char *sets[] = {"model=netlogo", seed_set, count_set};
  return scenario_with(sets, 3);
}

static ticker ticker_for(const herd_scenario *sc) {
  ticker t = {.sc = *sc, .shuffle = sc->seed};
  memcpy(&t.m, sc->params.bytes, sizeof t.m);
  herd_backend_desc desc = backend_desc_for(sc, sc->flock.count, 1);
  herd_error err;
  if (herd_cpu_backend.create(&desc, &t.backend, &err) != HERD_OK) die("the CPU backend", &err);
  t.vel = malloc(2 * sizeof(float) * sc->flock.count);
  t.heading = malloc(sizeof(float) * sc->flock.count);
  t.order = malloc(sizeof(uint32_t) * sc->flock.count);
  return t;
}

static void ticker_free(ticker *t) {
  herd_cpu_backend.destroy(t->backend);
  free(t->vel);
  free(t->heading);
  free(t->order);
}

/* A fresh random order of 0..n-1 (Fisher-Yates), as NetLogo's `ask` draws each time. */
static void shuffle(ticker *t, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) t->order[i] = i;
  for (uint32_t i = n; i > 1; --i) {
    uint32_t j = (uint32_t)(splitmix(&t->shuffle) % i), k = t->order[i - 1];
    t->order[i - 1] = t->order[j], t->order[j] = k;
  }
}

/* The heading sorted bird i turns to under the flocking rules, given the headings in v. */
static float flocked_heading(const ticker *t, const herd_flock_view *v, uint32_t i) {
  herd_vec3 p = herd_agent_pos(v, i), h = herd_agent_vel(v, i);
  return herd_netlogo_flock(&t->m, v, herd_netlogo_flockmates(&t->m, v, i, p), herd_heading_of(h.x, h.y));
}

/* One tick of the model on flock f (no enemies): all turn, in the given order, then all fly.
 * Sequentially, each bird's new heading is visible to the birds asked after it. */
static void tick(ticker *t, flock *f, update_order order) {
  herd_error err;
  uint32_t n = f->n;
  /* The birds with their own ids (herd sorts each cell's birds by id), boxed as an upload does. */
  herd_box_history boxes;
  herd_box_history_start(&boxes, f->pos, n, 2);
  if (herd_cpu_backend.restore(t->backend, n, f->pos, f->vel, f->id, &boxes, 0, &err) != HERD_OK) die("restore", &err);
  herd_cpu_grid_view g = herd_cpu_build_grid(t->backend);
  memcpy(t->vel, g.vel, 2 * sizeof(float) * n);
  herd_step_info info = {0};
  herd_flock_view v = {
      .grid = &g.grid, .pos = g.pos, .vel = t->vel, .agent = g.agent, .cell_end = g.cell_end, .info = &info};
  if (order == SEQUENTIAL) {
    shuffle(t, n);
    for (uint32_t k = 0; k < n; ++k) {
      uint32_t i = t->order[k];
      t->heading[i] = flocked_heading(t, &v, i);
      herd_vec3 u = herd_heading_vector(t->heading[i]);
      t->vel[2 * i] = u.x, t->vel[2 * i + 1] = u.y;
    }
  } else {
    for (uint32_t i = 0; i < n; ++i) t->heading[i] = flocked_heading(t, &v, i);
  }
  uint32_t *id = malloc(sizeof(uint32_t) * n);
  for (uint32_t i = 0; i < n; ++i) id[i] = herd_agent_id(g.agent[i]);
  for (uint32_t i = 0; i < n; ++i) {
    herd_agent_next next = herd_netlogo_flee_and_fly(&t->m, &v, herd_agent_pos(&v, i), t->heading[i]);
    f->pos[2 * i] = next.pos.x, f->pos[2 * i + 1] = next.pos.y;
    f->vel[2 * i] = next.vel.x, f->vel[2 * i + 1] = next.vel.y;
  }
  free(f->id);
  f->id = id;
}

static double polarisation(const flock *f) {
  double x = 0, y = 0;
  for (uint32_t i = 0; i < f->n; ++i) x += f->vel[2 * i], y += f->vel[2 * i + 1];
  return hypot(x, y) / f->n;
}

/* The sim's flock, in id order. */
static flock flock_of(herd_sim *sim) {
  flock f = {herd_sim_scenario(sim)->flock.count, NULL, NULL, NULL};
  f.pos = malloc(2 * sizeof(float) * f.n);
  f.vel = malloc(2 * sizeof(float) * f.n);
  f.id = malloc(sizeof(uint32_t) * f.n);
  for (uint32_t i = 0; i < f.n; ++i) f.id[i] = i;
  herd_error err;
  if (herd_sim_read_flock(sim, f.pos, f.vel, &err) != HERD_OK) die("reading the flock", &err);
  return f;
}

static void flock_free(flock *f) {
  free(f->pos);
  free(f->vel);
  free(f->id);
}

/* True when flock a (any order) and flock b (id order) hold the same birds bit for bit. */
static bool same_flock(const flock *a, const flock *b) {
  for (uint32_t i = 0; i < a->n; ++i)
    if (memcmp(&a->pos[2 * i], &b->pos[2 * a->id[i]], 2 * sizeof(float)) != 0 ||
        memcmp(&a->vel[2 * i], &b->vel[2 * a->id[i]], 2 * sizeof(float)) != 0)
      return false;
  return true;
}

/* This program's synchronous tick is herd's step, bit for bit; exits if not. */
static void check_against_herd(uint32_t ticks) {
  herd_scenario sc = netlogo_scenario(1, 300);
  herd_sim *sim = sim_start(&sc, 1);
  flock mine = flock_of(sim);
  ticker t = ticker_for(&sc);
  herd_error err;
  for (uint32_t s = 0; s < ticks; ++s) {
    tick(&t, &mine, SYNCHRONOUS);
    if (herd_sim_step(sim, &err) != HERD_OK) die("herd_sim_step", &err);
  }
  flock theirs = flock_of(sim);
  bool same = same_flock(&mine, &theirs);
  printf("Check: this program's synchronous tick against herd's step, seed 1, %u ticks: %s.\n\n", ticks,
         same ? "bit-identical" : "DIFFERENT");
  if (!same) exit(1);
  flock_free(&mine);
  flock_free(&theirs);
  ticker_free(&t);
  herd_sim_destroy(sim);
}

static int compare_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* Median, mean and slowest of the seeds' first passages (those that passed). */
static void print_passage_summary(const char *label, const uint32_t *first, uint32_t seeds, uint32_t ticks) {
  uint32_t *sorted = malloc(seeds * sizeof *sorted), passed = 0;
  double sum = 0;
  for (uint32_t s = 0; s < seeds; ++s)
    if (first[s] != UINT32_MAX) sorted[passed++] = first[s], sum += first[s];
  qsort(sorted, passed, sizeof *sorted, compare_u32);
  if (passed == 0) {
    printf("\n%s: no seed passed 0.8 within %u ticks.", label, ticks);
  } else {
    double median = passed % 2 ? sorted[passed / 2] : 0.5 * (sorted[passed / 2 - 1] + sorted[passed / 2]);
    printf("\n%s: %u of %u seeds passed 0.8; median tick %.1f, mean %.1f, slowest %u.", label, passed, seeds, median,
           sum / passed, sorted[passed - 1]);
  }
  if (strcmp(label, "sequential") == 0) printf("\n");
  free(sorted);
}

/* Polarisation per tick, summed over seeds, and each seed's first tick above 0.8. */
static void polarisation_runs(uint32_t seeds, uint32_t ticks) {
  double *sum[2] = {calloc(ticks + 1, sizeof(double)), calloc(ticks + 1, sizeof(double))};
  uint32_t *first[2] = {malloc(seeds * sizeof(uint32_t)), malloc(seeds * sizeof(uint32_t))};
  for (uint32_t s = 0; s < seeds; ++s) {
    herd_scenario sc = netlogo_scenario(s + 1, 300);
    herd_sim *sim = sim_start(&sc, 1);
    for (int o = 0; o < 2; ++o) {
      flock f = flock_of(sim);
      ticker t = ticker_for(&sc);
      first[o][s] = UINT32_MAX;
      for (uint32_t k = 0; k <= ticks; ++k) {
        double p = polarisation(&f);
        sum[o][k] += p;
        if (p > 0.8 && first[o][s] == UINT32_MAX) first[o][s] = k;
        if (k < ticks) tick(&t, &f, (update_order)o);
      }
      ticker_free(&t);
      flock_free(&f);
    }
    herd_sim_destroy(sim);
  }
  printf("Mean polarisation over %u seeds (300 birds, 71 x 71 torus, vision 3):\n\n", seeds);
  printf("| tick | synchronous (herd) | sequential, random order (NetLogo) |\n|---:|---:|---:|\n");
  for (uint32_t k = 0; k <= ticks; k = k < 10 ? k + 1 : k < 100 ? k + 10 : k + 100)
    printf("| %u | %.3f | %.3f |\n", k, sum[0][k] / seeds, sum[1][k] / seeds);
  printf("\nFirst tick with polarisation above 0.8, per seed (- : not within %u ticks):\n\n", ticks);
  printf("| seed | synchronous | sequential |\n|---:|---:|---:|\n");
  for (uint32_t s = 0; s < seeds; ++s) {
    char a[16] = "-", b[16] = "-";
    if (first[0][s] != UINT32_MAX) snprintf(a, sizeof a, "%u", first[0][s]);
    if (first[1][s] != UINT32_MAX) snprintf(b, sizeof b, "%u", first[1][s]);
    printf("| %u | %s | %s |\n", s + 1, a, b);
  }
  for (int o = 0; o < 2; ++o) print_passage_summary(o == 0 ? "synchronous" : "sequential", first[o], seeds, ticks);
  for (int o = 0; o < 2; ++o) free(sum[o]), free(first[o]);
}

/* Two birds 2 patches apart (within vision 3, beyond minimum separation 1), headings 0 and
 * 4 degrees; bird 1 is east of bird 0, so cohesion turns them toward each other. */
static void two_birds(uint32_t ticks, bool cohere) {
  herd_scenario sc = netlogo_scenario(1, 2);
  if (!cohere) ((herd_netlogo_params *)sc.params.bytes)->max_cohere_turn_deg = 0.0f;
  printf("\nTwo birds, (10, 10) heading 0 and (12, 10) heading 4 degrees, %s; headings after each tick:\n\n",
         cohere ? "the model as it is" : "alignment alone (max-cohere-turn 0)");
  printf("| tick | synchronous: bird 0, bird 1 | sequential: bird 0, bird 1 |\n|---:|---:|---:|\n");
  flock f[2];
  ticker t[2];
  herd_vec3 a = herd_heading_vector(0.0f), b = herd_heading_vector(4.0f);
  for (int o = 0; o < 2; ++o) {
    f[o] = (flock){2, malloc(4 * sizeof(float)), malloc(4 * sizeof(float)), malloc(2 * sizeof(uint32_t))};
    memcpy(f[o].pos, (float[4]){10, 10, 12, 10}, 4 * sizeof(float));
    memcpy(f[o].vel, (float[4]){a.x, a.y, b.x, b.y}, 4 * sizeof(float));
    f[o].id[0] = 0, f[o].id[1] = 1;
    t[o] = ticker_for(&sc);
  }
  for (uint32_t k = 0; k <= ticks; ++k) {
    printf("| %u |", k);
    for (int o = 0; o < 2; ++o) {
      uint32_t first = f[o].id[0] == 0 ? 0 : 1, second = 1 - first;
      const float *v = f[o].vel;
      printf(" %.2f, %.2f |", (double)herd_heading_of(v[2 * first], v[2 * first + 1]),
             (double)herd_heading_of(v[2 * second], v[2 * second + 1]));
    }
    printf("\n");
    for (int o = 0; o < 2 && k < ticks; ++o) tick(&t[o], &f[o], (update_order)o);
  }
  for (int o = 0; o < 2; ++o) ticker_free(&t[o]), flock_free(&f[o]);
}

int main(int argc, char **argv) {
  uint32_t seeds = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 20;
  uint32_t ticks = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 1500;
  if (seeds < 1 || seeds > 1000 || ticks < 1 || ticks > 100000) {
    fprintf(stderr, "usage: netlogo_order [SEEDS (1-1000) [TICKS (1-100000)]]\n");
    return 2;
  }
  check_against_herd(200);
  polarisation_runs(seeds, ticks);
  two_birds(6, true);
  two_birds(6, false);
  return 0;
}
