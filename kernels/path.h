/* Vector-field path following after seed 004 (R. Gupta 2024, "Simulating the flocking behavior
 * of boids within a parametrically defined vector field"), in 2D and 3D: a Bezier path, the
 * closest point on it, the target vector that pulls an agent onto the path and along it, and
 * sphere obstacles. Pure functions over one flat float array; no globals, float only.
 * Equations, sources and tolerances: docs/models/path.md.
 *
 *   B(t)   = sum_i C(m,i) (1-t)^(m-i) t^i P_i,  one Bezier of degree m = n-1, t in [0,1]
 *   t*(p)  = argmin_t |B(t) - p|,  d(p) = |B(t*) - p|          (table bracket + Newton)
 *   T(t)   = B'(t) / |B'(t)|
 *   g(p)   = B(t*) + min(L, s_end(t*)) T(t*)                   (s_end: arc length still ahead)
 *   v(p)   = d(p) (g(p) - p) / |g(p) - p|                      (the target vector)
 *
 * 2D paths and agents are 3D ones with z = 0. The path array (herd_path_build fills it):
 *
 *   [0..7]            header: n, K, total arc length S, bend bound e, h = 1/K, intervals per
 *                     block J, blocks G, 0
 *   [8 .. 8+4n)       control points P_i as float4 (x, y, z, 0)
 *   then K+1 records  of 8 floats, sample k at t_k = k h:
 *                     B(t_k).xyz, s_k (arc length from t = 0), B'(t_k).xyz, 1/|B(t_k+1) - B(t_k)|^2
 *   then G blocks     of 4 floats: a ball (centre xyz, radius) holding the curve over J
 *                     consecutive intervals (the last block may hold fewer)
 *
 * Counts are stored as floats (exact below 2^24). */
#ifndef HERD_KERNELS_PATH_H
#define HERD_KERNELS_PATH_H
#include "portable.h"

#define HERD_PATH_MAX_POINTS 16u      /* control points of one path: degree 15 at most */
#define HERD_PATH_MAX_INTERVALS 4096u /* table intervals K */
#define HERD_PATH_INTERVALS 100u      /* the default K: seed 004 looks t up in steps of 0.01 */
#define HERD_PATH_HEADER 8u
#define HERD_PATH_RECORD 8u
#define HERD_PATH_NEWTON_TOL 1e-5f /* Newton stops after a step in t below this ... */
#define HERD_PATH_BISECT_TOL 1e-7f /* ... bisection when the bracket is narrower than this */
#define HERD_PATH_NEWTON_ITERS 32
#define HERD_PATH_FD_STEP 1e-3f /* seed 004's finite-difference tangent step, the fallback */

/* ---- The path array ---------------------------------------------------------------------- */

/* J, the intervals per block: the integer square root of K, rounded up. */
HERD_INLINE herd_u32 herd_path_block_size(herd_u32 intervals) {
  herd_u32 j = 1u;
  while (j * j < intervals) ++j;
  return j;
}

/* Floats in the array of a path of n control points and K table intervals. */
HERD_INLINE herd_u32 herd_path_floats(herd_u32 points, herd_u32 intervals) {
  herd_u32 j = herd_path_block_size(intervals);
  return HERD_PATH_HEADER + 4u * points + HERD_PATH_RECORD * (intervals + 1u) + 4u * ((intervals + j - 1u) / j);
}

