/* The OpenCL backend: the flock lives in device buffers; each step sends the steering
 * agents' few floats down and, in reduce, reads the observation (under 1 KB) back. Kernels
 * and the model math are in kernels/herd.cl and the headers it includes (the same as the CPU
 * backend's); the model's kernel is named by its row of the model table. */
#define _POSIX_C_SOURCE 200809L
#include "cl_backend.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <CL/cl_gl.h>

#include "../../util/error.h"
#include "cl_util.h"

#define SCAN_GROUP 256u
#define SCAN_BLOCK (4u * SCAN_GROUP)
#define REDUCE_GROUP 32u
#define REDUCE_BLOCK (REDUCE_GROUP * 64u)
#define SIMPLE_GROUP 64u
#define RADIX_BITS 8u   /* bits of the bucket key per radix pass (kernels/herd.cl) */
#define RADIX_GROUP 32u /* work-items per radix block */
#define RADIX_BLOCK (RADIX_GROUP * 32u)
#define MAX_SCAN_LEVELS 6
#define SCAN_SINGLE_MAX (16u * SCAN_BLOCK) /* scanned by one group in one launch, up to this */
#define MAX_PENDING_EVENTS 64
#define GROUP_RUN 32u         /* sorted agents per work-item in the groups' summing kernels (groups.cl) */
#define GROUP_LIST_HEAD 1024u /* groups read back with the list's count, in one read */
#define COOP_GROUP 64u        /* HERD_COOP_GROUP (kernels/knn_coop.h) */
#define COOP_LANES 16u        /* lanes per agent in the pre-pass; $HERD_COOP_LANES: 8, 16 or 32 */
#define COOP_SLICE_COST 4u    /* a pre-pass agent costs about 4 step agents on PoCL (bench/results/opencl-coop.md) */

extern const char herd_embedded_herd_kernels[], herd_embedded_sized_kernels[];

enum kernel_id {
  K_BIN,
  K_SCAN_BLOCKS,
  K_SCAN_ADD,
  K_SCAN_SINGLE,
  K_RADIX_COUNT,
  K_RADIX_SCATTER,
  K_RADIX_SCATTER_STATE,
  K_RANGES,
  K_ORDER_BUCKETS,
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
  K_PRE_LIST, /* the model's pre-pass, if it has one: herd_pre_<name>_list, _coop, _far */
  K_PRE_COOP,
  K_PRE_FAR,
  K_COUNT
};

static const char *const kernel_names[K_COUNT] = {
    "herd_bin",
    "herd_scan_blocks",
    "herd_scan_add",
    "herd_scan_single",
    "herd_radix_count",
    "herd_radix_scatter",
    "herd_radix_scatter_state",
    "herd_ranges",
    "herd_order_buckets",
    NULL,
    "herd_reduce_first",
    "herd_reduce_far",
    "herd_knn",
    "herd_bin_batch",
    "herd_relative_ends",
    "herd_mark_mixed_batch",
    NULL,
    "herd_reduce_first_batch",
    "herd_reduce_far_batch",
    "herd_groups_start",
    "herd_groups_star",
    "herd_groups_hook",
    "herd_groups_compress",
    "herd_groups_raw_sums",
    "herd_groups_mark_outside",
    "herd_groups_start_final",
    "herd_groups_count",
    "herd_groups_roots",
    "herd_groups_sum",
    "herd_groups_far_max",
    "herd_groups_far_id",
    "herd_groups_far_pos",
    "herd_groups_map",
    NULL,
    NULL,
    NULL,
};

typedef struct pending_event {
  cl_event event;
  herd_stage stage;
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
  cl_program programs[HERD_CL_PROGRAMS];
  cl_kernel kernels[K_COUNT];
  /* State, double-buffered as in the CPU backend: sorted into [1-cur], stepped into [cur]. */
  cl_mem pos[2], vel[2], agent[2];
  int cur;
  cl_mem key, order, count, cell_end, steer, partials, total;
  cl_mem ticket;             /* the reduction's count of finished groups (per world in a batch); 0 between passes */
  cl_mem key2, order2, hist; /* the radix sort's other halves and its digit table */
  cl_mem sorted_key;         /* key or key2: the keys in sorted order after a sort */
  cl_mem env;                /* obstacles and path (kernels/env.h): every world's, end to end in a batch */
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
  /* Observations read back without blocking (reduce_async), two slots used in turn. */
  herd_flock_partial ring[2];
  cl_event ring_read[2];
  uint32_t ring_steer_count[2];
  uint32_t ring_step[2]; /* the step each slot's observation follows */
  pending_event pending[MAX_PENDING_EVENTS];
  int pending_count;
  double step_started_s, last_step_s; /* wall clock: how long a step took, for step_slice */
  bool building_step_grid;            /* in build_grid: a stop may end the step between stages */
  char batch_kernel[64];              /* herd_step_batch_<model> */
  /* A batch (create_batch): world_count worlds laid end to end in the buffers above (desc.count
   * is their total); herd_world per world, with each step's facts filled in. */
  uint32_t world_count, total_blocks;
  herd_backend_desc *world_desc;
  herd_world *world;
  float *steer_all; /* HERD_MAX_STEERING records of HERD_STEER_FLOATS per world */
  float *host_env;  /* the env array as sent (every world's, end to end): the goal's pen for uploads */
  herd_flock_partial *totals;
  cl_mem worlds, world_of, world_params, block_world, world_totals;
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
   * not 0: its kernels' names, its per-agent results (two int64 per sorted agent), its work
   * and far lists (2N) and their two counters. */
  char pre_kernel[3][64];
  bool prepass;
  uint32_t coop_lanes;
  cl_mem pre, pre_list, pre_counters;
};

/* Kernel k's name: the fixed ones, and the model's step from its table row. */
static const char *kernel_name(const herd_backend *b, enum kernel_id k) {
  if (k == K_STEP) return b->desc.model->kernel;
  if (k == K_STEP_BATCH) return b->batch_kernel;
  if (k >= K_PRE_LIST && k <= K_PRE_FAR) return b->pre_kernel[k - K_PRE_LIST][0] ? b->pre_kernel[k - K_PRE_LIST] : NULL;
  return kernel_names[k];
}

/* The program kernel k is in: the kernels whose code depends on the simulation's sizes are
 * the sized one's (kernels/sized.cl). */
static herd_cl_program kernel_program(enum kernel_id k) {
  switch (k) {
    case K_REDUCE_FIRST:
    case K_REDUCE_FAR:
    case K_REDUCE_FIRST_BATCH:
    case K_REDUCE_FAR_BATCH:
    case K_PRE_LIST:
    case K_PRE_COOP:
    case K_PRE_FAR: return HERD_CL_PROGRAM_SIZED;
    default: return HERD_CL_PROGRAM_MAIN;
  }
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- Errors ----------------------------------------------------------------------------- */

static herd_status cl_fail(herd_backend *b, herd_error *err, const char *call, cl_int rc) {
  return herd_fail(err, HERD_E_BACKEND, "OpenCL: %s: %s (%d) on device \"%s\"", call, herd_cl_error_name(rc), rc,
                   b->info.name);
}

#define CL_TRY(call_text, expr)                                      \
  do {                                                               \
    cl_int rc_ = (expr);                                             \
    if (rc_ != CL_SUCCESS) return cl_fail(b, err, (call_text), rc_); \
  } while (0)

/* ---- Profiling -------------------------------------------------------------------------- */

/* Every call that makes the host wait for the device is counted (--profile's host waits):
 * the blocking flag of a read or write, and clFinish. */
#define BLOCKING (++b->profile.waits, CL_TRUE)

static cl_int finish(herd_backend *b) {
  ++b->profile.waits;
  return clFinish(b->queue);
}

/* Collects the timed commands that have completed (in queue order: a host running a step
 * ahead collects while the next step's commands are still in flight). */
static void collect_profile(herd_backend *b) {
  int done = 0;
  for (; done < b->pending_count; ++done) {
    cl_int state = CL_QUEUED;
    clGetEventInfo(b->pending[done].event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, NULL);
    if (state > CL_COMPLETE) break; /* not finished yet (errors, negative, count as finished) */
  }
  for (int k = 0; k < done; ++k) {
    cl_ulong start = 0, end = 0;
    cl_event e = b->pending[k].event;
    if (clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) == CL_SUCCESS &&
        clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) == CL_SUCCESS && end >= start) {
      b->profile.seconds[b->pending[k].stage] += 1e-9 * (double)(end - start);
      b->profile.calls[b->pending[k].stage] += 1;
    }
    clReleaseEvent(e);
  }
  memmove(b->pending, b->pending + done, (size_t)(b->pending_count - done) * sizeof *b->pending);
  b->pending_count -= done;
}

/* An event to time this command with, or NULL when not profiling. */
static cl_event *event_for(herd_backend *b, herd_stage stage) {
  if (!b->desc.profile) return NULL;
  if (b->in_groups) stage = HERD_STAGE_GROUPS; /* its own sort and reads too: what groups cost */
  if (b->pending_count == MAX_PENDING_EVENTS) {
    finish(b);
    collect_profile(b);
  }
  b->pending[b->pending_count].stage = stage;
  return &b->pending[b->pending_count++].event;
}

/* ---- Launching -------------------------------------------------------------------------- */

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

#define MEM(x) sizeof(cl_mem), (const void *)&(x)
#define VAL(x) sizeof(x), (const void *)&(x)

/* Runs kernel `id` over work-items [first, first + items) in groups of `group` (the global
 * size rounded up: the kernels guard their index, as PoCL has no non-uniform work-groups;
 * `first` is a multiple of `group`). */
static herd_status launch(herd_backend *b, enum kernel_id id, size_t first, size_t items, size_t group,
                          herd_stage stage, herd_error *err) {
  size_t global = round_up(items ? items : 1, group), offset = first;
  ++b->profile.kernels;
  cl_int rc = clEnqueueNDRangeKernel(b->queue, b->kernels[id], 1, first ? &offset : NULL, &global, &group, 0, NULL,
                                     event_for(b, stage));
  if (rc != CL_SUCCESS) {
    char call[160];
    snprintf(call, sizeof call, "clEnqueueNDRangeKernel(%s)", kernel_name(b, id));
    if (b->desc.profile) --b->pending_count;
    return cl_fail(b, err, call, rc);
  }
  return HERD_OK;
}

/* Binds `n_args` arguments from index `first`, given as (size_t size, const void *value) pairs
 * (MEM, VAL). */
static herd_status set_args_v(herd_backend *b, enum kernel_id id, herd_error *err, int first, int n_args, va_list ap) {
  cl_int rc = CL_SUCCESS;
  for (int a = 0; a < n_args && rc == CL_SUCCESS; ++a) {
    size_t size = va_arg(ap, size_t);
    const void *value = va_arg(ap, const void *);
    rc = clSetKernelArg(b->kernels[id], (cl_uint)(first + a), size, value);
  }
  if (rc == CL_SUCCESS) return HERD_OK;
  char call[160];
  snprintf(call, sizeof call, "clSetKernelArg(%s)", kernel_name(b, id));
  return cl_fail(b, err, call, rc);
}

static herd_status set_args(herd_backend *b, enum kernel_id id, herd_error *err, int n_args, ...) {
  va_list ap;
  va_start(ap, n_args);
  herd_status s = set_args_v(b, id, err, 0, n_args, ap);
  va_end(ap);
  return s;
}

/* Binds the arguments (as set_args), then launches over `items` work-items. */
static herd_status run_kernel(herd_backend *b, enum kernel_id id, size_t items, size_t group, herd_stage stage,
                              herd_error *err, int n_args, ...) {
  va_list ap;
  va_start(ap, n_args);
  herd_status s = set_args_v(b, id, err, 0, n_args, ap);
  va_end(ap);
  return s == HERD_OK ? launch(b, id, 0, items, group, stage, err) : s;
}

