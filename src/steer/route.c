#include "route.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/geometry.h"

#define UNREACHED INFINITY

struct herd_route {
  const herd_scenario *sc;
  uint32_t nx, ny;
  float x0, y0, h;   /* the centre of cell (i, j) is (x0 + (i + 0.5) h, y0 + (j + 0.5) h) */
  float *dist;       /* to the goal, through cells a flock may cross; UNREACHED elsewhere */
  float *weight;     /* a step's cost per metre into each cell: more near obstacles */
  uint8_t *flock_ok; /* 1: a flock may cross (clear of obstacles by HERD_ROUTE_CLEARANCE_M) */
  uint8_t *dog_ok;   /* 1: a dog may stand (clear by DOG_CLEARANCE_M) */
  float *scratch;    /* A*'s costs, one per cell */
  uint32_t *heap, *came_from;
};

/* ---- Geometry ------------------------------------------------------------------------ */

/* How far (x, y) is from the nearest obstacle: the geometry's signed distance and each sphere's
 * (a circle in 2D, its z ignored like the prisms'). */
static float clearance_at(const herd_scenario *sc, float x, float y, float grad[2]) {
  double g[2] = {1.0, 0.0};
  double d = herd_geometry_any(sc) ? herd_geometry_distance(sc, x, y, g) : 1e30;
  for (uint32_t k = 0; k < sc->obstacles.spheres.count; ++k) {
    const float *c = sc->obstacles.spheres.v[k];
    double dx = x - c[0], dy = y - c[1], r = sqrt(dx * dx + dy * dy), ds = r - c[3];
    if (ds >= d) continue;
    d = ds;
    g[0] = r > 0.0 ? dx / r : 1.0, g[1] = r > 0.0 ? dy / r : 0.0;
  }
  if (grad) grad[0] = (float)g[0], grad[1] = (float)g[1];
  return (float)d;
}

/* True when the segment a -> b stays clear_m from every obstacle (sampled every quarter metre). */
static bool in_sight(const herd_scenario *sc, const float a[2], const float b[2], float clear_m) {
  float dx = b[0] - a[0], dy = b[1] - a[1];
  int samples = 1 + (int)(sqrtf(dx * dx + dy * dy) / 0.25f);
  for (int s = 0; s <= samples; ++s) {
    float t = (float)s / (float)samples;
    if (clearance_at(sc, a[0] + t * dx, a[1] + t * dy, NULL) < clear_m) return false;
  }
  return true;
}

void herd_route_slide(const herd_scenario *sc, float pos[2], float dx, float dy, float clear_m) {
  int steps = 1 + (int)(sqrtf(dx * dx + dy * dy) / 0.25f);
  for (int s = 0; s < steps; ++s) {
    pos[0] += dx / (float)steps, pos[1] += dy / (float)steps;
    float grad[2], d = clearance_at(sc, pos[0], pos[1], grad);
    if (d < clear_m) pos[0] += (clear_m - d) * grad[0], pos[1] += (clear_m - d) * grad[1];
  }
}

/* ---- The grid -------------------------------------------------------------------------- */

static bool cell_of(const herd_route *r, float x, float y, uint32_t *c) {
  float fx = (x - r->x0) / r->h, fy = (y - r->y0) / r->h;
  if (!(fx >= 0.0f && fy >= 0.0f && fx < (float)r->nx && fy < (float)r->ny)) return false;
  *c = (uint32_t)fy * r->nx + (uint32_t)fx;
  return true;
}

static void centre_of(const herd_route *r, uint32_t c, float out[2]) {
  out[0] = r->x0 + ((float)(c % r->nx) + 0.5f) * r->h;
  out[1] = r->y0 + ((float)(c / r->nx) + 0.5f) * r->h;
}

/* The 8 neighbours of cell c allowed by `ok` (diagonals only when both sides are open, so
 * no path cuts an obstacle's corner); their count. */
