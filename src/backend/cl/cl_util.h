/* OpenCL plumbing shared by the OpenCL backend and `herd devices`: error names, the list
 * of devices, and choosing one by index or name. */
#ifndef HERD_BACKEND_CL_CL_UTIL_H
#define HERD_BACKEND_CL_CL_UTIL_H
#include <CL/cl.h>
#include "../layer.h"

#include "herd/herd.h"

/* "CL_OUT_OF_RESOURCES" for -5, etc.; "unknown OpenCL error" otherwise. */
const char *herd_cl_error_name(cl_int code);

/* What to tell a user who has no OpenCL platform at all. */
#define HERD_CL_NO_PLATFORM_HINT                                                                 \
  "no OpenCL platform found; install an OpenCL driver: on Debian `apt install pocl-opencl-icd` " \
  "(runs on the CPU) or your GPU vendor's ICD (e.g. nvidia-opencl-icd, mesa-opencl-icd)"

/* Every device of every platform, in platform then device order (the index `herd devices`
 * shows). On no platform: HERD_E_BACKEND with HERD_CL_NO_PLATFORM_HINT. */
herd_status herd_cl_devices(cl_device_id *ids, herd_device_info *infos, int max, int *count, herd_error *err);

/* Chooses a device by `spec`: an index into herd_cl_devices, or a case-insensitive
 * substring of "platform device" names. NULL or "" takes $HERD_CL_DEVICE, else device 0. */
herd_status herd_cl_choose_device(const char *spec, cl_device_id *id, herd_device_info *info, herd_error *err);

/* For a PoCL platform whose kernel cache folder cannot be written (a build then fails
 * with no word why): a hint naming the folder, starting "; ". "" otherwise. */
void herd_cl_cache_hint(const char *platform, char *out, size_t size);

/* The device's extension string into out (truncated to size - 1). */
void herd_cl_device_extensions(cl_device_id id, char *out, size_t size);
/* Whether the device's extension string holds `name` as a whole word. */
bool herd_cl_device_has_extension(cl_device_id id, const char *name);

#endif
