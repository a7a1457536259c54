/* The viewer's overlays, scale bar and fixed camera, rendered offscreen under Xvfb (Mesa
 * llvmpipe), each checked at the pixels where the world coordinates and the camera put it:
 * the centroid's cross at the projected centroid, the cohesion circle at f(N) = r_a N^(2/3)
 * about it and the reaction circle at r_s about the dog (radii computed here from the
 * scenario's parameters), the dog's aim ring at its aim, the farthest agent's square, the
 * scale bar as long as its metres times pixels per metre, --camera's world point at its
 * pixel; and the option parsers. Skipped (exit 77) without a display. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gl_test.h"
#include "render/render.h"
#include "sim_util.h"

#define TESTS(X)                                    \
  X(overlay_names_parse_and_bad_ones_are_refused)   \
  X(camera_spec_parses_and_bad_ones_are_refused)    \
  X(no_overlay_is_drawn_unless_asked)               \
  X(the_centroid_cross_is_at_the_centroid)          \
  X(the_cohesion_circle_has_radius_f_of_n)          \
  X(the_reaction_circle_has_radius_r_s)             \
  X(the_aim_ring_is_at_the_dogs_aim)                \
  X(the_farthest_agent_is_squared)                  \
  X(the_scale_bar_is_its_length_in_pixels)          \
  X(a_fixed_camera_puts_a_world_point_at_its_pixel) \
  X(fit_field_shows_the_world_box_whole)            \
  X(hud_text_grows_with_the_frame)                  \
  X(the_inspected_agents_neighbours_are_ringed)     \
  X(the_default_view_lies_below_the_hud)
TESTS(DECLARE_TEST)

enum { W = 1200, H = 900 };

static herd_window *window;
static herd_renderer *renderer;

static bool is(const uint8_t *px, const uint8_t rgb[3]) {
  return px[0] == rgb[0] && px[1] == rgb[1] && px[2] == rgb[2];
}

typedef struct picture {
  uint8_t *rgba;
  herd_camera cam;
} picture;

static herd_sim *start(const char *const *sets, int set_count, uint32_t steps) {
  herd_scenario sc = scenario_with(sets, set_count);
  herd_error err;
  herd_sim *sim;
  CHECK(herd_sim_create(&(herd_sim_desc){.scenario = &sc, .backend = "cpu"}, &sim, &err) == HERD_OK);
  for (uint32_t s = 0; s < steps; ++s) CHECK(herd_sim_step(sim, &err) == HERD_OK);
  return sim;
}

/* What the next render inspects (herd_renderer_inspect): none while inspect_at is NULL. */
static const float *inspect_at, *inspect_points;
static uint32_t inspect_count;

/* The sim through `cam` with the overlays of `mask`. */
static picture render(herd_sim *sim, const herd_camera *cam, uint32_t mask) {
  const herd_scenario *sc = herd_sim_scenario(sim);
  herd_renderer_destroy(renderer);
  herd_error err;
  CHECK(herd_renderer_create(sc->flock.count, sc->world.dims, &renderer, &err) == HERD_OK);
  CHECK(herd_renderer_overlays(renderer) == 0); /* off unless asked */
  herd_renderer_set_overlays(renderer, mask);
  herd_renderer_inspect(renderer, inspect_at, inspect_points, inspect_count);
  picture p = {malloc((size_t)W * H * 4), *cam};
  CHECK(herd_renderer_update(renderer, sim, &err) == HERD_OK);
  CHECK(herd_renderer_snapshot(renderer, sim, &p.cam, W, H, NULL, p.rgba, &err) == HERD_OK);
  return p;
}

/* A 2D camera centred on (x, y) at `mpp` metres per pixel, built here (not by --camera). */
static herd_camera camera_at(float x, float y, float mpp) {
  herd_camera c = {0};
  c.center[0] = x, c.center[1] = y, c.metres_per_px = mpp;
  return c;
}

/* Pixels in rgb within `reach` pixels (a square) of pixel (x, y). */
static long near_px(const picture *p, double x, double y, int reach, const uint8_t rgb[3]) {
  long cx = (long)floor(x), cy = (long)floor(y), n = 0;
  for (long py = cy - reach; py <= cy + reach; ++py)
    for (long px = cx - reach; px <= cx + reach; ++px)
      n += px >= 0 && px < W && py >= 0 && py < H && is(p->rgba + 4 * ((size_t)py * W + (size_t)px), rgb);
  return n;
}

