/* A scenario's 2D obstacle geometry: exact signed distances in double, the checks, and the
 * baked field (kernels/sdf.h). Equations and choices: docs/models/env.md. */
#include "geometry.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/sdf.h"
#include "../util/error.h"
#include "scenario_fields.h"

#define FAR_M 1.0e30         /* the distance to no geometry */
#define ON_BOUNDARY_M 1.0e-3 /* a gate's ends this close to an edge lie on it */
#define SPAWN_SAMPLES 17     /* per axis, when checking that a spawn box is not all blocked */

bool herd_geometry_any(const herd_scenario *sc) {
  return sc->obstacles.walls.count + sc->obstacles.water.count + sc->obstacles.pens.count > 0;
}

/* ---- Exact distances of the shapes ----------------------------------------------------- */

typedef struct hit {
  double d, gx, gy; /* signed distance and its unit gradient */
} hit;

static hit keep_nearer(hit a, hit b) { return b.d < a.d ? b : a; }

/* The point of segment ab closest to (x, y): its parameter in [0, 1]. */
static double segment_param(double x, double y, const float *a, const float *b) {
  double ux = (double)b[0] - a[0], uy = (double)b[1] - a[1], l2 = ux * ux + uy * uy;
  if (l2 <= 0.0) return 0.0;
  double t = ((x - a[0]) * ux + (y - a[1]) * uy) / l2;
  return t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
}

/* Distance from (x, y) to segment ab, and the unit vector from its closest point to (x, y)
 * (the segment's left normal where they coincide). */
static hit segment_hit(double x, double y, const float *a, const float *b) {
  double t = segment_param(x, y, a, b);
  double qx = a[0] + t * ((double)b[0] - a[0]), qy = a[1] + t * ((double)b[1] - a[1]);
  double dx = x - qx, dy = y - qy, d = sqrt(dx * dx + dy * dy);
  hit h = {d, 0.0, 0.0};
  if (d > 0.0) {
    h.gx = dx / d, h.gy = dy / d;
  } else {
    double ux = (double)b[0] - a[0], uy = (double)b[1] - a[1], l = sqrt(ux * ux + uy * uy);
    h.gx = l > 0.0 ? -uy / l : 1.0, h.gy = l > 0.0 ? ux / l : 0.0;
  }
  return h;
}

/* A capsule: every point within r of segment ab. */
static hit capsule_hit(double x, double y, const float *a, const float *b, double r) {
  hit h = segment_hit(x, y, a, b);
  h.d -= r;
  return h;
}

