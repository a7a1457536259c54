/* model_steps.c built for AVX-512 (CMakeLists.txt gives this file -mavx512f): lanes of 16. */
#define HERD_MODEL_STEPS_TABLE herd_model_steps_avx512
#include "model_steps.c"
