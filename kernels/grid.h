/* Uniform grid over a spatial hash, and the neighbour queries on it. Shared by the CPU
 * backend and the OpenCL kernels, so both find exactly the same neighbours.
 *
 * Agents are kept sorted by bucket (the hash of their cell, masked to the table size);
 * the low 31 bits of cell_end[b] are one past the last sorted agent of bucket b, so bucket b
 * holds agents [end(b-1), end(b)). Hashing makes memory grow with the number of agents,
 * not with the area they cover. The top bit marks a bucket that holds agents of more than
 * one cell (a hash collision): only there must each candidate's cell be recomputed.
 *
 * Two kinds of query: the exact k nearest (Strömbom's attraction; 2D, open world) and
 * "every agent within r" in 2D or 3D, through the wrap of a torus, for any r (cells are
 * sized from the model's largest radius, but a larger r only visits more cells), with an
 * optional view cone. */
#ifndef HERD_KERNELS_GRID_H
#define HERD_KERNELS_GRID_H
#include "agent.h"
#include "params.h" /* HERD_MAX_NEIGHBOURS */

/* Plain 4-byte fields only: the struct goes to the kernels by value. */
typedef struct herd_grid {
  float cell_m;        /* cell side along open axes */
  float inv_cell_m;    /* 1 / cell_m */
  herd_u32 table_mask; /* bucket count - 1; the bucket count is a power of two */
  herd_u32 count;      /* agents in the grid */
  herd_u32 dims;       /* 2 or 3: positions are float2 or float4 (w unused) */
  herd_u32 wrap;       /* bit k set: axis k wraps, with period size_m[k] */
  float size_m[3];     /* the world's extent along each axis, from 0 */
  /* Along a wrapping axis the period holds a whole number of cells, each >= cell_m. */
  float wrap_inv_cell_m[3];
  herd_i32 wrap_cells[3];
  /* Dense mode (dense = 1): the buckets are a box of dense_cells[k] cells per axis from cell
   * dense_lo[k], numbered row-major (x fastest), so the cells x0..x1 of one row are the
   * consecutive buckets of one contiguous run of sorted agents and no two cells of the box
   * collide. A cell outside the box shares the bucket of the box cell nearest to it (clamped
   * per axis): that bucket is then mixed, which keeps every query exact, only slower for the
   * few outliers. dense = 0: the hash below. Along a wrapping axis the box is the whole
   * period. Chosen on the host (herd_grid_dense_box, src/backend/grid_layout.c). */
  herd_u32 dense;
  herd_i32 dense_lo[3];
  herd_i32 dense_cells[3];
  /* The model's cell side, from which a dense box of a crowded flock shrinks its cells (more
   * than HERD_DENSE_CROWDED agents to a cell on average: herd_grid_dense_box); 0: never shrink. */
  float base_cell_m;
  /* The whole flock's agents, of which the grid holds `count` (fewer on an MPI rank, which holds
   * its part and a halo): the table and a crowded flock's cells are laid out for the whole
   * flock, so that every rank builds the grid the whole flock has; an update that depends on
   * the flock's size reads it here. */
  herd_u32 flock_count;
} herd_grid;

/* One candidate neighbour: squared distance, then sorted index as the tie-break, so the
 * k nearest form one well-defined set in one well-defined order. */
typedef struct herd_neighbour {
  float d2;
  herd_u32 j;
} herd_neighbour;

/* floor(p / cell) as an integer. Clamped so that positions far beyond any plausible field
 * cannot overflow int32 (they then share edge cells, which stays correct, only slower).
 * The floor is done by hand: floorf is a library call on baseline x86-64, and this runs
 * for every neighbour candidate. */
HERD_INLINE herd_i32 herd_cell_coord(float p, float inv_cell_m) {
  float c = p * inv_cell_m;
  if (c > 1.0e9f) c = 1.0e9f;
  if (!(c >= -1.0e9f)) c = -1.0e9f; /* NaN too: a float-to-int cast of NaN is undefined */
  herd_i32 i = (herd_i32)c;         /* rounds toward zero */
  return i - ((float)i > c ? 1 : 0);
}

/* Spreads the low 4 bits of v to the even bit positions (for a Morton code). */
HERD_INLINE herd_u32 herd_spread4(herd_u32 v) {
  v &= 0xfu;
  v = (v | (v << 2)) & 0x33u;
  return (v | (v << 1)) & 0x55u;
}

/* Buckets keep space local at small scale and hash it at large scale: the 16 x 16 cells of
 * a tile take 256 consecutive buckets in Morton order, and tiles are placed by a hash.
 * Neighbouring cells then sit close in memory (the queries read them one after another),
 * while a flock of any shape still spreads evenly over the table. */
HERD_INLINE herd_u32 herd_cell_bucket(herd_i32 cx, herd_i32 cy, herd_u32 table_mask) {
  herd_u32 tx = (herd_u32)cx >> 4, ty = (herd_u32)cy >> 4;
  herd_u32 h = tx * 0x8da6b343u + ty * 0xd8163841u;
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  herd_u32 within = herd_spread4((herd_u32)cx) | (herd_spread4((herd_u32)cy) << 1);
  return ((h << 8) | within) & table_mask;
}

/* A raw cell coordinate's place along axis k of the dense box, clamped to its edge. */
HERD_INLINE herd_i32 herd_dense_axis(const herd_grid *g, herd_u32 k, herd_i32 c) {
  herd_i32 i = c - g->dense_lo[k];
  if (i < 0) return 0;
  return i < g->dense_cells[k] ? i : g->dense_cells[k] - 1;
}

/* True when cell (cx, cy) lies inside the dense box: its bucket then holds it alone (mixed
 * only when outliers were clamped into it, which the mixed flag says). */
HERD_INLINE int herd_dense_inside2(const herd_grid *g, herd_i32 cx, herd_i32 cy) {
  return (herd_u32)(cx - g->dense_lo[0]) < (herd_u32)g->dense_cells[0] &&
         (herd_u32)(cy - g->dense_lo[1]) < (herd_u32)g->dense_cells[1];
}

/* The bucket of 2D cell (cx, cy) in either mode. */
HERD_INLINE herd_u32 herd_grid_bucket2(const herd_grid *g, herd_i32 cx, herd_i32 cy) {
  if (!g->dense) return herd_cell_bucket(cx, cy, g->table_mask);
  return (herd_u32)herd_dense_axis(g, 1u, cy) * (herd_u32)g->dense_cells[0] + (herd_u32)herd_dense_axis(g, 0u, cx);
}

HERD_INLINE herd_u32 herd_bucket_of(const herd_grid *g, herd_vec2 p) {
  return herd_grid_bucket2(g, herd_cell_coord(p.x, g->inv_cell_m), herd_cell_coord(p.y, g->inv_cell_m));
}

#define HERD_BUCKET_MIXED 0x80000000u
#define HERD_BUCKET_END_MASK 0x7fffffffu

HERD_INLINE herd_u32 herd_bucket_begin(HERD_GLOBAL const herd_u32 *cell_end, herd_u32 b) {
  return b ? (cell_end[b - 1] & HERD_BUCKET_END_MASK) : 0u;
}

HERD_INLINE herd_u32 herd_bucket_end(HERD_GLOBAL const herd_u32 *cell_end, herd_u32 b) {
  return cell_end[b] & HERD_BUCKET_END_MASK;
}

/* The buckets a query can read: a dense box's cells (every cell outside it is clamped onto
 * the box's edge), else the whole table. A grid's build fills exactly these; the table's rest
 * past a dense box is never read, so it is never written either. */
HERD_INLINE herd_u32 herd_grid_buckets_read(const herd_grid *g) {
  if (!g->dense) return g->table_mask + 1u;
  herd_u32 cells = (herd_u32)g->dense_cells[0] * (herd_u32)g->dense_cells[1];
  return g->dims == 3u ? cells * (herd_u32)g->dense_cells[2] : cells;
}

/* The first of the n ascending keys that is at least b (n when none is): a binary search, so
 * a bucket's range costs O(log n) reads whatever lies between the occupied buckets. */
HERD_INLINE herd_u32 herd_keys_lower_bound(HERD_GLOBAL const herd_u32 *key, herd_u32 n, herd_u32 b) {
  herd_u32 lo = 0, hi = n;
  while (lo < hi) {
    herd_u32 mid = lo + (hi - lo) / 2u;
    if (key[mid] < b)
      lo = mid + 1u;
    else
      hi = mid;
  }
  return lo;
}

HERD_INLINE int herd_in_cell(const herd_grid *g, herd_vec2 q, herd_i32 cx, herd_i32 cy) {
  return herd_cell_coord(q.x, g->inv_cell_m) == cx && herd_cell_coord(q.y, g->inv_cell_m) == cy;
}

/* The sorted agents that may lie in cell (cx, cy). When `check` is set the bucket is
 * mixed and each candidate's cell must be verified; a pure bucket holding another cell
 * gives an empty span. */
typedef struct herd_cell_span {
  herd_u32 begin, end;
  int check;
} herd_cell_span;

HERD_INLINE herd_cell_span herd_cell_span_of(const herd_grid *g, HERD_GLOBAL const herd_vec2 *pos,
                                             HERD_GLOBAL const herd_u32 *cell_end, herd_i32 cx, herd_i32 cy) {
  herd_u32 b = herd_grid_bucket2(g, cx, cy);
  herd_cell_span span;
  span.begin = herd_bucket_begin(cell_end, b);
  span.end = herd_bucket_end(cell_end, b);
  span.check = (cell_end[b] & HERD_BUCKET_MIXED) != 0u;
  /* A pure bucket of a cell inside the dense box can only hold that cell. */
  if (!span.check && span.begin < span.end && !(g->dense && herd_dense_inside2(g, cx, cy)) &&
      !herd_in_cell(g, pos[span.begin], cx, cy))
    span.end = span.begin;
  return span;
}

