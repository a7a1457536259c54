/* The grid and its queries against brute force, on clouds that stress them: uniform,
 * clustered, many agents on the very same spot, and agents kilometres apart; the k-nearest
 * query (2D, open), and the radius query in 2D and 3D, open and wrapping, with radii below,
 * at and above the cell size, and with a view cone. */
#include <math.h>
#include <stdlib.h>

#include "agent.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/model_steps.h"
#include "backend_util.h"
#include "core/model_info.h"
#include "grid.h"
#include "lanes.h"
#include "rng.h"
#include "test.h"

#define TESTS(X)                           \
  X(sort_is_stable_and_ranges_are_exact)   \
  X(mixed_buckets_are_flagged_exactly)     \
  X(knn_matches_brute_force_uniform)       \
  X(knn_matches_brute_force_clustered)     \
  X(knn_matches_brute_force_duplicates)    \
  X(knn_matches_brute_force_widely_spread) \
  X(knn_two_sheep_a_million_metres_apart)  \
  X(knn_with_fewer_sheep_than_k)           \
  X(dense_box_or_hash)                     \
  X(knn_dense_outliers_are_clamped)        \
  X(knn_dense_and_hash_same_sets)          \
  X(radius_query_matches_brute_force)      \
  X(a_crowded_flock_gets_smaller_cells)    \
  X(radius_query_2d_open)                  \
  X(radius_query_2d_wrap)                  \
  X(radius_query_3d_open)                  \
  X(radius_query_3d_wrap)                  \
  X(radius_query_at_the_period_end)        \
  X(radius_query_view_cone)                \
  X(radius_query_dense_box_with_outliers)  \
  X(models_in_lanes_match_one_at_a_time)   \
  X(world_delta_is_the_shortest_offset)    \
  X(memory_depends_on_count_not_area)
TESTS(DECLARE_TEST)

typedef struct cloud {
  uint32_t n;
  herd_vec2 *pos;
} cloud;

static float uniform(uint32_t i, uint32_t stream, int which) {
  herd_rng4 r = herd_rng_draw(12345, 7, i, stream);
  return herd_rng_unit_float(r.v[which]);
}

static cloud make_uniform(uint32_t n, float side) {
  cloud c = {n, malloc(n * sizeof(herd_vec2))};
  for (uint32_t i = 0; i < n; ++i) c.pos[i] = herd_v2(side * uniform(i, 1, 0), side * uniform(i, 1, 1));
  return c;
}

/* Tight clusters of various sizes plus a few stragglers far out. */
static cloud make_clustered(uint32_t n) {
  cloud c = {n, malloc(n * sizeof(herd_vec2))};
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t cluster = i % 7;
    float cx = 40.0f * (float)cluster, cy = 25.0f * (float)(cluster % 3), spread = 1.0f + (float)cluster;
    if (i % 97 == 0) cx += 500.0f, spread = 300.0f;
    c.pos[i] = herd_v2(cx + spread * (uniform(i, 2, 0) - 0.5f), cy + spread * (uniform(i, 2, 1) - 0.5f));
  }
  return c;
}

/* Most sheep share one of five exact spots: distance ties everywhere. */
static cloud make_duplicates(uint32_t n) {
  cloud c = {n, malloc(n * sizeof(herd_vec2))};
  for (uint32_t i = 0; i < n; ++i) {
    if (i % 10 == 9)
      c.pos[i] = herd_v2(20.0f * uniform(i, 3, 0), 20.0f * uniform(i, 3, 1));
    else
      c.pos[i] = herd_v2(4.0f * (float)(i % 5), 3.0f);
  }
  return c;
}

static cloud make_spread(uint32_t n) {
  cloud c = {n, malloc(n * sizeof(herd_vec2))};
  for (uint32_t i = 0; i < n; ++i)
    c.pos[i] = herd_v2(2.0e6f * (uniform(i, 4, 0) - 0.5f), 2.0e6f * (uniform(i, 4, 1) - 0.5f));
  return c;
}

/* A CPU backend holding cloud c as a Strömbom flock with repulsion radius r_a. */
static herd_backend *backend_for(const cloud *c, float r_a) {
  char ra[64];
  snprintf(ra, sizeof ra, "sheep.repulsion_radius_m=%.9g", (double)r_a);
  const char *sets[] = {ra};
  herd_scenario sc = scenario_with(sets, 1);
  herd_backend_desc desc = backend_desc_for(&sc, c->n, 2);
  herd_backend *b;
  herd_error err;
  if (herd_cpu_backend.create(&desc, &b, &err) != HERD_OK) {
    fprintf(stderr, "%s\n", err.message);
    exit(1);
  }
  herd_vec2 *heading = calloc(c->n, sizeof *heading);
  herd_cpu_backend.upload(b, (const float *)c->pos, (const float *)heading, &err);
  free(heading);
  return b;
}

/* The sorted 2D positions of a grid view. */
static const herd_vec2 *pos2(const herd_cpu_grid_view *v) { return (const herd_vec2 *)v->pos; }

static int by_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

static int by_distance_then_index(const void *a, const void *b) {
  const herd_neighbour *x = a, *y = b;
  if (herd_neighbour_before(x->d2, x->j, y->d2, y->j)) return -1;
  return herd_neighbour_before(y->d2, y->j, x->d2, x->j) ? 1 : 0;
}

/* Independent oracle: every distance, fully sorted. */
static uint32_t brute_knn(const herd_cpu_grid_view *v, uint32_t self, uint32_t k, herd_neighbour *out,
                          herd_neighbour *all) {
  uint32_t m = 0;
  for (uint32_t j = 0; j < v->grid.count; ++j) {
    if (j == self) continue;
    herd_vec2 d = herd_v2_sub(pos2(v)[j], pos2(v)[self]);
    all[m].d2 = d.x * d.x + d.y * d.y;
    all[m++].j = j;
  }
  qsort(all, m, sizeof *all, by_distance_then_index);
  uint32_t found = m < k ? m : k;
  memcpy(out, all, found * sizeof *out);
  return found;
}

/* Compares the grid query on view v with the oracle for every `stride`-th sheep and each
 * k; returns the number of mismatches. */
