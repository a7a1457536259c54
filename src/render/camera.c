/* The cameras: 2D, a centre in world metres and a zoom in metres per pixel (world y up);
 * 3D, a perspective eye orbiting a look-at point (world z up). Pixels count from the
 * top-left corner. Both become one matrix (herd_camera_matrix), which the renderer draws
 * with and herd_camera_to_pixel projects through, so tests find things where they are drawn. */
#include <cglm/cglm.h>
#include <math.h>
#include <string.h>

#include "render.h"

#define FIT_MARGIN 1.08f
#define MIN_METRES_PER_PX 1e-4f
#define MIN_DISTANCE_M 1e-2f
#define MAX_PITCH_DEG 89.0f    /* the eye never reaches the pole, where "up" is undefined */
#define ORBIT_DEG_PER_PX 0.25f /* a drag across a 1440-pixel window turns the view once */
#define NEAR_FRACTION 0.01f    /* near and far planes as fractions of the eye's distance: */
#define FAR_FRACTION 100.0f    /* 24-bit depth still resolves millimetres at the target */

/* ---- 2D ---------------------------------------------------------------------------------- */

herd_camera herd_camera_fit(const float lo[2], const float hi[2], int w, int h) {
  herd_camera c = {0};
  c.center[0] = 0.5f * (lo[0] + hi[0]);
  c.center[1] = 0.5f * (lo[1] + hi[1]);
  float sx = (hi[0] - lo[0]) / (float)(w > 0 ? w : 1), sy = (hi[1] - lo[1]) / (float)(h > 0 ? h : 1);
  float mpp = FIT_MARGIN * (sx > sy ? sx : sy);
  c.metres_per_px = mpp > MIN_METRES_PER_PX ? mpp : MIN_METRES_PER_PX;
  return c;
}

static void plane_to_world(const herd_camera *c, double px, double py, int w, int h, float out[3]) {
  out[0] = c->center[0] + (float)((px - 0.5 * w) * c->metres_per_px);
  out[1] = c->center[1] - (float)((py - 0.5 * h) * c->metres_per_px);
  out[2] = 0.0f;
}

/* Zooms keeping the world point under (px, py) where it is. */
static void plane_zoom_at(herd_camera *c, double px, double py, int w, int h, float factor) {
  float before[3], after[3];
  plane_to_world(c, px, py, w, h, before);
  c->metres_per_px *= factor;
  if (c->metres_per_px < MIN_METRES_PER_PX) c->metres_per_px = MIN_METRES_PER_PX;
  plane_to_world(c, px, py, w, h, after);
  c->center[0] += before[0] - after[0];
  c->center[1] += before[1] - after[1];
}

/* ---- 3D ---------------------------------------------------------------------------------- */

static float clamp_pitch(float deg) {
  return deg > MAX_PITCH_DEG ? MAX_PITCH_DEG : deg < -MAX_PITCH_DEG ? -MAX_PITCH_DEG : deg;
}

/* The eye's frame: `back` from the target toward the eye, `right` and `up` across the view. */
static void orbit_axes(const herd_camera *c, vec3 back, vec3 right, vec3 up) {
  float yaw = glm_rad(c->yaw_deg), pitch = glm_rad(c->pitch_deg);
  vec3 forward, world_up = {0.0f, 0.0f, 1.0f};
  glm_vec3_copy((vec3){cosf(pitch) * cosf(yaw), cosf(pitch) * sinf(yaw), sinf(pitch)}, back);
  glm_vec3_negate_to(back, forward);
  glm_vec3_crossn(forward, world_up, right);
  glm_vec3_cross(right, forward, up);
}

/* tan of half the field of view across and up the w x h view. */
static void half_fov_tans(int w, int h, float *tx, float *ty) {
  *ty = tanf(0.5f * glm_rad(HERD_CAMERA_FOV_Y_DEG));
  *tx = *ty * (float)(w > 0 ? w : 1) / (float)(h > 0 ? h : 1);
}

