/* Counter-based random numbers: Philox4x32-10 (Salmon et al., SC'11, "Parallel random
 * numbers: as easy as 1, 2, 3"). A draw is a pure function of (seed, step, agent id,
 * stream), so every backend and every thread count draws the same numbers and no
 * generator state is stored per agent. */
#ifndef HERD_KERNELS_RNG_H
#define HERD_KERNELS_RNG_H
#include "portable.h"

/* Streams keep independent uses of randomness apart for the same agent and step. */
#define HERD_STREAM_SHEEP_NOISE 1u
#define HERD_STREAM_SHEEP_GRAZE 2u
#define HERD_STREAM_DOG_NOISE 3u
#define HERD_STREAM_SPAWN 4u
#define HERD_STREAM_SPAWN_VELOCITY 5u
#define HERD_STREAM_STEERING_SPAWN 6u
#define HERD_STREAM_STEERING_DIRECTION 7u
#define HERD_STREAM_COUZIN_NOISE 8u
#define HERD_STREAM_FISH_FORAGE 9u
#define HERD_STREAM_OUTPUT_SAMPLE 10u

typedef struct herd_rng4 {
  herd_u32 v[4];
} herd_rng4;

HERD_INLINE herd_rng4 herd_philox4x32_10(herd_u32 c0, herd_u32 c1, herd_u32 c2, herd_u32 c3, herd_u32 k0, herd_u32 k1) {
  const herd_u32 M0 = 0xD2511F53u, M1 = 0xCD9E8D57u;
  const herd_u32 W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += W0;
      k1 += W1;
    }
    herd_u32 hi0 = herd_mulhi32(M0, c0), lo0 = M0 * c0;
    herd_u32 hi1 = herd_mulhi32(M1, c2), lo1 = M1 * c2;
    herd_u32 n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
    c0 = n0;
    c1 = lo1;
    c2 = n2;
    c3 = lo0;
  }
  herd_rng4 out;
  out.v[0] = c0;
  out.v[1] = c1;
  out.v[2] = c2;
  out.v[3] = c3;
  return out;
}

/* Four independent 32-bit draws for (seed, step, id, stream). */
HERD_INLINE herd_rng4 herd_rng_draw(herd_u64 seed, herd_u32 step, herd_u32 id, herd_u32 stream) {
  return herd_philox4x32_10(step, id, stream, 0u, (herd_u32)seed, (herd_u32)(seed >> 32));
}

/* Uniform float in [0, 1) from the top 24 bits: exactly representable, same on all devices. */
HERD_INLINE float herd_rng_unit_float(herd_u32 bits) { return (float)(bits >> 8) * (1.0f / 16777216.0f); }

/* A unit vector of uniformly random direction. */
HERD_INLINE herd_vec2 herd_rng_direction(herd_u32 bits) {
  float angle = herd_rng_unit_float(bits) * 6.28318530717958647692f;
  return herd_v2(herd_cosf(angle), herd_sinf(angle));
}

/* A unit vector of uniformly random direction in 3D (uniform on the sphere: z uniform in
 * [-1, 1), the angle about z uniform). */
HERD_INLINE herd_vec3 herd_rng_direction3(herd_u32 bits_z, herd_u32 bits_angle) {
  float z = 2.0f * herd_rng_unit_float(bits_z) - 1.0f;
  float r = herd_sqrtf(1.0f - z * z), angle = herd_rng_unit_float(bits_angle) * 6.28318530717958647692f;
  return herd_v3(r * herd_cosf(angle), r * herd_sinf(angle), z);
}

#endif
