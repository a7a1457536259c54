/* Matching shepherds with steering points (Lien et al. 2004, §4.2): three pure functions of the
 * positions, so every shepherd, computing the same match from the same positions, finds its own
 * point without asking the others. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "lien.h"

#define K_MAX HERD_MAX_STEERING

static double dist(const float a[2], const float b[2]) {
  double dx = (double)a[0] - b[0], dy = (double)a[1] - b[1];
  return sqrt(dx * dx + dy * dy);
}

/* ---- Vector projection ------------------------------------------------------------------- */

/* rank[i]: how many of the k points q come before q[i] along axis (ties: the smaller index first). */
static void ranks(uint32_t k, const float q[][2], const float axis[2], uint32_t rank[]) {
  double t[K_MAX];
  for (uint32_t i = 0; i < k; ++i) t[i] = (double)q[i][0] * axis[0] + (double)q[i][1] * axis[1];
  for (uint32_t i = 0; i < k; ++i) {
    rank[i] = 0;
    for (uint32_t j = 0; j < k; ++j) rank[i] += t[j] < t[i] || (t[j] == t[i] && j < i);
  }
}

void herd_lien_assign_projection(uint32_t k, const float s[][2], const float p[][2], const float axis[2],
                                 uint32_t out[]) {
  uint32_t shepherd_rank[K_MAX], point_rank[K_MAX], point_at[K_MAX];
  ranks(k, s, axis, shepherd_rank);
  ranks(k, p, axis, point_rank);
  for (uint32_t j = 0; j < k; ++j) point_at[point_rank[j]] = j;
  for (uint32_t i = 0; i < k; ++i) out[i] = point_at[shepherd_rank[i]]; /* the i-th from the left: the i-th point */
}

/* ---- Greedy (Algorithm 1) ---------------------------------------------------------------- */

typedef struct edge {
  double d;
  uint32_t s, p;
} edge;

/* Ascending distance; ties by shepherd, then point: a total order, so every shepherd sorts alike. */
static int edge_order(const void *a, const void *b) {
  const edge *x = a, *y = b;
  if (x->d != y->d) return x->d < y->d ? -1 : 1;
  if (x->s != y->s) return x->s < y->s ? -1 : 1;
  return (x->p > y->p) - (x->p < y->p);
}

void herd_lien_assign_greedy(uint32_t k, const float s[][2], const float p[][2], uint32_t out[], uint32_t order[][2]) {
  edge e[K_MAX * K_MAX];
  uint32_t n = 0, reported = 0;
  for (uint32_t i = 0; i < k; ++i) /* 1: G's edges, every (shepherd, point) pair */
    for (uint32_t j = 0; j < k; ++j) e[n++] = (edge){dist(s[i], p[j]), i, j};
  qsort(e, n, sizeof *e, edge_order); /* 2: ascending */
  bool s_gone[K_MAX] = {false}, p_gone[K_MAX] = {false};
  for (uint32_t m = 0; m < n; ++m) { /* 3-6: the first remaining edge; its ends' edges removed */
    if (s_gone[e[m].s] || p_gone[e[m].p]) continue;
    s_gone[e[m].s] = p_gone[e[m].p] = true;
    out[e[m].s] = e[m].p;
    if (order) order[reported][0] = e[m].s, order[reported][1] = e[m].p;
    ++reported;
  }
}

/* ---- Hungarian --------------------------------------------------------------------------- */

/* Kuhn-Munkres with row and column potentials u, v (the shortest augmenting path form, O(k^3)):
 * row i (a shepherd) is added at a time, and the cheapest way to give it a column is found by
 * Dijkstra over reduced costs a[i][j] - u[i] - v[j]. Arrays are 1-based: index 0 is the
 * augmenting path's virtual start. */
void herd_lien_assign_hungarian(uint32_t k, const float s[][2], const float p[][2], uint32_t out[]) {
  double a[K_MAX + 1][K_MAX + 1], u[K_MAX + 1] = {0}, v[K_MAX + 1] = {0}, minv[K_MAX + 1];
  uint32_t row_of[K_MAX + 1] = {0}, way[K_MAX + 1] = {0};
  for (uint32_t i = 1; i <= k; ++i)
    for (uint32_t j = 1; j <= k; ++j) a[i][j] = dist(s[i - 1], p[j - 1]);
  for (uint32_t i = 1; i <= k; ++i) {
    bool used[K_MAX + 1] = {false};
    uint32_t j0 = 0;
    row_of[0] = i;
    for (uint32_t j = 0; j <= k; ++j) minv[j] = DBL_MAX;
    do {
      used[j0] = true;
      uint32_t i0 = row_of[j0], j1 = 0;
      double delta = DBL_MAX;
      for (uint32_t j = 1; j <= k; ++j) {
        if (used[j]) continue;
        double cur = a[i0][j] - u[i0] - v[j];
        if (cur < minv[j]) minv[j] = cur, way[j] = j0;
        if (minv[j] < delta) delta = minv[j], j1 = j;
      }
      for (uint32_t j = 0; j <= k; ++j) {
        if (used[j])
          u[row_of[j]] += delta, v[j] -= delta;
        else
          minv[j] -= delta;
      }
      j0 = j1;
    } while (row_of[j0] != 0);
    do { /* flip the augmenting path */
      uint32_t j1 = way[j0];
      row_of[j0] = row_of[j1];
      j0 = j1;
    } while (j0);
  }
  for (uint32_t j = 1; j <= k; ++j) out[row_of[j] - 1] = j - 1;
}

void herd_lien_assign(uint32_t method, uint32_t k, const float s[][2], const float p[][2], const float axis[2],
                      uint32_t out[]) {
  switch (method) {
    case HERD_ASSIGN_PROJECTION: herd_lien_assign_projection(k, s, p, axis, out); return;
    case HERD_ASSIGN_HUNGARIAN: herd_lien_assign_hungarian(k, s, p, out); return;
    default: herd_lien_assign_greedy(k, s, p, out, NULL); return;
  }
}