/* Pixels in rgb within `reach` pixels of where world point (x, y) is drawn. */
static long near_world(const picture *p, float x, float y, int reach, const uint8_t rgb[3]) {
  double at[2];
  CHECK(herd_camera_to_pixel(&p->cam, (const float[3]){x, y, 0}, W, H, at));
  return near_px(p, at[0], at[1], reach, rgb);
}

static long count_color(const picture *p, const uint8_t rgb[3]) {
  long n = 0;
  for (size_t i = 0; i < (size_t)W * H; ++i) n += is(p->rgba + 4 * i, rgb);
  return n;
}

/* Of n points round the circle of radius_m about c, how many are drawn in rgb (within 1 px). */
static int points_on_circle(const picture *p, const float c[2], float radius_m, int n, const uint8_t rgb[3]) {
  int hits = 0;
  for (int k = 0; k < n; ++k) {
    float a = 6.2831853f * ((float)k + 0.25f) / (float)n;
    hits += near_world(p, c[0] + radius_m * cosf(a), c[1] + radius_m * sinf(a), 1, rgb) > 0;
  }
  return hits;
}

static float field(const herd_sim *sim, const char *path) {
  double v = 0;
  herd_error err;
  CHECK(herd_scenario_get(herd_sim_scenario(sim), path, &v, &err) == HERD_OK);
  return (float)v;
}

static void overlay_names_parse_and_bad_ones_are_refused(void) {
  uint32_t mask = 99;
  char why[300];
  CHECK(herd_overlays_parse("centroid,aim", &mask, why, sizeof why));
  CHECK(mask == (HERD_OVERLAY_CENTROID | HERD_OVERLAY_AIM));
  CHECK(herd_overlays_parse("all", &mask, why, sizeof why));
  CHECK(mask == (1u << HERD_OVERLAY_COUNT) - 1u);
  CHECK(herd_overlays_parse("none", &mask, why, sizeof why) && mask == 0);
  mask = 7;
  CHECK(!herd_overlays_parse("centroid,centre", &mask, why, sizeof why));
  CHECK_MSG(strstr(why, "\"centre\"") && strstr(why, "farthest"), "%s", why);
  CHECK(mask == 7); /* untouched on error */
  CHECK(!herd_overlays_parse("aim,", &mask, why, sizeof why));
  CHECK(!herd_overlays_parse("", &mask, why, sizeof why));
  for (int k = 0; k < HERD_OVERLAY_COUNT; ++k) CHECK(strstr(HERD_OVERLAY_NAMES, herd_overlay_name(k)));
}

static void camera_spec_parses_and_bad_ones_are_refused(void) {
  herd_camera_spec s;
  char why[300];
  CHECK(herd_camera_spec_parse("75,-5.5,160", &s, why, sizeof why));
  CHECK(s.given && !s.fit_field && s.x == 75.0f && s.y == -5.5f && s.width_m == 160.0f);
  CHECK(herd_camera_spec_parse("fit-field", &s, why, sizeof why) && s.fit_field);
  const char *bad[] = {"1,2", "1,2,0", "1,2,-3", "1,2,3,4", "1,2,3x", "fit", "nan,1,2", "1,2,inf", ""};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
    CHECK_MSG(!herd_camera_spec_parse(bad[k], &s, why, sizeof why), "\"%s\" was taken", bad[k]);
    CHECK(strstr(why, "--camera") && strstr(why, "fit-field"));
  }
  herd_scenario sc3 = scenario_with((const char *const[]){"model=couzin"}, 1);
  herd_camera c;
  CHECK(sc3.world.dims == 3);
  CHECK(herd_camera_spec_parse("1,2,3", &s, why, sizeof why));
  CHECK(!herd_camera_from_spec(&s, &sc3, W, H, &c, why, sizeof why));
  CHECK_MSG(strstr(why, "3D"), "%s", why);
  CHECK(herd_camera_spec_parse("fit-field", &s, why, sizeof why));
  CHECK(herd_camera_from_spec(&s, &sc3, W, H, &c, why, sizeof why) && c.orbit);
}

