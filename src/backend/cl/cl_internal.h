/* Inside the OpenCL backend (cl_backend.c and the files it is split into, as src/backend/cpu/
 * is): the backend's struct, its kernels, and what its files share. Not for use elsewhere.
 *   cl_queue.c   errors, profiling, launching kernels, buffers, the GL hand-over
 *   cl_grid.c    the grid: bin, scan, the radix sort by bucket, cell ranges
 *   cl_groups.c  the flock's groups (kernels/groups.cl)
 *   cl_batch.c   batches: many worlds in one set of buffers, one launch of each kernel
 *   cl_backend.c setup, state in and out, the step, the observation, the ops table */
#ifndef HERD_BACKEND_CL_CL_INTERNAL_H
#define HERD_BACKEND_CL_CL_INTERNAL_H
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include "../layer.h"

#include "../../util/clock.h"
#include "../../util/error.h"
#include "cl_backend.h"
#include "cl_util.h"

#define SCAN_GROUP 256u
#define SCAN_BLOCK (4u * SCAN_GROUP)
#define REDUCE_GROUP 32u
#define BATCH_REDUCE_BLOCK (REDUCE_GROUP * HERD_CL_REDUCE_PER_ITEM_MAX) /* a batch's worlds' blocks */
#define SIMPLE_GROUP 64u
#define RADIX_BITS 8u   /* bits of the bucket key per radix pass (kernels/herd.cl) */
#define RADIX_GROUP 32u /* work-items per radix block */
#define RADIX_BLOCK (RADIX_GROUP * 32u)
#define MAX_SCAN_LEVELS 6
#define SCAN_SINGLE_MAX (16u * SCAN_BLOCK) /* scanned by one group in one launch, up to this */
/* Agents whose grid one work-group builds in one launch: below 2^16, as herd_grid_small keeps
 * their places in ushorts. */
#define GRID_SMALL_MAX 16384u
#define GRID_SMALL_BITS 4u /* HERD_SMALL_BITS (kernels/herd.cl) */
#define RANGES_RUN 4u      /* HERD_RANGES_RUN: buckets per work-item of herd_ranges */
#define MAX_PENDING_EVENTS 64
#define GROUP_RUN 32u         /* sorted agents per work-item in the groups' summing kernels (groups.cl) */
#define GROUP_LIST_HEAD 1024u /* groups read back with the list's count, in one read */
#define COOP_GROUP 64u        /* HERD_COOP_GROUP (kernels/knn_coop.h) */
#define COOP_LANES 16u        /* lanes per agent in the pre-pass; $HERD_COOP_LANES: 8, 16 or 32 */
#define COOP_SLICE_COST 4u    /* a pre-pass agent costs about 4 step agents on PoCL (bench/results/opencl-coop.md) */

/* A step longer than SLOW_STEP_S (before any was timed: a flock of FIRST_SLICE agents or more)
 * is cut for Ctrl-C: the step kernel into slices of about SLICE_S seconds (step_slice), the
 * grid's build at its stages (stage_break). */
#define SLICE_S 0.1
#define SLOW_STEP_S 0.25
#define FIRST_SLICE 16384u
#define FIRST_STAGED (64u * FIRST_SLICE)

enum kernel_id {
  K_BIN,
  K_SCAN_BLOCKS,
  K_SCAN_SINGLE,
  K_SCAN_BLOCKS_LAST,
  K_RADIX_SCATTER,
  K_RADIX_SCATTER_STATE,
  K_RANGES,
  K_GRID_SMALL,
  K_STEP, /* the model's: herd_step_<name> */
  K_REDUCE_FIRST,
  K_REDUCE_FAR,
  K_KNN,
  K_BIN_BATCH,
  K_RELATIVE_ENDS,
  K_MARK_MIXED_BATCH,
  K_STEP_BATCH, /* the model's: herd_step_batch_<name> */
  K_REDUCE_FIRST_BATCH,
  K_REDUCE_FAR_BATCH,
  K_GROUPS_START, /* the flock's groups: kernels/groups.cl */
  K_GROUPS_STAR,
  K_GROUPS_HOOK,
  K_GROUPS_COMPRESS,
  K_GROUPS_RAW_SUMS,
  K_GROUPS_MARK_OUTSIDE,
  K_GROUPS_START_FINAL,
  K_GROUPS_COUNT,
  K_GROUPS_ROOTS,
  K_GROUPS_SUM,
  K_GROUPS_FAR_MAX,
  K_GROUPS_FAR_ID,
  K_GROUPS_FAR_POS,
  K_GROUPS_MAP,
  K_PRE,   /* the model's pre-pass, if it has one: herd_pre_<name>_coop */
  K_GUIDE, /* the path's pull before the step (kernels/herd.cl) */
  K_GUIDE_BATCH,
  K_COUNT
};

