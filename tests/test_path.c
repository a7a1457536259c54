/* kernels/path.h: the Bezier path, its closest point against brute force, the target vector,
 * the sphere obstacles and the end measure (docs/models/path.md). References are computed in
 * double from the same float control points. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "path.h"
#include "test.h"

#define TESTS(X)                          \
  X(build_rejects_bad_input)              \
  X(bezier_matches_bernstein_and_ends)    \
  X(derivatives_match_finite_differences) \
  X(closest_matches_brute_force_2d)       \
  X(closest_matches_brute_force_3d)       \
  X(closest_on_cusp_and_loop)             \
  X(target_direction_and_scale)           \
  X(target_clamped_at_end)                \
  X(sphere_push)                          \
  X(sphere_project)                       \
  X(arc_length_and_end_measure)
TESTS(DECLARE_TEST)

/* The stated tolerances (docs/models/path.md). */
#define TOL_DIST_M 1e-4 /* distance found minus the exact distance, coordinates within 80 m */
#define TOL_T 1e-5      /* parameter, where the closest point is unique and well conditioned */
#define BRUTE_SAMPLES 100000

/* ---- Paths -------------------------------------------------------------------------------- */

typedef struct path_def {
  const char *name;
  unsigned n;
  float xyz[3 * HERD_PATH_MAX_POINTS];
} path_def;

/* seed 004's 2D path: pts = {{-45,-45},{-30,20},{20,-30},{35,35}} in a 100 x 100 field. */
static const path_def doc2d = {"doc 2D", 4, {-45, -45, 0, -30, 20, 0, 20, -30, 0, 35, 35, 0}};
/* The 3D default (ours: seed 004's 3D points are lost): the 2D one lifted through z. */
static const path_def doc3d = {"3D default", 4, {-45, -45, -40, -30, 20, 40, 20, -30, -40, 35, 35, 40}};
/* B'(1/2) = 0: A + 2B + C = 0 for the control polygon's legs A, B, C. */
static const path_def cusp = {"cusp", 4, {-40, 0, 0, 40, 60, 0, -40, 60, 0, 40, 0, 0}};
/* The same kind of cusp between table samples, near t = 0.4237 (legs A = (74.4, 32.4),
 * B = (-80, 0), C = (80, -60), rounded: a turn so sharp that B' nearly vanishes). */
static const path_def cusp_off = {"cusp off", 4, {-40, 0, 0, 34.4f, 32.4f, 0, -45.6f, 32.4f, 0, 34.4f, -27.6f, 0}};
/* Crosses itself: a loop, so far parts of the curve come close. */
static const path_def loop = {"loop", 4, {-40, 0, 0, 80, 70, 0, -80, 70, 0, 40, 0, 0}};
/* Degree 7 in 3D, with a repeated first control point (B'(0) = 0). */
static const path_def wiggle = {"degree 7", 8, {-40, -40, 0,  -40, -40, 0,   -10, 40, 30, 10, -40, -30,
                                                30,  40,  20, 40,  -20, -10, 0,   0,  40, 45, 45,  0}};

static float *build(const path_def *d, unsigned intervals) {
  float *path = malloc(sizeof(float) * herd_path_floats(d->n, intervals));
  CHECK(path != NULL && herd_path_build(path, d->xyz, d->n, intervals) == 0);
  return path;
}

/* ---- Double-precision reference ----------------------------------------------------------- */

typedef struct dvec {
  double x, y, z;
} dvec;

