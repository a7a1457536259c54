/* For test_oclgrind only (tests/oclgrind.py): loaded before Oclgrind's runtime (LD_PRELOAD), it
 * works around two bugs of Oclgrind 21.10's --uninitialized and records which kernels ran.
 *
 * - Oclgrind marks what clEnqueueFillBuffer wrote as uninitialised, and after a host write or
 *   copy into part of a buffer, the rest of the buffer too, whoever wrote it before
 *   (docs/opencl.md, "Oclgrind", has a reproduction of each). Every fill, and every write into
 *   part of a buffer, goes here through a staging buffer written whole and a kernel that copies
 *   it into place byte by byte, and so does every copy between buffers: Oclgrind follows a
 *   kernel's stores exactly.
 * - $HERD_OCLGRIND_LOG gets a line "has NAME" for every kernel of every program built and "ran
 *   NAME" for every launch, so that the test knows every kernel ran (the staging copy aside).
 *
 * The staging write is blocking (its host copy is freed when it returns) and so is the copy
 * (the staging buffer serves the next write); the copy kernel's event is the caller's. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#define NEXT(name) ((name##_fn)dlsym(RTLD_NEXT, #name))

typedef cl_int (*clEnqueueWriteBuffer_fn)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void *, cl_uint,
                                          const cl_event *, cl_event *);
typedef cl_int (*clEnqueueNDRangeKernel_fn)(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *,
                                            const size_t *, cl_uint, const cl_event *, cl_event *);
typedef cl_int (*clBuildProgram_fn)(cl_program, cl_uint, const cl_device_id *, const char *,
                                    void(CL_CALLBACK *)(cl_program, void *), void *);

static const char *copy_source =
    "__kernel void herd_oclgrind_shim_copy(__global const uchar *from, ulong from_at, __global uchar *to, ulong at) {\n"
    "  size_t i = get_global_id(0);\n"
    "  to[at + i] = from[from_at + i];\n"
    "}\n";

static void log_line(const char *what, const char *name) {
  const char *path = getenv("HERD_OCLGRIND_LOG");
  if (!path || !*path) return;
  FILE *f = fopen(path, "a");
  if (!f) return;
  fprintf(f, "%s %s\n", what, name);
  fclose(f);
}

/* The copy kernel in the queue's context (one context is all herd makes; rebuilt if another
 * comes). Not logged: it is the shim's, not herd's. */
static cl_kernel copy_kernel(cl_command_queue queue) {
  static cl_context built_for;
  static cl_kernel kernel;
  cl_context context;
  cl_device_id device;
  if (clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof context, &context, NULL) != CL_SUCCESS ||
      clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof device, &device, NULL) != CL_SUCCESS)
    return NULL;
  if (kernel && built_for == context) return kernel;
  cl_int rc;
  cl_program program = clCreateProgramWithSource(context, 1, &copy_source, NULL, &rc);
  if (rc != CL_SUCCESS || NEXT(clBuildProgram)(program, 1, &device, "", NULL, NULL) != CL_SUCCESS) return NULL;
  kernel = clCreateKernel(program, "herd_oclgrind_shim_copy", &rc);
  built_for = context;
  return rc == CL_SUCCESS ? kernel : NULL;
}

/* `size` bytes from `from` at `from_at` to `to` at `at`, by the copy kernel. */
static cl_int kernel_copy(cl_command_queue queue, cl_mem from, size_t from_at, cl_mem to, size_t at, size_t size,
                          cl_uint wait_count, const cl_event *wait_list, cl_event *event) {
  cl_kernel copy = copy_kernel(queue);
  if (!copy) return CL_OUT_OF_RESOURCES;
  cl_ulong from_at64 = from_at, at64 = at;
  cl_int rc = clSetKernelArg(copy, 0, sizeof from, &from);
  if (rc == CL_SUCCESS) rc = clSetKernelArg(copy, 1, sizeof from_at64, &from_at64);
  if (rc == CL_SUCCESS) rc = clSetKernelArg(copy, 2, sizeof to, &to);
  if (rc == CL_SUCCESS) rc = clSetKernelArg(copy, 3, sizeof at64, &at64);
  if (rc == CL_SUCCESS)
    rc = NEXT(clEnqueueNDRangeKernel)(queue, copy, 1, NULL, &size, NULL, wait_count, wait_list, event);
  return rc;
}

/* A staging buffer of `size` bytes, kept for the next write of that size: Oclgrind keeps a
 * released buffer's shadow memory and hands its slot to the next buffer created, which then
 * inherits a shadow of the wrong size (group_sums, created late, read as uninitialised). */