typedef struct pending_event {
  cl_event event;
  herd_stage stage;
  const char *kernel; /* its kernel's name, NULL for a copy: $HERD_CL_TRACE's "time" lines */
} pending_event;

struct herd_backend {
  herd_backend_desc desc;
  unsigned char params[HERD_MODEL_PARAMS_BYTES]; /* desc.params points here */
  herd_grid grid;
  herd_box_history boxes; /* the grids' dense boxes (a batch's per world: world_boxes) */
  uint32_t stepped;       /* the index of the last step enqueued (UINT32_MAX: none since the upload) */
  herd_box_history *world_boxes;
  uint32_t stride;   /* floats per agent in the state buffers: 2 or 4 */
  uint32_t capacity; /* the agents its buffers hold (desc.count at creation; restore may hold fewer) */
  uint32_t buckets;
  herd_device_info info;
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
  cl_program programs[HERD_CL_PROGRAMS]; /* the capped one NULL unless step_capped */
  bool nv_options;                       /* the device's compiler takes -cl-nv-* (cl_nv_compiler_options) */
  bool step_capped;                      /* K_STEP comes from the capped program (choose_capped) */
  cl_kernel kernels[K_COUNT];
  /* State, double-buffered as in the CPU backend: sorted into [1-cur], stepped into [cur]. */
  cl_mem pos[2], vel[2], agent[2];
  int cur;
  cl_mem key, order, count, cell_end, steer, partials, total;
  cl_mem ticket;                /* the reduction's count of finished groups (per world in a batch); 0 between passes */
  cl_mem key2, order2, hist[2]; /* the radix sort's other halves and its digit tables, in turn */
  cl_mem sorted_key;            /* key or key2: the keys in sorted order after a sort */
  cl_mem env;                   /* obstacles and path (kernels/env.h): every world's, end to end in a batch */
  cl_mem scan_sums[MAX_SCAN_LEVELS];
  /* Two staging copies, used in turn: a step may send twice (the flock's view of the steering
   * agents, then the moved ones for the reduction) before the queue drains at the step's end,
   * and a non-blocking write reads its copy only when the queue reaches it. */
  float steer_sent[2][HERD_STEER_FLOATS * HERD_MAX_STEERING];
  uint32_t steer_slot; /* the copy last sent */
  uint32_t steer_sent_count;
  bool steer_valid;
  size_t bytes;
  bool gl_shared;           /* pos[0], vel[0], agent[0] are GL buffers (the state lives in [0]) */
  float *map_pos, *map_vel; /* host copies for map_state */
  uint32_t *map_agent;
  herd_profile profile;
  FILE *trace; /* $HERD_CL_TRACE: a line per step, kernel launch and host wait (bench/gpu-model.py) */
  /* Observations read back without blocking (reduce_async), two slots used in turn. */
  herd_flock_partial ring[2];
  cl_event ring_read[2];
  uint32_t ring_steer_count[2];
  uint32_t ring_step[2];                         /* the step each slot's observation follows */
  uint32_t ring_unobserved[2];                   /* the optional parts each slot's reduction left out */
  uint32_t unobserved;                           /* those the next reductions leave out (HERD_OBSERVE_*) */
  float ring_steer_pos[2][HERD_MAX_STEERING][3]; /* the steering agents each slot's was taken from */
  /* The last observation's view of the steering agents (prepass_has_work): where they were,
   * their nearest agent's distance, and the step after which it was taken; valid until the
   * state is written otherwise than by a step. */
  bool seen_valid;
  uint32_t seen_count, seen_after;
  float seen_pos[HERD_MAX_STEERING][3], seen_nearest_m[HERD_MAX_STEERING];
  pending_event pending[MAX_PENDING_EVENTS];
  int pending_count;
  double step_started_s, last_step_s; /* wall clock: how long a step took, for step_slice */
  bool building_step_grid;            /* in herd_cl_build_grid: a stop may end the step between stages */
  char batch_kernel[64];              /* herd_step_batch_<model> */
  /* A batch (create_batch): world_count worlds laid end to end in the buffers above (desc.count
   * is their total); herd_world per world, with each step's facts filled in. */
  uint32_t world_count, total_blocks;
  herd_backend_desc *world_desc;
  herd_world *world;
  float *steer_all;           /* HERD_MAX_STEERING records of HERD_STEER_FLOATS per world */
  float *host_env;            /* the env array as sent (every world's, end to end): the goal's pen for uploads */
  unsigned char *host_params; /* every world's parameters as sent: world_desc[w].params points in */
  herd_flock_partial *totals;
  cl_mem worlds, world_of, world_params, block_world, world_totals;
  /* The batch's step in work-groups of one world each (herd_step_batch_*): per group, its world
   * and its first agent there. */
  cl_mem spans;
  uint32_t step_groups;
  /* The flock's groups (kernels/groups.cl), allocated at the first groups call. The raw and
   * final labels and the groups' counts live in `key`, `order` and `count`, free between a
   * sort and the next (which clears `count` first); group_sums holds six words per agent of
   * sums, then each group's first id and the list of groups; slot_by_id is kept to the next
   * groups call for map_groups. */
  cl_mem group_sums, slot_by_id, group_acc, group_map;
  herd_grid group_grid;                             /* the groups' (herd_groups_grid), for the call under way */
  herd_group_acc acc_start[HERD_GROUP_MAX_TRACKED]; /* what group_acc starts from (read by a non-blocking write) */
  herd_group_acc acc[HERD_GROUP_MAX_TRACKED];
  uint32_t *group_list, group_list_room; /* the list of groups as read back */
  uint32_t *map_slot;                    /* map_groups' host copy */
  bool in_groups;                        /* commands enqueued now are timed as the groups' stage */
  /* The model's pre-pass (kernels/knn_coop.cl), when its step wants one and $HERD_CL_COOP is
   * not 0: its kernel's name and its per-agent results (two int64 per sorted agent). */
  char pre_kernel[64];
  bool prepass;
  uint32_t coop_lanes;
  uint32_t reduce_block; /* agents per work-group of the reductions: REDUCE_GROUP x per item */
  uint32_t small_group;  /* herd_grid_small's work-items (choose_small_group) */
  cl_mem pre;
  /* The path's pull on each sorted agent (float4), from the guide pass (herd_path_guide) that
   * runs before each step where the model follows a path and a world has one (`guided`). */
  bool guided;
  cl_mem guide;
};