static int knn_mismatches(const herd_cpu_grid_view *v, uint32_t n, uint32_t stride) {
  static const uint32_t ks[] = {1, 7, 50, HERD_MAX_NEIGHBOURS};
  herd_neighbour got[HERD_MAX_NEIGHBOURS], want[HERD_MAX_NEIGHBOURS];
  herd_neighbour *all = malloc(n * sizeof *all);
  int mismatches = 0;
  for (size_t kk = 0; kk < sizeof ks / sizeof ks[0]; ++kk) {
    for (uint32_t i = 0; i < n; i += stride) {
      uint32_t ng = herd_grid_knn(&v->grid, pos2(v), v->cell_end, i, got, ks[kk]);
      uint32_t nw = brute_knn(v, i, ks[kk], want, all);
      qsort(got, ng, sizeof *got, by_distance_then_index); /* the grid's order is its own */
      bool same = ng == nw;
      for (uint32_t m = 0; same && m < nw; ++m) same = got[m].j == want[m].j && got[m].d2 == want[m].d2;
      if (!same && mismatches++ < 5)
        CHECK_MSG(same, "sheep %u, k=%u: grid found %u, brute force %u (first j %u vs %u)", i, ks[kk], ng, nw,
                  ng ? got[0].j : 0, nw ? want[0].j : 0);
    }
  }
  free(all);
  return mismatches;
}

/* Compares the CPU backend's grid query with the oracle; `dense`: the grid mode expected
 * (the box of a compact cloud fits the table, a kilometre-wide one does not). */
static void check_knn(const cloud *c, float r_a, uint32_t stride, bool dense) {
  herd_backend *b = backend_for(c, r_a);
  herd_cpu_grid_view v = herd_cpu_build_grid(b);
  CHECK_MSG(v.grid.dense == (dense ? 1u : 0u), "grid mode %u", v.grid.dense);
  int mismatches = knn_mismatches(&v, c->n, stride);
  CHECK_MSG(mismatches == 0, "%d queries differ from brute force", mismatches);
  herd_cpu_backend.destroy(b);
  free(c->pos);
}

static void sort_is_stable_and_ranges_are_exact(void) {
  cloud c = make_clustered(5000);
  herd_backend *b = backend_for(&c, 2.0f);
  herd_cpu_grid_view v = herd_cpu_build_grid(b);
  uint32_t *seen = calloc(c.n, sizeof *seen);
  uint32_t prev_bucket = 0;
  for (uint32_t i = 0; i < c.n; ++i) {
    uint32_t bucket = herd_bucket_of(&v.grid, pos2(&v)[i]);
    CHECK(herd_agent_id(v.agent[i]) < c.n);
    if (herd_agent_id(v.agent[i]) < c.n) ++seen[herd_agent_id(v.agent[i])];
    /* The agent sits at its id's original position, in its bucket's range. */
    CHECK(pos2(&v)[i].x == c.pos[herd_agent_id(v.agent[i])].x && pos2(&v)[i].y == c.pos[herd_agent_id(v.agent[i])].y);
    CHECK(i >= herd_bucket_begin(v.cell_end, bucket) && i < herd_bucket_end(v.cell_end, bucket));
    CHECK(bucket >= prev_bucket);
    /* Stable: within a bucket, the upload (id) order is kept. */
    if (i > 0 && bucket == prev_bucket) CHECK(herd_agent_id(v.agent[i - 1]) < herd_agent_id(v.agent[i]));
    prev_bucket = bucket;
  }
  for (uint32_t i = 0; i < c.n; ++i) CHECK(seen[i] == 1);
  CHECK(herd_bucket_end(v.cell_end, v.grid.table_mask) == c.n);
  free(seen);
  herd_cpu_backend.destroy(b);
  free(c.pos);
}

/* Checks the mixed flag of every bucket against its contents; counts both kinds. */
static void check_mixed_flags(const cloud *c, uint32_t *mixed, uint32_t *pure) {
  herd_backend *b = backend_for(c, 2.0f);
  herd_cpu_grid_view v = herd_cpu_build_grid(b);
  *mixed = *pure = 0;
  for (uint32_t bucket = 0; bucket <= v.grid.table_mask; ++bucket) {
    uint32_t begin = herd_bucket_begin(v.cell_end, bucket), end = herd_bucket_end(v.cell_end, bucket);
    herd_i32 cx = begin < end ? herd_cell_coord(pos2(&v)[begin].x, v.grid.inv_cell_m) : 0;
    herd_i32 cy = begin < end ? herd_cell_coord(pos2(&v)[begin].y, v.grid.inv_cell_m) : 0;
    bool several = false;
    for (uint32_t i = begin + 1; i < end; ++i) several = several || !herd_in_cell(&v.grid, pos2(&v)[i], cx, cy);
    CHECK(several == ((v.cell_end[bucket] & HERD_BUCKET_MIXED) != 0));
    if (end > begin) several ? ++*mixed : ++*pure;
  }
  herd_cpu_backend.destroy(b);
  free(c->pos);
}

static void mixed_buckets_are_flagged_exactly(void) {
  uint32_t mixed, pure;
  cloud clustered = make_clustered(5000), spread = make_spread(1500);
  check_mixed_flags(&clustered, &mixed, &pure);
  CHECK_MSG(pure > 0, "clustered: %u mixed, %u pure", mixed, pure);
  /* Sheep kilometres apart fall in different tiles, which the hash folds onto few buckets. */
  check_mixed_flags(&spread, &mixed, &pure);
  CHECK_MSG(mixed > 0, "spread: %u mixed, %u pure", mixed, pure);
}

static void knn_matches_brute_force_uniform(void) {
  cloud c = make_uniform(3000, 150.0f);
  check_knn(&c, 2.0f, 7, true);
}

static void knn_matches_brute_force_clustered(void) {
  cloud c = make_clustered(3000);
  check_knn(&c, 2.0f, 5, false);
}

static void knn_matches_brute_force_duplicates(void) {
  cloud c = make_duplicates(2000);
  check_knn(&c, 2.0f, 3, true); /* k = 256 overflows the gathering: the rings */
}

static void knn_matches_brute_force_widely_spread(void) {
  cloud c = make_spread(1500);
  check_knn(&c, 2.0f, 3, false);
}

static void knn_two_sheep_a_million_metres_apart(void) {
  cloud c = {2, malloc(2 * sizeof(herd_vec2))};
  c.pos[0] = herd_v2(0.0f, 0.0f);
  c.pos[1] = herd_v2(1.0e6f, 0.0f);
  herd_backend *b = backend_for(&c, 2.0f);
  herd_cpu_grid_view v = herd_cpu_build_grid(b);
  herd_neighbour got[HERD_MAX_NEIGHBOURS] = {{0, 0}};
  for (uint32_t i = 0; i < 2; ++i) {
    CHECK(herd_grid_knn(&v.grid, pos2(&v), v.cell_end, i, got, 1) == 1);
    CHECK(got[0].j == 1 - i);
    CHECK(got[0].d2 == 1.0e12f);
  }
  herd_cpu_backend.destroy(b);
  free(c.pos);
}

static void knn_with_fewer_sheep_than_k(void) {
  cloud c = make_uniform(20, 10.0f);
  check_knn(&c, 2.0f, 1, true);
}