/* ---- Setup ------------------------------------------------------------------------------ */

static char *read_text_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = size >= 0 ? malloc((size_t)size + 1) : NULL;
  if (text && fread(text, 1, (size_t)size, f) == (size_t)size) {
    text[size] = '\0';
  } else {
    free(text);
    text = NULL;
  }
  fclose(f);
  return text;
}

/* The steering agents the device's partials have room for (kernels/reduce.h): the sim's own
 * count, at least 1 (no array is empty). */
static uint32_t reduce_steering(const herd_backend_desc *desc) {
  uint32_t n = desc->steering_count < HERD_MAX_STEERING ? desc->steering_count : HERD_MAX_STEERING;
  return n ? n : 1u;
}

/* Bytes of one device partial: the host's type up to its nearest entries, then room for
 * reduce_steering of them (kernels/reduce.h puts them last), padded as the device pads it. */
static size_t partial_bytes(const herd_backend_desc *desc) {
  size_t bytes = offsetof(herd_flock_partial, near) + reduce_steering(desc) * sizeof(herd_nearest),
         align = _Alignof(herd_flock_partial);
  return (bytes + align - 1) / align * align;
}

/* Lanes per agent in the cooperative k-nearest kernel: $HERD_COOP_LANES (8, 16 or 32; for
 * measuring), else COOP_LANES. */
static uint32_t coop_lanes(void) {
  const char *text = getenv("HERD_COOP_LANES");
  unsigned long lanes = text && *text ? strtoul(text, NULL, 10) : 0;
  return lanes == 8 || lanes == 16 || lanes == 32 ? (uint32_t)lanes : COOP_LANES;
}

static const char *const program_files[HERD_CL_PROGRAMS] = {"herd.cl", "sized.cl"};

const char *herd_cl_program_source(herd_cl_program program) {
  return program == HERD_CL_PROGRAM_SIZED ? herd_embedded_sized_kernels : herd_embedded_herd_kernels;
}

int herd_cl_program_options(char *out, size_t size, herd_cl_program program, uint32_t steering, uint32_t lanes,
                            bool gpu) {
  /* PoCL inlines every function itself; forced, it takes five times as long to build. */
  const char *inlining = gpu ? "" : " -DHERD_INLINE_ATTRIBUTE=";
  if (program == HERD_CL_PROGRAM_SIZED)
    return snprintf(out, size,
                    "-cl-std=CL1.2 -DHERD_SIMPLE_GROUP=%u -DHERD_REDUCE_GROUP=%u -DHERD_REDUCE_STEERING=%u "
                    "-DHERD_COOP_LANES=%u%s",
                    SIMPLE_GROUP, REDUCE_GROUP, steering, lanes, inlining);
  return snprintf(
      out, size,
      "-cl-std=CL1.2 -DHERD_SIMPLE_GROUP=%u -DHERD_SCAN_GROUP=%u -DHERD_RADIX_BITS=%u -DHERD_RADIX_GROUP=%u%s",
      SIMPLE_GROUP, SCAN_GROUP, RADIX_BITS, RADIX_GROUP, inlining);
}

/* $HERD_CL_BUILD_OPTIONS after herd's own options (for tools: Oclgrind's tests build with
 * -cl-opt-disable). Fails on text too long for the options, rather than cut it. */
static herd_status extra_build_options(char *options, size_t size, herd_error *err) {
  const char *extra = getenv("HERD_CL_BUILD_OPTIONS");
  if (!extra || !*extra) return HERD_OK;
  size_t used = strlen(options), more = strlen(extra);
  if (used + 1 + more >= size)
    return herd_fail(err, HERD_E_INPUT, "HERD_CL_BUILD_OPTIONS: %zu characters, at most %zu allowed", more,
                     size - used - 2);
  options[used] = ' ';
  memcpy(options + used + 1, extra, more + 1);
  return HERD_OK;
}

/* Program p's source and options: the embedded source, or $HERD_KERNEL_DIR's file (malloc'd
 * into *loaded) with -I for its includes. */
static herd_status program_source(herd_backend *b, herd_cl_program p, const char **source, char **loaded, char *options,
                                  size_t size, herd_error *err) {
  const char *dir = getenv("HERD_KERNEL_DIR");
  int w = herd_cl_program_options(options, size, p, reduce_steering(&b->desc), b->coop_lanes,
                                  strcmp(b->info.type, "CPU") != 0);
  *source = herd_cl_program_source(p);
  *loaded = NULL;
  if (dir && *dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, program_files[p]);
    if (!(*loaded = read_text_file(path))) return herd_fail(err, HERD_E_INPUT, "HERD_KERNEL_DIR: cannot read %s", path);
    *source = *loaded;
    snprintf(options + w, size - (size_t)w, " -I%s", dir);
  }
  return extra_build_options(options, size, err);
}

