/* herd in a web page (scripts/web.sh): the library's CPU backend and the viewer's renderer,
 * built by emscripten into a module the page drives (web/index.html, web/herd.js). One
 * simulation at a time, drawn each animation frame on the page's canvas through WebGL2; the
 * page calls the functions below (each exported to JavaScript) to start a scenario, run,
 * pause, step, change a parameter or steer a dog, and reads the figures back. What herd view
 * does beyond drawing (selecting a steering agent and steering it by hand, inspecting an
 * agent, stepping a parameter) is its code, src/cli's plain logic over the public API. */
#define _POSIX_C_SOURCE 200809L /* strdup, strtok */
#include <GLFW/glfw3.h>
#include <emscripten/emscripten.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../src/cli/inspect.h"
#include "../src/cli/param_edit.h"
#include "../src/cli/steering_ui.h"
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
  bool plot_shown;
  steering_pick pick; /* Tab, 0-9, M: the steering agent the keys act on, hand control */
  float hand_aim[3];  /* under hand control (M): the world point under the pointer */
  bool hand_aim_set;
  inspector inspect; /* a click on an agent */
  char error[1024];  /* the last refusal, one line */
  char hud[512];
  char details[4096];
  bool in_worker;    /* this module is web/worker.js's: no canvas, it steps for the page */
  char *plot_values; /* in the worker: the plot's values of each step since the last state sent */
  size_t plot_size, plot_used;
  char terms[1024]; /* on the page: the inspected agent's terms as the worker's step gave them */
  /* On the page, summed over the frames it stepped in since the simulation started: its steps'
   * milliseconds, and the frames' (each from its start to the next frame's start). */
  double step_ms_sum, frame_ms_sum;
  unsigned frames_timed;
} page = {.paused = true, .steps_per_frame = 1, .plot_shown = true, .pick = {.selected = -1}};

static int fail(const herd_error *err) {
  snprintf(page.error, sizeof page.error, "%s", err->message);
  return err->status ? err->status : 1;
}

WEB const char *herd_web_error(void) { return page.error; }

/* ---- Changes to the simulation, also sent to the worker ------------------------------------
 * While the page runs, the simulation steps in a Web Worker (web/worker.js, the same module
 * without a canvas) and the page draws the states it sends back (herd_web_show). Every change
 * the page makes to the simulation goes through the functions below: made here at once (so a
 * refusal is seen at once) and, through Module.forward (set by web/page.js while the worker
 * steps), made there too by the same function, before its next step. */
EM_JS(void, forward, (const char *op, const char *text, double a, double b, double c, double d), {
  if (Module.forward) Module.forward(UTF8ToString(op), text ? UTF8ToString(text) : "", a, b, c, d);
});

/* Steering agent `index` heads for `aim` (herd_sim_steer). */
WEB int herd_web_steer(int index, double x, double y, double z) {
  herd_error err;
  float aim[3] = {(float)x, (float)y, (float)z};
  if (!page.sim || herd_sim_steer(page.sim, (uint32_t)index, aim, &err) != HERD_OK) return page.sim ? fail(&err) : 1;
  forward("steer", NULL, index, x, y, z);
  return 0;
}

/* Steering agent `index` goes back to its strategy (herd_sim_release). */
WEB int herd_web_release(int index) {
  herd_error err;
  if (!page.sim || herd_sim_release(page.sim, (uint32_t)index, &err) != HERD_OK) return page.sim ? fail(&err) : 1;
  forward("release", NULL, index, 0, 0, 0);
  return 0;
}

WEB int herd_web_inspect(int id); /* below, with the rest of inspecting */

/* Under M's hand control the selected agent heads for (x, y, z) from the next step on. */
WEB void herd_web_hand(double x, double y, double z) {
  page.hand_aim[0] = (float)x, page.hand_aim[1] = (float)y, page.hand_aim[2] = (float)z;
  page.hand_aim_set = true;
  if (page.pick.manual) forward("hand", NULL, x, y, z, 0);
}

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
  herd_renderer_set_plot(renderer, page.plot_shown ? page.plot : NULL);
  page.paused = true;
  steering_pick_start(&page.pick, sim);
  page.hand_aim_set = false;
  page.inspect = (inspector){0};
  page.step_ms_sum = page.frame_ms_sum = 0, page.frames_timed = 0;
  return 0;
}