HERD_INLINE herd_u32 herd_path_points(HERD_GLOBAL const float *path) { return (herd_u32)path[0]; }
HERD_INLINE herd_u32 herd_path_intervals(HERD_GLOBAL const float *path) { return (herd_u32)path[1]; }
/* Its arc length S from B(0) to B(1). */
HERD_INLINE float herd_path_length(HERD_GLOBAL const float *path) { return path[2]; }
HERD_INLINE herd_vec3 herd_path_control(HERD_GLOBAL const float *path, herd_u32 i) {
  HERD_GLOBAL const float *q = path + HERD_PATH_HEADER + 4u * i;
  return herd_v3(q[0], q[1], q[2]);
}
/* Table record k (0..K). */
HERD_INLINE HERD_GLOBAL const float *herd_path_record(HERD_GLOBAL const float *path, herd_u32 k) {
  return path + HERD_PATH_HEADER + 4u * herd_path_points(path) + HERD_PATH_RECORD * k;
}
/* Block b's ball: centre x, y, z and radius. */
HERD_INLINE HERD_GLOBAL const float *herd_path_block(HERD_GLOBAL const float *path, herd_u32 b) {
  return herd_path_record(path, herd_path_intervals(path) + 1u) + 4u * b;
}
/* t_k = k h: the same float products in the builder and in every query. */
HERD_INLINE float herd_path_t_at(HERD_GLOBAL const float *path, herd_u32 k) {
  return k >= herd_path_intervals(path) ? 1.0f : (float)k * path[4];
}

/* ---- Evaluation: de Casteljau -------------------------------------------------------------- */

/* B(t) and its first two derivatives. */
typedef struct herd_path_jet {
  herd_vec3 b, d1, d2;
} herd_path_jet;

HERD_INLINE herd_vec3 herd_path_lerp(herd_vec3 a, herd_vec3 b, float s, float t) {
  return herd_v3(s * a.x + t * b.x, s * a.y + t * b.y, s * a.z + t * b.z);
}

/* B(t), B'(t), B''(t) for t in [0, 1] by de Casteljau's convex combinations (stable: no
 * powers, no binomials). The triangle runs down to three points Q0..Q2; then
 * B'' = m(m-1)(Q2 - 2Q1 + Q0), B' = m(R1 - R0) and B = (1-t)R0 + tR1 with R the next level. */
HERD_INLINE herd_path_jet herd_path_eval(HERD_GLOBAL const float *path, float t) {
  herd_u32 n = herd_path_points(path), i, level;
  herd_vec3 q[HERD_PATH_MAX_POINTS];
  herd_path_jet j;
  float s = 1.0f - t, m = (float)n - 1.0f;
  HERD_NO_UNROLL
  for (i = 0; i < n; ++i) q[i] = herd_path_control(path, i);
  j.d2 = herd_v3(0.0f, 0.0f, 0.0f);
  if (n < 2u) {
    j.b = q[0];
    j.d1 = j.d2;
    return j;
  }
  HERD_NO_UNROLL
  for (level = n; level > 3u; --level) HERD_NO_UNROLL
  for (i = 0; i + 1u < level; ++i) q[i] = herd_path_lerp(q[i], q[i + 1u], s, t);
  if (n >= 3u) {
    j.d2 = herd_v3_scale(herd_v3_add(herd_v3_sub(q[2], herd_v3_scale(q[1], 2.0f)), q[0]), m * (m - 1.0f));
    q[0] = herd_path_lerp(q[0], q[1], s, t);
    q[1] = herd_path_lerp(q[1], q[2], s, t);
  }
  j.d1 = herd_v3_scale(herd_v3_sub(q[1], q[0]), m);
  j.b = herd_path_lerp(q[0], q[1], s, t);
  return j;
}

HERD_INLINE herd_vec3 herd_path_point(HERD_GLOBAL const float *path, float t) { return herd_path_eval(path, t).b; }

/* The unit tangent T(t) = B'/|B'|. Where B' vanishes (a cusp, or repeated end control points)
 * it falls back to seed 004's own tangent, the chord over dt = 0.001 (forward, backward at
 * the end); a path that is one point has no tangent (zero). */
HERD_INLINE herd_vec3 herd_path_tangent(HERD_GLOBAL const float *path, float t) {
  herd_vec3 d = herd_path_eval(path, t).d1;
  float scale = 1e-6f * herd_path_length(path);
  if (herd_v3_len2(d) > scale * scale && herd_v3_len2(d) > 0.0f) return herd_v3_unit(d);
  float a = t < 1.0f - HERD_PATH_FD_STEP ? t : 1.0f - HERD_PATH_FD_STEP;
  return herd_v3_unit(herd_v3_sub(herd_path_point(path, a + HERD_PATH_FD_STEP), herd_path_point(path, a)));
}

