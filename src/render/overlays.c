/* The viewer's overlays (each dog's aim and mode, the flock's centroid and cohesion circle,
 * the steering agents' reaction circles, the farthest agent), the scale bar, the HUD's text
 * size and the --camera option. The radii come from the model table through
 * herd_sim_model_marks, never from a model's name. */
#include <GL/glew.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"

#define OVERLAY_SEGMENTS 96
#define OVERLAY_WORLD 0.01f /* marks in 3D: this much of the world's longer side */

const uint8_t herd_inspect_rgb[3] = {255, 0, 255}, herd_inspect_neighbour_rgb[3] = {140, 255, 0};
const uint8_t herd_overlay_centroid_rgb[3] = {255, 140, 0}, herd_overlay_reaction_rgb[3] = {200, 60, 60},
              herd_overlay_farthest_rgb[3] = {0, 255, 255}, herd_scale_bar_rgb[3] = {250, 250, 250};

static const char *const overlay_names[HERD_OVERLAY_COUNT] = {"aim",      "centroid", "cohesion",
                                                              "reaction", "farthest", "scale"};

const char *herd_overlay_name(int k) { return k >= 0 && k < HERD_OVERLAY_COUNT ? overlay_names[k] : ""; }

/* The bits of one item of --overlays; false for a name not known. */
static bool overlay_bits(const char *item, size_t n, uint32_t *bits) {
  if (n == 3 && strncmp(item, "all", n) == 0) return *bits = (1u << HERD_OVERLAY_COUNT) - 1u, true;
  if (n == 4 && strncmp(item, "none", n) == 0) return *bits = 0, true;
  for (int k = 0; k < HERD_OVERLAY_COUNT; ++k)
    if (strlen(overlay_names[k]) == n && strncmp(item, overlay_names[k], n) == 0) return *bits = 1u << k, true;
  return false;
}

bool herd_overlays_parse(const char *list, uint32_t *mask, char *why, size_t why_size) {
  uint32_t out = 0;
  for (const char *p = list;;) {
    size_t n = strcspn(p, ",");
    uint32_t bits;
    if (!overlay_bits(p, n, &bits)) {
      snprintf(why, why_size,
               "--overlays: \"%.*s\" in \"%s\" is not an overlay (allowed: a comma-separated list of %s)", (int)n, p,
               list, HERD_OVERLAY_NAMES);
      return false;
    }
    out = bits ? out | bits : 0;
    if (!p[n]) break;
    p += n + 1;
  }
  *mask = out;
  return true;
}

float herd_hud_scale(int h) {
  if (h < 600) return 1.0f;
  float s = floorf((float)h / 400.0f);
  return s > 2.0f ? s : 2.0f;
}

float herd_scale_bar_m(float metres_per_px, float *px) {
  float most = HERD_SCALE_BAR_MAX_PX * metres_per_px;
  float decade = powf(10.0f, floorf(log10f(most)));
  float length = decade;
  if (5.0f * decade <= most)
    length = 5.0f * decade;
  else if (2.0f * decade <= most)
    length = 2.0f * decade;
  *px = length / metres_per_px;
  return length;
}

herd_camera herd_camera_below(herd_camera c, int h, float top_px) {
  if (c.orbit || top_px <= 0.0f || top_px > 0.5f * (float)h) return c;
  c.metres_per_px *= (float)h / ((float)h - top_px);
  c.center[1] += 0.5f * top_px * c.metres_per_px; /* world y grows up the picture */
  return c;
}

/* ---- --camera ---------------------------------------------------------------------------- */

bool herd_camera_spec_parse(const char *text, herd_camera_spec *out, char *why, size_t why_size) {
  herd_camera_spec s = {.given = true};
  if (strcmp(text, "fit-field") == 0) {
    s.fit_field = true;
    *out = s;
    return true;
  }
  int used = 0;
  if (sscanf(text, "%f,%f,%f%n", &s.x, &s.y, &s.width_m, &used) == 3 && text[used] == '\0' && isfinite(s.x) &&
      isfinite(s.y) && isfinite(s.width_m) && s.width_m > 0.0f && fabsf(s.x) <= 1e7f && fabsf(s.y) <= 1e7f &&
      s.width_m <= 1e8f) {
    *out = s;
    return true;
  }
  snprintf(why, why_size,
           "--camera: \"%s\" is not allowed (allowed: x,y,width_m in metres, the view's centre and its width, "
           "width_m > 0, e.g. 75,75,160; or fit-field)",
           text);
  return false;
}

