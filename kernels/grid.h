/* Uniform grid over a spatial hash, and the neighbour queries on it. Shared by the CPU
 * backend and the OpenCL kernels, so both find exactly the same neighbours.
 *
 * Agents are kept sorted by bucket (the hash of their cell, masked to the table size);
 * cell_end[b] is one past the last sorted agent of bucket b, so bucket b holds agents
 * [b ? cell_end[b-1] : 0, cell_end[b]). Hashing makes memory grow with the number of
 * agents, not with the area they cover; two cells sharing a bucket are told apart by
 * recomputing each candidate's cell. */
#ifndef HERD_KERNELS_GRID_H
#define HERD_KERNELS_GRID_H
#include "portable.h"

/* Largest n for the n-nearest-neighbour query: the selection lives in private memory. */
#define HERD_MAX_NEIGHBOURS 256

typedef struct herd_grid {
  float cell_m;        /* cell side; >= every radius queried with herd_grid_radius_* */
  float inv_cell_m;    /* 1 / cell_m */
  herd_u32 table_mask; /* bucket count - 1; the bucket count is a power of two */
  herd_u32 count;      /* agents in the grid */
} herd_grid;

/* One candidate neighbour: squared distance, then sorted index as the tie-break, so the
 * k nearest form one well-defined set in one well-defined order. */
typedef struct herd_neighbour {
  float d2;
  herd_u32 j;
} herd_neighbour;

/* Cell coordinates are clamped so that positions far beyond any plausible field cannot
 * overflow int32 (they then share edge cells, which stays correct, only slower). */
HERD_INLINE herd_i32 herd_cell_coord(float p, float inv_cell_m) {
  float c = herd_floorf(p * inv_cell_m);
  if (c > 1.0e9f) c = 1.0e9f;
  if (c < -1.0e9f) c = -1.0e9f;
  return (herd_i32)c;
}

HERD_INLINE herd_u32 herd_cell_bucket(herd_i32 cx, herd_i32 cy, herd_u32 table_mask) {
  herd_u32 h = (herd_u32)cx * 0x8da6b343u + (herd_u32)cy * 0xd8163841u;
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  return h & table_mask;
}

HERD_INLINE herd_u32 herd_bucket_of(const herd_grid *g, herd_vec2 p) {
  return herd_cell_bucket(herd_cell_coord(p.x, g->inv_cell_m), herd_cell_coord(p.y, g->inv_cell_m), g->table_mask);
}

HERD_INLINE herd_u32 herd_bucket_begin(HERD_GLOBAL const herd_u32 *cell_end, herd_u32 b) {
  return b ? cell_end[b - 1] : 0u;
}

HERD_INLINE int herd_neighbour_before(float d2a, herd_u32 ja, float d2b, herd_u32 jb) {
  return d2a < d2b || (d2a == d2b && ja < jb);
}

/* Inserts (d2, j) into best[0..n), kept ascending, holding at most k; returns the new n. */
HERD_INLINE herd_u32 herd_knn_insert(herd_neighbour *best, herd_u32 n, herd_u32 k, float d2, herd_u32 j) {
  if (n == k && !herd_neighbour_before(d2, j, best[k - 1].d2, best[k - 1].j)) return n;
  herd_u32 at = (n < k) ? n : k - 1;
  while (at > 0 && herd_neighbour_before(d2, j, best[at - 1].d2, best[at - 1].j)) {
    best[at] = best[at - 1];
    --at;
  }
  best[at].d2 = d2;
  best[at].j = j;
  return (n < k) ? n + 1 : n;
}

/* Offers every agent of cell (cx, cy) except `self` to the selection; counts them in *seen. */
HERD_INLINE herd_u32 herd_knn_visit_cell(const herd_grid *g, HERD_GLOBAL const herd_vec2 *pos,
                                         HERD_GLOBAL const herd_u32 *cell_end, herd_u32 self, herd_vec2 p, herd_i32 cx,
                                         herd_i32 cy, herd_neighbour *best, herd_u32 n, herd_u32 k, herd_u32 *seen) {
  herd_u32 b = herd_cell_bucket(cx, cy, g->table_mask);
  herd_u32 end = cell_end[b];
  for (herd_u32 j = herd_bucket_begin(cell_end, b); j < end; ++j) {
    if (j == self) continue;
    herd_vec2 q = pos[j];
    if (herd_cell_coord(q.x, g->inv_cell_m) != cx || herd_cell_coord(q.y, g->inv_cell_m) != cy) continue;
    *seen += 1u;
    herd_vec2 d = herd_v2_sub(q, p);
    n = herd_knn_insert(best, n, k, herd_v2_len2(d), j);
  }
  return n;
}

/* Exact k nearest by brute force: the fallback for agents far from everyone else. */
HERD_INLINE herd_u32 herd_knn_brute(const herd_grid *g, HERD_GLOBAL const herd_vec2 *pos, herd_u32 self, herd_vec2 p,
                                    herd_neighbour *best, herd_u32 k) {
  herd_u32 n = 0;
  for (herd_u32 j = 0; j < g->count; ++j) {
    if (j == self) continue;
    n = herd_knn_insert(best, n, k, herd_v2_len2(herd_v2_sub(pos[j], p)), j);
  }
  return n;
}