/* ---- Arc length ----------------------------------------------------------------------------- */

/* Integral of |B'| over [a, b] by 5-point Gauss-Legendre. */
HERD_INLINE float herd_path_arc_between(HERD_GLOBAL const float *path, float a, float b) {
  const float x[5] = {0.0469100770306680f, 0.2307653449471585f, 0.5f, 0.7692346550528415f, 0.9530899229693320f};
  const float w[5] = {0.1184634425280945f, 0.2393143352496832f, 0.2844444444444444f, 0.2393143352496832f,
                      0.1184634425280945f};
  float sum = 0.0f, h = b - a;
  HERD_NO_UNROLL
  for (int i = 0; i < 5; ++i) sum += w[i] * herd_sqrtf(herd_v3_len2(herd_path_eval(path, a + x[i] * h).d1));
  return sum * h;
}

/* The arc length s(t) from B(0) to B(t), t in interval k of the table. */
HERD_INLINE float herd_path_arc_in(HERD_GLOBAL const float *path, herd_u32 k, float t) {
  float tk = herd_path_t_at(path, k);
  float s = herd_path_record(path, k)[3];
  return t > tk ? s + herd_path_arc_between(path, tk, t) : s;
}

/* ---- The closest point ---------------------------------------------------------------------- */

/* The point of the path closest to p. */
typedef struct herd_path_hit {
  herd_vec3 point;   /* B(t) */
  float t;           /* its parameter, in [0, 1] */
  float dist_m;      /* |B(t) - p| */
  herd_u32 interval; /* the table interval holding t (K - 1 at t = 1) */
} herd_path_hit;

/* g(t) = (B - p).B' (half the derivative of |B - p|^2) and g'(t) = |B'|^2 + (B - p).B''. */
HERD_INLINE float herd_path_slope(herd_path_jet j, herd_vec3 p) { return herd_v3_dot(herd_v3_sub(j.b, p), j.d1); }

/* The root of g in [lo, hi], where g(lo) < 0 < g(hi): Newton from the regula falsi guess,
 * kept inside the bracket (a step that leaves it, or a g' <= 0, bisects instead). It stops
 * after a Newton step shorter than HERD_PATH_NEWTON_TOL: convergence is quadratic there, so the
 * step is the error before it and its square the error after. *at gets B at the root, the last
 * evaluation moved by the step along B' (off by |B''| step^2 / 2, below 1e-7 m). */
HERD_INLINE float herd_path_newton(HERD_GLOBAL const float *path, herd_vec3 p, float lo, float hi, float glo, float ghi,
                                   herd_vec3 *at) {
  float t = lo + (hi - lo) * (-glo / (ghi - glo));
  if (!(t > lo && t < hi)) t = 0.5f * (lo + hi);
  HERD_NO_UNROLL
  for (int it = 0; it < HERD_PATH_NEWTON_ITERS; ++it) {
    herd_path_jet j = herd_path_eval(path, t);
    herd_vec3 r = herd_v3_sub(j.b, p);
    float g = herd_v3_dot(r, j.d1), gp = herd_v3_len2(j.d1) + herd_v3_dot(r, j.d2);
    *at = j.b;
    if (g == 0.0f) return t;
    if (g < 0.0f)
      lo = t;
    else
      hi = t;
    float next = gp > 0.0f ? t - g / gp : -1.0f, step = next - t;
    /* A step below t's float resolution leaves next on t, now an end of the bracket. */
    if (next >= lo && next <= hi && (step < 0.0f ? -step : step) <= HERD_PATH_NEWTON_TOL) {
      *at = herd_v3_madd(j.b, step, j.d1);
      return next;
    }
    if (next > lo && next < hi) {
      t = next;
    } else {
      t = 0.5f * (lo + hi);
      if (hi - lo <= HERD_PATH_BISECT_TOL) break;
    }
  }
  *at = herd_path_point(path, t);
  return t;
}

