/* The CPU backend's loop over a chunk of agents for each model (kernels/model.h's
 * herd_step_chunk_<name>), as a table in the model table's order. Built twice on x86-64: for
 * the baseline instruction set and, as model_steps_avx2.c, for AVX2, where a model's lanes
 * (kernels/lanes.h) are 8 wide in one register instead of 4; herd_model_exec_of's rows pick one
 * at run time (model_exec.c). Both give the same bits: each lane is one agent's own arithmetic,
 * and no contraction into fused multiply-adds (ISO C's default, -ffp-contract=off; AVX2 alone
 * has none). */
#include "model_steps.h"

#ifndef HERD_MODEL_STEPS_TABLE
#define HERD_MODEL_STEPS_TABLE herd_model_steps_baseline
#endif

#define STEP_ROW(id, ...) herd_step_chunk_##id,
const herd_model_chunk_fn HERD_MODEL_STEPS_TABLE[] = {HERD_MODELS(STEP_ROW)};