/* Builds program p from its source (program_source). */
static herd_status build_one(herd_backend *b, herd_cl_program p, herd_error *err) {
  char options[1200];
  const char *source;
  char *loaded;
  herd_status s = program_source(b, p, &source, &loaded, options, sizeof options, err);
  cl_int rc = CL_SUCCESS;
  if (s == HERD_OK) b->programs[p] = clCreateProgramWithSource(b->context, 1, &source, NULL, &rc);
  free(loaded);
  if (s != HERD_OK) return s;
  if (rc != CL_SUCCESS) return cl_fail(b, err, "clCreateProgramWithSource", rc);
  rc = clBuildProgram(b->programs[p], 1, &b->device, options, NULL, NULL);
  if (rc == CL_SUCCESS) return HERD_OK;
  char log[800] = "", hint[700];
  clGetProgramBuildInfo(b->programs[p], b->device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
  for (size_t n = strlen(log); n && (log[n - 1] == '\n' || log[n - 1] == ' '); --n) log[n - 1] = '\0';
  herd_cl_cache_hint(b->info.platform, hint, sizeof hint);
  return herd_fail(err, HERD_E_BACKEND, "OpenCL: building the kernels (kernels/%s) failed on \"%s\" (%s): %s%s",
                   program_files[p], b->info.name, herd_cl_error_name(rc), log, hint);
}

/* Builds both programs, from the embedded sources or from $HERD_KERNEL_DIR. */
static herd_status build_program(herd_backend *b, herd_error *err) {
  b->coop_lanes = coop_lanes();
  herd_status s = HERD_OK;
  for (int p = 0; p < HERD_CL_PROGRAMS && s == HERD_OK; ++p) s = build_one(b, (herd_cl_program)p, err);
  return s;
}

static herd_status create_kernels(herd_backend *b, herd_error *err) {
  for (int k = 0; k < K_COUNT; ++k) {
    cl_int rc;
    if (!kernel_name(b, (enum kernel_id)k)) continue; /* a pre-pass the model has not */
    b->kernels[k] =
        clCreateKernel(b->programs[kernel_program((enum kernel_id)k)], kernel_name(b, (enum kernel_id)k), &rc);
    if (rc != CL_SUCCESS) {
      char call[160];
      snprintf(call, sizeof call, "clCreateKernel(%s)", kernel_name(b, (enum kernel_id)k));
      return cl_fail(b, err, call, rc);
    }
  }
  size_t fits = 0;
  clGetKernelWorkGroupInfo(b->kernels[K_REDUCE_FIRST], b->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof fits, &fits, NULL);
  if (fits < REDUCE_GROUP)
    return herd_fail(err, HERD_E_BACKEND,
                     "OpenCL: device \"%s\" runs at most %zu work-items of the reduction; herd needs %u", b->info.name,
                     fits, REDUCE_GROUP);
  return HERD_OK;
}

/* Entries of the radix sort's digit table for `n` keys: one per digit and block. */
/* Radix blocks (work-groups) over n keys: a launch has at least one. */
static uint32_t radix_blocks(uint32_t n) {
  uint32_t blocks = (n + RADIX_BLOCK - 1) / RADIX_BLOCK;
  return blocks ? blocks : 1u;
}

/* Every entry is written by its block's count before the scan reads it (the scan covered a
 * block more, never written: Oclgrind read it as uninitialised). */
static size_t radix_table(uint32_t n) { return (size_t)(1u << RADIX_BITS) * radix_blocks(n); }

/* Bytes of device memory for `n` agents, computed before allocating anything. */
static size_t device_bytes(uint32_t n, uint32_t buckets, uint32_t stride) {
  size_t per_agent =
      2 * (2 * stride * sizeof(cl_float) + sizeof(cl_uint)) + 4 * sizeof(cl_uint); /* state, key and order twice */
  size_t scan = radix_table(n) * sizeof(cl_uint);
  for (size_t len = radix_table(n); len > SCAN_BLOCK; len = (len + SCAN_BLOCK - 1) / SCAN_BLOCK)
    scan += (len + SCAN_BLOCK - 1) / SCAN_BLOCK * sizeof(cl_uint);
  size_t partials = ((size_t)n + REDUCE_BLOCK - 1) / REDUCE_BLOCK * sizeof(herd_flock_partial);
  return n * per_agent + 2 * (size_t)buckets * sizeof(cl_uint) + scan + partials + sizeof(herd_flock_partial) +
         HERD_MAX_STEERING * HERD_STEER_FLOATS * sizeof(cl_float) + SCAN_BLOCK * sizeof(cl_uint);
}

/* HERD_CL_MEMORY_LIMIT_MIB caps the device memory herd counts on (a shared GPU; tests
 * that must not depend on how much memory a machine has free). */
static void apply_memory_limit(herd_device_info *info) {
  const char *text = getenv("HERD_CL_MEMORY_LIMIT_MIB");
  char *end;
  unsigned long long mib = text && *text ? strtoull(text, &end, 10) : 0;
  if (!mib || *end) return;
  uint64_t limit = (uint64_t)mib << 20;
  if (info->global_mem_bytes > limit) info->global_mem_bytes = limit;
  if (info->max_alloc_bytes > limit) info->max_alloc_bytes = limit;
}

static herd_status check_fits(herd_backend *b, herd_error *err) {
  apply_memory_limit(&b->info);
  size_t need = device_bytes(b->desc.count, b->buckets, b->stride);
  if (b->prepass) need += (size_t)b->desc.count * (2 * sizeof(cl_long) + 2 * sizeof(cl_uint)); /* create_buffers */
  size_t largest = (size_t)b->desc.count * b->stride * sizeof(cl_float);
  if ((size_t)b->buckets * sizeof(cl_uint) > largest) largest = (size_t)b->buckets * sizeof(cl_uint);
  if (need > b->info.global_mem_bytes || largest > b->info.max_alloc_bytes)
    return herd_fail(err, HERD_E_INPUT,
                     "%u agents need %zu MiB of device memory (largest buffer %zu MiB); device \"%s\" has %llu MiB "
                     "(largest buffer %llu MiB)",
                     b->desc.count, need >> 20, largest >> 20, b->info.name,
                     (unsigned long long)(b->info.global_mem_bytes >> 20),
                     (unsigned long long)(b->info.max_alloc_bytes >> 20));
  return HERD_OK;
}

static herd_status alloc(herd_backend *b, cl_mem *out, size_t bytes, herd_error *err) {
  cl_int rc;
  *out = clCreateBuffer(b->context, CL_MEM_READ_WRITE, bytes ? bytes : 4, NULL, &rc);
  if (rc != CL_SUCCESS) return cl_fail(b, err, "clCreateBuffer", rc);
  b->bytes += bytes;
  return HERD_OK;
}

/* The env array on the device (a float of room when there is none: no buffer is empty). */
static herd_status write_env(herd_backend *b, const float *env, size_t floats, herd_error *err) {
  herd_status s = alloc(b, &b->env, floats * sizeof(float), err);
  if (s != HERD_OK || floats == 0) return s;
  CL_TRY("clEnqueueWriteBuffer(env)",
         clEnqueueWriteBuffer(b->queue, b->env, BLOCKING, 0, floats * sizeof(float), env, 0, NULL, NULL));
  return HERD_OK;
}

static herd_status share(herd_backend *b, cl_mem *out, unsigned gl_buffer, herd_error *err) {
  cl_int rc;
  *out = clCreateFromGLBuffer(b->context, CL_MEM_READ_WRITE, gl_buffer, &rc);
  return rc == CL_SUCCESS ? HERD_OK : cl_fail(b, err, "clCreateFromGLBuffer", rc);
}

static herd_status create_buffers(herd_backend *b, herd_error *err) {
  size_t n = b->desc.count;
  herd_status s = HERD_OK;
  const herd_gl_share *gl = b->desc.gl_share;
  for (int i = 0; i < 2 && s == HERD_OK; ++i) {
    if (i == 0 && b->gl_shared) {
      s = share(b, &b->pos[0], gl->pos_buffer, err);
      if (s == HERD_OK) s = share(b, &b->vel[0], gl->vel_buffer, err);
      if (s == HERD_OK) s = share(b, &b->agent[0], gl->agent_buffer, err);
      continue;
    }
    s = alloc(b, &b->pos[i], n * b->stride * sizeof(cl_float), err);
    if (s == HERD_OK) s = alloc(b, &b->vel[i], n * b->stride * sizeof(cl_float), err);
    if (s == HERD_OK) s = alloc(b, &b->agent[i], n * sizeof(cl_uint), err);
  }
  if (s == HERD_OK) s = alloc(b, &b->key, n * sizeof(cl_uint), err);
  if (s == HERD_OK) s = alloc(b, &b->order, n * sizeof(cl_uint), err);
  if (s == HERD_OK) s = alloc(b, &b->key2, n * sizeof(cl_uint), err);
  if (s == HERD_OK) s = alloc(b, &b->order2, n * sizeof(cl_uint), err);
  if (s == HERD_OK) s = alloc(b, &b->hist, radix_table(b->desc.count) * sizeof(cl_uint), err);
  if (s == HERD_OK) s = alloc(b, &b->count, b->buckets * sizeof(cl_uint), err);
  if (s == HERD_OK) s = alloc(b, &b->cell_end, b->buckets * sizeof(cl_uint), err);
  size_t worlds = b->world_count ? b->world_count : 1;
  if (s == HERD_OK) s = alloc(b, &b->steer, worlds * HERD_MAX_STEERING * HERD_STEER_FLOATS * sizeof(cl_float), err);
  size_t blocks = b->world_count ? b->total_blocks : (n + REDUCE_BLOCK - 1) / REDUCE_BLOCK;
  blocks = blocks ? blocks : 1; /* no agents: one group still leaves an empty total */
  if (s == HERD_OK) s = alloc(b, &b->partials, blocks * sizeof(herd_flock_partial), err);
  if (s == HERD_OK) s = alloc(b, &b->total, sizeof(herd_flock_partial), err);
  if (s == HERD_OK) s = alloc(b, &b->ticket, worlds * sizeof(cl_uint), err);
  cl_uint zero = 0;
  if (s == HERD_OK)
    CL_TRY("clEnqueueFillBuffer(ticket)",
           clEnqueueFillBuffer(b->queue, b->ticket, &zero, sizeof zero, 0, worlds * sizeof(cl_uint), 0, NULL, NULL));
  size_t len = radix_table(b->desc.count);
  for (int level = 0; s == HERD_OK && level < MAX_SCAN_LEVELS; ++level) {
    len = (len + SCAN_BLOCK - 1) / SCAN_BLOCK;
    s = alloc(b, &b->scan_sums[level], len * sizeof(cl_uint), err);
    if (len <= 1) break;
  }
  if (s == HERD_OK && b->prepass) s = alloc(b, &b->pre, 2 * n * sizeof(cl_long), err);
  if (s == HERD_OK && b->prepass) s = alloc(b, &b->pre_list, 2 * n * sizeof(cl_uint), err);
  if (s == HERD_OK && b->prepass) s = alloc(b, &b->pre_counters, 2 * sizeof(cl_uint), err);
  return s;
}

static void cl_destroy(herd_backend *b) {
  if (!b) return;
  if (b->queue) finish(b);
  collect_profile(b);
  for (int k = 0; k < 2; ++k)
    if (b->ring_read[k]) clReleaseEvent(b->ring_read[k]);
  cl_mem *mems[] = {&b->pos[0],       &b->pos[1], &b->vel[0],     &b->vel[1],     &b->agent[0],     &b->agent[1],
                    &b->key,          &b->order,  &b->count,      &b->cell_end,   &b->steer,        &b->partials,
                    &b->total,        &b->ticket, &b->worlds,     &b->world_of,   &b->world_params, &b->block_world,
                    &b->world_totals, &b->env,    &b->group_sums, &b->slot_by_id, &b->group_acc,    &b->group_map,
                    &b->key2,         &b->order2, &b->hist,       &b->pre,        &b->pre_list,     &b->pre_counters};
  for (size_t k = 0; k < sizeof mems / sizeof mems[0]; ++k)
    if (*mems[k]) clReleaseMemObject(*mems[k]);
  for (int k = 0; k < MAX_SCAN_LEVELS; ++k)
    if (b->scan_sums[k]) clReleaseMemObject(b->scan_sums[k]);
  for (int k = 0; k < K_COUNT; ++k)
    if (b->kernels[k]) clReleaseKernel(b->kernels[k]);
  for (int p = 0; p < HERD_CL_PROGRAMS; ++p)
    if (b->programs[p]) clReleaseProgram(b->programs[p]);
  if (b->queue) clReleaseCommandQueue(b->queue);
  if (b->context) clReleaseContext(b->context);
  free(b->map_pos);
  free(b->map_vel);
  free(b->map_agent);
  free(b->world_desc);
  free(b->world);
  free(b->world_boxes);
  free(b->steer_all);
  free(b->host_env);
  free(b->totals);
  free(b->group_list);
  free(b->map_slot);
  free(b);
}

/* With desc.gl_share on a device that has cl_khr_gl_sharing (decided from its extension
 * string alone: PoCL ends the process inside clCreateFromGLBuffer), the context is created
 * on the current GL context. */
static herd_status create_context(herd_backend *b, herd_error *err) {
  cl_int rc;
  const herd_gl_share *gl = b->desc.gl_share;
  b->gl_shared = gl && b->info.gl_sharing;
  if (b->gl_shared) {
    cl_platform_id platform;
    CL_TRY("clGetDeviceInfo(CL_DEVICE_PLATFORM)",
           clGetDeviceInfo(b->device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL));
    cl_context_properties props[] = {CL_GL_CONTEXT_KHR,
                                     (cl_context_properties)gl->gl_context,
                                     CL_GLX_DISPLAY_KHR,
                                     (cl_context_properties)gl->display,
                                     CL_CONTEXT_PLATFORM,
                                     (cl_context_properties)platform,
                                     0};
    b->context = clCreateContext(props, 1, &b->device, NULL, NULL, &rc);
  } else {
    b->context = clCreateContext(NULL, 1, &b->device, NULL, NULL, &rc);
  }
  if (rc != CL_SUCCESS) return cl_fail(b, err, "clCreateContext", rc);
  cl_command_queue_properties props = b->desc.profile ? CL_QUEUE_PROFILING_ENABLE : 0;
  b->queue = clCreateCommandQueue(b->context, b->device, props, &rc);
  if (rc != CL_SUCCESS) return cl_fail(b, err, "clCreateCommandQueue", rc);
  return HERD_OK;
}

/* The device, its context and program, and the buffers for desc.count agents in `buckets`
 * buckets (a batch: all its worlds). */
/* The model's pre-pass, when its step wants one with these parameters: by default on a GPU
 * only. On a CPU device (PoCL) a sheep's lanes run one after another and the pre-pass measured
 * slower than the step kernel's own search (bench/results/opencl-coop.md). $HERD_CL_COOP=1 runs
 * it on any device (the tests check it on PoCL), =0 on none (to compare). Needs b->info. */
static void choose_prepass(herd_backend *b) {
  const herd_model_prepass *pp = b->desc.model->prepass;
  const char *force = getenv("HERD_CL_COOP");
  bool on = force && *force ? strcmp(force, "0") != 0 : strcmp(b->info.type, "GPU") == 0;
  if (!pp->kernel || !on || !pp->wanted(b->desc.params, b->desc.count)) return;
  static const char *const parts[3] = {"list", "coop", "far"};
  for (int k = 0; k < 3; ++k) snprintf(b->pre_kernel[k], sizeof b->pre_kernel[k], "%s_%s", pp->kernel, parts[k]);
  b->prepass = true;
}

static herd_status open_device(herd_backend *b, herd_error *err) {
  herd_status s = herd_cl_choose_device(b->desc.device, &b->device, &b->info, err);
  if (s == HERD_OK && !b->info.fp64)
    s = herd_fail(
        err, HERD_E_BACKEND,
        "OpenCL device \"%s\" lacks cl_khr_fp64, which the flock's groups (kernels/groups.h) need; choose another "
        "--device or --backend cpu",
        b->info.name);
  if (s == HERD_OK) choose_prepass(b);
  if (s == HERD_OK) s = check_fits(b, err);
  if (s == HERD_OK) s = create_context(b, err);
  if (s == HERD_OK) s = build_program(b, err);
  if (s == HERD_OK) s = create_kernels(b, err);
  if (s == HERD_OK) s = create_buffers(b, err);
  return s;
}

static herd_status cl_create(const herd_backend_desc *desc, herd_backend **out, herd_error *err) {
  herd_backend *b = calloc(1, sizeof *b);
  if (!b) return herd_fail(err, HERD_E_MEMORY, "out of memory creating the OpenCL backend");
  b->desc = *desc;
  b->capacity = desc->count;
  memcpy(b->params, desc->params, desc->model->params_size);
  b->desc.params = b->params;
  snprintf(b->batch_kernel, sizeof b->batch_kernel, "herd_step_batch_%s", desc->model->name);
  b->grid = herd_grid_for(&b->desc);
  herd_box_history_start(&b->boxes, NULL, 0, desc->dims); /* no flock yet: hash */
  b->stepped = UINT32_MAX;
  b->stride = herd_state_stride(desc->dims);
  b->buckets = b->grid.table_mask + 1u;
  herd_status s = open_device(b, err);
  if (s == HERD_OK) s = write_env(b, desc->env, desc->env_floats, err);
  if (s == HERD_OK && desc->env_floats && !(b->host_env = malloc(desc->env_floats * sizeof(float))))
    s = herd_fail(err, HERD_E_MEMORY, "out of memory copying the obstacles");
  if (s == HERD_OK && desc->env_floats) memcpy(b->host_env, desc->env, desc->env_floats * sizeof(float));
  b->desc.env = NULL; /* the caller's; copied */
  if (s != HERD_OK) {
    cl_destroy(b);
    return s;
  }
  *out = b;
  return HERD_OK;
}

/* ---- Sharing with OpenGL ---------------------------------------------------------------- */

/* Around every use of the state: GL must have finished with the buffers (the renderer
 * calls glFinish before stepping), and GL may draw them once released and finished. */
static herd_status gl_acquire(herd_backend *b, herd_error *err) {
  if (!b->gl_shared) return HERD_OK;
  cl_mem mems[3] = {b->pos[0], b->vel[0], b->agent[0]};
  CL_TRY("clEnqueueAcquireGLObjects", clEnqueueAcquireGLObjects(b->queue, 3, mems, 0, NULL, NULL));
  return HERD_OK;
}

static herd_status gl_release(herd_backend *b, herd_status status, herd_error *err) {
  if (!b->gl_shared) return status;
  cl_mem mems[3] = {b->pos[0], b->vel[0], b->agent[0]};
  cl_int rc = clEnqueueReleaseGLObjects(b->queue, 3, mems, 0, NULL, NULL);
  if (rc == CL_SUCCESS) rc = finish(b);
  if (status == HERD_OK && rc != CL_SUCCESS) return cl_fail(b, err, "clEnqueueReleaseGLObjects", rc);
  return status;
}

static bool cl_shares_gl(const herd_backend *b) { return b->gl_shared; }

/* ---- State in and out ------------------------------------------------------------------- */

/* The state into [0] as given (the backend's own order, agent words included): where an
 * upload puts it, and where GL-shared state lives. */
static herd_status write_state(herd_backend *b, const float *pos, const float *vel, const uint32_t *agent,
                               herd_error *err) {
  size_t n = b->desc.count, floats = n * b->stride;
  b->cur = 0;
  cl_int rc = clEnqueueWriteBuffer(b->queue, b->pos[0], BLOCKING, 0, floats * sizeof *pos, pos, 0, NULL, NULL);
  if (rc == CL_SUCCESS)
    rc = clEnqueueWriteBuffer(b->queue, b->vel[0], BLOCKING, 0, floats * sizeof *vel, vel, 0, NULL, NULL);
  if (rc == CL_SUCCESS)
    rc = clEnqueueWriteBuffer(b->queue, b->agent[0], BLOCKING, 0, n * sizeof *agent, agent, 0, NULL, NULL);
  return rc == CL_SUCCESS ? HERD_OK : cl_fail(b, err, "clEnqueueWriteBuffer(flock)", rc);
}

static herd_status upload_flock(herd_backend *b, const float *pos, const float *vel, herd_error *err) {
  size_t n = b->desc.count;
  uint32_t *agent = malloc(n * sizeof *agent);
  if (!agent) return herd_fail(err, HERD_E_MEMORY, "out of memory uploading the flock");
  herd_vec3 goal = herd_v3(b->desc.goal_m[0], b->desc.goal_m[1], b->desc.goal_m[2]);
  for (uint32_t i = 0; i < n; ++i) {
    int in_goal = herd_env_in_goal(b->host_env, &b->desc.env_info, herd_load_vec(pos, i, b->desc.dims), goal,
                                   b->desc.goal_radius_m);
    agent[i] = i | (in_goal ? HERD_AGENT_DELIVERED : 0u);
  }
  herd_box_history_start(&b->boxes, pos, b->desc.count, b->desc.dims);
  b->stepped = UINT32_MAX;
  herd_status s = write_state(b, pos, vel, agent, err);
  free(agent);
  return s;
}

/* Reads back state buffer set `which` (0 or 1) as it lies on the device. */
static herd_status read_state(herd_backend *b, int which, float *pos, float *vel, uint32_t *agent, herd_error *err) {
  size_t n = b->desc.count, bytes = n * b->stride * sizeof(float);
  if (pos)
    CL_TRY("clEnqueueReadBuffer(pos)",
           clEnqueueReadBuffer(b->queue, b->pos[which], BLOCKING, 0, bytes, pos, 0, NULL, NULL));
  if (vel)
    CL_TRY("clEnqueueReadBuffer(vel)",
           clEnqueueReadBuffer(b->queue, b->vel[which], BLOCKING, 0, bytes, vel, 0, NULL, NULL));
  if (agent)
    CL_TRY("clEnqueueReadBuffer(agent)",
           clEnqueueReadBuffer(b->queue, b->agent[which], BLOCKING, 0, n * sizeof *agent, agent, 0, NULL, NULL));
  return HERD_OK;
}

static herd_status read_flock(herd_backend *b, float *pos, float *vel, herd_error *err) {
  size_t n = b->desc.count, stride = b->stride;
  float *p = malloc(n * stride * sizeof *p), *v = malloc(n * stride * sizeof *v);
  uint32_t *a = malloc(n * sizeof *a);
  herd_status s = (p && v && a) ? read_state(b, b->cur, p, v, a, err)
                                : herd_fail(err, HERD_E_MEMORY, "out of memory reading the flock back");
  for (size_t i = 0; s == HERD_OK && i < n; ++i) {
    size_t id = herd_agent_id(a[i]);
    if (pos) memcpy(&pos[id * stride], &p[i * stride], stride * sizeof *p);
    if (vel) memcpy(&vel[id * stride], &v[i * stride], stride * sizeof *v);
  }
  free(p);
  free(v);
  free(a);
  return s;
}

/* Sends the steering agents down when they changed since last sent (one small write). */
static herd_status send_steering(herd_backend *b, herd_steering_input steer, herd_error *err) {
  size_t bytes = (size_t)steer.count * HERD_STEER_FLOATS * sizeof(float);
  if (b->steer_valid && steer.count == b->steer_sent_count &&
      memcmp(steer.pos, b->steer_sent[b->steer_slot], bytes) == 0)
    return HERD_OK;
  b->steer_slot ^= 1u;
  float *staged = b->steer_sent[b->steer_slot];
  memcpy(staged, steer.pos, bytes);
  b->steer_sent_count = steer.count;
  b->steer_valid = true;
  if (steer.count == 0) return HERD_OK;
  /* Non-blocking: this copy stays untouched until the call after next (see steer_sent). */
  CL_TRY("clEnqueueWriteBuffer(steering)", clEnqueueWriteBuffer(b->queue, b->steer, CL_FALSE, 0, bytes, staged, 0, NULL,
                                                                event_for(b, HERD_STAGE_READBACK)));
  return HERD_OK;
}

/* ---- The step --------------------------------------------------------------------------- */

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
    return run_kernel(b, K_SCAN_SINGLE, SCAN_GROUP, SCAN_GROUP, HERD_STAGE_SORT, err, 2, MEM(data), VAL(n));
  uint32_t blocks = (n + SCAN_BLOCK - 1) / SCAN_BLOCK;
  herd_status s = run_kernel(b, K_SCAN_BLOCKS, (size_t)blocks * SCAN_GROUP, SCAN_GROUP, HERD_STAGE_SORT, err, 3,
                             MEM(data), VAL(n), MEM(b->scan_sums[level]));
  if (s != HERD_OK || blocks <= 1) return s;
  if (level + 1 >= MAX_SCAN_LEVELS) return herd_fail(err, HERD_E_BACKEND, "OpenCL: flock too large for the scan");
  s = scan(b, b->scan_sums[level], blocks, level + 1, err);
  if (s != HERD_OK) return s;
  return run_kernel(b, K_SCAN_ADD, n, SIMPLE_GROUP, HERD_STAGE_SORT, err, 3, MEM(data), VAL(n),
                    MEM(b->scan_sums[level]));
}

