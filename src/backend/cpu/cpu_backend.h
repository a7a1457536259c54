/* Inside the CPU backend, for tests that compare its grid with brute force and with the
 * OpenCL kernels. */
#ifndef HERD_BACKEND_CPU_CPU_BACKEND_H
#define HERD_BACKEND_CPU_CPU_BACKEND_H
#include "../backend.h"
#include "../layer.h"

typedef struct herd_cpu_grid_view {
  herd_grid grid;
  const float *pos; /* sorted by bucket; float2 (2D) or float4 (3D) per agent */
  const float *vel;
  const uint32_t *agent;    /* id and flags of each sorted agent (kernels/agent.h) */
  const uint32_t *cell_end; /* per bucket */
} herd_cpu_grid_view;

/* Bins and sorts the current flock (the first stages of a step) and shows the result. */
herd_cpu_grid_view herd_cpu_build_grid(herd_backend *b);

#endif