/* Cloud c sorted on grid g as the backends sort (a stable counting sort by bucket, mixed
 * buckets flagged), independently of them: for grids whose box the test chooses. */
static herd_cpu_grid_view sort_on(const cloud *c, herd_grid g) {
  uint32_t buckets = g.table_mask + 1u, *bucket = malloc(c->n * sizeof *bucket);
  uint32_t *cell_end = calloc(buckets, sizeof *cell_end), *agent = malloc(c->n * sizeof *agent);
  herd_vec2 *pos = malloc(c->n * sizeof *pos);
  g.count = c->n;
  for (uint32_t i = 0; i < c->n; ++i) ++cell_end[bucket[i] = herd_bucket_of(&g, c->pos[i])];
  for (uint32_t b = 0, start = 0; b < buckets; ++b) {
    uint32_t here = cell_end[b];
    cell_end[b] = start;
    start += here;
  }
  for (uint32_t i = 0; i < c->n; ++i) {
    uint32_t to = cell_end[bucket[i]]++;
    pos[to] = c->pos[i], agent[to] = i;
  }
  for (uint32_t i = 1; i < c->n; ++i) {
    uint32_t b = herd_bucket_of(&g, pos[i]);
    herd_i32 cx = herd_cell_coord(pos[i - 1].x, g.inv_cell_m), cy = herd_cell_coord(pos[i - 1].y, g.inv_cell_m);
    if (b == herd_bucket_of(&g, pos[i - 1]) && !herd_in_cell(&g, pos[i], cx, cy)) cell_end[b] |= HERD_BUCKET_MIXED;
  }
  free(bucket);
  return (herd_cpu_grid_view){g, (const float *)pos, NULL, agent, cell_end};
}

static void view_free(herd_cpu_grid_view *v) {
  free((void *)v->pos), free((void *)v->agent), free((void *)v->cell_end);
}

/* A uniform 150 m square with `outliers` sheep hundreds of metres out of it. */
static cloud make_with_outliers(uint32_t n, uint32_t outliers) {
  cloud c = make_uniform(n, 150.0f);
  for (uint32_t i = 0; i < outliers; ++i) {
    float a = 6.2831853f * uniform(i, 9, 0), r = 200.0f + 800.0f * uniform(i, 9, 1);
    c.pos[i * (n / outliers)] = herd_v2(75.0f + r * cosf(a), 75.0f + r * sinf(a));
  }
  return c;
}

/* The model's grid of a backend for c, in hash mode. */
static herd_grid hash_grid_for(const cloud *c) {
  herd_backend *b = backend_for(c, 2.0f);
  herd_grid g = herd_cpu_build_grid(b).grid;
  herd_cpu_backend.destroy(b);
  g.dense = 0u;
  return g;
}

/* The box is dense where it fits the table (2N buckets rounded up), hash where not; along a
 * wrapping axis it is the whole period. */
static void dense_box_or_hash(void) {
  cloud c = make_uniform(3000, 150.0f);
  herd_grid g = hash_grid_for(&c);
  CHECK(g.table_mask + 1u >= 2u * c.n);
  CHECK(herd_grid_dense_box(&g, (const float[3]){0, 0, 0}, (const float[3]){150, 150, 0}));
  /* Two cells of margin: cells -2 .. floor(150 / s) + 2 on each axis. */
  int32_t last = (int32_t)floorf(150.0f / g.cell_m) + 2, cells = last + 3;
  CHECK(g.dense == 1u && g.dense_cells[0] == cells && g.dense_cells[1] == cells && g.dense_lo[0] == -2);
  /* Every bucket is the row-major place of its cell, clamped outside the box. */
  float s = g.cell_m;
  CHECK(herd_bucket_of(&g, herd_v2(0.5f * s, 1.5f * s)) == 3u * (uint32_t)cells + 2u);
  CHECK(herd_bucket_of(&g, herd_v2(-1000.0f, 149.0f)) == (uint32_t)(floorf(149.0f / s) + 2) * (uint32_t)cells);
  CHECK(herd_bucket_of(&g, herd_v2(1e30f, -1e30f)) == (uint32_t)cells - 1u);
  CHECK(!herd_grid_dense_box(&g, (const float[3]){0, 0, 0}, (const float[3]){1000, 1000, 0}) && g.dense == 0u);
  float nan = nanf("");
  CHECK(!herd_grid_dense_box(&g, (const float[3]){nan, 0, 0}, (const float[3]){150, 150, 0}) && g.dense == 0u);
  CHECK(!herd_grid_dense_box(&g, (const float[3]){INFINITY, INFINITY, 0}, (const float[3]){-INFINITY, -INFINITY, 0}));
  g.wrap = 1u, g.wrap_cells[0] = 40; /* x wraps: the box spans the period whatever the extent */
  CHECK(herd_grid_dense_box(&g, (const float[3]){10, 0, 0}, (const float[3]){20, 150, 0}));
  CHECK(g.dense_lo[0] == 0 && g.dense_cells[0] == 40 && g.dense_cells[1] == cells);
  free(c.pos);
}

/* A box that leaves sheep outside it (as after they moved since the box was taken): they
 * share its edge buckets, which are then mixed, and every query stays exact. */
static void knn_dense_outliers_are_clamped(void) {
  cloud c = make_with_outliers(3000, 40);
  herd_grid g = hash_grid_for(&c);
  CHECK(herd_grid_dense_box(&g, (const float[3]){0, 0, 0}, (const float[3]){150, 150, 0}));
  herd_cpu_grid_view v = sort_on(&c, g);
  uint32_t mixed = 0;
  for (uint32_t b = 0; b <= g.table_mask; ++b) mixed += (v.cell_end[b] & HERD_BUCKET_MIXED) != 0u;
  CHECK_MSG(mixed > 0, "no edge bucket holds an outlier");
  int bad = knn_mismatches(&v, c.n, 7);
  for (uint32_t i = 0; i < c.n; ++i) /* every outlier too */
    if (fabsf(pos2(&v)[i].x - 75.0f) > 100.0f || fabsf(pos2(&v)[i].y - 75.0f) > 100.0f) {
      herd_neighbour got[HERD_MAX_NEIGHBOURS], want[HERD_MAX_NEIGHBOURS], *all = malloc(c.n * sizeof *all);
      uint32_t ng = herd_grid_knn(&v.grid, pos2(&v), v.cell_end, i, got, 50), nw = brute_knn(&v, i, 50, want, all);
      qsort(got, ng, sizeof *got, by_distance_then_index);
      bad += ng != nw || memcmp(got, want, nw * sizeof *got) != 0;
      free(all);
    }
  CHECK_MSG(bad == 0, "%d queries differ from brute force", bad);
  view_free(&v);
  free(c.pos);
}

