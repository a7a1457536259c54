/* The geometry of splitting a flock over ranks (src/backend/mpi/decomp.h) against brute force:
 * owners on and near cuts and through the wrap, halo ranks and depth against the distance to
 * every region's box, balanced cuts against counts of real points, and the k-nearest halo
 * width against its promise: after regathering with it, every local agent's k nearest among
 * the agents a rank knows are its k nearest among all agents. */
#include <math.h>
#include <stdlib.h>

#include "backend/mpi/decomp.h"
#include "rng.h"
#include "test.h"

#define TESTS(X)                                   \
  X(process_grid_shapes)                           \
  X(bad_decompositions_say_why)                    \
  X(first_cuts_are_even_over_the_flock)            \
  X(owner_on_and_near_cuts)                        \
  X(owner_through_the_wrap)                        \
  X(owner_is_the_box_that_holds_the_point)         \
  X(halo_ranks_match_brute_force)                  \
  X(depth_matches_brute_force)                     \
  X(cut_from_histogram_balances_real_points)       \
  X(cut_from_histogram_interpolates_in_a_bin)      \
  X(cut_from_histogram_degenerate_inputs)          \
  X(knn_halo_width_keeps_k_nearest_exact)          \
  X(knn_halo_width_lone_far_agent_needs_wide_halo) \
  X(knn_halo_width_too_few_known_is_infinite)
TESTS(DECLARE_TEST)

static float unit(uint32_t i, uint32_t stream, int which) {
  return herd_rng_unit_float(herd_rng_draw(4242, 17, i, stream).v[which]);
}

static const float no_size[3] = {0, 0, 0};
static const uint32_t open_axes[3] = {0, 0, 0};

/* A world for the brute-force tests: 2D or 3D, open or wrapping in x and y, 120 x 80 m. */
typedef struct world {
  const char *layout;
  uint32_t ranks, dims;
  uint32_t wrap[3];
} world;

static const world worlds[] = {
    {"slabs", 4, 2, {0, 0, 0}}, {"grid", 6, 2, {0, 0, 0}},  {"slabs", 3, 2, {1, 1, 0}},
    {"grid", 4, 2, {1, 1, 0}},  {"grid", 12, 3, {0, 0, 0}}, {"grid", 9, 3, {1, 0, 1}},
};
static const float world_size[3] = {120.0f, 80.0f, 50.0f};

/* The decomposition of world w with irregular cuts (random, sorted) so that every slab's
 * axis1 cuts differ: the brute force must find each region's box from the cuts alone. */
static herd_decomp irregular(const world *w, uint32_t seed) {
  herd_decomp d;
  float lo[3] = {10, 5, 0}, hi[3] = {110, 70, 50};
  char why[200] = "";
  int status = herd_decomp_init(&d, w->ranks, w->layout, w->dims, world_size, w->wrap, lo, hi, why, sizeof why);
  CHECK_MSG(status == 0, "%s", why);
  float *cuts[HERD_DECOMP_MAX_RANKS + 1];
  uint32_t lists = 0, parts[HERD_DECOMP_MAX_RANKS + 1], axes[HERD_DECOMP_MAX_RANKS + 1];
  cuts[lists] = d.cut0, parts[lists] = d.px, axes[lists++] = d.axis0;
  for (uint32_t i = 0; i < d.px; ++i) cuts[lists] = d.cut1[i], parts[lists] = d.py, axes[lists++] = d.axis1;
  for (uint32_t l = 0; l < lists; ++l) {
    float extent = world_size[axes[l]];
    for (uint32_t k = 1; k < parts[l]; ++k) cuts[l][k] = extent * (0.05f + 0.9f * unit(seed + l * 64 + k, 9, 0));
    for (uint32_t k = 1; k < parts[l]; ++k) /* insertion sort */
      for (uint32_t m = k; m > 1 && cuts[l][m] < cuts[l][m - 1]; --m) {
        float t = cuts[l][m];
        cuts[l][m] = cuts[l][m - 1], cuts[l][m - 1] = t;
      }
  }
  return d;
}