/* True when (x, y) is inside the polygon (even-odd rule). */
static bool polygon_contains(const herd_shape *s, double x, double y) {
  bool in = false;
  for (uint32_t i = 0, j = s->count - 1; i < s->count; j = i++) {
    double xi = s->v[i][0], yi = s->v[i][1], xj = s->v[j][0], yj = s->v[j][1];
    if ((yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi) in = !in;
  }
  return in;
}

/* The polygon's signed distance: to its nearest edge, negative inside. */
static hit polygon_hit(double x, double y, const herd_shape *s) {
  hit h = {FAR_M, 1.0, 0.0};
  for (uint32_t i = 0; i < s->count; ++i) h = keep_nearer(h, segment_hit(x, y, s->v[i], s->v[(i + 1) % s->count]));
  if (polygon_contains(s, x, y)) h.d = -h.d, h.gx = -h.gx, h.gy = -h.gy;
  return h;
}

/* A bridge's strip: the rectangle of its width_m along the segment between its two ends. */
static hit strip_hit(double x, double y, const herd_shape *s) {
  double ax = s->v[0][0], ay = s->v[0][1], bx = s->v[1][0], by = s->v[1][1];
  double ux = bx - ax, uy = by - ay, len = sqrt(ux * ux + uy * uy);
  ux /= len, uy /= len;
  double px = x - 0.5 * (ax + bx), py = y - 0.5 * (ay + by);
  double along = px * ux + py * uy, across = -px * uy + py * ux;
  double qa = fabs(along) - 0.5 * len, qc = fabs(across) - 0.5 * s->width_m;
  double sa = along < 0.0 ? -1.0 : 1.0, sc = across < 0.0 ? -1.0 : 1.0;
  hit h;
  if (qa > 0.0 || qc > 0.0) {
    double oa = qa > 0.0 ? qa : 0.0, oc = qc > 0.0 ? qc : 0.0;
    h.d = sqrt(oa * oa + oc * oc);
    double la = sa * oa / h.d, lc = sc * oc / h.d;
    h.gx = la * ux - lc * uy, h.gy = la * uy + lc * ux;
  } else if (qa > qc) {
    h.d = qa, h.gx = sa * ux, h.gy = sa * uy;
  } else {
    h.d = qc, h.gx = -sc * uy, h.gy = sc * ux;
  }
  return h;
}

/* The edge of pen s that holds both ends of its gate, and their parameters t0 < t1 along it;
 * -1 when none does. */
int herd_geometry_gate_edge(const herd_shape *s, double *t0, double *t1) {
  for (uint32_t k = 0; k < s->count; ++k) {
    const float *a = s->v[k], *b = s->v[(k + 1) % s->count];
    hit h0 = segment_hit(s->gate[0][0], s->gate[0][1], a, b), h1 = segment_hit(s->gate[1][0], s->gate[1][1], a, b);
    if (h0.d > ON_BOUNDARY_M || h1.d > ON_BOUNDARY_M) continue;
    double u0 = segment_param(s->gate[0][0], s->gate[0][1], a, b),
           u1 = segment_param(s->gate[1][0], s->gate[1][1], a, b);
    *t0 = u0 < u1 ? u0 : u1, *t1 = u0 < u1 ? u1 : u0;
    return (int)k;
  }
  return -1;
}

/* The fence of pen s: a capsule along each edge, the gate's edge in two pieces around it. */
static hit fence_hit(double x, double y, const herd_shape *s) {
  double t0 = 0.0, t1 = 0.0, r = 0.5 * s->width_m;
  int gate = herd_geometry_gate_edge(s, &t0, &t1);
  hit h = {FAR_M, 1.0, 0.0};
  for (uint32_t k = 0; k < s->count; ++k) {
    const float *a = s->v[k], *b = s->v[(k + 1) % s->count];
    if ((int)k != gate) {
      h = keep_nearer(h, capsule_hit(x, y, a, b, r));
      continue;
    }
    float p0[2] = {(float)(a[0] + t0 * ((double)b[0] - a[0])), (float)(a[1] + t0 * ((double)b[1] - a[1]))};
    float p1[2] = {(float)(a[0] + t1 * ((double)b[0] - a[0])), (float)(a[1] + t1 * ((double)b[1] - a[1]))};
    h = keep_nearer(h, capsule_hit(x, y, a, p0, r));
    h = keep_nearer(h, capsule_hit(x, y, p1, b, r));
  }
  return h;
}

/* ---- Water less the bridges' strips, exactly -------------------------------------------- */

/* A piece [t0, t1] of segment ab. */
typedef struct piece {
  double t0, t1;
} piece;

/* The parameter interval of segment ab inside the strip (a convex rectangle), by clipping
 * against its four half-planes; false when it misses it. */
static bool clip_to_strip(const float *a, const float *b, const herd_shape *s, double *t0, double *t1) {
  double ax = s->v[0][0], ay = s->v[0][1], bx = s->v[1][0], by = s->v[1][1];
  double ux = bx - ax, uy = by - ay, len = sqrt(ux * ux + uy * uy);
  ux /= len, uy /= len;
  double cx = 0.5 * (ax + bx), cy = 0.5 * (ay + by), half[2] = {0.5 * len, 0.5 * s->width_m};
  double dir[2][2] = {{ux, uy}, {-uy, ux}};
  *t0 = 0.0, *t1 = 1.0;
  for (int k = 0; k < 2; ++k) {
    double p0 = (a[0] - cx) * dir[k][0] + (a[1] - cy) * dir[k][1];
    double dp = ((double)b[0] - a[0]) * dir[k][0] + ((double)b[1] - a[1]) * dir[k][1];
    for (int side = -1; side <= 1; side += 2) { /* side * (p0 + t dp) <= half */
      double num = half[k] - side * p0, den = side * dp;
      if (den == 0.0) {
        if (num < 0.0) return false;
      } else if (den > 0.0) {
        *t1 = fmin(*t1, num / den);
      } else {
        *t0 = fmax(*t0, num / den);
      }
    }
  }
  return *t0 < *t1;
}

/* Takes [c0, c1] out of the pieces in `p` (n of them, room for `room`); the new count. */
static int cut_pieces(piece *p, int n, int room, double c0, double c1) {
  int out = n;
  for (int i = 0; i < n; ++i) {
    if (c1 <= p[i].t0 || c0 >= p[i].t1) continue;
    piece right = {c1, p[i].t1};
    p[i].t1 = fmax(p[i].t0, c0);
    if (right.t1 > right.t0 && out < room) p[out++] = right;
  }
  return out;
}

static bool in_any_water(const herd_shape_list *water, double x, double y) {
  for (uint32_t k = 0; k < water->count; ++k)
    if (polygon_contains(&water->s[k], x, y)) return true;
  return false;
}

static bool in_any_strip(const herd_shape_list *bridges, double x, double y) {
  for (uint32_t b = 0; b < bridges->count; ++b)
    if (strip_hit(x, y, &bridges->s[b]).d < 0.0) return true;
  return false;
}

/* The nearest of the pieces of segment ab to (x, y). */
static hit nearest_piece(hit h, double x, double y, const float *a, const float *b, const piece *p, int n) {
  for (int i = 0; i < n; ++i) {
    if (p[i].t1 <= p[i].t0) continue;
    float q0[2] = {(float)(a[0] + p[i].t0 * ((double)b[0] - a[0])), (float)(a[1] + p[i].t0 * ((double)b[1] - a[1]))};
    float q1[2] = {(float)(a[0] + p[i].t1 * ((double)b[0] - a[0])), (float)(a[1] + p[i].t1 * ((double)b[1] - a[1]))};
    h = keep_nearer(h, segment_hit(x, y, q0, q1));
  }
  return h;
}

#define MAX_PIECES 64

/* The boundary of water less strips: each water edge less every strip, and each strip edge
 * where it runs inside water and inside no other strip (cut where it crosses a water edge).
 * The distance to the nearest point of it, negative inside the water that is left: exact,
 * where max(water, -strip) is only a bound (0 across a bridge's mouth, where the strip meets
 * the bank). */
static hit water_less_strips_hit(const herd_shape_list *water, const herd_shape_list *bridges, double x, double y) {
  hit h = {FAR_M, 1.0, 0.0};
  piece p[MAX_PIECES];
  for (uint32_t w = 0; w < water->count; ++w) {
    const herd_shape *s = &water->s[w];
    for (uint32_t k = 0; k < s->count; ++k) {
      const float *a = s->v[k], *b = s->v[(k + 1) % s->count];
      int n = 1;
      p[0] = (piece){0.0, 1.0};
      for (uint32_t r = 0; r < bridges->count; ++r) {
        double c0, c1;
        if (clip_to_strip(a, b, &bridges->s[r], &c0, &c1)) n = cut_pieces(p, n, MAX_PIECES, c0, c1);
      }
      h = nearest_piece(h, x, y, a, b, p, n);
    }
  }
  for (uint32_t r = 0; r < bridges->count; ++r) {
    const herd_shape *s = &bridges->s[r];
    double ax = s->v[0][0], ay = s->v[0][1], ux = s->v[1][0] - ax, uy = s->v[1][1] - ay;
    double len = sqrt(ux * ux + uy * uy), nx = -uy / len * 0.5 * s->width_m, ny = ux / len * 0.5 * s->width_m;
    float c[4][2] = {{(float)(ax + nx), (float)(ay + ny)},
                     {(float)(ax + ux + nx), (float)(ay + uy + ny)},
                     {(float)(ax + ux - nx), (float)(ay + uy - ny)},
                     {(float)(ax - nx), (float)(ay - ny)}};
    for (int e = 0; e < 4; ++e) {
      const float *a = c[e], *b = c[(e + 1) % 4];
      /* Cut at every crossing with a water edge; keep the parts whose middle is in water and
       * in no strip but this one (a point of the edge itself is on its own strip's rim). */
      double cuts[MAX_PIECES];
      int m = 0;
      cuts[m++] = 0.0, cuts[m++] = 1.0;
      for (uint32_t w = 0; w < water->count; ++w)
        for (uint32_t k = 0; k < water->s[w].count && m < MAX_PIECES; ++k) {
          const float *q0 = water->s[w].v[k], *q1 = water->s[w].v[(k + 1) % water->s[w].count];
          double rx = (double)b[0] - a[0], ry = (double)b[1] - a[1], sx = (double)q1[0] - q0[0],
                 sy = (double)q1[1] - q0[1], den = rx * sy - ry * sx;
          if (den == 0.0) continue;
          double t = (((double)q0[0] - a[0]) * sy - ((double)q0[1] - a[1]) * sx) / den;
          double u = (((double)q0[0] - a[0]) * ry - ((double)q0[1] - a[1]) * rx) / den;
          if (t > 0.0 && t < 1.0 && u >= 0.0 && u <= 1.0) cuts[m++] = t;
        }
      for (int i = 1; i < m; ++i) /* sort the cuts (few) */
        for (int j = i; j > 0 && cuts[j - 1] > cuts[j]; --j) {
          double t = cuts[j];
          cuts[j] = cuts[j - 1], cuts[j - 1] = t;
        }
      for (int i = 0; i + 1 < m; ++i) {
        double mid = 0.5 * (cuts[i] + cuts[i + 1]);
        double mx = a[0] + mid * ((double)b[0] - a[0]), my = a[1] + mid * ((double)b[1] - a[1]);
        bool other = false;
        for (uint32_t o = 0; o < bridges->count && !other; ++o)
          other = o != r && strip_hit(mx, my, &bridges->s[o]).d < 0.0;
        if (other || !in_any_water(water, mx, my)) continue;
        piece one = {cuts[i], cuts[i + 1]};
        h = nearest_piece(h, x, y, a, b, &one, 1);
      }
    }
  }
  if (in_any_water(water, x, y) && !in_any_strip(bridges, x, y)) h.d = -h.d, h.gx = -h.gx, h.gy = -h.gy;
  return h;
}

static hit geometry_hit(const herd_scenario *sc, double x, double y) {
  hit h = {FAR_M, 1.0, 0.0};
  const herd_shape_list *walls = &sc->obstacles.walls, *water = &sc->obstacles.water, *pens = &sc->obstacles.pens;
  const herd_shape_list *bridges = &sc->obstacles.bridges;
  for (uint32_t w = 0; w < walls->count; ++w) {
    const herd_shape *s = &walls->s[w];
    for (uint32_t k = 0; k + 1 < s->count; ++k)
      h = keep_nearer(h, capsule_hit(x, y, s->v[k], s->v[k + 1], 0.5 * s->width_m));
    if (s->count == 1) h = keep_nearer(h, capsule_hit(x, y, s->v[0], s->v[0], 0.5 * s->width_m));
  }
  for (uint32_t p = 0; p < pens->count; ++p) h = keep_nearer(h, fence_hit(x, y, &pens->s[p]));
  if (water->count && bridges->count) {
    h = keep_nearer(h, water_less_strips_hit(water, bridges, x, y));
  } else if (water->count) {
    hit wet = {FAR_M, 1.0, 0.0};
    for (uint32_t k = 0; k < water->count; ++k) wet = keep_nearer(wet, polygon_hit(x, y, &water->s[k]));
    h = keep_nearer(h, wet);
  }
  return h;
}

int herd_scenario_goal_pen(const herd_scenario *sc) {
  if (sc->target.goal_radius_m < 0.0f) return -1;
  for (uint32_t k = 0; k < sc->obstacles.pens.count; ++k)
    if (polygon_contains(&sc->obstacles.pens.s[k], sc->target.position_m[0], sc->target.position_m[1])) return (int)k;
  return -1;
}

double herd_geometry_distance(const herd_scenario *sc, double x, double y, double grad[2]) {
  hit h = geometry_hit(sc, x, y);
  if (grad) grad[0] = h.gx, grad[1] = h.gy;
  return h.d;
}

bool herd_geometry_blocks(const herd_scenario *sc, const float *p) {
  uint32_t dims = sc->world.dims;
  for (uint32_t k = 0; k < sc->obstacles.spheres.count; ++k) {
    const float *c = sc->obstacles.spheres.v[k];
    double d2 = 0;
    for (uint32_t i = 0; i < dims; ++i) d2 += ((double)p[i] - c[i]) * ((double)p[i] - c[i]);
    if (d2 < (double)c[3] * c[3]) return true;
  }
  return herd_geometry_any(sc) && herd_geometry_distance(sc, p[0], p[1], NULL) < 0.0;
}

/* ---- The field ------------------------------------------------------------------------- */

/* The box holding every wall, fence and water polygon. */
static void geometry_bounds(const herd_scenario *sc, double lo[2], double hi[2]) {
  const herd_shape_list *lists[3] = {&sc->obstacles.walls, &sc->obstacles.water, &sc->obstacles.pens};
  lo[0] = lo[1] = INFINITY, hi[0] = hi[1] = -INFINITY;
  for (int l = 0; l < 3; ++l)
    for (uint32_t i = 0; i < lists[l]->count; ++i) {
      const herd_shape *s = &lists[l]->s[i];
      double r = l == 1 ? 0.0 : 0.5 * s->width_m;
      for (uint32_t k = 0; k < s->count; ++k)
        for (int a = 0; a < 2; ++a) lo[a] = fmin(lo[a], s->v[k][a] - r), hi[a] = fmax(hi[a], s->v[k][a] + r);
    }
}

float *herd_geometry_bake(const herd_scenario *sc, uint32_t *floats) {
  double lo[2], hi[2];
  geometry_bounds(sc, lo, hi);
  double res = sc->obstacles.resolution_m, size = fmax(hi[0] - lo[0], hi[1] - lo[1]);
  /* Past every obstacle by the margin (where the push fades out), at most by the geometry's
   * own size, and two nodes more. */
  double reach = fmin(sc->obstacles.margin_m, fmax(size, 1.0)) + 2.0 * res;
  double h = res, span = size + 2.0 * reach;
  if (span / h > HERD_SDF_MAX_NODES - 2) h = span / (HERD_SDF_MAX_NODES - 2);
  reach = fmax(reach, 2.0 * h);
  uint32_t n[2];
  for (int a = 0; a < 2; ++a) n[a] = (uint32_t)ceil((hi[a] - lo[a] + 2.0 * reach) / h) + 1u;
  *floats = herd_sdf_floats(n[0], n[1]);
  float *f = malloc(*floats * sizeof *f);
  if (!f) return NULL;
  float x0 = (float)(lo[0] - reach), y0 = (float)(lo[1] - reach);
  f[0] = (float)n[0], f[1] = (float)n[1], f[2] = x0, f[3] = y0, f[4] = (float)h, f[5] = (float)(1.0 / h);
  f[6] = (float)(0.75 * h); /* the skin: above sqrt(2)/2 h, the interpolation's error bound */
  f[7] = (float)reach;
  for (uint32_t j = 0; j < n[1]; ++j)
    for (uint32_t i = 0; i < n[0]; ++i) {
      /* The node where the interpolation puts it: the same float products. */
      float x = x0 + (float)i * (float)h, y = y0 + (float)j * (float)h;
      hit g = geometry_hit(sc, x, y);
      float *node = f + HERD_SDF_HEADER + 3u * (j * n[0] + i);
      node[0] = (float)g.d, node[1] = (float)g.gx, node[2] = (float)g.gy;
    }
  return f;
}

/* ---- Checks ---------------------------------------------------------------------------- */

/* "[x, y]" as the scenario holds it. */
static void point_text(const float *p, char *out, size_t size) {
  char x[40], y[40];
  scenario_format_float(p[0], x, sizeof x);
  scenario_format_float(p[1], y, sizeof y);
  snprintf(out, size, "[%s, %s]", x, y);
}

static double cross(const float *o, const float *a, const float *b) {
  return ((double)a[0] - o[0]) * ((double)b[1] - o[1]) - ((double)a[1] - o[1]) * ((double)b[0] - o[0]);
}

static bool on_segment(const float *a, const float *b, const float *p) {
  return fmin(a[0], b[0]) <= p[0] && p[0] <= fmax(a[0], b[0]) && fmin(a[1], b[1]) <= p[1] && p[1] <= fmax(a[1], b[1]);
}

/* True when segments ab and cd share a point (touching counts). */
static bool segments_meet(const float *a, const float *b, const float *c, const float *d) {
  double d1 = cross(c, d, a), d2 = cross(c, d, b), d3 = cross(a, b, c), d4 = cross(a, b, d);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return true;
  return (d1 == 0 && on_segment(c, d, a)) || (d2 == 0 && on_segment(c, d, b)) || (d3 == 0 && on_segment(a, b, c)) ||
         (d4 == 0 && on_segment(a, b, d));
}

/* A simple polygon: no two corners alike, no edge meets another but its neighbours at their
 * shared corner, no edge folds back onto the one before it. */
static herd_status check_polygon(const herd_shape *s, const char *where, const char *path, herd_error *err) {
  uint32_t n = s->count;
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t j = i + 1; j < n; ++j)
      if (s->v[i][0] == s->v[j][0] && s->v[i][1] == s->v[j][1]) {
        char p[90];
        point_text(s->v[i], p, sizeof p);
        return herd_fail(err, HERD_E_INPUT,
                         "%s: %s.points_m[%u]: %s repeats points_m[%u] (allowed: a simple polygon, each corner once)",
                         where, path, j, p, i);
      }
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t j = i + 1; j < n; ++j) {
      const float *a = s->v[i], *b = s->v[(i + 1) % n], *c = s->v[j], *d = s->v[(j + 1) % n];
      bool next = j == i + 1, wrap = i == 0 && j == n - 1;
      bool meet = next   ? cross(a, b, d) == 0 && (((double)b[0] - a[0]) * ((double)d[0] - c[0]) +
                                                 ((double)b[1] - a[1]) * ((double)d[1] - c[1])) < 0
                  : wrap ? cross(c, d, b) == 0 && (((double)d[0] - c[0]) * ((double)b[0] - a[0]) +
                                                   ((double)d[1] - c[1]) * ((double)b[1] - a[1])) < 0
                         : segments_meet(a, b, c, d);
      if (!meet) continue;
      char pa[90], pb[90], pc[90], pd[90];
      point_text(a, pa, sizeof pa), point_text(b, pb, sizeof pb), point_text(c, pc, sizeof pc);
      point_text(d, pd, sizeof pd);
      return herd_fail(err, HERD_E_INPUT,
                       "%s: %s.points_m: edges %u (%s to %s) and %u (%s to %s) cross (allowed: a simple polygon, whose "
                       "edges meet only their neighbours, at a shared corner)",
                       where, path, i, pa, pb, j, pc, pd);
    }
  return HERD_OK;
}