static cl_mem staging_buffer(cl_context context, size_t size) {
  static struct {
    cl_context context;
    size_t size;
    cl_mem mem;
  } kept[256];
  static int count;
  for (int k = 0; k < count; ++k)
    if (kept[k].context == context && kept[k].size == size) return kept[k].mem;
  if (count == (int)(sizeof kept / sizeof kept[0])) return NULL;
  cl_int rc;
  cl_mem mem = clCreateBuffer(context, CL_MEM_READ_ONLY, size, NULL, &rc);
  if (rc != CL_SUCCESS) return NULL;
  kept[count].context = context, kept[count].size = size, kept[count].mem = mem;
  ++count;
  return mem;
}

/* `size` bytes from host memory into `buffer` at `offset`: staged, then copied by the kernel. */
static cl_int staged_write(cl_command_queue queue, cl_mem buffer, size_t offset, size_t size, const void *bytes,
                           cl_uint wait_count, const cl_event *wait_list, cl_event *event) {
  cl_context context;
  cl_int rc = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof context, &context, NULL);
  if (rc != CL_SUCCESS) return rc;
  cl_mem staging = staging_buffer(context, size);
  if (!staging) return CL_OUT_OF_RESOURCES;
  rc = NEXT(clEnqueueWriteBuffer)(queue, staging, CL_TRUE, 0, size, bytes, wait_count, wait_list, NULL);
  if (rc == CL_SUCCESS) rc = kernel_copy(queue, staging, 0, buffer, offset, size, 0, NULL, event);
  if (rc == CL_SUCCESS) rc = clFinish(queue); /* the staging buffer is written again by the next write */
  return rc;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyBuffer(cl_command_queue queue, cl_mem from, cl_mem to, size_t from_at,
                                                    size_t at, size_t size, cl_uint wait_count,
                                                    const cl_event *wait_list, cl_event *event) {
  return kernel_copy(queue, from, from_at, to, at, size, wait_count, wait_list, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueFillBuffer(cl_command_queue queue, cl_mem buffer, const void *pattern,
                                                    size_t pattern_size, size_t offset, size_t size, cl_uint wait_count,
                                                    const cl_event *wait_list, cl_event *event) {
  if (pattern_size == 0 || size == 0 || size % pattern_size != 0 || offset % pattern_size != 0) return CL_INVALID_VALUE;
  unsigned char *bytes = malloc(size);
  if (!bytes) return CL_OUT_OF_HOST_MEMORY;
  for (size_t at = 0; at < size; at += pattern_size) memcpy(bytes + at, pattern, pattern_size);
  cl_int rc = staged_write(queue, buffer, offset, size, bytes, wait_count, wait_list, event);
  free(bytes);
  return rc;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                                     size_t offset, size_t size, const void *bytes, cl_uint wait_count,
                                                     const cl_event *wait_list, cl_event *event) {
  size_t whole = 0;
  clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof whole, &whole, NULL);
  if (offset == 0 && size == whole)
    return NEXT(clEnqueueWriteBuffer)(queue, buffer, blocking, offset, size, bytes, wait_count, wait_list, event);
  return staged_write(queue, buffer, offset, size, bytes, wait_count, wait_list, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dims,
                                                       const size_t *offset, const size_t *global, const size_t *local,
                                                       cl_uint wait_count, const cl_event *wait_list, cl_event *event) {
  char name[256] = "";
  clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, sizeof name - 1, name, NULL);
  log_line("ran", name);
  return NEXT(clEnqueueNDRangeKernel)(queue, kernel, dims, offset, global, local, wait_count, wait_list, event);
}

CL_API_ENTRY cl_int CL_API_CALL clBuildProgram(cl_program program, cl_uint device_count, const cl_device_id *devices,
                                               const char *options, void(CL_CALLBACK *notify)(cl_program, void *),
                                               void *user_data) {
  cl_int rc = NEXT(clBuildProgram)(program, device_count, devices, options, notify, user_data);
  size_t size = 0;
  if (rc != CL_SUCCESS || clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &size) != CL_SUCCESS) return rc;
  char *names = malloc(size + 1);
  if (names && clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, size, names, NULL) == CL_SUCCESS) {
    names[size] = '\0';
    for (char *name = strtok(names, ";"); name; name = strtok(NULL, ";")) log_line("has", name);
  }
  free(names);
  return rc;
}