/* Rank r's box, the bounds read straight from the cut lists. */
static void region_box(const herd_decomp *d, uint32_t r, double lo[2], double hi[2]) {
  uint32_t i = r / d->py, j = r % d->py;
  lo[0] = d->cut0[i], hi[0] = d->cut0[i + 1];
  lo[1] = d->cut1[i][j], hi[1] = d->cut1[i][j + 1];
}

/* Distance from p to rank r's box, by brute force: p's images one and two periods away along
 * each wrapping axis (the tests' points lie within two periods), the nearest point of the box. */
static double box_distance(const herd_decomp *d, uint32_t r, const float p[3]) {
  double lo[2], hi[2], best = INFINITY;
  region_box(d, r, lo, hi);
  uint32_t axis[2] = {d->axis0, d->axis1};
  int reach0 = d->wrap[axis[0]] ? 2 : 0, reach1 = d->wrap[axis[1]] ? 2 : 0;
  for (int s0 = -reach0; s0 <= reach0; ++s0)
    for (int s1 = -reach1; s1 <= reach1; ++s1) {
      double q0 = p[axis[0]] + s0 * (double)d->size_m[axis[0]], q1 = p[axis[1]] + s1 * (double)d->size_m[axis[1]];
      double c0 = fmin(fmax(q0, lo[0]), hi[0]), c1 = fmin(fmax(q1, lo[1]), hi[1]);
      best = fmin(best, hypot(q0 - c0, q1 - c1));
    }
  return best;
}

/* A point of world w, sometimes outside it (up to one period out along wrapping axes, far out
 * along open ones). */
static void random_point(const world *w, uint32_t i, float p[3]) {
  for (int k = 0; k < 3; ++k) {
    float u = unit(i, 3, k);
    p[k] = w->wrap[k] ? world_size[k] * (3.0f * u - 1.0f) : world_size[k] * (1.6f * u - 0.3f);
  }
  if (w->dims == 2) p[2] = 0.0f;
}

static void process_grid_shapes(void) {
  struct {
    uint32_t ranks;
    const char *layout;
    uint32_t px, py;
  } cases[] = {{1, "grid", 1, 1},  {4, "grid", 2, 2},    {6, "grid", 3, 2},      {12, "grid", 4, 3},
               {7, "grid", 7, 1},  {36, "grid", 6, 6},   {4096, "grid", 64, 64}, {65, "grid", 13, 5},
               {5, "slabs", 5, 1}, {64, "slabs", 64, 1}, {3, NULL, 3, 1}};
  float lo[3] = {0, 0, 0}, hi[3] = {10, 10, 10};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    herd_decomp d;
    char why[200] = "";
    CHECK_MSG(
        herd_decomp_init(&d, cases[c].ranks, cases[c].layout, 2, no_size, open_axes, lo, hi, why, sizeof why) == 0,
        "%u %s: %s", cases[c].ranks, cases[c].layout, why);
    CHECK_MSG(d.ranks == cases[c].ranks && d.px == cases[c].px && d.py == cases[c].py, "%u ranks: %u x %u",
              cases[c].ranks, d.px, d.py);
  }
}

