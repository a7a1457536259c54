/* Whether OpenCL and OpenGL may share the flock's buffers. */
#include <stdio.h>
#include <string.h>

#include "render.h"

bool herd_has_extension(const char *list, const char *ext) {
  size_t n = strlen(ext);
  for (const char *p = list ? list : ""; (p = strstr(p, ext)) != NULL; p += n) {
    bool starts = p == list || p[-1] == ' ';
    bool ends = p[n] == '\0' || p[n] == ' ';
    if (starts && ends) return true;
  }
  return false;
}

bool herd_share_decide(const char *backend, const char *device_extensions, bool no_share, char *why, size_t why_size) {
  if (strcmp(backend, "opencl") != 0) {
    snprintf(why, why_size, "copy: %s backend (host memory)", backend);
    return false;
  }
  if (no_share) {
    snprintf(why, why_size, "copy: --no-share");
    return false;
  }
  if (!herd_has_extension(device_extensions, "cl_khr_gl_sharing")) {
    snprintf(why, why_size, "copy: device lacks cl_khr_gl_sharing");
    return false;
  }
  snprintf(why, why_size, "shared with OpenCL (cl_khr_gl_sharing)");
  return true;
}
