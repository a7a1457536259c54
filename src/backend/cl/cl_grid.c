/* The OpenCL backend's grid: bin, scan, the stable radix sort by bucket, the cell ranges
 * (kernels/herd.cl, kernels/grid.h), for a step, the groups and a batch (cl_internal.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "cl_internal.h"

/* The largest table scanned by one group: SCAN_SINGLE_MAX, or $HERD_CL_SCAN_SINGLE_MAX (tests
 * that run the scan by blocks on a small flock: 0 always takes it). */
static uint32_t scan_single_max(void) {
  const char *text = getenv("HERD_CL_SCAN_SINGLE_MAX");
  char *end;
  unsigned long v = text && *text ? strtoul(text, &end, 10) : SCAN_SINGLE_MAX;
  return text && *text && !*end && v < SCAN_SINGLE_MAX ? (uint32_t)v : SCAN_SINGLE_MAX;
}

/* A radix pass's digit table of `n` entries (`hist`) scanned for its scatter, which reads it
 * through herd_scanned_at: by one group when it is small (*blocked = 0; on a GPU a launch costs
 * microseconds, a few thousand values far less); else by blocks, whose last group to finish
 * scans their totals (b->scan_sums[0]) (*blocked = 1), or, when those are too many for one
 * group, by blocks whose totals are scanned so in turn (b->scan_sums[1]) (*blocked = 2). One
 * launch, one, two. The scatter adds the totals itself: no launch adds them into the table.
 * The same launch zeroes `clear` (the next pass's table, which the scatter counts into), or
 * nothing when it is NULL. */
static herd_status scan_digits(herd_backend *b, cl_mem hist, cl_mem clear, uint32_t n, cl_uint *blocked,
                               herd_error *err) {
  uint32_t single = scan_single_max(), blocks = (n + SCAN_BLOCK - 1) / SCAN_BLOCK;
  uint32_t blocks2 = (blocks + SCAN_BLOCK - 1) / SCAN_BLOCK;
  *blocked = n <= single ? 0u : blocks <= single || blocks <= 1u ? 1u : 2u; /* 2: b->scan_sums[1] exists */
  if (blocks2 > SCAN_SINGLE_MAX) return herd_fail(err, HERD_E_BACKEND, "OpenCL: flock too large for the scan");
  cl_mem none = NULL;
  if (!*blocked)
    return herd_cl_run_kernel(b, K_SCAN_SINGLE, SCAN_GROUP, SCAN_GROUP, HERD_STAGE_SORT, err, 3, MEM(hist), VAL(n),
                              MEM(clear));
  if (*blocked == 1u)
    return herd_cl_run_kernel(b, K_SCAN_BLOCKS_LAST, (size_t)blocks * SCAN_GROUP, SCAN_GROUP, HERD_STAGE_SORT, err, 5,
                              MEM(hist), VAL(n), MEM(b->scan_sums[0]), MEM(clear), MEM(b->ticket));
  herd_status s = herd_cl_run_kernel(b, K_SCAN_BLOCKS, (size_t)blocks * SCAN_GROUP, SCAN_GROUP, HERD_STAGE_SORT, err, 4,
                                     MEM(hist), VAL(n), MEM(b->scan_sums[0]), MEM(clear));
  if (s == HERD_OK)
    s = herd_cl_run_kernel(b, K_SCAN_BLOCKS_LAST, (size_t)blocks2 * SCAN_GROUP, SCAN_GROUP, HERD_STAGE_SORT, err, 5,
                           MEM(b->scan_sums[0]), VAL(blocks), MEM(b->scan_sums[1]), MEM(none), MEM(b->ticket));
  return s;
}

/* Radix passes for keys below `buckets`: as many digits as the largest key has. */
static uint32_t radix_passes(uint32_t buckets) {
  uint32_t bits = 0;
  while (bits < 32 && ((buckets - 1u) >> bits)) ++bits;
  return bits ? (bits + RADIX_BITS - 1) / RADIX_BITS : 1u;
}

/* Between two stages of the step's grid (bin, each radix pass, ranges), for a long step only
 * (each look waits for the device): HERD_E_INTERRUPTED once the stop is raised. The state the
 * step reads, [cur], is not written until the step kernel runs, so nothing is undone. */
static herd_status stage_break(herd_backend *b, herd_error *err) {
  bool long_step = b->last_step_s > 0 ? b->last_step_s >= SLOW_STEP_S : b->desc.count >= FIRST_STAGED;
  if (!b->building_step_grid || !b->desc.stop || !long_step) return HERD_OK;
  CL_TRY("clFinish(stage)", herd_cl_finish(b));
  return herd_stop_between_pieces(b->desc.stop) ? HERD_E_INTERRUPTED : HERD_OK;
}

/* After a bin kernel left the keys (each below `keys_below`) in b->key and the first digit's
 * table in b->hist[0]: the stable radix sort by bucket, its last pass gathering the state from
 * [src] into [dst]; the sorted keys are left in b->sorted_key. Pass p scans table p % 2, zeroing
 * the other, which its scatter fills with the next pass's counts. */