herd_camera herd_camera_fit_orbit(const float lo[3], const float hi[3], float yaw_deg, float pitch_deg, int w, int h) {
  herd_camera c = {.orbit = true, .yaw_deg = yaw_deg, .pitch_deg = clamp_pitch(pitch_deg)};
  for (int k = 0; k < 3; ++k) c.target[k] = 0.5f * (lo[k] + hi[k]);
  vec3 back, right, up;
  orbit_axes(&c, back, right, up);
  float tx, ty;
  half_fov_tans(w, h, &tx, &ty);
  tx /= FIT_MARGIN, ty /= FIT_MARGIN;
  /* Each corner, at depth z toward the eye and x, y across, is in view once the eye is at
   * least z + |x| / tx (and z + |y| / ty) from the target. */
  float d = MIN_DISTANCE_M;
  for (int corner = 0; corner < 8; ++corner) {
    vec3 p;
    for (int k = 0; k < 3; ++k) p[k] = ((corner >> k) & 1 ? hi[k] : lo[k]) - c.target[k];
    float z = glm_vec3_dot(p, back);
    d = fmaxf(d, fmaxf(z + fabsf(glm_vec3_dot(p, right)) / tx, z + fabsf(glm_vec3_dot(p, up)) / ty));
  }
  c.distance_m = d;
  return c;
}

static void orbit_matrix(const herd_camera *c, int w, int h, mat4 out) {
  vec3 back, right, up, eye, target = {c->target[0], c->target[1], c->target[2]};
  orbit_axes(c, back, right, up);
  glm_vec3_scale(back, c->distance_m, eye);
  glm_vec3_add(eye, target, eye);
  mat4 view, projection;
  glm_lookat(eye, target, (vec3){0.0f, 0.0f, 1.0f}, view);
  float aspect = (float)(w > 0 ? w : 1) / (float)(h > 0 ? h : 1);
  glm_perspective(glm_rad(HERD_CAMERA_FOV_Y_DEG), aspect, NEAR_FRACTION * c->distance_m, FAR_FRACTION * c->distance_m,
                  projection);
  glm_mat4_mul(projection, view, out);
}

/* On the plane through the target facing the eye, the ray through a pixel meets it at
 * distance_m along the pixel's offset from the view's middle (the plane is distance_m away). */
static void orbit_to_world(const herd_camera *c, double px, double py, int w, int h, float out[3]) {
  vec3 back, right, up;
  orbit_axes(c, back, right, up);
  float tx, ty;
  half_fov_tans(w, h, &tx, &ty);
  float across = (float)(2.0 * px / (w > 0 ? w : 1) - 1.0) * tx * c->distance_m;
  float upward = (float)(1.0 - 2.0 * py / (h > 0 ? h : 1)) * ty * c->distance_m;
  for (int k = 0; k < 3; ++k) out[k] = c->target[k] + across * right[k] + upward * up[k];
}

/* ---- Either ------------------------------------------------------------------------------ */

void herd_camera_matrix(const herd_camera *c, int w, int h, float out[16]) {
  mat4 m;
  if (c->orbit) {
    orbit_matrix(c, w, h, m);
  } else {
    float half_w = 0.5f * c->metres_per_px * (float)w, half_h = 0.5f * c->metres_per_px * (float)h;
    glm_ortho(c->center[0] - half_w, c->center[0] + half_w, c->center[1] - half_h, c->center[1] + half_h, -1.0f, 1.0f,
              m);
  }
  memcpy(out, m, sizeof m);
}

bool herd_camera_to_pixel(const herd_camera *c, const float world[3], int w, int h, double out[2]) {
  mat4 m;
  vec4 clip;
  herd_camera_matrix(c, w, h, (float *)m);
  glm_mat4_mulv(m, (vec4){world[0], world[1], c->orbit ? world[2] : 0.0f, 1.0f}, clip);
  if (clip[3] <= 0.0f) return false;
  out[0] = 0.5 * w * (1.0 + clip[0] / clip[3]);
  out[1] = 0.5 * h * (1.0 - clip[1] / clip[3]);
  return true;
}

void herd_camera_to_world(const herd_camera *c, double px, double py, int w, int h, float out[3]) {
  if (c->orbit)
    orbit_to_world(c, px, py, w, h, out);
  else
    plane_to_world(c, px, py, w, h, out);
}

void herd_camera_zoom_at(herd_camera *c, double px, double py, int w, int h, float factor) {
  if (!c->orbit) {
    plane_zoom_at(c, px, py, w, h, factor);
    return;
  }
  c->distance_m *= factor;
  if (c->distance_m < MIN_DISTANCE_M) c->distance_m = MIN_DISTANCE_M;
}

