/* The OpenCL programs exactly as the backend builds them, for the GPU compile test
 * (tests/gpu_compile.py), which hands them to clang's GPU targets:
 *
 *   cl_program source main|sized|capped FILE    the embedded source, headers inlined
 *   cl_program options main|sized|capped STEERING LANES [REGISTERS]
 *                                               the build options for that variant on a GPU whose
 *                                               compiler takes -cl-nv-*, one line
 *   cl_program capped-kernels                   the kernels the host creates from the capped
 *                                               program, one a line with its register bound
 *
 * main: kernels/herd.cl, the same for every simulation; sized: kernels/sized.cl; capped: the
 * main one with a register bound (REGISTERS, a model's in HERD_CAPPED_MODELS), for the step
 * kernels of those models (their 2D and 3D kernels and batch kernels, those the program has).
 * STEERING: steering agents the reduction's partials hold room for (1..HERD_MAX_STEERING);
 * LANES: the pre-pass's lanes per agent (8, 16 or 32). The reductions at their most agents per
 * work-item (a loop's bound only). Exit 2 on anything else. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cl/cl_backend.h"
#include "backend/model_exec.h"

static int usage(void) {
  fprintf(stderr,
          "usage: cl_program source main|sized|capped FILE | cl_program options main|sized|capped STEERING(1-%d) "
          "LANES(8|16|32) [REGISTERS(32-255)] | cl_program capped-kernels\n",
          HERD_MAX_STEERING);
  return 2;
}

/* A decimal number in [lo, hi], or -1. */
static long number_in(const char *text, long lo, long hi) {
  char *end;
  long v = strtol(text, &end, 10);
  return *text && !*end && v >= lo && v <= hi ? v : -1;
}

/* main or sized, or -1. */
static int program_named(const char *name) {
  if (strcmp(name, "main") == 0) return HERD_CL_PROGRAM_MAIN;
  if (strcmp(name, "sized") == 0) return HERD_CL_PROGRAM_SIZED;
  if (strcmp(name, "capped") == 0) return HERD_CL_PROGRAM_CAPPED;
  return -1;
}

static int write_source(herd_cl_program program, const char *path) {
  FILE *f = fopen(path, "wb");
  if (!f) {
    perror(path);
    return 1;
  }
  const char *text = herd_cl_program_source(program);
  size_t n = strlen(text);
  int ok = fwrite(text, 1, n, f) == n;
  ok &= fclose(f) == 0;
  if (!ok) perror(path);
  return ok ? 0 : 1;
}

/* The 2D and 3D step kernels, one-world and batch, of every model in HERD_CAPPED_MODELS, each
 * with its model's register bound (a model of one dims names kernels the program lacks: the test
 * takes those it finds). */
static int capped_kernels(void) {
  for (uint32_t m = 0; m < herd_model_count(); ++m) {
    const herd_model_exec *x = herd_model_exec_of(m);
    for (int k = 0; k < 4 && *x->capped_registers; ++k)
      printf("%s %u\n", x->kernel(k % 2 ? 3u : 2u, k / 2), *x->capped_registers);
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "capped-kernels") == 0) return capped_kernels();
  int program = argc >= 3 ? program_named(argv[2]) : -1;
  if (program < 0) return usage();
  if (argc == 4 && strcmp(argv[1], "source") == 0) return write_source((herd_cl_program)program, argv[3]);
  if ((argc != 5 && argc != 6) || strcmp(argv[1], "options") != 0) return usage();
  long steering = number_in(argv[3], 1, HERD_MAX_STEERING), lanes = number_in(argv[4], 8, 32);
  long registers = argc == 6 ? number_in(argv[5], 32, 255) : 64;
  if (steering < 0 || (lanes != 8 && lanes != 16 && lanes != 32) || registers < 0) return usage();
  char options[600];
  int n =
      herd_cl_program_options(options, sizeof options, (herd_cl_program)program, (uint32_t)steering, (uint32_t)lanes,
                              HERD_CL_REDUCE_PER_ITEM_MAX, HERD_CL_SMALL_GROUP_GPU, (uint32_t)registers, true, true);
  if (n < 0 || n >= (int)sizeof options) return 1;
  puts(options);
  return 0;
}