/* The same flock in both modes: the same neighbours (by id), for every sheep. */
static void knn_dense_and_hash_same_sets(void) {
  cloud c = make_with_outliers(2000, 20);
  herd_grid g = hash_grid_for(&c);
  herd_cpu_grid_view h = sort_on(&c, g);
  CHECK(herd_grid_dense_box(&g, (const float[3]){-10, -10, 0}, (const float[3]){160, 160, 0}));
  herd_cpu_grid_view d = sort_on(&c, g);
  int differ = 0;
  for (uint32_t k = 1; k <= HERD_MAX_NEIGHBOURS; k *= 4) {
    for (uint32_t i = 0; i < c.n; ++i) {
      uint32_t id = h.agent[i], at = 0;
      while (d.agent[at] != id) ++at;
      herd_neighbour a[HERD_MAX_NEIGHBOURS], b[HERD_MAX_NEIGHBOURS];
      uint32_t na = herd_grid_knn(&h.grid, pos2(&h), h.cell_end, i, a, k);
      uint32_t nb = herd_grid_knn(&d.grid, pos2(&d), d.cell_end, at, b, k);
      uint32_t ids_a[HERD_MAX_NEIGHBOURS], ids_b[HERD_MAX_NEIGHBOURS];
      for (uint32_t m = 0; m < na; ++m) ids_a[m] = h.agent[a[m].j];
      for (uint32_t m = 0; m < nb; ++m) ids_b[m] = d.agent[b[m].j];
      qsort(ids_a, na, sizeof *ids_a, by_u32);
      qsort(ids_b, nb, sizeof *ids_b, by_u32);
      differ += na != nb || memcmp(ids_a, ids_b, na * sizeof *ids_a) != 0;
    }
  }
  CHECK_MSG(differ == 0, "%d neighbour sets differ between the modes", differ);
  view_free(&h);
  view_free(&d);
  free(c.pos);
}

/* herd_grid_repulsion_sum against a plain loop over every agent: the same neighbours, and the
 * same sum up to float rounding (the grid adds in its own order). Returns the mismatches. */
static int repulsion_mismatches(const herd_cpu_grid_view *v, uint32_t n, uint32_t stride, float radius) {
  int bad = 0;
  for (uint32_t i = 0; i < n; i += stride) {
    uint32_t count;
    herd_vec2 got = herd_grid_repulsion_sum(&v->grid, pos2(v), v->cell_end, NULL, i, radius, &count);
    double wx = 0, wy = 0;
    uint32_t want = 0;
    for (uint32_t j = 0; j < n; ++j) {
      double dx = (double)pos2(v)[i].x - pos2(v)[j].x, dy = (double)pos2(v)[i].y - pos2(v)[j].y, d2 = dx * dx + dy * dy;
      if (j == i || d2 == 0 || d2 >= (double)radius * radius) continue;
      wx += dx / sqrt(d2), wy += dy / sqrt(d2), ++want;
    }
    double tol = 1e-4 * (1 + sqrt((double)want));
    if ((count != want || fabs(got.x - wx) > tol * (1 + fabs(wx)) || fabs(got.y - wy) > tol * (1 + fabs(wy))) &&
        bad++ < 5)
      CHECK_MSG(false, "sheep %u: %u neighbours (%g, %g), brute force %u (%g, %g)", i, count, got.x, got.y, want, wx,
                wy);
  }
  return bad;
}

static void radius_query_matches_brute_force(void) {
  cloud c = make_clustered(4000);
  const float radius = 2.0f;
  herd_backend *b = backend_for(&c, radius);
  herd_cpu_grid_view v = herd_cpu_build_grid(b);
  CHECK(repulsion_mismatches(&v, c.n, 1, radius) == 0);
  herd_cpu_backend.destroy(b);
  free(c.pos);
}

/* 20000 sheep on 20 m x 20 m (50 to a square metre, 800 to the model's 4 m cell) get cells of
 * about 8 sheep in the dense box, and the k-nearest and repulsion queries stay exact on them,
 * also for outliers clamped into the box's edge (a few sheep moved 30-130 m away). */
static void a_crowded_flock_gets_smaller_cells(void) {
  cloud c = make_uniform(20000, 20.0f);
  for (uint32_t i = 0; i < 20; ++i) c.pos[i * 997] = herd_v2(-30.0f - 5.0f * (float)i, 10.0f + 3.0f * (float)i);
  herd_backend *b = backend_for(&c, 2.0f);
  herd_cpu_grid_view v = herd_cpu_build_grid(b);
  CHECK_MSG(v.grid.dense == 1u && v.grid.cell_m < v.grid.base_cell_m, "cell %g m, model's %g m, dense %u",
            v.grid.cell_m, v.grid.base_cell_m, v.grid.dense);
  /* The box was taken at upload, outliers included (a 150 m box); over the core alone: */
  herd_grid g = v.grid;
  CHECK(herd_grid_dense_box(&g, (const float[3]){0, 0, 0}, (const float[3]){20, 20, 0}) && g.dense == 1u);
  double per_cell = c.n * (double)g.cell_m * g.cell_m / 400.0; /* over the 20 m x 20 m it covers */
  CHECK_MSG(g.cell_m < 0.25f * g.base_cell_m && per_cell <= 8.5 && per_cell > 6.0, "cell %g m: %g sheep to a cell",
            g.cell_m, per_cell);
  herd_cpu_grid_view core = sort_on(&c, g);
  uint32_t mixed = 0;
  for (uint32_t k = 0; k <= g.table_mask; ++k) mixed += (core.cell_end[k] & HERD_BUCKET_MIXED) != 0u;
  CHECK_MSG(mixed > 0, "no outlier clamped into the box's edge");
  CHECK(knn_mismatches(&v, c.n, 97) == 0 && knn_mismatches(&core, c.n, 97) == 0);
  CHECK(repulsion_mismatches(&v, c.n, 13, 2.0f) == 0 && repulsion_mismatches(&core, c.n, 13, 2.0f) == 0);
  view_free(&core);
  herd_cpu_backend.destroy(b);
  free(c.pos);
}

/* ---- The radius query ----------------------------------------------------------------------- */

/* A cloud of n points in the world box of `size` (3 numbers; size[2] 0 in 2D): uniform,
 * with a clump, with duplicates, and (open worlds) some far outside the box. */
