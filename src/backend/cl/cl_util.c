#define _POSIX_C_SOURCE 200809L
#include "cl_util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../../util/error.h"

#define MAX_PLATFORMS 16
#define MAX_DEVICES_PER_PLATFORM 32

const char *herd_cl_error_name(cl_int code) {
  switch (code) {
#define NAME(c) \
  case c: return #c;
    NAME(CL_SUCCESS)
    NAME(CL_DEVICE_NOT_FOUND)
    NAME(CL_DEVICE_NOT_AVAILABLE)
    NAME(CL_COMPILER_NOT_AVAILABLE)
    NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    NAME(CL_OUT_OF_RESOURCES)
    NAME(CL_OUT_OF_HOST_MEMORY)
    NAME(CL_PROFILING_INFO_NOT_AVAILABLE)
    NAME(CL_MEM_COPY_OVERLAP)
    NAME(CL_IMAGE_FORMAT_MISMATCH)
    NAME(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    NAME(CL_BUILD_PROGRAM_FAILURE)
    NAME(CL_MAP_FAILURE)
    NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    NAME(CL_COMPILE_PROGRAM_FAILURE)
    NAME(CL_LINKER_NOT_AVAILABLE)
    NAME(CL_LINK_PROGRAM_FAILURE)
    NAME(CL_DEVICE_PARTITION_FAILED)
    NAME(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    NAME(CL_INVALID_VALUE)
    NAME(CL_INVALID_DEVICE_TYPE)
    NAME(CL_INVALID_PLATFORM)
    NAME(CL_INVALID_DEVICE)
    NAME(CL_INVALID_CONTEXT)
    NAME(CL_INVALID_QUEUE_PROPERTIES)
    NAME(CL_INVALID_COMMAND_QUEUE)
    NAME(CL_INVALID_HOST_PTR)
    NAME(CL_INVALID_MEM_OBJECT)
    NAME(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    NAME(CL_INVALID_IMAGE_SIZE)
    NAME(CL_INVALID_SAMPLER)
    NAME(CL_INVALID_BINARY)
    NAME(CL_INVALID_BUILD_OPTIONS)
    NAME(CL_INVALID_PROGRAM)
    NAME(CL_INVALID_PROGRAM_EXECUTABLE)
    NAME(CL_INVALID_KERNEL_NAME)
    NAME(CL_INVALID_KERNEL_DEFINITION)
    NAME(CL_INVALID_KERNEL)
    NAME(CL_INVALID_ARG_INDEX)
    NAME(CL_INVALID_ARG_VALUE)
    NAME(CL_INVALID_ARG_SIZE)
    NAME(CL_INVALID_KERNEL_ARGS)
    NAME(CL_INVALID_WORK_DIMENSION)
    NAME(CL_INVALID_WORK_GROUP_SIZE)
    NAME(CL_INVALID_WORK_ITEM_SIZE)
    NAME(CL_INVALID_GLOBAL_OFFSET)
    NAME(CL_INVALID_EVENT_WAIT_LIST)
    NAME(CL_INVALID_EVENT)
    NAME(CL_INVALID_OPERATION)
    NAME(CL_INVALID_GL_OBJECT)
    NAME(CL_INVALID_BUFFER_SIZE)
    NAME(CL_INVALID_MIP_LEVEL)
    NAME(CL_INVALID_GLOBAL_WORK_SIZE)
    NAME(CL_INVALID_PROPERTY)
    NAME(CL_INVALID_IMAGE_DESCRIPTOR)
    NAME(CL_INVALID_COMPILER_OPTIONS)
    NAME(CL_INVALID_LINKER_OPTIONS)
    NAME(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef NAME
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR"; /* from the ICD loader */
  }
  return "unknown OpenCL error";
}

static const char *type_name(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return "GPU";
  if (type & CL_DEVICE_TYPE_CPU) return "CPU";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  return "other";
}

static void describe(cl_platform_id platform, cl_device_id id, int index, herd_device_info *info) {
  memset(info, 0, sizeof *info);
  info->index = index;
  clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof info->platform - 1, info->platform, NULL);
  clGetDeviceInfo(id, CL_DEVICE_NAME, sizeof info->name - 1, info->name, NULL);
  cl_device_type type = 0;
  clGetDeviceInfo(id, CL_DEVICE_TYPE, sizeof type, &type, NULL);
  info->type = type_name(type);
  cl_uint units = 0;
  clGetDeviceInfo(id, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
  info->compute_units = units;
  cl_ulong mem = 0, alloc = 0;
  clGetDeviceInfo(id, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem, NULL);
  clGetDeviceInfo(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof alloc, &alloc, NULL);
  info->global_mem_bytes = mem;
  info->max_alloc_bytes = alloc;
  clGetDeviceInfo(id, CL_DEVICE_OPENCL_C_VERSION, sizeof info->opencl_c_version - 1, info->opencl_c_version, NULL);
  clGetDeviceInfo(id, CL_DRIVER_VERSION, sizeof info->driver_version - 1, info->driver_version, NULL);
  size_t ext_size = 0;
  if (clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_size) == CL_SUCCESS && ext_size > 0) {
    char *ext = calloc(1, ext_size + 1);
    if (ext && clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, ext_size, ext, NULL) == CL_SUCCESS) {
      info->gl_sharing = strstr(ext, "cl_khr_gl_sharing") != NULL;
      info->fp64 = strstr(ext, "cl_khr_fp64") != NULL;
    }
    free(ext);
  }
}

herd_status herd_cl_devices(cl_device_id *ids, herd_device_info *infos, int max, int *count, herd_error *err) {
  cl_platform_id platforms[MAX_PLATFORMS];
  cl_uint n_platforms = 0;
  cl_int rc = clGetPlatformIDs(MAX_PLATFORMS, platforms, &n_platforms);
  *count = 0;
  if (rc == -1001 || (rc == CL_SUCCESS && n_platforms == 0)) {
    /* A driver is a large library: under a low `ulimit -v` the loader cannot map it and
     * sees no platform at all. */
    struct rlimit as;
    if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
      return herd_fail(err, HERD_E_BACKEND,
                       "%s; or the address-space limit (ulimit -v, now %llu MiB) is too low to load the driver",
                       HERD_CL_NO_PLATFORM_HINT, (unsigned long long)(as.rlim_cur >> 20));
    return herd_fail(err, HERD_E_BACKEND, HERD_CL_NO_PLATFORM_HINT);
  }
  if (rc != CL_SUCCESS) return herd_fail(err, HERD_E_BACKEND, "clGetPlatformIDs: %s (%d)", herd_cl_error_name(rc), rc);
  for (cl_uint p = 0; p < n_platforms; ++p) {
    cl_device_id devices[MAX_DEVICES_PER_PLATFORM];
    cl_uint n_devices = 0;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES_PER_PLATFORM, devices, &n_devices) != CL_SUCCESS)
      continue; /* a platform without devices (PoCL without its cache folder, say) */
    for (cl_uint d = 0; d < n_devices && *count < max; ++d) {
      if (ids) ids[*count] = devices[d];
      if (infos) describe(platforms[p], devices[d], *count, &infos[*count]);
      ++*count;
    }
  }
  if (*count == 0)
    return herd_fail(err, HERD_E_BACKEND,
                     "OpenCL platforms found but no device; with PoCL, check that its cache folder "
                     "($POCL_CACHE_DIR, else ~/.cache/pocl) can be created (POCL_DEBUG=1 tells why)");
  return HERD_OK;
}

