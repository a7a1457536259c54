/* The OpenCL backend's grid: bin, scan, the stable radix sort by bucket, the cell ranges
 * (kernels/herd.cl, kernels/grid.h), for a step, the groups and a batch (cl_internal.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "cl_internal.h"

/* Inclusive scan of `n` values of `data` in place: by one group when they are few (one
 * launch: on a GPU a launch costs microseconds, a few thousand values far less), else level
 * by level. */
/* The largest table scanned by one group: SCAN_SINGLE_MAX, or $HERD_CL_SCAN_SINGLE_MAX (tests
 * that run the level-by-level scan on a small flock: 0 always takes it). */
static uint32_t scan_single_max(void) {
  const char *text = getenv("HERD_CL_SCAN_SINGLE_MAX");
  char *end;
  unsigned long v = text && *text ? strtoul(text, &end, 10) : SCAN_SINGLE_MAX;
  return text && *text && !*end && v < SCAN_SINGLE_MAX ? (uint32_t)v : SCAN_SINGLE_MAX;
}

static herd_status scan(herd_backend *b, cl_mem data, uint32_t n, int level, herd_error *err) {
  if (level == 0 && n <= scan_single_max())
    return herd_cl_run_kernel(b, K_SCAN_SINGLE, SCAN_GROUP, SCAN_GROUP, HERD_STAGE_SORT, err, 2, MEM(data), VAL(n));
  uint32_t blocks = (n + SCAN_BLOCK - 1) / SCAN_BLOCK;
  herd_status s = herd_cl_run_kernel(b, K_SCAN_BLOCKS, (size_t)blocks * SCAN_GROUP, SCAN_GROUP, HERD_STAGE_SORT, err, 3,
                                     MEM(data), VAL(n), MEM(b->scan_sums[level]));
  if (s != HERD_OK || blocks <= 1) return s;
  if (level + 1 >= MAX_SCAN_LEVELS) return herd_fail(err, HERD_E_BACKEND, "OpenCL: flock too large for the scan");
  s = scan(b, b->scan_sums[level], blocks, level + 1, err);
  if (s != HERD_OK) return s;
  return herd_cl_run_kernel(b, K_SCAN_ADD, n, SIMPLE_GROUP, HERD_STAGE_SORT, err, 3, MEM(data), VAL(n),
                            MEM(b->scan_sums[level]));
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

/* After a bin kernel left the keys in b->key and the first digit's table in b->hist: the
 * stable radix sort by bucket, its last pass gathering the state from [src] into [dst]; the
 * sorted keys are left in b->sorted_key. */
herd_status herd_cl_sort_binned(herd_backend *b, int src, int dst, herd_error *err) {
  uint32_t n = b->desc.count, passes = radix_passes(b->buckets), table = (uint32_t)radix_table(n);
  cl_mem keys[2] = {b->key, b->key2}, orders[2] = {b->order, b->order2};
  herd_status s = HERD_OK;
  int in = 0;
  for (uint32_t p = 0; p < passes && s == HERD_OK; ++p) {
    cl_uint shift = p * RADIX_BITS, identity = p == 0;
    if (p > 0)
      s = herd_cl_run_kernel(b, K_RADIX_COUNT, radix_items(n), RADIX_GROUP, HERD_STAGE_SORT, err, 4, MEM(keys[in]),
                             VAL(n), VAL(shift), MEM(b->hist));
    if (s == HERD_OK) s = scan(b, b->hist, table, 0, err);
    if (s != HERD_OK) break;
    if (p + 1 < passes)
      s = herd_cl_run_kernel(b, K_RADIX_SCATTER, radix_items(n), RADIX_GROUP, HERD_STAGE_SORT, err, 8, MEM(keys[in]),
                             MEM(orders[in]), VAL(n), VAL(shift), VAL(identity), MEM(b->hist), MEM(keys[1 - in]),
                             MEM(orders[1 - in]));
    else
      s = herd_cl_run_kernel(b, K_RADIX_SCATTER_STATE, radix_items(n), RADIX_GROUP, HERD_STAGE_SORT, err, 14,
                             MEM(keys[in]), MEM(orders[in]), VAL(n), VAL(shift), VAL(identity), MEM(b->hist),
                             MEM(keys[1 - in]), MEM(b->pos[src]), MEM(b->vel[src]), MEM(b->agent[src]),
                             MEM(b->pos[dst]), MEM(b->vel[dst]), MEM(b->agent[dst]), VAL(b->desc.dims));
    in = 1 - in;
    if (s == HERD_OK) s = stage_break(b, err);
  }
  b->sorted_key = keys[in];
  return s;
}

/* Bucket ends (and with `mark`, the mixed flags) from the sorted keys; g->count keys. Then each
 * bucket's agents in order of id (kernels/grid.h, herd_order_bucket), as on the CPU. */
herd_status herd_cl_find_ranges(herd_backend *b, const herd_grid *g, cl_uint mark, herd_error *err) {
  int dst = 1 - b->cur;
  herd_status s = herd_cl_run_kernel(b, K_RANGES, g->count, SIMPLE_GROUP, HERD_STAGE_RANGES, err, 6, MEM(b->sorted_key),
                                     MEM(b->pos[dst]), VAL(*g), VAL(b->buckets), VAL(mark), MEM(b->cell_end));
  if (s != HERD_OK) return s;
  return herd_cl_run_kernel(b, K_ORDER_BUCKETS, b->buckets, SIMPLE_GROUP, HERD_STAGE_SORT, err, 6, MEM(b->pos[dst]),
                            MEM(b->vel[dst]), MEM(b->agent[dst]), MEM(b->cell_end), VAL(b->buckets), VAL(b->desc.dims));
}

/* Bin on grid g (the model's, or the groups'), stable sort by bucket into [1-cur], cell ranges. */
herd_status herd_cl_build_grid_on(herd_backend *b, const herd_grid *g, herd_error *err) {
  uint32_t n = b->desc.count;
  int src = b->cur, dst = 1 - b->cur;
  herd_status s = herd_cl_run_kernel(b, K_BIN, radix_items(n), RADIX_GROUP, HERD_STAGE_BIN, err, 6, MEM(b->pos[src]),
                                     VAL(*g), VAL(b->buckets), MEM(b->key), MEM(b->hist), MEM(b->cell_end));
  if (s == HERD_OK) s = stage_break(b, err);
  if (s == HERD_OK) s = herd_cl_sort_binned(b, src, dst, err);
  if (s == HERD_OK) s = herd_cl_find_ranges(b, g, 1u, err);
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