HERD_INLINE int herd_neighbour_before(float d2a, herd_u32 ja, float d2b, herd_u32 jb) {
  return d2a < d2b || (d2a == d2b && ja < jb);
}

/* The selection is a max-heap on (d2, j): best[0] is the worst kept, so a candidate is
 * rejected with one comparison and accepted in O(log k). */
HERD_INLINE void herd_heap_sift_down(herd_neighbour *heap, herd_u32 n, herd_u32 at, herd_neighbour item) {
  for (;;) {
    herd_u32 child = 2u * at + 1u;
    if (child >= n) break;
    if (child + 1u < n && herd_neighbour_before(heap[child].d2, heap[child].j, heap[child + 1u].d2, heap[child + 1u].j))
      ++child;
    if (!herd_neighbour_before(item.d2, item.j, heap[child].d2, heap[child].j)) break;
    heap[at] = heap[child];
    at = child;
  }
  heap[at] = item;
}

/* Offers (d2, j) to the selection best[0..n) of at most k; returns the new n. */
HERD_INLINE herd_u32 herd_knn_insert(herd_neighbour *best, herd_u32 n, herd_u32 k, float d2, herd_u32 j) {
  herd_neighbour item;
  item.d2 = d2;
  item.j = j;
  if (n < k) {
    herd_u32 at = n;
    while (at > 0u) {
      herd_u32 parent = (at - 1u) / 2u;
      if (!herd_neighbour_before(best[parent].d2, best[parent].j, d2, j)) break;
      best[at] = best[parent];
      at = parent;
    }
    best[at] = item;
    return n + 1u;
  }
  if (herd_neighbour_before(d2, j, best[0].d2, best[0].j)) herd_heap_sift_down(best, n, 0u, item);
  return n;
}

/* Rounding allowance for comparing distances with cell bounds computed in float: cell
 * membership comes from floor(p / cell), which may put a point a few ulps across a bound. */
HERD_INLINE float herd_cell_margin(const herd_grid *g, herd_vec2 p, herd_i32 r) {
  float ax = p.x < 0.0f ? -p.x : p.x, ay = p.y < 0.0f ? -p.y : p.y;
  return ((ax > ay ? ax : ay) + (float)(r + 1) * g->cell_m) * 9.5367431640625e-7f; /* 2^-20 */
}

/* True when no point of cell (cx, cy) can be nearer to p than `reach` (squared: reach2). */
HERD_INLINE int herd_cell_beyond(const herd_grid *g, herd_vec2 p, herd_i32 cx, herd_i32 cy, float margin,
                                 float reach2) {
  float s = g->cell_m;
  float gap_x = (float)cx * s - p.x, gap_y = (float)cy * s - p.y;
  float over_x = p.x - (float)(cx + 1) * s, over_y = p.y - (float)(cy + 1) * s;
  float dx = (gap_x > over_x ? gap_x : over_x) - margin, dy = (gap_y > over_y ? gap_y : over_y) - margin;
  dx = dx > 0.0f ? dx : 0.0f;
  dy = dy > 0.0f ? dy : 0.0f;
  return dx * dx + dy * dy > reach2;
}

/* Offers every agent of cell (cx, cy) except `self` to the selection; counts them in *seen.
 * Once the selection is full, a cell wholly beyond its k-th distance is skipped; `seen`
 * matters only while the selection is not full, so skipping leaves it exact. */
HERD_INLINE herd_u32 herd_knn_visit_cell(const herd_grid *g, HERD_GLOBAL const herd_vec2 *pos,
                                         HERD_GLOBAL const herd_u32 *cell_end, herd_u32 self, herd_vec2 p, herd_i32 cx,
                                         herd_i32 cy, float margin, herd_neighbour *best, herd_u32 n, herd_u32 k,
                                         herd_u32 *seen) {
  if (n == k && n > 0 && herd_cell_beyond(g, p, cx, cy, margin, best[0].d2)) return n;
  herd_cell_span span = herd_cell_span_of(g, pos, cell_end, cx, cy);
  for (herd_u32 j = span.begin; j < span.end; ++j) {
    herd_vec2 q = pos[j];
    if (j == self || (span.check && !herd_in_cell(g, q, cx, cy))) continue;
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
  return c - herd_cell_margin(g, p, r);
}

/* The k nearest as a max-heap on (d2, j), searched ring by ring of cells outward until the
 * k-th is nearer than any unvisited cell; when the rings would cost more than a scan of all
 * agents, scans all agents. Any grid mode; herd_grid_knn's path for the hash, and for the
 * dense mode past its buffer. */
HERD_INLINE herd_u32 herd_grid_knn_rings(const herd_grid *g, HERD_GLOBAL const herd_vec2 *pos,
                                         HERD_GLOBAL const herd_u32 *cell_end, herd_u32 self, herd_neighbour *best,
                                         herd_u32 k) {
  herd_vec2 p = pos[self];
  herd_i32 cx = herd_cell_coord(p.x, g->inv_cell_m), cy = herd_cell_coord(p.y, g->inv_cell_m);
  herd_u32 others = g->count - 1u, seen = 0, n = 0;
  herd_u32 cells_visited = 1, cell_budget = g->count + 64u;
  n = herd_knn_visit_cell(g, pos, cell_end, self, p, cx, cy, 0.0f, best, n, k, &seen);
  for (herd_i32 r = 1;; ++r) {
    if (seen == others) return n;
    if (n == k) {
      float clear = herd_ring_clearance(g, p, cx, cy, r - 1);
      if (clear > 0.0f && best[0].d2 < clear * clear) return n;
    }
    cells_visited += 8u * (herd_u32)r;
    if (cells_visited > cell_budget) return herd_knn_brute(g, pos, self, p, best, k);
    float margin = herd_cell_margin(g, p, r);
    for (herd_i32 d = -r; d <= r; ++d) {
      n = herd_knn_visit_cell(g, pos, cell_end, self, p, cx + d, cy - r, margin, best, n, k, &seen);
      n = herd_knn_visit_cell(g, pos, cell_end, self, p, cx + d, cy + r, margin, best, n, k, &seen);
    }
    for (herd_i32 d = -r + 1; d <= r - 1; ++d) {
      n = herd_knn_visit_cell(g, pos, cell_end, self, p, cx - r, cy + d, margin, best, n, k, &seen);
      n = herd_knn_visit_cell(g, pos, cell_end, self, p, cx + r, cy + d, margin, best, n, k, &seen);
    }
  }
}

/* Rearranges a[0..n) so that a[k-1] is the k-th smallest by (d2, j) and a[0..k-1) hold the
 * k-1 before it, in no particular order (1 <= k <= n). Quickselect with a median-of-three
 * pivot: linear on average, where a heap costs O(log k) per accepted candidate; the keys are
 * distinct (j is), so the result depends only on the input order. The partition is
 * branch-free (each comparison goes either way at random: a branch would be mispredicted
 * half the time) and, in C, moves whole 8-byte entries as one word, with the order of
 * (d2, j) as that of the word rotated (d2 >= 0: its bits order as the float does), so that
 * a store is never read back in two halves (a store-forwarding stall per candidate). */
#ifdef HERD_OPENCL
#define HERD_KNN_WORD herd_neighbour
#define HERD_KNN_KEY_BEFORE(a, b) (((a).d2 < (b).d2) | (((a).d2 == (b).d2) & ((a).j < (b).j)))
#else
typedef herd_u64 __attribute__((may_alias)) herd_knn_word;
#define HERD_KNN_WORD herd_knn_word
/* Little-endian: d2 is the low half of the word, j the high one. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "herd_knn_select reads (d2, j) as one little-endian word"
#endif
#define HERD_KNN_KEY(w) (((w) << 32) | ((w) >> 32))
#define HERD_KNN_KEY_BEFORE(a, b) (HERD_KNN_KEY(a) < HERD_KNN_KEY(b))
#endif
HERD_INLINE void herd_knn_select(herd_neighbour *best, herd_u32 n, herd_u32 k) {
  HERD_KNN_WORD *a = (HERD_KNN_WORD *)best;
  herd_u32 lo = 0, hi = n - 1u, want = k - 1u;
  while (hi > lo) {
    herd_u32 mid = lo + (hi - lo) / 2u;
    HERD_KNN_WORD t;
    if (HERD_KNN_KEY_BEFORE(a[mid], a[lo])) t = a[lo], a[lo] = a[mid], a[mid] = t;
    if (HERD_KNN_KEY_BEFORE(a[hi], a[lo])) t = a[lo], a[lo] = a[hi], a[hi] = t;
    if (HERD_KNN_KEY_BEFORE(a[mid], a[hi])) t = a[mid], a[mid] = a[hi], a[hi] = t;
    HERD_KNN_WORD pivot = a[hi]; /* the median of the three */
    herd_u32 store = lo;
    for (herd_u32 i = lo; i < hi; ++i) {
      t = a[i];
      herd_u32 before = (herd_u32)(HERD_KNN_KEY_BEFORE(t, pivot));
      a[i] = a[store];
      a[store] = t;
      store += before;
    }
    a[hi] = a[store], a[store] = pivot;
    if (store == want) return;
    if (want < store)
      hi = store - 1u;
    else
      lo = store + 1u;
  }
}

/* Row-major strips of the dense box: cells x0..x1 of row y (box coordinates, inclusive) are
 * buckets y * nx + x0 .. y * nx + x1, so their agents are one contiguous sorted range. */
HERD_INLINE herd_u32 herd_dense_strip_begin(const herd_grid *g, HERD_GLOBAL const herd_u32 *cell_end, herd_i32 y,
                                            herd_i32 x0) {
  return herd_bucket_begin(cell_end, (herd_u32)y * (herd_u32)g->dense_cells[0] + (herd_u32)x0);
}

