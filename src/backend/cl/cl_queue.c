/* The OpenCL backend's queue: errors, profiling, launching kernels, allocating buffers and the
 * GL hand-over, for every file of the backend (cl_internal.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include <CL/cl_gl.h>

#include "cl_internal.h"

static const char *const kernel_names[K_COUNT] = {
    "herd_bin",
    "herd_scan_blocks",
    "herd_scan_single",
    "herd_scan_blocks_last",
    "herd_radix_scatter",
    "herd_radix_scatter_state",
    "herd_ranges",
    "herd_grid_small",
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
    "herd_path_guide",
    "herd_path_guide_batch",
};

/* Kernel k's name: the fixed ones, and the model's step from its table row. */
const char *herd_cl_kernel_name(const herd_backend *b, enum kernel_id k) {
  if (k == K_STEP) return b->desc.model->kernel(b->desc.dims, 0);
  if (k == K_STEP_BATCH) return b->batch_kernel;
  if (k == K_PRE) return b->pre_kernel[0] ? b->pre_kernel : NULL;
  return kernel_names[k];
}

/* ---- Errors ----------------------------------------------------------------------------- */

herd_status herd_cl_fail(herd_backend *b, herd_error *err, const char *call, cl_int rc) {
  return herd_fail(err, HERD_E_BACKEND, "OpenCL: %s: %s (%d) on device \"%s\"", call, herd_cl_error_name(rc), rc,
                   b->info.name);
}

/* ---- Profiling -------------------------------------------------------------------------- */

void herd_cl_note_wait(herd_backend *b, const char *what) {
  ++b->profile.waits;
  if (b->trace) fprintf(b->trace, "wait %s\n", what);
}

void herd_cl_trace_copy(herd_backend *b, const char *direction, const char *what, size_t bytes) {
  if (b->trace) fprintf(b->trace, "%s %s %zu\n", direction, what, bytes);
}

void herd_cl_trace_step(herd_backend *b, uint32_t step) {
  if (b->trace) fprintf(b->trace, "step %u\n", (unsigned)step);
}

cl_int herd_cl_finish(herd_backend *b) {
  herd_cl_note_wait(b, "finish");
  return clFinish(b->queue);
}

/* Collects the timed commands that have completed (in queue order: a host running a step
 * ahead collects while the next step's commands are still in flight). */
void herd_cl_collect_profile(herd_backend *b) {
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
      if (b->trace) /* each command's own time, for a table by kernel (bench/gpu-kit-run.sh) */
        fprintf(b->trace, "time %s %llu\n", b->pending[k].kernel ? b->pending[k].kernel : "copy",
                (unsigned long long)(end - start));
    }
    clReleaseEvent(e);
  }
  memmove(b->pending, b->pending + done, (size_t)(b->pending_count - done) * sizeof *b->pending);
  b->pending_count -= done;
}

/* An event to time this command with, or NULL when not profiling. */
cl_event *herd_cl_event_for(herd_backend *b, herd_stage stage) {
  if (!b->desc.profile) return NULL;
  if (b->in_groups) stage = HERD_STAGE_GROUPS; /* its own sort and reads too: what groups cost */
  if (b->pending_count == MAX_PENDING_EVENTS) {
    herd_cl_finish(b);
    herd_cl_collect_profile(b);
  }
  b->pending[b->pending_count].stage = stage;
  b->pending[b->pending_count].kernel = NULL;
  return &b->pending[b->pending_count++].event;
}

/* ---- Launching -------------------------------------------------------------------------- */

/* Runs kernel `id` over work-items [first, first + items) in groups of `group` (the global
 * size rounded up: the kernels guard their index, as PoCL has no non-uniform work-groups;
 * `first` is a multiple of `group`). */