bool herd_camera_from_spec(const herd_camera_spec *spec, const herd_scenario *sc, int w, int h, herd_camera *out,
                           char *why, size_t why_size) {
  herd_scenario_info info = herd_scenario_describe(sc);
  if (spec->fit_field) {
    float lo[3] = {0, 0, 0};
    *out = info.dims == 3 ? herd_camera_fit_orbit(lo, info.size_m, HERD_CAMERA_YAW_DEG, HERD_CAMERA_PITCH_DEG, w, h)
                          : herd_camera_fit(lo, info.size_m, w, h);
    return true;
  }
  if (info.dims == 3) {
    snprintf(why, why_size,
             "--camera: x,y,width_m is a 2D view and this world is 3D (allowed in 3D: fit-field, the default orbit "
             "round the world's box)");
    return false;
  }
  herd_camera c = {0};
  c.center[0] = spec->x, c.center[1] = spec->y;
  c.metres_per_px = spec->width_m / (float)(w > 0 ? w : 1);
  *out = c;
  return true;
}

/* ---- Click to inspect ------------------------------------------------------------------------ */

struct herd_inspect_marks {
  bool on;
  float at[3];
  float *neighbours;
  uint32_t count, cap;
};

void herd_overlays_free(herd_renderer *r) {
  struct herd_inspect_marks **slot = herd_draw_inspect_slot(r);
  if (*slot) free((*slot)->neighbours);
  free(*slot);
  *slot = NULL;
}

void herd_renderer_inspect(herd_renderer *r, const float *at, const float *neighbours, uint32_t count) {
  struct herd_inspect_marks **slot = herd_draw_inspect_slot(r);
  if (!*slot && !(*slot = calloc(1, sizeof **slot))) return;
  struct herd_inspect_marks *m = *slot;
  m->on = at != NULL;
  m->count = 0;
  if (!at) return;
  memcpy(m->at, at, sizeof m->at);
  if (count > m->cap) {
    float *grown = realloc(m->neighbours, (size_t)count * 3 * sizeof *grown);
    if (!grown) return; /* out of memory: the agent alone */
    m->neighbours = grown, m->cap = count;
  }
  if (count) memcpy(m->neighbours, neighbours, (size_t)count * 3 * sizeof *neighbours);
  m->count = count;
}

/* ---- Drawing ------------------------------------------------------------------------------- */

/* How large a mark is drawn: HERD_OVERLAY_MARK_PX in 2D, a small part of the world in 3D. */
static float mark_m(const herd_sim *sim, const herd_camera *cam) {
  herd_scenario_info sc = herd_scenario_describe(herd_sim_scenario(sim));
  const float *size = sc.size_m;
  return cam->orbit ? OVERLAY_WORLD * fmaxf(size[0], size[1]) : HERD_OVERLAY_MARK_PX * cam->metres_per_px;
}

/* World point v as drawn: z is 0 in 2D. */
static void drawn(const herd_renderer *r, const float *v, float out[3]) {
  out[0] = v[0], out[1] = v[1], out[2] = herd_draw_dims(r) == 3 ? v[2] : 0.0f;
}

static void circle(herd_renderer *r, const float c[3], float radius, const uint8_t rgb[3]) {
  float pts[3 * OVERLAY_SEGMENTS];
  herd_draw_circle_points(pts, OVERLAY_SEGMENTS, c, radius);
  herd_draw_shape(r, pts, OVERLAY_SEGMENTS, GL_LINE_LOOP, rgb);
}

/* A cross of half-size s at c: the centroid. */
static void cross(herd_renderer *r, const float c[3], float s, const uint8_t rgb[3]) {
  float pts[12] = {c[0] - s, c[1], c[2], c[0] + s, c[1], c[2], c[0], c[1] - s, c[2], c[0], c[1] + s, c[2]};
  herd_draw_shape(r, pts, 4, GL_LINES, rgb);
}

/* A square outline of half-size s about c: the farthest agent. */
static void square(herd_renderer *r, const float c[3], float s, const uint8_t rgb[3]) {
  float pts[12] = {c[0] - s, c[1] - s, c[2], c[0] + s, c[1] - s, c[2],
                   c[0] + s, c[1] + s, c[2], c[0] - s, c[1] + s, c[2]};
  herd_draw_shape(r, pts, 4, GL_LINE_LOOP, rgb);
}

static bool aims(const herd_steering_state *a) {
  return a->mode != HERD_MODE_MANUAL && isfinite(a->aim[0]) && isfinite(a->aim[1]) &&
         (a->mode == HERD_MODE_COLLECT || a->mode == HERD_MODE_DRIVE || a->strategy == HERD_STRATEGY_SHEPHERD);
}

/* Each steering agent's aim (a ring with a line from the agent) and reaction circle. */
static void draw_steering_marks(herd_renderer *r, const herd_sim *sim, uint32_t on, float mark, float reaction_m) {
  for (uint32_t d = 0; d < herd_sim_steering_count(sim); ++d) {
    const herd_steering_state *a = herd_sim_steering(sim, d);
    if (a->strategy == HERD_STRATEGY_FOOD) continue;
    float p[3], q[3];
    drawn(r, a->pos, p);
    if ((on & HERD_OVERLAY_REACTION) && isfinite(reaction_m)) circle(r, p, reaction_m, herd_overlay_reaction_rgb);
    if (!(on & HERD_OVERLAY_AIM) || !aims(a)) continue;
    drawn(r, a->aim, q);
    float line[6] = {p[0], p[1], p[2], q[0], q[1], q[2]};
    herd_draw_shape(r, line, 2, GL_LINES, herd_colors.dog);
    circle(r, q, mark, herd_colors.dog);
  }
}