/* Radix passes for keys below `buckets`: as many digits as the largest key has. */
static uint32_t radix_passes(uint32_t buckets) {
  uint32_t bits = 0;
  while (bits < 32 && ((buckets - 1u) >> bits)) ++bits;
  return bits ? (bits + RADIX_BITS - 1) / RADIX_BITS : 1u;
}

/* Work-items of a radix kernel over `n` keys: whole blocks. */
static size_t radix_items(uint32_t n) { return (size_t)radix_blocks(n) * RADIX_GROUP; }

/* A step longer than SLOW_STEP_S (before any was timed: a flock of FIRST_SLICE agents or more)
 * is cut for Ctrl-C: the step kernel into slices of about SLICE_S seconds (step_slice), the
 * grid's build at its stages (stage_break). */
#define SLICE_S 0.1
#define SLOW_STEP_S 0.25
#define FIRST_SLICE 16384u
#define FIRST_STAGED (64u * FIRST_SLICE)

/* Between two stages of the step's grid (bin, each radix pass, ranges), for a long step only
 * (each look waits for the device): HERD_E_INTERRUPTED once the stop is raised. The state the
 * step reads, [cur], is not written until the step kernel runs, so nothing is undone. */
static herd_status stage_break(herd_backend *b, herd_error *err) {
  bool long_step = b->last_step_s > 0 ? b->last_step_s >= SLOW_STEP_S : b->desc.count >= FIRST_STAGED;
  if (!b->building_step_grid || !b->desc.stop || !long_step) return HERD_OK;
  CL_TRY("clFinish(stage)", finish(b));
  return herd_stop_between_pieces(b->desc.stop) ? HERD_E_INTERRUPTED : HERD_OK;
}

/* After a bin kernel left the keys in b->key and the first digit's table in b->hist: the
 * stable radix sort by bucket, its last pass gathering the state from [src] into [dst]; the
 * sorted keys are left in b->sorted_key. */
static herd_status sort_binned(herd_backend *b, int src, int dst, herd_error *err) {
  uint32_t n = b->desc.count, passes = radix_passes(b->buckets), table = (uint32_t)radix_table(n);
  cl_mem keys[2] = {b->key, b->key2}, orders[2] = {b->order, b->order2};
  herd_status s = HERD_OK;
  int in = 0;
  for (uint32_t p = 0; p < passes && s == HERD_OK; ++p) {
    cl_uint shift = p * RADIX_BITS, identity = p == 0;
    if (p > 0)
      s = run_kernel(b, K_RADIX_COUNT, radix_items(n), RADIX_GROUP, HERD_STAGE_SORT, err, 4, MEM(keys[in]), VAL(n),
                     VAL(shift), MEM(b->hist));
    if (s == HERD_OK) s = scan(b, b->hist, table, 0, err);
    if (s != HERD_OK) break;
    if (p + 1 < passes)
      s = run_kernel(b, K_RADIX_SCATTER, radix_items(n), RADIX_GROUP, HERD_STAGE_SORT, err, 8, MEM(keys[in]),
                     MEM(orders[in]), VAL(n), VAL(shift), VAL(identity), MEM(b->hist), MEM(keys[1 - in]),
                     MEM(orders[1 - in]));
    else
      s = run_kernel(b, K_RADIX_SCATTER_STATE, radix_items(n), RADIX_GROUP, HERD_STAGE_SORT, err, 14, MEM(keys[in]),
                     MEM(orders[in]), VAL(n), VAL(shift), VAL(identity), MEM(b->hist), MEM(keys[1 - in]),
                     MEM(b->pos[src]), MEM(b->vel[src]), MEM(b->agent[src]), MEM(b->pos[dst]), MEM(b->vel[dst]),
                     MEM(b->agent[dst]), VAL(b->desc.dims));
    in = 1 - in;
    if (s == HERD_OK) s = stage_break(b, err);
  }
  b->sorted_key = keys[in];
  return s;
}

/* Bucket ends (and with `mark`, the mixed flags) from the sorted keys; g->count keys. Then each
 * bucket's agents in order of id (kernels/grid.h, herd_order_bucket), as on the CPU. */
static herd_status find_ranges(herd_backend *b, const herd_grid *g, cl_uint mark, herd_error *err) {
  int dst = 1 - b->cur;
  herd_status s = run_kernel(b, K_RANGES, g->count, SIMPLE_GROUP, HERD_STAGE_RANGES, err, 6, MEM(b->sorted_key),
                             MEM(b->pos[dst]), VAL(*g), VAL(b->buckets), VAL(mark), MEM(b->cell_end));
  if (s != HERD_OK) return s;
  return run_kernel(b, K_ORDER_BUCKETS, b->buckets, SIMPLE_GROUP, HERD_STAGE_SORT, err, 6, MEM(b->pos[dst]),
                    MEM(b->vel[dst]), MEM(b->agent[dst]), MEM(b->cell_end), VAL(b->buckets), VAL(b->desc.dims));
}