/* B(t) = at replaces *hit when closer, or unconditionally with `beats`. */
HERD_INLINE void herd_path_take(herd_vec3 p, float t, herd_vec3 at, herd_u32 k, int beats, herd_path_hit *hit) {
  float d2 = herd_v3_len2(herd_v3_sub(at, p));
  if (beats || d2 < hit->dist_m * hit->dist_m) {
    hit->point = at;
    hit->t = t;
    hit->dist_m = herd_sqrtf(d2);
    hit->interval = k;
  }
}

/* The minimum of |B - p| inside interval k, where g goes from < 0 to > 0 (f falls, then
 * rises). The table's ends give g's signs. An end where B' vanishes (a cusp, a repeated end
 * control point) has g = 0 whatever p is: the sign is read a sliver h/64 inside instead. A
 * sharp interval (B' turns by more than 60 degrees across it, as at a cusp, where two local
 * minima can share one interval) is cut into 8 pieces, each searched. A root bracketed by two
 * table samples is closer than both (f falls into it from either side), so it replaces a hit
 * that is one of them even where float rounding of the two distances says otherwise; any
 * other candidate goes by distance. */
HERD_INLINE void herd_path_refine(HERD_GLOBAL const float *path, herd_vec3 p, herd_u32 k, herd_path_hit *hit) {
  HERD_GLOBAL const float *ra = herd_path_record(path, k), *rb = herd_path_record(path, k + 1u);
  herd_vec3 da = herd_v3(ra[4], ra[5], ra[6]), db = herd_v3(rb[4], rb[5], rb[6]);
  float a = herd_path_t_at(path, k), b = herd_path_t_at(path, k + 1u), lo = a, hi = b;
  float ga = herd_v3_dot(herd_v3_sub(herd_v3(ra[0], ra[1], ra[2]), p), da);
  float gb = herd_v3_dot(herd_v3_sub(herd_v3(rb[0], rb[1], rb[2]), p), db);
  float still = 1e-4f * herd_path_length(path), sliver = (b - a) * (1.0f / 64.0f);
  float turn = herd_v3_dot(da, db), la2 = herd_v3_len2(da), lb2 = herd_v3_len2(db);
  int inside_a = la2 <= still * still, inside_b = lb2 <= still * still;
  if (inside_a) lo = a + sliver, ga = herd_path_slope(herd_path_eval(path, lo), p);
  if (inside_b) hi = b - sliver, gb = herd_path_slope(herd_path_eval(path, hi), p);
  if (!(inside_a || inside_b || turn <= 0.0f || turn * turn <= 0.25f * la2 * lb2)) {
    if (ga < 0.0f && gb > 0.0f) {
      int beats = (hit->t == a && !inside_a) || (hit->t == b && !inside_b);
      herd_vec3 at;
      float t = herd_path_newton(path, p, lo, hi, ga, gb, &at);
      herd_path_take(p, t, at, k, beats, hit);
    }
    return;
  }
  float x0 = lo, g0 = ga;
  HERD_NO_UNROLL
  for (int i = 1; i <= 8; ++i) {
    float x1 = i == 8 ? hi : lo + (hi - lo) * (0.125f * (float)i);
    float g1 = i == 8 ? gb : herd_path_slope(herd_path_eval(path, x1), p);
    int beats = (hit->t == a && x0 == a) || (hit->t == b && x1 == b);
    if (g0 < 0.0f && g1 > 0.0f) {
      herd_vec3 at;
      float t = herd_path_newton(path, p, x0, x1, g0, g1, &at);
      herd_path_take(p, t, at, k, beats, hit);
    }
    x0 = x1, g0 = g1;
  }
}

/* Squared distance from p to the chord of interval k (the segment between its samples). */
HERD_INLINE float herd_path_chord_dist2(HERD_GLOBAL const float *path, herd_vec3 p, herd_u32 k) {
  HERD_GLOBAL const float *ra = herd_path_record(path, k), *rb = herd_path_record(path, k + 1u);
  herd_vec3 a = herd_v3(ra[0], ra[1], ra[2]);
  herd_vec3 u = herd_v3_sub(herd_v3(rb[0], rb[1], rb[2]), a), d = herd_v3_sub(p, a);
  float l = herd_v3_dot(d, u) * ra[7];
  l = l < 0.0f ? 0.0f : (l > 1.0f ? 1.0f : l);
  return herd_v3_len2(herd_v3_madd(d, -l, u));
}