/* In the worker: the step's values for the page's live plot, "polarisation milling delivered"
 * lines, sent with the next state (herd_web_take_plot). */
static void record_plot_values(void) {
  float v[HERD_PLOT_SERIES];
  herd_plot_values(page.sim, v);
  size_t need = page.plot_used + 3 * 32;
  if (need > page.plot_size) {
    char *bigger = realloc(page.plot_values, 2 * need);
    if (!bigger) return;
    page.plot_values = bigger, page.plot_size = 2 * need;
  }
  page.plot_used += (size_t)snprintf(page.plot_values + page.plot_used, page.plot_size - page.plot_used,
                                     "%.9g %.9g %.9g\n", v[0], v[1], v[2]);
}

/* n steps now (fewer at the outcome); the steps taken, or -1 after an error. */
WEB int herd_web_step(int n) {
  if (!page.sim) return -1;
  uint32_t done = 0;
  herd_error err;
  for (int k = 0; k < n && herd_sim_outcome(page.sim) == HERD_RUNNING; ++k, ++done) {
    if (page.pick.manual && page.hand_aim_set) steering_pick_steer(&page.pick, page.sim, page.hand_aim);
    if (herd_sim_step(page.sim, &err) != HERD_OK) return fail(&err), -1;
    if (page.plot) herd_plot_observe(page.plot, page.sim);
    if (page.in_worker) record_plot_values();
    page.inspect.terms = NULL; /* this step's own */
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

/* Where world point (x, y, z) is drawn on the canvas, "px py" in pixels from the top left
 * ("-1 -1" behind a 3D camera). */
WEB const char *herd_web_to_pixel(double x, double y, double z) {
  static char text[64];
  float world[3] = {(float)x, (float)y, (float)z};
  double px[2] = {-1, -1};
  if (!herd_camera_to_pixel(&page.camera, world, page.width, page.height, px)) px[0] = px[1] = -1;
  snprintf(text, sizeof text, "%.3f %.3f", px[0], px[1]);
  return text;
}

/* The view's switches, as JSON: the overlays' mask (bit k: F(k+1)), groups, routing arrows,
 * live plot, the selected steering agent and whether it follows the pointer. */
WEB const char *herd_web_view_state(void) {
  static char json[192];
  herd_renderer *r = page.renderer;
  snprintf(json, sizeof json,
           "{\"overlays\": %u, \"groups\": %s, \"route\": %s, \"plot\": %s, \"selected\": %d, \"manual\": %s}",
           r ? herd_renderer_overlays(r) : 0u, r && herd_renderer_groups_shown(r) ? "true" : "false",
           r && herd_renderer_route_shown(r) ? "true" : "false", page.plot_shown ? "true" : "false", page.pick.selected,
           page.pick.manual ? "true" : "false");
  return json;
}

/* Appends printf-style text to a growing buffer; false when out of memory. */
static bool append(char **text, size_t *size, size_t *used, const char *format, double a, double b, double c) {
  int n = snprintf(NULL, 0, format, a, b, c);
  if (*used + (size_t)n + 1 > *size) {
    size_t bigger = 2 * (*used + (size_t)n + 1);
    char *grown = realloc(*text, bigger);
    if (!grown) return false;
    *text = grown, *size = bigger;
  }
  *used += (size_t)snprintf(*text + *used, *size - *used, format, a, b, c);
  return true;
}

/* Where things are, for a test that looks for them in a picture: the first `max` flock agents'
 * positions ([x, y, z] each) and flags, the steering agents', and the goal's centre and
 * radius (negative: none), as JSON. "" when out of memory or on a failed read. */
WEB const char *herd_web_agents(int max) {
  static char *text;
  static size_t size;
  size_t used = 0;
  if (!page.sim) return "";
  herd_scenario_info info = herd_scenario_describe(herd_sim_scenario(page.sim));
  uint32_t n = info.count, shown = max < 0 ? 0 : (uint32_t)max < n ? (uint32_t)max : n;
  float *pos = malloc(((size_t)n + 1) * info.dims * sizeof *pos);
  uint8_t *flags = malloc((size_t)n + 1);
  herd_error err;
  bool ok = pos && flags && herd_sim_read_flock(page.sim, pos, NULL, &err) == HERD_OK &&
            herd_sim_read_flags(page.sim, flags, &err) == HERD_OK;
  ok = ok && append(&text, &size, &used, "{\"flock\": [", 0, 0, 0);
  for (uint32_t i = 0; ok && i < shown; ++i)
    ok = append(&text, &size, &used, i ? ", [%.9g, %.9g, %.9g" : "[%.9g, %.9g, %.9g", pos[(size_t)i * info.dims],
                pos[(size_t)i * info.dims + 1], info.dims == 3 ? pos[(size_t)i * info.dims + 2] : 0.0) &&
         append(&text, &size, &used, ", %.0f]", flags[i], 0, 0);
  ok = ok && append(&text, &size, &used, "], \"steering\": [", 0, 0, 0);
  for (uint32_t d = 0; ok && d < herd_sim_steering_count(page.sim); ++d) {
    const float *at = herd_sim_steering(page.sim, d)->pos;
    ok = append(&text, &size, &used, d ? ", [%.9g, %.9g, %.9g]" : "[%.9g, %.9g, %.9g]", at[0], at[1], at[2]);
  }
  ok = ok &&
       append(&text, &size, &used, "], \"goal\": [%.9g, %.9g, %.9g", info.target_m[0], info.target_m[1],
              info.target_m[2]) &&
       append(&text, &size, &used, "], \"goal_radius\": %.9g, \"dims\": %.0f}", info.goal_radius_m, info.dims, 0);
  free(pos);
  free(flags);
  return ok ? text : "";
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
  forward("param", path, value, 0, 0, 0);
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

/* A press that moves less than this many pixels before it is let go is a click (inspect). */
#define CLICK_PX 3.0

/* The mouse or a finger on the canvas at pixel (x, y) of its width x height: phase 0 presses,
 * 1 moves while pressed, 2 lets go, 3 moves unpressed (a mouse hovering). A press on a dog or
 * shepherd grabs it: while held it heads for the world point under the pointer at its own
 * speed, and goes back to its strategy when let go (unless M gave it to the pointer). A press
 * elsewhere drags the view (pans in 2D, orbits in 3D), or, let go where it was pressed, is a
 * click: it inspects the flock agent under it, or stops inspecting (herd view's click).
 * Under M's hand control the selected agent heads for the pointer wherever it is. Returns the
 * grabbed agent's index, or -1. */
WEB int herd_web_pointer(double x, double y, int phase) {
  static int grabbed = -1;
  static double last[2], pressed_at[2];
  if (!page.sim) return -1;
  float world[3];
  herd_camera_to_world(&page.camera, x, y, page.width, page.height, world);
  herd_web_hand(world[0], world[1], world[2]);
  if (phase == 3) return -1;
  if (phase == 0) grabbed = agent_at(x, y), last[0] = pressed_at[0] = x, last[1] = pressed_at[1] = y;
  if (grabbed < 0) {
    if (phase == 1) herd_camera_drag(&page.camera, x - last[0], y - last[1]);
    if (phase == 2 && fabs(x - pressed_at[0]) + fabs(y - pressed_at[1]) < CLICK_PX)
      herd_web_inspect((int)inspect_nearest(page.sim, &page.camera, page.width, page.height, x, y));
    last[0] = x, last[1] = y;
    return -1;
  }
  int was = grabbed;
  if (phase == 2) {
    grabbed = -1;
    if (page.pick.manual && page.pick.selected == was) return was; /* M's hand control goes on */
    return herd_web_release(was) ? -1 : was;
  }
  return herd_web_steer(grabbed, world[0], world[1], world[2]) ? -1 : was;
}

/* herd view's keys that act on the simulation or the drawing, by the browser's key name: Tab
 * (Shift+Tab: `shift`) and 0-9 select a steering agent, M hands it to the pointer and back, G
 * the groups, A the routing field's arrows, F1-F6 the overlays, L the live plot. Returns what
 * changed in a line for the page ("" for a key that is none of these). */
WEB const char *herd_web_key(const char *key, int shift) {
  static char said[128];
  said[0] = '\0';
  if (!page.sim || !key) return said;
  herd_renderer *r = page.renderer;
  bool digit = key[0] >= '0' && key[0] <= '9' && !key[1];
  int overlay = key[0] == 'F' && key[1] >= '1' && key[1] < '1' + HERD_OVERLAY_COUNT && !key[2] ? key[1] - '1' : -1;
  if (digit || !strcmp(key, "Tab") || !strcmp(key, "m")) {
    forward("key", key, shift, 0, 0, 0);
    if (digit) steering_pick_select(&page.pick, page.sim, key[0] - '0');
    if (key[0] == 'T') steering_pick_next(&page.pick, page.sim, shift ? -1 : 1);
    if (key[0] == 'm') steering_pick_toggle_manual(&page.pick, page.sim);
    if (page.pick.selected < 0) return snprintf(said, sizeof said, "no steering agent to select"), said;
    snprintf(said, sizeof said, "steering agent %d selected%s", page.pick.selected,
             page.pick.manual ? ", following the pointer (M gives it back)" : "");
  } else if (!strcmp(key, "g")) {
    herd_renderer_show_groups(r, !herd_renderer_groups_shown(r));
    snprintf(said, sizeof said, "groups %s", herd_renderer_groups_shown(r) ? "on" : "off");
  } else if (!strcmp(key, "a")) {
    herd_renderer_show_route(r, !herd_renderer_route_shown(r));
    snprintf(said, sizeof said, "routing arrows %s", herd_renderer_route_shown(r) ? "on" : "off");
  } else if (!strcmp(key, "l")) {
    page.plot_shown = !page.plot_shown;
    herd_renderer_set_plot(r, page.plot_shown ? page.plot : NULL);
    snprintf(said, sizeof said, "live plot %s", page.plot_shown ? "on" : "off");
  } else if (overlay >= 0) {
    herd_renderer_set_overlays(r, herd_renderer_overlays(r) ^ (1u << overlay));
    snprintf(said, sizeof said, "overlay %s %s", herd_overlay_name(overlay),
             herd_renderer_overlays(r) & (1u << overlay) ? "on" : "off");
  }
  return said;
}

/* The value a parameter takes from `value` after [ (direction -1) or ] (+1): herd view's step. */
WEB double herd_web_param_stepped(double value, int whole, int direction) {
  return param_edit_stepped(value, whole != 0, direction);
}

/* What the HUD says beyond the figures: the flock's groups, every steering agent (the selected
 * one marked), and the inspected agent with the terms of its update. */
WEB const char *herd_web_details(void) {
  if (!page.sim) return "";
  char groups[160], steering[2048];
  steering_ui_groups(page.sim, false, groups, sizeof groups);
  steering_ui_hud(page.sim, page.pick.selected, page.pick.manual, steering, sizeof steering);
  snprintf(page.details, sizeof page.details, "%s%s%s%s", groups, *groups ? "\n" : "", steering,
           page.inspect.on ? page.inspect.text : "");
  return page.details;
}

/* Inspects flock agent `id` (as a click on it does); -1 (or UINT32_MAX's int) stops. 0, or 1
 * when it does not exist. */
WEB int herd_web_inspect(int id) {
  if (!page.sim) return 1;
  uint32_t count = herd_scenario_describe(herd_sim_scenario(page.sim)).count;
  if (id >= (int64_t)count) return 1;
  inspect_agent(&page.inspect, page.sim, id < 0 ? UINT32_MAX : (uint32_t)id);
  page.inspect.terms = NULL;
  forward("explain", NULL, id < 0 ? -1 : id, 0, 0, 0);
  return 0;
}

/* The inspected agent's id, or -1. */
WEB int herd_web_inspected(void) { return page.inspect.on ? (int)page.inspect.id : -1; }

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
  } named[] = {{"background", c->background}, {"field", c->field},         {"target", c->target},
               {"grazing", c->grazing},       {"moved", c->moved},         {"dog", c->dog},
               {"alert", c->alert},           {"delivered", c->delivered}, {"selected", c->selected}};
  size_t at = 0;
  for (size_t k = 0; k < sizeof named / sizeof named[0]; ++k)
    at += (size_t)snprintf(json + at, sizeof json - at, "%s\"%s\": [%u, %u, %u]", k ? ", " : "{", named[k].name,
                           named[k].rgb[0], named[k].rgb[1], named[k].rgb[2]);
  snprintf(json + at, sizeof json - at, "}");
  return json;
}

/* ---- The hand-over between the page and its worker ------------------------------------------
 * Each state crosses as a checkpoint (docs/checkpoint.md) in the module's memory file system:
 * a sim resumed from it runs on bit for bit as the one that wrote it, so the page's runs stay
 * the program's whichever thread steps them. */
#define CHECKPOINT "/tmp/herd.ckpt"

/* Writes the simulation's state to CHECKPOINT, for the other side. 0, or an error. */
WEB int herd_web_checkpoint(void) {
  herd_error err;
  if (!page.sim) return 1;
  umask(022); /* emscripten's C library starts with 0777 (a stub), which makes every new file unreadable */
  return herd_sim_checkpoint(page.sim, CHECKPOINT, true, &err) == HERD_OK ? 0 : fail(&err);
}

/* The simulation in CHECKPOINT, in place of the one held (whose renderer and view stay). */
static int resume(void) {
  herd_error err;
  herd_sim_desc desc = {.threads = 1, .backend = "cpu"};
  herd_sim *sim = NULL;
  if (herd_sim_resume(&desc, CHECKPOINT, &sim, &err) != HERD_OK) return fail(&err);
  herd_sim_destroy(page.sim);
  page.sim = sim;
  return 0;
}

/* What the worker takes over with the state: the selected steering agent, whether the pointer
 * steers it and where, the inspected agent: "selected manual hand_set x y z inspected". */
WEB const char *herd_web_handover(void) {
  static char text[160];
  snprintf(text, sizeof text, "%d %d %d %.9g %.9g %.9g %d", page.pick.selected, page.pick.manual, page.hand_aim_set,
           page.hand_aim[0], page.hand_aim[1], page.hand_aim[2], page.inspect.on ? (int)page.inspect.id : -1);
  return text;
}

/* The worker: takes over the simulation in CHECKPOINT with the page's herd_web_handover. */
WEB int herd_web_take_over(int selected, int manual, int hand_set, double x, double y, double z, int inspected) {
  page.in_worker = true, page.paused = true, page.plot_used = 0;
  int status = resume();
  if (status) return status;
  page.pick = (steering_pick){.selected = selected, .manual = manual != 0};
  page.hand_aim[0] = (float)x, page.hand_aim[1] = (float)y, page.hand_aim[2] = (float)z;
  page.hand_aim_set = hand_set != 0;
  inspect_agent(&page.inspect, page.sim, inspected < 0 ? UINT32_MAX : (uint32_t)inspected);
  return 0;
}

/* The worker: the plot's values since the last call (herd_web_step's lines), then forgets them. */
WEB const char *herd_web_take_plot(void) {
  static char empty[1];
  if (!page.plot_used) return empty;
  page.plot_used = 0;
  return page.plot_values;
}

/* The worker: the inspected agent's terms after its last step ("" when none is inspected). */
WEB const char *herd_web_terms(void) {
  static char text[1024];
  text[0] = '\0';
  if (page.sim && page.inspect.on) inspect_terms(&page.inspect, page.sim, text, sizeof text);
  return text;
}

/* The page: shows the worker's state in CHECKPOINT, with the plot's values of the steps it took
 * (herd_web_take_plot's) and the inspected agent's terms. `authority`: the worker has stopped
 * and the page steps on from here (so its own next step explains the inspected agent). */
WEB int herd_web_show(int authority, const char *terms, const char *plot) {
  int status = resume();
  if (status) return status;
  for (const char *at = plot; at && *at;) {
    const char *line = at;
    char *end;
    float v[HERD_PLOT_SERIES];
    for (int k = 0; k < HERD_PLOT_SERIES; ++k) v[k] = strtof(at, &end), at = end;
    if (at == line) break; /* not numbers: not the worker's lines */
    if (page.plot) herd_plot_add(page.plot, v);
    while (*at == '\n' || *at == ' ') ++at;
  }
  snprintf(page.terms, sizeof page.terms, "%s", terms ? terms : "");
  page.inspect.terms = page.inspect.on && page.terms[0] ? page.terms : NULL;
  herd_error err;
  if (authority && page.inspect.on) herd_sim_explain(page.sim, page.inspect.id, &err);
  return 0;
}

/* Each animation frame: the page's frame hook (Module.onFrame: while the worker steps, it asks
 * for the frame's steps), a step of its own when it steps the simulation itself, the drawing. */
EM_JS(void, frame_hook, (void), {
  if (Module.onFrame) Module.onFrame();
});

/* "step_ms frame_ms frames": the milliseconds the page's own steps took a frame and the frames
 * they were in took (start to next start: the steps, the drawing, the browser's work), each the
 * mean over the frames it stepped in since the simulation started, and how many those were. */
WEB const char *herd_web_frame_times(void) {
  static char text[96];
  unsigned n = page.frames_timed ? page.frames_timed : 1;
  snprintf(text, sizeof text, "%.3f %.3f %u", page.step_ms_sum / n, page.frame_ms_sum / n, page.frames_timed);
  return text;
}

static void time_frame(double step_ms, double frame_ms) {
  page.step_ms_sum += step_ms, page.frame_ms_sum += frame_ms;
  ++page.frames_timed;
}

static void frame(void) {
  static double last_start, last_step_ms = -1; /* the last frame's start, and its steps' (-1: none) */
  double start = emscripten_get_now();
  if (last_step_ms >= 0 && page.sim) time_frame(last_step_ms, start - last_start);
  last_start = start, last_step_ms = -1;
  if (!page.sim) return;
  frame_hook();
  if (!page.paused && herd_sim_outcome(page.sim) == HERD_RUNNING) {
    herd_web_step(page.steps_per_frame);
    last_step_ms = emscripten_get_now() - start;
  }
  herd_web_draw();
}

/* Frames drawn so far (the page's frame rate is their count over a while). */
static unsigned frames_drawn;
WEB unsigned herd_web_frames(void) { return frames_drawn; }

WEB void herd_web_draw(void) {
  if (!page.sim || !page.renderer) return;
  ++frames_drawn;
  herd_error err;
  if (herd_renderer_update(page.renderer, page.sim, &err) != HERD_OK) {
    fail(&err);
    return;
  }
  herd_renderer_select(page.renderer, page.pick.selected);
  inspect_update(&page.inspect, page.sim, page.renderer);
  char hud[128];
  snprintf(hud, sizeof hud, "step %u  %s", herd_sim_step_index(page.sim),
           herd_outcome_name(herd_sim_outcome(page.sim)));
  herd_renderer_draw(page.renderer, page.sim, &page.camera, page.width, page.height, hud);
}

int main(void) {
  emscripten_set_main_loop(frame, 0, false); /* each animation frame; main returns at once */
  return 0;
}
