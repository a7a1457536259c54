/* herd in a web page (scripts/web.sh): the library's CPU backend and the viewer's renderer,
 * built by emscripten into a module the page drives (web/index.html, web/herd.js). One
 * simulation at a time, drawn each animation frame on the page's canvas through WebGL2; the
 * page calls the functions below (each exported to JavaScript) to start a scenario, run,
 * pause, step, change a parameter or steer a dog, and reads the figures back. */
#define _POSIX_C_SOURCE 200809L /* strdup, strtok */
#include <GLFW/glfw3.h>
#include <emscripten/emscripten.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/render/render.h"
#include "herd/herd.h"

#define WEB EMSCRIPTEN_KEEPALIVE

static struct {
  herd_window *window;
  herd_renderer *renderer;
  herd_plot *plot;
  herd_scenario *scenario;
  herd_sim *sim;
  herd_camera camera;
  int width, height;
  bool paused;
  int steps_per_frame;
  char error[1024]; /* the last refusal, one line */
  char hud[512];
} page = {.paused = true, .steps_per_frame = 1};

static int fail(const herd_error *err) {
  snprintf(page.error, sizeof page.error, "%s", err->message);
  return err->status ? err->status : 1;
}

WEB const char *herd_web_error(void) { return page.error; }

/* The canvas and its context, made once: the renderer is made again for each flock. */
static int open_window(void) {
  if (page.window) return 0;
  herd_error err;
  herd_window_desc desc = {.width = page.width, .height = page.height, .title = "herd"};
  if (herd_window_open(&desc, &page.window, &err) != HERD_OK) return fail(&err);
  page.plot = herd_plot_create();
  return 0;
}

static void stop_sim(void) {
  herd_renderer_destroy(page.renderer);
  herd_sim_destroy(page.sim);
  herd_scenario_free(page.scenario);
  page.renderer = NULL, page.sim = NULL, page.scenario = NULL;
}

/* Starts the scenario in `json` (the page's text: a shipped file or the user's), with `sets`
 * ("PATH=VALUE" lines, as --set takes them; "" for none). 0, or an error (herd_web_error). */
WEB int herd_web_start(const char *json, const char *origin, const char *sets, int width, int height) {
  page.error[0] = '\0';
  page.width = width > 0 ? width : 960, page.height = height > 0 ? height : 640;
  int status = open_window();
  if (status) return status;
  char *lines = strdup(sets ? sets : ""), *set[64];
  if (!lines) return snprintf(page.error, sizeof page.error, "out of memory"), 1;
  int count = 0;
  for (char *line = strtok(lines, "\n"); line && count < 64; line = strtok(NULL, "\n"))
    if (*line) set[count++] = line;
  herd_scenario *sc = NULL;
  herd_sim *sim = NULL;
  herd_renderer *renderer = NULL;
  herd_error err;
  herd_status st = herd_scenario_parse(json, origin, (const char *const *)set, count, &sc, &err);
  free(lines);
  herd_sim_desc desc = {.scenario = sc, .threads = 1, .backend = "cpu"};
  if (st == HERD_OK) st = herd_sim_create(&desc, &sim, &err);
  herd_scenario_info info = sc ? herd_scenario_describe(sc) : (herd_scenario_info){0};
  if (st == HERD_OK) st = herd_renderer_create(info.count, info.dims, &renderer, &err);
  if (st != HERD_OK) {
    herd_sim_destroy(sim);
    herd_scenario_free(sc);
    return fail(&err);
  }
  stop_sim();
  page.scenario = sc, page.sim = sim, page.renderer = renderer;
  page.camera = herd_camera_for_sim(sim, page.width, page.height);
  herd_plot_clear(page.plot);
  herd_renderer_set_plot(renderer, page.plot);
  page.paused = true;
  return 0;
}

/* n steps now (fewer at the outcome); the steps taken, or -1 after an error. */
WEB int herd_web_step(int n) {
  if (!page.sim) return -1;
  uint32_t done = 0;
  herd_error err;
  for (int k = 0; k < n && herd_sim_outcome(page.sim) == HERD_RUNNING; ++k, ++done) {
    if (herd_sim_step(page.sim, &err) != HERD_OK) return fail(&err), -1;
    herd_plot_observe(page.plot, page.sim);
  }
  return (int)done;
}

