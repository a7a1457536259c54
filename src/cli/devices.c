/* `herd devices`: every OpenCL platform and device, as --device takes them. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "herd/herd.h"
#include "options.h"

static const char devices_usage[] =
    "usage: herd devices [-h|--help] [-V|--version] [-q|--quiet]\n"
    "\n"
    "Lists every OpenCL platform and device with the index --device takes: type, compute units,\n"
    "global memory, largest allocation, OpenCL C version, and whether it has cl_khr_gl_sharing\n"
    "(the viewer can share buffers with OpenGL) and cl_khr_fp64 (needed by herd's group passes).\n";

static int take_devices(void *ctx, int code, const char *typed, const char *value) {
  (void)ctx, (void)code, (void)value;
  return cli_fail(EXIT_BAD_INPUT, "devices: %s: takes no operands (see herd devices --help)", typed);
}

int cmd_devices(int argc, char **argv) {
  cli_command c = {.name = "devices", .usage = devices_usage, .take = take_devices};
  int status = cli_parse(&c, argc, argv);
  if (status != CLI_GO_ON) return status;
  herd_device_info infos[64];
  int count = 0;
  herd_error err;
  if (herd_devices(infos, 64, &count, &err) != HERD_OK) return cli_fail(1, "%s", err.message);
  const char *platform = "";
  for (int k = 0; k < count; ++k) {
    const herd_device_info *d = &infos[k];
    if (strcmp(platform, d->platform) != 0) printf("platform: %s\n", platform = d->platform);
    printf("  [%d] %s\n", d->index, d->name);
    printf("      type %s, %u compute units, %.1f GiB global memory, %.1f GiB max allocation\n", d->type,
           d->compute_units, d->global_mem_bytes / 1073741824.0, d->max_alloc_bytes / 1073741824.0);
    printf("      %s, driver %s, cl_khr_gl_sharing %s, cl_khr_fp64 %s\n", d->opencl_c_version, d->driver_version,
           d->gl_sharing ? "yes" : "no", d->fp64 ? "yes" : "no");
  }
  return 0;
}
