/* herd's OpenCL kernels (OpenCL C 1.2), in two programs. The model math comes from the same
 * headers as the CPU backend; these kernels only arrange it over work-items. One step:
 *   herd_bin -> herd_scan_* -> (herd_radix_scatter -> herd_scan_*)... ->
 *   herd_radix_scatter_state -> herd_ranges -> herd_step_<model>
 * (a small flock: herd_grid_small, all of the grid in one work-group)
 * then the observation: herd_reduce_first -> herd_reduce_far, each finished by its last work-group.
 * Every model of kernels/models/models.h brings its kernel herd_step_<name> (kernels/model.h),
 * and herd_step_batch_<name> for batches of worlds (the batch kernels at the end). A model of
 * HERD_PREPASS_MODELS runs its pre-pass first (kernels/knn_coop.cl: Strömbom's n nearest,
 * several lanes per sheep).
 *
 * This file is the main program, the same for every simulation. The kernels whose code
 * depends on the simulation's own sizes (the observation's room for its steering agents, the
 * pre-pass's lanes) are the second program, kernels/sized.cl: a driver caches this one once
 * for all of them, and a GPU compiler checks it once (tests/gpu_compile.py).
 *
 * State buffers hold float2 per agent in 2D and float4 in 3D (grid.dims says which).
 * The flock's groups: kernels/groups.cl.
 * No work-group collectives, no float atomics: integer atomics only count or set bits, and every
 * order that reaches a result is fixed (the stable sort, the fixed reduction tree, the
 * reduction's integer sums). */
#include "models/steps.h"

#ifndef HERD_SCAN_GROUP
#define HERD_SCAN_GROUP 256 /* work-items per scan group; each scans 4 values */
#endif
#define HERD_SCAN_BLOCK (4 * HERD_SCAN_GROUP)

/* ---- Sort by bucket: a stable LSD radix sort ------------------------------------------------
 * Keys are bucket indices below `buckets` (grid.h); as many passes of HERD_RADIX_BITS as the
 * largest key needs. Each pass: the digit histogram of each block of HERD_RADIX_BLOCK keys
 * (herd_bin counts the first pass's as it bins, each scatter the next pass's as it places),
 * an inclusive scan of the digit-major table (hist[digit * blocks + block]: every key of a
 * smaller digit, then of the same digit in an earlier block, goes first), and a scatter in
 * which each work-item places a contiguous run of keys in order. Runs are ranked by the counts
 * of the runs before them, so a block keeps its order: the sort is stable, and the result is
 * the agents by bucket, then by previous index: linear however many agents share a bucket.
 * The only atomics are the scatter's counts of the next digit by the block each key lands in
 * (integers: the same table in any order), a launch fewer per pass than counting the placed
 * keys again; two tables take turns, each cleared by the scan of the other. */
#ifndef HERD_RADIX_BITS
#define HERD_RADIX_BITS 8
#endif
#ifndef HERD_RADIX_GROUP
#define HERD_RADIX_GROUP 32 /* work-items per radix block */
#endif
#define HERD_RADIX (1u << HERD_RADIX_BITS)
#define HERD_RADIX_RUN 32 /* keys per work-item: ranks fit a ushort (a block is 1024 keys) */
#define HERD_RADIX_BLOCK (HERD_RADIX_GROUP * HERD_RADIX_RUN)

/* seen[d * HERD_RADIX_GROUP + t]: keys of digit d in item t's run. Only item t writes column t,
 * so counting needs no atomics and no barrier before it. */
HERD_INLINE void herd_radix_clear(__local ushort *seen, uint t) {
  for (uint d = 0; d < HERD_RADIX; ++d) seen[d * HERD_RADIX_GROUP + t] = 0;
}

HERD_INLINE uint herd_radix_digit(uint key, uint shift) { return (key >> shift) & (HERD_RADIX - 1u); }

/* Once every run is counted: the block's count of each digit into its column of the table. */
HERD_INLINE void herd_radix_block_totals(__local ushort *seen, uint t, __global uint *hist) {
  uint g = get_group_id(0), blocks = get_num_groups(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint d = t; d < HERD_RADIX; d += HERD_RADIX_GROUP) {
    uint sum = 0;
    for (uint c = 0; c < HERD_RADIX_GROUP; ++c) sum += seen[d * HERD_RADIX_GROUP + c];
    hist[d * blocks + g] = sum;
  }
}