WEB void herd_web_pause(int paused) { page.paused = paused != 0; }
WEB void herd_web_speed(int steps_per_frame) { page.steps_per_frame = steps_per_frame < 1 ? 1 : steps_per_frame; }
WEB int herd_web_step_index(void) { return page.sim ? (int)herd_sim_step_index(page.sim) : -1; }
WEB const char *herd_web_outcome(void) { return page.sim ? herd_outcome_name(herd_sim_outcome(page.sim)) : ""; }

/* Flock agents that reacted to a steering agent in the last step (HERD_FLAG_REACTED); the
 * page asks each frame, so the flags' buffer is kept and grown only for a larger flock. */
static uint32_t reacting(void) {
  static uint8_t *flags;
  static uint32_t held;
  uint32_t n = herd_scenario_describe(herd_sim_scenario(page.sim)).count, count = 0;
  if (n > held) {
    uint8_t *bigger = realloc(flags, n);
    if (!bigger) return 0;
    flags = bigger, held = n;
  }
  herd_error err;
  if (n && herd_sim_read_flags(page.sim, flags, &err) == HERD_OK)
    for (uint32_t i = 0; i < n; ++i) count += (flags[i] & HERD_FLAG_REACTED) != 0;
  return count;
}

/* The figures the HUD shows, one per line ("name value"), for the page's text beside the canvas. */
WEB const char *herd_web_figures(void) {
  if (!page.sim) return "";
  const herd_observation *o = herd_sim_observation(page.sim);
  snprintf(page.hud, sizeof page.hud,
           "step %u\noutcome %s\nagents %u\ndelivered %u\nin_goal %u\nreacting %u\npolarisation %.3f\n"
           "milling %.3f\nfarthest_m %.2f\ncentroid_x %.10g\ncentroid_y %.10g",
           herd_sim_step_index(page.sim), herd_outcome_name(herd_sim_outcome(page.sim)), o->count, o->delivered,
           o->in_goal, reacting(), (double)o->polarisation, (double)o->milling, (double)o->farthest_dist_m,
           o->centroid[0], o->centroid[1]);
  return page.hud;
}

/* Where world point (x, y) is drawn on the canvas, "px py" in pixels from the top left. */
WEB const char *herd_web_to_pixel(double x, double y) {
  static char text[64];
  float world[3] = {(float)x, (float)y, 0.0f};
  double px[2] = {-1, -1};
  herd_camera_to_pixel(&page.camera, world, page.width, page.height, px);
  snprintf(text, sizeof text, "%.3f %.3f", px[0], px[1]);
  return text;
}

/* Every parameter the run may change (herd_sim_param_name) with its value now, as JSON:
 * [{"path": ..., "value": ..., "whole": true|false}, ...], for the page's sliders. */
WEB const char *herd_web_params(void) {
  static char json[8192];
  size_t at = (size_t)snprintf(json, sizeof json, "[");
  bool whole;
  const char *path;
  for (uint32_t k = 0; page.sim && (path = herd_sim_param_name(page.sim, k, &whole)) && at < sizeof json - 200; ++k) {
    double value = 0;
    herd_error err;
    if (herd_scenario_get(herd_sim_scenario(page.sim), path, &value, &err) != HERD_OK) continue;
    at += (size_t)snprintf(json + at, sizeof json - at, "%s{\"path\": \"%s\", \"value\": %.6g, \"whole\": %s}",
                           at > 1 ? ", " : "", path, value, whole ? "true" : "false");
  }
  snprintf(json + at, sizeof json - at, "]");
  return json;
}

/* Field `path` takes `value` from the next step on (herd_sim_set_param). 0, or an error. */
WEB int herd_web_set_param(const char *path, double value) {
  herd_error err;
  if (!page.sim) return 1;
  if (herd_sim_set_param(page.sim, path, value, &err) != HERD_OK) return fail(&err);
  page.error[0] = '\0';
  return 0;
}

/* A steering agent (not food) drawn within this many pixels of a press is grabbed by it. */
#define GRAB_PX 24.0

/* The steering agent drawn nearest pixel (x, y) within GRAB_PX; -1: none. */
static int agent_at(double x, double y) {
  int best = -1;
  double best_d2 = GRAB_PX * GRAB_PX;
  for (uint32_t d = 0; d < herd_sim_steering_count(page.sim); ++d) {
    const herd_steering_state *a = herd_sim_steering(page.sim, d);
    double px[2];
    if (a->strategy == HERD_STRATEGY_FOOD || !herd_camera_to_pixel(&page.camera, a->pos, page.width, page.height, px))
      continue;
    double d2 = (px[0] - x) * (px[0] - x) + (px[1] - y) * (px[1] - y);
    if (d2 <= best_d2) best_d2 = d2, best = (int)d;
  }
  return best;
}

