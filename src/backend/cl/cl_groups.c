/* The OpenCL backend's groups of the flock (kernels/groups.cl): labels, the list of groups,
 * the tracked groups' sums (cl_internal.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "cl_internal.h"

/* ---- The flock's groups (kernels/groups.cl) ------------------------------------------------- */

static herd_status alloc_groups(herd_backend *b, herd_error *err) {
  if (b->group_sums) return HERD_OK;
  size_t n = b->desc.count;
  herd_status s = herd_cl_alloc(b, &b->group_sums, 6 * n * sizeof(cl_uint), err);
  if (s == HERD_OK) s = herd_cl_alloc(b, &b->slot_by_id, n * sizeof(cl_uint), err);
  if (s == HERD_OK) s = herd_cl_alloc(b, &b->group_acc, sizeof b->acc, err);
  herd_groups_acc_reset(b->acc_start, HERD_GROUP_MAX_TRACKED);
  return s;
}

/* Runs groups kernel `id` over `items` work-items: the sorted flock and its grid as the first
 * five arguments (HERD_GROUP_VIEW_ARGS), then `n_args` more. */
static herd_status run_on_sorted(herd_backend *b, enum kernel_id id, size_t items, herd_error *err, int n_args, ...) {
  int sorted = 1 - b->cur;
  herd_status s = herd_cl_set_args(b, id, err, 5, MEM(b->pos[sorted]), MEM(b->vel[sorted]), MEM(b->agent[sorted]),
                                   MEM(b->cell_end), VAL(b->group_grid));
  va_list ap;
  va_start(ap, n_args);
  if (s == HERD_OK) s = herd_cl_set_args_v(b, id, err, 5, n_args, ap);
  va_end(ap);
  return s == HERD_OK ? herd_cl_launch(b, id, 0, items, SIMPLE_GROUP, HERD_STAGE_GROUPS, err) : s;
}

static herd_status fill(herd_backend *b, cl_mem mem, uint32_t pattern, size_t first_word, size_t words,
                        herd_error *err) {
  CL_TRY("clEnqueueFillBuffer(groups)",
         clEnqueueFillBuffer(b->queue, mem, &pattern, sizeof pattern, first_word * sizeof(cl_uint),
                             words * sizeof(cl_uint), 0, NULL, herd_cl_event_for(b, HERD_STAGE_GROUPS)));
  return HERD_OK;
}

/* Every link into `parent` (by_side 0: the raw labels in `key` themselves; 1: the final labels,
 * joining only agents of `key`'s raw groups on one side): the stars of the cells, then the
 * hooks. */
static herd_status hook(herd_backend *b, float view_radius_m, cl_int by_side, cl_mem parent, herd_error *err) {
  uint32_t n = b->desc.count;
  herd_status s =
      run_on_sorted(b, K_GROUPS_STAR, n, err, 4, VAL(view_radius_m), MEM(b->key), VAL(by_side), MEM(parent));
  if (s == HERD_OK)
    s = run_on_sorted(b, K_GROUPS_HOOK, n, err, 4, VAL(view_radius_m), MEM(b->key), VAL(by_side), MEM(parent));
  return s;
}

/* The compact area (groups.member_radius_m): raw groups with members outside split by side,
 * into the final labels in `order`. */
static herd_status split_groups(herd_backend *b, const herd_groups_params *p, herd_error *err) {
  uint32_t n = b->desc.count;
  size_t runs = (n + GROUP_RUN - 1) / GROUP_RUN;
  cl_int by_side = 1;
  herd_status s = fill(b, b->count, 0u, 0, n, err);
  if (s == HERD_OK) s = fill(b, b->group_sums, 0u, 0, 6 * (size_t)n, err);
  if (s == HERD_OK)
    s = run_on_sorted(b, K_GROUPS_RAW_SUMS, runs, err, 3, MEM(b->key), MEM(b->count), MEM(b->group_sums));
  if (s == HERD_OK)
    s = run_on_sorted(b, K_GROUPS_MARK_OUTSIDE, n, err, 4, MEM(b->key), MEM(b->count), MEM(b->group_sums),
                      VAL(p->member_radius_m));
  if (s == HERD_OK)
    s = herd_cl_run_kernel(b, K_GROUPS_START_FINAL, n, SIMPLE_GROUP, HERD_STAGE_GROUPS, err, 4, MEM(b->key),
                           MEM(b->count), MEM(b->order), VAL(n));
  if (s == HERD_OK) s = hook(b, p->view_radius_m, by_side, b->order, err);
  if (s == HERD_OK)
    s = herd_cl_run_kernel(b, K_GROUPS_COMPRESS, n, SIMPLE_GROUP, HERD_STAGE_GROUPS, err, 2, MEM(b->order), VAL(n));
  return s;
}

