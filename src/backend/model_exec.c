/* The backends' model table, generated from the rows of kernels/models/models.h and
 * kernels/models/steps.h: adding a model adds nothing here. */
#include "model_exec.h"

#include "../../kernels/reduce.h"
#include "../core/scenario.h"
#include "cpu/model_steps.h"

_Static_assert(HERD_KERNEL_MAX_STEERING == HERD_MAX_STEERING,
               "kernels/reduce.h and herd.h disagree on steering agents");

#define EXEC_INDEX_ROW(name, ...) EXEC_INDEX_##name,
enum { HERD_MODELS(EXEC_INDEX_ROW) EXEC_MODEL_COUNT };

#define PREPASS_ROW(id) [EXEC_INDEX_##id] = {"herd_pre_" #id, herd_##id##_prepass, herd_##id##_prepass_reach_m},
static const herd_model_prepass prepasses[EXEC_MODEL_COUNT] = {HERD_PREPASS_MODELS(PREPASS_ROW)};

#define EXPLAIN_ROW(id) [EXEC_INDEX_##id] = herd_##id##_explain,
static const herd_model_explain_fn explains[EXEC_MODEL_COUNT] = {HERD_EXPLAIN_MODELS(EXPLAIN_ROW)};

#define MARKS_ROW(id) [EXEC_INDEX_##id] = herd_##id##_marks,
static const herd_model_marks_fn marks[EXEC_MODEL_COUNT] = {HERD_MARKS_MODELS(MARKS_ROW)};

#define START_FLAGS_ROW(id) [EXEC_INDEX_##id] = herd_##id##_start_flags,
static const herd_model_start_flags_fn start_flags[EXEC_MODEL_COUNT] = {HERD_START_FLAGS_MODELS(START_FLAGS_ROW)};
#define CAPPED_ROW(id, registers) [EXEC_INDEX_##id] = registers,
static const uint32_t capped[EXEC_MODEL_COUNT] = {HERD_CAPPED_MODELS(CAPPED_ROW)};

/* The CPU loops for this machine: built for AVX-512 or AVX2 where it has it (cpu/model_steps.c). */
static const herd_model_chunk_fn *model_steps(void) {
#ifdef HERD_MODEL_STEPS_AVX2
  if (__builtin_cpu_supports("avx512f")) return herd_model_steps_avx512;
  if (__builtin_cpu_supports("avx2")) return herd_model_steps_avx2;
#endif
  return herd_model_steps_baseline;
}

#define CPU_STEP_ROW(id, ...)                                                                           \
  static void cpu_step_##id(const void *params, const herd_flock_view *v, herd_u32 begin, herd_u32 end, \
                            float *out_pos, float *out_vel, herd_u32 *out_agent) {                      \
    model_steps()[EXEC_INDEX_##id](params, v, begin, end, out_pos, out_vel, out_agent);                 \
  }
HERD_MODELS(CPU_STEP_ROW)

#define EXEC_ROW(id, ...)                            \
  {.name = #id,                                      \
   .params_size = sizeof(herd_##id##_params),        \
   .cpu_step = cpu_step_##id,                        \
   .kernel = herd_step_kernel_##id,                  \
   .reads_path = herd_reads_path_##id,               \
   .prepass = &prepasses[EXEC_INDEX_##id],           \
   .cell_m = herd_##id##_cell_m,                     \
   .reach = herd_##id##_reach,                       \
   .initial_velocity = herd_##id##_initial_velocity, \
   .explain = &explains[EXEC_INDEX_##id],            \
   .marks = &marks[EXEC_INDEX_##id],                 \
   .start_flags = &start_flags[EXEC_INDEX_##id],     \
   .capped_registers = &capped[EXEC_INDEX_##id]},

static const herd_model_exec rows[] = {HERD_MODELS(EXEC_ROW)};

const herd_model_exec *herd_model_exec_of(uint32_t model) { return &rows[model < EXEC_MODEL_COUNT ? model : 0]; }

float herd_scenario_grid_cell_m(const herd_scenario *sc) {
  return herd_model_exec_of(sc->model)->cell_m(sc->params.bytes);
}