/* The default picture has none of the overlays' colours; each overlay adds its own. */
static void no_overlay_is_drawn_unless_asked(void) {
  herd_sim *sim = start(NULL, 0, 30);
  herd_camera cam = herd_camera_for_sim(sim, W, H);
  picture off = render(sim, &cam, 0), on = render(sim, &cam, (1u << HERD_OVERLAY_COUNT) - 1u);
  CHECK(count_color(&off, herd_overlay_centroid_rgb) == 0);
  CHECK(count_color(&off, herd_overlay_reaction_rgb) == 0);
  CHECK(count_color(&off, herd_overlay_farthest_rgb) == 0);
  CHECK(count_color(&off, herd_scale_bar_rgb) == 0);
  CHECK(count_color(&on, herd_overlay_centroid_rgb) > 0);
  CHECK(count_color(&on, herd_scale_bar_rgb) > 0);
  free(off.rgba);
  free(on.rgba);
  herd_sim_destroy(sim);
}

static void the_centroid_cross_is_at_the_centroid(void) {
  herd_sim *sim = start(NULL, 0, 40);
  const herd_observation *o = herd_sim_observation(sim);
  float g[2] = {(float)o->centroid[0], (float)o->centroid[1]};
  herd_camera cam = camera_at(g[0] + 7.0f, g[1] - 3.0f, 0.1f); /* off centre: the projection matters */
  picture p = render(sim, &cam, HERD_OVERLAY_CENTROID);
  double at[2];
  CHECK(herd_camera_to_pixel(&p.cam, (const float[3]){g[0], g[1], 0}, W, H, at));
  double arm = HERD_OVERLAY_MARK_PX - 2.0;
  CHECK_MSG(near_px(&p, at[0], at[1], 1, herd_overlay_centroid_rgb) > 0, "no cross at the centroid's pixel");
  CHECK(near_px(&p, at[0] + arm, at[1], 1, herd_overlay_centroid_rgb) > 0);
  CHECK(near_px(&p, at[0] - arm, at[1], 1, herd_overlay_centroid_rgb) > 0);
  CHECK(near_px(&p, at[0], at[1] + arm, 1, herd_overlay_centroid_rgb) > 0);
  CHECK(near_px(&p, at[0], at[1] - arm, 1, herd_overlay_centroid_rgb) > 0);
  /* A cross, not a blob: its quadrants' diagonals are clear, and so is the pixel 2 arms away. */
  CHECK(near_px(&p, at[0] + 0.6 * arm, at[1] + 0.6 * arm, 1, herd_overlay_centroid_rgb) == 0);
  CHECK(near_px(&p, at[0] + 2.5 * arm, at[1], 1, herd_overlay_centroid_rgb) == 0);
  free(p.rgba);
  herd_sim_destroy(sim);
}

/* Strombom: f(N) = r_a N^(2/3) about G, r_a and N from the scenario. */
static void the_cohesion_circle_has_radius_f_of_n(void) {
  herd_sim *sim = start((const char *const[]){"sheep.count=60", "sheep.repulsion_radius_m=1.5"}, 2, 20);
  const herd_observation *o = herd_sim_observation(sim);
  float g[2] = {(float)o->centroid[0], (float)o->centroid[1]};
  float f_n = field(sim, "sheep.repulsion_radius_m") * powf(60.0f, 2.0f / 3.0f); /* 23.1 m */
  herd_camera cam = camera_at(g[0], g[1], 3.0f * f_n / (float)H);
  picture p = render(sim, &cam, HERD_OVERLAY_COHESION);
  int on = points_on_circle(&p, g, f_n, 24, herd_overlay_centroid_rgb);
  int inside = points_on_circle(&p, g, 0.9f * f_n, 24, herd_overlay_centroid_rgb);
  int outside = points_on_circle(&p, g, 1.1f * f_n, 24, herd_overlay_centroid_rgb);
  printf("  f(N) = %.2f m: %d of 24 points on it drawn, %d at 0.9 f(N), %d at 1.1 f(N)\n", f_n, on, inside, outside);
  CHECK(on >= 22 && inside == 0 && outside == 0);
  free(p.rgba);
  herd_sim_destroy(sim);
}