/* Intervals k0 .. k1-1 (samples k0 .. k1) searched for a point closer than *hit: the nearest
 * sample, Newton in the two intervals next to it, then Newton in every other interval that
 * could still hold a closer point: the curve over an interval lies within e (the header's bend
 * bound, h^2/8 max|B''|) of its chord, so an interval whose chord is farther than d + e from p
 * cannot, and is skipped. */
HERD_INLINE void herd_path_scan(HERD_GLOBAL const float *path, herd_vec3 p, herd_u32 k0, herd_u32 k1,
                                herd_path_hit *hit) {
  herd_u32 intervals = herd_path_intervals(path), k, best = k1 + 1u;
  float best2 = hit->dist_m * hit->dist_m, bend = path[3];
  HERD_NO_UNROLL
  for (k = k0; k <= k1; ++k) {
    HERD_GLOBAL const float *r = herd_path_record(path, k);
    float dx = r[0] - p.x, dy = r[1] - p.y, dz = r[2] - p.z, d2 = dx * dx + dy * dy + dz * dz;
    if (d2 < best2) best2 = d2, best = k;
  }
  if (best <= k1) {
    HERD_GLOBAL const float *r = herd_path_record(path, best);
    hit->point = herd_v3(r[0], r[1], r[2]);
    hit->t = herd_path_t_at(path, best);
    hit->dist_m = herd_sqrtf(best2);
    hit->interval = best < intervals ? best : intervals - 1u;
    if (best > 0u) herd_path_refine(path, p, best - 1u, hit);
    if (best < intervals) herd_path_refine(path, p, best, hit);
  }
  HERD_NO_UNROLL
  for (k = k0; k < k1; ++k) {
    if (k + 1u == best || k == best) continue;
    float reach = hit->dist_m + bend;
    if (herd_path_chord_dist2(path, p, k) < reach * reach) herd_path_refine(path, p, k, hit);
  }
}

/* The closest point of the path to p, over the whole of t in [0, 1] (both ends included):
 * the block whose ball's centre is nearest is searched first (herd_path_scan: the table's
 * samples, seed 004's lookup at steps of 0.01, then Newton), then every other block whose ball
 * comes closer than the distance found. Exact to the tolerance of docs/models/path.md: the
 * global minimum, not a local one. */
HERD_INLINE herd_path_hit herd_path_closest(HERD_GLOBAL const float *path, herd_vec3 p) {
  herd_u32 intervals = herd_path_intervals(path), per = (herd_u32)path[5], blocks = (herd_u32)path[6], b, first = 0;
  float first2 = 0.0f;
  HERD_NO_UNROLL
  for (b = 0; b < blocks; ++b) {
    HERD_GLOBAL const float *ball = herd_path_block(path, b);
    float dx = ball[0] - p.x, dy = ball[1] - p.y, dz = ball[2] - p.z, d2 = dx * dx + dy * dy + dz * dz;
    if (b == 0u || d2 < first2) first2 = d2, first = b;
  }
  herd_path_hit hit;
  hit.point = herd_path_control(path, 0u);
  hit.t = 0.0f;
  hit.dist_m = 3.0e38f; /* no hit yet: the first scan replaces it */
  hit.interval = 0u;
  herd_path_scan(path, p, first * per, first * per + per < intervals ? first * per + per : intervals, &hit);
  HERD_NO_UNROLL
  for (b = 0; b < blocks; ++b) {
    HERD_GLOBAL const float *ball = herd_path_block(path, b);
    float dx = ball[0] - p.x, dy = ball[1] - p.y, dz = ball[2] - p.z, reach = hit.dist_m + ball[3];
    if (b == first || dx * dx + dy * dy + dz * dz >= reach * reach) continue;
    herd_path_scan(path, p, b * per, b * per + per < intervals ? b * per + per : intervals, &hit);
  }
  return hit;
}