/* Bin on grid g (the model's, or the groups'), stable sort by bucket into [1-cur], cell ranges. */
static herd_status build_grid_on(herd_backend *b, const herd_grid *g, herd_error *err) {
  uint32_t n = b->desc.count;
  int src = b->cur, dst = 1 - b->cur;
  herd_status s = run_kernel(b, K_BIN, radix_items(n), RADIX_GROUP, HERD_STAGE_BIN, err, 6, MEM(b->pos[src]), VAL(*g),
                             VAL(b->buckets), MEM(b->key), MEM(b->hist), MEM(b->cell_end));
  if (s == HERD_OK) s = stage_break(b, err);
  if (s == HERD_OK) s = sort_binned(b, src, dst, err);
  if (s == HERD_OK) s = find_ranges(b, g, 1u, err);
  return s;
}

/* The grid of the step enqueued last (herd_box_history). */
static herd_status build_grid(herd_backend *b, herd_error *err) {
  herd_grid_box_for_step(&b->grid, &b->boxes, b->stepped);
  b->building_step_grid = true;
  herd_status s = build_grid_on(b, &b->grid, err);
  if (s == HERD_OK) s = stage_break(b, err);
  b->building_step_grid = false;
  return s;
}

/* Agents per launch of the step kernel. One launch for the whole flock, unless a Ctrl-C
 * could wait long for it: then slices of about SLICE_S seconds (from the last step's time;
 * FIRST_SLICE agents before any step was timed), between which the host looks at the stop
 * flag. A slice is a multiple of the work-group size. */

/* $HERD_CL_SLICE_AGENTS: slices of at most that many agents whatever the step's time (tests
 * that interrupt a step on a machine whose speed they cannot know); 0 when unset. */
static double forced_slice(void) {
  const char *text = getenv("HERD_CL_SLICE_AGENTS");
  char *end;
  unsigned long agents = text && *text ? strtoul(text, &end, 10) : 0;
  return agents && !*end ? (double)agents : 0.0;
}

static size_t step_slice(const herd_backend *b) {
  size_t n = b->desc.count;
  if (!b->desc.stop) return n;
  double slice =
      b->last_step_s > 0 ? (b->last_step_s < SLOW_STEP_S ? (double)n : n * SLICE_S / b->last_step_s) : FIRST_SLICE;
  if (forced_slice() > 0 && forced_slice() < slice) slice = forced_slice();
  return slice >= (double)n ? n : round_up(slice > SIMPLE_GROUP ? (size_t)slice : SIMPLE_GROUP, SIMPLE_GROUP);
}

/* Runs the bound step kernel (or a pre-pass kernel) over the flock, slice by slice, with
 * `per_group` agents (or list entries) per work-group of SIMPLE_GROUP, and slices `cost` times
 * smaller than the step's (a pre-pass agent costs several step agents); HERD_E_INTERRUPTED as
 * soon as the stop flag is seen between slices (the slices in flight are finished first). */
_Static_assert(COOP_GROUP == SIMPLE_GROUP, "the pre-pass's groups are sliced as the step's");
static herd_status launch_slices(herd_backend *b, enum kernel_id step, size_t per_group, size_t cost, herd_error *err) {
  size_t n = b->desc.count, slice = step_slice(b);
  if (slice < n) slice = round_up(slice / cost > SIMPLE_GROUP ? slice / cost : SIMPLE_GROUP, SIMPLE_GROUP);
  for (size_t first = 0; first < n; first += slice) {
    size_t agents = n - first < slice ? n - first : slice;
    herd_status s = launch(b, step, first / per_group * SIMPLE_GROUP,
                           (agents + per_group - 1) / per_group * SIMPLE_GROUP, SIMPLE_GROUP, HERD_STAGE_STEP, err);
    if (s != HERD_OK || slice == n) return s;
    CL_TRY("clFinish(step slice)", finish(b));
    if (herd_stop_between_pieces(b->desc.stop)) return HERD_E_INTERRUPTED;
  }
  return HERD_OK;
}

/* After an abandoned step: the sorted copy holds the whole flock as before the step; it
 * goes back where the state lives, so that state buffer set [cur] stays the one drawn. */
static herd_status restore_sorted_state(herd_backend *b, herd_error *err) {
  size_t n = b->desc.count, bytes = n * b->stride * sizeof(cl_float);
  int from = 1 - b->cur, to = b->cur;
  CL_TRY("clEnqueueCopyBuffer(pos)",
         clEnqueueCopyBuffer(b->queue, b->pos[from], b->pos[to], 0, 0, bytes, 0, NULL, NULL));
  CL_TRY("clEnqueueCopyBuffer(vel)",
         clEnqueueCopyBuffer(b->queue, b->vel[from], b->vel[to], 0, 0, bytes, 0, NULL, NULL));
  CL_TRY("clEnqueueCopyBuffer(agent)",
         clEnqueueCopyBuffer(b->queue, b->agent[from], b->agent[to], 0, 0, n * sizeof(cl_uint), 0, NULL, NULL));
  CL_TRY("clFinish(restore)", finish(b));
  return HERD_E_INTERRUPTED;
}

/* The model's pre-pass over the sorted flock (after build_grid): the work list, the
 * cooperative kernel over it (launched for a full list: no read-back of its length; groups past
 * its end return at once), then the far list, one work-item each; both in the step's slices,
 * so that Ctrl-C is seen as soon (HERD_E_INTERRUPTED). Results in b->pre. */
static herd_status run_prepass(herd_backend *b, const herd_step_info *info, herd_error *err) {
  uint32_t n = b->desc.count, zero = 0, agents_per_group = COOP_GROUP / b->coop_lanes;
  int sorted = 1 - b->cur;
  size_t params = b->desc.model->params_size;
  CL_TRY("clEnqueueFillBuffer(pre-pass counters)",
         clEnqueueFillBuffer(b->queue, b->pre_counters, &zero, sizeof zero, 0, 2 * sizeof(cl_uint), 0, NULL,
                             event_for(b, HERD_STAGE_STEP)));
  herd_status s = run_kernel(b, K_PRE_LIST, n, SIMPLE_GROUP, HERD_STAGE_STEP, err, 8, MEM(b->pos[sorted]),
                             MEM(b->agent[sorted]), MEM(b->steer), params, (const void *)b->params, VAL(b->grid),
                             VAL(*info), MEM(b->pre_list), MEM(b->pre_counters));
  if (s == HERD_OK)
    s = set_args(b, K_PRE_COOP, err, 7, MEM(b->pos[sorted]), MEM(b->cell_end), params, (const void *)b->params,
                 VAL(b->grid), MEM(b->pre_list), MEM(b->pre_counters), MEM(b->pre));
  if (s == HERD_OK) s = launch_slices(b, K_PRE_COOP, agents_per_group, COOP_SLICE_COST, err);
  if (s == HERD_OK)
    s = set_args(b, K_PRE_FAR, err, 10, MEM(b->pos[sorted]), MEM(b->agent[sorted]), MEM(b->cell_end), MEM(b->steer),
                 params, (const void *)b->params, VAL(b->grid), VAL(*info), MEM(b->pre_list), MEM(b->pre_counters),
                 MEM(b->pre));
  if (s == HERD_OK) s = launch_slices(b, K_PRE_FAR, SIMPLE_GROUP, COOP_SLICE_COST, err);
  return s;
}

static herd_status step_flock(herd_backend *b, herd_steering_input steer, const float centroid[3], uint32_t step,
                              herd_error *err) {
  b->step_started_s = now_s();
  b->stepped = step;
  herd_status s = send_steering(b, steer, err);
  if (s == HERD_OK) s = build_grid(b, err);
  if (s != HERD_OK) return s;
  int src = 1 - b->cur, dst = b->cur;
  /* No centroid: the kernel takes it from the last observation, which stays on the device
   * (b->total), so the step need not wait for the host to read it. */
  static const float unknown[3] = {0, 0, 0};
  herd_step_info info = herd_step_info_for(&b->desc, steer, centroid ? centroid : unknown, step);
  cl_mem observed = centroid ? NULL : b->total;
  cl_mem pre = NULL; /* NULL: the step kernel searches itself */
  if (b->prepass) s = run_prepass(b, &info, err), pre = b->pre;
  if (s == HERD_OK)
    s = set_args(b, K_STEP, err, 14, MEM(b->pos[src]), MEM(b->vel[src]), MEM(b->agent[src]), MEM(b->cell_end),
                 MEM(b->steer), MEM(b->env), b->desc.model->params_size, (const void *)b->params, VAL(b->grid),
                 VAL(info), MEM(b->pos[dst]), MEM(b->vel[dst]), MEM(b->agent[dst]), MEM(observed), MEM(pre));
  if (s == HERD_OK) s = launch_slices(b, K_STEP, SIMPLE_GROUP, 1, err);
  if (s == HERD_E_INTERRUPTED) s = restore_sorted_state(b, err);
  return s;
}

/* ---- The observation -------------------------------------------------------------------- */

/* More steering agents than the program's partials have room for (desc.steering_count). */
static herd_status too_many_steering(const herd_backend *b, uint32_t count, herd_error *err) {
  return herd_fail(err, HERD_E_INPUT, "the OpenCL reduction was built for %u steering agents, given %u",
                   reduce_steering(&b->desc), count);
}

/* Device partials are partial_bytes long: a prefix of the host's herd_flock_partial (the nearest
 * entries come last); the host's remaining entries are zeroed. */
static void widen_partial(const herd_backend *b, herd_flock_partial *p) {
  size_t each = partial_bytes(&b->desc);
  if (each < sizeof *p) memset((unsigned char *)p + each, 0, sizeof *p - each);
}

/* Reads `count` device partials (partial_bytes each) into host partials. */
static herd_status read_totals(herd_backend *b, cl_mem from, herd_flock_partial *out, uint32_t count, herd_error *err) {
  size_t each = partial_bytes(&b->desc);
  unsigned char *bytes = malloc(count * each);
  if (!bytes) return herd_fail(err, HERD_E_MEMORY, "out of memory reading the observation");
  cl_int rc =
      clEnqueueReadBuffer(b->queue, from, BLOCKING, 0, count * each, bytes, 0, NULL, event_for(b, HERD_STAGE_READBACK));
  for (uint32_t w = 0; rc == CL_SUCCESS && w < count; ++w) {
    memcpy(&out[w], bytes + w * each, each < sizeof out[w] ? each : sizeof out[w]);
    widen_partial(b, &out[w]);
  }
  free(bytes);
  return rc == CL_SUCCESS ? HERD_OK : cl_fail(b, err, "clEnqueueReadBuffer(observation)", rc);
}

/* The reduction's two launches, each finished by its last work-group (herd_fold_last), then a
 * read of its total into host slot `slot` that the host waits for in reduce_wait. */
static herd_status reduce_async(herd_backend *b, herd_steering_input steer, int slot, herd_error *err) {
  uint32_t n = b->desc.count, groups = (n + REDUCE_BLOCK - 1) / REDUCE_BLOCK, count = steer.count;
  if (count > reduce_steering(&b->desc)) return too_many_steering(b, count, err);
  float no_centroid[3] = {0, 0, 0};
  herd_step_info info = herd_step_info_for(&b->desc, steer, no_centroid, 0);
  cl_mem pos = b->pos[b->cur], vel = b->vel[b->cur], agent = b->agent[b->cur];
  size_t items = (size_t)groups * REDUCE_GROUP; /* no agents: launch runs one group, which leaves an empty total */
  herd_status s = send_steering(b, steer, err);
  if (s == HERD_OK)
    s = run_kernel(b, K_REDUCE_FIRST, items, REDUCE_GROUP, HERD_STAGE_REDUCE, err, 11, MEM(pos), MEM(vel), MEM(agent),
                   VAL(b->grid), MEM(b->steer), VAL(count), VAL(info), MEM(b->env), MEM(b->partials), MEM(b->ticket),
                   MEM(b->total));
  if (s == HERD_OK)
    s = run_kernel(b, K_REDUCE_FAR, items, REDUCE_GROUP, HERD_STAGE_REDUCE, err, 7, MEM(pos), MEM(vel), MEM(agent),
                   VAL(b->grid), MEM(b->total), MEM(b->partials), MEM(b->ticket));
  if (s != HERD_OK) return s;
  if (b->ring_read[slot]) clReleaseEvent(b->ring_read[slot]); /* a cancelled step's, never waited for */
  b->ring_read[slot] = NULL;
  b->ring_steer_count[slot] = count;
  b->ring_step[slot] = b->stepped;
  CL_TRY("clEnqueueReadBuffer(observation)",
         clEnqueueReadBuffer(b->queue, b->total, CL_FALSE, 0, partial_bytes(&b->desc), &b->ring[slot], 0, NULL,
                             &b->ring_read[slot]));
  cl_event *timed = event_for(b, HERD_STAGE_READBACK);
  if (timed) clRetainEvent(*timed = b->ring_read[slot]);
  return HERD_OK;
}