static void the_reaction_circle_has_radius_r_s(void) {
  herd_sim *sim = start((const char *const[]){"sheep.dog_radius_m=30"}, 1, 5);
  const herd_steering_state *dog = herd_sim_steering(sim, 0);
  float d[2] = {dog->pos[0], dog->pos[1]}, r_s = field(sim, "sheep.dog_radius_m");
  herd_camera cam = camera_at(d[0], d[1], 3.0f * r_s / (float)H);
  picture p = render(sim, &cam, HERD_OVERLAY_REACTION);
  int on = points_on_circle(&p, d, r_s, 24, herd_overlay_reaction_rgb);
  int off = points_on_circle(&p, d, 0.9f * r_s, 24, herd_overlay_reaction_rgb) +
            points_on_circle(&p, d, 1.1f * r_s, 24, herd_overlay_reaction_rgb);
  CHECK_MSG(on >= 22 && off == 0, "r_s = %g m: %d of 24 on the circle, %d off it", r_s, on, off);
  free(p.rgba);
  herd_sim_destroy(sim);
}

/* The dog's aim (herd_steering_state.aim) ringed in the dog's colour, HERD_OVERLAY_MARK_PX
 * about it, with a line from the dog; the default scenario has no walls, so nothing else
 * marks the aim. */
static void the_aim_ring_is_at_the_dogs_aim(void) {
  herd_sim *sim = start(NULL, 0, 0);
  const herd_steering_state *dog = herd_sim_steering(sim, 0);
  herd_error err;
  while (herd_sim_step_index(sim) < 2000 &&
         !(dog->mode == HERD_MODE_COLLECT && hypotf(dog->aim[0] - dog->pos[0], dog->aim[1] - dog->pos[1]) > 10.0f))
    CHECK(herd_sim_step(sim, &err) == HERD_OK);
  CHECK_MSG(dog->mode == HERD_MODE_COLLECT, "the dog never collects in 2000 steps");
  float aim[2] = {dog->aim[0], dog->aim[1]}, pos[2] = {dog->pos[0], dog->pos[1]};
  herd_camera cam = camera_at(0.5f * (aim[0] + pos[0]), 0.5f * (aim[1] + pos[1]), 0.05f);
  picture off = render(sim, &cam, 0);
  long before = near_world(&off, aim[0] + 8.0f * 0.05f, aim[1], 1, herd_colors.dog);
  picture p = render(sim, &cam, HERD_OVERLAY_AIM);
  float r_m = HERD_OVERLAY_MARK_PX * p.cam.metres_per_px;
  int ring = points_on_circle(&p, aim, r_m, 12, herd_colors.dog);
  printf("  step %u: aim (%.1f, %.1f), dog (%.1f, %.1f): %d of 12 ring points\n", herd_sim_step_index(sim), aim[0],
         aim[1], pos[0], pos[1], ring);
  CHECK(before == 0);
  CHECK(ring >= 10);
  CHECK(near_world(&p, 0.25f * aim[0] + 0.75f * pos[0], 0.25f * aim[1] + 0.75f * pos[1], 1, herd_colors.dog) > 0);
  free(off.rgba);
  free(p.rgba);
  herd_sim_destroy(sim);
}

static void the_farthest_agent_is_squared(void) {
  herd_sim *sim = start(NULL, 0, 10);
  const herd_observation *o = herd_sim_observation(sim);
  float f[2] = {o->farthest_pos[0], o->farthest_pos[1]};
  herd_camera cam = camera_at(f[0] - 5.0f, f[1] + 2.0f, 0.05f);
  picture p = render(sim, &cam, HERD_OVERLAY_FARTHEST);
  double at[2], s = HERD_OVERLAY_MARK_PX;
  CHECK(herd_camera_to_pixel(&p.cam, (const float[3]){f[0], f[1], 0}, W, H, at));
  for (int cx = -1; cx <= 1; cx += 2)
    for (int cy = -1; cy <= 1; cy += 2)
      CHECK_MSG(near_px(&p, at[0] + cx * s, at[1] + cy * s, 1, herd_overlay_farthest_rgb) > 0, "corner %d %d", cx, cy);
  CHECK(near_px(&p, at[0], at[1], 2, herd_overlay_farthest_rgb) == 0); /* an outline */
  free(p.rgba);
  herd_sim_destroy(sim);
}