HERD_INLINE herd_u32 herd_dense_strip_end(const herd_grid *g, HERD_GLOBAL const herd_u32 *cell_end, herd_i32 y,
                                          herd_i32 x1) {
  return herd_bucket_end(cell_end, (herd_u32)y * (herd_u32)g->dense_cells[0] + (herd_u32)x1);
}

/* Appends every agent of a strip but `self` to buf[0..*m) as (d2, j); 0 when buf is full. */
HERD_INLINE int herd_knn_gather(HERD_GLOBAL const herd_vec2 *pos, herd_u32 begin, herd_u32 end, herd_u32 self,
                                herd_vec2 p, herd_neighbour *buf, herd_u32 *m) {
  if (end <= begin) return 1;
  if (end - begin - (self >= begin && self < end ? 1u : 0u) > HERD_MAX_NEIGHBOURS - *m) return 0;
  herd_u32 at = *m;
  for (herd_u32 j = begin; j < end; ++j) {
    if (j == self) continue;
    herd_vec2 d = herd_v2_sub(pos[j], p);
    buf[at].d2 = herd_v2_len2(d);
    buf[at].j = j;
    ++at;
  }
  *m = at;
  return 1;
}

/* How many of best[0..m) are nearer than sqrt(r2) (a loop the compiler vectorises). */
HERD_INLINE herd_u32 herd_knn_count_within(const herd_neighbour *best, herd_u32 m, float r2) {
  herd_u32 n = 0;
  for (herd_u32 i = 0; i < m; ++i) n += best[i].d2 < r2 ? 1u : 0u;
  return n;
}

/* Moves the entries of best[0..m) nearer than sqrt(r2) to its front, in their order, the rest
 * overwritten; returns their count. Branch-free, and no entry is read after a store to it. */
HERD_INLINE herd_u32 herd_knn_keep_within(herd_neighbour *best, herd_u32 m, float r2) {
  HERD_KNN_WORD *a = (HERD_KNN_WORD *)best; /* an entry moves as one word (herd_knn_select) */
  herd_u32 n = 0;
  for (herd_u32 i = 0; i < m; ++i) {
    herd_u32 keep = best[i].d2 < r2 ? 1u : 0u;
    a[n] = a[i];
    n += keep;
  }
  return n;
}

/* A coordinate of a square around a cell, in box coordinates, clamped to the box (never
 * intersected with it: an outlier's square still holds the edge cells its own cell shares). */
HERD_INLINE herd_i32 herd_dense_clamp(herd_i32 rel, herd_i32 cells) {
  return rel < 0 ? 0 : rel < cells ? rel : cells - 1;
}

/* Dense mode: squares of whole row strips around the agent's cell, every candidate kept in
 * `best` (its HERD_MAX_NEIGHBOURS entries), then the k-th chosen by herd_knn_select. The
 * first square is the 3 x 3 block; its count sizes the next from the density, so that the
 * k-th neighbour falls inside the square's clearance (herd_ring_clearance: no agent outside
 * the square is nearer), which proves the set exact; a failed proof grows the square past
 * the k-th distance found, so at most once more. A grown square visits only the strips it
 * adds. Past the buffer: the rings. Returns how many were found, or ~0u for "use the rings". */
HERD_INLINE herd_u32 herd_grid_knn_strips(const herd_grid *g, HERD_GLOBAL const herd_vec2 *pos,
                                          HERD_GLOBAL const herd_u32 *cell_end, herd_u32 self, herd_neighbour *best,
                                          herd_u32 k) {
  herd_vec2 p = pos[self];
  herd_i32 cx = herd_cell_coord(p.x, g->inv_cell_m), cy = herd_cell_coord(p.y, g->inv_cell_m);
  herd_i32 nx = g->dense_cells[0], ny = g->dense_cells[1];
  herd_i32 rx = cx - g->dense_lo[0], ry = cy - g->dense_lo[1]; /* the agent's cell in the box, or off it */
  /* The half-width of a square around the agent's cell that covers the whole box. */
  herd_i32 far = rx > nx - 1 - rx ? rx : nx - 1 - rx, r = 1;
  far = far > -rx ? far : -rx;
  far = far > ry ? far : ry;
  far = far > ny - 1 - ry ? far : ny - 1 - ry;
  far = far > -ry ? far : -ry;
  herd_i32 px0 = 1, px1 = 0, py0 = 1, py1 = 0; /* the square visited so far: none */
  herd_u32 m = 0, others = g->count - 1u, want = k < others ? k : others;
  if (want == 0u) return 0u;
  for (;;) {
    herd_i32 x0 = herd_dense_clamp(rx - r, nx), x1 = herd_dense_clamp(rx + r, nx);
    herd_i32 y0 = herd_dense_clamp(ry - r, ny), y1 = herd_dense_clamp(ry + r, ny);
    for (herd_i32 y = y0; y <= y1; ++y) {
      int ok = 1;
      if (y < py0 || y > py1) {
        ok = herd_knn_gather(pos, herd_dense_strip_begin(g, cell_end, y, x0), herd_dense_strip_end(g, cell_end, y, x1),
                             self, p, best, &m);
      } else {
        if (x0 < px0)
          ok = herd_knn_gather(pos, herd_dense_strip_begin(g, cell_end, y, x0),
                               herd_dense_strip_end(g, cell_end, y, px0 - 1), self, p, best, &m);
        if (ok && x1 > px1)
          ok = herd_knn_gather(pos, herd_dense_strip_begin(g, cell_end, y, px1 + 1),
                               herd_dense_strip_end(g, cell_end, y, x1), self, p, best, &m);
      }
      if (!ok) return ~0u;
    }
    px0 = x0, px1 = x1, py0 = y0, py1 = y1;
    int whole = x0 == 0 && y0 == 0 && x1 == nx - 1 && y1 == ny - 1; /* every agent was offered */
    /* The clearance of square r is about c0 + r * s (c0: the distance to the agent's own
     * cell's nearest side): the next square is the smallest whose clearance passes `reach`. */
    float c0 = herd_ring_clearance(g, p, cx, cy, 0), reach;
    if (m >= want && whole) {
      herd_knn_select(best, m, want);
      return want;
    }
    if (m >= want) {
      /* Exact when `want` candidates lie within the clearance (no agent outside the square is
       * that near): then they hold the k nearest, and only they are selected from. */
      float clear = herd_ring_clearance(g, p, cx, cy, r), clear2 = clear * clear;
      herd_u32 within = clear > 0.0f ? herd_knn_count_within(best, m, clear2) : 0u;
      if (within >= want) {
        herd_knn_select(best, herd_knn_keep_within(best, m, clear2), want);
        return want;
      }
      if (within > 0u) { /* from the density within the clearance: k neighbours, 10 % over */
        reach = 1.1f * clear * herd_sqrtf((float)want / (float)within);
      } else {
        herd_knn_select(best, m, want);
        reach = herd_sqrtf(best[want - 1u].d2) + herd_cell_margin(g, p, r); /* the k-th can only come nearer */
      }
    } else {
      if (whole) return m;
      /* From the density seen so far: k neighbours within the reach, 10 % over. */
      float area = (float)((x1 - x0 + 1) * (y1 - y0 + 1)), seen = m > 0u ? (float)m : 0.5f;
      reach = 1.1f * g->cell_m * herd_sqrtf((float)want * area / (3.14159265f * seen));
    }
    herd_i32 next = reach > c0 ? (herd_i32)((reach - c0) * g->inv_cell_m) + 1 : 1;
    r = next > r ? next : r + 1;
    if (r > far) r = far > 1 ? far : 1; /* covers the whole box */
  }
}

/* The k nearest agents to sorted agent `self` (itself excluded) in best[0..found), in no
 * particular order (a heap in hash mode; the selection's order in dense mode). `best` must
 * hold HERD_MAX_NEIGHBOURS entries whatever k (dense mode gathers candidates in it). Exact:
 * the same set in either mode, ties to the lower sorted index. Returns how many were found:
 * k, or count - 1 if fewer exist. */
HERD_INLINE herd_u32 herd_grid_knn(const herd_grid *g, HERD_GLOBAL const herd_vec2 *pos,
                                   HERD_GLOBAL const herd_u32 *cell_end, herd_u32 self, herd_neighbour *best,
                                   herd_u32 k) {
  if (g->dense && g->dims == 2u && g->wrap == 0u) { /* the query is open-world, as the rings */
    herd_u32 found = herd_grid_knn_strips(g, pos, cell_end, self, best, k);
    if (found != ~0u) return found;
  }
  return herd_grid_knn_rings(g, pos, cell_end, self, best, k);
}

/* ---- The k nearest in bounded memory (GPU builds) ------------------------------------------
 * herd_grid_knn keeps its selection in HERD_MAX_NEIGHBOURS entries of private memory, which a GPU
 * places in local memory (DRAM through L1/L2). A GPU build (OpenCL without HERD_KNN_PRIVATE,
 * which the host defines for CPU devices, where the array is cheap) selects the same set with
 * no array at all: a cut through the keys (d2 bits << 32) | j (d2 >= 0, so its bits order as
 * the distances do; the index breaks ties as the heap does) found by radix select, 4 bits a
 * pass, its 16 bins a uint16 in registers; each pass re-reads the candidates (from L1/L2). The
 * set is then every key whose decided top bits are at most the cut's prefix: exactly
 * herd_grid_knn's set, so any sum over it in the fixed point of the models is the CPU's bits.
 * Where (herd_grid_knn_cut): count the candidates ring by ring until a block of cells holds
 * k; select over it (round 1: its k-th distance D1, an upper bound on the true one); if the
 * block's clearance (herd_ring_clearance) exceeds sqrt(D1), done, else select again over the
 * first block whose clearance does, among its candidates within D1 (round 2). Past the cell
 * budget of the rings: the whole grid. docs/opencl.md, "k nearest without a private array". */