/* d(p): the distance from p to the path (order parameter: how far the flock is off it). */
HERD_INLINE float herd_path_distance(HERD_GLOBAL const float *path, herd_vec3 p) {
  return herd_path_closest(path, p).dist_m;
}

/* The arc length s(t*) from B(0) to the closest point. */
HERD_INLINE float herd_path_arc_at(HERD_GLOBAL const float *path, herd_path_hit hit) {
  return herd_path_arc_in(path, hit.interval, hit.t);
}

/* 1 when the closest point lies within the last `fraction` of the path's arc length
 * (s(t*) >= (1 - fraction) S; order parameter with fraction 0.05), else 0. Arc length, not t:
 * B runs at uneven speed. Only the interval that straddles the threshold is integrated. */
HERD_INLINE int herd_path_near_end(HERD_GLOBAL const float *path, herd_path_hit hit, float fraction) {
  float from = (1.0f - fraction) * herd_path_length(path);
  if (herd_path_record(path, hit.interval)[3] >= from) return 1;
  if (herd_path_record(path, hit.interval + 1u)[3] < from) return 0;
  return herd_path_arc_at(path, hit) >= from;
}

/* ---- The target vector ---------------------------------------------------------------------- */

/* The target point g: one look-ahead length L along the unit tangent from the closest point
 * (seed 004: the path point plus its normalised tangent), shortened to the arc length still
 * ahead of it, so that g never passes B(1) and is B(1) itself once p is past the end. */
HERD_INLINE herd_vec3 herd_path_goal(HERD_GLOBAL const float *path, herd_path_hit hit, float lookahead_m) {
  float ahead = lookahead_m, total = herd_path_length(path);
  if (ahead > 0.0f && herd_path_record(path, hit.interval + 1u)[3] > total - ahead) {
    float left = total - herd_path_arc_at(path, hit);
    ahead = left < ahead ? (left > 0.0f ? left : 0.0f) : ahead;
  }
  if (hit.t >= 1.0f) ahead = 0.0f;
  if (!(ahead > 0.0f)) return hit.point;
  return herd_v3_madd(hit.point, ahead, herd_path_tangent(path, hit.t));
}

/* The target vector at p, from its closest point: v = d(p) unit(g - p) (seed 004: the unit
 * vector toward the target point times the distance to the path). Its length is d(p): zero on
 * the path, growing linearly off it. Past the end it is B(1) - p, so the flock gathers at B(1). */
HERD_INLINE herd_vec3 herd_path_target_from(HERD_GLOBAL const float *path, herd_path_hit hit, herd_vec3 p,
                                            float lookahead_m) {
  herd_vec3 towards = herd_v3_sub(herd_path_goal(path, hit, lookahead_m), p);
  return herd_v3_scale(herd_v3_unit(towards), hit.dist_m);
}

HERD_INLINE herd_vec3 herd_path_target(HERD_GLOBAL const float *path, herd_vec3 p, float lookahead_m) {
  return herd_path_target_from(path, herd_path_closest(path, p), p, lookahead_m);
}

/* ---- Sphere obstacles ----------------------------------------------------------------------- */

HERD_INLINE float herd_path_absf(float x) { return x < 0.0f ? -x : x; }

/* The outward unit normal of a sphere at p: (p - c)/|p - c|, and +x at the centre itself. */
HERD_INLINE herd_vec3 herd_sphere_normal(herd_vec3 centre, herd_vec3 p) {
  herd_vec3 n = herd_v3_unit(herd_v3_sub(p, centre));
  return herd_v3_len2(n) > 0.0f ? n : herd_v3(1.0f, 0.0f, 0.0f);
}

/* The push away from a sphere (centre c, radius r) felt at p: w n, with n the outward normal
 * (along the shortest way out: seed 004's "closest point on the sphere") and
 *   w = clamp(1 - (|p - c| - r) / margin, 0, 1),
 * 0 at the margin's outer edge and beyond, rising linearly to 1 at the surface, 1 inside. With
 * margin <= 0 only points inside are pushed. Unit strength: the caller scales it. */