/* Each steering agent's mode, by it (the aim overlay). */
static void draw_modes(herd_renderer *r, const herd_sim *sim, const herd_camera *cam, int w, int h) {
  float scale = herd_hud_scale(h);
  for (uint32_t d = 0; d < herd_sim_steering_count(sim); ++d) {
    const herd_steering_state *a = herd_sim_steering(sim, d);
    double px[2];
    if (a->strategy == HERD_STRATEGY_FOOD || !herd_camera_to_pixel(cam, a->pos, w, h, px)) continue;
    herd_draw_text(r, (float)px[0] + 8.0f * scale, (float)px[1] + 4.0f * scale, herd_steering_mode_name(a->mode), w, h,
                   herd_colors.dog);
  }
}

/* Pixels to clip space, top-left origin, for marks drawn on the screen. */
static void pixel_view(int w, int h, float view[16]) {
  memset(view, 0, 16 * sizeof(float));
  view[0] = 2.0f / (float)w, view[5] = -2.0f / (float)h, view[10] = 1.0f;
  view[12] = -1.0f, view[13] = 1.0f, view[15] = 1.0f;
}

/* The scale bar in the bottom-left corner: a bar with end ticks, its length above it. */
static void draw_scale_bar(herd_renderer *r, const herd_camera *cam, int w, int h) {
  float px, metres = herd_scale_bar_m(cam->metres_per_px, &px), view[16];
  float x0 = HERD_SCALE_BAR_MARGIN_PX, y = (float)h - HERD_SCALE_BAR_MARGIN_PX, tick = 6.0f;
  pixel_view(w, h, view);
  herd_draw_use_shapes(r, view);
  /* Pixel centres: a line from x0 + 0.5 covers pixels x0 .. x0 + px - 1. */
  float pts[18] = {x0,        y + 0.5f, 0, x0 + px,        y + 0.5f, 0, x0 + 0.5f,      y - tick, 0,
                   x0 + 0.5f, y + tick, 0, x0 + px - 0.5f, y - tick, 0, x0 + px - 0.5f, y + tick, 0};
  herd_draw_shape(r, pts, 6, GL_LINES, herd_scale_bar_rgb);
  char label[32];
  snprintf(label, sizeof label, metres >= 1.0f ? "%.0f m" : "%g m", (double)metres);
  herd_draw_text(r, x0, y - tick - 10.0f * herd_hud_scale(h), label, w, h, herd_scale_bar_rgb);
}

/* The inspected agent and its neighbours, ringed. */
static void draw_inspected(herd_renderer *r, const herd_sim *sim, const herd_camera *cam) {
  const struct herd_inspect_marks *m = *herd_draw_inspect_slot(r);
  if (!m || !m->on) return;
  float ring = HERD_INSPECT_RING_PX / HERD_OVERLAY_MARK_PX * mark_m(sim, cam), p[3];
  for (uint32_t k = 0; k < m->count; ++k) {
    drawn(r, m->neighbours + 3 * k, p);
    circle(r, p, ring, herd_inspect_neighbour_rgb);
  }
  drawn(r, m->at, p);
  circle(r, p, ring, herd_inspect_rgb);
  circle(r, p, 1.4f * ring, herd_inspect_rgb);
}

void herd_overlays_draw(herd_renderer *r, const herd_sim *sim, const herd_camera *cam, int w, int h) {
  uint32_t on = herd_renderer_overlays(r);
  float view[16];
  herd_camera_matrix(cam, w, h, view);
  herd_draw_use_shapes(r, view);
  draw_inspected(r, sim, cam);
  if (!on) return;
  const herd_observation *o = herd_sim_observation(sim);
  herd_model_marks marks = herd_sim_model_marks(sim);
  float mark = mark_m(sim, cam);
  float g[3] = {(float)o->centroid[0], (float)o->centroid[1], (float)o->centroid[2]}, gd[3], f[3];
  drawn(r, g, gd);
  bool flock = o->count > 0;
  if (flock && (on & HERD_OVERLAY_COHESION) && isfinite(marks.cohesion_m))
    circle(r, gd, marks.cohesion_m, herd_overlay_centroid_rgb);
  if (flock && (on & HERD_OVERLAY_CENTROID)) cross(r, gd, mark, herd_overlay_centroid_rgb);
  drawn(r, o->farthest_pos, f);
  if (flock && (on & HERD_OVERLAY_FARTHEST)) square(r, f, mark, herd_overlay_farthest_rgb);
  draw_steering_marks(r, sim, on, mark, marks.reaction_m);
  if (on & HERD_OVERLAY_AIM) draw_modes(r, sim, cam, w, h);
  if ((on & HERD_OVERLAY_SCALE) && !cam->orbit) draw_scale_bar(r, cam, w, h);
}