static herd_status reduce_wait(herd_backend *b, int slot, herd_observation *obs, herd_error *err) {
  ++b->profile.waits;
  cl_int rc = clWaitForEvents(1, &b->ring_read[slot]);
  clReleaseEvent(b->ring_read[slot]);
  b->ring_read[slot] = NULL;
  if (rc != CL_SUCCESS) return cl_fail(b, err, "clWaitForEvents(observation)", rc);
  if (b->desc.profile) collect_profile(b);
  if (b->step_started_s > 0) b->last_step_s = now_s() - b->step_started_s;
  b->step_started_s = 0;
  widen_partial(b, &b->ring[slot]);
  herd_observation_from_partial(&b->ring[slot], b->desc.count, b->desc.dims, b->ring_steer_count[slot], obs);
  herd_box_history_observe(&b->boxes, b->ring_step[slot], obs);
  return HERD_OK;
}

static herd_status reduce_flock(herd_backend *b, herd_steering_input steer, herd_observation *obs, herd_error *err) {
  herd_status s = reduce_async(b, steer, 0, err);
  return s == HERD_OK ? reduce_wait(b, 0, obs, err) : s;
}

/* ---- The flock's groups (kernels/groups.cl) ------------------------------------------------- */

static herd_status alloc_groups(herd_backend *b, herd_error *err) {
  if (b->group_sums) return HERD_OK;
  size_t n = b->desc.count;
  herd_status s = alloc(b, &b->group_sums, 6 * n * sizeof(cl_uint), err);
  if (s == HERD_OK) s = alloc(b, &b->slot_by_id, n * sizeof(cl_uint), err);
  if (s == HERD_OK) s = alloc(b, &b->group_acc, sizeof b->acc, err);
  herd_groups_acc_reset(b->acc_start, HERD_GROUP_MAX_TRACKED);
  return s;
}

/* Runs groups kernel `id` over `items` work-items: the sorted flock and its grid as the first
 * five arguments (HERD_GROUP_VIEW_ARGS), then `n_args` more. */
static herd_status run_on_sorted(herd_backend *b, enum kernel_id id, size_t items, herd_error *err, int n_args, ...) {
  int sorted = 1 - b->cur;
  herd_status s = set_args(b, id, err, 5, MEM(b->pos[sorted]), MEM(b->vel[sorted]), MEM(b->agent[sorted]),
                           MEM(b->cell_end), VAL(b->group_grid));
  va_list ap;
  va_start(ap, n_args);
  if (s == HERD_OK) s = set_args_v(b, id, err, 5, n_args, ap);
  va_end(ap);
  return s == HERD_OK ? launch(b, id, 0, items, SIMPLE_GROUP, HERD_STAGE_GROUPS, err) : s;
}

static herd_status fill(herd_backend *b, cl_mem mem, uint32_t pattern, size_t first_word, size_t words,
                        herd_error *err) {
  CL_TRY("clEnqueueFillBuffer(groups)",
         clEnqueueFillBuffer(b->queue, mem, &pattern, sizeof pattern, first_word * sizeof(cl_uint),
                             words * sizeof(cl_uint), 0, NULL, event_for(b, HERD_STAGE_GROUPS)));
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
    s = run_kernel(b, K_GROUPS_START_FINAL, n, SIMPLE_GROUP, HERD_STAGE_GROUPS, err, 4, MEM(b->key), MEM(b->count),
                   MEM(b->order), VAL(n));
  if (s == HERD_OK) s = hook(b, p->view_radius_m, by_side, b->order, err);
  if (s == HERD_OK)
    s = run_kernel(b, K_GROUPS_COMPRESS, n, SIMPLE_GROUP, HERD_STAGE_GROUPS, err, 2, MEM(b->order), VAL(n));
  return s;
}

