/* Choosing a backend and device: `--backend cpu|opencl|auto`, `--device`. */
#include <stdio.h>
#include <string.h>

#include "../util/error.h"
#include "backend.h"

#ifdef HERD_WITH_OPENCL
#include "cl/cl_util.h"

/* auto: the first GPU, else the native backend. Not an OpenCL CPU device: PoCL takes 1.4-1.5x
 * the native backend's CPU time for the same run (docs/opencl.md); one is used when named
 * (--backend opencl, or auto with --device). */
static herd_status choose_auto(const herd_backend_ops **ops, char *device_out, size_t device_size, char *note,
                               size_t note_size) {
  herd_device_info infos[64];
  int count = 0;
  herd_error quiet;
  if (herd_cl_devices(NULL, infos, 64, &count, &quiet) != HERD_OK) {
    *ops = &herd_cpu_backend;
    snprintf(note, note_size, "auto: %s; using the native CPU backend", quiet.message);
    return HERD_OK;
  }
  int pick = -1, cpu = -1;
  for (int k = 0; k < count && pick < 0; ++k)
    if (strcmp(infos[k].type, "GPU") == 0 && infos[k].fp64) pick = k;
  for (int k = count - 1; k >= 0; --k)
    if (strcmp(infos[k].type, "CPU") == 0) cpu = k;
  if (pick < 0) {
    *ops = &herd_cpu_backend;
    if (cpu >= 0)
      snprintf(note, note_size,
               "auto: no OpenCL GPU with cl_khr_fp64; using the native CPU backend, faster than the OpenCL CPU device "
               "%d, %s (--backend opencl --device %d takes it)",
               cpu, infos[cpu].name, cpu);
    else
      snprintf(note, note_size, "auto: no OpenCL GPU with cl_khr_fp64; using the native CPU backend");
    return HERD_OK;
  }
  *ops = &herd_cl_backend;
  snprintf(device_out, device_size, "%d", pick);
  snprintf(note, note_size, "auto: using OpenCL device %d, %s (%s, %s)", pick, infos[pick].name, infos[pick].type,
           infos[pick].platform);
  return HERD_OK;
}
#endif

herd_status herd_backend_choose(const char *backend, const char *device, const herd_backend_ops **ops, char *device_out,
                                size_t device_size, char *note, size_t note_size, herd_error *err) {
  note[0] = '\0';
  snprintf(device_out, device_size, "%s", device ? device : "");
  if (!backend || strcmp(backend, "cpu") == 0) {
    *ops = &herd_cpu_backend;
    return HERD_OK;
  }
#ifdef HERD_WITH_OPENCL
  if (strcmp(backend, "opencl") == 0) {
    *ops = &herd_cl_backend;
    return HERD_OK;
  }
  if (strcmp(backend, "auto") == 0) {
    if (device && *device) {
      *ops = &herd_cl_backend; /* a device named: auto means that device */
      return HERD_OK;
    }
    return choose_auto(ops, device_out, device_size, note, note_size);
  }
  return herd_fail(err, HERD_E_INPUT, "--backend %s: unknown backend (allowed: cpu, opencl, auto)", backend);
#else
  if (strcmp(backend, "auto") == 0) {
    *ops = &herd_cpu_backend;
    snprintf(note, note_size, "auto: this build has no OpenCL; using the native CPU backend");
    return HERD_OK;
  }
  if (strcmp(backend, "opencl") == 0)
    return herd_fail(err, HERD_E_INPUT,
                     "--backend opencl: this build has no OpenCL (rebuild with HERD_WITH_OPENCL=ON)");
  return herd_fail(err, HERD_E_INPUT, "--backend %s: unknown backend (allowed: cpu, opencl, auto)", backend);
#endif
}

herd_status herd_choose_backend(const char *backend, const char *device, herd_backend_choice *out, herd_error *err) {
  memset(out, 0, sizeof *out);
  const herd_backend_ops *ops;
  char spec[128];
  herd_status s = herd_backend_choose(backend, device, &ops, spec, sizeof spec, out->note, sizeof out->note, err);
  if (s != HERD_OK) return s;
  snprintf(out->backend, sizeof out->backend, "%s", ops->name);
#ifdef HERD_WITH_OPENCL
  if (ops == &herd_cl_backend) {
    cl_device_id id;
    herd_device_info info;
    s = herd_cl_choose_device(spec, &id, &info, err);
    if (s != HERD_OK) return s;
    snprintf(out->device, sizeof out->device, "%d", info.index);
    snprintf(out->device_name, sizeof out->device_name, "%s", info.name);
    herd_cl_device_extensions(id, out->extensions, sizeof out->extensions);
    return HERD_OK;
  }
#endif
  snprintf(out->device_name, sizeof out->device_name, "native CPU");
  return HERD_OK;
}

herd_status herd_devices(herd_device_info *out, int max, int *count, herd_error *err) {
#ifdef HERD_WITH_OPENCL
  return herd_cl_devices(NULL, out, max, count, err);
#else
  (void)out, (void)max;
  *count = 0;
  return herd_fail(err, HERD_E_BACKEND, "this build has no OpenCL (rebuild with HERD_WITH_OPENCL=ON)");
#endif
}