/* The bar's drawn pixels on its row, leftmost to rightmost. */
static double bar_length_px(const picture *p) {
  int y = H - (int)HERD_SCALE_BAR_MARGIN_PX, lo = W, hi = -1;
  for (int x = 0; x < W / 2; ++x)
    if (is(p->rgba + 4 * ((size_t)y * W + (size_t)x), herd_scale_bar_rgb)) lo = x < lo ? x : lo, hi = x;
  return hi >= lo ? hi - lo + 1 : 0;
}

/* At 0.3 m per pixel the longest bar of HERD_SCALE_BAR_MAX_PX = 200 px is 60 m: the round
 * length is 50 m, 166.7 px; at 0.004 m per pixel 0.8 m: 0.5 m, 125 px. */
static void the_scale_bar_is_its_length_in_pixels(void) {
  herd_sim *sim = start(NULL, 0, 0);
  const float mpp[2] = {0.3f, 0.004f}, metres[2] = {50.0f, 0.5f};
  for (int k = 0; k < 2; ++k) {
    float px;
    CHECK(herd_scale_bar_m(mpp[k], &px) == metres[k]);
    herd_camera cam = camera_at(75, 75, mpp[k]);
    picture p = render(sim, &cam, HERD_OVERLAY_SCALE);
    double drawn = bar_length_px(&p), want = metres[k] / mpp[k];
    printf("  %.3f m/px: a %g m bar drawn %.0f px long (%.1f px expected)\n", mpp[k], metres[k], drawn, want);
    CHECK_MSG(fabs(drawn - want) <= 1.5, "%.0f px drawn, %.1f expected", drawn, want);
    free(p.rgba);
  }
  float px;
  for (float m = 1e-3f; m < 1e3f; m *= 1.7f) { /* always 1, 2 or 5 times a power of ten, at most 200 px */
    float len = herd_scale_bar_m(m, &px), lead = len / powf(10.0f, floorf(log10f(len) + 1e-4f));
    CHECK_MSG(px <= HERD_SCALE_BAR_MAX_PX + 1e-3f && px > 0.4f * HERD_SCALE_BAR_MAX_PX, "%g m/px: %g px", m, px);
    CHECK_MSG(fabsf(lead - 1) < 1e-3f || fabsf(lead - 2) < 1e-3f || fabsf(lead - 5) < 1e-3f, "%g m", len);
  }
  herd_sim_destroy(sim);
}

/* --camera 0,0,40 on the default scenario: the target (0, 0) at the picture's middle, and
 * the world point (10, 5) at W / 40 = 30 px per metre from it. */
static void a_fixed_camera_puts_a_world_point_at_its_pixel(void) {
  herd_sim *sim = start(NULL, 0, 0);
  const herd_scenario *sc = herd_sim_scenario(sim);
  CHECK(sc->target.position_m[0] == 0 && sc->target.position_m[1] == 0);
  herd_camera_spec s;
  char why[300];
  CHECK(herd_camera_spec_parse("0,0,40", &s, why, sizeof why));
  herd_camera cam;
  CHECK(herd_camera_from_spec(&s, sc, W, H, &cam, why, sizeof why));
  double at[2];
  CHECK(herd_camera_to_pixel(&cam, (const float[3]){10, 5, 0}, W, H, at));
  CHECK_MSG(fabs(at[0] - (W / 2 + 300)) < 0.01 && fabs(at[1] - (H / 2 - 150)) < 0.01, "(%g, %g)", at[0], at[1]);
  picture p = render(sim, &cam, 0);
  /* The goal circle about the target passes 30 px per metre of its radius right of, left of
   * and above the middle (the dog stands on the target itself at the start). */
  double r_px = 30.0 * sc->target.goal_radius_m;
  CHECK_MSG(near_px(&p, W / 2 + r_px, H / 2, 1, herd_colors.target) > 0, "no goal circle %.0f px right", r_px);
  CHECK(near_px(&p, W / 2 - r_px, H / 2, 1, herd_colors.target) > 0);
  CHECK(near_px(&p, W / 2, H / 2 - r_px, 1, herd_colors.target) > 0);
  CHECK(near_px(&p, W / 2 + 0.8 * r_px, H / 2, 1, herd_colors.target) == 0);
  free(p.rgba);
  herd_sim_destroy(sim);
}