static float *make_points(uint32_t n, uint32_t dims, const float size[3], bool outside) {
  float *p = calloc((size_t)n * 4, sizeof *p);
  uint32_t stride = dims == 3 ? 4 : 2;
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t k = 0; k < dims; ++k) {
      float u = uniform(i, 20 + k, (int)k);
      if (i % 5 == 0) u = 0.4f + 0.02f * u;                /* a dense clump */
      if (i % 11 == 0) u = 0.7f;                           /* a pile on one spot */
      if (i % 13 == 0) u = k == 0 ? 0.999999f : 0.000001f; /* on the edges of the box */
      p[i * stride + k] = u * size[k];
      if (outside && i % 17 == 0) p[i * stride + k] += 3.0f * size[k] * (uniform(i, 40, (int)k) - 0.5f);
    }
  }
  return p;
}

/* A grid over the points as the CPU backend builds it for a boids scenario: cells as large
 * as the visual range `cell_m`, the world from `sets`. */
static herd_backend *points_backend(const char *const *sets, int set_count, const float *points, uint32_t n) {
  herd_scenario sc = scenario_with(sets, set_count);
  herd_backend_desc desc = backend_desc_for(&sc, n, 2);
  herd_backend *b;
  herd_error err;
  if (herd_cpu_backend.create(&desc, &b, &err) != HERD_OK) {
    fprintf(stderr, "%s\n", err.message);
    exit(1);
  }
  float *vel = calloc((size_t)n * 4, sizeof *vel);
  for (uint32_t i = 0; i < n; ++i) vel[i * (sc.world.dims == 3 ? 4 : 2)] = 1.0f; /* facing +x */
  herd_cpu_backend.upload(b, points, vel, &err);
  free(vel);
  return b;
}

/* Lanes (kernels/lanes.h) for the run of sorted agents from `first`: each lane takes exactly
 * what its agent's own query yields (herd_radius_next), in the same order, with the same
 * offsets and squares, bit for bit. */
static int check_lanes(const herd_cpu_grid_view *v, float r, uint32_t first) {
  const herd_grid *g = &v->grid;
  uint32_t n = g->count;
  herd_lanes_query lq;
  uint32_t lanes = herd_lanes_begin(&lq, g, v->pos, first, n, r), found[HERD_LANES] = {0}, seen[HERD_LANES] = {0};
  uint32_t *js[HERD_LANES];
  herd_vec3 *ds[HERD_LANES];
  float *d2s[HERD_LANES];
  int bad = lanes >= 1u && lanes <= HERD_LANES ? 0 : 1;
  for (uint32_t l = 0; l < lanes; ++l) {
    js[l] = malloc(n * sizeof *js[l]), ds[l] = malloc(n * sizeof *ds[l]), d2s[l] = malloc(n * sizeof *d2s[l]);
    herd_radius_query q;
    herd_radius_begin(&q, g, herd_load_vec(v->pos, first + l, g->dims), r, first + l);
    uint32_t j;
    herd_vec3 d;
    float d2;
    while (herd_radius_next(&q, g, v->pos, v->cell_end, &j, &d, &d2) && found[l] < n)
      js[l][found[l]] = j, ds[l][found[l]] = d, d2s[l][found[l]++] = d2;
  }
  HERD_LANES_FOR_EACH(lq, g, v->pos, v->cell_end, g->dims, k, dx, dy, dz, d2, in, {
    for (uint32_t l = 0; l < lanes; ++l) {
      if (!in[l]) continue;
      uint32_t at = seen[l]++;
      bool same = at < found[l] && js[l][at] == k && dx[l] == ds[l][at].x && dy[l] == ds[l][at].y &&
                  dz[l] == ds[l][at].z && d2[l] == d2s[l][at];
      if (!same && bad++ < 5) CHECK_MSG(false, "lanes from %u, lane %u: candidate #%u differs", first, l, at);
    }
  });
  for (uint32_t l = 0; l < lanes; ++l) {
    if (seen[l] != found[l] && bad++ < 5)
      CHECK_MSG(false, "lanes from %u, lane %u: %u yielded, its own query %u", first, l, seen[l], found[l]);
    free(js[l]), free(ds[l]), free(d2s[l]);
  }
  return bad;
}

/* For `queries` agents, the set the radius query yields (sorted index and squared offset)
 * against every agent tested one by one; and herd_radius_gather (what the models use) yields
 * the very same agents and offsets in the same order, batch after batch. */
static int check_radius(const herd_cpu_grid_view *v, float r, float cos_half_fov, uint32_t queries) {
  const herd_grid *g = &v->grid;
  uint32_t n = g->count, *hits = calloc(n, sizeof *hits), *order = malloc(n * sizeof *order);
  int bad = 0;
  for (uint32_t q = 0; q < queries; ++q) {
    uint32_t i = (uint32_t)(((uint64_t)q * 7919u) % n);
    herd_vec3 p = herd_load_vec(v->pos, i, g->dims), facing = herd_v3(1, 0, 0);
    herd_radius_query it;
    herd_radius_begin(&it, g, p, r, i);
    if (cos_half_fov > -1.0f) herd_radius_cone(&it, facing, cos_half_fov);
    uint32_t j, found = 0;
    herd_vec3 d;
    float d2;
    memset(hits, 0, n * sizeof *hits);
    while (herd_radius_next(&it, g, v->pos, v->cell_end, &j, &d, &d2)) {
      if (found < n) order[found] = j;
      ++hits[j], ++found;
      herd_vec3 want = herd_world_delta(g, p, herd_load_vec(v->pos, j, g->dims));
      if (d.x != want.x || d.y != want.y || d.z != want.z) ++bad;
    }
    uint32_t expected = 0;
    for (uint32_t k = 0; k < n; ++k) {
      herd_vec3 dk = herd_world_delta(g, p, herd_load_vec(v->pos, k, g->dims));
      float dk2 = herd_v3_len2(dk);
      bool in = k != i && dk2 <= r * r;
      if (in && cos_half_fov > -1.0f) in = herd_v3_dot(facing, dk) >= cos_half_fov * sqrtf(dk2);
      expected += in;
      if ((in ? 1u : 0u) != hits[k] && bad++ < 5)
        CHECK_MSG(false, "agent %u (r %g): agent %u found %u times, want %d (d2 %g)", i, (double)r, k, hits[k], in,
                  (double)dk2);
    }
    if (found != expected) ++bad;
    herd_radius_begin(&it, g, p, r, i);
    if (cos_half_fov > -1.0f) herd_radius_cone(&it, facing, cos_half_fov);
    herd_radius_batch batch;
    uint32_t gathered = 0;
    for (uint32_t m = herd_radius_gather(&it, g, v->pos, v->cell_end, &batch); m > 0;
         m = herd_radius_gather(&it, g, v->pos, v->cell_end, &batch)) {
      for (uint32_t k = 0; k < m; ++k, ++gathered) {
        herd_vec3 want = herd_world_delta(g, p, herd_load_vec(v->pos, batch.j[k], g->dims));
        bool same = gathered < found && batch.j[k] == order[gathered] && batch.d[k].x == want.x &&
                    batch.d[k].y == want.y && batch.d[k].z == want.z && batch.d2[k] == herd_v3_len2(want);
        if (!same && bad++ < 5) CHECK_MSG(false, "agent %u (r %g): gathered #%u differs", i, (double)r, gathered);
      }
    }
    if (gathered != found) ++bad;
    /* Once exhausted, the query stays so. */
    if (herd_radius_gather(&it, g, v->pos, v->cell_end, &batch) != 0) ++bad;
    /* And the GPU's loop (HERD_RADIUS_FOR_EACH_DIRECT) and the CPU's (_GATHERED) yield them
     * too, in the same order. */
    for (int kind = 0; kind < 2; ++kind) {
      uint32_t seen = 0;
      herd_radius_begin(&it, g, p, r, i);
      if (cos_half_fov > -1.0f) herd_radius_cone(&it, facing, cos_half_fov);
#define CHECK_RADIUS_SEEN                                                                                         \
  {                                                                                                               \
    herd_vec3 want = herd_world_delta(g, p, herd_load_vec(v->pos, k, g->dims));                                   \
    bool same = seen < found && k == order[seen] && dk.x == want.x && dk.y == want.y && dk.z == want.z &&         \
                dk2 == herd_v3_len2(want);                                                                        \
    if (!same && bad++ < 5) CHECK_MSG(false, "agent %u (r %g): loop %d's #%u differs", i, (double)r, kind, seen); \
    ++seen;                                                                                                       \
  }
      if (kind == 0)
        HERD_RADIUS_FOR_EACH_DIRECT(it, g, v->pos, v->cell_end, g->dims, k, dk, dk2, CHECK_RADIUS_SEEN);
      else
        HERD_RADIUS_FOR_EACH_GATHERED(it, g, v->pos, v->cell_end, g->dims, k, dk, dk2, CHECK_RADIUS_SEEN);
#undef CHECK_RADIUS_SEEN
      if (seen != found) ++bad;
    }
    if (g->dense && cos_half_fov <= -1.0f) bad += check_lanes(v, r, i); /* where the CPU's models use lanes */
  }
  free(hits), free(order);
  return bad;
}