/* Distance from p to the outside of the square of cells within Chebyshev ring r of
 * (cx, cy), less a margin for the rounding in herd_cell_coord: no unvisited agent is
 * nearer than this. */
HERD_INLINE float herd_ring_clearance(const herd_grid *g, herd_vec2 p, herd_i32 cx, herd_i32 cy, herd_i32 r) {
  float s = g->cell_m;
  float lo_x = p.x - (float)(cx - r) * s, hi_x = (float)(cx + r + 1) * s - p.x;
  float lo_y = p.y - (float)(cy - r) * s, hi_y = (float)(cy + r + 1) * s - p.y;
  float c = lo_x < hi_x ? lo_x : hi_x;
  c = c < lo_y ? c : lo_y;
  c = c < hi_y ? c : hi_y;
  float ax = p.x < 0.0f ? -p.x : p.x, ay = p.y < 0.0f ? -p.y : p.y;
  float margin = ((ax > ay ? ax : ay) + (float)(r + 1) * s) * 9.5367431640625e-7f; /* 2^-20 */
  return c - margin;
}

/* The k nearest agents to sorted agent `self` (itself excluded), ascending by (d2, j),
 * searched ring by ring of cells outward until the k-th is nearer than any unvisited
 * cell. When the rings would cost more than a scan of all agents, scans all agents.
 * Returns how many were found: k, or count - 1 if fewer exist. */
HERD_INLINE herd_u32 herd_grid_knn(const herd_grid *g, HERD_GLOBAL const herd_vec2 *pos,
                                   HERD_GLOBAL const herd_u32 *cell_end, herd_u32 self, herd_neighbour *best,
                                   herd_u32 k) {
  herd_vec2 p = pos[self];
  herd_i32 cx = herd_cell_coord(p.x, g->inv_cell_m), cy = herd_cell_coord(p.y, g->inv_cell_m);
  herd_u32 others = g->count - 1u, seen = 0, n = 0;
  herd_u32 cells_visited = 1, cell_budget = g->count + 64u;
  n = herd_knn_visit_cell(g, pos, cell_end, self, p, cx, cy, best, n, k, &seen);
  for (herd_i32 r = 1;; ++r) {
    if (seen == others) return n;
    if (n == k) {
      float clear = herd_ring_clearance(g, p, cx, cy, r - 1);
      if (clear > 0.0f && best[k - 1].d2 < clear * clear) return n;
    }
    cells_visited += 8u * (herd_u32)r;
    if (cells_visited > cell_budget) return herd_knn_brute(g, pos, self, p, best, k);
    for (herd_i32 d = -r; d <= r; ++d) {
      n = herd_knn_visit_cell(g, pos, cell_end, self, p, cx + d, cy - r, best, n, k, &seen);
      n = herd_knn_visit_cell(g, pos, cell_end, self, p, cx + d, cy + r, best, n, k, &seen);
    }
    for (herd_i32 d = -r + 1; d <= r - 1; ++d) {
      n = herd_knn_visit_cell(g, pos, cell_end, self, p, cx - r, cy + d, best, n, k, &seen);
      n = herd_knn_visit_cell(g, pos, cell_end, self, p, cx + r, cy + d, best, n, k, &seen);
    }
  }
}

/* Sum of unit vectors pointing from each agent within `radius` (strictly closer, and not
 * at the very same point) toward p. radius must not exceed g->cell_m. Also counts them. */
HERD_INLINE herd_vec2 herd_grid_repulsion_sum(const herd_grid *g, HERD_GLOBAL const herd_vec2 *pos,
                                              HERD_GLOBAL const herd_u32 *cell_end, herd_u32 self, float radius,
                                              herd_u32 *count) {
  herd_vec2 p = pos[self], sum = herd_v2(0.0f, 0.0f);
  float r2 = radius * radius;
  herd_i32 x0 = herd_cell_coord(p.x - radius, g->inv_cell_m), x1 = herd_cell_coord(p.x + radius, g->inv_cell_m);
  herd_i32 y0 = herd_cell_coord(p.y - radius, g->inv_cell_m), y1 = herd_cell_coord(p.y + radius, g->inv_cell_m);
  *count = 0;
  for (herd_i32 cy = y0; cy <= y1; ++cy) {
    for (herd_i32 cx = x0; cx <= x1; ++cx) {
      herd_u32 b = herd_cell_bucket(cx, cy, g->table_mask), end = cell_end[b];
      for (herd_u32 j = herd_bucket_begin(cell_end, b); j < end; ++j) {
        herd_vec2 q = pos[j];
        if (j == self || herd_cell_coord(q.x, g->inv_cell_m) != cx || herd_cell_coord(q.y, g->inv_cell_m) != cy)
          continue;
        herd_vec2 away = herd_v2_sub(p, q);
        float d2 = herd_v2_len2(away);
        if (d2 >= r2 || d2 <= 0.0f) continue;
        sum = herd_v2_madd(sum, 1.0f / herd_sqrtf(d2), away);
        *count += 1u;
      }
    }
  }
  return sum;
}

#endif
