/* The flock's groups (kernels/groups.h) against brute force: an O(N^2) union-find over every
 * pair, the compact-area refinement and the per-group reductions computed directly, on random,
 * clustered, chain-shaped and wrapped 2D flocks and a 3D one; the order and truncation of the
 * tracked groups; both backends and both thread counts alike; and the groups through the
 * simulation (observe modes, map_groups, an interrupted step, batches). */
#include <math.h>
#include <stdlib.h>

#include "backend_util.h"
#include "rng.h"

#define TESTS(X)                               \
  X(random_flocks_match_brute_force)           \
  X(clustered_flock_matches_brute_force)       \
  X(a_chain_is_one_group)                      \
  X(a_group_across_the_wrap_is_one)            \
  X(small_tori_match_brute_force)              \
  X(the_compact_area_splits_off_stragglers)    \
  X(reductions_match_brute_force)              \
  X(groups_are_ordered_and_truncated)          \
  X(a_3d_flock_matches_brute_force)            \
  X(thread_counts_give_identical_groups)       \
  X(opencl_groups_equal_the_cpu_backend)       \
  X(the_simulation_observes_groups_when_asked) \
  X(removed_agents_are_in_no_group)            \
  X(an_interrupted_step_keeps_the_groups)      \
  X(a_cpu_batch_finds_each_worlds_groups)      \
  X(an_opencl_batch_refuses_groups)
TESTS(DECLARE_TEST)

/* ---- Flocks ------------------------------------------------------------------------------- */

typedef struct flock {
  uint32_t n, dims;
  float size[3];
  uint32_t wrap[3];
  float *pos, *vel; /* by id, device layout (2 or 4 floats per agent) */
  bool *removed;    /* by id: taken out of the flock by its model (in no group); NULL: none */
} flock;

static flock flock_new(uint32_t n, uint32_t dims, float size, bool wrap) {
  flock f = {n, dims, {size, size, dims == 3 ? size : 0}, {wrap, wrap, wrap && dims == 3}, NULL, NULL, NULL};
  f.pos = calloc((size_t)n * 4, sizeof *f.pos);
  f.vel = calloc((size_t)n * 4, sizeof *f.vel);
  return f;
}

static void flock_free(flock *f) { free(f->pos), free(f->vel), free(f->removed); }

static uint32_t stride(const flock *f) { return f->dims == 3 ? 4u : 2u; }
static float *at(const flock *f, float *v, uint32_t i) { return v + (size_t)i * stride(f); }

static float unit(uint32_t seed, uint32_t i, uint32_t k) {
  return herd_rng_unit_float(herd_rng_draw(seed, 0, i, 40).v[k]);
}

/* Agent i at p (dims numbers) with a random velocity, one in 50 standing still. */
static void place(flock *f, uint32_t i, const float *p, uint32_t seed) {
  for (uint32_t k = 0; k < f->dims; ++k) at(f, f->pos, i)[k] = p[k];
  for (uint32_t k = 0; k < f->dims; ++k) at(f, f->vel, i)[k] = i % 50 == 7 ? 0.0f : 2.0f * unit(seed, i, k) - 1.0f;
}

/* n agents uniformly in a box of side `side` at (x0, x0, ...). */
static flock uniform_flock(uint32_t n, uint32_t dims, float side, float x0, uint32_t seed) {
  flock f = flock_new(n, dims, 1000.0f, false);
  for (uint32_t i = 0; i < n; ++i) {
    float p[3];
    for (uint32_t k = 0; k < dims; ++k) p[k] = x0 + side * unit(seed, i, k);
    place(&f, i, p, seed + 1);
  }
  return f;
}

/* n agents in `clusters` round clusters of different sizes and spreads, ids interleaved. */
static flock clustered_flock(uint32_t n, uint32_t clusters, uint32_t seed) {
  flock f = flock_new(n, 2, 1000.0f, false);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t c = (i * 7u + i / 3u) % clusters;
    float cx = 100.0f + 150.0f * (float)(c % 5), cy = 100.0f + 150.0f * (float)(c / 5);
    float spread = 8.0f + 4.0f * (float)(c % 4), angle = 6.2831853f * unit(seed, i, 0);
    float r = spread * sqrtf(unit(seed, i, 1));
    place(&f, i, (float[]){cx + r * cosf(angle), cy + r * sinf(angle)}, seed + 1);
  }
  return f;
}

/* ---- Brute force ------------------------------------------------------------------------- */

static double offset(const flock *f, uint32_t k, double from, double to) {
  double d = to - from;
  if (f->wrap[k] && d > 0.5 * f->size[k]) d -= f->size[k];
  if (f->wrap[k] && d < -0.5 * f->size[k]) d += f->size[k];
  return d;
}