void herd_camera_drag(herd_camera *c, double dx_px, double dy_px) {
  if (!c->orbit) {
    c->center[0] -= (float)(dx_px * c->metres_per_px);
    c->center[1] += (float)(dy_px * c->metres_per_px);
    return;
  }
  /* The scene turns with the mouse: dragging right moves the eye left round the target,
   * dragging down lifts it. */
  c->yaw_deg = remainderf(c->yaw_deg - (float)dx_px * ORBIT_DEG_PER_PX, 360.0f);
  c->pitch_deg = clamp_pitch(c->pitch_deg + (float)dy_px * ORBIT_DEG_PER_PX);
}

/* ---- Fitted to the simulation -------------------------------------------------------------- */

static void grow(float lo[3], float hi[3], const float p[3]) {
  for (int k = 0; k < 3; ++k) lo[k] = fminf(lo[k], p[k]), hi[k] = fmaxf(hi[k], p[k]);
}

/* False when no agent is left to have an extent (every one removed on delivery: the reduction
 * leaves it +inf to -inf, which would stretch a fit to infinity). */
static bool has_extent(const herd_observation *o) { return o->extent_min[0] <= o->extent_max[0]; }

/* The world box and the flock's extent (in 2D z is 0 throughout). */
static void world_and_flock(const herd_sim *sim, float lo[3], float hi[3]) {
  herd_scenario_info sc = herd_scenario_describe(herd_sim_scenario(sim));
  const herd_observation *o = herd_sim_observation(sim);
  bool flat = sc.dims != 3;
  for (int k = 0; k < 3; ++k) lo[k] = 0.0f, hi[k] = flat && k == 2 ? 0.0f : sc.size_m[k];
  if (!has_extent(o)) return;
  grow(lo, hi, (const float[3]){o->extent_min[0], o->extent_min[1], flat ? 0.0f : o->extent_min[2]});
  grow(lo, hi, (const float[3]){o->extent_max[0], o->extent_max[1], flat ? 0.0f : o->extent_max[2]});
}

/* Everything a picture shows: the world box, the goal circle, the flock, the steering agents. */
static void scene_bounds(const herd_sim *sim, float lo[3], float hi[3]) {
  herd_scenario_info sc = herd_scenario_describe(herd_sim_scenario(sim));
  bool flat = sc.dims != 3;
  world_and_flock(sim, lo, hi);
  const float *t = sc.target_m, r = sc.goal_radius_m, tz = flat ? 0.0f : t[2];
  if (r >= 0.0f) {
    grow(lo, hi, (const float[3]){t[0] - r, t[1] - r, tz});
    grow(lo, hi, (const float[3]){t[0] + r, t[1] + r, tz});
  }
  for (uint32_t d = 0; d < herd_sim_steering_count(sim); ++d) {
    const float *p = herd_sim_steering(sim, d)->pos;
    grow(lo, hi, (const float[3]){p[0], p[1], flat ? 0.0f : p[2]});
  }
}

herd_camera herd_camera_for_sim(const herd_sim *sim, int w, int h) {
  float lo[3], hi[3];
  scene_bounds(sim, lo, hi);
  if (herd_scenario_describe(herd_sim_scenario(sim)).dims == 3)
    return herd_camera_fit_orbit(lo, hi, HERD_CAMERA_YAW_DEG, HERD_CAMERA_PITCH_DEG, w, h);
  return herd_camera_fit(lo, hi, w, h);
}

void herd_camera_fit_flock(herd_camera *c, const herd_sim *sim, int w, int h) {
  const herd_observation *o = herd_sim_observation(sim);
  if (!c->orbit && !has_extent(o)) {
    *c = herd_camera_for_sim(sim, w, h); /* no flock left: the scene */
    return;
  }
  if (!c->orbit) {
    *c = herd_camera_fit(o->extent_min, o->extent_max, w, h);
    return;
  }
  float lo[3], hi[3];
  world_and_flock(sim, lo, hi);
  *c = herd_camera_fit_orbit(lo, hi, c->yaw_deg, c->pitch_deg, w, h);
}
