/* Inside the OpenCL backend, for tests that compare its grid with the CPU backend's. */
#ifndef HERD_BACKEND_CL_CL_BACKEND_H
#define HERD_BACKEND_CL_CL_BACKEND_H
#include "../backend.h"
#include "../layer.h"

/* Host copies of the device's grid after bin and sort (malloc'd; free with
 * herd_cl_grid_copy_free). Same layout as herd_cpu_grid_view. */
typedef struct herd_cl_grid_copy {
  herd_grid grid;
  float *pos, *vel; /* float2 (2D) or float4 (3D) per agent */
  uint32_t *agent, *cell_end;
} herd_cl_grid_copy;

/* Bins and sorts the current flock on the device, and reads the result back. */
herd_status herd_cl_read_grid(herd_backend *b, herd_cl_grid_copy *out, herd_error *err);
void herd_cl_grid_copy_free(herd_cl_grid_copy *copy);

/* After herd_cl_read_grid: the k nearest of every sorted agent, computed on the device, as
 * rows of k sorted indices ascending by (distance, index), UINT32_MAX past the end. */
herd_status herd_cl_knn(herd_backend *b, uint32_t k, uint32_t *out, herd_error *err);

/* After herd_cl_read_grid: the model's pre-pass (kernels/knn_coop.cl) on the sorted flock with
 * these steering agents, as a step runs it; `out` gets its two int64 per sorted agent: INT64_MAX
 * (both) for an agent it did not serve, HERD_PRE_SEARCH (kernels/model.h) in the first for one
 * it left to the step's own search. Fails when the backend runs no pre-pass. */
herd_status herd_cl_prepass(herd_backend *b, herd_steering_input steer, int64_t *out, herd_error *err);

/* The programs as the backend builds them, for tools that compile them elsewhere (the GPU
 * compile test, tests/cl_program.c): the main one (kernels/herd.cl), the same for every
 * simulation, and the sized one (kernels/sized.cl), whose code depends on the simulation's
 * sizes. Each source is embedded with its headers inlined; the sized program's options give
 * its partials room for `steering` steering agents (1..HERD_MAX_STEERING), its pre-pass
 * `lanes` lanes per agent (8, 16 or 32) and its reductions `per_item` agents per work-item
 * (herd_cl_reduce_per_item); the main program's ignore them. On a GPU (`gpu`)
 * every helper is forced inline (kernels/portable.h); a CPU device's compiler (PoCL) inlines
 * by itself. The capped program is the main one built again with at most `registers` registers
 * per work-item (the model's, HERD_CAPPED_MODELS in kernels/models/steps.h), where the compiler
 * takes that bound (`nv_options`: cl_nv_compiler_options, `-cl-nv-maxrregcount`); the step
 * kernels of such a model come from it. The options function returns what snprintf returns. */
typedef enum herd_cl_program {
  HERD_CL_PROGRAM_MAIN,
  HERD_CL_PROGRAM_SIZED,
  HERD_CL_PROGRAM_CAPPED,
  HERD_CL_PROGRAMS
} herd_cl_program;
/* Work-items of herd_grid_small's one group (kernels/herd.cl, HERD_SMALL_GROUP) on a GPU that
 * allows it (choose_small_group in cl_backend.c), and its local memory: bytes per work-item. */
#define HERD_CL_SMALL_GROUP_GPU 1024u
#define HERD_CL_SMALL_GROUP_LOCAL 36u
const char *herd_cl_program_source(herd_cl_program program);
int herd_cl_program_options(char *out, size_t size, herd_cl_program program, uint32_t steering, uint32_t lanes,
                            uint32_t per_item, uint32_t small_group, uint32_t registers, bool gpu, bool nv_options);

/* Agents per work-item of the reductions (kernels/sized.cl), a power of two from
 * HERD_CL_REDUCE_PER_ITEM_MIN to _MAX. On a GPU (`gpu`) a reduction of a flock of n is two
 * chains of loads: a work-item's own agents, one after another, then the last group's fold of
 * every group's partial, groups / REDUCE_GROUP of them per work-item; each link waits for
 * DRAM (about 0.5 us), and a small flock cannot hide that behind other warps. The choice is
 * the shortest sum of the two, the larger on a tie (fewer partials written): 4 at 10^4 agents
 * (79 groups; 64 gave 5, so 64 loads in a row), 32 at 10^6. A CPU device (PoCL) runs a
 * work-group's items one after another anyway: the most, as fewest groups cost least there.
 * $HERD_CL_REDUCE=gpu takes the GPU's choice on any device (the tests check its bits on
 * PoCL). A batch's worlds fill the device by their number: the most there. */
#define HERD_CL_REDUCE_PER_ITEM_MAX 64u
#define HERD_CL_REDUCE_PER_ITEM_MIN 4u
uint32_t herd_cl_reduce_per_item(uint32_t n, bool gpu);

#endif
