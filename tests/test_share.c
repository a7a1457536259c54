/* Whether the viewer shares the flock's buffers between OpenCL and OpenGL, decided from
 * the device's extension string alone (PoCL ends the process inside clCreateFromGLBuffer,
 * so the decision may try nothing). Needs no display. */
#include "render/render.h"
#include "test.h"

#define TESTS(X)                       \
  X(extension_names_match_whole_words) \
  X(shares_only_with_the_extension)    \
  X(no_share_and_cpu_backend_always_copy)
TESTS(DECLARE_TEST)

static void extension_names_match_whole_words(void) {
  CHECK(herd_has_extension("cl_khr_fp64 cl_khr_gl_sharing cl_khr_icd", "cl_khr_gl_sharing"));
  CHECK(herd_has_extension("cl_khr_gl_sharing", "cl_khr_gl_sharing"));
  CHECK(herd_has_extension("cl_khr_fp64 cl_khr_gl_sharing", "cl_khr_gl_sharing"));
  CHECK(!herd_has_extension("cl_khr_gl_sharing_ext cl_khr_fp64", "cl_khr_gl_sharing"));
  CHECK(!herd_has_extension("xcl_khr_gl_sharing", "cl_khr_gl_sharing"));
  CHECK(!herd_has_extension("", "cl_khr_gl_sharing"));
  CHECK(!herd_has_extension(NULL, "cl_khr_gl_sharing"));
}

static void shares_only_with_the_extension(void) {
  char why[160];
  /* PoCL 3.1's list: no sharing. */
  const char *pocl = "cl_khr_byte_addressable_store cl_khr_global_int32_base_atomics cl_khr_fp64 cl_khr_icd";
  CHECK(!herd_share_decide("opencl", pocl, false, why, sizeof why));
  CHECK(strstr(why, "cl_khr_gl_sharing") != NULL);
  const char *nvidia = "cl_khr_global_int32_base_atomics cl_khr_fp64 cl_khr_gl_sharing cl_nv_compiler_options";
  CHECK(herd_share_decide("opencl", nvidia, false, why, sizeof why));
  CHECK(strstr(why, "shared") != NULL);
}

static void no_share_and_cpu_backend_always_copy(void) {
  char why[160];
  const char *sharing = "cl_khr_fp64 cl_khr_gl_sharing";
  CHECK(!herd_share_decide("opencl", sharing, true, why, sizeof why));
  CHECK(strstr(why, "--no-share") != NULL);
  CHECK(!herd_share_decide("cpu", sharing, false, why, sizeof why));
  CHECK(strstr(why, "copy") != NULL);
}

int main(void) { TEST_MAIN(TESTS); }