static void fit_field_shows_the_world_box_whole(void) {
  herd_sim *sim = start(NULL, 0, 0);
  const herd_scenario *sc = herd_sim_scenario(sim);
  herd_camera_spec s;
  char why[300];
  CHECK(herd_camera_spec_parse("fit-field", &s, why, sizeof why));
  herd_camera cam;
  CHECK(herd_camera_from_spec(&s, sc, W, H, &cam, why, sizeof why));
  picture p = render(sim, &cam, 0);
  float x = sc->world.size_m[0], y = sc->world.size_m[1];
  const float corners[4][2] = {{0, 0}, {x, 0}, {x, y}, {0, y}};
  for (int k = 1; k < 4; ++k) { /* (0, 0): the dog stands there */
    double at[2];
    CHECK(herd_camera_to_pixel(&cam, (const float[3]){corners[k][0], corners[k][1], 0}, W, H, at));
    CHECK(at[0] > 0 && at[0] < W && at[1] > 0 && at[1] < H);
    CHECK_MSG(near_px(&p, at[0], at[1], 1, herd_colors.field) > 0, "corner %d", k);
  }
  /* The box fills the picture's height but for a margin: it is fitted, not just inside. */
  CHECK(y / cam.metres_per_px > 0.8 * H);
  free(p.rgba);
  herd_sim_destroy(sim);
}

/* stb_easy_font's capitals are 7 px high: 21 px at herd_hud_scale(1200) = 3. */
static void hud_text_grows_with_the_frame(void) {
  CHECK(herd_hud_scale(400) == 1.0f && herd_hud_scale(800) == 2.0f && herd_hud_scale(1600) == 4.0f);
  herd_sim *sim = start(NULL, 0, 0);
  herd_camera cam = herd_camera_for_sim(sim, W, H);
  herd_renderer_destroy(renderer);
  herd_error err;
  CHECK(herd_renderer_create(herd_sim_scenario(sim)->flock.count, 2, &renderer, &err) == HERD_OK);
  uint8_t *rgba = malloc((size_t)W * H * 4);
  CHECK(herd_renderer_update(renderer, sim, &err) == HERD_OK);
  CHECK(herd_renderer_snapshot(renderer, sim, &cam, W, H, "I", rgba, &err) == HERD_OK);
  int top = H, bottom = -1;
  for (int y = 0; y < 60; ++y)
    for (int x = 0; x < 60; ++x)
      if (is(rgba + 4 * ((size_t)y * W + (size_t)x), herd_colors.hud)) top = y < top ? y : top, bottom = y;
  double scale = herd_hud_scale(H);
  printf("  \"I\" drawn %d px high at scale %.0f\n", bottom - top + 1, scale);
  CHECK_MSG(bottom - top + 1 == (int)(7 * scale), "%d px high", bottom - top + 1);
  free(rgba);
  herd_sim_destroy(sim);
}

/* Agent 0 and its n = 8 nearest, found here by brute force over the flock in id order: each
 * neighbour ringed (HERD_INSPECT_RING_PX) in the neighbour colour where it is, agent 0 in the
 * inspect colour, and the agent farthest from agent 0 not ringed. */