/* ---- Small helpers ---------------------------------------------------------------------- */

static inline size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

/* Radix blocks (work-groups) over n keys: a launch has at least one. */
static inline uint32_t radix_blocks(uint32_t n) {
  uint32_t blocks = (n + RADIX_BLOCK - 1) / RADIX_BLOCK;
  return blocks ? blocks : 1u;
}

/* Entries of the radix sort's digit table for `n` keys: one per digit and block.
 * Every entry is written by its block's count before the scan reads it (the scan covered a
 * block more, never written: Oclgrind read it as uninitialised). */
static inline size_t radix_table(uint32_t n) { return (size_t)(1u << RADIX_BITS) * radix_blocks(n); }

/* Work-items of a radix kernel over `n` keys: whole blocks. */
static inline size_t radix_items(uint32_t n) { return (size_t)radix_blocks(n) * RADIX_GROUP; }

/* The steering agents the device's partials have room for (kernels/reduce.h): the sim's own
 * count, at least 1 (no array is empty). */
static inline uint32_t reduce_steering(const herd_backend_desc *desc) {
  uint32_t n = desc->steering_count < HERD_MAX_STEERING ? desc->steering_count : HERD_MAX_STEERING;
  return n ? n : 1u;
}

/* ---- cl_queue.c ------------------------------------------------------------------------- */

/* Kernel k's name: the fixed ones, and the model's step from its table row. */
const char *herd_cl_kernel_name(const herd_backend *b, enum kernel_id k);

herd_status herd_cl_fail(herd_backend *b, herd_error *err, const char *call, cl_int rc);

#define CL_TRY(call_text, expr)                                           \
  do {                                                                    \
    cl_int rc_ = (expr);                                                  \
    if (rc_ != CL_SUCCESS) return herd_cl_fail(b, err, (call_text), rc_); \
  } while (0)

/* Every call that makes the host wait for the device is counted (--profile's host waits):
 * the blocking flag of a read or write, and clFinish. */
#define BLOCKING (herd_cl_note_wait(b, "read/write"), CL_TRUE)

/* Counts a host wait for --profile, and writes it to the trace. */
void herd_cl_note_wait(herd_backend *b, const char *what);
/* Writes a copy between host and device that does not wait ("write steer 96") to the trace. */
void herd_cl_trace_copy(herd_backend *b, const char *direction, const char *what, size_t bytes);
/* Writes "step S" to the trace: where the next step's commands begin. */
void herd_cl_trace_step(herd_backend *b, uint32_t step);

cl_int herd_cl_finish(herd_backend *b);

/* Collects the timed commands that have completed (in queue order). */
void herd_cl_collect_profile(herd_backend *b);

/* An event to time this command with, or NULL when not profiling. */
cl_event *herd_cl_event_for(herd_backend *b, herd_stage stage);

#define MEM(x) sizeof(cl_mem), (const void *)&(x)
#define VAL(x) sizeof(x), (const void *)&(x)

/* Runs kernel `id` over work-items [first, first + items) in groups of `group`. */
herd_status herd_cl_launch(herd_backend *b, enum kernel_id id, size_t first, size_t items, size_t group,
                           herd_stage stage, herd_error *err);