/* Radii below, at and above the cell (the visual range, 10), each against brute force. */
static void check_radius_world(const char *const *sets, int set_count, uint32_t dims, const float size[3],
                               bool outside) {
  uint32_t n = 3000;
  float *points = make_points(n, dims, size, outside);
  herd_backend *b = points_backend(sets, set_count, points, n);
  herd_cpu_grid_view v = herd_cpu_build_grid(b);
  if (!outside) CHECK(v.grid.dense == 1u); /* the box of the flock, whole periods along wrapping axes */
  static const float radii[] = {3.0f, 10.0f, 27.0f};
  for (size_t k = 0; k < sizeof radii / sizeof radii[0]; ++k) {
    int bad = check_radius(&v, radii[k], -2.0f, 400);
    CHECK_MSG(bad == 0, "r = %g: %d mismatches", (double)radii[k], bad);
  }
  herd_cpu_backend.destroy(b);
  free(points);
}

static void radius_query_2d_open(void) {
  const char *sets[] = {"model=boids", "boids.visual_range_m=10", "world.size_m=[120,90]"};
  check_radius_world(sets, 3, 2, (const float[3]){120, 90, 0}, true);
}

static void radius_query_2d_wrap(void) {
  /* 25.5 is not a whole number of cells: the period is cut into 2 cells of 12.75. */
  const char *sets[] = {"model=boids", "boids.visual_range_m=10", "world.size_m=[101,25.5]", "world.wrap=[true,true]"};
  check_radius_world(sets, 4, 2, (const float[3]){101, 25.5f, 0}, false);
}

static void radius_query_3d_open(void) {
  const char *sets[] = {"model=boids", "boids.visual_range_m=10", "world.size_m=[60,50,40]"};
  check_radius_world(sets, 3, 3, (const float[3]){60, 50, 40}, true);
}

static void radius_query_3d_wrap(void) {
  const char *sets[] = {"model=boids", "boids.visual_range_m=10", "world.size_m=[60,50,40]",
                        "world.wrap=[true,false,true]"};
  check_radius_world(sets, 4, 3, (const float[3]){60, 50, 40}, false);
}

/* Agents at the last float below a wrapping period, which herd_cell_coord files in the cell past
 * the last (folded: cell 0, though they lie a period away from its other agents), and on the
 * cells' borders: a CPU query leaves out the wrap only for runs whose every agent it cannot
 * reach (herd_run_wrap), and must still give these their offsets through it. */
static void radius_query_at_the_period_end(void) {
  const char *sets[] = {"model=boids", "boids.visual_range_m=10", "world.size_m=[99,99]", "world.wrap=[true,true]"};
  const float size[3] = {99, 99, 0}, last = nextafterf(99.0f, 0.0f);
  uint32_t n = 600; /* under 8 to a cell: the grid keeps cells of 11 m, 9 to the period */
  float *points = make_points(n, 2, size, false);
  for (uint32_t i = 0; i < n; i += 3) points[2 * i + (i / 3) % 2] = last;
  for (uint32_t i = 1; i < n; i += 7) points[2 * i] = 11.0f * (float)(i % 10); /* on the cells' borders */
  herd_backend *b = points_backend(sets, 4, points, n);
  herd_cpu_grid_view v = herd_cpu_build_grid(b);
  CHECK(v.grid.dense == 1u && v.grid.wrap_cells[0] == 9);
  CHECK_MSG(herd_axis_cell_raw(&v.grid, 0, last) == 9, "the case is not made: %d",
            herd_axis_cell_raw(&v.grid, 0, last));
  static const float radii[] = {3.0f, 10.0f, 27.0f, 60.0f};
  for (size_t k = 0; k < sizeof radii / sizeof radii[0]; ++k) {
    int bad = check_radius(&v, radii[k], -2.0f, n);
    CHECK_MSG(bad == 0, "r = %g: %d mismatches", (double)radii[k], bad);
  }
  herd_cpu_backend.destroy(b);
  free(points);
}

/* A view cone of 270 degrees (a 90 degree blind angle behind), and a narrow one of 60. */
static void radius_query_view_cone(void) {
  const char *sets[] = {"model=boids", "boids.visual_range_m=10", "world.size_m=[80,80]", "world.wrap=[true,true]"};
  uint32_t n = 3000;
  float *points = make_points(n, 2, (const float[3]){80, 80, 0}, false);
  herd_backend *b = points_backend(sets, 4, points, n);
  herd_cpu_grid_view v = herd_cpu_build_grid(b);
  CHECK(check_radius(&v, 10.0f, cosf(0.5f * 270.0f * 0.01745329f), 400) == 0);
  CHECK(check_radius(&v, 10.0f, cosf(0.5f * 60.0f * 0.01745329f), 400) == 0);
  herd_cpu_backend.destroy(b);
  free(points);
}