herd_status herd_cl_sort_binned(herd_backend *b, uint32_t keys_below, int src, int dst, herd_error *err) {
  uint32_t n = b->desc.count, passes = radix_passes(keys_below), table = (uint32_t)radix_table(n);
  cl_mem keys[2] = {b->key, b->key2}, orders[2] = {b->order, b->order2};
  cl_mem sums2 = b->scan_sums[1] ? b->scan_sums[1] : b->scan_sums[0]; /* read only when the table needs it */
  herd_status s = HERD_OK;
  int in = 0;
  for (uint32_t p = 0; p < passes && s == HERD_OK; ++p) {
    cl_uint shift = p * RADIX_BITS, identity = p == 0, next_shift = shift + RADIX_BITS, blocked = 0;
    bool last = p + 1 == passes;
    cl_mem hist = b->hist[p % 2], next_hist = last ? NULL : b->hist[1 - p % 2];
    s = scan_digits(b, hist, next_hist, table, &blocked, err);
    if (s != HERD_OK) break;
    if (!last)
      s = herd_cl_run_kernel(b, K_RADIX_SCATTER, radix_items(n), RADIX_GROUP, HERD_STAGE_SORT, err, 13, MEM(keys[in]),
                             MEM(orders[in]), VAL(n), VAL(shift), VAL(identity), MEM(hist), MEM(b->scan_sums[0]),
                             MEM(sums2), VAL(blocked), MEM(keys[1 - in]), MEM(orders[1 - in]), VAL(next_shift),
                             MEM(next_hist));
    else
      s = herd_cl_run_kernel(b, K_RADIX_SCATTER_STATE, radix_items(n), RADIX_GROUP, HERD_STAGE_SORT, err, 17,
                             MEM(keys[in]), MEM(orders[in]), VAL(n), VAL(shift), VAL(identity), MEM(hist),
                             MEM(b->scan_sums[0]), MEM(sums2), VAL(blocked), MEM(keys[1 - in]), MEM(b->pos[src]),
                             MEM(b->vel[src]), MEM(b->agent[src]), MEM(b->pos[dst]), MEM(b->vel[dst]),
                             MEM(b->agent[dst]), VAL(b->desc.dims));
    in = 1 - in;
    if (s == HERD_OK) s = stage_break(b, err);
  }
  b->sorted_key = keys[in];
  return s;
}

/* Each bucket's range (and with `mark`, its mixed flag) from the sorted keys, its agents then
 * in order of id (kernels/grid.h, herd_order_bucket), as on the CPU: one work-item per bucket a
 * query reads (herd_grid_buckets_read; `buckets`, a batch's every world's). g->count keys. */
herd_status herd_cl_find_ranges(herd_backend *b, const herd_grid *g, uint32_t buckets, cl_uint mark, herd_error *err) {
  int dst = 1 - b->cur;
  size_t items = (buckets + RANGES_RUN - 1) / RANGES_RUN;
  return herd_cl_run_kernel(b, K_RANGES, items, SIMPLE_GROUP, HERD_STAGE_RANGES, err, 8, MEM(b->sorted_key),
                            MEM(b->pos[dst]), MEM(b->vel[dst]), MEM(b->agent[dst]), VAL(*g), VAL(buckets), VAL(mark),
                            MEM(b->cell_end));
}

/* The largest flock whose grid one work-group builds (herd_grid_small): GRID_SMALL_MAX, or
 * $HERD_CL_GRID_SMALL_MAX when smaller (tests that run the launches on a small flock: 0 never
 * takes the one-group path). */
static uint32_t grid_small_max(void) {
  const char *text = getenv("HERD_CL_GRID_SMALL_MAX");
  char *end;
  unsigned long v = text && *text ? strtoul(text, &end, 10) : GRID_SMALL_MAX;
  return text && *text && !*end && v < GRID_SMALL_MAX ? (uint32_t)v : GRID_SMALL_MAX;
}

/* A small flock's grid in one launch: bin, every pass of the sort, the ranges. */
static herd_status build_small(herd_backend *b, const herd_grid *g, int src, int dst, herd_error *err) {
  cl_uint buckets = herd_grid_buckets_read(g), passes = 0, mark = 1;
  while (passes * GRID_SMALL_BITS < 32u && ((buckets - 1u) >> (passes * GRID_SMALL_BITS))) ++passes;
  if (!passes) passes = 1;
  b->sorted_key = passes & 1u ? b->key2 : b->key;
  return herd_cl_run_kernel(b, K_GRID_SMALL, b->small_group, b->small_group, HERD_STAGE_SORT, err, 15, MEM(b->pos[src]),
                            MEM(b->vel[src]), MEM(b->agent[src]), VAL(*g), VAL(buckets), VAL(passes), VAL(mark),
                            MEM(b->key), MEM(b->key2), MEM(b->order), MEM(b->order2), MEM(b->pos[dst]),
                            MEM(b->vel[dst]), MEM(b->agent[dst]), MEM(b->cell_end));
}

/* Bin on grid g (the model's, or the groups'), stable sort by bucket into [1-cur], cell ranges:
 * a small flock's in one launch, a larger one's in a launch per stage. */
herd_status herd_cl_build_grid_on(herd_backend *b, const herd_grid *g, herd_error *err) {
  uint32_t n = b->desc.count;
  int src = b->cur, dst = 1 - b->cur;
  if (n <= grid_small_max()) return build_small(b, g, src, dst, err);
  herd_status s = herd_cl_run_kernel(b, K_BIN, radix_items(n), RADIX_GROUP, HERD_STAGE_BIN, err, 4, MEM(b->pos[src]),
                                     VAL(*g), MEM(b->key), MEM(b->hist[0]));
  if (s == HERD_OK) s = stage_break(b, err);
  if (s == HERD_OK) s = herd_cl_sort_binned(b, herd_grid_buckets_read(g), src, dst, err);
  if (s == HERD_OK) s = herd_cl_find_ranges(b, g, herd_grid_buckets_read(g), 1u, err);
  return s;
}

/* The grid of the step enqueued last (herd_box_history). */
herd_status herd_cl_build_grid(herd_backend *b, herd_error *err) {
  herd_grid_box_for_step(&b->grid, &b->boxes, b->stepped);
  b->building_step_grid = true;
  herd_status s = herd_cl_build_grid_on(b, &b->grid, err);
  if (s == HERD_OK) s = stage_break(b, err);
  b->building_step_grid = false;
  return s;
}