#if defined(HERD_OPENCL) && !defined(HERD_KNN_PRIVATE)
#define HERD_KNN_BOUNDED 1

/* The k smallest keys of a set: those whose top `depth` bits are at most `prefix` (none when
 * want = 0). need: the keys still wanted among those whose top bits equal the prefix. */
typedef struct herd_knn_cut {
  ulong prefix;
  uint depth, need, want, done;
} herd_knn_cut;

HERD_INLINE ulong herd_knn_key(float d2, uint j) { return ((ulong)as_uint(d2) << 32) | (ulong)j; }

HERD_INLINE herd_knn_cut herd_knn_cut_begin(uint want) {
  herd_knn_cut c;
  c.prefix = 0ul, c.depth = 0u, c.need = want, c.want = want, c.done = want == 0u;
  return c;
}

HERD_INLINE int herd_knn_cut_selected(const herd_knn_cut *c, ulong key) {
  return c->want > 0u && (c->depth == 0u || (key >> (64u - c->depth)) <= c->prefix);
}

/* Counts key's next digit into `bins` if its decided bits match the prefix. */
HERD_INLINE uint16 herd_knn_cut_count(const herd_knn_cut *c, uint16 bins, ulong key) {
  if (c->depth > 0u && (key >> (64u - c->depth)) != c->prefix) return bins;
  uint digit = (uint)(key >> (60u - c->depth)) & 15u;
  return bins -
         as_uint16((uint16)(digit) == (uint16)(0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 9u, 10u, 11u, 12u, 13u, 14u, 15u));
}

/* After a pass that counted every key of the set: the bin that holds the need-th key becomes
 * part of the prefix; the cut is done once that bin holds exactly the keys still wanted. */
HERD_INLINE void herd_knn_cut_step(herd_knn_cut *c, uint16 bins) {
  uint below = 0, digit = 16u, in_bin = 0;
#define HERD_KNN_BIN(d, v)       \
  do {                           \
    if (digit != 16u) break;     \
    if (below + (v) >= c->need)  \
      digit = (d), in_bin = (v); \
    else                         \
      below += (v);              \
  } while (0)
  HERD_KNN_BIN(0u, bins.s0);
  HERD_KNN_BIN(1u, bins.s1);
  HERD_KNN_BIN(2u, bins.s2);
  HERD_KNN_BIN(3u, bins.s3);
  HERD_KNN_BIN(4u, bins.s4);
  HERD_KNN_BIN(5u, bins.s5);
  HERD_KNN_BIN(6u, bins.s6);
  HERD_KNN_BIN(7u, bins.s7);
  HERD_KNN_BIN(8u, bins.s8);
  HERD_KNN_BIN(9u, bins.s9);
  HERD_KNN_BIN(10u, bins.sa);
  HERD_KNN_BIN(11u, bins.sb);
  HERD_KNN_BIN(12u, bins.sc);
  HERD_KNN_BIN(13u, bins.sd);
  HERD_KNN_BIN(14u, bins.se);
  HERD_KNN_BIN(15u, bins.sf);
#undef HERD_KNN_BIN
  c->depth += 4u;
  if (digit == 16u) { /* fewer keys than wanted: every one of them */
    c->prefix = (c->prefix << 4) | 15ul, c->done = 1u;
    return;
  }
  c->need -= below;
  c->prefix = (c->prefix << 4) | (ulong)digit;
  c->done = in_bin == c->need || c->depth == 64u;
}

/* Candidates of agent `self` at p: every agent of the cells within Chebyshev radius `ring` of
 * p's cell (ring < 0: every agent of the grid), itself excluded, those of cells wholly beyond
 * reach2 skipped and any farther than reach2 (squared) left out; in a fixed order. */
typedef struct herd_knn_walk {
  herd_vec2 p;
  herd_i32 cx, cy, ring, x, y;
  herd_u32 self, c, cells, j, end;
  int check;
  float margin, reach2;
} herd_knn_walk;

HERD_INLINE herd_knn_walk herd_knn_walk_begin(const herd_grid *g, herd_vec2 p, herd_u32 self, herd_i32 ring,
                                              float reach2) {
  herd_knn_walk w;
  w.p = p, w.self = self, w.ring = ring, w.reach2 = reach2;
  w.cx = herd_cell_coord(p.x, g->inv_cell_m), w.cy = herd_cell_coord(p.y, g->inv_cell_m);
  w.x = w.y = 0, w.c = 0u, w.j = w.end = 0u, w.check = 0;
  w.cells = ring < 0 ? 1u : (2u * (herd_u32)ring + 1u) * (2u * (herd_u32)ring + 1u);
  w.margin = herd_cell_margin(g, p, ring < 0 ? 0 : ring);
  return w;
}

HERD_INLINE int herd_knn_walk_next(herd_knn_walk *w, const herd_grid *g, HERD_GLOBAL const herd_vec2 *pos,
                                   HERD_GLOBAL const herd_u32 *cell_end, herd_u32 *j_out, herd_vec2 *d_out,
                                   float *d2_out) {
  for (;;) {
    while (w->j < w->end) {
      herd_u32 j = w->j++;
      if (j == w->self) continue;
      herd_vec2 q = pos[j];
      if (w->check && !herd_in_cell(g, q, w->x, w->y)) continue;
      herd_vec2 d = herd_v2_sub(q, w->p);
      float d2 = herd_v2_len2(d);
      if (d2 > w->reach2) continue;
      *j_out = j, *d_out = d, *d2_out = d2;
      return 1;
    }
    if (w->c >= w->cells) return 0;
    herd_u32 c = w->c++;
    if (w->ring < 0) {
      w->j = 0u, w->end = g->count, w->check = 0;
      continue;
    }
    herd_u32 side = 2u * (herd_u32)w->ring + 1u;
    w->x = w->cx - w->ring + (herd_i32)(c % side), w->y = w->cy - w->ring + (herd_i32)(c / side);
    if (w->reach2 < INFINITY && herd_cell_beyond(g, w->p, w->x, w->y, w->margin, w->reach2)) continue;
    herd_cell_span span = herd_cell_span_of(g, pos, cell_end, w->x, w->y);
    w->j = span.begin, w->end = span.end, w->check = span.check;
  }
}

/* Radix select over the walk's candidates: the cut of the `want` smallest keys. */
HERD_INLINE herd_knn_cut herd_knn_cut_of(const herd_grid *g, HERD_GLOBAL const herd_vec2 *pos,
                                         HERD_GLOBAL const herd_u32 *cell_end, herd_vec2 p, herd_u32 self,
                                         herd_i32 ring, float reach2, herd_u32 want) {
  herd_knn_cut cut = herd_knn_cut_begin(want);
  while (!cut.done) {
    uint16 bins = (uint16)(0u);
    herd_knn_walk w = herd_knn_walk_begin(g, p, self, ring, reach2);
    herd_u32 j;
    herd_vec2 d;
    float d2;
    while (herd_knn_walk_next(&w, g, pos, cell_end, &j, &d, &d2))
      bins = herd_knn_cut_count(&cut, bins, herd_knn_key(d2, j));
    herd_knn_cut_step(&cut, bins);
  }
  return cut;
}

/* The candidates of cell (x, y) but `self`: a pure bucket by its size, without reading it. */
HERD_INLINE herd_u32 herd_knn_count_cell(const herd_grid *g, HERD_GLOBAL const herd_vec2 *pos,
                                         HERD_GLOBAL const herd_u32 *cell_end, herd_u32 self, herd_i32 x, herd_i32 y) {
  herd_cell_span span = herd_cell_span_of(g, pos, cell_end, x, y);
  if (!span.check) return span.end - span.begin - (self >= span.begin && self < span.end ? 1u : 0u);
  herd_u32 n = 0;
  for (herd_u32 j = span.begin; j < span.end; ++j) n += (herd_u32)(j != self && herd_in_cell(g, pos[j], x, y));
  return n;
}

/* The cut of sorted agent `self`'s k nearest (itself excluded) and where its keys lie: the
 * walk of (*ring, *reach2) holds every one of them. Returns how many: k, or count - 1 if fewer
 * exist. The same set as herd_grid_knn's. */
