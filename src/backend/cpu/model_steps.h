/* The models' CPU loops over chunks of agents, one table per instruction set (model_steps.c). */
#ifndef HERD_BACKEND_CPU_MODEL_STEPS_H
#define HERD_BACKEND_CPU_MODEL_STEPS_H
#include "../../../kernels/models/steps.h"

extern const herd_model_chunk_fn herd_model_steps_baseline[];
#ifdef HERD_MODEL_STEPS_AVX2 /* x86-64: model_steps_avx2.c and model_steps_avx512.c are built */
extern const herd_model_chunk_fn herd_model_steps_avx2[];
extern const herd_model_chunk_fn herd_model_steps_avx512[];
#endif

#endif
