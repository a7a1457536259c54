/* The CPU backend's loop over a chunk of agents for each model (kernels/model.h's
 * herd_step_chunk_<name>), as a table in the model table's order. Built three times on x86-64:
 * for the baseline instruction set and, as model_steps_avx2.c and model_steps_avx512.c, for
 * AVX2 and AVX-512, where a model's lanes (kernels/lanes.h) are 8 and 16 wide in one register
 * instead of 4; herd_model_exec_of's rows pick one at run time (model_exec.c). All give the
 * same bits: each lane is one agent's own arithmetic, and nothing is contracted into fused
 * multiply-adds (ISO C's default, -ffp-contract=off). */
#include "model_steps.h"

#ifndef HERD_MODEL_STEPS_TABLE
#define HERD_MODEL_STEPS_TABLE herd_model_steps_baseline
#endif

#define STEP_ROW(id, ...) herd_step_chunk_##id,
const herd_model_chunk_fn HERD_MODEL_STEPS_TABLE[] = {HERD_MODELS(STEP_ROW)};
