/* The signed-distance field of a world's static 2D geometry (walls, water, pens, bridges;
 * docs/models/env.md), read by every model's step: sampled by bilinear interpolation from a
 * grid baked once at load (src/core/geometry.c), with its gradient. Negative inside an
 * obstacle, positive outside; in a 3D world the geometry is a vertical prism (z is ignored).
 * One flat float array, as the env array of kernels/env.h holds it:
 *
 *   [0..7]              header: nx, ny (nodes per axis), x0, y0 (node (0, 0)), h (spacing),
 *                       1/h, skin, outside
 *   [8 + 3 (j nx + i)]  node (i, j) at (x0 + i h, y0 + j h): distance d, gradient gx, gy
 *
 * The interpolated distance is within (sqrt 2 / 2) h of the exact one everywhere (the exact
 * distance is 1-Lipschitz, and bilinear weights put every node of a cell within that much of
 * the point, on average); `skin` is that bound plus a hair, and agents are kept where the field
 * is at least `skin`, so where the exact distance is at least 0. Beyond the grid (which reaches
 * `outside` metres past every obstacle) the field is outside + the distance to the grid: a
 * lower bound of the exact distance. Counts are stored as floats (exact below 2^24). */
#ifndef HERD_KERNELS_SDF_H
#define HERD_KERNELS_SDF_H
#include "portable.h"

#define HERD_SDF_HEADER 8u
#define HERD_SDF_MAX_NODES 1024u  /* per axis: the spacing grows past obstacles.resolution_m to keep to it */
#define HERD_SDF_TRACE_STEPS 32   /* sphere-tracing steps along one move at most */
#define HERD_SDF_PROJECT_ROUNDS 4 /* projection steps back out along the gradient at most */

/* Floats of a field of nx by ny nodes. */
HERD_INLINE herd_u32 herd_sdf_floats(herd_u32 nx, herd_u32 ny) { return HERD_SDF_HEADER + 3u * nx * ny; }

/* The distance the field keeps agents from every obstacle's surface (its error bound). */
HERD_INLINE float herd_sdf_skin(HERD_GLOBAL const float *f) { return f[6]; }

/* The field at p, interpolated: the signed distance and its gradient (not of unit length). */
typedef struct herd_sdf_sample {
  float d;
  herd_vec3 g;
} herd_sdf_sample;

HERD_INLINE herd_sdf_sample herd_sdf_at(HERD_GLOBAL const float *f, herd_vec3 p) {
  float nx = f[0], ny = f[1], inv_h = f[5];
  float gx = (p.x - f[2]) * inv_h, gy = (p.y - f[3]) * inv_h;
  float cx = gx < 0.0f ? 0.0f : (gx > nx - 1.0f ? nx - 1.0f : gx);
  float cy = gy < 0.0f ? 0.0f : (gy > ny - 1.0f ? ny - 1.0f : gy);
  herd_sdf_sample s;
  if (cx != gx || cy != gy) { /* beyond the grid: a lower bound, pointing away from it */
    float dx = (gx - cx) * f[4], dy = (gy - cy) * f[4], out = herd_sqrtf(dx * dx + dy * dy);
    s.d = f[7] + out;
    s.g = out > 0.0f ? herd_v3(dx / out, dy / out, 0.0f) : herd_v3(1.0f, 0.0f, 0.0f);
    return s;
  }
  herd_u32 i = (herd_u32)cx, j = (herd_u32)cy, w = (herd_u32)nx;
  if (i + 2u > w) i = w - 2u;
  if (j + 2u > (herd_u32)ny) j = (herd_u32)ny - 2u;
  float fx = cx - (float)i, fy = cy - (float)j;
  HERD_GLOBAL const float *a = f + HERD_SDF_HEADER + 3u * (j * w + i), *b = a + 3u * w;
  float w00 = (1.0f - fx) * (1.0f - fy), w10 = fx * (1.0f - fy), w01 = (1.0f - fx) * fy, w11 = fx * fy;
  s.d = w00 * a[0] + w10 * a[3] + w01 * b[0] + w11 * b[3];
  s.g = herd_v3(w00 * a[1] + w10 * a[4] + w01 * b[1] + w11 * b[4], w00 * a[2] + w10 * a[5] + w01 * b[2] + w11 * b[5],
                0.0f);
  return s;
}

