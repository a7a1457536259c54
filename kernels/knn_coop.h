/* Cooperative exact k-nearest selection: a work-group of HERD_COOP_GROUP work-items serves
 * HERD_COOP_AGENTS agents with HERD_COOP_LANES lanes each (docs/opencl.md, "The Strömbom
 * pre-pass"). No private heap: the lanes of an agent split the cells of a block of cells
 * around it and select the k-th key by radix select in local memory.
 *
 * The key of candidate j is (d2 bits << 32) | j: d2 >= 0, so its float bits order as the
 * distances do, and the sorted index breaks ties as kernels/grid.h's heap does. The k keys
 * at or below the k-th are then exactly herd_grid_knn's set.
 *
 * One agent's search, pass by pass (each pass one sweep of its block by its lanes):
 *   count   the candidates in block r = 0, 1, ... HERD_COOP_RINGS (Chebyshev radius in cells)
 *           until it holds >= k: r_c. None does: the agent is left far (to the step
 *           kernel's one-agent-per-work-item search).
 *   round 1 radix select over block r_c, 8 bits of the key a pass, until the k-th distance is
 *           known (D1: the k-th of the block, an upper bound on the true k-th): 4 passes.
 *   round 2 only if some agent outside block r_c could be nearer than D1 (grid.h's ring
 *           clearance, with its rounding margin): the same over block r', the first whose
 *           clearance exceeds D1 (beyond HERD_COOP_RINGS: far).
 * A round ends as soon as the bin holding the k-th holds exactly the keys still wanted: the
 * set is then every key whose decided top bits are <= the prefix. After each select pass the
 * agent's lanes walk its 256 bins together (herd_coop_pick: chunk sums, then one chunk). Every agent of a group
 * runs the same number of passes (barriers); one that is done idles. */
#ifndef HERD_KERNELS_KNN_COOP_H
#define HERD_KERNELS_KNN_COOP_H
#include "models/strombom.h"

#define HERD_COOP_GROUP 64 /* work-items per group */
#ifndef HERD_COOP_LANES
#define HERD_COOP_LANES 16 /* lanes per agent: 8, 16 or 32 (a build option) */
#endif
#define HERD_COOP_AGENTS (HERD_COOP_GROUP / HERD_COOP_LANES)
#define HERD_COOP_RINGS 4 /* the largest block searched: 9 x 9 cells */
#define HERD_COOP_DIGIT 8 /* key bits decided per pass */
#define HERD_COOP_BINS 256
#define HERD_COOP_CHUNK (HERD_COOP_BINS / HERD_COOP_LANES) /* bins per lane in the shared walk */

#ifdef HERD_OPENCL

/* An agent's search state (lane 0 updates it between passes). */
#define HERD_COOP_IDLE 0u   /* no agent in this slot */
#define HERD_COOP_COUNT 1u  /* counting block `ring` */
#define HERD_COOP_ROUND1 2u /* selecting over block `ring`: the k-th distance */
#define HERD_COOP_ROUND2 3u /* selecting over block `ring`: the final set */
#define HERD_COOP_DONE 4u   /* the set is the keys of block `ring` with top `depth` bits <= prefix */
#define HERD_COOP_FAR 5u    /* left to the step kernel's own search */

typedef struct herd_coop_slot {
  ulong prefix; /* the key's decided top bits */
  uint self;    /* sorted index */
  uint state;
  int ring;   /* the block's radius in cells */
  uint need;  /* keys still wanted among those with `prefix` */
  uint depth; /* bits of the key decided */
  float d1;   /* round 2: the k-th d2 of round 1's block; no farther candidate can be selected */
} herd_coop_slot;

HERD_INLINE int herd_coop_busy(uint state) {
  return state == HERD_COOP_COUNT || state == HERD_COOP_ROUND1 || state == HERD_COOP_ROUND2;
}

HERD_INLINE ulong herd_coop_key(float d2, uint j) { return ((ulong)as_uint(d2) << 32) | (ulong)j; }

/* True when `key`'s top `depth` bits are at most `prefix` (depth in 8..64). */
HERD_INLINE int herd_coop_selected(ulong key, uint depth, ulong prefix) { return (key >> (64u - depth)) <= prefix; }

/* This lane's share of one pass over agent s's block: cells lane, lane + L, ... in row order.
 * count: returns the candidates seen; select: counts the next digit of every key that
 * matches the prefix into hist; done: adds the offset to every selected candidate to *sum, in
 * the fixed point of kernels/models/strombom.h (the only product wanted so far: the centre
 * of the k nearest), so any split of the lanes gives the CPU's bits. */
