/* A 2D camera: a centre in world metres and a zoom in metres per pixel. Pixels count from
 * the top-left corner, world y points up. */
#include "render.h"

#define FIT_MARGIN 1.08f

herd_camera herd_camera_fit(const float lo[2], const float hi[2], int w, int h) {
  herd_camera c;
  c.center[0] = 0.5f * (lo[0] + hi[0]);
  c.center[1] = 0.5f * (lo[1] + hi[1]);
  float sx = (hi[0] - lo[0]) / (float)(w > 0 ? w : 1), sy = (hi[1] - lo[1]) / (float)(h > 0 ? h : 1);
  float mpp = FIT_MARGIN * (sx > sy ? sx : sy);
  c.metres_per_px = mpp > 1e-4f ? mpp : 1e-4f;
  return c;
}

void herd_camera_to_world(const herd_camera *c, double px, double py, int w, int h, float out[2]) {
  out[0] = c->center[0] + (float)((px - 0.5 * w) * c->metres_per_px);
  out[1] = c->center[1] - (float)((py - 0.5 * h) * c->metres_per_px);
}

void herd_camera_to_pixel(const herd_camera *c, const float world[2], int w, int h, double out[2]) {
  out[0] = 0.5 * w + (world[0] - c->center[0]) / c->metres_per_px;
  out[1] = 0.5 * h - (world[1] - c->center[1]) / c->metres_per_px;
}

/* Zooms by `factor` (< 1 zooms in) keeping the world point under (px, py) where it is. */
void herd_camera_zoom_at(herd_camera *c, double px, double py, int w, int h, float factor) {
  float before[2], after[2];
  herd_camera_to_world(c, px, py, w, h, before);
  c->metres_per_px *= factor;
  if (c->metres_per_px < 1e-4f) c->metres_per_px = 1e-4f;
  herd_camera_to_world(c, px, py, w, h, after);
  c->center[0] += before[0] - after[0];
  c->center[1] += before[1] - after[1];
}

void herd_camera_pan(herd_camera *c, double dx_px, double dy_px) {
  c->center[0] -= (float)(dx_px * c->metres_per_px);
  c->center[1] += (float)(dy_px * c->metres_per_px);
}

static void grow(float lo[2], float hi[2], float x, float y) {
  lo[0] = x < lo[0] ? x : lo[0], lo[1] = y < lo[1] ? y : lo[1];
  hi[0] = x > hi[0] ? x : hi[0], hi[1] = y > hi[1] ? y : hi[1];
}

herd_camera herd_camera_for_sim(const herd_sim *sim, int w, int h) {
  const herd_scenario *sc = herd_sim_scenario(sim);
  const herd_observation *o = herd_sim_observation(sim);
  float lo[2] = {0, 0}, hi[2] = {sc->world.size_m[0], sc->world.size_m[1]};
  float tx = sc->target.position_m[0], ty = sc->target.position_m[1], r = sc->target.goal_radius_m;
  if (r >= 0.0f) {
    grow(lo, hi, tx - r, ty - r);
    grow(lo, hi, tx + r, ty + r);
  }
  grow(lo, hi, o->extent_min[0], o->extent_min[1]);
  grow(lo, hi, o->extent_max[0], o->extent_max[1]);
  for (uint32_t d = 0; d < herd_sim_steering_count(sim); ++d)
    grow(lo, hi, herd_sim_steering(sim, d)->pos[0], herd_sim_steering(sim, d)->pos[1]);
  return herd_camera_fit(lo, hi, w, h);
}