/* The push away from the geometry at p: w n, n the unit gradient, w = clamp(1 - d / margin, 0,
 * 1) as for a sphere (herd_sphere_push): 0 at the margin's outer edge, 1 at the surface and
 * inside. Unit strength: the caller scales it. */
HERD_INLINE herd_vec3 herd_sdf_push(HERD_GLOBAL const float *f, float margin_m, herd_vec3 p) {
  herd_sdf_sample s = herd_sdf_at(f, p);
  float w = margin_m > 0.0f ? 1.0f - s.d / margin_m : (s.d < 0.0f ? 1.0f : 0.0f);
  if (w <= 0.0f) return herd_v3(0.0f, 0.0f, 0.0f);
  return herd_v3_scale(herd_v3_unit(s.g), w < 1.0f ? w : 1.0f);
}

/* p moved out along the gradient until the field there is at least the skin: p + (skin - d) n,
 * repeated while the interpolation leaves it short, up to HERD_SDF_PROJECT_ROUNDS times.
 * *ok: 1 when it got out (p itself when it was out already). */
HERD_INLINE herd_vec3 herd_sdf_project(HERD_GLOBAL const float *f, herd_vec3 p, int *ok) {
  float skin = herd_sdf_skin(f), extra = 0.01f * f[4];
  for (int round = 0; round < HERD_SDF_PROJECT_ROUNDS; ++round) {
    herd_sdf_sample s = herd_sdf_at(f, p);
    if (s.d >= skin) {
      *ok = 1;
      return p;
    }
    herd_vec3 n = herd_v3_unit(s.g);
    if (herd_v3_len2(n) <= 0.0f) break; /* on a ridge of the field: no way out known */
    p = herd_v3_madd(p, skin - s.d + extra, n);
  }
  *ok = herd_sdf_at(f, p).d >= skin;
  return p;
}

/* Where a move from `from` by `delta` ends, kept out of the geometry: sphere tracing along it
 * (each step as long as the field's value less the skin, which never reaches an obstacle since
 * the field is within the skin of the exact distance) finds where it would first touch one, so
 * no move passes through a wall thinner than its length; from there it slides on by the part of
 * the rest of the move along the surface, and ends projected out (herd_sdf_project). If that
 * fails (a ridge of the field), it stays at `from`. */
HERD_INLINE herd_vec3 herd_sdf_move(HERD_GLOBAL const float *f, herd_vec3 from, herd_vec3 delta) {
  float len2 = herd_v3_len2(delta);
  if (len2 <= 0.0f) return from; /* no move: where it was, outside (most grazing sheep) */
  float skin = herd_sdf_skin(f), len = herd_sqrtf(len2);
  float clear = herd_sdf_at(f, from).d - skin, t = clear > 0.0f ? clear : 0.0f;
  herd_vec3 to = herd_v3_add(from, delta);
  int ok;
  /* Far enough from every obstacle that the field at the end is at least the skin too: it is
   * within 2 (sqrt 2 / 2) h < 2 skin of its value here less the move. No more sampling. */
  if (len <= clear - 2.0f * skin) return to;
  if (len <= t) { /* the whole move lies in a ball free of obstacles */
    herd_vec3 q = herd_sdf_project(f, to, &ok);
    return ok ? q : from;
  }
  herd_vec3 dir = herd_v3_scale(delta, 1.0f / len);
  float eps = 0.01f * f[4];
  int hit = 1;
  for (int k = 0; k < HERD_SDF_TRACE_STEPS; ++k) {
    float s = herd_sdf_at(f, herd_v3_madd(from, t, dir)).d - skin;
    if (s < eps) break;
    t += s;
    if (t >= len) {
      hit = 0;
      break;
    }
  }
  if (hit) { /* touches at from + t dir: slide along the surface by the rest's tangential part */
    herd_vec3 at = herd_v3_madd(from, t, dir), n = herd_v3_unit(herd_sdf_at(f, at).g);
    herd_vec3 rest = herd_v3_scale(dir, len - t);
    float into = herd_v3_dot(rest, n);
    if (into < 0.0f) rest = herd_v3_madd(rest, -into, n);
    to = herd_v3_add(at, rest);
  }
  herd_vec3 q = herd_sdf_project(f, to, &ok);
  return ok ? q : from;
}

#endif