/* Binds `n_args` arguments from index `first`, given as (size_t size, const void *value) pairs
 * (MEM, VAL). */
herd_status herd_cl_set_args_v(herd_backend *b, enum kernel_id id, herd_error *err, int first, int n_args, va_list ap);
herd_status herd_cl_set_args_at(herd_backend *b, enum kernel_id id, herd_error *err, int first, int n_args, ...);
#define herd_cl_set_args(b, id, err, ...) herd_cl_set_args_at(b, id, err, 0, __VA_ARGS__)

/* Binds the arguments (as herd_cl_set_args), then launches over `items` work-items. */
herd_status herd_cl_run_kernel(herd_backend *b, enum kernel_id id, size_t items, size_t group, herd_stage stage,
                               herd_error *err, int n_args, ...);

herd_status herd_cl_alloc(herd_backend *b, cl_mem *out, size_t bytes, herd_error *err);

/* Around every use of the state when it is shared with GL. */
herd_status herd_cl_gl_acquire(herd_backend *b, herd_error *err);
herd_status herd_cl_gl_release(herd_backend *b, herd_status status, herd_error *err);

/* ---- cl_grid.c -------------------------------------------------------------------------- */

/* After a bin kernel: the stable radix sort by bucket of keys below `keys_below`, its last pass
 * gathering the state from [src] into [dst]; the sorted keys are left in b->sorted_key. */
herd_status herd_cl_sort_binned(herd_backend *b, uint32_t keys_below, int src, int dst, herd_error *err);

/* Each bucket's range (and with `mark`, its mixed flag) from the sorted keys, its agents then in
 * order of id: the first `buckets` buckets (herd_grid_buckets_read, or a batch's all). */
herd_status herd_cl_find_ranges(herd_backend *b, const herd_grid *g, uint32_t buckets, cl_uint mark, herd_error *err);

/* Bin on grid g (the model's, or the groups'), stable sort by bucket into [1-cur], cell ranges. */
herd_status herd_cl_build_grid_on(herd_backend *b, const herd_grid *g, herd_error *err);

/* The grid of the step enqueued last (herd_box_history). */
herd_status herd_cl_build_grid(herd_backend *b, herd_error *err);

/* ---- cl_groups.c ------------------------------------------------------------------------ */

herd_status herd_cl_groups(herd_backend *b, const herd_groups_params *p, herd_observation *obs, herd_error *err);
herd_status herd_cl_map_groups(herd_backend *b, const uint32_t **slot, herd_error *err);

/* ---- cl_batch.c ------------------------------------------------------------------------- */

herd_status herd_cl_create_batch(const herd_backend_desc *descs, uint32_t count, herd_backend **out, herd_error *err);
herd_status herd_cl_upload_world(herd_backend *b, uint32_t world, uint64_t seed, const float *pos, const float *vel,
                                 herd_error *err);
herd_status herd_cl_read_world(herd_backend *b, uint32_t world, float *pos, float *vel, herd_error *err);
herd_status herd_cl_set_world_params(herd_backend *b, uint32_t world, const void *params, herd_error *err);
herd_status herd_cl_step_batch(herd_backend *b, const herd_world_input *in, herd_error *err);
herd_status herd_cl_reduce_batch(herd_backend *b, const herd_world_input *in, herd_observation *obs, herd_error *err);

/* ---- cl_backend.c (what a batch shares with a single world) ----------------------------- */

/* The device, its context and program, and the buffers for desc.count agents. */
herd_status herd_cl_open_device(herd_backend *b, herd_error *err);
void herd_cl_destroy(herd_backend *b);

/* The env array on the device (a float of room when there is none: no buffer is empty). */
herd_status herd_cl_write_env(herd_backend *b, const float *env, size_t floats, herd_error *err);

/* Runs the bound step kernel over n agents (or work-items), slice by slice (HERD_E_INTERRUPTED
 * as soon as the stop flag is seen between slices); group_arg >= 0: each slice from offset 0,
 * its first work-group in that argument. */
herd_status herd_cl_launch_slices(herd_backend *b, enum kernel_id step, size_t n, size_t per_group, size_t cost,
                                  int group_arg, herd_error *err);

/* After an abandoned step: the sorted copy goes back where the state lives; returns
 * HERD_E_INTERRUPTED. */
herd_status herd_cl_restore_sorted_state(herd_backend *b, herd_error *err);

/* Reads `count` device partials into host partials. */
herd_status herd_cl_read_totals(herd_backend *b, cl_mem from, herd_flock_partial *out, uint32_t count, herd_error *err);

/* More steering agents than the program's partials have room for (desc.steering_count). */
herd_status herd_cl_too_many_steering(const herd_backend *b, uint32_t count, herd_error *err);

#endif
