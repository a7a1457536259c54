/* model_steps.c built for AVX2 (CMakeLists.txt gives this file -mavx2): lanes of 8. */
#define HERD_MODEL_STEPS_TABLE herd_model_steps_avx2
#include "model_steps.c"