static void bad_decompositions_say_why(void) {
  float lo[3] = {0, 0, 0}, hi[3] = {10, 10, 10}, zero_size[3] = {0, 10, 0};
  uint32_t wrap_x[3] = {1, 0, 0};
  struct {
    uint32_t ranks;
    const char *layout;
    uint32_t dims;
    const float *size;
    const uint32_t *wrap;
    const char *says;
  } cases[] = {
      {0, "slabs", 2, no_size, open_axes, "rank"},  {65, "slabs", 2, no_size, open_axes, "64"},
      {67, "grid", 2, no_size, open_axes, "64"},    {4097, "grid", 2, no_size, open_axes, "64"},
      {4, "cubes", 2, no_size, open_axes, "cubes"}, {4, "slabs", 4, no_size, open_axes, "dims"},
      {4, "slabs", 2, zero_size, wrap_x, "axis 0"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    herd_decomp d;
    char why[200] = "";
    int status = herd_decomp_init(&d, cases[c].ranks, cases[c].layout, cases[c].dims, cases[c].size, cases[c].wrap, lo,
                                  hi, why, sizeof why);
    CHECK_MSG(status == -1 && strstr(why, cases[c].says), "case %zu: status %d, \"%s\"", c, status, why);
  }
}

static void first_cuts_are_even_over_the_flock(void) {
  herd_decomp d;
  float lo[3] = {-5, 20, 0}, hi[3] = {15, 100, 0}, size[3] = {40, 200, 0};
  uint32_t wrap_x[3] = {1, 0, 0};
  CHECK(herd_decomp_init(&d, 8, "grid", 2, size, wrap_x, lo, hi, NULL, 0) == 0);
  CHECK(d.px == 4 && d.py == 2);
  CHECK(d.axis0 == 1 && d.axis1 == 0); /* the flock is taller (80 m) than wide (20 m) */
  /* y is open: the outer cuts are infinite, the inner ones even over [20, 100] */
  CHECK(d.cut0[0] == -INFINITY && d.cut0[4] == INFINITY);
  for (int k = 1; k < 4; ++k) CHECK_MSG(fabsf(d.cut0[k] - (20.0f + 20.0f * k)) < 1e-4f, "cut0[%d] %g", k, d.cut0[k]);
  /* x wraps with period 40: the ends are the period; the flock's -5 is clamped to 0 */
  for (uint32_t i = 0; i < 4; ++i) {
    CHECK(d.cut1[i][0] == 0.0f && d.cut1[i][2] == 40.0f);
    CHECK_MSG(fabsf(d.cut1[i][1] - 7.5f) < 1e-4f, "cut1[%u][1] %g", i, d.cut1[i][1]);
  }
}

static void owner_on_and_near_cuts(void) {
  herd_decomp d;
  float lo[3] = {0, 0, 0}, hi[3] = {100, 10, 0};
  CHECK(herd_decomp_init(&d, 4, "slabs", 2, no_size, open_axes, lo, hi, NULL, 0) == 0);
  float on[3] = {25, 3, 0}, below[3] = {nextafterf(25.0f, 0.0f), 3, 0}, far_low[3] = {-1e30f, 0, 0};
  float far_high[3] = {1e30f, 0, 0}, inf_high[3] = {INFINITY, 0, 0}, inf_low[3] = {-INFINITY, 0, 0};
  float nan_x[3] = {NAN, 60, 0}, nan_y[3] = {60, NAN, 0}, last[3] = {75, -1e9f, 0};
  CHECK(herd_decomp_owner(&d, on) == 1);    /* a cut belongs to the region above it */
  CHECK(herd_decomp_owner(&d, below) == 0); /* one float below it, to the one below */
  CHECK(herd_decomp_owner(&d, far_low) == 0 && herd_decomp_owner(&d, inf_low) == 0);
  CHECK(herd_decomp_owner(&d, far_high) == 3 && herd_decomp_owner(&d, inf_high) == 3);
  CHECK(herd_decomp_owner(&d, nan_x) == 0 && herd_decomp_owner(&d, nan_y) == 0);
  CHECK(herd_decomp_owner(&d, last) == 3);
}

static void owner_through_the_wrap(void) {
  herd_decomp d;
  float lo[3] = {0, 0, 0}, hi[3] = {100, 60, 0}, size[3] = {100, 60, 0};
  uint32_t wrap[3] = {1, 1, 0};
  CHECK(herd_decomp_init(&d, 4, "grid", 2, size, wrap, lo, hi, NULL, 0) == 0);
  CHECK(d.px == 2 && d.py == 2 && d.axis0 == 0); /* cuts at x = 50 and y = 30 */
  float at_period[3] = {100, 0, 0}, just_below_zero[3] = {-0.001f, -0.001f, 0}, a_period_on[3] = {125, 95, 0};
  float two_back[3] = {-175, 10, 0}, inf_x[3] = {INFINITY, 10, 0};
  CHECK(herd_decomp_owner(&d, at_period) == 0);       /* x = 100 is x = 0 */
  CHECK(herd_decomp_owner(&d, just_below_zero) == 3); /* the far corner */
  CHECK(herd_decomp_owner(&d, a_period_on) == 1);     /* (25, 35) */
  CHECK(herd_decomp_owner(&d, two_back) == 0);        /* (25, 10) */
  CHECK(herd_decomp_owner(&d, inf_x) == 0);           /* no place on a circle: rank 0 */
}

/* Whether p (wrapped by fmod, independently of the code under test) is in r's half-open box. */
static bool in_box(const herd_decomp *d, uint32_t r, const float p[3]) {
  double lo[2], hi[2], q[2];
  uint32_t axis[2] = {d->axis0, d->axis1};
  region_box(d, r, lo, hi);
  for (int k = 0; k < 2; ++k) {
    q[k] = p[axis[k]];
    if (d->wrap[axis[k]]) {
      double period = d->size_m[axis[k]];
      q[k] = fmod(fmod(q[k], period) + period, period);
      if (q[k] >= period) q[k] = 0.0;
    }
    if (!(q[k] >= lo[k] && q[k] < hi[k])) return false;
  }
  return true;
}

static void owner_is_the_box_that_holds_the_point(void) {
  for (size_t w = 0; w < sizeof worlds / sizeof worlds[0]; ++w) {
    herd_decomp d = irregular(&worlds[w], 100 * (uint32_t)w);
    uint32_t wrong = 0;
    for (uint32_t n = 0; n < 10000; ++n) {
      float p[3];
      random_point(&worlds[w], n, p);
      uint32_t owner = herd_decomp_owner(&d, p), holders = 0;
      for (uint32_t r = 0; r < d.ranks; ++r) holders += in_box(&d, r, p);
      wrong += owner >= d.ranks || !in_box(&d, owner, p) || holders != 1;
    }
    CHECK_MSG(wrong == 0, "world %zu: %u of 10^4 points owned wrongly", w, wrong);
  }
}

static void halo_ranks_match_brute_force(void) {
  for (size_t w = 0; w < sizeof worlds / sizeof worlds[0]; ++w) {
    herd_decomp d = irregular(&worlds[w], 100 * (uint32_t)w + 7);
    uint32_t wrong = 0, listed = 0, out[64];
    for (uint32_t n = 0; n < 10000; ++n) {
      float p[3], width = 40.0f * unit(n, 4, 0) * unit(n, 4, 1);
      random_point(&worlds[w], n, p);
      uint32_t self = herd_decomp_owner(&d, p), found = herd_decomp_halo_ranks(&d, self, p, width, out), at = 0;
      for (uint32_t r = 0; r < d.ranks; ++r) {
        double distance = box_distance(&d, r, p);
        bool listed_here = at < found && out[at] == r, expected = r != self && distance <= width;
        if (listed_here) ++at;
        /* the float code and the double brute force may disagree within rounding of the width */
        if (listed_here != expected && fabs(distance - width) > 1e-3) ++wrong;
      }
      wrong += at != found; /* a rank out of order, repeated or past the end */
      listed += found;
    }
    CHECK_MSG(wrong == 0, "world %zu: %u wrong halo lists", w, wrong);
    CHECK_MSG(listed > 2000, "world %zu: only %u halo ranks listed: the test tests little", w, listed);
  }
  herd_decomp d = irregular(&worlds[1], 1);
  uint32_t out[64];
  float p[3] = {60, 40, 0};
  CHECK(herd_decomp_halo_ranks(&d, 0, p, INFINITY, out) == d.ranks - 1);
  CHECK(herd_decomp_halo_ranks(&d, 0, p, -1.0f, out) == 0);
}

static void depth_matches_brute_force(void) {
  for (size_t w = 0; w < sizeof worlds / sizeof worlds[0]; ++w) {
    herd_decomp d = irregular(&worlds[w], 100 * (uint32_t)w + 11);
    uint32_t wrong = 0;
    for (uint32_t n = 0; n < 10000; ++n) {
      float p[3];
      random_point(&worlds[w], n, p);
      uint32_t r = herd_decomp_owner(&d, p);
      /* From inside its region, a point is as deep as it is far from every other region. */
      double expected = INFINITY;
      for (uint32_t s = 0; s < d.ranks; ++s)
        if (s != r) expected = fmin(expected, box_distance(&d, s, p));
      float depth = herd_decomp_depth(&d, r, p);
      if (!(fabs(depth - expected) <= 1e-3 * (1.0 + expected))) ++wrong;
    }
    CHECK_MSG(wrong == 0, "world %zu: %u depths wrong", w, wrong);
  }
  /* One rank: no faces, open or wrapping. */
  herd_decomp d;
  float lo[3] = {0, 0, 0}, hi[3] = {50, 50, 0}, size[3] = {50, 50, 0}, p[3] = {10, 10, 0};
  uint32_t wrap[3] = {1, 1, 0};
  CHECK(herd_decomp_init(&d, 1, "slabs", 2, no_size, open_axes, lo, hi, NULL, 0) == 0);
  CHECK(herd_decomp_depth(&d, 0, p) == INFINITY);
  CHECK(herd_decomp_init(&d, 1, "slabs", 2, size, wrap, lo, hi, NULL, 0) == 0);
  CHECK(herd_decomp_depth(&d, 0, p) == INFINITY);
}

/* x of a skewed flock: most agents in two tight clusters, a tail, some beyond [lo, hi]. */
static float skewed_x(uint32_t i) {
  float u = unit(i, 5, 0), v = unit(i, 5, 1);
  if (u < 0.45f) return 10.0f + 2.0f * v;
  if (u < 0.80f) return 70.0f + 0.5f * v;
  if (u < 0.98f) return 100.0f * v;
  return v < 0.5f ? -50.0f * v : 100.0f + 500.0f * v;
}

static void cut_from_histogram_balances_real_points(void) {
  enum { N = 100000, BINS = 1024 };
  static float x[N];
  static uint64_t hist[BINS];
  const float lo = 0.0f, hi = 100.0f;
  for (uint32_t i = 0; i < N; ++i) x[i] = skewed_x(i), ++hist[herd_decomp_bin(x[i], lo, hi, BINS)];
  for (uint32_t parts = 2; parts <= 9; ++parts) {
    float cuts[HERD_DECOMP_MAX_RANKS + 1];
    cuts[0] = -INFINITY, cuts[parts] = INFINITY;
    herd_decomp_cut_from_histogram(hist, BINS, lo, hi, parts, cuts);
    CHECK(cuts[0] == -INFINITY && cuts[parts] == INFINITY);
    for (uint32_t k = 1; k <= parts; ++k) CHECK_MSG(cuts[k] > cuts[k - 1], "%u parts: cut %u not above", parts, k);
    /* Below each cut lie k/parts of the agents, give or take the agents of the bin it is in
     * (the histogram cannot see how they spread inside it). */
    for (uint32_t k = 1; k < parts; ++k) {
      uint64_t below = 0;
      for (uint32_t i = 0; i < N; ++i) below += x[i] < cuts[k];
      double target = (double)N * k / parts, slack = (double)hist[herd_decomp_bin(cuts[k], lo, hi, BINS)] + 1.0;
      CHECK_MSG(fabs((double)below - target) <= slack, "%u parts, cut %u at %g: %llu below, %g wanted (+- %g)", parts,
                k, cuts[k], (unsigned long long)below, target, slack);
    }
  }
}

static void cut_from_histogram_interpolates_in_a_bin(void) {
  /* bins of 1 m over [0, 4] holding 10, 0, 30, 60 agents; halves: 50 lie below 3 + 10/60 m,
   * thirds: 33.3 below 2 + 23.3/30 m and 66.7 below 3 + 26.7/60 m */
  uint64_t hist[4] = {10, 0, 30, 60};
  float halves[3] = {-INFINITY, 0, INFINITY}, thirds[4] = {-INFINITY, 0, 0, INFINITY};
  herd_decomp_cut_from_histogram(hist, 4, 0.0f, 4.0f, 2, halves);
  CHECK_MSG(fabsf(halves[1] - (3.0f + 10.0f / 60.0f)) < 1e-5f, "half at %g", halves[1]);
  herd_decomp_cut_from_histogram(hist, 4, 0.0f, 4.0f, 3, thirds);
  CHECK_MSG(fabsf(thirds[1] - (2.0f + (100.0f / 3.0f - 10.0f) / 30.0f)) < 1e-5f, "first third at %g", thirds[1]);
  CHECK_MSG(fabsf(thirds[2] - (3.0f + (200.0f / 3.0f - 40.0f) / 60.0f)) < 1e-5f, "second third at %g", thirds[2]);
}

static void cut_from_histogram_degenerate_inputs(void) {
  uint64_t hist[16] = {0};
  float cuts[9];
  /* no agents: even cuts over [lo, hi] */
  cuts[0] = 0.0f, cuts[4] = 40.0f;
  herd_decomp_cut_from_histogram(hist, 16, 0.0f, 40.0f, 4, cuts);
  CHECK(fabsf(cuts[1] - 10.0f) < 1e-5f && fabsf(cuts[2] - 20.0f) < 1e-5f && fabsf(cuts[3] - 30.0f) < 1e-5f);
  /* every agent in one bin, and a flock on one point: cuts still strictly increase */
  hist[5] = 1000;
  cuts[0] = -INFINITY, cuts[8] = INFINITY;
  herd_decomp_cut_from_histogram(hist, 16, 0.0f, 16.0f, 8, cuts);
  for (int k = 1; k <= 8; ++k) CHECK_MSG(cuts[k] > cuts[k - 1], "one bin: cut %d", k);
  CHECK(cuts[1] >= 5.0f && cuts[7] <= 6.0f);
  herd_decomp_cut_from_histogram(hist, 16, 3.0f, 3.0f, 8, cuts);
  for (int k = 1; k <= 8; ++k) CHECK_MSG(cuts[k] > cuts[k - 1], "one point: cut %d", k);
  /* more parts than floats between the ends: strictly increasing is impossible, nothing breaks */
  float tight[5] = {1.0f, 0, 0, 0, nextafterf(1.0f, 2.0f)};
  herd_decomp_cut_from_histogram(hist, 16, 1.0f, 1.0f, 4, tight);
  for (int k = 1; k < 4; ++k) CHECK(tight[k] >= 1.0f && tight[k] <= tight[4]);
}

/* ---- k nearest ------------------------------------------------------------------------ */

typedef struct flock {
  uint32_t n, stride, dims;
  float *pos;
} flock;

/* Clusters of different density plus stragglers, in world w's box. */
static flock make_flock(const world *w, uint32_t n, uint32_t seed) {
  flock f = {n, w->dims == 3 ? 4u : 2u, w->dims, calloc((size_t)n * (w->dims == 3 ? 4u : 2u), sizeof(float))};
  for (uint32_t a = 0; a < n; ++a) {
    uint32_t cluster = (a * 7u) % 5u;
    float spread = cluster == 4 ? 1.0f : 3.0f + 4.0f * (float)cluster; /* cluster 4: the whole world */
    for (uint32_t k = 0; k < w->dims; ++k) {
      float centre = world_size[k] * unit(cluster, seed, (int)k);
      float x = cluster == 4 ? world_size[k] * unit(a, seed + 1, (int)k)
                             : centre + spread * (unit(a, seed + 2, (int)k) - 0.5f);
      if (w->wrap[k]) x = fmodf(x + world_size[k], world_size[k]);
      f.pos[(size_t)a * f.stride + k] = x;
    }
  }
  return f;
}

static const float *agent(const flock *f, uint32_t a) { return f->pos + (size_t)a * f->stride; }

static void point3(const flock *f, uint32_t a, float p[3]) {
  for (uint32_t k = 0; k < 3; ++k) p[k] = k < f->dims ? agent(f, a)[k] : 0.0f;
}

static double distance(const world *w, const float *p, const float *q) {
  double sum = 0.0;
  for (uint32_t k = 0; k < w->dims; ++k) {
    double delta = fabs((double)p[k] - q[k]);
    if (w->wrap[k]) delta = fmin(delta, world_size[k] - delta);
    sum += delta * delta;
  }
  return sqrt(sum);
}

/* The ids of the k nearest agents to agent `self` among ids[0..count), nearest first (ties by
 * id), into out. */
static void k_nearest(const world *w, const flock *f, uint32_t self, const uint32_t *ids, uint32_t count, uint32_t k,
                      uint32_t *out, double *out_d) {
  uint32_t found = 0;
  for (uint32_t c = 0; c < count; ++c) {
    if (ids[c] == self) continue;
    double dist = distance(w, agent(f, self), agent(f, ids[c]));
    if (found == k && (dist > out_d[k - 1] || (dist == out_d[k - 1] && ids[c] > out[k - 1]))) continue;
    uint32_t at = found < k ? found++ : k - 1;
    while (at > 0 && (out_d[at - 1] > dist || (out_d[at - 1] == dist && out[at - 1] > ids[c]))) {
      out[at] = out[at - 1], out_d[at] = out_d[at - 1];
      --at;
    }
    out[at] = ids[c], out_d[at] = dist;
  }
}

/* What rank r knows at halo width `width`: its agents (first, `*local` of them), then every
 * other agent whose owner lists r among its halo ranks. */
static uint32_t gather(const herd_decomp *d, const flock *f, uint32_t r, float width, uint32_t *ids, uint32_t *local) {
  uint32_t count = 0, halo[64];
  for (uint32_t a = 0; a < f->n; ++a) {
    float p[3];
    point3(f, a, p);
    if (herd_decomp_owner(d, p) == r) ids[count++] = a;
  }
  *local = count;
  for (uint32_t a = 0; a < f->n; ++a) {
    float p[3];
    point3(f, a, p);
    uint32_t owner = herd_decomp_owner(d, p);
    if (owner == r) continue;
    uint32_t found = herd_decomp_halo_ranks(d, owner, p, width, halo);
    for (uint32_t h = 0; h < found; ++h)
      if (halo[h] == r) ids[count++] = a;
  }
  return count;
}

/* The width rank r asks for after gathering at `width` (positions copied in rank order). */
static float asked_width(const herd_decomp *d, const flock *f, uint32_t r, const uint32_t *ids, uint32_t count,
                         uint32_t local, uint32_t k, float width) {
  float *known = malloc((size_t)count * f->stride * sizeof(float)), *depth = malloc((size_t)local * sizeof(float));
  for (uint32_t c = 0; c < count; ++c)
    memcpy(known + (size_t)c * f->stride, agent(f, ids[c]), f->stride * sizeof(float));
  for (uint32_t i = 0; i < local; ++i) {
    float p[3];
    point3(f, ids[i], p);
    depth[i] = herd_decomp_depth(d, r, p);
  }
  float asked = herd_knn_halo_width(known, count, local, f->stride, f->dims, depth, k, 2.0f, width);
  free(known);
  free(depth);
  return asked;
}

/* How many of rank r's agents have k nearest among the known that are not their k nearest. */
static uint32_t wrong_neighbourhoods(const world *w, const flock *f, const uint32_t *ids, uint32_t count,
                                     uint32_t local, const uint32_t *all, uint32_t k) {
  uint32_t wrong = 0, mine[64], truth[64];
  double mine_d[64], truth_d[64];
  for (uint32_t i = 0; i < local; ++i) {
    k_nearest(w, f, ids[i], ids, count, k, mine, mine_d);
    k_nearest(w, f, ids[i], all, f->n, k, truth, truth_d);
    wrong += memcmp(mine, truth, k * sizeof *mine) != 0;
  }
  return wrong;
}

static void knn_halo_width_keeps_k_nearest_exact(void) {
  const uint32_t k = 12, n = 2500;
  uint32_t *all = malloc(n * sizeof *all), *ids = malloc(n * sizeof *ids);
  for (uint32_t a = 0; a < n; ++a) all[a] = a;
  for (size_t w = 0; w < sizeof worlds / sizeof worlds[0]; ++w) {
    herd_decomp d = irregular(&worlds[w], 100 * (uint32_t)w + 13);
    flock f = make_flock(&worlds[w], n, 20 + (uint32_t)w);
    uint32_t wrong = 0, wrong_without = 0, grown = 0;
    for (uint32_t r = 0; r < d.ranks; ++r) {
      uint32_t local, count = gather(&d, &f, r, 1.0f, ids, &local);
      wrong_without += wrong_neighbourhoods(&worlds[w], &f, ids, count, local, all, k);
      float width = asked_width(&d, &f, r, ids, count, local, k, 1.0f);
      /* INFINITY: fewer than k + 1 agents known; then the rank must know every agent */
      if (width > 1.0f) {
        ++grown;
        count = gather(&d, &f, r, width, ids, &local);
        /* one regather is enough: knowing more only shrinks what is asked */
        float again = asked_width(&d, &f, r, ids, count, local, k, width);
        CHECK_MSG(again <= width, "world %zu rank %u: asked %g after regathering at %g", w, r, again, width);
      }
      wrong += wrong_neighbourhoods(&worlds[w], &f, ids, count, local, all, k);
    }
    CHECK_MSG(wrong == 0, "world %zu: %u agents' k nearest differ from brute force", w, wrong);
    /* The test must be able to fail: a 1 m halo alone loses neighbours, so the width grew. */
    CHECK_MSG(wrong_without > 0 && grown > 0, "world %zu: %u wrong at 1 m, %u ranks grown", w, wrong_without, grown);
    free(f.pos);
  }
  free(all);
  free(ids);
}

static void knn_halo_width_lone_far_agent_needs_wide_halo(void) {
  /* Two slabs cut at x = 0; rank 0 holds a tight flock and one agent 1 m from the cut and
   * 500 m from everything else: its 5th nearest is ~500 m away, past any narrow halo. */
  const uint32_t k = 5, n = 201;
  float lo[3] = {-100, -10, 0}, hi[3] = {100, 10, 0}, known[2 * 201], depth[201];
  herd_decomp d;
  CHECK(herd_decomp_init(&d, 2, "slabs", 2, no_size, open_axes, lo, hi, NULL, 0) == 0);
  CHECK(d.cut0[1] == 0.0f);
  for (uint32_t a = 0; a < n - 1; ++a) known[2 * a] = -90.0f + 5.0f * unit(a, 6, 0), known[2 * a + 1] = unit(a, 6, 1);
  known[2 * (n - 1)] = -1.0f, known[2 * (n - 1) + 1] = 500.0f;
  for (uint32_t a = 0; a < n; ++a) depth[a] = herd_decomp_depth(&d, 0, (float[3]){known[2 * a], known[2 * a + 1], 0});
  CHECK(fabsf(depth[n - 1] - 1.0f) < 1e-5f);
  float without = herd_knn_halo_width(known, n - 1, n - 1, 2, 2, depth, k, 1.0f, 1.0f);
  float with = herd_knn_halo_width(known, n, n, 2, 2, depth, k, 1.0f, 1.0f);
  double fifth = INFINITY; /* the lone agent's 5th nearest, by brute force: all lie near y = 0.5 */
  double d5[5] = {INFINITY, INFINITY, INFINITY, INFINITY, INFINITY};
  for (uint32_t a = 0; a < n - 1; ++a) {
    double dist = hypot(known[2 * a] + 1.0, known[2 * a + 1] - 500.0);
    for (int m = 0; m < 5; ++m)
      if (dist < d5[m]) {
        for (int s = 4; s > m; --s) d5[s] = d5[s - 1];
        d5[m] = dist;
        break;
      }
  }
  fifth = d5[4];
  CHECK_MSG(without < 20.0f, "the flock alone asks %g m", without);
  CHECK_MSG(with >= fifth - depth[n - 1] && with < 2.0 * fifth, "with the lone agent: %g m (5th nearest at %g m)", with,
            fifth);
}

static void knn_halo_width_too_few_known_is_infinite(void) {
  float known[8] = {0, 0, 1, 0, 0, 1, 1, 1}, depth[4] = {1, 1, 1, 1};
  CHECK(herd_knn_halo_width(known, 4, 4, 2, 2, depth, 4, 1.0f, 0.0f) == INFINITY); /* 3 others, 4 wanted */
  CHECK(isfinite(herd_knn_halo_width(known, 4, 4, 2, 2, depth, 3, 1.0f, 0.0f)));
  CHECK(herd_knn_halo_width(known, 4, 0, 2, 2, depth, 4, 1.0f, 0.0f) == 0.0f); /* no local agents: nothing */
}

int main(void) { TEST_MAIN(TESTS); }