herd_status herd_cl_launch(herd_backend *b, enum kernel_id id, size_t first, size_t items, size_t group,
                           herd_stage stage, herd_error *err) {
  size_t global = round_up(items ? items : 1, group), offset = first;
  ++b->profile.kernels;
  if (b->trace) fprintf(b->trace, "kernel %s %zu %zu\n", herd_cl_kernel_name(b, id), items, group);
  cl_event *timed = herd_cl_event_for(b, stage);
  if (timed) b->pending[b->pending_count - 1].kernel = herd_cl_kernel_name(b, id);
  cl_int rc =
      clEnqueueNDRangeKernel(b->queue, b->kernels[id], 1, first ? &offset : NULL, &global, &group, 0, NULL, timed);
  if (rc != CL_SUCCESS) {
    char call[160];
    snprintf(call, sizeof call, "clEnqueueNDRangeKernel(%s)", herd_cl_kernel_name(b, id));
    if (b->desc.profile) --b->pending_count;
    return herd_cl_fail(b, err, call, rc);
  }
  return HERD_OK;
}

/* Binds `n_args` arguments from index `first`, given as (size_t size, const void *value) pairs
 * (MEM, VAL). */
herd_status herd_cl_set_args_v(herd_backend *b, enum kernel_id id, herd_error *err, int first, int n_args, va_list ap) {
  cl_int rc = CL_SUCCESS;
  for (int a = 0; a < n_args && rc == CL_SUCCESS; ++a) {
    size_t size = va_arg(ap, size_t);
    const void *value = va_arg(ap, const void *);
    rc = clSetKernelArg(b->kernels[id], (cl_uint)(first + a), size, value);
  }
  if (rc == CL_SUCCESS) return HERD_OK;
  char call[160];
  snprintf(call, sizeof call, "clSetKernelArg(%s)", herd_cl_kernel_name(b, id));
  return herd_cl_fail(b, err, call, rc);
}

herd_status herd_cl_set_args_at(herd_backend *b, enum kernel_id id, herd_error *err, int first, int n_args, ...) {
  va_list ap;
  va_start(ap, n_args);
  herd_status s = herd_cl_set_args_v(b, id, err, first, n_args, ap);
  va_end(ap);
  return s;
}

/* Binds the arguments (as herd_cl_set_args), then launches over `items` work-items. */
herd_status herd_cl_run_kernel(herd_backend *b, enum kernel_id id, size_t items, size_t group, herd_stage stage,
                               herd_error *err, int n_args, ...) {
  va_list ap;
  va_start(ap, n_args);
  herd_status s = herd_cl_set_args_v(b, id, err, 0, n_args, ap);
  va_end(ap);
  return s == HERD_OK ? herd_cl_launch(b, id, 0, items, group, stage, err) : s;
}

/* ---- Buffers ---------------------------------------------------------------------------- */

herd_status herd_cl_alloc(herd_backend *b, cl_mem *out, size_t bytes, herd_error *err) {
  cl_int rc;
  *out = clCreateBuffer(b->context, CL_MEM_READ_WRITE, bytes ? bytes : 4, NULL, &rc);
  if (rc != CL_SUCCESS) return herd_cl_fail(b, err, "clCreateBuffer", rc);
  b->bytes += bytes;
  return HERD_OK;
}

/* ---- Sharing with OpenGL ---------------------------------------------------------------- */

/* Around every use of the state: GL must have finished with the buffers (the renderer
 * calls glFinish before stepping), and GL may draw them once released and finished. */
herd_status herd_cl_gl_acquire(herd_backend *b, herd_error *err) {
  if (!b->gl_shared) return HERD_OK;
  cl_mem mems[3] = {b->pos[0], b->vel[0], b->agent[0]};
  CL_TRY("clEnqueueAcquireGLObjects", clEnqueueAcquireGLObjects(b->queue, 3, mems, 0, NULL, NULL));
  return HERD_OK;
}

herd_status herd_cl_gl_release(herd_backend *b, herd_status status, herd_error *err) {
  if (!b->gl_shared) return status;
  cl_mem mems[3] = {b->pos[0], b->vel[0], b->agent[0]};
  cl_int rc = clEnqueueReleaseGLObjects(b->queue, 3, mems, 0, NULL, NULL);
  if (rc == CL_SUCCESS) rc = herd_cl_finish(b);
  if (status == HERD_OK && rc != CL_SUCCESS) return herd_cl_fail(b, err, "clEnqueueReleaseGLObjects", rc);
  return status;
}