static dvec dv(double x, double y, double z) { return (dvec){x, y, z}; }
static dvec dsub(dvec a, dvec b) { return dv(a.x - b.x, a.y - b.y, a.z - b.z); }
static dvec dadd(dvec a, dvec b) { return dv(a.x + b.x, a.y + b.y, a.z + b.z); }
static dvec dscale(dvec a, double s) { return dv(a.x * s, a.y * s, a.z * s); }
static double ddot(dvec a, dvec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static double dlen(dvec a) { return sqrt(ddot(a, a)); }
static dvec dunit(dvec a) { return dscale(a, 1.0 / dlen(a)); }
static dvec from3(herd_vec3 v) { return dv(v.x, v.y, v.z); }

/* B, B', B'' in double by the explicit Bernstein sums. */
static void ref_eval(const path_def *d, double t, dvec *b, dvec *d1, dvec *d2) {
  unsigned m = d->n - 1;
  dvec sb = dv(0, 0, 0), s1 = sb, s2 = sb;
  for (unsigned i = 0; i <= m; ++i) {
    double c = 1;
    for (unsigned k = 0; k < i; ++k) c = c * (m - k) / (k + 1);
    dvec p = dv(d->xyz[3 * i], d->xyz[3 * i + 1], d->xyz[3 * i + 2]);
    double basis = c * pow(t, i) * pow(1 - t, m - i);
    /* d/dt t^i (1-t)^(m-i) and the second derivative, written out. */
    double a1 = (i >= 1 ? i * pow(t, i - 1.0) * pow(1 - t, m - i) : 0) -
                (m - i >= 1 ? (m - i) * pow(t, i) * pow(1 - t, m - i - 1.0) : 0);
    double a2 = (i >= 2 ? i * (i - 1.0) * pow(t, i - 2.0) * pow(1 - t, m - i) : 0) -
                (i >= 1 && m - i >= 1 ? 2.0 * i * (m - i) * pow(t, i - 1.0) * pow(1 - t, m - i - 1.0) : 0) +
                (m - i >= 2 ? (m - i) * (m - i - 1.0) * pow(t, i) * pow(1 - t, m - i - 2.0) : 0);
    sb = dadd(sb, dscale(p, basis));
    s1 = dadd(s1, dscale(p, c * a1));
    s2 = dadd(s2, dscale(p, c * a2));
  }
  if (b) *b = sb;
  if (d1) *d1 = s1;
  if (d2) *d2 = s2;
}

static dvec ref_point(const path_def *d, double t) {
  dvec b;
  ref_eval(d, t, &b, NULL, NULL);
  return b;
}

/* A dense table of B at BRUTE_SAMPLES + 1 parameters. */
static dvec *ref_table(const path_def *d) {
  dvec *s = malloc(sizeof(dvec) * (BRUTE_SAMPLES + 1));
  for (int i = 0; i <= BRUTE_SAMPLES; ++i) s[i] = ref_point(d, (double)i / BRUTE_SAMPLES);
  return s;
}

static double dist2_at(const path_def *d, dvec p, double t) {
  dvec r = dsub(ref_point(d, t), p);
  return ddot(r, r);
}

/* Golden-section search of |B - p|^2 on [a, b]. */
static double golden(const path_def *d, dvec p, double a, double b) {
  const double g = 0.6180339887498949;
  double c = b - g * (b - a), e = a + g * (b - a), fc = dist2_at(d, p, c), fe = dist2_at(d, p, e);
  for (int i = 0; i < 60; ++i) {
    if (fc < fe)
      b = e, e = c, fe = fc, c = b - g * (b - a), fc = dist2_at(d, p, c);
    else
      a = c, c = e, fc = fe, e = a + g * (b - a), fe = dist2_at(d, p, e);
  }
  double t = 0.5 * (a + b);
  /* The ends themselves, where the minimum sits on t = 0 or 1. */
  if (a == 0.0 && dist2_at(d, p, 0.0) <= dist2_at(d, p, t)) t = 0.0;
  if (b == 1.0 && dist2_at(d, p, 1.0) <= dist2_at(d, p, t)) t = 1.0;
  return t;
}

typedef struct ref_hit {
  double t, dist, second; /* the closest point; the distance of the next local minimum */
} ref_hit;

/* Brute force: every local minimum of the dense samples, each refined in its two intervals. */
static ref_hit ref_closest(const path_def *d, const dvec *s, dvec p) {
  ref_hit h = {0, INFINITY, INFINITY};
  double prev = INFINITY, cur = ddot(dsub(s[0], p), dsub(s[0], p));
  for (int i = 0; i <= BRUTE_SAMPLES; ++i) {
    double next = i < BRUTE_SAMPLES ? ddot(dsub(s[i + 1], p), dsub(s[i + 1], p)) : INFINITY;
    if (cur <= prev && cur <= next) {
      double a = i > 0 ? (double)(i - 1) / BRUTE_SAMPLES : 0,
             b = i < BRUTE_SAMPLES ? (double)(i + 1) / BRUTE_SAMPLES : 1;
      double t = golden(d, p, a, b), dist = sqrt(dist2_at(d, p, t));
      if (dist < h.dist) {
        if (fabs(t - h.t) > 3.0 / BRUTE_SAMPLES) h.second = h.dist;
        h.t = t, h.dist = dist;
      } else if (dist < h.second && fabs(t - h.t) > 3.0 / BRUTE_SAMPLES) {
        h.second = dist;
      }
    }
    prev = cur, cur = next;
  }
  return h;
}

/* 1 + (B - p).B''/|B'|^2 at t: the curvature of |B - p|^2 relative to a straight path. Near 0
 * p sits at a centre of curvature and the closest parameter is ill-conditioned. */
static double conditioning(const path_def *d, dvec p, double t) {
  dvec b, d1, d2;
  ref_eval(d, t, &b, &d1, &d2);
  double v2 = ddot(d1, d1);
  return v2 > 0 ? 1 + ddot(dsub(b, p), d2) / v2 : 0;
}

/* A centre of curvature at t (where the distance function is flattest), for the test points. */
static dvec centre_of_curvature(const path_def *d, double t) {
  dvec b, d1, d2;
  ref_eval(d, t, &b, &d1, &d2);
  double v2 = ddot(d1, d1);
  dvec perp = dsub(d2, dscale(d1, ddot(d2, d1) / v2));
  double k2 = ddot(perp, perp);
  if (!(k2 > 1e-12)) return b;
  return dadd(b, dscale(perp, v2 / k2));
}

static double rnd(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(*s >> 11) / 9007199254740992.0;
}

/* ---- Closest point against brute force ---------------------------------------------------- */

typedef struct closest_stats {
  double worst_excess, worst_reported, worst_t;
  int points, unique;
} closest_stats;

/* Float rounding grows with the coordinates: the distance tolerance is TOL_DIST_M times this,
 * the size of the test world over 80 m. */
static double world_scale = 1;

/* Checks one point; the worst figures go to st. */
static void check_closest(const path_def *d, const float *path, const dvec *table, dvec p, closest_stats *st) {
  herd_path_hit hit = herd_path_closest(path, herd_v3((float)p.x, (float)p.y, (float)p.z));
  ref_hit ref = ref_closest(d, table, p);
  double at = dlen(dsub(ref_point(d, hit.t), p)); /* the exact distance of the point found */
  double excess = at - ref.dist, reported = fabs(hit.dist_m - at);
  CHECK_MSG(hit.t >= 0.0f && hit.t <= 1.0f, "%s: t %g", d->name, hit.t);
  double tol = TOL_DIST_M * world_scale;
  CHECK_MSG(excess <= tol, "%s: p (%g, %g, %g): distance %.7g, exact %.7g at t %.7g (found t %.7g)", d->name, p.x, p.y,
            p.z, at, ref.dist, ref.t, hit.t);
  CHECK_MSG(reported <= tol, "%s: reported %.7g, at its t %.7g", d->name, hit.dist_m, at);
  CHECK(dlen(dsub(from3(hit.point), ref_point(d, hit.t))) <= tol);
  st->worst_excess = fmax(st->worst_excess, excess);
  st->worst_reported = fmax(st->worst_reported, reported);
  ++st->points;
  /* The parameter, where it is well defined: no rival minimum within 1 cm, not near a centre of
   * curvature, and the curve moving (|B'| at least 1 % of the path's length S per unit t: not
   * at a cusp or a repeated control point). */
  dvec d1;
  ref_eval(d, ref.t, NULL, &d1, NULL);
  if (ref.second - ref.dist > 0.01 && conditioning(d, p, ref.t) > 0.1 && dlen(d1) >= 0.01 * herd_path_length(path)) {
    double dt = fabs(hit.t - ref.t);
    CHECK_MSG(dt <= TOL_T, "%s: p (%g, %g, %g): t %.8g, exact %.8g", d->name, p.x, p.y, p.z, hit.t, ref.t);
    st->worst_t = fmax(st->worst_t, dt);
    ++st->unique;
  }
}

/* Random points in a box 1.6 times the field (centred on `mid`, 80 m times world_scale each
 * way), points on the curve, beyond both ends, at the control points and at centres of
 * curvature. */
static closest_stats closest_run(const path_def *d, int randoms, uint64_t seed, dvec mid) {
  double w = world_scale;
  float *path = build(d, HERD_PATH_INTERVALS);
  dvec *table = ref_table(d);
  closest_stats st = {0, 0, 0, 0, 0};
  int dims = d->xyz[2] == 0 && d->xyz[5] == 0 && d->xyz[8] == 0 && d->xyz[11] == 0 ? 2 : 3;
  uint64_t s = seed;
  for (int i = 0; i < randoms; ++i) {
    dvec p = dadd(mid, dscale(dv(160 * rnd(&s) - 80, 160 * rnd(&s) - 80, dims == 3 ? 160 * rnd(&s) - 80 : 0), w));
    check_closest(d, path, table, p, &st);
  }
  for (int i = 0; i < randoms / 10; ++i) {
    double t = rnd(&s);
    dvec b, d1;
    ref_eval(d, t, &b, &d1, NULL);
    check_closest(d, path, table, b, &st); /* on the curve */
    dvec c = centre_of_curvature(d, t);
    if (dlen(dsub(c, b)) > 150 * w) continue; /* nearly straight there: the centre is far out */
    check_closest(d, path, table, c, &st);
    dvec jitter = dv(rnd(&s) - 0.5, rnd(&s) - 0.5, dims == 3 ? rnd(&s) - 0.5 : 0);
    check_closest(d, path, table, dadd(c, dscale(jitter, w)), &st);
  }
  for (int e = 0; e < 2; ++e) {
    dvec b, d1;
    ref_eval(d, e, &b, &d1, NULL);
    if (dlen(d1) == 0) ref_eval(d, e ? 0.999 : 0.001, NULL, &d1, NULL);
    dvec out = dscale(dunit(d1), e ? 1 : -1);
    for (int k = 0; k < 20; ++k) {
      dvec side = dv(rnd(&s) - 0.5, rnd(&s) - 0.5, dims == 3 ? rnd(&s) - 0.5 : 0);
      check_closest(d, path, table, dadd(b, dscale(dadd(dscale(out, 0.5 + 3 * k), dscale(side, k)), w)), &st);
    }
  }
  for (unsigned i = 0; i < d->n; ++i)
    check_closest(d, path, table, dv(d->xyz[3 * i], d->xyz[3 * i + 1], d->xyz[3 * i + 2]), &st);
  printf(
      "  %-10s %5d points: worst distance excess %.2e m, reported distance error %.2e m, "
      "worst |t - t_exact| %.2e over %d unique\n",
      d->name, st.points, st.worst_excess, st.worst_reported, st.worst_t, st.unique);
  free(table);
  free(path);
  return st;
}

static void closest_matches_brute_force_2d(void) {
  closest_stats st = closest_run(&doc2d, 1500, 1, dv(0, 0, 0));
  CHECK(st.unique > st.points / 2);
  /* The same path in a 640 m world (x 6.4 about (320, 320), as boids2d's field): float
   * rounding, and so the tolerance, grows with the coordinates. */
  path_def big = doc2d;
  big.name = "doc 2D x6.4";
  for (int i = 0; i < 4; ++i) {
    big.xyz[3 * i] = 320 + 6.4f * doc2d.xyz[3 * i];
    big.xyz[3 * i + 1] = 320 + 6.4f * doc2d.xyz[3 * i + 1];
  }
  world_scale = 6.4;
  closest_run(&big, 500, 8, dv(320, 320, 0));
  world_scale = 1;
}

static void closest_matches_brute_force_3d(void) {
  closest_run(&doc3d, 1000, 2, dv(0, 0, 0));
  closest_run(&wiggle, 600, 3, dv(0, 0, 0));
}

static void closest_on_cusp_and_loop(void) {
  closest_run(&cusp, 800, 4, dv(0, 0, 0));
  closest_run(&cusp_off, 400, 5, dv(0, 0, 0));
  closest_run(&loop, 800, 6, dv(0, 0, 0));
  /* Around the tips of the cusps, B(1/2) (a table sample) and B(0.4237) (between two). */
  const path_def *defs[] = {&cusp, &cusp_off};
  const double tips[] = {0.5, 0.4237};
  uint64_t s = 7;
  for (int k = 0; k < 2; ++k) {
    float *path = build(defs[k], HERD_PATH_INTERVALS);
    dvec *table = ref_table(defs[k]);
    closest_stats st = {0, 0, 0, 0, 0};
    dvec tip = ref_point(defs[k], tips[k]);
    for (int i = 0; i < 300; ++i) {
      double r = i < 150 ? 0.05 : 2; /* half of them within 5 cm of the tip */
      check_closest(defs[k], path, table, dadd(tip, dv(r * (2 * rnd(&s) - 1), r * (2 * rnd(&s) - 1), 0)), &st);
    }
    printf("  %-10s %5d points around the tip: worst distance excess %.2e m\n", defs[k]->name, st.points,
           st.worst_excess);
    free(table);
    free(path);
  }
}

/* ---- Building and evaluating ---------------------------------------------------------------- */

static void build_rejects_bad_input(void) {
  float out[4096], xyz[3 * 17] = {0};
  CHECK(herd_path_floats(4, 100) == 8 + 16 + 8 * 101 + 4 * 10);
  CHECK(herd_path_build(out, xyz, 0, 10) == 1);
  CHECK(herd_path_build(out, xyz, 17, 10) == 1);
  CHECK(herd_path_build(out, xyz, 4, 0) == 1);
  CHECK(herd_path_build(out, xyz, 4, 5000) == 1);
  xyz[4] = NAN;
  CHECK(herd_path_build(out, xyz, 4, 10) == 1);
  xyz[4] = INFINITY;
  CHECK(herd_path_build(out, xyz, 4, 10) == 1);
  xyz[4] = 1;
  CHECK(herd_path_build(out, xyz, 4, 10) == 0);
  CHECK(herd_path_points(out) == 4 && herd_path_intervals(out) == 10);
  /* One point: a path of length 0 that every query reaches at that point. */
  float one[3] = {5, 6, 7}, *path = malloc(sizeof(float) * herd_path_floats(1, 8));
  CHECK(herd_path_build(path, one, 1, 8) == 0);
  CHECK(herd_path_length(path) == 0.0f);
  herd_vec3 v = herd_path_target(path, herd_v3(1, 2, 3), 1.0f);
  CHECK(fabs(v.x - 4) < 1e-5 && fabs(v.y - 4) < 1e-5 && fabs(v.z - 4) < 1e-5);
  free(path);
}

static void bezier_matches_bernstein_and_ends(void) {
  const path_def *defs[] = {&doc2d, &doc3d, &cusp, &wiggle};
  for (int i = 0; i < 4; ++i) {
    const path_def *d = defs[i];
    float *path = build(d, HERD_PATH_INTERVALS);
    unsigned m = d->n - 1;
    herd_path_jet j0 = herd_path_eval(path, 0.0f), j1 = herd_path_eval(path, 1.0f);
    /* The ends are the first and last control points exactly; B'(0) = m (P1 - P0). */
    CHECK(j0.b.x == d->xyz[0] && j0.b.y == d->xyz[1] && j0.b.z == d->xyz[2]);
    CHECK(j1.b.x == d->xyz[3 * m] && j1.b.y == d->xyz[3 * m + 1] && j1.b.z == d->xyz[3 * m + 2]);
    dvec e0 = dscale(dv(d->xyz[3] - d->xyz[0], d->xyz[4] - d->xyz[1], d->xyz[5] - d->xyz[2]), m);
    dvec e1 = dscale(dv(d->xyz[3 * m] - d->xyz[3 * m - 3], d->xyz[3 * m + 1] - d->xyz[3 * m - 2],
                        d->xyz[3 * m + 2] - d->xyz[3 * m - 1]),
                     m);
    CHECK(dlen(dsub(from3(j0.d1), e0)) <= 1e-4 && dlen(dsub(from3(j1.d1), e1)) <= 1e-4);
    /* Inside: the Bernstein sums in double. */
    for (int k = 0; k <= 1000; ++k) {
      double t = k / 1000.0;
      dvec b, d1, d2;
      ref_eval(d, (float)t, &b, &d1, &d2);
      herd_path_jet j = herd_path_eval(path, (float)t);
      CHECK_MSG(dlen(dsub(from3(j.b), b)) <= 2.4e-7 * m * 50, "%s t %g", d->name, t); /* 2 ulp of 50 per level */
      CHECK_MSG(dlen(dsub(from3(j.d1), d1)) <= 1e-5 * (1 + dlen(d1)) * m, "%s t %g", d->name, t);
      CHECK_MSG(dlen(dsub(from3(j.d2), d2)) <= 1e-5 * (1 + dlen(d2)) * m * m, "%s t %g", d->name, t);
    }
    /* The sample table holds B and B' at t_k = k/K, and cumulative arc length. */
    for (unsigned k = 0; k <= HERD_PATH_INTERVALS; ++k) {
      const float *r = herd_path_record(path, k);
      herd_path_jet j = herd_path_eval(path, herd_path_t_at(path, k));
      CHECK(r[0] == j.b.x && r[1] == j.b.y && r[2] == j.b.z && r[4] == j.d1.x);
      CHECK(k == 0 || r[3] >= (r - HERD_PATH_RECORD)[3]);
    }
    CHECK(herd_path_t_at(path, HERD_PATH_INTERVALS) == 1.0f);
    free(path);
  }
}

static void derivatives_match_finite_differences(void) {
  const path_def *defs[] = {&doc2d, &doc3d, &wiggle};
  uint64_t s = 11;
  for (int i = 0; i < 3; ++i) {
    float *path = build(defs[i], HERD_PATH_INTERVALS);
    for (int k = 0; k < 200; ++k) {
      float t = 0.002f + 0.996f * (float)rnd(&s), h = 1e-3f;
      herd_path_jet j = herd_path_eval(path, t), a = herd_path_eval(path, t - h), b = herd_path_eval(path, t + h);
      /* Central differences: O(h^2) truncation plus float noise of ~1e-5 m / h. */
      dvec fd1 = dscale(dsub(from3(b.b), from3(a.b)), 1.0 / (double)((t + h) - (t - h)));
      dvec fd2 = dscale(dsub(from3(b.d1), from3(a.d1)), 1.0 / (double)((t + h) - (t - h)));
      CHECK_MSG(dlen(dsub(fd1, from3(j.d1))) <= 0.05 + 1e-4 * dlen(fd1), "%s t %g: B' %g vs %g", defs[i]->name, t,
                dlen(from3(j.d1)), dlen(fd1));
      CHECK_MSG(dlen(dsub(fd2, from3(j.d2))) <= 0.5 + 1e-3 * dlen(fd2), "%s t %g", defs[i]->name, t);
      /* The unit tangent is B'/|B'|. */
      herd_vec3 tan = herd_path_tangent(path, t);
      CHECK(fabs(dlen(from3(tan)) - 1) < 1e-6 && ddot(from3(tan), dunit(fd1)) > 1 - 1e-6);
    }
    free(path);
  }
  /* Where B' = 0 the tangent is seed 004's forward difference: at the repeated first point. */
  float *path = build(&wiggle, HERD_PATH_INTERVALS);
  herd_vec3 tan = herd_path_tangent(path, 0.0f);
  dvec fd = dunit(dsub(ref_point(&wiggle, 0.001), ref_point(&wiggle, 0)));
  CHECK(ddot(from3(tan), fd) > 1 - 1e-4);
  free(path);
}

/* ---- The target vector ---------------------------------------------------------------------- */

static int near3(herd_vec3 a, double x, double y, double z, double tol) {
  return fabs(a.x - x) <= tol && fabs(a.y - y) <= tol && fabs(a.z - z) <= tol;
}

static void target_direction_and_scale(void) {
  /* A straight path along x from 0 to 100: at p = (30, 5) the closest point is (30, 0), the
   * target point (30 + L, 0), and v = 5 unit((L, -5)). */
  path_def line = {"line", 2, {0, 0, 0, 100, 0, 0}};
  float *path = build(&line, HERD_PATH_INTERVALS);
  herd_vec3 v = herd_path_target(path, herd_v3(30, 5, 0), 1.0f);
  CHECK(near3(v, 5 / sqrt(26), -25 / sqrt(26), 0, 1e-5));
  v = herd_path_target(path, herd_v3(30, 5, 0), 2.0f);
  CHECK(near3(v, 10 / sqrt(29), -25 / sqrt(29), 0, 1e-5));
  v = herd_path_target(path, herd_v3(30, -40, 0), 1.0f); /* far away: pulled harder */
  CHECK(near3(v, 40 / sqrt(1601), 1600 / sqrt(1601), 0, 1e-4));
  v = herd_path_target(path, herd_v3(30, 0, 0), 1.0f); /* on the path: zero */
  CHECK(near3(v, 0, 0, 0, 1e-5));
  /* Before the start: toward B(0) + L T(0). */
  v = herd_path_target(path, herd_v3(-10, 0, 0), 1.0f);
  CHECK(near3(v, 10, 0, 0, 1e-4));
  free(path);

  /* The curved paths, against the double reference where the closest point is unique. */
  const path_def *defs[] = {&doc2d, &doc3d};
  uint64_t s = 21;
  for (int i = 0; i < 2; ++i) {
    const path_def *d = defs[i];
    float *p2 = build(d, HERD_PATH_INTERVALS);
    dvec *table = ref_table(d);
    int checked = 0;
    for (int k = 0; k < 300; ++k) {
      dvec p = dv(120 * rnd(&s) - 60, 120 * rnd(&s) - 60, i ? 120 * rnd(&s) - 60 : 0);
      ref_hit ref = ref_closest(d, table, p);
      if (!(ref.second - ref.dist > 0.01 && conditioning(d, p, ref.t) > 0.1 && ref.t < 0.9)) continue;
      dvec b, d1;
      ref_eval(d, ref.t, &b, &d1, NULL);
      dvec goal = dadd(b, dunit(d1)); /* L = 1, far from the end */
      dvec want = dscale(dunit(dsub(goal, p)), ref.dist);
      herd_vec3 got = herd_path_target(p2, herd_v3((float)p.x, (float)p.y, (float)p.z), 1.0f);
      CHECK_MSG(dlen(dsub(from3(got), want)) <= 1e-4 * (1 + ref.dist), "%s p (%g, %g, %g)", d->name, p.x, p.y, p.z);
      CHECK(fabs(dlen(from3(got)) - ref.dist) <= 1e-4 * (1 + ref.dist));
      ++checked;
    }
    CHECK(checked > 150);
    free(table);
    free(p2);
  }
}

static void target_clamped_at_end(void) {
  path_def line = {"line", 2, {0, 0, 0, 100, 0, 0}};
  float *path = build(&line, HERD_PATH_INTERVALS);
  /* Half a metre before the end the look-ahead is cut to the half metre left. */
  herd_vec3 v = herd_path_target(path, herd_v3(99.5f, 3, 0), 1.0f);
  CHECK(near3(v, 3 * 0.5 / sqrt(9.25), -9 / sqrt(9.25), 0, 1e-4));
  /* Past the end: straight to B(1), v = B(1) - p. */
  v = herd_path_target(path, herd_v3(120, 7, 0), 1.0f);
  CHECK(near3(v, -20, -7, 0, 1e-4));
  free(path);

  const path_def *defs[] = {&doc2d, &doc3d};
  uint64_t s = 31;
  for (int i = 0; i < 2; ++i) {
    const path_def *d = defs[i];
    float *p2 = build(d, HERD_PATH_INTERVALS);
    dvec end, d1;
    ref_eval(d, 1.0, &end, &d1, NULL);
    dvec out = dunit(d1);
    for (int k = 0; k < 20; ++k) {
      /* Points whose closest point is B(1): ahead of the end, off to the side. */
      dvec side = dv(rnd(&s) - 0.5, rnd(&s) - 0.5, i ? rnd(&s) - 0.5 : 0);
      side = dsub(side, dscale(out, ddot(side, out)));
      dvec p = dadd(end, dadd(dscale(out, 1 + 30 * rnd(&s)), dscale(side, 20 * rnd(&s))));
      herd_vec3 pf = herd_v3((float)p.x, (float)p.y, (float)p.z);
      herd_path_hit hit = herd_path_closest(p2, pf);
      CHECK(hit.t == 1.0f);
      v = herd_path_target_from(p2, hit, pf, 1.0f);
      CHECK_MSG(dlen(dsub(from3(v), dsub(end, from3(pf)))) <= 1e-4 * (1 + dlen(dsub(end, p))), "%s", d->name);
      /* Following the field gathers the flock at B(1). */
      for (int it = 0; it < 200; ++it) pf = herd_v3_madd(pf, 0.25f, herd_path_target(p2, pf, 1.0f));
      CHECK(dlen(dsub(from3(pf), end)) < 1e-3);
    }
    /* Near the end the target point never passes B(1): it is at most the arc left ahead. */
    for (int k = 0; k < 200; ++k) {
      dvec b = ref_point(d, 0.97 + 0.03 * rnd(&s));
      herd_vec3 pf = herd_v3((float)b.x + 3 * (float)rnd(&s), (float)b.y + 3 * (float)rnd(&s), (float)b.z);
      herd_path_hit hit = herd_path_closest(p2, pf);
      herd_vec3 goal = herd_path_goal(p2, hit, 1.0f);
      double left = herd_path_length(p2) - herd_path_arc_at(p2, hit);
      CHECK(dlen(dsub(from3(goal), from3(hit.point))) <= fmin(1.0, left) + 1e-4);
    }
    free(p2);
  }
}

/* ---- Spheres -------------------------------------------------------------------------------- */

static void sphere_push(void) {
  uint64_t s = 41;
  herd_vec3 c = herd_v3(10, -5, 3);
  float r = 4, margin = 2;
  for (int k = 0; k < 2000; ++k) {
    dvec dir = dunit(dv(rnd(&s) - 0.5, rnd(&s) - 0.5, rnd(&s) - 0.5));
    double dist = 10 * rnd(&s);
    herd_vec3 p = herd_v3((float)(c.x + dist * dir.x), (float)(c.y + dist * dir.y), (float)(c.z + dist * dir.z));
    double real = dlen(dsub(from3(p), from3(c)));
    herd_vec3 v = herd_sphere_push(c, r, margin, p);
    double w = fmin(1, fmax(0, 1 - (real - r) / margin));
    if (real >= r + margin + 1e-5) CHECK(v.x == 0 && v.y == 0 && v.z == 0); /* zero outside the margin */
    CHECK(fabs(dlen(from3(v)) - w) <= 1e-5);                                /* linear strength */
    if (w > 1e-3) CHECK(ddot(from3(v), dunit(dsub(from3(p), from3(c)))) >= w * (1 - 1e-5)); /* outward */
  }
  CHECK(near3(herd_sphere_push(c, r, margin, herd_v3(10, -5, 3 + 4)), 0, 0, 1, 1e-6)); /* on the surface: 1 */
  CHECK(near3(herd_sphere_push(c, r, margin, herd_v3(10, -5, 3 + 5)), 0, 0, 0.5, 1e-6));
  CHECK(near3(herd_sphere_push(c, r, margin, herd_v3(10, -5, 3 + 6)), 0, 0, 0, 0));
  CHECK(near3(herd_sphere_push(c, r, margin, c), 1, 0, 0, 0)); /* the centre: +x */
  CHECK(near3(herd_sphere_push(c, r, 0, herd_v3(10, -5, 3 + 3.9f)), 0, 0, 1, 1e-6));
  CHECK(near3(herd_sphere_push(c, r, 0, herd_v3(10, -5, 3 + 4.1f)), 0, 0, 0, 0));
}

static void sphere_project(void) {
  uint64_t s = 51;
  const float centres[4][4] = {{0, 0, 0, 1}, {10, -5, 3, 4}, {1000, 2000, -3000, 0.5f}, {50, 50, 0, 20}};
  int moved = 0;
  for (int c = 0; c < 4; ++c) {
    herd_vec3 centre = herd_v3(centres[c][0], centres[c][1], centres[c][2]);
    float r = centres[c][3];
    for (int k = 0; k < 3000; ++k) {
      dvec dir = dunit(dv(rnd(&s) - 0.5, rnd(&s) - 0.5, c == 3 ? 0 : rnd(&s) - 0.5));
      double dist = r * (k % 3 == 0 ? rnd(&s) : (k % 3 == 1 ? 1 - 1e-6 * rnd(&s) : 1 + rnd(&s)));
      herd_vec3 p =
          herd_v3(centre.x + (float)(dist * dir.x), centre.y + (float)(dist * dir.y), centre.z + (float)(dist * dir.z));
      herd_vec3 q = herd_sphere_project(centre, r, p);
      CHECK(!herd_sphere_contains(centre, r, q)); /* never inside */
      if (!herd_sphere_contains(centre, r, p)) {
        CHECK(q.x == p.x && q.y == p.y && q.z == p.z); /* outside: untouched */
        continue;
      }
      ++moved;
      double at = dlen(dsub(from3(q), from3(centre)));
      double ulp = 1.2e-7 * (fabs(centre.x) + fabs(centre.y) + fabs(centre.z) + r);
      CHECK_MSG(fabs(at - r) <= 8 * ulp, "r %g: at %.9g", r, at); /* on the surface */
      dvec out = dsub(from3(p), from3(centre));
      if (dlen(out) > 1e-3 * r) CHECK(ddot(dunit(dsub(from3(q), from3(centre))), dunit(out)) > 1 - 1e-5);
    }
    herd_vec3 q = herd_sphere_project(centre, r, centre);
    CHECK(!herd_sphere_contains(centre, r, q) && fabs(q.x - centre.x - r) <= 1e-6 * (1 + fabs(centre.x)) * 8);
  }
  CHECK(moved > 5000);
}

/* ---- Arc length and the 5 % end measure ------------------------------------------------------ */

static void arc_length_and_end_measure(void) {
  const path_def *d = &doc2d;
  float *path = build(d, HERD_PATH_INTERVALS);
  /* Arc length by 10^6 chords in double. */
  enum { N = 1000000 };
  double *s = malloc(sizeof(double) * (N + 1));
  s[0] = 0;
  dvec prev = ref_point(d, 0);
  for (int i = 1; i <= N; ++i) {
    dvec b = ref_point(d, (double)i / N);
    s[i] = s[i - 1] + dlen(dsub(b, prev));
    prev = b;
  }
  double total = s[N];
  CHECK_MSG(fabs(herd_path_length(path) - total) <= 1e-5 * total, "S %.7g, exact %.7g", herd_path_length(path), total);
  uint64_t r = 61;
  for (int k = 0; k < 500; ++k) {
    double t = rnd(&r);
    herd_path_hit hit = herd_path_closest(path, herd_v3((float)ref_point(d, t).x, (float)ref_point(d, t).y, 0));
    double want = s[(int)floor(hit.t * (double)N + 0.5)];
    CHECK_MSG(fabs(herd_path_arc_at(path, hit) - want) <= 1e-3, "s(%g) %.7g, exact %.7g", hit.t,
              herd_path_arc_at(path, hit), want);
  }
  /* Points 2 m off the path (on the convex side) at arc fractions around 0.95. */
  const double fractions[] = {0.5, 0.9, 0.93, 0.94, 0.945, 0.949, 0.951, 0.955, 0.96, 0.97, 0.99, 1.0};
  int by_parameter_disagrees = 0;
  for (unsigned k = 0; k < sizeof fractions / sizeof fractions[0]; ++k) {
    int i = 0;
    while (i < N && s[i] < fractions[k] * total) ++i;
    double t = (double)i / N;
    dvec b, d1;
    ref_eval(d, t, &b, &d1, NULL);
    dvec normal = dunit(dv(d1.y, -d1.x, 0));
    dvec p = dadd(b, dscale(normal, 2));
    herd_path_hit hit = herd_path_closest(path, herd_v3((float)p.x, (float)p.y, 0));
    CHECK_MSG(fabs(hit.t - t) < 1e-4, "fraction %g: t %g, expected %g", fractions[k], hit.t, t);
    CHECK_MSG(herd_path_near_end(path, hit, 0.05f) == (fractions[k] >= 0.95), "fraction %g (t %g)", fractions[k], t);
    by_parameter_disagrees += (t >= 0.95) != (fractions[k] >= 0.95);
  }
  CHECK(by_parameter_disagrees > 0); /* the test tells arc length from parameter */
  /* Beyond the end: in; before the start: out. */
  CHECK(herd_path_near_end(path, herd_path_closest(path, herd_v3(60, 60, 0)), 0.05f) == 1);
  CHECK(herd_path_near_end(path, herd_path_closest(path, herd_v3(-60, -60, 0)), 0.05f) == 0);
  CHECK(fabs(herd_path_distance(path, herd_v3(-60, -60, 0)) - 15 * sqrt(2.0)) < 1e-4);
  free(s);
  free(path);
}

int main(void) { TEST_MAIN(TESTS); }