static double dist2(const flock *f, uint32_t a, uint32_t b) {
  double d2 = 0;
  for (uint32_t k = 0; k < f->dims; ++k) {
    double d = offset(f, k, at(f, f->pos, a)[k], at(f, f->pos, b)[k]);
    d2 += d * d;
  }
  return d2;
}

static uint32_t uf_find(uint32_t *parent, uint32_t x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

static void uf_join(uint32_t *parent, uint32_t a, uint32_t b) {
  a = uf_find(parent, a), b = uf_find(parent, b);
  if (a < b) parent[b] = a;
  if (b < a) parent[a] = b;
}

static bool gone(const flock *f, uint32_t i) { return f->removed && f->removed[i]; }

/* Each agent's component's smallest id, over links within r (and, given side, on one side);
 * HERD_GROUP_UNTRACKED for a removed agent. */
static void components(const flock *f, double r, const bool *side, uint32_t *label) {
  for (uint32_t i = 0; i < f->n; ++i) label[i] = i;
  for (uint32_t i = 0; i < f->n; ++i)
    for (uint32_t j = i + 1; j < f->n; ++j)
      if (!gone(f, i) && !gone(f, j) && (!side || side[i] == side[j]) && dist2(f, i, j) <= r * r) uf_join(label, i, j);
  for (uint32_t i = 0; i < f->n; ++i) label[i] = gone(f, i) ? HERD_GROUP_UNTRACKED : uf_find(label, i);
}

/* The centre of the agents labelled `root`, measured from the root through the wrap. */
static void centre_of(const flock *f, const uint32_t *label, uint32_t root, double *c, uint32_t *count) {
  double sum[3] = {0, 0, 0};
  uint32_t n = 0;
  for (uint32_t i = 0; i < f->n; ++i) {
    if (label[i] != root) continue;
    for (uint32_t k = 0; k < f->dims; ++k) sum[k] += offset(f, k, at(f, f->pos, root)[k], at(f, f->pos, i)[k]);
    ++n;
  }
  for (uint32_t k = 0; k < 3; ++k) c[k] = k < f->dims ? at(f, f->pos, root)[k] + sum[k] / n : 0.0;
  *count = n;
}

static double dist2_to(const flock *f, uint32_t i, const double *c) {
  double d2 = 0;
  for (uint32_t k = 0; k < f->dims; ++k) {
    double d = offset(f, k, c[k], at(f, f->pos, i)[k]);
    d2 += d * d;
  }
  return d2;
}

/* The final groups: raw components, then members outside R_f sqrt(2 N) of their raw group's
 * centre split from those inside. */
static void brute_groups(const flock *f, const herd_groups_params *p, uint32_t *label) {
  components(f, p->view_radius_m, NULL, label);
  if (p->member_radius_m <= 0.0f) return;
  bool *outside = calloc(f->n, sizeof *outside);
  for (uint32_t i = 0; i < f->n; ++i) {
    if (label[i] != i) continue;
    double c[3];
    uint32_t n;
    centre_of(f, label, i, c, &n);
    double rc2 = (double)p->member_radius_m * p->member_radius_m * 2.0 * n;
    for (uint32_t j = i; j < f->n; ++j)
      if (label[j] == i) outside[j] = dist2_to(f, j, c) > rc2;
  }
  components(f, p->view_radius_m, outside, label);
  free(outside);
}

typedef struct brute_group {
  uint32_t count, first_id;
} brute_group;

static int by_rank(const void *a, const void *b) {
  const brute_group *x = a, *y = b;
  if (x->count != y->count) return x->count > y->count ? -1 : 1;
  return x->first_id < y->first_id ? -1 : 1;
}

/* The groups in observation order; returns how many. */
static uint32_t ranked(const flock *f, const uint32_t *label, brute_group *out) {
  uint32_t found = 0;
  for (uint32_t i = 0; i < f->n; ++i) {
    if (label[i] != i) continue;
    out[found].first_id = i, out[found].count = 0;
    for (uint32_t j = i; j < f->n; ++j) out[found].count += label[j] == i;
    ++found;
  }
  qsort(out, found, sizeof *out, by_rank);
  return found;
}

/* ---- The backends ------------------------------------------------------------------------ */

typedef struct found {
  herd_observation obs;
  uint32_t *slot; /* by id */
} found;

/* The groups of flock f on backend `ops` with `threads` threads. */
static found groups_on(const herd_backend_ops *ops, const flock *f, const herd_groups_params *p, int threads) {
  herd_scenario sc = f->dims == 3 ? shipped("boids3d.json", NULL, 0) : scenario_with(NULL, 0);
  herd_backend_desc d = backend_desc_for(&sc, f->n, threads); /* the model only sizes the grid's cells */
  for (int k = 0; k < 3; ++k) d.world_size_m[k] = f->size[k], d.world_wrap[k] = f->wrap[k];
  found out = {.slot = malloc(f->n * sizeof *out.slot)};
  memset(&out.obs, 0, sizeof out.obs);
  herd_backend *b;
  herd_error err;
  if (ops->create(&d, &b, &err) != HERD_OK) {
    fprintf(stderr, "create: %s\n", err.message);
    exit(1);
  }
  CHECK(ops->upload(b, f->pos, f->vel, &err) == HERD_OK);
  CHECK_MSG(ops->groups(b, p, &out.obs, &err) == HERD_OK, "%s", err.message);
  const float *pos, *vel;
  const uint32_t *agent, *slot;
  CHECK(ops->map_state(b, &pos, &vel, &agent, &err) == HERD_OK);
  CHECK_MSG(ops->map_groups(b, &slot, &err) == HERD_OK, "%s", err.message);
  for (uint32_t i = 0; i < f->n; ++i) out.slot[herd_agent_id(agent[i])] = slot[i];
  ops->destroy(b);
  return out;
}

static found cpu_groups(const flock *f, const herd_groups_params *p) { return groups_on(&herd_cpu_backend, f, p, 2); }

static void found_free(found *g) { free(g->slot); }

/* Group counts, the tracked groups' sizes and names, and every agent's slot, as brute force
 * has them. */
static void check_groups(const flock *f, const herd_groups_params *p, const found *g) {
  uint32_t *label = malloc(f->n * sizeof *label);
  brute_group *want = malloc(f->n * sizeof *want);
  brute_groups(f, p, label);
  uint32_t groups = ranked(f, label, want), tracked = groups < p->max ? groups : p->max;
  CHECK_MSG(g->obs.group_count == groups, "%u groups found, %u by brute force", g->obs.group_count, groups);
  CHECK(g->obs.groups_tracked == tracked);
  for (uint32_t k = 0; k < tracked && k < g->obs.groups_tracked; ++k)
    CHECK_MSG(g->obs.group[k].count == want[k].count && g->obs.group[k].first_id == want[k].first_id,
              "group %u: %u agents from id %u; brute force %u from %u", k, g->obs.group[k].count,
              g->obs.group[k].first_id, want[k].count, want[k].first_id);
  uint32_t wrong = 0;
  for (uint32_t i = 0; i < f->n; ++i) {
    uint32_t expect = HERD_GROUP_UNTRACKED;
    for (uint32_t k = 0; k < tracked; ++k)
      if (want[k].first_id == label[i]) expect = k;
    wrong += g->slot[i] != expect;
  }
  CHECK_MSG(wrong == 0, "%u of %u agents in the wrong group", wrong, f->n);
  free(label);
  free(want);
}

static const herd_groups_params plain = {32, 10.0f, 0.0f};   /* no compact area */
static const herd_groups_params compact = {32, 10.0f, 2.0f}; /* the defaults */

/* ---- Definition -------------------------------------------------------------------------- */

static void random_flocks_match_brute_force(void) {
  /* Sparse (mostly alone), near the percolation threshold, and dense (nearly one group); with
   * the defaults, no compact area, a small view radius and one wider than the flock. */
  static const float sides[] = {2000.0f, 400.0f, 150.0f};
  static const herd_groups_params params[] = {
      {32, 10.0f, 2.0f}, {32, 10.0f, 0.0f}, {32, 3.0f, 0.5f}, {32, 2500.0f, 0.0f}};
  for (int k = 0; k < 3; ++k) {
    flock f = uniform_flock(2500, 2, sides[k], -300.0f, 11u + (uint32_t)k);
    for (int c = 0; c < 4; ++c) {
      found g = cpu_groups(&f, &params[c]);
      check_groups(&f, &params[c], &g);
      if (c == 3) CHECK(g.obs.group_count == 1);
      found_free(&g);
    }
    flock_free(&f);
  }
  /* Far from the origin (30000 cells out), where a float no longer files points in cells
   * exactly enough to take one link per cell: every link is tried. */
  flock far = uniform_flock(2500, 2, 400.0f, 2.0e5f, 14);
  found g = cpu_groups(&far, &params[0]);
  check_groups(&far, &params[0], &g);
  found_free(&g);
  flock_free(&far);
}

static void clustered_flock_matches_brute_force(void) {
  flock f = clustered_flock(3000, 12, 5);
  for (int c = 0; c < 2; ++c) {
    found g = cpu_groups(&f, c ? &compact : &plain);
    check_groups(&f, c ? &compact : &plain, &g);
    CHECK(g.obs.group_count >= 12);
    found_free(&g);
  }
  flock_free(&f);
}

/* Agents a little under the view radius apart along a line, in shuffled id order: one group
 * that label propagation would need thousands of rounds for. */
static void a_chain_is_one_group(void) {
  enum { N = 3000 };
  flock f = flock_new(N, 2, 1000.0f, false);
  for (uint32_t i = 0; i < N; ++i) {
    uint32_t place_at = (uint32_t)(((uint64_t)i * 1103u + 17u) % N); /* a permutation: 1103 is prime to 3000 */
    float x = 0.97f * plain.view_radius_m * (float)place_at;
    place(&f, i, (float[]){x - 1000.0f, 0.3f * (float)(place_at % 3)}, 3);
  }
  found g = cpu_groups(&f, &plain);
  CHECK(g.obs.group_count == 1 && g.obs.group[0].count == N && g.obs.group[0].first_id == 0);
  check_groups(&f, &plain, &g);
  found_free(&g);
  /* The compact area of 3000 agents (R_c = 2 sqrt(6000) = 155 m) holds the middle of a 29 km
   * chain: the ends are cut off, each a chain of its own. */
  g = cpu_groups(&f, &compact);
  CHECK(g.obs.group_count == 3);
  check_groups(&f, &compact, &g);
  found_free(&g);
  flock_free(&f);
}

/* A torus a few view radii across: cells along a wrapping axis are stretched to fit the period
 * whole, past the view radius's reach (so every link is tried, not one per cell), and a query
 * may span the whole period. (No compact area: the centre of a group that goes round the
 * torus depends on where it is measured from.) */
static void small_tori_match_brute_force(void) {
  static const float radii[] = {1.5f, 3.0f, 6.5f, 14.0f};
  flock f = flock_new(120, 2, 20.0f, true);
  for (uint32_t i = 0; i < f.n; ++i) place(&f, i, (float[]){20.0f * unit(12, i, 0), 20.0f * unit(12, i, 1)}, 13);
  for (int k = 0; k < 4; ++k) {
    herd_groups_params p = {32, radii[k], 0.0f};
    found g = cpu_groups(&f, &p);
    check_groups(&f, &p, &g);
    found_free(&g);
  }
  flock_free(&f);
  /* Two agents at opposite corners of one stretched cell (2.22 m wide for a 3 m view radius),
   * too far apart to see each other, both seen by a third in the next cell: one group. */
  f = flock_new(3, 2, 20.0f, true);
  place(&f, 0, (float[]){0.02f, 0.02f}, 1);
  place(&f, 1, (float[]){2.2f, 2.2f}, 1);
  place(&f, 2, (float[]){2.3f, 0.0f}, 1);
  herd_groups_params p = {32, 3.0f, 0.0f};
  found g = cpu_groups(&f, &p);
  CHECK(g.obs.group_count == 1);
  check_groups(&f, &p, &g);
  found_free(&g);
  flock_free(&f);
}

static void a_group_across_the_wrap_is_one(void) {
  enum { N = 400 };
  flock f = flock_new(N, 2, 200.0f, true);
  for (uint32_t i = 0; i < N; ++i) { /* a disc of radius 15 m about (2, 199) straddles both seams */
    float a = 6.2831853f * unit(8, i, 0), r = 15.0f * sqrtf(unit(8, i, 1));
    float p[2] = {fmodf(2.0f + r * cosf(a) + 200.0f, 200.0f), fmodf(199.0f + r * sinf(a) + 200.0f, 200.0f)};
    place(&f, i, p, 9);
  }
  found g = cpu_groups(&f, &compact);
  CHECK_MSG(g.obs.group_count == 1, "%u groups", g.obs.group_count);
  check_groups(&f, &compact, &g);
  const herd_group *one = &g.obs.group[0];
  double cx = one->centroid[0], cy = one->centroid[1];
  CHECK_MSG((cx < 6.0 || cx > 198.0) && (cy > 194.0 || cy < 3.0), "centre (%g, %g)", cx, cy);
  CHECK(one->radius_m < 16.0f);
  found_free(&g);
  flock_free(&f);
}

/* A dense core with a thin line of stragglers leading away: the stragglers beyond R_c form a
 * group of their own, though every one sees the next. */
static void the_compact_area_splits_off_stragglers(void) {
  enum { CORE = 200, TAIL = 40 };
  flock f = flock_new(CORE + TAIL, 2, 1000.0f, false);
  for (uint32_t i = 0; i < CORE; ++i) {
    float a = 6.2831853f * unit(2, i, 0), r = 12.0f * sqrtf(unit(2, i, 1));
    place(&f, i, (float[]){500.0f + r * cosf(a), 500.0f + r * sinf(a)}, 4);
  }
  for (uint32_t t = 0; t < TAIL; ++t) place(&f, CORE + t, (float[]){512.0f + 6.0f * (float)(t + 1), 500.0f}, 4);
  found raw = cpu_groups(&f, &plain);
  CHECK(raw.obs.group_count == 1);
  found g = cpu_groups(&f, &compact); /* R_c = 2 sqrt(480) = 43.8 m about a centre near x = 520 */
  CHECK_MSG(g.obs.group_count >= 2, "%u groups", g.obs.group_count);
  check_groups(&f, &compact, &g);
  CHECK(g.slot[0] == 0 && g.slot[CORE + TAIL - 1] == 1);
  CHECK(g.obs.group[1].first_id > CORE);
  found_free(&raw);
  found_free(&g);
  flock_free(&f);
}

/* ---- Reductions -------------------------------------------------------------------------- */

/* Every tracked group's centre, radius, farthest member and heading against direct sums. */
static void check_reductions(const flock *f, const found *g, const herd_groups_params *p) {
  uint32_t *label = malloc(f->n * sizeof *label);
  for (uint32_t k = 0; k < g->obs.groups_tracked; ++k) {
    const herd_group *o = &g->obs.group[k];
    double c[3], head[3] = {0, 0, 0}, far2 = -1;
    uint32_t n, far_id = 0, first = o->first_id;
    for (uint32_t i = 0; i < f->n; ++i) label[i] = g->slot[i] == k ? first : HERD_GROUP_UNTRACKED;
    centre_of(f, label, first, c, &n); /* from the group's first member, as from any member */
    for (uint32_t k2 = 0; k2 < f->dims; ++k2)
      if (f->wrap[k2]) c[k2] = fmod(c[k2] + f->size[k2], f->size[k2]);
    for (uint32_t i = 0; i < f->n; ++i) {
      if (label[i] != first) continue;
      double d2 = dist2_to(f, i, c), v2 = 0;
      if (d2 > far2) far2 = d2, far_id = i;
      for (uint32_t a = 0; a < f->dims; ++a) v2 += (double)at(f, f->vel, i)[a] * at(f, f->vel, i)[a];
      for (uint32_t a = 0; a < f->dims && v2 > 0; ++a) head[a] += at(f, f->vel, i)[a] / sqrt(v2);
    }
    CHECK(n == o->count);
    double dc = 0, dh = 0;
    for (uint32_t a = 0; a < 3; ++a) {
      dc = fmax(dc, fabs(c[a] - o->centroid[a]));
      dh = fmax(dh, fabs(head[a] / n - o->heading[a]));
    }
    CHECK_MSG(dc < 1e-3, "group %u: centre off by %g m", k, dc);
    CHECK_MSG(dh < 1e-5, "group %u: heading off by %g", k, dh);
    CHECK_MSG(fabs(sqrt(far2) - o->radius_m) < 1e-3, "group %u: radius %g, brute force %g", k, o->radius_m, sqrt(far2));
    CHECK_MSG(o->farthest_id == far_id, "group %u: farthest %u, brute force %u", k, o->farthest_id, far_id);
    for (uint32_t a = 0; a < f->dims; ++a) CHECK(o->farthest_pos[a] == at(f, f->pos, far_id)[a]);
    CHECK(fabsf(o->compact_radius_m - p->member_radius_m * sqrtf(2.0f * (float)n)) < 1e-4f);
  }
  free(label);
}

static void reductions_match_brute_force(void) {
  flock f = clustered_flock(3000, 12, 21);
  found g = cpu_groups(&f, &compact);
  CHECK(g.obs.groups_tracked >= 12);
  check_reductions(&f, &g, &compact);
  found_free(&g);
  flock_free(&f);
}

static void groups_are_ordered_and_truncated(void) {
  /* Six clusters: sizes 50, 80, 80, 20, 80, 50 in id blocks, so ties in size must be broken by
   * the first id whatever order they are found in. */
  static const uint32_t sizes[6] = {50, 80, 80, 20, 80, 50};
  flock f = flock_new(360, 2, 1000.0f, false);
  for (uint32_t c = 0, id = 0; c < 6; ++c)
    for (uint32_t m = 0; m < sizes[c]; ++m, ++id) {
      float a = 6.2831853f * unit(6, id, 0), r = 6.0f * sqrtf(unit(6, id, 1));
      place(&f, id, (float[]){900.0f - 120.0f * (float)c + r * cosf(a), 300.0f + r * sinf(a)}, 7);
    }
  herd_groups_params three = {3, 10.0f, 0.0f};
  found g = cpu_groups(&f, &three);
  CHECK(g.obs.group_count == 6 && g.obs.groups_tracked == 3);
  CHECK(g.obs.group[0].count == 80 && g.obs.group[0].first_id == 50);
  CHECK(g.obs.group[1].count == 80 && g.obs.group[1].first_id == 130);
  CHECK(g.obs.group[2].count == 80 && g.obs.group[2].first_id == 230);
  CHECK(g.obs.group[3].count == 0); /* untracked entries stay empty */
  check_groups(&f, &three, &g);
  found_free(&g);
  flock_free(&f);
}

static void a_3d_flock_matches_brute_force(void) {
  flock f = uniform_flock(2000, 3, 120.0f, 10.0f, 31);
  for (int c = 0; c < 2; ++c) {
    found g = cpu_groups(&f, c ? &compact : &plain);
    check_groups(&f, c ? &compact : &plain, &g);
    check_reductions(&f, &g, c ? &compact : &plain);
    CHECK(g.obs.group_count > 1);
    found_free(&g);
  }
  flock_free(&f);
}

/* ---- Determinism ------------------------------------------------------------------------- */

static void same_found(const found *a, const found *b, uint32_t n) {
  CHECK(a->obs.group_count == b->obs.group_count && a->obs.groups_tracked == b->obs.groups_tracked);
  CHECK(memcmp(a->obs.group, b->obs.group, sizeof a->obs.group) == 0);
  CHECK(memcmp(a->slot, b->slot, n * sizeof *a->slot) == 0);
}

static void thread_counts_give_identical_groups(void) {
  flock f = uniform_flock(20000, 2, 1200.0f, 0.0f, 41); /* above the CPU backend's threading threshold */
  found one = groups_on(&herd_cpu_backend, &f, &compact, 1), two = groups_on(&herd_cpu_backend, &f, &compact, 2);
  same_found(&one, &two, f.n);
  CHECK(one.obs.group_count > 10);
  found_free(&one);
  found_free(&two);
  flock_free(&f);
}

static void opencl_groups_equal_the_cpu_backend(void) {
#ifdef HERD_WITH_OPENCL
  if (!have_opencl()) {
    printf("  (no OpenCL device: OpenCL groups not compared)\n");
    return;
  }
  flock flocks[4] = {uniform_flock(20000, 2, 700.0f, 0.0f, 41), clustered_flock(3000, 12, 5),
                     uniform_flock(3000, 3, 150.0f, 10.0f, 31), flock_new(400, 2, 200.0f, true)};
  for (uint32_t i = 0; i < 400; ++i)
    place(&flocks[3], i, (float[]){fmodf(195.0f + 12.0f * unit(8, i, 0), 200.0f), 40.0f * unit(8, i, 1)}, 9);
  for (int k = 0; k < 4; ++k) {
    found cpu = cpu_groups(&flocks[k], &compact), cl = groups_on(&herd_cl_backend, &flocks[k], &compact, 2);
    same_found(&cpu, &cl, flocks[k].n);
    check_groups(&flocks[k], &compact, &cl);
    found_free(&cpu);
    found_free(&cl);
    flock_free(&flocks[k]);
  }
#else
  printf("  (built without OpenCL: OpenCL groups not compared)\n");
#endif
}

/* ---- Through the simulation ---------------------------------------------------------------- */

/* The sim's groups against brute force on its own flock, and its map against its counts. */
static void check_sim_groups(herd_sim *sim) {
  const herd_scenario *sc = herd_sim_scenario(sim);
  flock_copy c = read_flock(sim);
  flock f = flock_new(c.n, c.dims, 0, false);
  for (uint32_t i = 0; i < c.n; ++i) place(&f, i, &c.pos[(size_t)i * c.dims], 1);
  for (uint32_t i = 0; i < c.n; ++i)
    for (uint32_t k = 0; k < c.dims; ++k) at(&f, f.vel, i)[k] = c.vel[(size_t)i * c.dims + k];
  found g = {*herd_sim_observation(sim), malloc(c.n * sizeof *g.slot)};
  const float *pos, *vel;
  const uint32_t *agent, *slot;
  herd_error err;
  CHECK(herd_sim_map_state(sim, &pos, &vel, &agent, &err) == HERD_OK);
  CHECK(herd_sim_map_groups(sim, &slot, &err) == HERD_OK && slot);
  f.removed = calloc(c.n, sizeof *f.removed);
  for (uint32_t i = 0; i < c.n; ++i) f.removed[herd_agent_id(agent[i])] = herd_agent_removed(agent[i]);
  for (uint32_t i = 0; slot && i < c.n; ++i) g.slot[herd_agent_id(agent[i])] = slot[i];
  herd_groups_params p = {sc->groups.max, sc->groups.view_radius_m, sc->groups.member_radius_m};
  check_groups(&f, &p, &g);
  found_free(&g);
  flock_free(&f);
  free_flock(&c);
}

static void the_simulation_observes_groups_when_asked(void) {
  const char *always[] = {"sheep.count=300", "groups.observe=always", "groups.max=4"};
  herd_scenario sc = scenario_with(always, 3);
  herd_sim *sim = sim_start(&sc, 2);
  CHECK(herd_sim_observation(sim)->group_count > 0); /* the first observation too */
  check_sim_groups(sim);
  herd_error err;
  for (int s = 0; s < 5; ++s) CHECK(herd_sim_step(sim, &err) == HERD_OK);
  CHECK(herd_sim_observation(sim)->groups_tracked > 0);
  check_sim_groups(sim);
  herd_sim_destroy(sim);
  /* never, and with_shepherds without a shepherd: no groups, no map */
  const char *never[] = {"sheep.count=300", "groups.observe=never"};
  for (int k = 0; k < 2; ++k) {
    herd_scenario off = scenario_with(never, k ? 1 : 2);
    CHECK(!herd_scenario_observes_groups(&off));
    sim = sim_start(&off, 2);
    CHECK(herd_sim_step(sim, &err) == HERD_OK);
    const uint32_t *slot = (const uint32_t *)&sc;
    CHECK(herd_sim_map_groups(sim, &slot, &err) == HERD_OK && slot == NULL);
    CHECK(herd_sim_observation(sim)->group_count == 0 && herd_sim_observation(sim)->groups_tracked == 0);
    herd_sim_destroy(sim);
  }
  /* Finding groups changes nothing else: the same run, bit for bit, as without. */
  const char *on[] = {"sheep.count=3000", "groups.observe=always"}, *off[] = {"sheep.count=3000"};
  herd_scenario a = scenario_with(on, 2), b = scenario_with(off, 1);
  herd_sim *sa = sim_start(&a, 2), *sb = sim_start(&b, 2);
  for (int s = 0; s < 10; ++s) CHECK(herd_sim_step(sa, &err) == HERD_OK && herd_sim_step(sb, &err) == HERD_OK);
  flock_copy fa = read_flock(sa), fb = read_flock(sb);
  CHECK(memcmp(fa.pos, fb.pos, (size_t)fa.n * 2 * sizeof *fa.pos) == 0);
  CHECK(memcmp(fa.vel, fb.vel, (size_t)fa.n * 2 * sizeof *fa.vel) == 0);
  free_flock(&fa), free_flock(&fb);
  herd_sim_destroy(sa), herd_sim_destroy(sb);
  const char *shepherd[] = {"sheep.count=300", "agents[0].strategy=shepherd", "agents[0].count=1"};
  herd_scenario with = scenario_with(shepherd, 3);
  CHECK(herd_scenario_observes_groups(&with));
  sim = sim_start(&with, 2);
  CHECK(herd_sim_observation(sim)->group_count > 0);
  herd_sim_destroy(sim);
}

/* Slots by id from a backend's map_groups, in the order of its map_state; *moved counts agents
 * whose place in that order differs from `order` (then updated). */
static void slots_by_id(const herd_backend_ops *ops, herd_backend *b, uint32_t n, uint32_t *slot_of, uint32_t *order,
                        uint32_t *moved) {
  const float *pos, *vel;
  const uint32_t *agent, *slot;
  herd_error err;
  CHECK(ops->map_state(b, &pos, &vel, &agent, &err) == HERD_OK);
  CHECK_MSG(ops->map_groups(b, &slot, &err) == HERD_OK, "%s", err.message);
  *moved = 0;
  for (uint32_t i = 0; i < n; ++i) {
    slot_of[herd_agent_id(agent[i])] = slot[i];
    *moved += order[i] != agent[i];
    order[i] = agent[i];
  }
}

/* A step abandoned midway (the stop raised at its first piece, once the grid is sorted)
 * reorders the backend's state (its sorted copy goes back): the map of groups still gives each
 * agent its own group. */
static void interrupt_backend(const herd_backend_ops *ops) {
  flock f = uniform_flock(40000, 2, 1500.0f, 0.0f, 51);
  herd_scenario sc = scenario_with((const char *[]){"sheep.dog_radius_m=1e6"}, 1);
  herd_backend_desc d = backend_desc_for(&sc, f.n, 2);
  volatile sig_atomic_t stop = 0;
  d.stop = &stop;
  herd_backend *b;
  herd_error err;
  herd_observation obs;
  CHECK_MSG(ops->create(&d, &b, &err) == HERD_OK, "%s", err.message);
  CHECK(ops->upload(b, f.pos, f.vel, &err) == HERD_OK);
  CHECK(ops->groups(b, &compact, &obs, &err) == HERD_OK);
  uint32_t *before = malloc(f.n * sizeof *before), *after = malloc(f.n * sizeof *after);
  uint32_t *order = calloc(f.n, sizeof *order), moved;
  slots_by_id(ops, b, f.n, before, order, &moved);
  float centroid[3] = {750, 750, 0};
  float dog[HERD_STEER_FLOATS] = {750, 750};
  stop_at_piece(&stop, 1);
  CHECK(ops->step(b, (herd_steering_input){dog, 1}, centroid, 1, &err) == HERD_E_INTERRUPTED);
  stop_at_piece(NULL, 0);
  slots_by_id(ops, b, f.n, after, order, &moved);
  CHECK_MSG(moved > 0, "%s: the interrupted step kept the order; nothing tested", ops->name);
  CHECK_MSG(memcmp(before, after, f.n * sizeof *before) == 0, "%s: the map lost the agents' groups", ops->name);
  ops->destroy(b);
  free(before), free(after), free(order);
  flock_free(&f);
}

/* Sheep delivered into the goal leave the flock (sheep.success = remove_delivered): they are in
 * no group, and the groups of those left are as brute force finds them. */
static void removed_agents_are_in_no_group(void) {
  const char *sets[] = {"sheep.count=400", "groups.observe=always", "sheep.success=remove_delivered",
                        "target.position_m=[110, 110]", "target.goal_radius_m=12"};
  herd_scenario sc = scenario_with(sets, 5);
  herd_sim *sim = sim_start(&sc, 2);
  herd_error err;
  CHECK(herd_sim_step(sim, &err) == HERD_OK);
  const herd_observation *o = herd_sim_observation(sim);
  uint32_t grouped = 0;
  for (uint32_t k = 0; k < o->groups_tracked; ++k) grouped += o->group[k].count;
  CHECK_MSG(o->delivered > 20 && o->delivered < 380, "%u delivered: the test needs some removed", o->delivered);
  CHECK(grouped <= sc.flock.count - o->delivered);
  check_sim_groups(sim);
  herd_sim_destroy(sim);
}

static void an_interrupted_step_keeps_the_groups(void) {
  const char *sets[] = {"sheep.count=3000", "groups.observe=always"};
  herd_scenario sc = scenario_with(sets, 2);
  volatile sig_atomic_t stop = 0;
  herd_sim *sim;
  herd_error err;
  CHECK(herd_sim_create(&(herd_sim_desc){.scenario = &sc, .threads = 2, .stop = &stop}, &sim, &err) == HERD_OK);
  for (int s = 0; s < 3; ++s) CHECK(herd_sim_step(sim, &err) == HERD_OK);
  herd_observation before = *herd_sim_observation(sim);
  stop = 1;
  CHECK(herd_sim_step(sim, &err) == HERD_E_INTERRUPTED);
  CHECK(memcmp(&before, herd_sim_observation(sim), sizeof before) == 0);
  check_sim_groups(sim);
  stop = 0;
  CHECK(herd_sim_step(sim, &err) == HERD_OK);
  check_sim_groups(sim);
  herd_sim_destroy(sim);
  interrupt_backend(&herd_cpu_backend);
#ifdef HERD_WITH_OPENCL
  if (have_opencl()) interrupt_backend(&herd_cl_backend);
#endif
}

static void a_cpu_batch_finds_each_worlds_groups(void) {
  herd_scenario sc[3];
  herd_sim_desc descs[3];
  for (int w = 0; w < 3; ++w) {
    char seed[32];
    snprintf(seed, sizeof seed, "seed=%d", w + 1);
    sc[w] = scenario_with((const char *[]){"sheep.count=200", "groups.observe=always", seed}, 3);
    descs[w] = (herd_sim_desc){.scenario = &sc[w], .threads = 2};
  }
  herd_batch *batch;
  herd_error err;
  CHECK_MSG(herd_batch_create(descs, 3, &batch, &err) == HERD_OK, "%s", err.message);
  for (int s = 0; s < 4; ++s) CHECK(herd_batch_step(batch, &err) == HERD_OK);
  for (int w = 0; w < 3; ++w) { /* as the world alone */
    herd_sim *alone = sim_start(&sc[w], 1);
    for (int s = 0; s < 4; ++s) CHECK(herd_sim_step(alone, &err) == HERD_OK);
    const herd_observation *a = herd_sim_observation(alone), *b = herd_sim_observation(herd_batch_world(batch, w));
    CHECK(a->group_count > 0 && a->group_count == b->group_count && a->groups_tracked == b->groups_tracked);
    CHECK(memcmp(a->group, b->group, sizeof a->group) == 0);
    herd_sim_destroy(alone);
  }
  herd_batch_destroy(batch);
}

static void an_opencl_batch_refuses_groups(void) {
#ifdef HERD_WITH_OPENCL
  if (!have_opencl()) {
    printf("  (no OpenCL device: the OpenCL batch not tried)\n");
    return;
  }
  herd_scenario sc = scenario_with((const char *[]){"sheep.count=100", "groups.observe=always"}, 2);
  herd_sim_desc descs[2] = {{.scenario = &sc, .backend = "opencl"}, {.scenario = &sc, .backend = "opencl"}};
  herd_batch *batch = NULL;
  herd_error err;
  CHECK(herd_batch_create(descs, 2, &batch, &err) == HERD_E_INPUT && !batch);
  CHECK_MSG(strstr(err.message, "groups.observe = always") && strstr(err.message, "--backend cpu"), "%s", err.message);
#endif
}

int main(void) { TEST_MAIN(TESTS); }