HERD_INLINE herd_u32 herd_grid_knn_cut(const herd_grid *g, HERD_GLOBAL const herd_vec2 *pos,
                                       HERD_GLOBAL const herd_u32 *cell_end, herd_u32 self, herd_u32 k,
                                       herd_knn_cut *cut, herd_i32 *ring, float *reach2) {
  herd_vec2 p = pos[self];
  herd_i32 cx = herd_cell_coord(p.x, g->inv_cell_m), cy = herd_cell_coord(p.y, g->inv_cell_m);
  herd_u32 others = g->count - 1u, want = k < others ? k : others, seen = 0, cells = 0, budget = g->count + 64u;
  *ring = 0, *reach2 = INFINITY;
  if (want == 0u) {
    *cut = herd_knn_cut_begin(0u);
    return 0u;
  }
  herd_i32 r = 0; /* the first block that holds `want` candidates, by counting ring by ring */
  for (;; ++r) {
    cells += r == 0 ? 1u : 8u * (herd_u32)r;
    if (cells > budget) {
      r = -1;
      break;
    }
    if (r == 0) {
      seen += herd_knn_count_cell(g, pos, cell_end, self, cx, cy);
    } else {
      for (herd_i32 d = -r; d <= r; ++d)
        seen += herd_knn_count_cell(g, pos, cell_end, self, cx + d, cy - r) +
                herd_knn_count_cell(g, pos, cell_end, self, cx + d, cy + r);
      for (herd_i32 d = -r + 1; d <= r - 1; ++d)
        seen += herd_knn_count_cell(g, pos, cell_end, self, cx - r, cy + d) +
                herd_knn_count_cell(g, pos, cell_end, self, cx + r, cy + d);
    }
    if (seen >= want) break;
  }
  *cut = herd_knn_cut_of(g, pos, cell_end, p, self, r, INFINITY, want); /* round 1 */
  *ring = r;
  if (r < 0) return want; /* the whole grid */
  /* D1, a bound on the block's k-th distance: every selected d2's bits are at most the
   * prefix's, the undecided ones set (with 12 bits decided, the exponent and 3 of the
   * mantissa: within 1/8 of the k-th); before that, the largest selected (a pass). */
  float d1 = 0.0f;
  if (cut->depth >= 32u) {
    d1 = as_float((uint)(cut->prefix >> (cut->depth - 32u)));
  } else if (cut->depth >= 12u) {
    d1 = as_float(((uint)cut->prefix << (32u - cut->depth)) | ((1u << (32u - cut->depth)) - 1u));
  } else {
    herd_knn_walk w = herd_knn_walk_begin(g, p, self, r, INFINITY);
    herd_u32 j;
    herd_vec2 d;
    float d2;
    while (herd_knn_walk_next(&w, g, pos, cell_end, &j, &d, &d2))
      if (herd_knn_cut_selected(cut, herd_knn_key(d2, j)) && d2 > d1) d1 = d2;
  }
  *reach2 = d1;
  herd_i32 r2 = r; /* the first block that no nearer agent lies outside of, as herd_grid_knn stops its rings */
  for (;; ++r2) {
    if ((2u * (herd_u32)r2 + 1u) * (2u * (herd_u32)r2 + 1u) > budget) {
      r2 = -1;
      break;
    }
    float clear = herd_ring_clearance(g, p, cx, cy, r2);
    if (clear > 0.0f && d1 < clear * clear) break;
  }
  if (r2 == r) return want;
  *cut = herd_knn_cut_of(g, pos, cell_end, p, self, r2, d1, want); /* round 2 */
  *ring = r2;
  return want;
}
#endif

/* Adds to *sum the unit vectors from each agent of sorted range [begin, end) within sqrt(r2)
 * (and not at p itself) toward p, skipping `self` and those `removed` marks; counts them. */
HERD_INLINE herd_vec2 herd_repulsion_add(HERD_GLOBAL const herd_vec2 *pos, HERD_GLOBAL const herd_u32 *removed,
                                         herd_u32 self, herd_vec2 p, float r2, herd_u32 begin, herd_u32 end,
                                         herd_vec2 sum, herd_u32 *count) {
  for (herd_u32 j = begin; j < end; ++j) {
    if (j == self) continue;
    if (removed && (removed[j] & HERD_AGENT_REMOVED)) continue; /* out of the flock: no one to avoid */
    herd_vec2 away = herd_v2_sub(p, pos[j]);
    float d2 = herd_v2_len2(away);
    if (d2 >= r2 || d2 <= 0.0f) continue;
    sum = herd_v2_madd(sum, 1.0f / herd_sqrtf(d2), away);
    *count += 1u;
  }
  return sum;
}

/* Sum of unit vectors pointing from each agent within `radius` (strictly closer, and not
 * at the very same point) toward p, skipping those `removed` (agent words; NULL: none) marks
 * HERD_AGENT_REMOVED; any radius (the cells it touches are visited). Also counts them. On a
 * dense grid each row of those cells is one sorted range (rows and columns clamped to the box,
 * so each bucket is read once; its clamped outliers meet the distance test like the rest): in
 * the box's interior the agents and their order are those of the cell-by-cell walk. */
HERD_INLINE herd_vec2 herd_grid_repulsion_sum(const herd_grid *g, HERD_GLOBAL const herd_vec2 *pos,
                                              HERD_GLOBAL const herd_u32 *cell_end, HERD_GLOBAL const herd_u32 *removed,
                                              herd_u32 self, float radius, herd_u32 *count) {
  herd_vec2 p = pos[self], sum = herd_v2(0.0f, 0.0f);
  float r2 = radius * radius;
  herd_i32 x0 = herd_cell_coord(p.x - radius, g->inv_cell_m), x1 = herd_cell_coord(p.x + radius, g->inv_cell_m);
  herd_i32 y0 = herd_cell_coord(p.y - radius, g->inv_cell_m), y1 = herd_cell_coord(p.y + radius, g->inv_cell_m);
  *count = 0;
  if (g->dense) {
    herd_i32 bx0 = herd_dense_axis(g, 0u, x0), bx1 = herd_dense_axis(g, 0u, x1);
    herd_i32 by1 = herd_dense_axis(g, 1u, y1);
    for (herd_i32 y = herd_dense_axis(g, 1u, y0); y <= by1; ++y)
      sum = herd_repulsion_add(pos, removed, self, p, r2, herd_dense_strip_begin(g, cell_end, y, bx0),
                               herd_dense_strip_end(g, cell_end, y, bx1), sum, count);
    return sum;
  }
  for (herd_i32 cy = y0; cy <= y1; ++cy) {
    for (herd_i32 cx = x0; cx <= x1; ++cx) {
      herd_cell_span span = herd_cell_span_of(g, pos, cell_end, cx, cy);
      if (!span.check) {
        sum = herd_repulsion_add(pos, removed, self, p, r2, span.begin, span.end, sum, count);
        continue;
      }
      for (herd_u32 j = span.begin; j < span.end; ++j) /* a mixed bucket: its agents of this cell, one by one */
        if (herd_in_cell(g, pos[j], cx, cy)) sum = herd_repulsion_add(pos, removed, self, p, r2, j, j + 1u, sum, count);
    }
  }
  return sum;
}

/* ---- Any dimension, open or wrapping axes -------------------------------------------- */

typedef struct herd_cell {
  herd_i32 x, y, z; /* z = 0 in 2D */
} herd_cell;

/* Agent i of a state buffer: float2 per agent in 2D, float4 (w unused) in 3D. */
HERD_INLINE herd_vec3 herd_load_vec(HERD_GLOBAL const float *buf, herd_u32 i, herd_u32 dims) {
  if (dims == 2u) return herd_v3(buf[2u * i], buf[2u * i + 1u], 0.0f);
  return herd_v3(buf[4u * i], buf[4u * i + 1u], buf[4u * i + 2u]);
}

HERD_INLINE void herd_store_vec(HERD_GLOBAL float *buf, herd_u32 i, herd_u32 dims, herd_vec3 v) {
  if (dims == 2u) {
    buf[2u * i] = v.x;
    buf[2u * i + 1u] = v.y;
    return;
  }
  buf[4u * i] = v.x;
  buf[4u * i + 1u] = v.y;
  buf[4u * i + 2u] = v.z;
  buf[4u * i + 3u] = 0.0f;
}

/* Agent i's whole record (float2, or float4 with the w a model may keep memory in). */
HERD_INLINE void herd_copy_state(HERD_GLOBAL const float *in, HERD_GLOBAL float *out, herd_u32 i, herd_u32 dims) {
  herd_u32 stride = dims == 2u ? 2u : 4u;
  for (herd_u32 k = 0; k < stride; ++k) out[stride * i + k] = in[stride * i + k];
}

/* Puts the sorted agents [begin, end) of one bucket in order of id. After the stable sort by
 * bucket, the flock is then ordered by (bucket, id) whatever order it came in, so any subset of
 * it (an MPI rank's agents and its halo, docs/cluster.md) sorts into the same relative order as
 * the whole flock, and every query meets its neighbours in the same order on any number of
 * ranks. Insertion sort: a bucket holds a few agents, and those that stayed in it since the last
 * step are in order already. The flag bits above the id are carried along, not compared. */
HERD_INLINE void herd_order_bucket(HERD_GLOBAL float *pos, HERD_GLOBAL float *vel, HERD_GLOBAL herd_u32 *agent,
                                   herd_u32 begin, herd_u32 end, herd_u32 dims) {
  herd_u32 stride = dims == 2u ? 2u : 4u;
  for (herd_u32 i = begin + 1u; i < end; ++i) {
    herd_u32 word = agent[i], id = herd_agent_id(word);
    if (herd_agent_id(agent[i - 1u]) <= id) continue;
    float p[4], v[4];
    for (herd_u32 k = 0; k < stride; ++k) p[k] = pos[stride * i + k], v[k] = vel[stride * i + k];
    herd_u32 j = i;
    for (; j > begin && herd_agent_id(agent[j - 1u]) > id; --j) {
      herd_copy_state(pos, pos + stride, j - 1u, dims);
      herd_copy_state(vel, vel + stride, j - 1u, dims);
      agent[j] = agent[j - 1u];
    }
    for (herd_u32 k = 0; k < stride; ++k) pos[stride * j + k] = p[k], vel[stride * j + k] = v[k];
    agent[j] = word;
  }
}

HERD_INLINE int herd_axis_wraps(const herd_grid *g, herd_u32 k) { return (int)((g->wrap >> k) & 1u); }

/* The cell of coordinate x along axis k, not yet folded into a wrapping axis's period. */
HERD_INLINE herd_i32 herd_axis_cell_raw(const herd_grid *g, herd_u32 k, float x) {
  return herd_cell_coord(x, herd_axis_wraps(g, k) ? g->wrap_inv_cell_m[k] : g->inv_cell_m);
}