static bool contains_ignoring_case(const char *haystack, const char *needle) {
  size_t n = strlen(needle);
  for (; *haystack; ++haystack) {
    size_t k = 0;
    while (k < n && haystack[k] && tolower((unsigned char)haystack[k]) == tolower((unsigned char)needle[k])) ++k;
    if (k == n) return true;
  }
  return n == 0;
}

herd_status herd_cl_choose_device(const char *spec, cl_device_id *id, herd_device_info *info, herd_error *err) {
  if (!spec || !*spec) spec = getenv("HERD_CL_DEVICE");
  if (!spec || !*spec) spec = "0";
  cl_device_id ids[64];
  herd_device_info infos[64];
  int count;
  herd_status s = herd_cl_devices(ids, infos, 64, &count, err);
  if (s != HERD_OK) return s;
  char *end;
  long index = strtol(spec, &end, 10);
  int chosen = -1;
  if (end != spec && *end == '\0') {
    if (index >= 0 && index < count) chosen = (int)index;
  } else {
    for (int k = 0; k < count && chosen < 0; ++k) {
      char both[260];
      snprintf(both, sizeof both, "%s %s", infos[k].platform, infos[k].name);
      if (contains_ignoring_case(both, spec)) chosen = k;
    }
  }
  if (chosen < 0) {
    char names[600] = "";
    size_t used = 0;
    for (int k = 0; k < count && used < sizeof names; ++k) {
      int w = snprintf(names + used, sizeof names - used, "%s%d: %s", k ? ", " : "", k, infos[k].name);
      if (w > 0) used += (size_t)w;
    }
    return herd_fail(err, HERD_E_INPUT, "--device %s: no such OpenCL device (devices: %s; see herd devices)", spec,
                     names);
  }
  *id = ids[chosen];
  *info = infos[chosen];
  return HERD_OK;
}

void herd_cl_device_extensions(cl_device_id id, char *out, size_t size) {
  out[0] = '\0';
  size_t got = 0;
  if (clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, 0, NULL, &got) != CL_SUCCESS || got == 0) return;
  char *all = calloc(1, got + 1);
  if (all && clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, got, all, NULL) == CL_SUCCESS) snprintf(out, size, "%s", all);
  free(all);
}

bool herd_cl_device_has_extension(cl_device_id id, const char *name) {
  size_t got = 0, n = strlen(name);
  if (clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, 0, NULL, &got) != CL_SUCCESS || got == 0) return false;
  char *all = calloc(1, got + 1);
  bool found = false;
  if (all && clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, got, all, NULL) == CL_SUCCESS)
    for (const char *at = strstr(all, name); at && !found; at = strstr(at + 1, name))
      found = (at == all || at[-1] == ' ') && (at[n] == '\0' || at[n] == ' ');
  free(all);
  return found;
}

void herd_cl_cache_hint(const char *platform, char *out, size_t size) {
  out[0] = '\0';
  if (!strstr(platform, "Portable Computing Language")) return;
  char dir[600];
  const char *env = getenv("POCL_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  if (env && *env)
    snprintf(dir, sizeof dir, "%s", env);
  else if (xdg && *xdg)
    snprintf(dir, sizeof dir, "%s/pocl/kcache", xdg);
  else
    snprintf(dir, sizeof dir, "%s/.cache/pocl/kcache", home ? home : "");
  if (access(dir, W_OK) != 0)
    snprintf(out, size, "; PoCL cannot write its kernel cache folder %s: set POCL_CACHE_DIR to a writable folder", dir);
}