/* The groups' labels of the sorted flock: *label is `key` (raw groups) or `order` (split). */
static herd_status label_groups(herd_backend *b, const herd_groups_params *p, cl_mem *label, herd_error *err) {
  uint32_t n = b->desc.count;
  cl_int by_side = 0;
  b->group_grid = herd_groups_grid(&b->grid, p->view_radius_m);
  herd_grid_dense_box(&b->group_grid, b->boxes.lo[b->boxes.latest], b->boxes.hi[b->boxes.latest]);
  herd_status s = herd_cl_build_grid_on(b, &b->group_grid, err); /* the grid of where the flock is now */
  if (s == HERD_OK)
    s = herd_cl_run_kernel(b, K_GROUPS_START, n, SIMPLE_GROUP, HERD_STAGE_GROUPS, err, 3, MEM(b->agent[1 - b->cur]),
                           VAL(n), MEM(b->key));
  if (s == HERD_OK) s = hook(b, p->view_radius_m, by_side, b->key, err);
  if (s == HERD_OK)
    s = herd_cl_run_kernel(b, K_GROUPS_COMPRESS, n, SIMPLE_GROUP, HERD_STAGE_GROUPS, err, 2, MEM(b->key), VAL(n));
  *label = b->key;
  if (s != HERD_OK || p->member_radius_m <= 0.0f) return s;
  *label = b->order;
  return split_groups(b, p, err);
}

/* Reads `words` words of the list of groups from word `first` of it (after the first ids). */
static herd_status read_list(herd_backend *b, uint32_t first, uint32_t words, herd_error *err) {
  if (first + words > b->group_list_room) {
    uint32_t *grown = realloc(b->group_list, (first + words) * sizeof *grown);
    if (!grown) return herd_fail(err, HERD_E_MEMORY, "out of memory reading the list of groups");
    b->group_list = grown, b->group_list_room = first + words;
  }
  size_t at = ((size_t)b->desc.count + first) * sizeof(cl_uint);
  CL_TRY("clEnqueueReadBuffer(groups)",
         clEnqueueReadBuffer(b->queue, b->group_sums, BLOCKING, at, words * sizeof(cl_uint), b->group_list + first, 0,
                             NULL, herd_cl_event_for(b, HERD_STAGE_GROUPS)));
  return HERD_OK;
}

/* Counts and names every group, and reads the list back: with its length in one read when it
 * holds up to GROUP_LIST_HEAD groups, else in two. */
static herd_status list_groups(herd_backend *b, cl_mem label, uint32_t *found, herd_error *err) {
  uint32_t n = b->desc.count, head = 1 + 3 * (n < GROUP_LIST_HEAD ? n : GROUP_LIST_HEAD);
  size_t runs = (n + GROUP_RUN - 1) / GROUP_RUN;
  herd_status s = fill(b, b->count, 0u, 0, n, err);
  if (s == HERD_OK) s = fill(b, b->group_sums, 0xffffffffu, 0, n, err); /* first ids, min'd into */
  if (s == HERD_OK) s = fill(b, b->group_sums, 0u, n, 1, err);          /* the list's counter */
  if (s == HERD_OK)
    s = herd_cl_run_kernel(b, K_GROUPS_COUNT, runs, SIMPLE_GROUP, HERD_STAGE_GROUPS, err, 5, MEM(b->agent[1 - b->cur]),
                           MEM(label), MEM(b->count), MEM(b->group_sums), VAL(n));
  if (s == HERD_OK)
    s = herd_cl_run_kernel(b, K_GROUPS_ROOTS, n, SIMPLE_GROUP, HERD_STAGE_GROUPS, err, 4, MEM(label), MEM(b->count),
                           MEM(b->group_sums), VAL(n));
  if (s == HERD_OK) s = read_list(b, 0, head, err);
  if (s != HERD_OK) return s;
  *found = b->group_list[0];
  if (1 + 3 * *found > head) s = read_list(b, head, 1 + 3 * *found - head, err);
  return s;
}

