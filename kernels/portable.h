/* Portability layer for the model headers: the same source compiles as C11 (CPU backend)
 * and as OpenCL C 1.2 (OpenCL backend). Model code uses only what is defined here, plain
 * scalar float arithmetic, and the herd_vec2 type through .x/.y. */
#ifndef HERD_KERNELS_PORTABLE_H
#define HERD_KERNELS_PORTABLE_H

/* OpenCL C compilers define one or both of these (clang only the first). */
#if defined(__OPENCL_C_VERSION__) || defined(__OPENCL_VERSION__)
#define HERD_OPENCL 1
#endif

#ifdef HERD_OPENCL
/* Keep a*b+c as two roundings on every device, as GCC does in ISO C mode, so the
 * backends differ in scheduling, not in arithmetic. */
#pragma OPENCL FP_CONTRACT OFF
typedef uint herd_u32;
typedef int herd_i32;
typedef ulong herd_u64;
typedef long herd_i64;
typedef float2 herd_vec2;
typedef float3 herd_vec3;
#define HERD_GLOBAL __global
#define HERD_CONSTANT __constant
/* Every helper is a definition in its program, inlined: an OpenCL C (C99) `inline` alone is
 * no definition, which a GPU compiler that does not inline leaves unresolved, and a call
 * passes structs through the stack (tests/gpu_compile.py checks both). */
/* Empty on a CPU device (PoCL inlines every function itself, and builds five times faster so)
 * and under Oclgrind (its interpreter lacks an intrinsic forced inlining emits at -O0). */
#ifndef HERD_INLINE_ATTRIBUTE
#define HERD_INLINE_ATTRIBUTE __attribute__((always_inline))
#endif
#define HERD_INLINE static inline HERD_INLINE_ATTRIBUTE
/* A loop a GPU compiler must not unroll: the path's searches (kernels/path.h), whose unrolled
 * copies, run side by side, needed twice the registers (tests/gpu_compile.py). */
#define HERD_NO_UNROLL _Pragma("unroll 1")
/* The work-group size of every kernel the host launches in groups of its SIMPLE_GROUP (the
 * others declare their own), declared so that a GPU compiler allots registers for it. */
#ifndef HERD_SIMPLE_GROUP
#define HERD_SIMPLE_GROUP 64
#endif
#define HERD_SIMPLE_KERNEL __kernel __attribute__((reqd_work_group_size(HERD_SIMPLE_GROUP, 1, 1)))
#define herd_v2(x, y) ((float2)((x), (y)))
#define herd_v3(x, y, z) ((float3)((x), (y), (z)))
#define herd_sqrtf(x) sqrt(x)
#define herd_atan2f(y, x) atan2((y), (x))
#define herd_roundf(x) rint(x)
#define herd_floorf(x) floor(x)
#define herd_cosf(x) cos(x)
#define herd_sinf(x) sin(x)
#define herd_acosf(x) acos(x)
#define herd_expf(x) exp(x)
#define herd_mulhi32(a, b) mul_hi((uint)(a), (uint)(b))
#else
#include <math.h>
#include <stdint.h>
typedef uint32_t herd_u32;
typedef int32_t herd_i32;
typedef uint64_t herd_u64;
typedef int64_t herd_i64;
typedef struct herd_vec2 {
  float x, y;
} herd_vec2;
typedef struct herd_vec3 {
  float x, y, z;
} herd_vec3;
#define HERD_GLOBAL
#define HERD_CONSTANT const
#define HERD_INLINE static inline
#define HERD_NO_UNROLL
#define herd_v2(x, y) ((herd_vec2){(x), (y)})
#define herd_v3(x, y, z) ((herd_vec3){(x), (y), (z)})
#define herd_sqrtf(x) sqrtf(x)
#define herd_roundf(x) rintf(x)
#define herd_floorf(x) floorf(x)
/* The transcendental functions in double, rounded to float: the C libraries' float versions
 * round differently (glibc's cosf and sinf differ from musl's, the web build's, on 2^24 angles
 * the noise draws), their double versions rounded to float agree (docs/web.md), so the native
 * and the web builds take the same steps. OpenCL keeps its float functions (a device may lack
 * doubles): its steps agree with the CPU's to rounding. */
#define herd_atan2f(y, x) ((float)atan2((double)(y), (double)(x)))
#define herd_cosf(x) ((float)cos((double)(x)))
#define herd_sinf(x) ((float)sin((double)(x)))
#define herd_acosf(x) ((float)acos((double)(x)))
#define herd_expf(x) ((float)exp((double)(x)))
#define herd_mulhi32(a, b) ((herd_u32)(((herd_u64)(a) * (herd_u64)(b)) >> 32))
#endif

HERD_INLINE herd_vec2 herd_v2_add(herd_vec2 a, herd_vec2 b) { return herd_v2(a.x + b.x, a.y + b.y); }
HERD_INLINE herd_vec2 herd_v2_sub(herd_vec2 a, herd_vec2 b) { return herd_v2(a.x - b.x, a.y - b.y); }
HERD_INLINE herd_vec2 herd_v2_scale(herd_vec2 a, float s) { return herd_v2(a.x * s, a.y * s); }
HERD_INLINE float herd_v2_dot(herd_vec2 a, herd_vec2 b) { return a.x * b.x + a.y * b.y; }
HERD_INLINE float herd_v2_len2(herd_vec2 a) { return a.x * a.x + a.y * a.y; }

/* a + s*b, the weighted sum every heading rule is made of. */
HERD_INLINE herd_vec2 herd_v2_madd(herd_vec2 a, float s, herd_vec2 b) { return herd_v2(a.x + s * b.x, a.y + s * b.y); }

/* Unit vector along a; the zero vector stays zero (no direction to give it). */
HERD_INLINE herd_vec2 herd_v2_unit(herd_vec2 a) {
  float len2 = herd_v2_len2(a);
  if (len2 <= 0.0f) return herd_v2(0.0f, 0.0f);
  float inv = 1.0f / herd_sqrtf(len2);
  return herd_v2(a.x * inv, a.y * inv);
}

/* The same in three dimensions. Two-dimensional models use them with z = 0: adding 0 * 0 to
 * a sum changes nothing, so their results are those of the 2D formulas. */
HERD_INLINE herd_vec3 herd_v3_add(herd_vec3 a, herd_vec3 b) { return herd_v3(a.x + b.x, a.y + b.y, a.z + b.z); }
HERD_INLINE herd_vec3 herd_v3_sub(herd_vec3 a, herd_vec3 b) { return herd_v3(a.x - b.x, a.y - b.y, a.z - b.z); }
HERD_INLINE herd_vec3 herd_v3_scale(herd_vec3 a, float s) { return herd_v3(a.x * s, a.y * s, a.z * s); }
HERD_INLINE float herd_v3_dot(herd_vec3 a, herd_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
HERD_INLINE float herd_v3_len2(herd_vec3 a) { return a.x * a.x + a.y * a.y + a.z * a.z; }
HERD_INLINE herd_vec3 herd_v3_madd(herd_vec3 a, float s, herd_vec3 b) {
  return herd_v3(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z);
}
HERD_INLINE herd_vec3 herd_v3_cross(herd_vec3 a, herd_vec3 b) {
  return herd_v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
HERD_INLINE herd_vec3 herd_v3_unit(herd_vec3 a) {
  float len2 = herd_v3_len2(a);
  if (len2 <= 0.0f) return herd_v3(0.0f, 0.0f, 0.0f);
  float inv = 1.0f / herd_sqrtf(len2);
  return herd_v3(a.x * inv, a.y * inv, a.z * inv);
}

#endif