static int neighbours(const herd_route *r, const uint8_t *ok, uint32_t c, uint32_t out[8], float cost[8]) {
  int32_t i = (int32_t)(c % r->nx), j = (int32_t)(c / r->nx), n = 0;
  for (int32_t dj = -1; dj <= 1; ++dj)
    for (int32_t di = -1; di <= 1; ++di) {
      int32_t a = i + di, b = j + dj;
      if ((!di && !dj) || a < 0 || b < 0 || a >= (int32_t)r->nx || b >= (int32_t)r->ny) continue;
      uint32_t to = (uint32_t)b * r->nx + (uint32_t)a;
      if (!ok[to]) continue;
      if (di && dj && (!ok[(uint32_t)j * r->nx + (uint32_t)a] || !ok[(uint32_t)b * r->nx + (uint32_t)i])) continue;
      out[n] = to;
      cost[n++] = di && dj ? 1.41421356f * r->h : r->h;
    }
  return n;
}

/* A binary min-heap of cells keyed by key[cell]. */
typedef struct heap {
  uint32_t *cell, size;
  const float *key;
} heap;

static void heap_push(heap *q, uint32_t c) {
  uint32_t k = q->size++;
  while (k > 0 && q->key[q->cell[(k - 1) / 2]] > q->key[c]) q->cell[k] = q->cell[(k - 1) / 2], k = (k - 1) / 2;
  q->cell[k] = c;
}

static uint32_t heap_pop(heap *q) {
  uint32_t top = q->cell[0], last = q->cell[--q->size], k = 0;
  for (;;) {
    uint32_t child = 2 * k + 1;
    if (child >= q->size) break;
    if (child + 1 < q->size && q->key[q->cell[child + 1]] < q->key[q->cell[child]]) ++child;
    if (q->key[q->cell[child]] >= q->key[last]) break;
    q->cell[k] = q->cell[child], k = child;
  }
  if (q->size) q->cell[k] = last;
  return top;
}

/* Dijkstra from every open cell within the goal circle; a cell may enter the heap more than
 * once (stale entries are skipped), so the heap holds up to 8 entries per cell. */
static void fill_distances(herd_route *r) {
  const herd_scenario *sc = r->sc;
  uint32_t cells = r->nx * r->ny;
  heap q = {r->heap, 0, r->dist};
  float goal2 = sc->target.goal_radius_m * sc->target.goal_radius_m;
  for (uint32_t c = 0; c < cells; ++c) {
    float p[2];
    centre_of(r, c, p);
    float dx = p[0] - sc->target.position_m[0], dy = p[1] - sc->target.position_m[1];
    r->dist[c] = r->flock_ok[c] && dx * dx + dy * dy <= goal2 ? 0.0f : UNREACHED;
    if (r->dist[c] == 0.0f) heap_push(&q, c);
  }
  while (q.size) {
    uint32_t c = heap_pop(&q), next[8];
    float cost[8];
    int n = neighbours(r, r->flock_ok, c, next, cost);
    for (int k = 0; k < n; ++k) {
      float d = r->dist[c] + cost[k] * r->weight[next[k]];
      if (d >= r->dist[next[k]]) continue;
      r->dist[next[k]] = d;
      if (q.size < 8 * cells) heap_push(&q, next[k]);
    }
  }
}

/* The grid's box: the world, every shape and the target, with a margin. */
static void grid_box(const herd_scenario *sc, float lo[2], float hi[2]) {
  lo[0] = lo[1] = 0.0f;
  hi[0] = sc->world.size_m[0], hi[1] = sc->world.size_m[1];
  const herd_shape_list *lists[] = {&sc->obstacles.walls, &sc->obstacles.water, &sc->obstacles.pens};
  for (int l = 0; l < 3; ++l)
    for (uint32_t s = 0; s < lists[l]->count; ++s)
      for (uint32_t k = 0; k < lists[l]->s[s].count; ++k)
        for (int a = 0; a < 2; ++a) {
          lo[a] = fminf(lo[a], lists[l]->s[s].v[k][a]);
          hi[a] = fmaxf(hi[a], lists[l]->s[s].v[k][a]);
        }
  for (int a = 0; a < 2; ++a) {
    lo[a] = fminf(lo[a], sc->target.position_m[a]) - 20.0f;
    hi[a] = fmaxf(hi[a], sc->target.position_m[a]) + 20.0f;
  }
}