static herd_status check_pen(const herd_shape *s, const char *where, const char *path, herd_error *err) {
  herd_status st = check_polygon(s, where, path, err);
  if (st != HERD_OK) return st;
  double t0, t1;
  char a[90], b[90];
  point_text(s->gate[0], a, sizeof a);
  point_text(s->gate[1], b, sizeof b);
  int k = herd_geometry_gate_edge(s, &t0, &t1);
  if (k < 0)
    return herd_fail(err, HERD_E_INPUT,
                     "%s: %s.gate_m: %s to %s is not on the pen's boundary (allowed: both ends on one edge of "
                     "%s.points_m, within %g m)",
                     where, path, a, b, path, ON_BOUNDARY_M);
  const float *p = s->v[k], *q = s->v[(k + 1) % s->count];
  double len = (t1 - t0) * hypot((double)q[0] - p[0], (double)q[1] - p[1]);
  if (len <= s->width_m)
    return herd_fail(err, HERD_E_INPUT,
                     "%s: %s.gate_m: %s to %s is %.3g m long, no wider than the fence (fence_m %.3g m): nothing could "
                     "pass (allowed: longer than fence_m)",
                     where, path, a, b, len, (double)s->width_m);
  return HERD_OK;
}

static herd_status check_bridge(const herd_scenario *sc, uint32_t i, const char *where, herd_error *err) {
  const herd_shape *s = &sc->obstacles.bridges.s[i];
  uint32_t waters = sc->obstacles.water.count;
  if (s->water >= waters) {
    if (waters == 0)
      return herd_fail(err, HERD_E_INPUT,
                       "%s: obstacles.bridges[%u].water: %u, but obstacles.water is empty (allowed: the index of the "
                       "water the bridge crosses)",
                       where, i, s->water);
    return herd_fail(err, HERD_E_INPUT,
                     "%s: obstacles.bridges[%u].water: %u is out of range (allowed: an index into obstacles.water, 0 "
                     "to %u)",
                     where, i, s->water, waters - 1);
  }
  const herd_shape *w = &sc->obstacles.water.s[s->water];
  for (uint32_t e = 0; e < 2; ++e)
    if (polygon_contains(w, s->v[e][0], s->v[e][1])) {
      char p[90];
      point_text(s->v[e], p, sizeof p);
      return herd_fail(err, HERD_E_INPUT,
                       "%s: obstacles.bridges[%u].points_m[%u]: %s is in obstacles.water[%u] (allowed: both ends on "
                       "dry land, so that the bridge spans the water)",
                       where, i, e, p, s->water);
    }
  for (uint32_t k = 0; k < w->count; ++k)
    if (segments_meet(s->v[0], s->v[1], w->v[k], w->v[(k + 1) % w->count])) return HERD_OK;
  char a[90], b[90];
  point_text(s->v[0], a, sizeof a);
  point_text(s->v[1], b, sizeof b);
  return herd_fail(err, HERD_E_INPUT,
                   "%s: obstacles.bridges[%u].points_m: %s to %s does not cross obstacles.water[%u] (allowed: a span "
                   "from one bank over the water to another)",
                   where, i, a, b, s->water);
}