/* Bins each agent (its key) and counts the first digit per block. */
__kernel __attribute__((reqd_work_group_size(HERD_RADIX_GROUP, 1, 1))) void herd_bin(__global const float *pos,
                                                                                     herd_grid grid, __global uint *key,
                                                                                     __global uint *hist) {
  __local ushort seen[HERD_RADIX * HERD_RADIX_GROUP];
  uint t = get_local_id(0), first = get_group_id(0) * HERD_RADIX_BLOCK + t * HERD_RADIX_RUN;
  herd_radix_clear(seen, t);
  for (uint r = 0; r < HERD_RADIX_RUN && first + r < grid.count; ++r) {
    uint k = herd_bucket_at(&grid, herd_load_vec(pos, first + r, grid.dims));
    key[first + r] = k;
    ++seen[herd_radix_digit(k, 0u) * HERD_RADIX_GROUP + t];
  }
  herd_radix_block_totals(seen, t, hist);
}

/* Entry `at` of the inclusively scanned digit table, of which `scanned` holds each block of
 * HERD_SCAN_BLOCK entries scanned on its own (herd_scan_blocks) when `blocked` is 1 or 2: the
 * blocks' totals, scanned, are added here (`sums`; with 2, themselves scanned by blocks, whose
 * totals `sums2` are scanned), rather than by launches that add them into the table first. */
HERD_INLINE uint herd_scanned_at(__global const uint *scanned, __global const uint *sums, __global const uint *sums2,
                                 uint blocked, uint at) {
  uint v = scanned[at];
  if (blocked && at >= HERD_SCAN_BLOCK) {
    uint j = at / HERD_SCAN_BLOCK - 1u;
    v += sums[j];
    if (blocked > 1u && j >= HERD_SCAN_BLOCK) v += sums2[j / HERD_SCAN_BLOCK - 1u];
  }
  return v;
}

/* Recounts this block's runs, then turns seen[d][t] into the rank of item t's first key of
 * digit d among the whole pass's (base[d] + seen[d][t]): each item then places its run in
 * order by incrementing its own column. */