herd_route *herd_route_build(const herd_scenario *sc) {
  if (!herd_geometry_any(sc) || sc->target.goal_radius_m < 0.0f || sc->world.dims != 2) return NULL;
  herd_route *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  float lo[2], hi[2];
  grid_box(sc, lo, hi);
  r->sc = sc, r->x0 = lo[0], r->y0 = lo[1], r->h = HERD_ROUTE_CELL_M;
  while ((hi[0] - lo[0]) * (hi[1] - lo[1]) / (r->h * r->h) > (float)HERD_ROUTE_MAX_CELLS) r->h *= 1.25f;
  r->nx = (uint32_t)ceilf((hi[0] - lo[0]) / r->h), r->ny = (uint32_t)ceilf((hi[1] - lo[1]) / r->h);
  size_t cells = (size_t)r->nx * r->ny;
  r->dist = malloc(cells * sizeof *r->dist), r->scratch = malloc(cells * sizeof *r->scratch);
  r->weight = malloc(cells * sizeof *r->weight);
  r->flock_ok = malloc(cells), r->dog_ok = malloc(cells);
  r->heap = malloc(8 * cells * sizeof *r->heap), r->came_from = malloc(cells * sizeof *r->came_from);
  if (!r->dist || !r->scratch || !r->weight || !r->flock_ok || !r->dog_ok || !r->heap || !r->came_from) {
    herd_route_free(r);
    return NULL;
  }
  for (uint32_t c = 0; c < cells; ++c) {
    float p[2];
    centre_of(r, c, p);
    float d = clearance_at(sc, p[0], p[1], NULL);
    r->flock_ok[c] = d >= HERD_ROUTE_CLEARANCE_M;
    r->weight[c] = 1.0f + (d < HERD_ROUTE_ROOM_M ? 3.0f * (1.0f - d / HERD_ROUTE_ROOM_M) : 0.0f);
    r->dog_ok[c] = d >= HERD_DOG_CLEARANCE_M;
  }
  fill_distances(r);
  return r;
}

void herd_route_free(herd_route *r) {
  if (!r) return;
  free(r->dist), free(r->scratch), free(r->weight), free(r->flock_ok), free(r->dog_ok), free(r->heap),
      free(r->came_from);
  free(r);
}

float herd_route_distance(const herd_route *r, float x, float y) {
  uint32_t c;
  return r && cell_of(r, x, y, &c) ? r->dist[c] : UNREACHED;
}

/* The reached cell nearest to c within `reach` cells (c itself when reached), by distance to
 * the goal; false when none. A flock's centre may sit in an obstacle's clearance band. */
static bool reached_near(const herd_route *r, uint32_t c, int32_t reach, uint32_t *out) {
  if (isfinite(r->dist[c])) return *out = c, true;
  int32_t i = (int32_t)(c % r->nx), j = (int32_t)(c / r->nx);
  float best = UNREACHED;
  for (int32_t b = j - reach; b <= j + reach; ++b)
    for (int32_t a = i - reach; a <= i + reach; ++a) {
      if (a < 0 || b < 0 || a >= (int32_t)r->nx || b >= (int32_t)r->ny) continue;
      uint32_t k = (uint32_t)b * r->nx + (uint32_t)a;
      if (r->dist[k] < best) best = r->dist[k], *out = k;
    }
  return isfinite(best);
}

bool herd_route_waypoint(const herd_route *r, const float from[2], float ahead_m, float out[2]) {
  out[0] = r->sc->target.position_m[0], out[1] = r->sc->target.position_m[1];
  uint32_t c;
  if (!cell_of(r, from[0], from[1], &c) || !reached_near(r, c, (int32_t)(2.0f * HERD_ROUTE_CLEARANCE_M / r->h), &c))
    return false;
  for (float walked = 0.0f; walked < ahead_m && r->dist[c] > 0.0f;) { /* steepest descent */
    uint32_t next[8], best = c;
    float cost[8], step = 0.0f;
    int n = neighbours(r, r->flock_ok, c, next, cost);
    for (int k = 0; k < n; ++k)
      if (r->dist[next[k]] < r->dist[best]) best = next[k], step = cost[k];
    if (best == c) break;
    walked += step, c = best;
  }
  centre_of(r, c, out);
  return true;
}