/* A dense grid whose box covers only the middle of the cloud, as when the flock has spread
 * since the box was taken: the cells beyond it share the buckets of its edge, which the
 * query's rows visit once each. Sorted here by hand (the backend takes its box from the
 * flock itself), with the mixed flags the backend would set. */
static void radius_query_dense_box_with_outliers(void) {
  for (uint32_t dims = 2; dims <= 3; ++dims) {
    const char *sets[] = {"model=boids", "boids.visual_range_m=10",
                          dims == 3 ? "world.size_m=[120,90,40]" : "world.size_m=[120,90]"};
    uint32_t n = 3000, stride = dims == 3 ? 4 : 2;
    float *points = make_points(n, dims, (const float[3]){120, 90, dims == 3 ? 40.0f : 0.0f}, true);
    herd_backend *b = points_backend(sets, 3, points, n);
    herd_cpu_grid_view v = herd_cpu_build_grid(b);
    herd_grid g = v.grid;
    CHECK(g.dims == dims);
    /* The box: cells 3..8 by 2..6 (by 1..2 in 3D) of 10 m, well inside the cloud. */
    g.dense = 1u;
    g.dense_lo[0] = 3, g.dense_lo[1] = 2, g.dense_lo[2] = dims == 3 ? 1 : 0;
    g.dense_cells[0] = 6, g.dense_cells[1] = 5, g.dense_cells[2] = dims == 3 ? 2 : 1;
    uint32_t buckets = g.table_mask + 1u, *bucket = malloc(n * sizeof *bucket);
    uint32_t *cell_end = calloc(buckets, sizeof *cell_end);
    float *sorted = malloc((size_t)n * stride * sizeof *sorted);
    for (uint32_t i = 0; i < n; ++i) ++cell_end[bucket[i] = herd_bucket_at(&g, herd_load_vec(points, i, dims))];
    for (uint32_t k = 1; k < buckets; ++k) cell_end[k] += cell_end[k - 1];
    for (uint32_t i = n; i-- > 0;) { /* backwards: stable */
      uint32_t to = --cell_end[bucket[i]];
      for (uint32_t k = 0; k < stride; ++k) sorted[to * stride + k] = points[i * stride + k];
    }
    for (uint32_t k = 0; k + 1 < buckets; ++k) cell_end[k] = cell_end[k + 1]; /* starts to ends */
    cell_end[buckets - 1] = n;
    uint32_t outliers = 0;
    for (uint32_t i = 1; i < n; ++i) {
      herd_cell here = herd_cell_of(&g, herd_load_vec(sorted, i, dims));
      herd_cell before = herd_cell_of(&g, herd_load_vec(sorted, i - 1, dims));
      uint32_t bk = herd_bucket_of_cell(&g, here);
      if (bk == herd_bucket_of_cell(&g, before) && !herd_same_cell(here, before)) {
        cell_end[bk] |= HERD_BUCKET_MIXED;
        ++outliers;
      }
    }
    CHECK_MSG(outliers > 100, "%u agents share a bucket with another cell: the box clamps too few", outliers);
    g.count = n;
    herd_cpu_grid_view dense = {g, sorted, v.vel, v.agent, cell_end};
    static const float radii[] = {3.0f, 10.0f, 27.0f};
    for (size_t k = 0; k < sizeof radii / sizeof radii[0]; ++k) {
      int bad = check_radius(&dense, radii[k], -2.0f, 600);
      CHECK_MSG(bad == 0, "%uD, r = %g: %d mismatches", dims, (double)radii[k], bad);
    }
    free(bucket), free(cell_end), free(sorted), free(points);
    herd_cpu_backend.destroy(b);
  }
}

/* One agent's update, one model or another. */
typedef herd_agent_next (*update_fn)(const void *m, const herd_flock_view *v, herd_u32 self, herd_neighbour *scratch);
static herd_agent_next boids_one(const void *m, const herd_flock_view *v, herd_u32 self, herd_neighbour *scratch) {
  return herd_boids_update(m, v, self, scratch);
}
static herd_agent_next netlogo_one(const void *m, const herd_flock_view *v, herd_u32 self, herd_neighbour *scratch) {
  return herd_netlogo_update(m, v, self, scratch);
}
static herd_agent_next couzin_one(const void *m, const herd_flock_view *v, herd_u32 self, herd_neighbour *scratch) {
  return herd_couzin_update(m, v, self, scratch);
}
static herd_agent_next fish_one(const void *m, const herd_flock_view *v, herd_u32 self, herd_neighbour *scratch) {
  return herd_fish_update(m, v, self, scratch);
}

/* Agents stepped as the CPU backend steps them, in lanes (kernels/lanes.h; 4 wide, and 8 and
 * 16 wide where this CPU has AVX2 and AVX-512), and one at a time (as a GPU does) leave the same bits: boids and
 * Couzin's fish in 2D and 3D, open and wrapping, with and without a blind cone, NetLogo's birds
 * and the fish school, with agents at the period's end and in dense clumps inside the
 * protected range (the minimum separation, the zone of repulsion). */