HERD_INLINE uint herd_coop_sweep(const herd_grid *g, __global const float2 *pos, __global const uint *cell_end,
                                 herd_coop_slot s, uint lane, __local uint *hist, herd_strombom_sum *sum) {
  float2 p = pos[s.self];
  int cx = herd_cell_coord(p.x, g->inv_cell_m), cy = herd_cell_coord(p.y, g->inv_cell_m);
  uint w = 2u * (uint)s.ring + 1u, seen = 0;
  float margin = herd_cell_margin(g, p, s.ring);
  for (uint c = lane; c < w * w; c += HERD_COOP_LANES) {
    int x = cx - s.ring + (int)(c % w), y = cy - s.ring + (int)(c / w);
    /* Round 2 and the sum: a cell wholly beyond round 1's k-th holds nobody selected (as
     * herd_grid_knn skips cells beyond its k-th). */
    if (s.state != HERD_COOP_COUNT && s.d1 < INFINITY && herd_cell_beyond(g, p, x, y, margin, s.d1)) continue;
    herd_cell_span span = herd_cell_span_of(g, pos, cell_end, x, y);
    if (s.state == HERD_COOP_COUNT && !span.check) { /* a pure bucket: its size, without reading it */
      seen += span.end - span.begin - (s.self >= span.begin && s.self < span.end ? 1u : 0u);
      continue;
    }
    for (uint j = span.begin; j < span.end; ++j) {
      float2 q = pos[j];
      if (j == s.self || (span.check && !herd_in_cell(g, q, x, y))) continue;
      ++seen;
      if (s.state == HERD_COOP_COUNT) continue;
      float2 d = q - p;
      float d2 = herd_v2_len2(d);
      if (d2 > s.d1) continue; /* beyond round 1's k-th: never selected, need not be counted */
      ulong key = herd_coop_key(d2, j);
      if (s.state == HERD_COOP_DONE) {
        if (!herd_coop_selected(key, s.depth, s.prefix)) continue;
        herd_strombom_sum_add(sum, d);
      } else if (s.depth == 0u || (key >> (64u - s.depth)) == s.prefix) {
        atomic_inc(&hist[(uint)(key >> (64u - HERD_COOP_DIGIT - s.depth)) & (HERD_COOP_BINS - 1u)]);
      }
    }
  }
  return seen;
}

/* The lanes' shared walk of agent s's histogram after a select pass (all lanes of the agent,
 * between two barriers): the bin holding the need-th key, without one lane scanning all
 * HERD_COOP_BINS bins. Each lane owns HERD_COOP_CHUNK consecutive bins; part[0..L) are the
 * agent's chunk sums (written by its lanes before the barrier). Each lane adds the sums of
 * the chunks before its own (at most L - 1 reads of local memory, all lanes at once); the one
 * lane whose chunk holds the need-th key (or the last lane, when fewer are left) scans its
 * chunk: HERD_COOP_CHUNK + L + HERD_COOP_CHUNK steps in all (48 at L = 16 and 32, 72 at 8)
 * against 256 for one lane. Returns 1 in that lane alone, with the digit (the same bin
 * the serial walk finds) and the keys below it. */
HERD_INLINE int herd_coop_pick(const herd_coop_slot *s, uint lane, __local const uint *hist, __local const uint *part,
                               uint *digit_out, uint *below_out) {
  uint below = 0;
  for (uint l = 0; l < lane; ++l) below += part[l];
  if (below >= s->need || (below + part[lane] < s->need && lane != HERD_COOP_LANES - 1u)) return 0;
  uint digit = lane * HERD_COOP_CHUNK, last = digit + HERD_COOP_CHUNK - 1u;
  for (; digit < last; ++digit) {
    if (below + hist[digit] >= s->need) break;
    below += hist[digit];
  }
  *digit_out = digit, *below_out = below;
  return 1;
}

/* The step after a pass of agent s over its block, given the pass's count (`seen`, every
 * lane's) and, after a select pass, the bin herd_coop_pick chose (`digit`, with `below` keys
 * under it). Run by one lane of the agent. k: the neighbours wanted. Returns the new state. */
HERD_INLINE herd_coop_slot herd_coop_advance(const herd_grid *g, __global const float2 *pos, herd_coop_slot s, uint k,
                                             uint seen, __local const uint *hist, uint digit, uint below) {
  if (s.state == HERD_COOP_COUNT) {
    if (seen >= k) {
      s.state = HERD_COOP_ROUND1, s.need = k, s.depth = 0u, s.prefix = 0ul;
    } else if (s.ring >= HERD_COOP_RINGS) {
      s.state = HERD_COOP_FAR;
    } else {
      s.ring += 1;
    }
    return s;
  }
  s.need -= below;
  s.prefix = (s.prefix << HERD_COOP_DIGIT) | (ulong)digit;
  s.depth += HERD_COOP_DIGIT;
  int settled = hist[digit] == s.need; /* the bin holds exactly the keys still wanted */
  if (s.state == HERD_COOP_ROUND2) {
    if (settled) s.state = HERD_COOP_DONE;
    return s;
  }
  /* Round 1 goes on until the block's k-th distance is known to the bit (a bin of the first
   * digits spans a factor of 4 in d2: a bound that loose would widen the search). */
  if (s.depth < 32u) return s;
  float d1 = as_float((uint)s.prefix);
  float2 p = pos[s.self];
  int cx = herd_cell_coord(p.x, g->inv_cell_m), cy = herd_cell_coord(p.y, g->inv_cell_m);
  int r = s.ring;
  for (; r <= HERD_COOP_RINGS; ++r) { /* as herd_grid_knn stops its rings */
    float clear = herd_ring_clearance(g, p, cx, cy, r);
    if (clear > 0.0f && d1 < clear * clear) break;
  }
  if (r > HERD_COOP_RINGS) {
    s.state = HERD_COOP_FAR;
  } else if (r == s.ring) {
    /* Nothing outside the block is as near as its k-th: the block's selection is final, if
     * it is settled; else go on over the same block for the set. */
    s.state = settled ? HERD_COOP_DONE : HERD_COOP_ROUND2;
  } else {
    s.state = HERD_COOP_ROUND2, s.ring = r, s.need = k, s.depth = 0u, s.prefix = 0ul, s.d1 = d1;
  }
  return s;
}

#endif
#endif