/* The groups' labels of the sorted flock: *label is `key` (raw groups) or `order` (split). */
static herd_status label_groups(herd_backend *b, const herd_groups_params *p, cl_mem *label, herd_error *err) {
  uint32_t n = b->desc.count;
  cl_int by_side = 0;
  b->group_grid = herd_groups_grid(&b->grid, p->view_radius_m);
  herd_grid_dense_box(&b->group_grid, b->boxes.lo[b->boxes.latest], b->boxes.hi[b->boxes.latest]);
  herd_status s = build_grid_on(b, &b->group_grid, err); /* the grid of where the flock is now */
  if (s == HERD_OK)
    s = run_kernel(b, K_GROUPS_START, n, SIMPLE_GROUP, HERD_STAGE_GROUPS, err, 3, MEM(b->agent[1 - b->cur]), VAL(n),
                   MEM(b->key));
  if (s == HERD_OK) s = hook(b, p->view_radius_m, by_side, b->key, err);
  if (s == HERD_OK)
    s = run_kernel(b, K_GROUPS_COMPRESS, n, SIMPLE_GROUP, HERD_STAGE_GROUPS, err, 2, MEM(b->key), VAL(n));
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
                             NULL, event_for(b, HERD_STAGE_GROUPS)));
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
    s = run_kernel(b, K_GROUPS_COUNT, runs, SIMPLE_GROUP, HERD_STAGE_GROUPS, err, 5, MEM(b->agent[1 - b->cur]),
                   MEM(label), MEM(b->count), MEM(b->group_sums), VAL(n));
  if (s == HERD_OK)
    s = run_kernel(b, K_GROUPS_ROOTS, n, SIMPLE_GROUP, HERD_STAGE_GROUPS, err, 4, MEM(label), MEM(b->count),
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
  CL_TRY("clEnqueueWriteBuffer(groups)", clEnqueueWriteBuffer(b->queue, b->group_acc, CL_FALSE, 0, sizeof b->acc_start,
                                                              b->acc_start, 0, NULL, event_for(b, HERD_STAGE_GROUPS)));
  herd_status s =
      run_on_sorted(b, K_GROUPS_SUM, runs, err, 4, MEM(label), VAL(*pick), MEM(b->slot_by_id), MEM(b->group_acc));
  if (s == HERD_OK) s = run_on_sorted(b, K_GROUPS_FAR_MAX, runs, err, 3, MEM(label), VAL(*pick), MEM(b->group_acc));
  if (s == HERD_OK) s = run_on_sorted(b, K_GROUPS_FAR_ID, n, err, 3, MEM(label), VAL(*pick), MEM(b->group_acc));
  if (s == HERD_OK) s = run_on_sorted(b, K_GROUPS_FAR_POS, n, err, 2, MEM(b->slot_by_id), MEM(b->group_acc));
  if (s != HERD_OK) return s;
  CL_TRY("clEnqueueReadBuffer(groups)",
         clEnqueueReadBuffer(b->queue, b->group_acc, BLOCKING, 0, pick->tracked * sizeof *b->acc, b->acc, 0, NULL,
                             event_for(b, HERD_STAGE_GROUPS)));
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

/* ---- The ops, each bracketed by the GL hand-over when the state is shared ---------------- */

static herd_status cl_upload(herd_backend *b, const float *pos, const float *vel, herd_error *err) {
  herd_status s = gl_acquire(b, err);
  if (s == HERD_OK) s = upload_flock(b, pos, vel, err);
  return gl_release(b, s, err);
}

static herd_status cl_read_agents(herd_backend *b, float *pos, float *vel, herd_error *err) {
  herd_status s = gl_acquire(b, err);
  if (s == HERD_OK) s = read_flock(b, pos, vel, err);
  return gl_release(b, s, err);
}

static herd_status cl_step(herd_backend *b, herd_steering_input steer, const float centroid[3], uint32_t step,
                           herd_error *err) {
  herd_status s = gl_acquire(b, err);
  if (s == HERD_OK) s = step_flock(b, steer, centroid, step, err);
  return gl_release(b, s, err);
}

static herd_status cl_reduce(herd_backend *b, herd_steering_input steer, herd_observation *obs, herd_error *err) {
  herd_status s = gl_acquire(b, err);
  if (s == HERD_OK) s = reduce_flock(b, steer, obs, err);
  return gl_release(b, s, err);
}

/* The halves for a host running a step ahead, which it does only when the state is not shared
 * with GL (no acquire or release around them). */
static herd_status cl_reduce_async(herd_backend *b, herd_steering_input steer, int slot, herd_error *err) {
  return reduce_async(b, steer, slot, err);
}

static herd_status cl_reduce_wait(herd_backend *b, int slot, herd_observation *obs, herd_error *err) {
  return reduce_wait(b, slot, obs, err);
}

static herd_status cl_cancel_step(herd_backend *b, herd_error *err) {
  herd_status s = restore_sorted_state(b, err);
  return s == HERD_E_INTERRUPTED ? HERD_OK : s;
}

static herd_status cl_groups(herd_backend *b, const herd_groups_params *p, herd_observation *obs, herd_error *err) {
  if (b->desc.count == 0) {
    herd_group_pick none = {0};
    herd_groups_fill(&none, b->acc, 0, p, &b->grid, obs);
    return HERD_OK;
  }
  herd_status s = gl_acquire(b, err);
  b->in_groups = true;
  if (s == HERD_OK) s = find_groups(b, p, obs, err);
  b->in_groups = false;
  s = gl_release(b, s, err);
  if (b->desc.profile) collect_profile(b);
  return s;
}

static herd_status cl_map_groups(herd_backend *b, const uint32_t **slot, herd_error *err) {
  uint32_t n = b->desc.count;
  if (!b->slot_by_id) return herd_fail(err, HERD_E_INPUT, "map_groups: no groups were found yet");
  if (!b->map_slot && !(b->map_slot = malloc((n ? n : 1) * sizeof *b->map_slot)))
    return herd_fail(err, HERD_E_MEMORY, "out of memory copying the groups for drawing");
  herd_status s = b->group_map ? HERD_OK : alloc(b, &b->group_map, (size_t)n * sizeof(cl_uint), err);
  if (s == HERD_OK) s = gl_acquire(b, err);
  if (s == HERD_OK)
    s = run_kernel(b, K_GROUPS_MAP, n, SIMPLE_GROUP, HERD_STAGE_READBACK, err, 4, MEM(b->agent[b->cur]),
                   MEM(b->slot_by_id), VAL(n), MEM(b->group_map));
  cl_int rc = s == HERD_OK ? clEnqueueReadBuffer(b->queue, b->group_map, BLOCKING, 0, (size_t)n * sizeof(cl_uint),
                                                 b->map_slot, 0, NULL, NULL)
                           : CL_SUCCESS;
  s = gl_release(b, s, err);
  if (s == HERD_OK && rc != CL_SUCCESS) s = cl_fail(b, err, "clEnqueueReadBuffer(group map)", rc);
  if (s == HERD_OK) *slot = b->map_slot;
  return s;
}

static herd_status cl_map_state(herd_backend *b, const float **pos, const float **vel, const uint32_t **agent,
                                herd_error *err) {
  size_t n = b->capacity, floats = n * b->stride; /* room for what a later restore may hold */
  if (!b->map_pos) b->map_pos = malloc(floats * sizeof *b->map_pos);
  if (!b->map_vel) b->map_vel = malloc(floats * sizeof *b->map_vel);
  if (!b->map_agent) b->map_agent = malloc(n * sizeof *b->map_agent);
  if (!b->map_pos || !b->map_vel || !b->map_agent)
    return herd_fail(err, HERD_E_MEMORY, "out of memory copying the flock for drawing");
  herd_status s = gl_acquire(b, err);
  if (s == HERD_OK) s = read_state(b, b->cur, b->map_pos, b->map_vel, b->map_agent, err);
  s = gl_release(b, s, err);
  if (s == HERD_OK) *pos = b->map_pos, *vel = b->map_vel, *agent = b->map_agent;
  return s;
}

static void cl_box_history(const herd_backend *b, herd_box_history *out) { *out = b->boxes; }

static herd_status cl_restore(herd_backend *b, uint32_t count, const float *pos, const float *vel,
                              const uint32_t *agent, const herd_box_history *boxes, uint32_t steps, herd_error *err) {
  if (count > b->capacity)
    return herd_fail(err, HERD_E_INPUT, "%u agents restored into an OpenCL backend made for %u", count, b->capacity);
  b->desc.count = b->grid.count = count;
  b->boxes = *boxes;
  b->stepped = steps ? steps - 1u : UINT32_MAX; /* the reduce of the last step wrote its slot */
  b->steer_valid = false;                       /* send the steering agents again */
  herd_status s = gl_acquire(b, err);
  if (s == HERD_OK) s = write_state(b, pos, vel, agent, err);
  return gl_release(b, s, err);
}

static size_t cl_memory_bytes(const herd_backend *b) { return b->bytes; }

static herd_status cl_profile(herd_backend *b, herd_profile *out, herd_error *err) {
  (void)err;
  *out = b->profile;
  return HERD_OK;
}

static const char *cl_device_name(const herd_backend *b) { return b->info.name; }

herd_status herd_cl_read_grid(herd_backend *b, herd_cl_grid_copy *out, herd_error *err) {
  size_t n = b->desc.count;
  memset(out, 0, sizeof *out);
  out->pos = malloc(n * b->stride * sizeof *out->pos);
  out->vel = malloc(n * b->stride * sizeof *out->vel);
  out->agent = malloc(n * sizeof *out->agent);
  out->cell_end = malloc(b->buckets * sizeof *out->cell_end);
  if (!out->pos || !out->vel || !out->agent || !out->cell_end)
    return herd_fail(err, HERD_E_MEMORY, "out of memory reading the grid back");
  herd_status s = gl_acquire(b, err);
  if (s == HERD_OK) s = build_grid(b, err);
  out->grid = b->grid; /* as built: the dense box is chosen by build_grid */
  if (s == HERD_OK) s = read_state(b, 1 - b->cur, out->pos, out->vel, out->agent, err);
  s = gl_release(b, s, err);
  if (s == HERD_OK)
    CL_TRY("clEnqueueReadBuffer(cell_end)",
           clEnqueueReadBuffer(b->queue, b->cell_end, BLOCKING, 0, b->buckets * sizeof(cl_uint), out->cell_end, 0, NULL,
                               NULL));
  return s;
}

herd_status herd_cl_knn(herd_backend *b, uint32_t k, uint32_t *out, herd_error *err) {
  size_t n = b->desc.count, bytes = n * k * sizeof(cl_uint);
  cl_mem rows;
  herd_status s = alloc(b, &rows, bytes, err);
  if (s != HERD_OK) return s;
  int sorted = 1 - b->cur; /* as left by the last build_grid */
  s = run_kernel(b, K_KNN, n, SIMPLE_GROUP, HERD_STAGE_STEP, err, 5, MEM(b->pos[sorted]), MEM(b->cell_end),
                 VAL(b->grid), VAL(k), MEM(rows));
  cl_int rc = s == HERD_OK ? clEnqueueReadBuffer(b->queue, rows, BLOCKING, 0, bytes, out, 0, NULL, NULL) : CL_SUCCESS;
  clReleaseMemObject(rows);
  b->bytes -= bytes;
  if (s == HERD_OK && rc != CL_SUCCESS) s = cl_fail(b, err, "clEnqueueReadBuffer(knn)", rc);
  return s;
}

herd_status herd_cl_prepass(herd_backend *b, herd_steering_input steer, int64_t *out, uint32_t lists[2],
                            herd_error *err) {
  if (!b->prepass) return herd_fail(err, HERD_E_INPUT, "herd_cl_prepass: this model and scenario run no pre-pass");
  float no_centroid[3] = {0, 0, 0};
  herd_step_info info = herd_step_info_for(&b->desc, steer, no_centroid, 0);
  herd_status s = send_steering(b, steer, err);
  if (s == HERD_OK) s = run_prepass(b, &info, err);
  if (s != HERD_OK) return s;
  CL_TRY("clEnqueueReadBuffer(pre-pass)",
         clEnqueueReadBuffer(b->queue, b->pre, CL_TRUE, 0, 2 * (size_t)b->desc.count * sizeof(cl_long), out, 0, NULL,
                             NULL));
  CL_TRY("clEnqueueReadBuffer(pre-pass counters)",
         clEnqueueReadBuffer(b->queue, b->pre_counters, CL_TRUE, 0, 2 * sizeof(cl_uint), lists, 0, NULL, NULL));
  return HERD_OK;
}

/* ---- Batches ------------------------------------------------------------------------------- */

/* Lays the worlds end to end: agents, buckets, steering slots and reduction blocks. */
static herd_status lay_out_worlds(herd_backend *b, const herd_backend_desc *descs, uint32_t count, herd_error *err) {
  uint32_t total = 0, buckets = 0, blocks = 0, env = 0;
  for (uint32_t w = 0; w < count; ++w) {
    if (descs[w].model != descs[0].model || descs[w].dims != descs[0].dims)
      return herd_fail(err, HERD_E_INPUT, "a batch runs one model in one dimension; world %u differs from world 0", w);
    b->world_desc[w] = descs[w];
    herd_world *x = &b->world[w];
    x->grid = herd_grid_for(&descs[w]);
    x->begin = total, x->bucket_base = buckets, x->block_base = blocks;
    x->steer_base = w * HERD_MAX_STEERING;
    x->blocks = descs[w].count ? (descs[w].count + REDUCE_BLOCK - 1) / REDUCE_BLOCK : 1u; /* one leaves its total */
    x->active = 1;
    x->env_base = env;
    env += descs[w].env_floats;
    if (total + (uint64_t)descs[w].count > UINT32_MAX / 2 ||
        buckets + (uint64_t)x->grid.table_mask + 1 > UINT32_MAX / 2)
      return herd_fail(err, HERD_E_INPUT, "a batch of %u worlds is too large for one device", count);
    total += descs[w].count, buckets += x->grid.table_mask + 1u, blocks += x->blocks;
  }

  b->desc.count = total, b->buckets = buckets, b->total_blocks = blocks, b->desc.env_floats = env;
  return HERD_OK;
}

/* The batch's fixed tables: each agent's world, each block's world, each world's parameters. */
static herd_status write_world_tables(herd_backend *b, herd_error *err) {
  uint32_t count = b->world_count, *world_of = malloc(b->desc.count * sizeof *world_of);
  uint32_t *block_world = malloc(b->total_blocks * sizeof *block_world);
  size_t params_size = b->desc.model->params_size;
  unsigned char *params = malloc(count * params_size);
  herd_status s = world_of && block_world && params ? HERD_OK : herd_fail(err, HERD_E_MEMORY, "out of memory");
  for (uint32_t w = 0; s == HERD_OK && w < count; ++w) {
    for (uint32_t i = 0; i < b->world_desc[w].count; ++i) world_of[b->world[w].begin + i] = w;
    for (uint32_t k = 0; k < b->world[w].blocks; ++k) block_world[b->world[w].block_base + k] = w;
    memcpy(params + w * params_size, b->world_desc[w].params, params_size);
  }
  if (s == HERD_OK) s = alloc(b, &b->worlds, count * sizeof(herd_world), err);
  if (s == HERD_OK) s = alloc(b, &b->world_of, b->desc.count * sizeof(cl_uint), err);
  if (s == HERD_OK) s = alloc(b, &b->block_world, b->total_blocks * sizeof(cl_uint), err);
  if (s == HERD_OK) s = alloc(b, &b->world_params, count * params_size, err);
  if (s == HERD_OK) s = alloc(b, &b->world_totals, count * sizeof(herd_flock_partial), err);
  cl_int rc = CL_SUCCESS;
  if (s == HERD_OK)
    rc = clEnqueueWriteBuffer(b->queue, b->world_of, BLOCKING, 0, b->desc.count * sizeof(cl_uint), world_of, 0, NULL,
                              NULL);
  if (s == HERD_OK && rc == CL_SUCCESS)
    rc = clEnqueueWriteBuffer(b->queue, b->block_world, BLOCKING, 0, b->total_blocks * sizeof(cl_uint), block_world, 0,
                              NULL, NULL);
  if (s == HERD_OK && rc == CL_SUCCESS)
    rc = clEnqueueWriteBuffer(b->queue, b->world_params, BLOCKING, 0, count * params_size, params, 0, NULL, NULL);
  if (s == HERD_OK && rc != CL_SUCCESS) s = cl_fail(b, err, "clEnqueueWriteBuffer(world tables)", rc);
  float *env = malloc((b->desc.env_floats ? b->desc.env_floats : 1) * sizeof *env);
  for (uint32_t w = 0; env && w < count; ++w)
    if (b->world_desc[w].env_floats)
      memcpy(env + b->world[w].env_base, b->world_desc[w].env, b->world_desc[w].env_floats * sizeof *env);
  if (s == HERD_OK)
    s = env ? write_env(b, env, b->desc.env_floats, err) : herd_fail(err, HERD_E_MEMORY, "out of memory");
  b->host_env = env;
  for (uint32_t w = 0; w < count; ++w) b->world_desc[w].params = NULL, b->world_desc[w].env = NULL; /* copied */
  b->desc.env = NULL;
  free(world_of), free(block_world), free(params);
  return s;
}

static herd_status cl_create_batch(const herd_backend_desc *descs, uint32_t count, herd_backend **out,
                                   herd_error *err) {
  herd_backend *b = calloc(1, sizeof *b);
  if (!b) return herd_fail(err, HERD_E_MEMORY, "out of memory creating the OpenCL backend");
  b->desc = descs[0];
  memcpy(b->params, descs[0].params, descs[0].model->params_size);
  b->desc.params = b->params;
  snprintf(b->batch_kernel, sizeof b->batch_kernel, "herd_step_batch_%s", descs[0].model->name);
  b->stride = herd_state_stride(descs[0].dims);
  b->world_count = count;
  for (uint32_t w = 1; w < count; ++w) /* one program for all: room for the most steering agents */
    if (descs[w].steering_count > b->desc.steering_count) b->desc.steering_count = descs[w].steering_count;
  b->world_desc = malloc(count * sizeof *b->world_desc);
  b->world = calloc(count, sizeof *b->world);
  b->world_boxes = malloc((size_t)count * sizeof *b->world_boxes);
  for (uint32_t w = 0; b->world_boxes && w < count; ++w) herd_box_history_start(&b->world_boxes[w], NULL, 0, 3);
  b->steer_all = calloc((size_t)count * HERD_MAX_STEERING * HERD_STEER_FLOATS, sizeof *b->steer_all);
  b->totals = malloc(count * sizeof *b->totals);
  herd_status s = b->world_desc && b->world && b->world_boxes && b->steer_all && b->totals
                      ? lay_out_worlds(b, descs, count, err)
                      : herd_fail(err, HERD_E_MEMORY, "out of memory creating a batch of %u worlds", count);
  if (s == HERD_OK) s = open_device(b, err);
  if (s == HERD_OK) s = write_world_tables(b, err);
  if (s != HERD_OK) {
    cl_destroy(b);
    return s;
  }
  *out = b;
  return HERD_OK;
}

static herd_status cl_upload_world(herd_backend *b, uint32_t world, const float *pos, const float *vel,
                                   herd_error *err) {
  const herd_backend_desc *d = &b->world_desc[world];
  size_t n = d->count, floats = n * b->stride, at = (size_t)b->world[world].begin;
  uint32_t *agent = malloc(n * sizeof *agent);
  if (!agent) return herd_fail(err, HERD_E_MEMORY, "out of memory uploading a world");
  herd_vec3 goal = herd_v3(d->goal_m[0], d->goal_m[1], d->goal_m[2]);
  for (uint32_t i = 0; i < n; ++i)
    agent[i] = i | (herd_env_in_goal(b->host_env + b->world[world].env_base, &d->env_info,
                                     herd_load_vec(pos, i, d->dims), goal, d->goal_radius_m)
                        ? HERD_AGENT_DELIVERED
                        : 0u);
  b->cur = 0;
  herd_box_history_start(&b->world_boxes[world], pos, d->count, d->dims);
  size_t fbytes = sizeof(float), ubytes = sizeof(uint32_t);
  cl_int rc =
      clEnqueueWriteBuffer(b->queue, b->pos[0], BLOCKING, at * b->stride * fbytes, floats * fbytes, pos, 0, NULL, NULL);
  if (rc == CL_SUCCESS)
    rc = clEnqueueWriteBuffer(b->queue, b->vel[0], BLOCKING, at * b->stride * fbytes, floats * fbytes, vel, 0, NULL,
                              NULL);
  if (rc == CL_SUCCESS)
    rc = clEnqueueWriteBuffer(b->queue, b->agent[0], BLOCKING, at * ubytes, n * ubytes, agent, 0, NULL, NULL);
  free(agent);
  return rc == CL_SUCCESS ? HERD_OK : cl_fail(b, err, "clEnqueueWriteBuffer(world)", rc);
}

static herd_status cl_read_world(herd_backend *b, uint32_t world, float *pos, float *vel, herd_error *err) {
  size_t n = b->world_desc[world].count, stride = b->stride, at = b->world[world].begin;
  float *p = malloc(n * stride * sizeof *p), *v = malloc(n * stride * sizeof *v);
  uint32_t *a = malloc(n * sizeof *a);
  cl_int rc = p && v && a ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
  if (rc == CL_SUCCESS)
    rc = clEnqueueReadBuffer(b->queue, b->pos[b->cur], BLOCKING, at * stride * sizeof(float),
                             n * stride * sizeof(float), p, 0, NULL, NULL);
  if (rc == CL_SUCCESS)
    rc = clEnqueueReadBuffer(b->queue, b->vel[b->cur], BLOCKING, at * stride * sizeof(float),
                             n * stride * sizeof(float), v, 0, NULL, NULL);
  if (rc == CL_SUCCESS)
    rc = clEnqueueReadBuffer(b->queue, b->agent[b->cur], BLOCKING, at * sizeof(uint32_t), n * sizeof(uint32_t), a, 0,
                             NULL, NULL);
  for (size_t i = 0; rc == CL_SUCCESS && i < n; ++i) {
    size_t id = herd_agent_id(a[i]);
    if (pos) memcpy(&pos[id * stride], &p[i * stride], stride * sizeof *p);
    if (vel) memcpy(&vel[id * stride], &v[i * stride], stride * sizeof *v);
  }
  free(p), free(v), free(a);
  return rc == CL_SUCCESS ? HERD_OK : cl_fail(b, err, "clEnqueueReadBuffer(world)", rc);
}

/* Each world's facts for this step (as the world alone would have them) and its steering
 * agents, sent down; the host copies stay untouched until the step's blocking read. */
static herd_status send_worlds(herd_backend *b, const herd_world_input *in, herd_error *err) {
  for (uint32_t w = 0; w < b->world_count; ++w) {
    b->world[w].info = herd_step_info_for(&b->world_desc[w], in[w].steer, in[w].centroid, in[w].step);
    b->world[w].active = in[w].active ? 1u : 0u;
    herd_grid_box_for_step(&b->world[w].grid, &b->world_boxes[w], in[w].step);
    memcpy(&b->steer_all[(size_t)w * HERD_MAX_STEERING * HERD_STEER_FLOATS], in[w].steer.pos,
           in[w].steer.count * HERD_STEER_FLOATS * sizeof(float));
  }
  /* Blocking: the next call rewrites b->world and b->steer_all (a step's steering agents
   * and the reduction's can differ), and a pending write would read them then. */
  CL_TRY("clEnqueueWriteBuffer(worlds)",
         clEnqueueWriteBuffer(b->queue, b->worlds, BLOCKING, 0, b->world_count * sizeof(herd_world), b->world, 0, NULL,
                              event_for(b, HERD_STAGE_READBACK)));
  CL_TRY("clEnqueueWriteBuffer(steering)",
         clEnqueueWriteBuffer(b->queue, b->steer, BLOCKING, 0,
                              (size_t)b->world_count * HERD_MAX_STEERING * HERD_STEER_FLOATS * sizeof(float),
                              b->steer_all, 0, NULL, event_for(b, HERD_STAGE_READBACK)));
  return HERD_OK;
}

/* build_grid over every world at once: each in its own range of buckets. */
static herd_status build_grid_batch(herd_backend *b, herd_error *err) {
  uint32_t n = b->desc.count, count = b->world_count;
  int src = b->cur, dst = 1 - b->cur;
  herd_status s =
      run_kernel(b, K_BIN_BATCH, radix_items(n), RADIX_GROUP, HERD_STAGE_BIN, err, 8, MEM(b->pos[src]), MEM(b->worlds),
                 MEM(b->world_of), VAL(n), VAL(b->buckets), MEM(b->key), MEM(b->hist), MEM(b->cell_end));
  if (s == HERD_OK) s = sort_binned(b, src, dst, err);
  if (s == HERD_OK) {
    herd_grid all = b->world[0].grid; /* only its count matters: no flags (each world's cells differ) */
    all.count = n;
    s = find_ranges(b, &all, 0u, err);
  }
  if (s == HERD_OK)
    s = run_kernel(b, K_RELATIVE_ENDS, b->buckets, SIMPLE_GROUP, HERD_STAGE_RANGES, err, 4, MEM(b->cell_end),
                   MEM(b->worlds), VAL(count), VAL(b->buckets));
  if (s == HERD_OK)
    s = run_kernel(b, K_MARK_MIXED_BATCH, n, SIMPLE_GROUP, HERD_STAGE_RANGES, err, 5, MEM(b->pos[dst]), MEM(b->worlds),
                   MEM(b->world_of), VAL(n), MEM(b->cell_end));
  return s;
}

static herd_status cl_step_batch(herd_backend *b, const herd_world_input *in, herd_error *err) {
  b->step_started_s = now_s();
  uint32_t n = b->desc.count;
  herd_status s = send_worlds(b, in, err);
  if (s == HERD_OK) s = build_grid_batch(b, err);
  if (s != HERD_OK) return s;
  int src = 1 - b->cur, dst = b->cur;
  s = set_args(b, K_STEP_BATCH, err, 13, MEM(b->pos[src]), MEM(b->vel[src]), MEM(b->agent[src]), MEM(b->cell_end),
               MEM(b->steer), MEM(b->env), MEM(b->world_params), MEM(b->worlds), MEM(b->world_of), VAL(n),
               MEM(b->pos[dst]), MEM(b->vel[dst]), MEM(b->agent[dst]));
  if (s == HERD_OK) s = launch_slices(b, K_STEP_BATCH, SIMPLE_GROUP, 1, err);
  if (s == HERD_E_INTERRUPTED) s = restore_sorted_state(b, err);
  return s;
}

static herd_status cl_reduce_batch(herd_backend *b, const herd_world_input *in, herd_observation *obs,
                                   herd_error *err) {
  cl_mem pos = b->pos[b->cur], vel = b->vel[b->cur], agent = b->agent[b->cur];
  size_t groups = (size_t)b->total_blocks * REDUCE_GROUP;
  for (uint32_t w = 0; w < b->world_count; ++w)
    if (in[w].steer.count > reduce_steering(&b->desc)) return too_many_steering(b, in[w].steer.count, err);
  herd_status s = send_worlds(b, in, err);
  if (s == HERD_OK)
    s = run_kernel(b, K_REDUCE_FIRST_BATCH, groups, REDUCE_GROUP, HERD_STAGE_REDUCE, err, 10, MEM(pos), MEM(vel),
                   MEM(agent), MEM(b->worlds), MEM(b->block_world), MEM(b->steer), MEM(b->env), MEM(b->partials),
                   MEM(b->ticket), MEM(b->world_totals));
  if (s == HERD_OK)
    s = run_kernel(b, K_REDUCE_FAR_BATCH, groups, REDUCE_GROUP, HERD_STAGE_REDUCE, err, 8, MEM(pos), MEM(vel),
                   MEM(agent), MEM(b->worlds), MEM(b->block_world), MEM(b->world_totals), MEM(b->partials),
                   MEM(b->ticket));
  if (s == HERD_OK) s = read_totals(b, b->world_totals, b->totals, b->world_count, err);
  if (s != HERD_OK) return s;
  if (b->desc.profile) collect_profile(b);
  if (b->step_started_s > 0) b->last_step_s = now_s() - b->step_started_s;
  b->step_started_s = 0;
  for (uint32_t w = 0; w < b->world_count; ++w) {
    herd_observation_from_partial(&b->totals[w], b->world_desc[w].count, b->desc.dims, in[w].steer.count, &obs[w]);
    herd_box_history_observe(&b->world_boxes[w], in[w].step, &obs[w]);
  }
  return HERD_OK;
}

void herd_cl_grid_copy_free(herd_cl_grid_copy *copy) {
  free(copy->pos);
  free(copy->vel);
  free(copy->agent);
  free(copy->cell_end);
}

/* The kernels take b->params by value at each launch (set_args), so the next step sees them.
 * A pre-pass the new values no longer want is switched off (the step kernel then searches
 * itself, which is always exact); one they want is not switched on, as its buffers were not
 * made. */
static herd_status cl_set_params(herd_backend *b, const void *params, herd_error *err) {
  (void)err;
  memcpy(b->params, params, b->desc.model->params_size);
  if (b->prepass && !b->desc.model->prepass->wanted(b->params, b->desc.count)) b->prepass = false;
  return HERD_OK;
}

const herd_backend_ops herd_cl_backend = {
    .name = "opencl",
    .create = cl_create,
    .upload = cl_upload,
    .step = cl_step,
    .reduce = cl_reduce,
    .reduce_async = cl_reduce_async,
    .reduce_wait = cl_reduce_wait,
    .cancel_step = cl_cancel_step,
    .groups = cl_groups,
    .set_params = cl_set_params,
    .map_groups = cl_map_groups,
    .read_agents = cl_read_agents,
    .map_state = cl_map_state,
    .box_history = cl_box_history,
    .restore = cl_restore,
    .shares_gl = cl_shares_gl,
    .memory_bytes = cl_memory_bytes,
    .profile = cl_profile,
    .device_name = cl_device_name,
    .destroy = cl_destroy,
    .create_batch = cl_create_batch,
    .upload_world = cl_upload_world,
    .step_batch = cl_step_batch,
    .reduce_batch = cl_reduce_batch,
    .read_world = cl_read_world,
};