static void models_in_lanes_match_one_at_a_time(void) {
  static const char *const worlds[][4] = {
      {"model=boids", "boids.visual_range_m=10", "world.size_m=[99,99]", "world.wrap=[true,true]"},
      {"model=boids", "boids.visual_range_m=10", "world.size_m=[120,90]", "world.wrap=[false,false]"},
      {"model=boids", "boids.visual_range_m=10", "world.size_m=[60,50,40]", "world.wrap=[true,false,true]"},
      {"model=boids", "boids.visual_range_m=10", "world.size_m=[60,50,40]", "world.wrap=[false,false,false]"},
      {"model=netlogo", "netlogo.vision_patches=10", "world.size_m=[99,99]", "world.wrap=[true,true]"},
      {"model=couzin", "couzin.attraction_band_m=6", "world.size_m=[60,50,40]", "world.wrap=[true,false,true]"},
      {"model=couzin", "couzin.field_of_perception_deg=360", "world.size_m=[99,99]", "world.wrap=[true,true]"},
      {"model=couzin", "couzin.orientation_band_m=0", "world.size_m=[120,90]", "world.wrap=[false,false]"},
      {"model=fish", "fish.count=3000", "world.size_m=[60,50,40]", "world.wrap=[true,true,true]"}};
  for (size_t w = 0; w < sizeof worlds / sizeof worlds[0]; ++w) {
    herd_scenario sc = scenario_with(worlds[w], 4);
    uint32_t index, n = 3000, dims = sc.world.dims, stride = dims == 3 ? 4 : 2;
    CHECK(herd_model_by_name(worlds[w][0] + 6, &index) != NULL);
    update_fn one = sc.model == HERD_MODEL_INDEX_netlogo  ? netlogo_one
                    : sc.model == HERD_MODEL_INDEX_couzin ? couzin_one
                    : sc.model == HERD_MODEL_INDEX_fish   ? fish_one
                                                          : boids_one;
    float *points = make_points(n, dims, sc.world.size_m, false);
    if (dims == 2)
      for (uint32_t i = 0; i < n; i += 3) points[2 * i + (i / 3) % 2] = nextafterf(sc.world.size_m[0], 0.0f);
    herd_backend *b = points_backend(worlds[w], 4, points, n);
    herd_cpu_grid_view v = herd_cpu_build_grid(b);
    CHECK(v.grid.dense == 1u);
    float *vel = (float *)v.vel; /* every direction and speed (unit vectors for NetLogo), so each sum differs */
    for (uint32_t i = 0; i < n; ++i) {
      float a = 6.2831853f * uniform(i, 60, 0), s = 4.0f * uniform(i, 61, 0);
      if (sc.model == HERD_MODEL_INDEX_netlogo || sc.model == HERD_MODEL_INDEX_couzin) s = 1.0f; /* unit vectors */
      float z = dims == 3 ? 2.0f * uniform(i, 62, 0) - 1.0f : 0.0f, across = sqrtf(1.0f - z * z);
      vel[i * stride] = s * across * cosf(a), vel[i * stride + 1] = s * across * sinf(a);
      if (dims == 3) vel[i * stride + 2] = s * z;
    }
    herd_step_info info = {.goal_radius_m = -1.0f};
    herd_flock_view fv = {
        .grid = &v.grid, .pos = v.pos, .vel = v.vel, .agent = v.agent, .cell_end = v.cell_end, .info = &info};
    size_t floats = (size_t)n * stride;
    /* One agent at a time, then each table of CPU loops this machine can run. */
    const herd_model_chunk_fn *tables[] = {NULL, herd_model_steps_baseline,
#ifdef HERD_MODEL_STEPS_AVX2
                                           __builtin_cpu_supports("avx2") ? herd_model_steps_avx2 : NULL,
                                           __builtin_cpu_supports("avx512f") ? herd_model_steps_avx512 : NULL
#endif
    };
    enum { TABLES = sizeof tables / sizeof tables[0] };
    float *out[TABLES][2];
    herd_u32 *words[TABLES];
    for (size_t k = 0; k < TABLES; ++k)
      out[k][0] = calloc(floats, sizeof(float)), out[k][1] = calloc(floats, sizeof(float)),
      words[k] = calloc(n, sizeof(herd_u32));
    herd_neighbour scratch[1];
    for (uint32_t i = 0; i < n; ++i)
      herd_finish_agent(&fv, i, one(sc.params.bytes, &fv, i, scratch), out[0][0], out[0][1], words[0]);
    for (size_t k = 1; k < TABLES; ++k) {
      if (!tables[k]) continue;
      tables[k][index](sc.params.bytes, &fv, 0, n, out[k][0], out[k][1], words[k]);
      CHECK_MSG(memcmp(out[0][0], out[k][0], floats * sizeof(float)) == 0, "%s, table %zu: positions differ",
                worlds[w][2], k);
      CHECK_MSG(memcmp(out[0][1], out[k][1], floats * sizeof(float)) == 0, "%s, table %zu: velocities differ",
                worlds[w][2], k);
      CHECK_MSG(memcmp(words[0], words[k], n * sizeof(herd_u32)) == 0, "%s, table %zu: agent words differ",
                worlds[w][2], k);
    }
    for (size_t k = 0; k < TABLES; ++k) free(out[k][0]), free(out[k][1]), free(words[k]);
    herd_cpu_backend.destroy(b);
    free(points);
  }
}

/* The offset through the wrap against double-precision arithmetic. */
static void world_delta_is_the_shortest_offset(void) {
  herd_grid g = {.dims = 3, .wrap = 5u, .size_m = {100, 100, 30}};
  int bad = 0;
  for (uint32_t i = 0; i < 20000; ++i) {
    herd_vec3 p = herd_v3(100 * uniform(i, 50, 0), 100 * uniform(i, 50, 1), 30 * uniform(i, 50, 2));
    herd_vec3 q = herd_v3(100 * uniform(i, 51, 0), 100 * uniform(i, 51, 1), 30 * uniform(i, 51, 2));
    herd_vec3 d = herd_world_delta(&g, p, q);
    double want[3] = {q.x - (double)p.x, q.y - (double)p.y, q.z - (double)p.z};
    want[0] -= 100.0 * round(want[0] / 100.0);
    want[2] -= 30.0 * round(want[2] / 30.0);
    bad += fabs(d.x - want[0]) > 1e-4 || fabs(d.y - want[1]) > 1e-4 || fabs(d.z - want[2]) > 1e-4;
    bad += fabsf(d.x) > 50.0f || fabsf(d.z) > 15.0f;
  }
  CHECK_MSG(bad == 0, "%d offsets wrong", bad);
  /* Wrapping a coordinate lands in [0, period), also from far out and from just below. */
  CHECK(herd_wrap_coord(-0.0f, 71.0f) == 0.0f && herd_wrap_coord(71.0f, 71.0f) == 0.0f);
  CHECK(herd_wrap_coord(-1e-7f, 71.0f) < 71.0f && herd_wrap_coord(-1e-7f, 71.0f) >= 0.0f);
  CHECK(fabsf(herd_wrap_coord(-284.5f, 71.0f) - 70.5f) < 1e-4f);
  CHECK(fabsf(herd_wrap_coord(1000.25f, 71.0f) - (1000.25f - 14 * 71.0f)) < 1e-3f);
}

static void memory_depends_on_count_not_area(void) {
  cloud near = make_uniform(1000, 10.0f), far = make_spread(1000);
  herd_backend *a = backend_for(&near, 2.0f), *b = backend_for(&far, 2.0f);
  CHECK(herd_cpu_backend.memory_bytes(a) == herd_cpu_backend.memory_bytes(b));
  /* At most 64 bytes per sheep, whatever the area. */
  CHECK(herd_cpu_backend.memory_bytes(b) <= 64u * 1000u);
  herd_cpu_backend.destroy(a);
  herd_cpu_backend.destroy(b);
  free(near.pos);
  free(far.pos);
}

int main(void) { TEST_MAIN(TESTS); }