HERD_INLINE void herd_radix_rank(__local ushort *seen, __local uint *base, uint t, __global const uint *key, uint first,
                                 uint n, uint shift, __global const uint *scanned, __global const uint *sums,
                                 __global const uint *sums2, uint blocked) {
  uint g = get_group_id(0), blocks = get_num_groups(0);
  herd_radix_clear(seen, t);
  for (uint r = 0; r < HERD_RADIX_RUN && first + r < n; ++r)
    ++seen[herd_radix_digit(key[first + r], shift) * HERD_RADIX_GROUP + t];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint d = t; d < HERD_RADIX; d += HERD_RADIX_GROUP) {
    uint at = d * blocks + g, run = 0;
    base[d] = at ? herd_scanned_at(scanned, sums, sums2, blocked, at - 1u) : 0u;
    for (uint c = 0; c < HERD_RADIX_GROUP; ++c) {
      uint v = seen[d * HERD_RADIX_GROUP + c];
      seen[d * HERD_RADIX_GROUP + c] = (ushort)run;
      run += v;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

/* Where item t's next key k goes (after herd_radix_rank): its digit's place in the pass, plus
 * the keys of that digit the group placed before it. */
HERD_INLINE uint herd_radix_place(__local ushort *seen, __local uint *base, uint t, uint k, uint shift) {
  uint d = herd_radix_digit(k, shift);
  return base[d] + seen[d * HERD_RADIX_GROUP + t]++;
}

/* A pass before the last: keys and their agents' previous indices (`identity`: the key's own
 * index, on the first pass) to their places, each counted in the next pass's table
 * (next_hist, zeroed by this pass's scan) by its digit at next_shift and the block it lands in. */
__kernel __attribute__((reqd_work_group_size(HERD_RADIX_GROUP, 1, 1))) void herd_radix_scatter(
    __global const uint *key, __global const uint *order, uint n, uint shift, uint identity,
    __global const uint *scanned, __global const uint *sums, __global const uint *sums2, uint blocked,
    __global uint *out_key, __global uint *out_order, uint next_shift, __global uint *next_hist) {
  __local ushort seen[HERD_RADIX * HERD_RADIX_GROUP];
  __local uint base[HERD_RADIX];
  uint t = get_local_id(0), first = get_group_id(0) * HERD_RADIX_BLOCK + t * HERD_RADIX_RUN;
  uint blocks = get_num_groups(0);
  herd_radix_rank(seen, base, t, key, first, n, shift, scanned, sums, sums2, blocked);
  for (uint r = 0; r < HERD_RADIX_RUN && first + r < n; ++r) {
    uint i = first + r, k = key[i], to = herd_radix_place(seen, base, t, k, shift);
    out_key[to] = k;
    out_order[to] = identity ? i : order[i];
    atomic_inc(&next_hist[herd_radix_digit(k, next_shift) * blocks + to / HERD_RADIX_BLOCK]);
  }
}

/* The last pass: the keys to their places, and each agent's position, heading and word
 * gathered from where it was, so the sorted state is written once. */
__kernel __attribute__((reqd_work_group_size(HERD_RADIX_GROUP, 1, 1))) void herd_radix_scatter_state(
    __global const uint *key, __global const uint *order, uint n, uint shift, uint identity,
    __global const uint *scanned, __global const uint *sums, __global const uint *sums2, uint blocked,
    __global uint *out_key, __global const float *pos, __global const float *vel, __global const uint *agent,
    __global float *out_pos, __global float *out_vel, __global uint *out_agent, uint dims) {
  __local ushort seen[HERD_RADIX * HERD_RADIX_GROUP];
  __local uint base[HERD_RADIX];
  uint t = get_local_id(0), first = get_group_id(0) * HERD_RADIX_BLOCK + t * HERD_RADIX_RUN;
  herd_radix_rank(seen, base, t, key, first, n, shift, scanned, sums, sums2, blocked);
  for (uint r = 0; r < HERD_RADIX_RUN && first + r < n; ++r) {
    uint i = first + r, k = key[i], to = herd_radix_place(seen, base, t, k, shift), from = identity ? i : order[i];
    out_key[to] = k;
    if (dims == 2u) {
      vstore2(vload2(from, pos), to, out_pos);
      vstore2(vload2(from, vel), to, out_vel);
    } else {
      vstore4(vload4(from, pos), to, out_pos);
      vstore4(vload4(from, vel), to, out_vel);
    }
    out_agent[to] = agent[from];
  }
}

/* Every item of a group of `size` offers its total `run`; returns the sum of the totals of the
 * items before it (Hillis-Steele over totals[], which then holds the inclusive scan). */
HERD_INLINE uint herd_scan_totals_of(__local uint *totals, uint t, uint run, uint size) {
  totals[t] = run;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint step = 1; step < size; step <<= 1) {
    uint add = t >= step ? totals[t - step] : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    totals[t] += add;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  return t > 0 ? totals[t - 1] : 0u;
}

/* herd_scan_totals_of over a scan group. */
HERD_INLINE uint herd_scan_totals(__local uint *totals, uint t, uint run) {
  return herd_scan_totals_of(totals, t, run, HERD_SCAN_GROUP);
}

/* Inclusive scan of group `group`'s block of HERD_SCAN_BLOCK values in place, the same
 * entries of `clear` (if not NULL: the radix sort's next table) zeroed; its total to
 * sums[group] by the group's last item, which returns 1 (the others 0). */
HERD_INLINE int herd_scan_block(__global uint *data, uint n, __global uint *sums, __global uint *clear,
                                __local uint *totals, uint t, uint group) {
  uint base = group * HERD_SCAN_BLOCK + 4u * t;
  uint v[4], run = 0;
  for (uint k = 0; k < 4u; ++k) {
    v[k] = base + k < n ? data[base + k] : 0u;
    if (clear && base + k < n) clear[base + k] = 0u;
    run += v[k];
    v[k] = run;
  }
  uint before = herd_scan_totals(totals, t, run);
  for (uint k = 0; k < 4u; ++k)
    if (base + k < n) data[base + k] = v[k] + before;
  if (t != HERD_SCAN_GROUP - 1) return 0;
  sums[group] = totals[t];
  return 1;
}

/* Inclusive scan of n values in place by one group (n up to a few HERD_SCAN_BLOCKs), the
 * same entries of `clear` (if not NULL) zeroed: each item scans a contiguous share, then the
 * shares' totals are scanned across the group. */
HERD_INLINE void herd_scan_group(volatile __global uint *data, uint n, __global uint *clear, __local uint *totals,
                                 uint t) {
  uint share = (n + HERD_SCAN_GROUP - 1u) / HERD_SCAN_GROUP;
  uint begin = t * share, end = begin + share < n ? begin + share : n, run = 0;
  for (uint i = begin; i < end; ++i) {
    run += data[i];
    data[i] = run;
    if (clear) clear[i] = 0u;
  }
  uint before = herd_scan_totals(totals, t, run);
  for (uint i = begin; i < end; ++i) data[i] += before;
}

/* Inclusive scan of each block of HERD_SCAN_BLOCK values in place; block totals to sums;
 * `clear` (or NULL) zeroed over the same n entries. */
__kernel __attribute__((reqd_work_group_size(HERD_SCAN_GROUP, 1, 1))) void herd_scan_blocks(__global uint *data, uint n,
                                                                                            __global uint *sums,
                                                                                            __global uint *clear) {
  __local uint totals[HERD_SCAN_GROUP];
  herd_scan_block(data, n, sums, clear, totals, get_local_id(0), get_group_id(0));
}

/* herd_scan_blocks, then the last group to finish scans the blocks' totals in place (at most a
 * few HERD_SCAN_BLOCKs of them), which the scatter adds as it reads (herd_scanned_at): one
 * launch instead of two. As the reductions' last group (sized.cl, herd_fold_last, which also
 * takes `last` by pointer, as OpenCL C 1.2 declares local variables only in kernels): each
 * total is fenced before its group's ticket and read back through a volatile pointer, and the
 * ticket is set back to 0; the condition is uniform in the group, so its barriers are reached
 * by all of its items or none. */
HERD_INLINE void herd_scan_blocks_then_totals(__global uint *data, uint n, __global uint *sums, __global uint *clear,
                                              volatile __global uint *ticket, __local uint *totals, __local int *last,
                                              uint t) {
  uint groups = get_num_groups(0);
  if (herd_scan_block(data, n, sums, clear, totals, t, get_group_id(0))) {
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    *last = atomic_inc(ticket) == groups - 1u;
  }
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE); /* its own total too, by another item */
  if (!*last) return;
  herd_scan_group(sums, groups, 0, totals, t);
  if (t == 0) *ticket = 0u;
}

__kernel __attribute__((reqd_work_group_size(HERD_SCAN_GROUP, 1, 1))) void herd_scan_blocks_last(
    __global uint *data, uint n, __global uint *sums, __global uint *clear, volatile __global uint *ticket) {
  __local uint totals[HERD_SCAN_GROUP];
  __local int last;
  herd_scan_blocks_then_totals(data, n, sums, clear, ticket, totals, &last, get_local_id(0));
}

/* Inclusive scan of n values in place by one group: one launch instead of herd_scan_blocks and
 * a scan of its totals: the radix sort scans its small digit tables so. */
__kernel __attribute__((reqd_work_group_size(HERD_SCAN_GROUP, 1, 1))) void herd_scan_single(__global uint *data, uint n,
                                                                                            __global uint *clear) {
  __local uint totals[HERD_SCAN_GROUP];
  herd_scan_group(data, n, clear, totals, get_local_id(0));
}

/* The grid's buckets [b0, b1) from the n sorted keys: each bucket's end (a binary search for
 * the first, then a walk over the buckets' own keys), its agents in order of id
 * (herd_order_bucket), and with `mark`, its flag when they lie in more than one cell (see
 * grid.h). The caller covers every bucket a query reads (herd_grid_buckets_read: a dense box's
 * cells, or the whole table), so nothing is cleared first and no bucket is left stale. */
HERD_INLINE void herd_range_buckets(__global const uint *key, __global float *pos, __global float *vel,
                                    __global uint *agent, const herd_grid *grid, uint mark, __global uint *cell_end,
                                    uint b0, uint b1) {
  uint n = grid->count, i = b0 < b1 ? herd_keys_lower_bound(key, n, b0) : n;
  for (uint b = b0; b < b1; ++b) {
    uint begin = i;
    while (i < n && key[i] == b) ++i; /* the bucket's own agents */
    uint word = i;
    if (i - begin > 1u) {
      herd_order_bucket(pos, vel, agent, begin, i, grid->dims);
      if (mark) {
        herd_cell first = herd_cell_of(grid, herd_load_vec(pos, begin, grid->dims));
        for (uint j = begin + 1u; j < i; ++j)
          if (!herd_same_cell(first, herd_cell_of(grid, herd_load_vec(pos, j, grid->dims)))) {
            word |= HERD_BUCKET_MIXED;
            break;
          }
      }
    }
    cell_end[b] = word;
  }
}

#ifndef HERD_RANGES_RUN
#define HERD_RANGES_RUN 4 /* buckets per work-item of herd_ranges */
#endif

/* The first `buckets` buckets (herd_range_buckets), HERD_RANGES_RUN to a work-item. */
HERD_SIMPLE_KERNEL void herd_ranges(__global const uint *key, __global float *pos, __global float *vel,
                                    __global uint *agent, herd_grid grid, uint buckets, uint mark,
                                    __global uint *cell_end) {
  uint b0 = get_global_id(0) * HERD_RANGES_RUN;
  if (b0 >= buckets) return;
  uint b1 = buckets - b0 < HERD_RANGES_RUN ? buckets : b0 + HERD_RANGES_RUN;
  herd_range_buckets(key, pos, vel, agent, &grid, mark, cell_end, b0, b1);
}

/* ---- A small flock's whole grid in one work-group --------------------------------------------
 * herd_bin, the radix sort and herd_ranges in one launch, for a flock of up to a few times
 * 10^4 agents (the host's GRID_SMALL_MAX), where a launch costs more than the work: each of the
 * HERD_SMALL_GROUP work-items bins, counts and places one contiguous run of agents, the passes
 * of a stable LSD radix sort of HERD_SMALL_BITS each scan their digit-major table of counts in
 * local memory (by hand: no work-group collectives), and the work-group's barriers order the
 * passes through global memory. The result is the same as the launches': agents by (bucket,
 * id), the same cell ends and flags. The one group runs on one compute unit however many stand
 * idle, so a GPU takes it as wide as it allows (the host's option: 1024 work-items, 32 warps,
 * where a CPU device keeps 256); the table is ushort (a place is below GRID_SMALL_MAX) to fit. */
#define HERD_SMALL_BITS 4u
#define HERD_SMALL_DIGITS (1u << HERD_SMALL_BITS)
#ifndef HERD_SMALL_GROUP
#define HERD_SMALL_GROUP HERD_SCAN_GROUP
#endif

__kernel __attribute__((reqd_work_group_size(HERD_SMALL_GROUP, 1, 1))) void herd_grid_small(
    __global const float *pos, __global const float *vel, __global const uint *agent, herd_grid grid, uint buckets,
    uint passes, uint mark, __global uint *key, __global uint *key2, __global uint *order, __global uint *order2,
    __global float *out_pos, __global float *out_vel, __global uint *out_agent, __global uint *cell_end) {
  __local ushort seen[HERD_SMALL_DIGITS * HERD_SMALL_GROUP]; /* seen[d * group + t]: item t's keys of digit d */
  __local uint totals[HERD_SMALL_GROUP];
  uint t = get_local_id(0), n = grid.count, run = (n + HERD_SMALL_GROUP - 1u) / HERD_SMALL_GROUP;
  uint first = t * run < n ? t * run : n, last = n - first < run ? n : first + run;
  for (uint i = first; i < last; ++i) key[i] = herd_bucket_at(&grid, herd_load_vec(pos, i, grid.dims));
  for (uint p = 0; p < passes; ++p) {
    __global const uint *in_key = (p & 1u) ? key2 : key, *in_order = (p & 1u) ? order2 : order;
    __global uint *out_key = (p & 1u) ? key : key2, *out_order = (p & 1u) ? order : order2;
    uint shift = p * HERD_SMALL_BITS;
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE); /* the last pass's keys written, its ranks read */
    for (uint d = 0; d < HERD_SMALL_DIGITS; ++d) seen[d * HERD_SMALL_GROUP + t] = 0u;
    for (uint i = first; i < last; ++i)
      ++seen[((in_key[i] >> shift) & (HERD_SMALL_DIGITS - 1u)) * HERD_SMALL_GROUP + t];
    barrier(CLK_LOCAL_MEM_FENCE);
    /* Exclusive scan of the table, digit-major: item t owns its HERD_SMALL_DIGITS entries from
     * t * HERD_SMALL_DIGITS. Each entry becomes the place of its item's first key of its digit. */
    uint own = t * HERD_SMALL_DIGITS, sum = 0;
    for (uint k = 0; k < HERD_SMALL_DIGITS; ++k) sum += seen[own + k];
    uint before = herd_scan_totals_of(totals, t, sum, HERD_SMALL_GROUP);
    for (uint k = 0; k < HERD_SMALL_DIGITS; ++k) {
      uint v = seen[own + k];
      seen[own + k] = (ushort)before;
      before += v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = first; i < last; ++i) {
      uint k = in_key[i], to = seen[((k >> shift) & (HERD_SMALL_DIGITS - 1u)) * HERD_SMALL_GROUP + t]++;
      uint from = p == 0u ? i : in_order[i];
      out_key[to] = k;
      if (p + 1u < passes) {
        out_order[to] = from;
      } else if (grid.dims == 2u) {
        vstore2(vload2(from, pos), to, out_pos);
        vstore2(vload2(from, vel), to, out_vel);
        out_agent[to] = agent[from];
      } else {
        vstore4(vload4(from, pos), to, out_pos);
        vstore4(vload4(from, vel), to, out_vel);
        out_agent[to] = agent[from];
      }
    }
  }
  barrier(CLK_GLOBAL_MEM_FENCE);
  /* The buckets, a contiguous share to each item: a few times its own agents (the table is
   * under 4 n). */
  uint share = (buckets + HERD_SMALL_GROUP - 1u) / HERD_SMALL_GROUP, b0 = t * share < buckets ? t * share : buckets;
  uint b1 = buckets - b0 < share ? buckets : b0 + share;
  herd_range_buckets((passes & 1u) ? key2 : key, out_pos, out_vel, out_agent, &grid, mark, cell_end, b0, b1);
}