/* The tracked groups' sums, farthest members and each agent's slot; read back into b->acc. */
static herd_status reduce_tracked(herd_backend *b, cl_mem label, const herd_group_pick *pick, herd_error *err) {
  uint32_t n = b->desc.count;
  size_t runs = (n + GROUP_RUN - 1) / GROUP_RUN;
  /* Non-blocking: acc_start never changes. */
  CL_TRY("clEnqueueWriteBuffer(groups)",
         clEnqueueWriteBuffer(b->queue, b->group_acc, CL_FALSE, 0, sizeof b->acc_start, b->acc_start, 0, NULL,
                              herd_cl_event_for(b, HERD_STAGE_GROUPS)));
  herd_status s =
      run_on_sorted(b, K_GROUPS_SUM, runs, err, 4, MEM(label), VAL(*pick), MEM(b->slot_by_id), MEM(b->group_acc));
  if (s == HERD_OK) s = run_on_sorted(b, K_GROUPS_FAR_MAX, runs, err, 3, MEM(label), VAL(*pick), MEM(b->group_acc));
  if (s == HERD_OK) s = run_on_sorted(b, K_GROUPS_FAR_ID, n, err, 3, MEM(label), VAL(*pick), MEM(b->group_acc));
  if (s == HERD_OK) s = run_on_sorted(b, K_GROUPS_FAR_POS, n, err, 2, MEM(b->slot_by_id), MEM(b->group_acc));
  if (s != HERD_OK) return s;
  CL_TRY("clEnqueueReadBuffer(groups)",
         clEnqueueReadBuffer(b->queue, b->group_acc, BLOCKING, 0, pick->tracked * sizeof *b->acc, b->acc, 0, NULL,
                             herd_cl_event_for(b, HERD_STAGE_GROUPS)));
  return HERD_OK;
}

static herd_status find_groups(herd_backend *b, const herd_groups_params *p, herd_observation *obs, herd_error *err) {
  cl_mem label;
  uint32_t found = 0;
  herd_group_pick pick;
  herd_status s = alloc_groups(b, err);
  if (s == HERD_OK) s = label_groups(b, p, &label, err);
  if (s == HERD_OK) s = list_groups(b, label, &found, err);
  if (s != HERD_OK) return s;
  herd_groups_pick(b->group_list + 1, found, p->max, &pick);
  s = reduce_tracked(b, label, &pick, err);
  if (s == HERD_OK) herd_groups_fill(&pick, b->acc, found, p, &b->group_grid, obs);
  return s;
}

herd_status herd_cl_groups(herd_backend *b, const herd_groups_params *p, herd_observation *obs, herd_error *err) {
  if (b->desc.count == 0) {
    herd_group_pick none = {0};
    herd_groups_fill(&none, b->acc, 0, p, &b->grid, obs);
    return HERD_OK;
  }
  herd_status s = herd_cl_gl_acquire(b, err);
  b->in_groups = true;
  if (s == HERD_OK) s = find_groups(b, p, obs, err);
  b->in_groups = false;
  s = herd_cl_gl_release(b, s, err);
  if (b->desc.profile) herd_cl_collect_profile(b);
  return s;
}

herd_status herd_cl_map_groups(herd_backend *b, const uint32_t **slot, herd_error *err) {
  uint32_t n = b->desc.count;
  if (!b->slot_by_id) return herd_fail(err, HERD_E_INPUT, "map_groups: no groups were found yet");
  if (!b->map_slot && !(b->map_slot = malloc((n ? n : 1) * sizeof *b->map_slot)))
    return herd_fail(err, HERD_E_MEMORY, "out of memory copying the groups for drawing");
  herd_status s = b->group_map ? HERD_OK : herd_cl_alloc(b, &b->group_map, (size_t)n * sizeof(cl_uint), err);
  if (s == HERD_OK) s = herd_cl_gl_acquire(b, err);
  if (s == HERD_OK)
    s = herd_cl_run_kernel(b, K_GROUPS_MAP, n, SIMPLE_GROUP, HERD_STAGE_READBACK, err, 4, MEM(b->agent[b->cur]),
                           MEM(b->slot_by_id), VAL(n), MEM(b->group_map));
  cl_int rc = s == HERD_OK ? clEnqueueReadBuffer(b->queue, b->group_map, BLOCKING, 0, (size_t)n * sizeof(cl_uint),
                                                 b->map_slot, 0, NULL, NULL)
                           : CL_SUCCESS;
  s = herd_cl_gl_release(b, s, err);
  if (s == HERD_OK && rc != CL_SUCCESS) s = herd_cl_fail(b, err, "clEnqueueReadBuffer(group map)", rc);
  if (s == HERD_OK) *slot = b->map_slot;
  return s;
}