/* The flock's spawn box holds a point outside every obstacle (sampled on a grid). */
static bool spawn_has_room(const herd_scenario *sc) {
  uint32_t dims = sc->world.dims, nz = dims == 3 ? SPAWN_SAMPLES : 1;
  for (uint32_t i = 0; i < SPAWN_SAMPLES; ++i)
    for (uint32_t j = 0; j < SPAWN_SAMPLES; ++j)
      for (uint32_t k = 0; k < nz; ++k) {
        uint32_t at[3] = {i, j, k};
        float p[3] = {0, 0, 0};
        for (uint32_t a = 0; a < dims; ++a) {
          float u = (float)at[a] / (float)(SPAWN_SAMPLES - 1);
          p[a] =
              (sc->flock.spawn.from[a] + u * (sc->flock.spawn.to[a] - sc->flock.spawn.from[a])) * sc->world.size_m[a];
        }
        if (!herd_geometry_blocks(sc, p)) return true;
      }
  return false;
}

herd_status herd_geometry_check(const herd_scenario *sc, const char *where, herd_error *err) {
  char path[80];
  for (uint32_t i = 0; i < sc->obstacles.water.count; ++i) {
    snprintf(path, sizeof path, "obstacles.water[%u]", i);
    herd_status st = check_polygon(&sc->obstacles.water.s[i], where, path, err);
    if (st != HERD_OK) return st;
  }
  for (uint32_t i = 0; i < sc->obstacles.pens.count; ++i) {
    snprintf(path, sizeof path, "obstacles.pens[%u]", i);
    herd_status st = check_pen(&sc->obstacles.pens.s[i], where, path, err);
    if (st != HERD_OK) return st;
  }
  for (uint32_t i = 0; i < sc->obstacles.bridges.count; ++i) {
    herd_status st = check_bridge(sc, i, where, err);
    if (st != HERD_OK) return st;
  }
  bool any = herd_geometry_any(sc) || sc->obstacles.spheres.count;
  if (!any) return HERD_OK;
  const char *allowed = "(allowed: outside every obstacle)";
  char p[90];
  if (sc->target.goal_radius_m >= 0.0f && herd_geometry_blocks(sc, sc->target.position_m)) {
    point_text(sc->target.position_m, p, sizeof p);
    return herd_fail(err, HERD_E_INPUT, "%s: target.position_m: %s is inside an obstacle %s", where, p, allowed);
  }
  for (uint32_t d = 0; d < herd_scenario_dog_count(sc); ++d) {
    float dog[3] = {sc->dogs.start[0] * sc->world.size_m[0] + (float)d * sc->dogs.spacing_m,
                    sc->dogs.start[1] * sc->world.size_m[0], 0.0f};
    if (!herd_geometry_blocks(sc, dog)) continue;
    point_text(dog, p, sizeof p);
    return herd_fail(err, HERD_E_INPUT, "%s: dogs.start: dog %u would start at %s, inside an obstacle %s", where, d, p,
                     allowed);
  }
  for (uint32_t e = 0; e < sc->agents.entries; ++e) {
    const float *at = sc->agents.entry[e].position_m;
    if (isnan(at[0]) || !herd_geometry_blocks(sc, at)) continue;
    point_text(at, p, sizeof p);
    return herd_fail(err, HERD_E_INPUT, "%s: agents[%u].position_m: %s is inside an obstacle %s", where, e, p, allowed);
  }
  if (!spawn_has_room(sc)) {
    char lo[3][40], hi[3][40];
    for (int k = 0; k < 3; ++k) {
      scenario_format_float(sc->flock.spawn.from[k], lo[k], sizeof lo[k]);
      scenario_format_float(sc->flock.spawn.to[k], hi[k], sizeof hi[k]);
    }
    bool three = sc->world.dims == 3;
    return herd_fail(err, HERD_E_INPUT,
                     "%s: %s.spawn: the whole spawn box, from [%s, %s%s%s] to [%s, %s%s%s] of the world, lies inside "
                     "obstacles (allowed: a box with room outside them)",
                     where, herd_model_section(sc->model), lo[0], lo[1], three ? ", " : "", three ? lo[2] : "", hi[0],
                     hi[1], three ? ", " : "", three ? hi[2] : "");
  }
  return HERD_OK;
}

/* ---- For a viewer (herd_view.h) -------------------------------------------------------- */

double herd_scenario_obstacle_distance(const herd_scenario *sc, double x, double y) {
  return herd_geometry_distance(sc, x, y, NULL);
}

int herd_shape_gate_edge(const herd_shape *pen, double *t0, double *t1) { return herd_geometry_gate_edge(pen, t0, t1); }