static void the_inspected_agents_neighbours_are_ringed(void) {
  herd_sim *sim = start((const char *const[]){"sheep.count=40", "sheep.neighbours=8"}, 2, 30);
  uint32_t n = 40;
  float pos[2 * 40], vel[2 * 40], d2[40];
  herd_error err;
  CHECK(herd_sim_read_flock(sim, pos, vel, &err) == HERD_OK);
  uint32_t order[40], far = 0;
  for (uint32_t i = 0; i < n; ++i) {
    order[i] = i;
    d2[i] = (pos[2 * i] - pos[0]) * (pos[2 * i] - pos[0]) + (pos[2 * i + 1] - pos[1]) * (pos[2 * i + 1] - pos[1]);
    far = d2[i] > d2[far] ? i : far;
  }
  for (uint32_t i = 1; i < n; ++i) /* insertion sort by distance from agent 0 */
    for (uint32_t j = i; j > 0 && d2[order[j - 1]] > d2[order[j]]; --j) {
      uint32_t t = order[j];
      order[j] = order[j - 1], order[j - 1] = t;
    }
  CHECK(order[0] == 0);
  float at[3] = {pos[0], pos[1], 0}, near[3 * 8];
  for (int k = 0; k < 8; ++k)
    near[3 * k] = pos[2 * order[k + 1]], near[3 * k + 1] = pos[2 * order[k + 1] + 1], near[3 * k + 2] = 0;
  inspect_at = at, inspect_points = near, inspect_count = 8;
  herd_camera cam = camera_at(pos[0], pos[1], 2.2f * sqrtf(d2[far]) / (float)H);
  picture p = render(sim, &cam, 0);
  inspect_at = NULL, inspect_points = NULL, inspect_count = 0;
  float r_m = HERD_INSPECT_RING_PX * p.cam.metres_per_px;
  for (int k = 0; k < 8; ++k) {
    int ring = points_on_circle(&p, near + 3 * k, r_m, 8, herd_inspect_neighbour_rgb) +
               points_on_circle(&p, near + 3 * k, r_m, 8, herd_inspect_rgb);
    CHECK_MSG(ring >= 6, "neighbour %u: %d of 8 ring points", order[k + 1], ring);
  }
  CHECK(points_on_circle(&p, at, r_m, 8, herd_inspect_rgb) >= 6);
  CHECK(points_on_circle(&p, (const float[2]){pos[2 * far], pos[2 * far + 1]}, r_m, 8, herd_inspect_neighbour_rgb) ==
        0);
  free(p.rgba);
  herd_sim_destroy(sim);
}

/* herd_camera_below: what the default camera showed from row 0 to row H now lies from the
 * HUD's last row to row H, and the HUD's text (drawn) reaches no lower than that band. */
static void the_default_view_lies_below_the_hud(void) {
  herd_sim *sim = start(NULL, 0, 0);
  const char *hud = "line one\nline two\nline three\nline four";
  float band = herd_hud_height_px(hud, H);
  CHECK(band > 4 * 7 * herd_hud_scale(H) && band < 0.5f * H);
  herd_camera c = herd_camera_for_sim(sim, W, H), below = herd_camera_below(c, H, band);
  float top[3], bottom[3];
  herd_camera_to_world(&c, W / 2, 0, W, H, top);
  herd_camera_to_world(&c, W / 2, H, W, H, bottom);
  double at_top[2], at_bottom[2];
  CHECK(herd_camera_to_pixel(&below, top, W, H, at_top) && herd_camera_to_pixel(&below, bottom, W, H, at_bottom));
  CHECK_MSG(fabs(at_top[1] - band) < 0.05 && fabs(at_bottom[1] - H) < 0.05 && fabs(at_top[0] - W / 2) < 0.05,
            "rows %g and %g, band %g", at_top[1], at_bottom[1], band);
  herd_renderer_destroy(renderer);
  herd_error err;
  CHECK(herd_renderer_create(herd_sim_scenario(sim)->flock.count, 2, &renderer, &err) == HERD_OK);
  uint8_t *rgba = malloc((size_t)W * H * 4);
  CHECK(herd_renderer_update(renderer, sim, &err) == HERD_OK);
  CHECK(herd_renderer_snapshot(renderer, sim, &below, W, H, hud, rgba, &err) == HERD_OK);
  int lowest = -1;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W / 2; ++x)
      if (is(rgba + 4 * ((size_t)y * W + (size_t)x), herd_colors.hud)) lowest = y;
  CHECK_MSG(lowest >= 0 && lowest < band, "the HUD reaches row %d, the band ends at %g", lowest, band);
  herd_camera orbit = {.orbit = true, .distance_m = 10};
  CHECK(herd_camera_below(orbit, H, band).distance_m == 10); /* 3D: unchanged */
  free(rgba);
  herd_sim_destroy(sim);
}

static int test_run_list(void) { TEST_MAIN(TESTS); }

int main(void) { return gl_test_main(&window, &renderer, test_run_list); }