/* A raw cell coordinate folded into [0, cells) along a wrapping axis. */
HERD_INLINE herd_i32 herd_axis_fold(const herd_grid *g, herd_u32 k, herd_i32 c) {
  if (!herd_axis_wraps(g, k)) return c;
  herd_i32 n = g->wrap_cells[k];
  /* Nearly always within one period of the world (queries, positions in [0, size]): no
   * division, which would cost more than the rest of a cell visit. */
  if (c >= 0 && c < n) return c;
  if (c < 0 && c >= -n) return c + n;
  if (c >= n && c < 2 * n) return c - n;
  herd_i32 m = c % n;
  return m < 0 ? m + n : m;
}

HERD_INLINE herd_cell herd_cell_of(const herd_grid *g, herd_vec3 p) {
  herd_cell c;
  c.x = herd_axis_fold(g, 0u, herd_axis_cell_raw(g, 0u, p.x));
  c.y = herd_axis_fold(g, 1u, herd_axis_cell_raw(g, 1u, p.y));
  c.z = g->dims == 3u ? herd_axis_fold(g, 2u, herd_axis_cell_raw(g, 2u, p.z)) : 0;
  return c;
}

HERD_INLINE int herd_same_cell(herd_cell a, herd_cell b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

/* Spreads the low 3 bits of v to every third bit position (a 3D Morton code). */
HERD_INLINE herd_u32 herd_spread3(herd_u32 v) { return (v & 1u) | ((v & 2u) << 2) | ((v & 4u) << 4); }

/* In 3D, the 8 x 8 x 8 cells of a tile take 512 consecutive buckets in Morton order, and
 * tiles are placed by a hash; 2D is herd_cell_bucket. */
HERD_INLINE herd_u32 herd_cell_bucket3(herd_i32 cx, herd_i32 cy, herd_i32 cz, herd_u32 table_mask) {
  herd_u32 tx = (herd_u32)cx >> 3, ty = (herd_u32)cy >> 3, tz = (herd_u32)cz >> 3;
  herd_u32 h = tx * 0x8da6b343u + ty * 0xd8163841u + tz * 0xcb1ab31fu;
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  herd_u32 within = herd_spread3((herd_u32)cx) | (herd_spread3((herd_u32)cy) << 1) | (herd_spread3((herd_u32)cz) << 2);
  return ((h << 9) | within) & table_mask;
}

HERD_INLINE herd_u32 herd_bucket_of_cell(const herd_grid *g, herd_cell c) {
  if (g->dense) {
    herd_u32 z = g->dims == 3u ? (herd_u32)herd_dense_axis(g, 2u, c.z) : 0u;
    return (z * (herd_u32)g->dense_cells[1] + (herd_u32)herd_dense_axis(g, 1u, c.y)) * (herd_u32)g->dense_cells[0] +
           (herd_u32)herd_dense_axis(g, 0u, c.x);
  }
  return g->dims == 3u ? herd_cell_bucket3(c.x, c.y, c.z, g->table_mask) : herd_cell_bucket(c.x, c.y, g->table_mask);
}

HERD_INLINE herd_u32 herd_bucket_at(const herd_grid *g, herd_vec3 p) {
  return herd_bucket_of_cell(g, herd_cell_of(g, p));
}

/* The shortest offset between two coordinates along an axis of period `period`. */
HERD_INLINE float herd_wrap_offset(float d, float period) {
  float half_period = 0.5f * period;
  if (d > half_period) return d - period;
  if (d < -half_period) return d + period;
  return d;
}

/* The offset from p to q, taken the short way through the wrap along wrapping axes. */
HERD_INLINE herd_vec3 herd_world_delta(const herd_grid *g, herd_vec3 p, herd_vec3 q) {
  herd_vec3 d = herd_v3_sub(q, p);
  if (g->wrap & 1u) d.x = herd_wrap_offset(d.x, g->size_m[0]);
  if (g->wrap & 2u) d.y = herd_wrap_offset(d.y, g->size_m[1]);
  if (g->wrap & 4u) d.z = herd_wrap_offset(d.z, g->size_m[2]);
  return d;
}

/* A coordinate brought back into [0, period). */
HERD_INLINE float herd_wrap_coord(float x, float period) {
  if (x >= 0.0f && x < period) return x;
  x -= period * herd_floorf(x / period);
  if (x >= period) x -= period; /* rounding can land on the period itself, or just past it */
  if (x < 0.0f) x += period;
  return x >= 0.0f && x < period ? x : 0.0f;
}

/* A position brought back into the world along wrapping axes. */
HERD_INLINE herd_vec3 herd_world_wrap(const herd_grid *g, herd_vec3 p) {
  if (g->wrap & 1u) p.x = herd_wrap_coord(p.x, g->size_m[0]);
  if (g->wrap & 2u) p.y = herd_wrap_coord(p.y, g->size_m[1]);
  if (g->wrap & 4u) p.z = herd_wrap_coord(p.z, g->size_m[2]);
  return p;
}

/* "Every agent within r of p" as an iterator, so the same loop runs in C and OpenCL C:
 *
 *   herd_radius_query q;
 *   herd_radius_begin(&q, g, p, r, self);
 *   while (herd_radius_next(&q, g, pos, cell_end, &j, &d, &d2)) ... d = offset p -> agent j
 *
 * It visits every cell the ball of radius r touches (each cell once, also when r spans a
 * whole wrapping axis), skips `self` (a sorted index; 0xffffffff for none) and yields the
 * agents with |d| <= r, d taken through the wrap. herd_radius_cone limits it to a view cone.
 *
 * herd_radius_next is two steps a hot loop may also take itself: herd_radius_next_range moves
 * to the next run of sorted candidates [q.j, q.end), and herd_radius_candidate tells whether
 * one of them is yielded, without a branch on the answer, so that a model can sum under a
 * mask instead of mispredicting every third candidate:
 *
 *   while (herd_radius_next_range(&q, g, pos, cell_end))
 *     for (j = q.j; j < q.end; ++j) { in = herd_radius_candidate(&q, g, pos, j, &d, &d2); ... } */
typedef struct herd_radius_query {
  herd_vec3 p, facing;
  float r2, cos_half_fov;         /* cos_half_fov <= -1: no cone */
  herd_u32 self, dims, wrap;      /* the grid's dims and wrap, kept where a hot loop finds them;
                                   * on a CPU's dense grid, the wrap of the run (herd_run_wrap) */
  herd_vec3 period;               /* the world's size along each axis */
  herd_i32 lo[3], span[3], at[3]; /* first raw cell, cells along each axis, current offsets */
  herd_cell cell;
  herd_u32 j, end;
  int check, started; /* started: -1 once herd_radius_next_range has run out */
  /* Dense grid: the query's cells as rows. Along each axis, the first cell of the box it
   * visits and how many (counted on round a wrapping axis); the row now visited (y, z offsets),
   * and which part of it: a row that crosses the wrap is two runs of buckets. */
  herd_i32 first[3], count[3], row[2];
  int part;
#ifndef HERD_OPENCL
  herd_vec3 p_lo, p_hi; /* the least and greatest point whose candidates the runs' wrap serves
                         * (herd_run_wrap): p, or the lanes' points (kernels/lanes.h) */
#endif
} herd_radius_query;

/* Along axis k, the first raw cell of a query of radius r about coordinate c, and how many
 * cells it visits (*lo, *span). */
HERD_INLINE void herd_radius_axis(const herd_grid *g, herd_u32 k, float c, float r, herd_i32 *lo, herd_i32 *span) {
  /* A rounding allowance, as in herd_cell_margin: a point on a cell border may be filed
   * in the cell on either side of it. Visiting one cell too many costs a little time. */
  float reach = r + ((c < 0.0f ? -c : c) + r + g->cell_m) * 9.5367431640625e-7f;
  *lo = herd_axis_cell_raw(g, k, c - reach);
  *span = herd_axis_cell_raw(g, k, c + reach) - *lo + 1;
  if (herd_axis_wraps(g, k) && *span > g->wrap_cells[k]) *span = g->wrap_cells[k];
}

/* On a dense grid, the rows of the query's cells lo, span: along each axis the first cell of
 * the box and how many. */
HERD_INLINE void herd_radius_rows(herd_radius_query *q, const herd_grid *g) {
  for (herd_u32 k = 0; k < 3u; ++k) {
    q->first[k] = 0, q->count[k] = 1;
    if (!g->dense || k >= g->dims) continue;
    if (herd_axis_wraps(g, k)) { /* the box is the whole period; span is at most one period */
      q->first[k] = herd_axis_fold(g, k, q->lo[k]);
      q->count[k] = q->span[k];
      continue;
    }
    /* Cells beyond the box share the bucket of its edge cell: clamped, each bucket is
     * visited once, and the outliers in it still meet the distance test. */
    herd_i32 cells = g->dense_cells[k], hi = q->lo[k] + q->span[k] - 1;
    herd_i32 a = q->lo[k] < g->dense_lo[k] ? 0 : q->lo[k] - g->dense_lo[k];
    herd_i32 b = hi < g->dense_lo[k] ? 0 : hi - g->dense_lo[k];
    a = a < cells ? a : cells - 1;
    b = b < cells ? b : cells - 1;
    q->first[k] = a, q->count[k] = b - a + 1;
  }
}

HERD_INLINE void herd_radius_begin(herd_radius_query *q, const herd_grid *g, herd_vec3 p, float r, herd_u32 self) {
  q->p = p;
#ifndef HERD_OPENCL
  q->p_lo = q->p_hi = p;
#endif
  q->r2 = r * r;
  q->self = self;
  q->dims = g->dims;
  q->wrap = g->wrap;
  q->period = herd_v3(g->size_m[0], g->size_m[1], g->size_m[2]);
  q->facing = herd_v3(0.0f, 0.0f, 0.0f);
  q->cos_half_fov = -2.0f;
  float c[3];
  c[0] = p.x, c[1] = p.y, c[2] = p.z;
  for (herd_u32 k = 0; k < 3u; ++k) {
    q->at[k] = 0;
    if (k >= g->dims) {
      q->lo[k] = 0, q->span[k] = 1;
      continue;
    }
    herd_radius_axis(g, k, c[k], r, &q->lo[k], &q->span[k]);
  }
  q->cell.x = q->cell.y = q->cell.z = 0;
  q->j = q->end = 0u;
  q->check = 0;
  q->started = 0;
  q->row[0] = q->row[1] = 0;
  q->part = 2; /* the first range starts a row */
  herd_radius_rows(q, g);
}

/* Only agents within half_fov of `facing` (a unit vector) from p: the blind angle behind. */
HERD_INLINE void herd_radius_cone(herd_radius_query *q, herd_vec3 facing, float cos_half_fov) {
  q->facing = facing;
  q->cos_half_fov = cos_half_fov;
}

/* Moves to the next cell of the query (sets q->cell only); 0 when there is none. */
HERD_INLINE int herd_radius_next_cell(herd_radius_query *q, const herd_grid *g) {
  if (q->started) {
    if (++q->at[0] == q->span[0]) {
      q->at[0] = 0;
      if (++q->at[1] == q->span[1]) {
        q->at[1] = 0;
        if (++q->at[2] == q->span[2]) return 0;
      }
    }
  }
  q->started = 1;
  q->cell.x = herd_axis_fold(g, 0u, q->lo[0] + q->at[0]);
  q->cell.y = herd_axis_fold(g, 1u, q->lo[1] + q->at[1]);
  q->cell.z = g->dims == 3u ? herd_axis_fold(g, 2u, q->lo[2] + q->at[2]) : 0;
  return 1;
}

/* The sorted agents that may lie in the current cell, whose bucket is b: q->j to q->end, each
 * to be checked against the cell when q->check (a mixed bucket). */
HERD_INLINE void herd_radius_open_bucket(herd_radius_query *q, const herd_grid *g, HERD_GLOBAL const float *pos,
                                         HERD_GLOBAL const herd_u32 *cell_end, herd_u32 b) {
  q->j = herd_bucket_begin(cell_end, b);
  q->end = herd_bucket_end(cell_end, b);
  q->check = (cell_end[b] & HERD_BUCKET_MIXED) != 0u;
  /* A pure bucket holds one cell: if that is another cell, none of it is ours. */
  if (!q->check && q->j < q->end && !herd_same_cell(herd_cell_of(g, herd_load_vec(pos, q->j, g->dims)), q->cell))
    q->end = q->j;
}

/* Moves to the next cell of the query and opens it; 0 when there is none. */
HERD_INLINE int herd_radius_advance(herd_radius_query *q, const herd_grid *g, HERD_GLOBAL const float *pos,
                                    HERD_GLOBAL const herd_u32 *cell_end) {
  if (!herd_radius_next_cell(q, g)) return 0;
  herd_radius_open_bucket(q, g, pos, cell_end, herd_bucket_of_cell(g, q->cell));
  return 1;
}

#ifndef HERD_OPENCL
/* The wrapping axes along which some candidate of a run, the cells [x0, x1) of the dense row
 * (y, z), may lie more than half a period from the query's point: only those need
 * herd_wrap_offset per candidate (herd_radius_wrap), which along the others leaves every offset
 * as it is, so that leaving it out keeps the bits. Along a wrapping axis the flock lies in
 * [0, size) (the models wrap every move, the spawn and a resumed checkpoint are checked), so an
 * agent filed in cell i lies within [i, i + 1] cells up to a rounding far below the 1/8 cell
 * allowed, except one within a rounding of the period's end, which is filed in cell 0: a run
 * with cell 0 keeps the test, as does a period of more cells than floats count exactly to the
 * allowance. Worked out in cells, once a run: CPU only (a GPU's registers cost more than the
 * test). */
HERD_INLINE herd_u32 herd_run_wrap(const herd_radius_query *q, const herd_grid *g, herd_i32 x0, herd_i32 x1, herd_i32 y,
                                   herd_i32 z) {
  const herd_i32 first[3] = {x0, y, z}, past[3] = {x1, y + 1, z + 1};
  const float lo[3] = {q->p_lo.x, q->p_lo.y, q->p_lo.z}, hi[3] = {q->p_hi.x, q->p_hi.y, q->p_hi.z};
  herd_u32 wrap = 0u;
  for (herd_u32 k = 0; k < g->dims; ++k) {
    if (!herd_axis_wraps(g, k)) continue;
    /* Each test is monotone in the point: the greatest decides the first, the least the second,
     * so that lanes of points (kernels/lanes.h) share one answer that holds for each. */
    float at_lo = lo[k] * g->wrap_inv_cell_m[k], at_hi = hi[k] * g->wrap_inv_cell_m[k];
    float half = 0.5f * (float)g->wrap_cells[k];
    int within = first[k] > 0 && g->wrap_cells[k] <= 65536 && (float)first[k] - 0.125f - at_hi > -half &&
                 (float)past[k] + 0.125f - at_lo < half;
    if (!within) wrap |= 1u << k;
  }
  return wrap;
}
#endif

/* On a dense grid, the next row of the query's cells (or the second part of one that crosses
 * the wrap) as one run of candidates: its cells are consecutive buckets, so their agents are
 * one contiguous span of the sorted flock, opened with two loads and no cell test (a mixed
 * bucket there holds only outliers clamped into the box, which the distance test treats like
 * anyone else). The agents come in the order the cells would give them one by one. */
HERD_INLINE int herd_radius_next_row(herd_radius_query *q, const herd_grid *g, HERD_GLOBAL const herd_u32 *cell_end) {
  herd_i32 n0 = g->dense_cells[0], n1 = g->dense_cells[1], n2 = g->dense_cells[2];
  herd_i32 past = q->first[0] + q->count[0]; /* one past the row's last cell, unwrapped */
  if (q->part >= 2 || (q->part == 1 && past <= n0)) {
    if (q->started && ++q->row[0] == q->count[1]) {
      q->row[0] = 0;
      if (++q->row[1] == q->count[2]) return 0;
    }
    q->started = 1;
    q->part = 0;
  }
  herd_i32 x0 = q->part == 0 ? q->first[0] : 0;
  herd_i32 x1 = q->part == 0 ? (past < n0 ? past : n0) : past - n0; /* one past the last */
  ++q->part;
  herd_i32 y = q->first[1] + q->row[0], z = q->first[2] + q->row[1];
  y = y < n1 ? y : y - n1;
  z = z < n2 ? z : z - n2;
  herd_u32 base = ((herd_u32)z * (herd_u32)n1 + (herd_u32)y) * (herd_u32)n0;
  q->j = herd_bucket_begin(cell_end, base + (herd_u32)x0);
  q->end = herd_bucket_end(cell_end, base + (herd_u32)x1 - 1u);
  q->check = 0;
#ifndef HERD_OPENCL
  q->wrap = herd_run_wrap(q, g, x0, x1, y, z);
#endif
  return 1;
}

/* Moves to the next run of candidates, [q->j, q->end): a row of cells on a dense grid, a cell
 * on the hash; 0 when there is none, and from then on. */
HERD_INLINE int herd_radius_next_range(herd_radius_query *q, const herd_grid *g, HERD_GLOBAL const float *pos,
                                       HERD_GLOBAL const herd_u32 *cell_end) {
  if (q->started < 0) return 0;
  if (g->dense ? herd_radius_next_row(q, g, cell_end) : herd_radius_advance(q, g, pos, cell_end)) return 1;
  q->started = -1;
  return 0;
}

/* herd_radius_next_range on a dense grid: the next row of cells, without the hash's state. */
HERD_INLINE int herd_radius_next_dense_row(herd_radius_query *q, const herd_grid *g,
                                           HERD_GLOBAL const herd_u32 *cell_end) {
  if (q->started < 0) return 0;
  if (herd_radius_next_row(q, g, cell_end)) return 1;
  q->started = -1;
  return 0;
}

/* herd_radius_candidate_in with the query's tests as arguments: `wrap` (q's wrap, or 0 where
 * it has none), `cone` (whether q has a view cone) and `check` (q->check), each a constant
 * where a caller can make it one (herd_radius_gather_range), so that a loop over candidates
 * carries only the tests its query needs. The same arithmetic in the same order as any other
 * choice of them for the same query: the same bits. */
HERD_INLINE int herd_radius_candidate_as(const herd_radius_query *q, const herd_grid *g, HERD_GLOBAL const float *pos,
                                         herd_u32 j, herd_u32 dims, herd_u32 wrap, int cone, int check,
                                         herd_vec3 *d_out, float *d2_out) {
  herd_vec3 at = herd_load_vec(pos, j, dims), d = herd_v3_sub(at, q->p);
  /* herd_world_delta, the world's size found as herd_radius_wrap finds the wrap */
#ifdef HERD_OPENCL
  herd_vec3 period = herd_v3(g->size_m[0], g->size_m[1], g->size_m[2]);
#else
  herd_vec3 period = q->period;
#endif
  if (wrap & 1u) d.x = herd_wrap_offset(d.x, period.x);
  if (wrap & 2u) d.y = herd_wrap_offset(d.y, period.y);
  if (dims == 3u && (wrap & 4u)) d.z = herd_wrap_offset(d.z, period.z);
  float d2 = herd_v3_len2(d);
  int in = !(d2 > q->r2) & (j != q->self);
  if (check) in &= herd_same_cell(herd_cell_of(g, at), q->cell);
  if (cone && in) in = !(herd_v3_dot(q->facing, d) < q->cos_half_fov * herd_sqrtf(d2));
  *d_out = d;
  *d2_out = d2;
  return in;
}

/* The query's wrap: on a CPU its copy, where the hot loop finds it; on a GPU the grid's, which
 * a one-world kernel reads from its parameter space rather than holding it in registers. */
HERD_INLINE herd_u32 herd_radius_wrap(const herd_radius_query *q, const herd_grid *g) {
#ifdef HERD_OPENCL
  (void)q;
  return g->wrap;
#else
  (void)g;
  return q->wrap;
#endif
}

/* Candidate j of the current range, in `dims` dimensions (q->dims; a constant where the caller
 * can make it one): the offset from p to it through the wrap (*d_out) and its square
 * (*d2_out), and whether the query yields it. Only the cone's test, which needs a square root,
 * waits for the others to pass. */
HERD_INLINE int herd_radius_candidate_in(const herd_radius_query *q, const herd_grid *g, HERD_GLOBAL const float *pos,
                                         herd_u32 j, herd_u32 dims, herd_vec3 *d_out, float *d2_out) {
  return herd_radius_candidate_as(q, g, pos, j, dims, herd_radius_wrap(q, g), q->cos_half_fov > -1.0f, q->check, d_out,
                                  d2_out);
}

HERD_INLINE int herd_radius_candidate(const herd_radius_query *q, const herd_grid *g, HERD_GLOBAL const float *pos,
                                      herd_u32 j, herd_vec3 *d_out, float *d2_out) {
  return herd_radius_candidate_in(q, g, pos, j, q->dims, d_out, d2_out);
}

/* The next agent of the query: its sorted index, the offset to it and its square; 0 when
 * the query is exhausted. */
HERD_INLINE int herd_radius_next(herd_radius_query *q, const herd_grid *g, HERD_GLOBAL const float *pos,
                                 HERD_GLOBAL const herd_u32 *cell_end, herd_u32 *j_out, herd_vec3 *d_out,
                                 float *d2_out) {
  for (;;) {
    while (q->j < q->end) {
      herd_u32 j = q->j++;
      herd_vec3 d;
      float d2;
      if (!herd_radius_candidate(q, g, pos, j, &d, &d2)) continue;
      *j_out = j;
      *d_out = d;
      *d2_out = d2;
      return 1;
    }
    if (!herd_radius_next_range(q, g, pos, cell_end)) return 0;
  }
}

/* The yielded agents of a query, up to HERD_RADIUS_BATCH at a time (herd_radius_gather). One
 * slot more than that: every candidate is written, and only the yielded ones kept. */
#ifdef HERD_OPENCL
#define HERD_RADIUS_BATCH 8 /* private memory is scarce on a GPU */
#else
#define HERD_RADIUS_BATCH 32
#endif
typedef struct herd_radius_batch {
  herd_u32 j[HERD_RADIUS_BATCH + 1];
  herd_vec3 d[HERD_RADIUS_BATCH + 1];
  float d2[HERD_RADIUS_BATCH + 1];
} herd_radius_batch;

/* The next agents of the query (those herd_radius_next would yield, in the same order) into
 * `b`; how many, 0 once the query is exhausted. Each candidate is written to the next free
 * slot and the count advanced by whether it is yielded: no branch on an answer that is random
 * (about two candidates in three lie outside a ball that cells as large as r cover), which
 * herd_radius_next mispredicts time and again. A model then loops over the batch:
 *
 *   for (n = herd_radius_gather(&q, g, pos, cell_end, &b); n > 0; n = herd_radius_gather(...))
 *     for (k = 0; k < n; ++k) ... b.j[k], b.d[k], b.d2[k] */
/* herd_radius_gather's loop over the current range, for `dims` dimensions: called with a
 * constant, so that each copy loads one layout without a test per candidate. */
HERD_INLINE herd_u32 herd_radius_gather_range_as(herd_radius_query *q, const herd_grid *g, HERD_GLOBAL const float *pos,
                                                 herd_radius_batch *b, herd_u32 n, herd_u32 dims, herd_u32 wrap,
                                                 int cone, int check) {
  herd_u32 j = q->j, end = q->end;
  for (; j < end && n < HERD_RADIUS_BATCH; ++j) {
    herd_vec3 d;
    float d2;
    int in = herd_radius_candidate_as(q, g, pos, j, dims, wrap, cone, check, &d, &d2);
    b->j[n] = j;
    b->d[n] = d;
    b->d2[n] = d2;
    n += (herd_u32)in;
  }
  q->j = j;
  return n;
}

/* The loop of the range's tests made constants: a dense grid's rows never check their cells,
 * boids and NetLogo have no cone (Couzin and fish do), an open world has no wrap. */
HERD_INLINE herd_u32 herd_radius_gather_range(herd_radius_query *q, const herd_grid *g, HERD_GLOBAL const float *pos,
                                              herd_radius_batch *b, herd_u32 n, herd_u32 dims) {
  herd_u32 wrap = herd_radius_wrap(q, g);
  int cone = q->cos_half_fov > -1.0f;
  if (q->check) return herd_radius_gather_range_as(q, g, pos, b, n, dims, wrap, cone, 1);
  if (cone)
    return wrap ? herd_radius_gather_range_as(q, g, pos, b, n, dims, wrap, 1, 0)
                : herd_radius_gather_range_as(q, g, pos, b, n, dims, 0u, 1, 0);
  return wrap ? herd_radius_gather_range_as(q, g, pos, b, n, dims, wrap, 0, 0)
              : herd_radius_gather_range_as(q, g, pos, b, n, dims, 0u, 0, 0);
}

HERD_INLINE herd_u32 herd_radius_gather(herd_radius_query *q, const herd_grid *g, HERD_GLOBAL const float *pos,
                                        HERD_GLOBAL const herd_u32 *cell_end, herd_radius_batch *b) {
  herd_u32 n = 0;
  for (;;) {
    n = q->dims == 2u ? herd_radius_gather_range(q, g, pos, b, n, 2u) : herd_radius_gather_range(q, g, pos, b, n, 3u);
    if (n == HERD_RADIUS_BATCH || !herd_radius_next_range(q, g, pos, cell_end)) return n;
  }
}

/* The loop over the agents a query yields, written once for both backends: the statements
 * after D2 (the body) run for each, in herd_radius_next's order, with J (its sorted index), D
 * (the offset to it through the wrap) and D2 (its square) declared under the names given; `continue` moves to the
 * next. dims is 2 or 3: a constant in the step kernels (one per dimension), so that each loads
 * one layout without a test per candidate.
 *
 * HERD_RADIUS_FOR_EACH_DIRECT (a GPU's): each candidate is tested and, when yielded, taken at
 * once, the sums in registers; a branch costs a warp no more than a mask would, and a
 * batch of candidates would be a private array, which a GPU keeps in DRAM. A loop of its own
 * for a dense grid's rows (no cell test) and for the hash's cells: in one loop both kinds'
 * state stayed live through every candidate, 8-13 registers more on sm_90 (docs/opencl.md).
 * HERD_RADIUS_FOR_EACH_GATHERED (a CPU's): the candidates go through herd_radius_gather's
 * batches first, without a mispredicted branch on each. The same agents in the same order, so
 * the same bits (test_grid checks both against herd_radius_next). */
#define HERD_RADIUS_FOR_EACH_DIRECT(q, g, pos, cell_end, dims, J, D, D2, ...)                                          \
  do {                                                                                                                 \
    if ((g)->dense) {                                                                                                  \
      while (herd_radius_next_dense_row(&(q), g, cell_end))                                                            \
        for (herd_u32 J = (q).j, J##_end = (q).end; J < J##_end; ++J) {                                                \
          herd_vec3 D;                                                                                                 \
          float D2;                                                                                                    \
          if (!herd_radius_candidate_as(&(q), g, pos, J, dims, herd_radius_wrap(&(q), g), (q).cos_half_fov > -1.0f, 0, \
                                        &D, &D2))                                                                      \
            continue;                                                                                                  \
          __VA_ARGS__                                                                                                  \
        }                                                                                                              \
    } else {                                                                                                           \
      while (herd_radius_next_range(&(q), g, pos, cell_end))                                                           \
        for (herd_u32 J = (q).j, J##_end = (q).end; J < J##_end; ++J) {                                                \
          herd_vec3 D;                                                                                                 \
          float D2;                                                                                                    \
          if (!herd_radius_candidate_in(&(q), g, pos, J, dims, &D, &D2)) continue;                                     \
          __VA_ARGS__                                                                                                  \
        }                                                                                                              \
    }                                                                                                                  \
  } while (0)
#define HERD_RADIUS_FOR_EACH_GATHERED(q, g, pos, cell_end, dims, J, D, D2, ...)              \
  do {                                                                                       \
    herd_radius_batch J##_batch;                                                             \
    for (herd_u32 J##_n = herd_radius_gather(&(q), g, pos, cell_end, &J##_batch); J##_n > 0; \
         J##_n = herd_radius_gather(&(q), g, pos, cell_end, &J##_batch))                     \
      for (herd_u32 J##_k = 0; J##_k < J##_n; ++J##_k) {                                     \
        herd_u32 J = J##_batch.j[J##_k];                                                     \
        herd_vec3 D = J##_batch.d[J##_k];                                                    \
        float D2 = J##_batch.d2[J##_k];                                                      \
        (void)J, (void)D, (void)D2;                                                          \
        __VA_ARGS__                                                                          \
      }                                                                                      \
  } while (0)
#if defined(HERD_OPENCL) && !defined(HERD_RADIUS_GATHERED) /* a CPU device's build defines it */
#define HERD_RADIUS_FOR_EACH HERD_RADIUS_FOR_EACH_DIRECT
#else
#define HERD_RADIUS_FOR_EACH HERD_RADIUS_FOR_EACH_GATHERED
#endif

#endif