/* ---- Batches: many worlds laid end to end (kernels/model.h, herd_world) ----------------------
 * The sort runs over every world at once with each world's buckets in a range of its own
 * (bucket_base), so each world is sorted exactly as alone; the kernels above then serve as
 * they are, and the ones below are the per-world variants. */

/* The world of a batch's bucket b: the last world whose buckets start at or before b. */
HERD_INLINE uint herd_world_of_bucket(__global const herd_world *worlds, uint count, uint b) {
  uint lo = 0, hi = count;
  while (hi - lo > 1u) {
    uint mid = (lo + hi) / 2u;
    if (worlds[mid].bucket_base <= b)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* herd_bin over every world at once: each world's keys offset by its bucket_base. */
__kernel __attribute__((reqd_work_group_size(HERD_RADIX_GROUP, 1, 1))) void herd_bin_batch(
    __global const float *pos, __global const herd_world *worlds, __global const uint *world_of, uint total,
    __global uint *key, __global uint *hist) {
  __local ushort seen[HERD_RADIX * HERD_RADIX_GROUP];
  uint t = get_local_id(0), first = get_group_id(0) * HERD_RADIX_BLOCK + t * HERD_RADIX_RUN;
  herd_radix_clear(seen, t);
  for (uint r = 0; r < HERD_RADIX_RUN && first + r < total; ++r) {
    herd_world world = worlds[world_of[first + r]];
    uint k = world.bucket_base + herd_bucket_at(&world.grid, herd_load_vec(pos, first + r, world.grid.dims));
    key[first + r] = k;
    ++seen[herd_radix_digit(k, 0u) * HERD_RADIX_GROUP + t];
  }
  herd_radix_block_totals(seen, t, hist);
}

/* Each world's cell ends made relative to its first agent, as a world alone has them. */
HERD_SIMPLE_KERNEL void herd_relative_ends(__global uint *cell_end, __global const herd_world *worlds, uint count,
                                           uint buckets) {
  uint b = get_global_id(0);
  if (b >= buckets) return;
  cell_end[b] -= worlds[herd_world_of_bucket(worlds, count, b)].begin;
}

HERD_SIMPLE_KERNEL void herd_mark_mixed_batch(__global const float *pos, __global const herd_world *worlds,
                                              __global const uint *world_of, uint total, __global uint *cell_end) {
  uint i = get_global_id(0);
  if (i >= total) return;
  herd_world world = worlds[world_of[i]];
  if (i == world.begin) return;
  herd_cell here = herd_cell_of(&world.grid, herd_load_vec(pos, i, world.grid.dims));
  herd_cell before = herd_cell_of(&world.grid, herd_load_vec(pos, i - 1u, world.grid.dims));
  uint b = herd_bucket_of_cell(&world.grid, here);
  if (b != herd_bucket_of_cell(&world.grid, before) || herd_same_cell(here, before)) return;
  atomic_or(&cell_end[world.bucket_base + b], HERD_BUCKET_MIXED);
}

/* ---- The path's pull (herd_agent_guide) --------------------------------------------------
 * In a world with a path, for a model that follows it, before the step: the path's pull on each
 * sorted agent (herd_env_guide; float4 an agent), which the step kernel reads. The search for
 * the path's closest point (kernels/path.h) takes some 80 registers and a 256 B private array on
 * a GPU: in a pass of its own it leaves the step's neighbour loop at the step's occupancy. */
HERD_SIMPLE_KERNEL void herd_path_guide(__global const float *pos, __global const float *env, herd_grid grid,
                                        herd_env_info e, __global float *guide) {
  uint i = get_global_id(0);
  if (i >= grid.count) return;
  herd_store_vec(guide, i, 3u, herd_env_guide(env, &e, herd_load_vec(pos, i, grid.dims)));
}

/* herd_path_guide over a batch: for the agents of the worlds with a path that are stepped. */
HERD_SIMPLE_KERNEL void herd_path_guide_batch(__global const float *pos, __global const float *env,
                                              __global const herd_world *worlds, __global const uint *world_of,
                                              uint total, __global float *guide) {
  uint i = get_global_id(0);
  if (i >= total) return;
  __global const herd_world *world = &worlds[world_of[i]];
  if (!world->info.env.has_path || !world->active) return;
  herd_env_info e = world->info.env;
  herd_store_vec(guide, i, 3u, herd_env_guide(env + world->env_base, &e, herd_load_vec(pos, i, world->grid.dims)));
}

/* ---- For tests and analysis ------------------------------------------------------------- */

/* The k nearest of every sorted agent (2D): row i of `out` (k entries, 0xffffffff past the
 * end) lists sorted indices, ascending by (distance, index) with the private array, in no
 * particular order in a GPU build (herd_cl_knn sorts the rows). */
HERD_SIMPLE_KERNEL void herd_knn(__global const float2 *pos, __global const uint *cell_end, herd_grid grid, uint k,
                                 __global uint *out) {
  uint i = get_global_id(0);
  if (i >= grid.count) return;
#ifdef HERD_KNN_BOUNDED
  /* A GPU build: the cut's agents in the order of the walk (the host sorts the rows). */
  herd_knn_cut cut;
  int ring;
  float reach2;
  uint found = herd_grid_knn_cut(&grid, pos, cell_end, i, k, &cut, &ring, &reach2), n = 0, j;
  herd_knn_walk w = herd_knn_walk_begin(&grid, pos[i], i, ring, reach2);
  float2 d;
  float d2;
  while (herd_knn_walk_next(&w, &grid, pos, cell_end, &j, &d, &d2))
    if (n < found && herd_knn_cut_selected(&cut, herd_knn_key(d2, j))) out[(size_t)i * k + n++] = j;
  for (uint a = n; a < k; ++a) out[(size_t)i * k + a] = 0xffffffffu;
#else
  herd_neighbour best[HERD_MAX_NEIGHBOURS];
  uint found = herd_grid_knn(&grid, pos, cell_end, i, best, k);
  /* The selection is a heap: sort it (selection sort, k is small) for a canonical row. */
  for (uint a = 0; a < found; ++a) {
    uint m = a;
    for (uint c = a + 1; c < found; ++c)
      if (herd_neighbour_before(best[c].d2, best[c].j, best[m].d2, best[m].j)) m = c;
    herd_neighbour t = best[a];
    best[a] = best[m];
    best[m] = t;
    out[(size_t)i * k + a] = best[a].j;
  }
  for (uint a = found; a < k; ++a) out[(size_t)i * k + a] = 0xffffffffu;
#endif
}

#include "groups.cl"