/* A* from cell a to cell b over cells a dog may stand on; fills came_from; false when cut off. */
static bool dog_path(herd_route *r, uint32_t a, uint32_t b) {
  uint32_t cells = r->nx * r->ny;
  float *f = malloc(cells * sizeof *f);
  if (!f) return false;
  for (uint32_t c = 0; c < cells; ++c) r->scratch[c] = f[c] = UNREACHED;
  float bx[2];
  centre_of(r, b, bx);
  heap q = {r->heap, 0, f};
  r->scratch[a] = 0.0f;
  float ax[2];
  centre_of(r, a, ax);
  f[a] = hypotf(ax[0] - bx[0], ax[1] - bx[1]);
  heap_push(&q, a);
  bool found = false;
  while (q.size && !found) {
    uint32_t c = heap_pop(&q), next[8];
    if (c == b) found = true;
    float cost[8], p[2];
    int n = neighbours(r, r->dog_ok, c, next, cost);
    for (int k = 0; k < n && !found; ++k) {
      float gn = r->scratch[c] + cost[k];
      if (gn >= r->scratch[next[k]]) continue;
      r->scratch[next[k]] = gn, r->came_from[next[k]] = c;
      centre_of(r, next[k], p);
      f[next[k]] = gn + hypotf(p[0] - bx[0], p[1] - bx[1]);
      if (q.size < 8 * cells) heap_push(&q, next[k]);
    }
  }
  free(f);
  return found;
}

/* The open cell (a dog may stand there) nearest to p within 4 m whose centre p sees without
 * crossing an obstacle; false when none. */
static bool open_cell_in_sight(const herd_route *r, const float p[2], uint32_t *out) {
  uint32_t c;
  if (!cell_of(r, p[0], p[1], &c)) return false;
  int32_t i = (int32_t)(c % r->nx), j = (int32_t)(c / r->nx), reach = (int32_t)ceilf(4.0f / r->h);
  float best = UNREACHED;
  for (int32_t b = j - reach; b <= j + reach; ++b)
    for (int32_t a = i - reach; a <= i + reach; ++a) {
      if (a < 0 || b < 0 || a >= (int32_t)r->nx || b >= (int32_t)r->ny) continue;
      uint32_t k = (uint32_t)b * r->nx + (uint32_t)a;
      float q[2];
      centre_of(r, k, q);
      float d = hypotf(q[0] - p[0], q[1] - p[1]);
      if (!r->dog_ok[k] || d >= best || !in_sight(r->sc, p, q, 0.0f)) continue;
      best = d, *out = k;
    }
  return isfinite(best);
}

bool herd_route_toward(const herd_route *route, const float from[2], const float to[2], float clear_m, float out[2]) {
  herd_route *r = (herd_route *)route; /* the scratch arrays are the route's own workspace */
  out[0] = to[0], out[1] = to[1];
  if (in_sight(r->sc, from, to, clear_m)) return true;
  uint32_t a, b;
  if (!cell_of(r, from[0], from[1], &a) || !cell_of(r, to[0], to[1], &b)) return false;
  /* A start or end in a clearance band: the nearest open cell on the same side of every
   * obstacle (in sight of the point itself). */
  if (!r->dog_ok[a] && !open_cell_in_sight(r, from, &a)) return false;
  if (!r->dog_ok[b] && !open_cell_in_sight(r, to, &b)) return false;
  if (!dog_path(r, a, b)) return false;
  /* The path from a, in order (came_from runs backward; the heap's array, free now, holds it). */
  uint32_t *path = r->heap, n = 0;
  for (uint32_t c = b; c != a; c = r->came_from[c]) path[n++] = c;
  if (n == 0) return true; /* the same cell: go straight */
  /* The farthest cell from the start still in sight: walk forward until one is not. */
  centre_of(r, path[n - 1], out);
  for (uint32_t k = n - 1; k-- > 0;) {
    float p[2];
    centre_of(r, path[k], p);
    if (!in_sight(r->sc, from, p, clear_m)) break;
    out[0] = p[0], out[1] = p[1];
  }
  return true;
}

void herd_route_next(const herd_route *route, const float from[2], const float to[2], float out[2]) {
  out[0] = to[0], out[1] = to[1];
  if (route) herd_route_toward(route, from, to, HERD_DOG_CLEARANCE_M, out);
}

void herd_route_move(const herd_route *route, float pos[2], float dx, float dy) {
  if (route) {
    herd_route_slide(route->sc, pos, dx, dy, HERD_DOG_CLEARANCE_M);
    return;
  }
  pos[0] += dx;
  pos[1] += dy;
}
