/* The OpenCL backend: the flock lives in device buffers; each step sends the steering
 * agents' few floats down and, in reduce, reads the observation (under 1 KB) back. Kernels
 * and the model math are in kernels/herd.cl and the headers it includes (the same as the CPU
 * backend's); the model's kernel is named by its row of the model table. This file holds the
 * setup, the state in and out, the step, the observation and the ops table; cl_internal.h
 * names the others. */
#define _POSIX_C_SOURCE 200809L
#include "cl_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <CL/cl_gl.h>

extern const char herd_embedded_herd_kernels[], herd_embedded_sized_kernels[];

/* The program kernel k is in: the kernels whose code depends on the simulation's sizes are
 * the sized one's (kernels/sized.cl); the step kernels may be the capped one's. */
static herd_cl_program kernel_program(const herd_backend *b, enum kernel_id k) {
  switch (k) {
    case K_STEP:
    case K_STEP_BATCH: return b->step_capped ? HERD_CL_PROGRAM_CAPPED : HERD_CL_PROGRAM_MAIN;
    case K_REDUCE_FIRST:
    case K_REDUCE_FAR:
    case K_REDUCE_FIRST_BATCH:
    case K_REDUCE_FAR_BATCH:
    case K_PRE: return HERD_CL_PROGRAM_SIZED;
    default: return HERD_CL_PROGRAM_MAIN;
  }
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

static const char *const program_files[HERD_CL_PROGRAMS] = {"herd.cl", "sized.cl", "herd.cl"};

const char *herd_cl_program_source(herd_cl_program program) {
  return program == HERD_CL_PROGRAM_SIZED ? herd_embedded_sized_kernels
                                          : herd_embedded_herd_kernels; /* capped: main's */
}

/* True when environment variable `name` is set to `value`. */
static bool env_is(const char *name, const char *value) {
  const char *text = getenv(name);
  return text && strcmp(text, value) == 0;
}

/* The loads in a row of a reduction's longest chain (herd_cl_reduce_per_item). */
static uint64_t reduce_chain(uint32_t n, uint32_t per) {
  uint64_t groups = ((uint64_t)n + REDUCE_GROUP * per - 1) / (REDUCE_GROUP * per);
  return per + (groups + REDUCE_GROUP - 1) / REDUCE_GROUP;
}

uint32_t herd_cl_reduce_per_item(uint32_t n, bool gpu) {
  uint32_t best = HERD_CL_REDUCE_PER_ITEM_MAX;
  if (!gpu) return best;
  for (uint32_t per = best / 2; per >= HERD_CL_REDUCE_PER_ITEM_MIN; per /= 2)
    if (reduce_chain(n, per) < reduce_chain(n, best)) best = per;
  return best;
}

int herd_cl_program_options(char *out, size_t size, herd_cl_program program, uint32_t steering, uint32_t lanes,
                            uint32_t per_item, uint32_t small_group, uint32_t registers, bool gpu, bool nv_options) {
  /* PoCL inlines every function itself; forced, it takes five times as long to build. */
  const char *inlining = gpu ? "" : " -DHERD_INLINE_ATTRIBUTE=";
  /* A CPU device keeps the k nearest in a private array (fast there); a GPU selects them in
   * registers (kernels/grid.h, HERD_KNN_BOUNDED). $HERD_CL_KNN=bounded: the GPU's way on any
   * device (the tests check it on PoCL). */
  const char *knn = gpu || env_is("HERD_CL_KNN", "bounded") ? "" : " -DHERD_KNN_PRIVATE";
  /* Likewise the radius models: a CPU device takes the candidates in batches, without a
   * mispredicted branch on each (the CPU backend's loop: the direct one, a GPU's, measured up to
   * 25 % slower on PoCL); $HERD_CL_RADIUS=direct: the GPU's way on any device. */
  const char *radius = gpu || env_is("HERD_CL_RADIUS", "direct") ? "" : " -DHERD_RADIUS_GATHERED";
  if (program == HERD_CL_PROGRAM_SIZED)
    return snprintf(out, size,
                    "-cl-std=CL1.2 -DHERD_SIMPLE_GROUP=%u -DHERD_REDUCE_GROUP=%u -DHERD_REDUCE_PER_ITEM=%u "
                    "-DHERD_REDUCE_STEERING=%u -DHERD_COOP_LANES=%u%s%s%s",
                    SIMPLE_GROUP, REDUCE_GROUP, per_item, steering, lanes, inlining, knn, radius);
  char bound[48] = "";
  if (program == HERD_CL_PROGRAM_CAPPED && nv_options)
    snprintf(bound, sizeof bound, " -cl-nv-maxrregcount=%u", registers);
  return snprintf(
      out, size,
      "-cl-std=CL1.2 -DHERD_SIMPLE_GROUP=%u -DHERD_SCAN_GROUP=%u -DHERD_RADIX_BITS=%u -DHERD_RADIX_GROUP=%u "
      "-DHERD_SMALL_GROUP=%u%s%s%s%s",
      SIMPLE_GROUP, SCAN_GROUP, RADIX_BITS, RADIX_GROUP, small_group, inlining, knn, radius, bound);
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
                                  b->reduce_block / REDUCE_GROUP, b->small_group, *b->desc.model->capped_registers,
                                  strcmp(b->info.type, "CPU") != 0, b->nv_options);
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

/* $HERD_CL_DUMP_BINARIES=DIR: program p as the device's compiler built it, into
 * DIR/<main|sized|capped-N>.bin, N the capped program's register bound (NVIDIA's is PTX, which
 * the device kit's ptxas -v reads for the driver's own register counts). A tool's aid: a file
 * that cannot be written is said, not failed on. */
static void dump_binary(herd_backend *b, herd_cl_program p) {
  static const char *const names[HERD_CL_PROGRAMS] = {"main", "sized", "capped"};
  const char *dir = getenv("HERD_CL_DUMP_BINARIES");
  size_t size = 0;
  if (!dir || !*dir ||
      clGetProgramInfo(b->programs[p], CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS || !size)
    return;
  unsigned char *binary = malloc(size);
  char path[512];
  int at = snprintf(path, sizeof path, "%s/%s", dir, names[p]);
  if (p == HERD_CL_PROGRAM_CAPPED && at > 0 && (size_t)at < sizeof path)
    at += snprintf(path + at, sizeof path - (size_t)at, "-%u", *b->desc.model->capped_registers);
  if (at > 0 && (size_t)at < sizeof path) snprintf(path + at, sizeof path - (size_t)at, ".bin");
  FILE *f = binary && clGetProgramInfo(b->programs[p], CL_PROGRAM_BINARIES, sizeof binary, &binary, NULL) == CL_SUCCESS
                ? fopen(path, "wb")
                : NULL;
  if (!f || fwrite(binary, 1, size, f) != size) fprintf(stderr, "herd: HERD_CL_DUMP_BINARIES: cannot write %s\n", path);
  if (f) fclose(f);
  free(binary);
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
  if (rc != CL_SUCCESS) return herd_cl_fail(b, err, "clCreateProgramWithSource", rc);
  rc = clBuildProgram(b->programs[p], 1, &b->device, options, NULL, NULL);
  if (rc == CL_SUCCESS) dump_binary(b, p);
  if (rc == CL_SUCCESS) return HERD_OK;
  char log[800] = "", hint[700];
  clGetProgramBuildInfo(b->programs[p], b->device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
  for (size_t n = strlen(log); n && (log[n - 1] == '\n' || log[n - 1] == ' '); --n) log[n - 1] = '\0';
  herd_cl_cache_hint(b->info.platform, hint, sizeof hint);
  return herd_fail(err, HERD_E_BACKEND, "OpenCL: building the kernels (kernels/%s) failed on \"%s\" (%s): %s%s",
                   program_files[p], b->info.name, herd_cl_error_name(rc), log, hint);
}

/* Whether the step kernels come from the capped program: a model of HERD_CAPPED_MODELS, on a
 * device whose compiler takes the bound; $HERD_CL_CAPPED=1 on any device (without the bound where
 * the compiler has none: the tests check the second program on PoCL), =0 on none (to compare). */
static void choose_capped(herd_backend *b) {
  b->nv_options = herd_cl_device_has_extension(b->device, "cl_nv_compiler_options");
  const char *force = getenv("HERD_CL_CAPPED");
  bool on = force && *force ? strcmp(force, "0") != 0 : b->nv_options;
  b->step_capped = on && *b->desc.model->capped_registers;
}

/* Builds the programs, from the embedded sources or from $HERD_KERNEL_DIR: the capped one only
 * where the step kernel comes from it. */
static herd_status build_program(herd_backend *b, herd_error *err) {
  b->coop_lanes = coop_lanes();
  choose_capped(b);
  herd_status s = HERD_OK;
  for (int p = 0; p < HERD_CL_PROGRAMS && s == HERD_OK; ++p)
    if (p != HERD_CL_PROGRAM_CAPPED || b->step_capped) s = build_one(b, (herd_cl_program)p, err);
  return s;
}

static herd_status create_kernels(herd_backend *b, herd_error *err) {
  for (int k = 0; k < K_COUNT; ++k) {
    cl_int rc;
    if (!herd_cl_kernel_name(b, (enum kernel_id)k)) continue; /* a pre-pass the model has not */
    b->kernels[k] = clCreateKernel(b->programs[kernel_program(b, (enum kernel_id)k)],
                                   herd_cl_kernel_name(b, (enum kernel_id)k), &rc);
    if (rc != CL_SUCCESS) {
      char call[160];
      snprintf(call, sizeof call, "clCreateKernel(%s)", herd_cl_kernel_name(b, (enum kernel_id)k));
      return herd_cl_fail(b, err, call, rc);
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

/* Bytes of device memory for `n` agents, computed before allocating anything. */
static size_t device_bytes(uint32_t n, uint32_t buckets, uint32_t stride, uint32_t reduce_block) {
  size_t per_agent =
      2 * (2 * stride * sizeof(cl_float) + sizeof(cl_uint)) + 4 * sizeof(cl_uint); /* state, key and order twice */
  size_t scan = 2 * radix_table(n) * sizeof(cl_uint);                              /* the radix passes' two tables */
  for (size_t len = radix_table(n); len > SCAN_BLOCK; len = (len + SCAN_BLOCK - 1) / SCAN_BLOCK)
    scan += (len + SCAN_BLOCK - 1) / SCAN_BLOCK * sizeof(cl_uint);
  size_t partials = ((size_t)n + reduce_block - 1) / reduce_block * sizeof(herd_flock_partial);
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
  size_t need = device_bytes(b->desc.count, b->buckets, b->stride, b->reduce_block);
  if (b->prepass) need += (size_t)b->desc.count * 2 * sizeof(cl_long); /* create_buffers */
  if (b->guided) need += (size_t)b->desc.count * 4 * sizeof(cl_float);
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

/* The env array on the device (a float of room when there is none: no buffer is empty). */
herd_status herd_cl_write_env(herd_backend *b, const float *env, size_t floats, herd_error *err) {
  herd_status s = herd_cl_alloc(b, &b->env, floats * sizeof(float), err);
  if (s != HERD_OK || floats == 0) return s;
  CL_TRY("clEnqueueWriteBuffer(env)",
         clEnqueueWriteBuffer(b->queue, b->env, BLOCKING, 0, floats * sizeof(float), env, 0, NULL, NULL));
  return HERD_OK;
}

static herd_status share(herd_backend *b, cl_mem *out, unsigned gl_buffer, herd_error *err) {
  cl_int rc;
  *out = clCreateFromGLBuffer(b->context, CL_MEM_READ_WRITE, gl_buffer, &rc);
  return rc == CL_SUCCESS ? HERD_OK : herd_cl_fail(b, err, "clCreateFromGLBuffer", rc);
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
    s = herd_cl_alloc(b, &b->pos[i], n * b->stride * sizeof(cl_float), err);
    if (s == HERD_OK) s = herd_cl_alloc(b, &b->vel[i], n * b->stride * sizeof(cl_float), err);
    if (s == HERD_OK) s = herd_cl_alloc(b, &b->agent[i], n * sizeof(cl_uint), err);
  }
  if (s == HERD_OK) s = herd_cl_alloc(b, &b->key, n * sizeof(cl_uint), err);
  if (s == HERD_OK) s = herd_cl_alloc(b, &b->order, n * sizeof(cl_uint), err);
  if (s == HERD_OK) s = herd_cl_alloc(b, &b->key2, n * sizeof(cl_uint), err);
  if (s == HERD_OK) s = herd_cl_alloc(b, &b->order2, n * sizeof(cl_uint), err);
  for (int k = 0; k < 2; ++k)
    if (s == HERD_OK) s = herd_cl_alloc(b, &b->hist[k], radix_table(b->desc.count) * sizeof(cl_uint), err);
  if (s == HERD_OK) s = herd_cl_alloc(b, &b->count, b->buckets * sizeof(cl_uint), err);
  if (s == HERD_OK) s = herd_cl_alloc(b, &b->cell_end, b->buckets * sizeof(cl_uint), err);
  size_t worlds = b->world_count ? b->world_count : 1;
  if (s == HERD_OK)
    s = herd_cl_alloc(b, &b->steer, worlds * HERD_MAX_STEERING * HERD_STEER_FLOATS * sizeof(cl_float), err);
  size_t blocks = b->world_count ? b->total_blocks : (n + b->reduce_block - 1) / b->reduce_block;
  blocks = blocks ? blocks : 1; /* no agents: one group still leaves an empty total */
  if (s == HERD_OK) s = herd_cl_alloc(b, &b->partials, blocks * sizeof(herd_flock_partial), err);
  if (s == HERD_OK) s = herd_cl_alloc(b, &b->total, sizeof(herd_flock_partial), err);
  if (s == HERD_OK) s = herd_cl_alloc(b, &b->ticket, worlds * sizeof(cl_uint), err);
  cl_uint zero = 0;
  if (s == HERD_OK)
    CL_TRY("clEnqueueFillBuffer(ticket)",
           clEnqueueFillBuffer(b->queue, b->ticket, &zero, sizeof zero, 0, worlds * sizeof(cl_uint), 0, NULL, NULL));
  size_t len = radix_table(b->desc.count);
  for (int level = 0; s == HERD_OK && level < MAX_SCAN_LEVELS; ++level) {
    len = (len + SCAN_BLOCK - 1) / SCAN_BLOCK;
    s = herd_cl_alloc(b, &b->scan_sums[level], len * sizeof(cl_uint), err);
    if (len <= 1) break;
  }
  if (s == HERD_OK && b->prepass) s = herd_cl_alloc(b, &b->pre, 2 * n * sizeof(cl_long), err);
  if (s == HERD_OK && b->guided) s = herd_cl_alloc(b, &b->guide, 4 * n * sizeof(cl_float), err);
  return s;
}

void herd_cl_destroy(herd_backend *b) {
  if (!b) return;
  if (b->queue) herd_cl_finish(b);
  herd_cl_collect_profile(b);
  for (int k = 0; k < 2; ++k)
    if (b->ring_read[k]) clReleaseEvent(b->ring_read[k]);
  cl_mem *mems[] = {&b->pos[0],       &b->pos[1], &b->vel[0],     &b->vel[1],     &b->agent[0],     &b->agent[1],
                    &b->key,          &b->order,  &b->count,      &b->cell_end,   &b->steer,        &b->partials,
                    &b->total,        &b->ticket, &b->worlds,     &b->world_of,   &b->world_params, &b->block_world,
                    &b->world_totals, &b->env,    &b->group_sums, &b->slot_by_id, &b->group_acc,    &b->group_map,
                    &b->key2,         &b->order2, &b->hist[0],    &b->hist[1],    &b->pre,          &b->guide,
                    &b->spans};
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
  if (b->trace) fclose(b->trace);
  free(b->map_pos);
  free(b->map_vel);
  free(b->map_agent);
  free(b->world_desc);
  free(b->world);
  free(b->world_boxes);
  free(b->steer_all);
  free(b->host_env);
  free(b->host_params);
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
  if (rc != CL_SUCCESS) return herd_cl_fail(b, err, "clCreateContext", rc);
  cl_command_queue_properties props = b->desc.profile ? CL_QUEUE_PROFILING_ENABLE : 0;
  b->queue = clCreateCommandQueue(b->context, b->device, props, &rc);
  if (rc != CL_SUCCESS) return herd_cl_fail(b, err, "clCreateCommandQueue", rc);
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
  snprintf(b->pre_kernel, sizeof b->pre_kernel, "%s_coop", pp->kernel);
  b->prepass = true;
}

/* herd_grid_small's work-items, once the device is known: on a GPU as many as
 * HERD_CL_SMALL_GROUP_GPU, halved while the device's work-group or local memory is smaller (its
 * one group runs on one compute unit: the wider, the sooner done); on a CPU device SCAN_GROUP,
 * where a group's work-items run one after another anyway. $HERD_CL_SMALL_GROUP=gpu takes the
 * GPU's on any device (the tests check it on PoCL). */
static void choose_small_group(herd_backend *b) {
  size_t most = 0;
  cl_ulong local = 0;
  bool gpu = strcmp(b->info.type, "CPU") != 0 || env_is("HERD_CL_SMALL_GROUP", "gpu");
  uint32_t g = gpu ? HERD_CL_SMALL_GROUP_GPU : SCAN_GROUP;
  if (clGetDeviceInfo(b->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof most, &most, NULL) != CL_SUCCESS ||
      clGetDeviceInfo(b->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, NULL) != CL_SUCCESS)
    g = SCAN_GROUP;
  while (g > SCAN_GROUP && (g > most || (cl_ulong)g * HERD_CL_SMALL_GROUP_LOCAL > local)) g /= 2;
  b->small_group = g;
}

/* The reductions' agents per work-group, once the device is known (herd_cl_reduce_per_item). */
static void choose_reduce_block(herd_backend *b) {
  bool gpu = strcmp(b->info.type, "CPU") != 0 || env_is("HERD_CL_REDUCE", "gpu");
  b->reduce_block = b->world_count ? BATCH_REDUCE_BLOCK /* lay_out_worlds' blocks */
                                   : REDUCE_GROUP * herd_cl_reduce_per_item(b->desc.count, gpu);
}

herd_status herd_cl_open_device(herd_backend *b, herd_error *err) {
  herd_status s = herd_cl_choose_device(b->desc.device, &b->device, &b->info, err);
  if (s == HERD_OK && !b->info.fp64)
    s = herd_fail(
        err, HERD_E_BACKEND,
        "OpenCL device \"%s\" lacks cl_khr_fp64, which the flock's groups (kernels/groups.h) need; choose another "
        "--device or --backend cpu",
        b->info.name);
  if (s == HERD_OK) choose_prepass(b);
  if (s == HERD_OK) choose_reduce_block(b);
  if (s == HERD_OK) choose_small_group(b);
  if (s == HERD_OK) s = check_fits(b, err);
  if (s == HERD_OK) s = create_context(b, err);
  if (s == HERD_OK) s = build_program(b, err);
  if (s == HERD_OK) s = create_kernels(b, err);
  if (s == HERD_OK) s = create_buffers(b, err);
  return s;
}

/* $HERD_CL_TRACE=FILE: every step, launch, non-blocking copy and host wait as a line of FILE
 * (appended; bench/gpu-model.py reads it), for counting what a step enqueues. */
static herd_status open_trace(herd_backend *b, herd_error *err) {
  const char *path = getenv("HERD_CL_TRACE");
  if (!path || !*path) return HERD_OK;
  b->trace = fopen(path, "a");
  if (!b->trace)
    return herd_fail(err, HERD_E_IO, "HERD_CL_TRACE: cannot open \"%s\" to append: %s", path, strerror(errno));
  return HERD_OK;
}

static herd_status cl_create(const herd_backend_desc *desc, herd_backend **out, herd_error *err) {
  herd_backend *b = calloc(1, sizeof *b);
  if (!b) return herd_fail(err, HERD_E_MEMORY, "out of memory creating the OpenCL backend");
  b->desc = *desc;
  b->capacity = desc->count;
  memcpy(b->params, desc->params, desc->model->params_size);
  b->desc.params = b->params;
  snprintf(b->batch_kernel, sizeof b->batch_kernel, "%s", desc->model->kernel(desc->dims, 1));
  b->guided = desc->model->reads_path && desc->env_info.has_path;
  b->grid = herd_grid_for(&b->desc);
  herd_box_history_start(&b->boxes, NULL, 0, desc->dims); /* no flock yet: hash */
  b->stepped = UINT32_MAX;
  b->stride = herd_state_stride(desc->dims);
  b->buckets = b->grid.table_mask + 1u;
  herd_status s = open_trace(b, err);
  if (s == HERD_OK) s = herd_cl_open_device(b, err);
  if (s == HERD_OK) s = herd_cl_write_env(b, desc->env, desc->env_floats, err);
  if (s == HERD_OK && desc->env_floats && !(b->host_env = malloc(desc->env_floats * sizeof(float))))
    s = herd_fail(err, HERD_E_MEMORY, "out of memory copying the obstacles");
  if (s == HERD_OK && desc->env_floats) memcpy(b->host_env, desc->env, desc->env_floats * sizeof(float));
  b->desc.env = NULL; /* the caller's; copied */
  if (s != HERD_OK) {
    herd_cl_destroy(b);
    return s;
  }
  *out = b;
  return HERD_OK;
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
  return rc == CL_SUCCESS ? HERD_OK : herd_cl_fail(b, err, "clEnqueueWriteBuffer(flock)", rc);
}

static herd_status upload_flock(herd_backend *b, const float *pos, const float *vel, herd_error *err) {
  size_t n = b->desc.count;
  b->seen_valid = false; /* a new flock: no observation of it yet */
  uint32_t *agent = malloc(n * sizeof *agent);
  if (!agent) return herd_fail(err, HERD_E_MEMORY, "out of memory uploading the flock");
  herd_backend_desc d = b->desc;
  d.env = b->host_env; /* the user's may be gone */
  for (uint32_t i = 0; i < n; ++i) agent[i] = herd_agent_start_word(&d, pos, i);
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
  /* No steering agents may come as {NULL, 0}: memcmp and memcpy are not called with it. */
  if (b->steer_valid && steer.count == b->steer_sent_count &&
      (bytes == 0 || memcmp(steer.pos, b->steer_sent[b->steer_slot], bytes) == 0))
    return HERD_OK;
  b->steer_slot ^= 1u;
  float *staged = b->steer_sent[b->steer_slot];
  if (bytes) memcpy(staged, steer.pos, bytes);
  b->steer_sent_count = steer.count;
  b->steer_valid = true;
  if (steer.count == 0) return HERD_OK;
  /* Non-blocking: this copy stays untouched until the call after next (see steer_sent). */
  herd_cl_trace_copy(b, "write", "steering", bytes);
  CL_TRY("clEnqueueWriteBuffer(steering)", clEnqueueWriteBuffer(b->queue, b->steer, CL_FALSE, 0, bytes, staged, 0, NULL,
                                                                herd_cl_event_for(b, HERD_STAGE_READBACK)));
  return HERD_OK;
}

/* ---- The step --------------------------------------------------------------------------- */

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

static size_t step_slice(const herd_backend *b, size_t n) {
  if (!b->desc.stop) return n;
  double slice =
      b->last_step_s > 0 ? (b->last_step_s < SLOW_STEP_S ? (double)n : n * SLICE_S / b->last_step_s) : FIRST_SLICE;
  if (forced_slice() > 0 && forced_slice() < slice) slice = forced_slice();
  return slice >= (double)n ? n : round_up(slice > SIMPLE_GROUP ? (size_t)slice : SIMPLE_GROUP, SIMPLE_GROUP);
}

/* Runs the bound step kernel (or a pre-pass or guide kernel) over n agents (a batch's step:
 * work-items), slice by slice, with `per_group` agents per work-group of SIMPLE_GROUP, and
 * slices `cost` times smaller than the step's (a pre-pass agent costs several step agents);
 * HERD_E_INTERRUPTED as soon as the stop flag is seen between slices (the slices in flight are
 * finished first). A slice runs at its offset, or, with group_arg >= 0, from offset 0 with its
 * first work-group's index in the kernel's argument group_arg: a kernel that finds its group so
 * (get_group_id plus an argument) knows it the same for all its work-items, where
 * get_global_id less get_local_id a compiler may not see as such (at sm_90 a radius model's
 * batch step took 18 more registers that way: docs/opencl.md). */
_Static_assert(COOP_GROUP == SIMPLE_GROUP, "the pre-pass's groups are sliced as the step's");
herd_status herd_cl_launch_slices(herd_backend *b, enum kernel_id step, size_t n, size_t per_group, size_t cost,
                                  int group_arg, herd_error *err) {
  size_t slice = step_slice(b, n);
  if (slice < n) slice = round_up(slice / cost > SIMPLE_GROUP ? slice / cost : SIMPLE_GROUP, SIMPLE_GROUP);
  for (size_t first = 0; first < n; first += slice) {
    size_t agents = n - first < slice ? n - first : slice, offset = first / per_group * SIMPLE_GROUP;
    cl_uint group = (cl_uint)(offset / SIMPLE_GROUP);
    herd_status s = group_arg >= 0 ? herd_cl_set_args_at(b, step, err, group_arg, 1, VAL(group)) : HERD_OK;
    if (s == HERD_OK)
      s = herd_cl_launch(b, step, group_arg >= 0 ? 0 : offset, (agents + per_group - 1) / per_group * SIMPLE_GROUP,
                         SIMPLE_GROUP, HERD_STAGE_STEP, err);
    if (s != HERD_OK || slice == n) return s;
    CL_TRY("clFinish(step slice)", herd_cl_finish(b));
    if (herd_stop_between_pieces(b->desc.stop)) return HERD_E_INTERRUPTED;
  }
  return HERD_OK;
}

/* After an abandoned step: the sorted copy holds the whole flock as before the step; it
 * goes back where the state lives, so that state buffer set [cur] stays the one drawn. */
herd_status herd_cl_restore_sorted_state(herd_backend *b, herd_error *err) {
  size_t n = b->desc.count, bytes = n * b->stride * sizeof(cl_float);
  int from = 1 - b->cur, to = b->cur;
  CL_TRY("clEnqueueCopyBuffer(pos)",
         clEnqueueCopyBuffer(b->queue, b->pos[from], b->pos[to], 0, 0, bytes, 0, NULL, NULL));
  CL_TRY("clEnqueueCopyBuffer(vel)",
         clEnqueueCopyBuffer(b->queue, b->vel[from], b->vel[to], 0, 0, bytes, 0, NULL, NULL));
  CL_TRY("clEnqueueCopyBuffer(agent)",
         clEnqueueCopyBuffer(b->queue, b->agent[from], b->agent[to], 0, 0, n * sizeof(cl_uint), 0, NULL, NULL));
  CL_TRY("clFinish(restore)", herd_cl_finish(b));
  return HERD_E_INTERRUPTED;
}

/* The model's pre-pass over the sorted flock (after herd_cl_build_grid): one cooperative
 * kernel, each group over its own run of sorted agents (the flock's sheep near a dog lie
 * together, by cell), in the step's slices so that Ctrl-C is seen as soon
 * (HERD_E_INTERRUPTED). Results in b->pre; a sheep it leaves to the step's own search is
 * marked so there (kernels/knn_coop.cl). */
static herd_status run_prepass(herd_backend *b, const herd_step_info *info, herd_error *err) {
  uint32_t agents_per_group = COOP_GROUP / b->coop_lanes;
  int sorted = 1 - b->cur;
  herd_status s =
      herd_cl_set_args(b, K_PRE, err, 8, MEM(b->pos[sorted]), MEM(b->agent[sorted]), MEM(b->cell_end), MEM(b->steer),
                       b->desc.model->params_size, (const void *)b->params, VAL(b->grid), VAL(*info), MEM(b->pre));
  if (s == HERD_OK) s = herd_cl_launch_slices(b, K_PRE, b->desc.count, agents_per_group, COOP_SLICE_COST, -1, err);
  return s;
}

/* The guide pass (herd_path_guide) over the sorted flock: the path's pull on each agent, which
 * the step kernel reads; in the step's slices, each about as costly as the step's. */
static herd_status run_guide(herd_backend *b, herd_error *err) {
  herd_status s = herd_cl_set_args(b, K_GUIDE, err, 5, MEM(b->pos[1 - b->cur]), MEM(b->env), VAL(b->grid),
                                   VAL(b->desc.env_info), MEM(b->guide));
  if (s == HERD_OK) s = herd_cl_launch_slices(b, K_GUIDE, b->desc.count, SIMPLE_GROUP, 1, -1, err);
  return s;
}

/* Whether this step's pre-pass may list anyone: not when the last observation, of the flock
 * as this step finds it, put each steering agent's nearest agent farther than the pre-pass's
 * reach plus how far that steering agent has moved since (the triangle inequality; a margin
 * for rounding), nor when there is no steering agent. Skipping it is exact either way: without
 * it the step kernel searches itself, to the same bits (test_opencl); it saves the pre-pass's
 * launches on a step in which it would list nobody (a dog that has not reached its flock). */
static bool prepass_has_work(const herd_backend *b, herd_steering_input steer) {
  if (steer.count == 0) return false;
  if (!b->seen_valid || b->seen_after != b->stepped || b->seen_count != steer.count) return true;
  double reach = (double)b->desc.model->prepass->reach_m(b->params);
  for (uint32_t d = 0; d < steer.count; ++d) {
    const float *at = steer.pos + (size_t)HERD_STEER_FLOATS * d;
    double moved = 0;
    for (int k = 0; k < 3; ++k) moved += ((double)at[k] - b->seen_pos[d][k]) * ((double)at[k] - b->seen_pos[d][k]);
    if ((double)b->seen_nearest_m[d] - sqrt(moved) <= reach * (1 + 1e-4) + 1e-2) return true;
  }
  return false;
}

static herd_status step_flock(herd_backend *b, herd_steering_input steer, const float centroid[3], uint32_t step,
                              herd_error *err) {
  bool prepass = b->prepass && prepass_has_work(b, steer); /* before b->stepped moves on */
  b->step_started_s = herd_clock_s();
  b->stepped = step;
  herd_cl_trace_step(b, step);
  herd_status s = send_steering(b, steer, err);
  if (s == HERD_OK) s = herd_cl_build_grid(b, err);
  if (s != HERD_OK) return s;
  int src = 1 - b->cur, dst = b->cur;
  /* No centroid: the kernel takes it from the last observation, which stays on the device
   * (b->total), so the step need not wait for the host to read it. */
  static const float unknown[3] = {0, 0, 0};
  herd_step_info info = herd_step_info_for(&b->desc, steer, centroid ? centroid : unknown, step);
  cl_mem observed = centroid ? NULL : b->total;
  cl_mem pre = NULL; /* NULL: the step kernel searches itself */
  if (prepass) s = run_prepass(b, &info, err), pre = b->pre;
  if (s == HERD_OK && b->guided) s = run_guide(b, err);
  if (s == HERD_OK)
    s = herd_cl_set_args(b, K_STEP, err, 15, MEM(b->pos[src]), MEM(b->vel[src]), MEM(b->agent[src]), MEM(b->cell_end),
                         MEM(b->steer), MEM(b->env), b->desc.model->params_size, (const void *)b->params, VAL(b->grid),
                         VAL(info), MEM(b->pos[dst]), MEM(b->vel[dst]), MEM(b->agent[dst]), MEM(observed), MEM(pre),
                         MEM(b->guide));
  if (s == HERD_OK) s = herd_cl_launch_slices(b, K_STEP, b->desc.count, SIMPLE_GROUP, 1, -1, err);
  if (s == HERD_E_INTERRUPTED) s = herd_cl_restore_sorted_state(b, err);
  return s;
}

/* ---- The observation -------------------------------------------------------------------- */

/* More steering agents than the program's partials have room for (desc.steering_count). */
herd_status herd_cl_too_many_steering(const herd_backend *b, uint32_t count, herd_error *err) {
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
herd_status herd_cl_read_totals(herd_backend *b, cl_mem from, herd_flock_partial *out, uint32_t count,
                                herd_error *err) {
  size_t each = partial_bytes(&b->desc);
  unsigned char *bytes = malloc(count * each);
  if (!bytes) return herd_fail(err, HERD_E_MEMORY, "out of memory reading the observation");
  cl_int rc = clEnqueueReadBuffer(b->queue, from, BLOCKING, 0, count * each, bytes, 0, NULL,
                                  herd_cl_event_for(b, HERD_STAGE_READBACK));
  for (uint32_t w = 0; rc == CL_SUCCESS && w < count; ++w) {
    memcpy(&out[w], bytes + w * each, each < sizeof out[w] ? each : sizeof out[w]);
    widen_partial(b, &out[w]);
  }
  free(bytes);
  return rc == CL_SUCCESS ? HERD_OK : herd_cl_fail(b, err, "clEnqueueReadBuffer(observation)", rc);
}

/* The reduction's two launches, each finished by its last work-group (herd_fold_last), then a
 * read of its total into host slot `slot` that the host waits for in reduce_wait. */
static herd_status reduce_async(herd_backend *b, herd_steering_input steer, int slot, herd_error *err) {
  uint32_t n = b->desc.count, groups = (n + b->reduce_block - 1) / b->reduce_block, count = steer.count;
  if (count > reduce_steering(&b->desc)) return herd_cl_too_many_steering(b, count, err);
  float no_centroid[3] = {0, 0, 0};
  herd_step_info info = herd_step_info_for(&b->desc, steer, no_centroid, 0);
  info.unobserved = b->unobserved;
  cl_mem pos = b->pos[b->cur], vel = b->vel[b->cur], agent = b->agent[b->cur];
  size_t items = (size_t)groups * REDUCE_GROUP; /* no agents: launch runs one group, which leaves an empty total */
  herd_status s = send_steering(b, steer, err);
  if (s == HERD_OK)
    s = herd_cl_run_kernel(b, K_REDUCE_FIRST, items, REDUCE_GROUP, HERD_STAGE_REDUCE, err, 11, MEM(pos), MEM(vel),
                           MEM(agent), VAL(b->grid), MEM(b->steer), VAL(count), VAL(info), MEM(b->env),
                           MEM(b->partials), MEM(b->ticket), MEM(b->total));
  cl_uint sectors = HERD_WANTS_SECTORS(b->unobserved);
  if (s == HERD_OK && HERD_SECOND_PASS(b->unobserved)) /* else its fields are stale: left out on the host */
    s = herd_cl_run_kernel(b, K_REDUCE_FAR, items, REDUCE_GROUP, HERD_STAGE_REDUCE, err, 8, MEM(pos), MEM(vel),
                           MEM(agent), VAL(b->grid), MEM(b->total), MEM(b->partials), MEM(b->ticket), VAL(sectors));
  if (s != HERD_OK) return s;
  b->ring_unobserved[slot] = b->unobserved;
  if (b->ring_read[slot]) clReleaseEvent(b->ring_read[slot]); /* a cancelled step's, never waited for */
  b->ring_read[slot] = NULL;
  b->ring_steer_count[slot] = count;
  b->ring_step[slot] = b->stepped;
  for (uint32_t d = 0; d < count; ++d)
    for (int k = 0; k < 3; ++k) b->ring_steer_pos[slot][d][k] = steer.pos[(size_t)HERD_STEER_FLOATS * d + k];
  herd_cl_trace_copy(b, "read", "observation", partial_bytes(&b->desc));
  CL_TRY("clEnqueueReadBuffer(observation)",
         clEnqueueReadBuffer(b->queue, b->total, CL_FALSE, 0, partial_bytes(&b->desc), &b->ring[slot], 0, NULL,
                             &b->ring_read[slot]));
  cl_event *timed = herd_cl_event_for(b, HERD_STAGE_READBACK);
  if (timed) clRetainEvent(*timed = b->ring_read[slot]);
  return HERD_OK;
}

/* The observation of slot's view of the steering agents, for prepass_has_work. */
static void note_seen_steering(herd_backend *b, int slot, const herd_observation *obs) {
  b->seen_valid = true;
  b->seen_count = b->ring_steer_count[slot];
  b->seen_after = b->ring_step[slot];
  for (uint32_t d = 0; d < b->seen_count; ++d) {
    memcpy(b->seen_pos[d], b->ring_steer_pos[slot][d], sizeof b->seen_pos[d]);
    b->seen_nearest_m[d] = obs->nearest[d].dist_m;
  }
}

static herd_status reduce_wait(herd_backend *b, int slot, herd_observation *obs, herd_error *err) {
  herd_cl_note_wait(b, "observation");
  cl_int rc = clWaitForEvents(1, &b->ring_read[slot]);
  clReleaseEvent(b->ring_read[slot]);
  b->ring_read[slot] = NULL;
  if (rc != CL_SUCCESS) return herd_cl_fail(b, err, "clWaitForEvents(observation)", rc);
  if (b->desc.profile) herd_cl_collect_profile(b);
  if (b->step_started_s > 0) b->last_step_s = herd_clock_s() - b->step_started_s;
  b->step_started_s = 0;
  widen_partial(b, &b->ring[slot]);
  herd_observation_from_partial(&b->ring[slot], b->desc.count, b->desc.dims, b->ring_steer_count[slot], obs);
  herd_observation_leave_out(obs, HERD_OBSERVE_ALL & ~b->ring_unobserved[slot]);
  note_seen_steering(b, slot, obs);
  herd_box_history_observe(&b->boxes, b->ring_step[slot], obs);
  return HERD_OK;
}

static herd_status reduce_flock(herd_backend *b, herd_steering_input steer, herd_observation *obs, herd_error *err) {
  herd_status s = reduce_async(b, steer, 0, err);
  return s == HERD_OK ? reduce_wait(b, 0, obs, err) : s;
}

/* ---- The ops, each bracketed by the GL hand-over when the state is shared ---------------- */

static herd_status cl_upload(herd_backend *b, const float *pos, const float *vel, herd_error *err) {
  herd_status s = herd_cl_gl_acquire(b, err);
  if (s == HERD_OK) s = upload_flock(b, pos, vel, err);
  return herd_cl_gl_release(b, s, err);
}

static herd_status cl_read_agents(herd_backend *b, float *pos, float *vel, herd_error *err) {
  herd_status s = herd_cl_gl_acquire(b, err);
  if (s == HERD_OK) s = read_flock(b, pos, vel, err);
  return herd_cl_gl_release(b, s, err);
}

static herd_status cl_step(herd_backend *b, herd_steering_input steer, const float centroid[3], uint32_t step,
                           herd_error *err) {
  herd_status s = herd_cl_gl_acquire(b, err);
  if (s == HERD_OK) s = step_flock(b, steer, centroid, step, err);
  return herd_cl_gl_release(b, s, err);
}

static herd_status cl_reduce(herd_backend *b, herd_steering_input steer, herd_observation *obs, herd_error *err) {
  herd_status s = herd_cl_gl_acquire(b, err);
  if (s == HERD_OK) s = reduce_flock(b, steer, obs, err);
  return herd_cl_gl_release(b, s, err);
}

/* The halves for a host running a step ahead, which it does only when the state is not shared
 * with GL (no acquire or release around them). */
static herd_status cl_reduce_async(herd_backend *b, herd_steering_input steer, int slot, herd_error *err) {
  return reduce_async(b, steer, slot, err);
}

static herd_status cl_reduce_wait(herd_backend *b, int slot, herd_observation *obs, herd_error *err) {
  return reduce_wait(b, slot, obs, err);
}

static void cl_set_observed(herd_backend *b, uint32_t parts) { b->unobserved = HERD_OBSERVE_ALL & ~parts; }

static herd_status cl_cancel_step(herd_backend *b, herd_error *err) {
  b->seen_valid = false;
  herd_status s = herd_cl_restore_sorted_state(b, err);
  return s == HERD_E_INTERRUPTED ? HERD_OK : s;
}

static herd_status cl_map_state(herd_backend *b, const float **pos, const float **vel, const uint32_t **agent,
                                herd_error *err) {
  size_t n = b->capacity, floats = n * b->stride; /* room for what a later restore may hold */
  if (!b->map_pos) b->map_pos = malloc(floats * sizeof *b->map_pos);
  if (!b->map_vel) b->map_vel = malloc(floats * sizeof *b->map_vel);
  if (!b->map_agent) b->map_agent = malloc(n * sizeof *b->map_agent);
  if (!b->map_pos || !b->map_vel || !b->map_agent)
    return herd_fail(err, HERD_E_MEMORY, "out of memory copying the flock for drawing");
  herd_status s = herd_cl_gl_acquire(b, err);
  if (s == HERD_OK) s = read_state(b, b->cur, b->map_pos, b->map_vel, b->map_agent, err);
  s = herd_cl_gl_release(b, s, err);
  if (s == HERD_OK) *pos = b->map_pos, *vel = b->map_vel, *agent = b->map_agent;
  return s;
}

static void cl_box_history(const herd_backend *b, herd_box_history *out) { *out = b->boxes; }

static herd_status cl_restore(herd_backend *b, uint32_t count, const float *pos, const float *vel,
                              const uint32_t *agent, const herd_box_history *boxes, uint32_t steps, herd_error *err) {
  if (count > b->capacity)
    return herd_fail(err, HERD_E_INPUT, "%u agents restored into an OpenCL backend made for %u", count, b->capacity);
  b->desc.count = b->grid.count = count;
  b->seen_valid = false;
  b->boxes = *boxes;
  b->stepped = steps ? steps - 1u : UINT32_MAX; /* the reduce of the last step wrote its slot */
  b->steer_valid = false;                       /* send the steering agents again */
  herd_status s = herd_cl_gl_acquire(b, err);
  if (s == HERD_OK) s = write_state(b, pos, vel, agent, err);
  return herd_cl_gl_release(b, s, err);
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
  herd_status s = herd_cl_gl_acquire(b, err);
  if (s == HERD_OK) s = herd_cl_build_grid(b, err);
  out->grid = b->grid; /* as built: the dense box is chosen by herd_cl_build_grid */
  if (s == HERD_OK) s = read_state(b, 1 - b->cur, out->pos, out->vel, out->agent, err);
  s = herd_cl_gl_release(b, s, err);
  if (s == HERD_OK)
    CL_TRY("clEnqueueReadBuffer(cell_end)",
           clEnqueueReadBuffer(b->queue, b->cell_end, BLOCKING, 0, b->buckets * sizeof(cl_uint), out->cell_end, 0, NULL,
                               NULL));
  return s;
}

typedef struct knn_entry {
  float d2;
  uint32_t j;
} knn_entry;

static int knn_entry_order(const void *pa, const void *pb) {
  const knn_entry *a = pa, *b = pb;
  if (a->d2 != b->d2) return a->d2 < b->d2 ? -1 : 1;
  return a->j < b->j ? -1 : a->j > b->j;
}

herd_status herd_cl_knn(herd_backend *b, uint32_t k, uint32_t *out, herd_error *err) {
  size_t n = b->desc.count, bytes = n * k * sizeof(cl_uint);
  cl_mem rows;
  herd_status s = herd_cl_alloc(b, &rows, bytes, err);
  if (s != HERD_OK) return s;
  int sorted = 1 - b->cur; /* as left by the last herd_cl_build_grid */
  s = herd_cl_run_kernel(b, K_KNN, n, SIMPLE_GROUP, HERD_STAGE_STEP, err, 5, MEM(b->pos[sorted]), MEM(b->cell_end),
                         VAL(b->grid), VAL(k), MEM(rows));
  cl_int rc = s == HERD_OK ? clEnqueueReadBuffer(b->queue, rows, BLOCKING, 0, bytes, out, 0, NULL, NULL) : CL_SUCCESS;
  clReleaseMemObject(rows);
  b->bytes -= bytes;
  if (s == HERD_OK && rc != CL_SUCCESS) s = herd_cl_fail(b, err, "clEnqueueReadBuffer(knn)", rc);
  /* A GPU build lists each row in no particular order: sort it by (distance, index). */
  float *pos = s == HERD_OK ? malloc(2 * n * sizeof *pos) : NULL;
  knn_entry *row = s == HERD_OK ? malloc((k ? k : 1) * sizeof *row) : NULL;
  if (s == HERD_OK && (!pos || !row)) s = herd_fail(err, HERD_E_MEMORY, "out of memory sorting the k nearest");
  rc = s == HERD_OK
           ? clEnqueueReadBuffer(b->queue, b->pos[sorted], BLOCKING, 0, 2 * n * sizeof *pos, pos, 0, NULL, NULL)
           : CL_SUCCESS;
  if (s == HERD_OK && rc != CL_SUCCESS) s = herd_cl_fail(b, err, "clEnqueueReadBuffer(knn positions)", rc);
  for (size_t i = 0; s == HERD_OK && i < n; ++i) {
    uint32_t m = 0, *r = out + i * k;
    for (; m < k && r[m] != UINT32_MAX; ++m) {
      float dx = pos[2 * r[m]] - pos[2 * i], dy = pos[2 * r[m] + 1] - pos[2 * i + 1];
      row[m].d2 = dx * dx + dy * dy, row[m].j = r[m];
    }
    qsort(row, m, sizeof *row, knn_entry_order);
    for (uint32_t q = 0; q < m; ++q) r[q] = row[q].j;
  }
  free(pos);
  free(row);
  return s;
}

herd_status herd_cl_prepass(herd_backend *b, herd_steering_input steer, int64_t *out, herd_error *err) {
  if (!b->prepass) return herd_fail(err, HERD_E_INPUT, "herd_cl_prepass: this model and scenario run no pre-pass");
  float no_centroid[3] = {0, 0, 0};
  herd_step_info info = herd_step_info_for(&b->desc, steer, no_centroid, 0);
  cl_long unserved = INT64_MAX;
  size_t bytes = 2 * (size_t)b->desc.count * sizeof(cl_long);
  CL_TRY("clEnqueueFillBuffer(pre-pass)",
         clEnqueueFillBuffer(b->queue, b->pre, &unserved, sizeof unserved, 0, bytes, 0, NULL, NULL));
  herd_status s = send_steering(b, steer, err);
  if (s == HERD_OK) s = run_prepass(b, &info, err);
  if (s != HERD_OK) return s;
  CL_TRY("clEnqueueReadBuffer(pre-pass)", clEnqueueReadBuffer(b->queue, b->pre, CL_TRUE, 0, bytes, out, 0, NULL, NULL));
  return HERD_OK;
}

void herd_cl_grid_copy_free(herd_cl_grid_copy *copy) {
  free(copy->pos);
  free(copy->vel);
  free(copy->agent);
  free(copy->cell_end);
}

/* The kernels take b->params by value at each launch (herd_cl_set_args), so the next step sees them.
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
    .set_observed = cl_set_observed,
    .reduce_async = cl_reduce_async,
    .reduce_wait = cl_reduce_wait,
    .cancel_step = cl_cancel_step,
    .groups = herd_cl_groups,
    .set_params = cl_set_params,
    .map_groups = herd_cl_map_groups,
    .read_agents = cl_read_agents,
    .map_state = cl_map_state,
    .box_history = cl_box_history,
    .restore = cl_restore,
    .shares_gl = cl_shares_gl,
    .memory_bytes = cl_memory_bytes,
    .profile = cl_profile,
    .device_name = cl_device_name,
    .destroy = herd_cl_destroy,
    .create_batch = herd_cl_create_batch,
    .upload_world = herd_cl_upload_world,
    .step_batch = herd_cl_step_batch,
    .reduce_batch = herd_cl_reduce_batch,
    .read_world = herd_cl_read_world,
    .set_world_params = herd_cl_set_world_params,
};
