/* For test_oclgrind only (tests/oclgrind.py), loaded before Oclgrind's runtime: a
 * clEnqueueFillBuffer that writes the pattern with clEnqueueWriteBuffer. Oclgrind 21.10 marks
 * what clEnqueueFillBuffer wrote as uninitialised, so every kernel that reads a buffer herd
 * zeroes that way (the reduction's tickets, the pre-pass's counters, the groups' sums) was
 * reported (docs/opencl.md, "Oclgrind", has the reproduction). The write is blocking: the
 * pattern's copy is freed when it returns, and a queue is in order anyway. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

typedef cl_int (*write_buffer_fn)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void *, cl_uint,
                                  const cl_event *, cl_event *);

CL_API_ENTRY cl_int CL_API_CALL clEnqueueFillBuffer(cl_command_queue queue, cl_mem buffer, const void *pattern,
                                                    size_t pattern_size, size_t offset, size_t size,
                                                    cl_uint wait_count, const cl_event *wait_list, cl_event *event) {
  write_buffer_fn write_buffer = (write_buffer_fn)dlsym(RTLD_NEXT, "clEnqueueWriteBuffer");
  if (!write_buffer) return CL_OUT_OF_HOST_MEMORY;
  if (pattern_size == 0 || size % pattern_size != 0 || offset % pattern_size != 0) return CL_INVALID_VALUE;
  unsigned char *bytes = malloc(size ? size : 1);
  if (!bytes) return CL_OUT_OF_HOST_MEMORY;
  for (size_t at = 0; at < size; at += pattern_size) memcpy(bytes + at, pattern, pattern_size);
  cl_int rc = write_buffer(queue, buffer, CL_TRUE, offset, size, bytes, wait_count, wait_list, event);
  free(bytes);
  return rc;
}