HERD_INLINE herd_vec3 herd_sphere_push(herd_vec3 centre, float radius_m, float margin_m, herd_vec3 p) {
  float gap = herd_sqrtf(herd_v3_len2(herd_v3_sub(p, centre))) - radius_m, w;
  if (margin_m > 0.0f)
    w = 1.0f - gap / margin_m;
  else
    w = gap < 0.0f ? 1.0f : 0.0f;
  if (w <= 0.0f) return herd_v3(0.0f, 0.0f, 0.0f);
  return herd_v3_scale(herd_sphere_normal(centre, p), w < 1.0f ? w : 1.0f);
}

/* 1 when p is inside the sphere: |p - c|^2 < r^2 as computed in float. */
HERD_INLINE int herd_sphere_contains(herd_vec3 centre, float radius_m, herd_vec3 p) {
  return herd_v3_len2(herd_v3_sub(p, centre)) < radius_m * radius_m;
}

/* p itself when outside the sphere; else p moved along the outward normal onto the surface,
 * the nearest point outside (the centre goes to c + r x). Float rounding could leave the
 * result a hair inside: it is moved out by a few ulps until herd_sphere_contains says no. */
HERD_INLINE herd_vec3 herd_sphere_project(herd_vec3 centre, float radius_m, herd_vec3 p) {
  if (!herd_sphere_contains(centre, radius_m, p)) return p;
  herd_vec3 n = herd_sphere_normal(centre, p);
  float big = herd_path_absf(centre.x) + herd_path_absf(centre.y) + herd_path_absf(centre.z) + radius_m;
  float grow = 1.1920929e-7f * big; /* one ulp of the largest coordinate involved */
  herd_vec3 q = herd_v3_madd(centre, radius_m, n);
  HERD_NO_UNROLL
  for (int i = 0; i < 24 && herd_sphere_contains(centre, radius_m, q); ++i, grow *= 2.0f)
    q = herd_v3_madd(centre, radius_m + grow, n);
  return q;
}

/* ---- Building the array (host, or a device that builds it once) ----------------------------- */

/* Fills out (herd_path_floats(points, intervals) floats) from `points` control points given as
 * x, y, z triples (z = 0 for a 2D path) and K = intervals table intervals (HERD_PATH_INTERVALS
 * for seed 004's 0.01). Returns 0, or 1 when the counts are out of range (1..16 points,
 * 1..4096 intervals) or a coordinate is not finite. */