/* The mouse or a finger on the canvas at pixel (x, y) of its width x height: phase 0 presses,
 * 1 moves, 2 lets go. A press on a dog or shepherd grabs it: while held it heads for the world
 * point under the pointer at its own speed, and goes back to its strategy when let go, as
 * herd view's M hands it to the mouse. A press elsewhere drags the view: pans in 2D, orbits
 * in 3D. Returns the grabbed agent's index, or -1. */
WEB int herd_web_pointer(double x, double y, int phase) {
  static int grabbed = -1;
  static double last[2];
  if (!page.sim) return -1;
  herd_error err;
  if (phase == 0) grabbed = agent_at(x, y), last[0] = x, last[1] = y;
  if (grabbed < 0) {
    if (phase == 1) herd_camera_drag(&page.camera, x - last[0], y - last[1]);
    last[0] = x, last[1] = y;
    return -1;
  }
  int was = grabbed;
  if (phase == 2) {
    grabbed = -1;
    return herd_sim_release(page.sim, (uint32_t)was, &err) == HERD_OK ? was : (fail(&err), -1);
  }
  float world[3];
  herd_camera_to_world(&page.camera, x, y, page.width, page.height, world);
  return herd_sim_steer(page.sim, (uint32_t)grabbed, world, &err) == HERD_OK ? was : (fail(&err), -1);
}

/* The wheel at pixel (x, y): zooms about it (2D), nearer or farther (3D); `notches` > 0 out. */
WEB void herd_web_wheel(double x, double y, double notches) {
  if (page.sim) herd_camera_zoom_at(&page.camera, x, y, page.width, page.height, notches > 0 ? 1.15f : 1.0f / 1.15f);
}

/* F: the view fitted to the flock (and in 3D the world box). */
WEB void herd_web_fit(void) {
  if (page.sim) herd_camera_fit_flock(&page.camera, page.sim, page.width, page.height);
}

/* Draws a frame now, for a screenshot taken before the browser composites it. */
WEB void herd_web_draw(void);

/* Steering agent 0's position, "x y" (or "x y z"), for the page and its test. */
WEB const char *herd_web_dog(void) {
  static char text[96];
  const herd_steering_state *a = page.sim ? herd_sim_steering(page.sim, 0) : NULL;
  if (!a) return "";
  snprintf(text, sizeof text, "%.6g %.6g %.6g", (double)a->pos[0], (double)a->pos[1], (double)a->pos[2]);
  return text;
}

/* The colours the renderer draws with (herd_colors), as JSON, so a test finds things in a
 * picture of the canvas. */
WEB const char *herd_web_colors(void) {
  static char json[512];
  const herd_palette *c = &herd_colors;
  const struct {
    const char *name;
    const uint8_t *rgb;
  } named[] = {{"background", c->background}, {"field", c->field}, {"target", c->target}, {"grazing", c->grazing},
               {"moved", c->moved},           {"dog", c->dog},     {"alert", c->alert}};
  size_t at = 0;
  for (size_t k = 0; k < sizeof named / sizeof named[0]; ++k)
    at += (size_t)snprintf(json + at, sizeof json - at, "%s\"%s\": [%u, %u, %u]", k ? ", " : "{", named[k].name,
                           named[k].rgb[0], named[k].rgb[1], named[k].rgb[2]);
  snprintf(json + at, sizeof json - at, "}");
  return json;
}

static void frame(void) {
  if (!page.sim) return;
  if (!page.paused && herd_sim_outcome(page.sim) == HERD_RUNNING) herd_web_step(page.steps_per_frame);
  herd_web_draw();
}

/* Frames drawn so far (the page's frame rate is their count over a while). */
static unsigned frames_drawn;
WEB unsigned herd_web_frames(void) { return frames_drawn; }

WEB void herd_web_draw(void) {
  if (!page.sim) return;
  ++frames_drawn;
  herd_error err;
  if (herd_renderer_update(page.renderer, page.sim, &err) != HERD_OK) {
    fail(&err);
    return;
  }
  char hud[128];
  snprintf(hud, sizeof hud, "step %u  %s", herd_sim_step_index(page.sim),
           herd_outcome_name(herd_sim_outcome(page.sim)));
  herd_renderer_draw(page.renderer, page.sim, &page.camera, page.width, page.height, hud);
}

int main(void) {
  emscripten_set_main_loop(frame, 0, false); /* each animation frame; main returns at once */
  return 0;
}