HERD_INLINE int herd_path_build(HERD_GLOBAL float *out, const float *xyz, herd_u32 points, herd_u32 intervals) {
  herd_u32 i, k;
  if (points < 1u || points > HERD_PATH_MAX_POINTS || intervals < 1u || intervals > HERD_PATH_MAX_INTERVALS) return 1;
  HERD_NO_UNROLL
  for (i = 0; i < 3u * points; ++i)
    if (!(herd_path_absf(xyz[i]) <= 3.4e38f)) return 1;
  HERD_NO_UNROLL
  for (i = 0; i < HERD_PATH_HEADER; ++i) out[i] = 0.0f;
  out[0] = (float)points;
  out[1] = (float)intervals;
  out[4] = 1.0f / (float)intervals;
  HERD_NO_UNROLL
  for (i = 0; i < points; ++i) {
    HERD_GLOBAL float *q = out + HERD_PATH_HEADER + 4u * i;
    q[0] = xyz[3u * i], q[1] = xyz[3u * i + 1u], q[2] = xyz[3u * i + 2u], q[3] = 0.0f;
  }
  /* e = h^2/8 max|B''|: |B''| <= m(m-1) max|P_i+2 - 2P_i+1 + P_i| (convex hull of B''), and
   * a C2 curve strays from its chord over [a, b] by at most (b-a)^2/8 max|B''|. Plus a hair
   * (1e-6 of the control points' size) for float rounding of the samples. */
  float bend2 = 0.0f, size = 0.0f, m = (float)points - 1.0f, h = out[4];
  HERD_NO_UNROLL
  for (i = 0; i < points; ++i) {
    float a = herd_path_absf(xyz[3u * i]) + herd_path_absf(xyz[3u * i + 1u]) + herd_path_absf(xyz[3u * i + 2u]);
    size = a > size ? a : size;
  }
  HERD_NO_UNROLL
  for (i = 0; i + 2u < points; ++i) {
    herd_vec3 a = herd_path_control(out, i), b = herd_path_control(out, i + 1u), c = herd_path_control(out, i + 2u);
    float d2 = herd_v3_len2(herd_v3_add(herd_v3_sub(c, herd_v3_scale(b, 2.0f)), a));
    bend2 = d2 > bend2 ? d2 : bend2;
  }
  out[3] = h * h / 8.0f * m * (m - 1.0f) * herd_sqrtf(bend2) + 1e-6f * size;
  float s = 0.0f;
  HERD_NO_UNROLL
  for (k = 0; k <= intervals; ++k) {
    HERD_GLOBAL float *r = out + HERD_PATH_HEADER + 4u * points + HERD_PATH_RECORD * k;
    float t = herd_path_t_at(out, k);
    herd_path_jet j = herd_path_eval(out, t);
    if (k > 0u) s += herd_path_arc_between(out, herd_path_t_at(out, k - 1u), t);
    r[0] = j.b.x, r[1] = j.b.y, r[2] = j.b.z, r[3] = s;
    r[4] = j.d1.x, r[5] = j.d1.y, r[6] = j.d1.z, r[7] = 0.0f;
    if (k > 0u) {
      HERD_GLOBAL float *before = r - HERD_PATH_RECORD;
      float dx = r[0] - before[0], dy = r[1] - before[1], dz = r[2] - before[2], c2 = dx * dx + dy * dy + dz * dz;
      before[7] = c2 > 0.0f ? 1.0f / c2 : 0.0f;
    }
  }
  out[2] = s;
  /* The blocks' balls: the centre of the samples' bounding box; the radius reaches the farthest
   * sample, plus e, since the curve keeps within e of the chords between the samples. */
  herd_u32 per = herd_path_block_size(intervals), blocks = (intervals + per - 1u) / per, b;
  out[5] = (float)per;
  out[6] = (float)blocks;
  HERD_NO_UNROLL
  for (b = 0; b < blocks; ++b) {
    herd_u32 k0 = b * per, k1 = k0 + per < intervals ? k0 + per : intervals;
    herd_vec3 lo = herd_v3(3.0e38f, 3.0e38f, 3.0e38f), hi = herd_v3(-3.0e38f, -3.0e38f, -3.0e38f);
    HERD_NO_UNROLL
    for (k = k0; k <= k1; ++k) {
      HERD_GLOBAL const float *r = herd_path_record(out, k);
      lo = herd_v3(r[0] < lo.x ? r[0] : lo.x, r[1] < lo.y ? r[1] : lo.y, r[2] < lo.z ? r[2] : lo.z);
      hi = herd_v3(r[0] > hi.x ? r[0] : hi.x, r[1] > hi.y ? r[1] : hi.y, r[2] > hi.z ? r[2] : hi.z);
    }
    herd_vec3 c = herd_v3_scale(herd_v3_add(lo, hi), 0.5f);
    float far2 = 0.0f;
    HERD_NO_UNROLL
    for (k = k0; k <= k1; ++k) {
      HERD_GLOBAL const float *r = herd_path_record(out, k);
      float d2 = herd_v3_len2(herd_v3_sub(herd_v3(r[0], r[1], r[2]), c));
      far2 = d2 > far2 ? d2 : far2;
    }
    HERD_GLOBAL float *ball = out + HERD_PATH_HEADER + 4u * points + HERD_PATH_RECORD * (intervals + 1u) + 4u * b;
    ball[0] = c.x, ball[1] = c.y, ball[2] = c.z;
    ball[3] = herd_sqrtf(far2) * (1.0f + 1e-6f) + out[3];
  }
  return 0;
}

#endif
