/* `herd view`: the flock in a window, steered by hand if you like; or, with --screenshot,
 * one rendered frame written to a PNG with no interaction. */
#define _POSIX_C_SOURCE 200809L
#include <GL/glew.h>
/* glew.h before any other GL header. */
#include <GLFW/glfw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../util/outfile.h"
#include "claims.h"
#include "cli.h"
#include "inspect.h"
#include "options.h"
#include "param_edit.h"
#include "session.h"
#include "view_marks.h"

static const char view_usage[] =
    "usage: herd view [SCENARIO] [OPTIONS]\n"
    "\n"
    "Shows the flock in a window (default: the built-in Strömbom et al. 2014 scenario).\n"
    "\n"
    "options (--opt=VALUE or --opt VALUE; -r7 or -r 7; a unique abbreviation is enough):\n"
    "  -r, --seed S, -s, --steps N, --set PATH=VALUE, --set-at STEP:PATH=VALUE\n"
    "                     as for herd run (--steps: the step limit; with --screenshot, the\n"
    "                     steps taken before the picture: 0 for the first state)\n"
    "  --backend B, --device D, -t, --threads T    as for herd run\n"
    "  --no-share         copy the flock to OpenGL each frame even if the device could share\n"
    "  --size WxH         window or picture size in pixels (default 1280x800)\n"
    "  --screenshot FILE  run --steps steps, render one frame into FILE (PNG) and exit\n"
    "  --hud              draw the HUD text into the --screenshot too\n"
    "  --force            let --screenshot replace an existing file\n"
    "  --frames K         draw K frames (one step each unless paused), print the frame rate, exit\n"
    "  --route            show the routing field's arrows from the start (key A; in a world\n"
    "                     with walls, water or pens; also in the --screenshot)\n"
    "  --overlays LIST    overlays on from the start (keys F1-F6), comma-separated:\n"
    "                     " HERD_OVERLAY_NAMES
    "\n"
    "  --camera SPEC      a fixed camera: x,y,width_m (2D: the view's centre and width in\n"
    "                     metres) or fit-field (the world's box; 3D: from the default orbit)\n"
    "  --inspect ID       inspect flock agent ID in the --screenshot (as a click does): its\n"
    "                     neighbours ringed, its terms printed (and in the HUD with --hud)\n"
    "  --log-edits FILE   write each parameter change (keys P, [, ]) to FILE as CSV: step,path,old,new\n"
    "  -q, --quiet        no notes and no screenshot line (the --frames line stays)\n"
    "  -h, --help, -V, --version, --   as for herd run\n"
    "\n"
    "keys: Space pause/resume, . one step, + / - steps per frame, R restart with a new seed,\n"
    "F fit the view to the flock, Tab / Shift+Tab or 0-9 select a steering agent (ringed; 0-9:\n"
    "its number in the HUD), M hand the selected agent to the mouse and back to its strategy,\n"
    "G show/hide the flock's groups (colours, circles), A show/hide the routing field's arrows,\n"
    "F1-F6 overlays: aims and modes, centroid, cohesion circle, reaction circles, farthest agent,\n"
    "scale bar,\n"
    "V start/stop recording the view to herd-DATE-TIME.mp4, P pick a model parameter, [ / ] lower /\n"
    "raise it by 10 % (logged to stderr), L live plot of the order parameters, H help, Esc quit;\n"
    "2D: the mouse wheel zooms about the cursor, dragging pans; 3D (world.dims 3): dragging\n"
    "orbits the camera about the middle of the view, the wheel moves it nearer or farther.\n";

static const char key_help[] =
    "\nSpace pause/resume   .  one step   + / -  steps per frame\n"
    "R restart (new seed)   F fit view\n"
    "Tab / Shift+Tab / 0-9 select a steering agent   M it follows the mouse / back to its strategy\n"
    "G groups' colours and circles on/off   A routing field's arrows on/off\n"
    "V start/stop recording to herd-DATE-TIME.mp4\n"
    "P pick a parameter   [ / ] lower / raise it 10 %   L live plot on/off\n"
    "click an agent: inspect it (its neighbours, the terms of its update); click empty space: stop\n"
    "F1 aim+mode  F2 centroid  F3 cohesion f(N)  F4 reaction r_s  F5 farthest  F6 scale bar\n"
    "wheel zoom   drag pan (3D: orbit)   H hide help   Esc quit";

typedef struct view_opts {
  scenario_args scenario;
  backend_args backend;
  int width, height;
  long frames; /* --frames: a benchmark of K frames; 0 = until the user quits */
  const char *screenshot;
  const char *log_edits; /* --log-edits FILE */
  bool force, steps_given, hud, route;
  uint32_t steps;            /* --steps: the step limit, or with --screenshot the steps before it */
  char steps_typed[32];      /* how --steps was written, for its message */
  uint32_t screenshot_steps; /* --steps with --screenshot: steps before the picture */
  view_marks marks;          /* --overlays, --camera */
  long inspect;              /* --inspect ID: the agent inspected in the --screenshot; -1 none */
} view_opts;

typedef struct viewer {
  view_opts *opts;
  gl_session g;
  herd_camera cam;
  bool paused, step_once, help, dragging;
  steering_pick pick; /* the steering agent the keys act on; whether the mouse steers it */
  int steps_per_frame;
  double drag_x, drag_y;
  double fps, steps_per_s, meter_start;
  herd_recorder *recorder; /* V: recording the window's view */
  char recording[64];
  int record_w, record_h;
  uint32_t meter_frames, meter_steps;
  param_edit edit; /* P, [, ]: the model's parameters changed during the run */
  herd_plot *plot; /* L: the live plot, fed every step */
  bool plot_shown;
  inspector inspect;       /* a click on an agent: src/cli/inspect.c */
  double press_x, press_y; /* where the left button went down: a click, or a drag */
} viewer;

/* ---- Options ------------------------------------------------------------------------------ */

enum {
  OPT_SIZE = OPT_COMMAND_FIRST,
  OPT_SCREENSHOT,
  OPT_FORCE,
  OPT_HUD,
  OPT_ROUTE,
  OPT_FRAMES,
  OPT_LOG_EDITS,
  OPT_INSPECT
};

static const struct option view_own_options[] = {
    {"size", required_argument, NULL, OPT_SIZE},
    {"screenshot", required_argument, NULL, OPT_SCREENSHOT},
    {"force", no_argument, NULL, OPT_FORCE},
    {"hud", no_argument, NULL, OPT_HUD},
    {"route", no_argument, NULL, OPT_ROUTE},
    {"frames", required_argument, NULL, OPT_FRAMES},
    {"log-edits", required_argument, NULL, OPT_LOG_EDITS},
    {"inspect", required_argument, NULL, OPT_INSPECT},
    {0, 0, 0, 0},
};

/* --steps is the viewer's own: 0 is allowed (a --screenshot of the first state), which no
 * scenario's max_steps is. */
static int take_steps(view_opts *o, const char *typed, const char *value) {
  unsigned long long n = 0;
  if (cli_parse_integer(typed, value, 0, 1000000000, &n)) return EXIT_BAD_INPUT;
  o->steps = (uint32_t)n, o->steps_given = true;
  snprintf(o->steps_typed, sizeof o->steps_typed, "%s", typed);
  return CLI_GO_ON;
}

static int take_view(void *ctx, int code, const char *typed, const char *value) {
  view_opts *o = ctx;
  unsigned long long n = 0;
  switch (code) {
    case OPT_STEPS: return take_steps(o, typed, value);
    case OPT_SIZE: return parse_size(typed, value, &o->width, &o->height) ? EXIT_BAD_INPUT : CLI_GO_ON;
    case OPT_SCREENSHOT: o->screenshot = value; return CLI_GO_ON;
    case OPT_FORCE: o->force = true; return CLI_GO_ON;
    case OPT_HUD: o->hud = true; return CLI_GO_ON;
    case OPT_ROUTE: o->route = true; return CLI_GO_ON;
    case OPT_LOG_EDITS: o->log_edits = value; return CLI_GO_ON;
    case OPT_INSPECT: return view_marks_agent(typed, value, &o->inspect) ? EXIT_BAD_INPUT : CLI_GO_ON;
    case OPT_FRAMES:
      if (cli_parse_integer(typed, value, 1, 100000000, &n)) return EXIT_BAD_INPUT;
      o->frames = (long)n;
      return CLI_GO_ON;
  }
  int status = scenario_args_option(&o->scenario, code, typed, value);
  if (status == CLI_NOT_MINE) status = backend_args_option(&o->backend, code, typed, value);
  return status != CLI_NOT_MINE ? status : view_marks_option(&o->marks, code, value);
}

static int parse_view(int argc, char **argv, view_opts *o) {
  static const struct option *const tables[] = {cli_scenario_options, cli_backend_options, cli_share_options,
                                                view_marks_options,   view_own_options,    NULL};
  cli_command c = {.name = "view", .usage = view_usage, .tables = tables, .take = take_view, .ctx = o};
  int status = cli_parse(&c, argc, argv);
  if (status == CLI_GO_ON && o->steps_given && o->steps == 0 && !o->screenshot)
    return cli_fail(EXIT_BAD_INPUT, "%s: 0 is allowed only with --screenshot (a picture of the first state)",
                    o->steps_typed);
  return status;
}

/* ---- The simulation inside the viewer ---------------------------------------------------- */

/* Steps the screenshot's --steps (the scenario's step limit), stopping early on success. */
static int run_steps(viewer *v, uint32_t steps) {
  herd_error err;
  while (herd_sim_step_index(v->g.sim) < steps && herd_sim_outcome(v->g.sim) == HERD_RUNNING && !cli_stop)
    if (herd_sim_step(v->g.sim, &err) != HERD_OK) return cli_error(&err);
  return cli_stop ? 128 + cli_stop : 0;
}

static void hud_text(const viewer *v, char *out, size_t size) {
  char rates[80] = "", status[HUD_TEXT_MAX - sizeof key_help - 100];
  if (v->fps > 0) snprintf(rates, sizeof rates, "  %.0f steps/s  %.0f fps", v->steps_per_s, v->fps);
  gl_session_status(&v->g, rates, &v->pick, status, sizeof status);
  char param[200] = "";
  if (!v->opts->screenshot) param_edit_hud(&v->edit, v->g.sim, param, sizeof param);
  snprintf(out, size, "%s\nseed %llu  %d step%s/frame%s  %s\n%s", status,
           (unsigned long long)herd_scenario_describe(v->g.sc).seed, v->steps_per_frame,
           v->steps_per_frame == 1 ? "" : "s", v->paused ? "  PAUSED" : "", v->help ? key_help : "H help", param);
  size_t used = strlen(out);
  if (used < size) snprintf(out + used, size - used, "%s", v->inspect.text);
}

/* ---- Screenshot ---------------------------------------------------------------------------- */

/* What was written and how to measure it: the scale and corner in 2D, the orbit in 3D. */
static void print_camera(const char *path, const herd_camera *cam, int w, int h, uint32_t step) {
  printf("screenshot: %s, %d x %d pixels, step %u, ", cli_shown(path), w, h, step);
  if (cam->orbit) {
    printf("camera yaw %.1f deg, pitch %.1f deg, %.3f m from (%.3f, %.3f, %.3f) m, field of view %.0f deg high\n",
           cam->yaw_deg, cam->pitch_deg, cam->distance_m, cam->target[0], cam->target[1], cam->target[2],
           HERD_CAMERA_FOV_Y_DEG);
    return;
  }
  float origin[3];
  herd_camera_to_world(cam, 0, 0, w, h, origin);
  printf("%.4f m per pixel, pixel (0, 0) at world (%.3f, %.3f) m\n", cam->metres_per_px, origin[0], origin[1]);
}

static int screenshot(viewer *v) {
  if (v->opts->inspect >= 0) inspect_agent(&v->inspect, v->g.sim, (uint32_t)v->opts->inspect);
  int status = run_steps(v, v->opts->screenshot_steps);
  if (v->opts->inspect >= 0) inspect_update(&v->inspect, v->g.sim, v->g.renderer);
  if (v->opts->inspect >= 0) printf("inspect:%s", v->inspect.text);
  if (status) return status;
  herd_error err;
  int w = v->opts->width, h = v->opts->height;
  uint8_t *rgba = malloc((size_t)w * (size_t)h * 4);
  if (!rgba) return cli_fail(1, "out of memory for a %d x %d picture", w, h);
  char hud[HUD_TEXT_MAX] = "";
  if (v->opts->hud) hud_text(v, hud, sizeof hud);
  herd_camera cam = view_marks_camera_for(&v->opts->marks, v->g.sim, w, h, hud);
  herd_status st = herd_renderer_update(v->g.renderer, v->g.sim, &err);
  if (st == HERD_OK) st = herd_renderer_snapshot(v->g.renderer, v->g.sim, &cam, w, h, hud, rgba, &err);
  if (st == HERD_OK) st = herd_write_png("--screenshot", v->opts->screenshot, rgba, w, h, v->opts->force, &err);
  free(rgba);
  if (st != HERD_OK) return cli_error(&err);
  if (!cli_quiet) print_camera(v->opts->screenshot, &cam, w, h, herd_sim_step_index(v->g.sim));
  return 0;
}

/* ---- Interaction ---------------------------------------------------------------------------- */

static void fit(viewer *v) {
  int w, h;
  glfwGetFramebufferSize(herd_window_glfw(v->g.win), &w, &h);
  herd_camera_fit_flock(&v->cam, v->g.sim, w, h);
}

static void restart(viewer *v) {
  herd_sim_destroy(v->g.sim);
  v->g.sim = NULL;
  char seed[32];
  herd_error err;
  snprintf(seed, sizeof seed, "%llu", (unsigned long long)herd_scenario_describe(v->g.sc).seed + 1);
  bool seeded = herd_scenario_set(v->g.sc, "seed", seed, &err) == HERD_OK;
  if (!seeded) cli_error(&err);
  if (!seeded || gl_session_start_sim(&v->g) != 0) {
    glfwSetWindowShouldClose(herd_window_glfw(v->g.win), GLFW_TRUE);
    return;
  }
  steering_pick_restart(&v->pick, v->g.sim);
  printf("herd view: restarted with seed %llu\n", (unsigned long long)herd_scenario_describe(v->g.sc).seed);
}

/* V: starts recording the window's view to a new timestamped file, or stops it. */
static void toggle_recording(viewer *v) {
  herd_error err;
  if (v->recorder) {
    uint32_t frames = 0;
    herd_status st = herd_recorder_close(v->recorder, &frames, &err);
    v->recorder = NULL;
    if (st != HERD_OK)
      fprintf(stderr, "herd: recording failed: %s\n", err.message);
    else
      printf("herd view: recorded %u frames to %s\n", frames, v->recording);
    return;
  }
  time_t now = time(NULL);
  struct tm local;
  localtime_r(&now, &local);
  strftime(v->recording, sizeof v->recording, "herd-%Y%m%d-%H%M%S.mp4", &local);
  int fw, fh;
  glfwGetFramebufferSize(herd_window_glfw(v->g.win), &fw, &fh);
  /* H.264 in yuv420p wants even sizes; the window may be odd. */
  v->record_w = fw & ~1, v->record_h = fh & ~1;
  herd_recorder_desc d = {.path = v->recording, .width = v->record_w, .height = v->record_h, .fps = 30};
  if (herd_recorder_check(&d, &err) != HERD_OK || herd_recorder_open(&d, &v->recorder, &err) != HERD_OK) {
    fprintf(stderr, "herd: cannot record: %s\n", err.message);
    v->recorder = NULL;
    return;
  }
  printf("herd view: recording to %s (press V again to stop)\n", v->recording);
}

/* The frame just drawn (the back buffer) into the recording. */
static void capture_window(viewer *v) {
  if (!v->recorder) return;
  herd_error err;
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  glReadBuffer(GL_BACK);
  if (herd_recorder_capture(v->recorder, &err) != HERD_OK) {
    fprintf(stderr, "herd: recording stopped: %s\n", err.message);
    uint32_t frames;
    herd_recorder_close(v->recorder, &frames, &err);
    v->recorder = NULL;
  }
}

/* L: the live plot on or off (it is fed every step either way). */
static void toggle_plot(viewer *v) {
  v->plot_shown = !v->plot_shown && v->plot;
  herd_renderer_set_plot(v->g.renderer, v->plot_shown ? v->plot : NULL);
}

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods) {
  (void)scancode;
  viewer *v = glfwGetWindowUserPointer(w);
  if (action == GLFW_RELEASE) return;
  if (key >= GLFW_KEY_0 && key <= GLFW_KEY_9) steering_pick_select(&v->pick, v->g.sim, key - GLFW_KEY_0);
  if (key >= GLFW_KEY_F1 && key < GLFW_KEY_F1 + HERD_OVERLAY_COUNT) view_marks_toggle(v->g.renderer, key - GLFW_KEY_F1);
  switch (key) {
    case GLFW_KEY_ESCAPE: glfwSetWindowShouldClose(w, GLFW_TRUE); break;
    case GLFW_KEY_SPACE: v->paused = !v->paused; break;
    case GLFW_KEY_PERIOD: v->step_once = true, v->paused = true; break;
    case GLFW_KEY_EQUAL:
    case GLFW_KEY_KP_ADD: v->steps_per_frame = v->steps_per_frame < 1024 ? v->steps_per_frame * 2 : 1024; break;
    case GLFW_KEY_MINUS:
    case GLFW_KEY_KP_SUBTRACT: v->steps_per_frame = v->steps_per_frame > 1 ? v->steps_per_frame / 2 : 1; break;
    case GLFW_KEY_R: restart(v); break;
    case GLFW_KEY_F: fit(v); break;
    case GLFW_KEY_H: v->help = !v->help; break;
    case GLFW_KEY_V: toggle_recording(v); break;
    case GLFW_KEY_A: herd_renderer_show_route(v->g.renderer, !herd_renderer_route_shown(v->g.renderer)); break;
    case GLFW_KEY_G: herd_renderer_show_groups(v->g.renderer, !herd_renderer_groups_shown(v->g.renderer)); break;
    case GLFW_KEY_TAB: steering_pick_next(&v->pick, v->g.sim, mods & GLFW_MOD_SHIFT ? -1 : 1); break;
    case GLFW_KEY_M: steering_pick_toggle_manual(&v->pick, v->g.sim); break;
    case GLFW_KEY_P: param_edit_next(&v->edit, v->g.sim); break;
    case GLFW_KEY_LEFT_BRACKET: param_edit_change(&v->edit, v->g.sim, -1); break;
    case GLFW_KEY_RIGHT_BRACKET: param_edit_change(&v->edit, v->g.sim, +1); break;
    case GLFW_KEY_L: toggle_plot(v); break;
    default: break;
  }
}

static void on_scroll(GLFWwindow *w, double dx, double dy) {
  (void)dx;
  viewer *v = glfwGetWindowUserPointer(w);
  double x, y;
  int fw, fh, ww, wh;
  glfwGetCursorPos(w, &x, &y);
  glfwGetFramebufferSize(w, &fw, &fh);
  glfwGetWindowSize(w, &ww, &wh);
  double sx = ww ? (double)fw / ww : 1.0, sy = wh ? (double)fh / wh : 1.0;
  herd_camera_zoom_at(&v->cam, x * sx, y * sy, fw, fh, dy > 0 ? 0.85f : 1.0f / 0.85f);
}

/* A click (no drag): inspect the agent under the cursor, or stop when none is there. */
static void click(viewer *v) {
  GLFWwindow *w = herd_window_glfw(v->g.win);
  int fw, fh, ww, wh;
  glfwGetFramebufferSize(w, &fw, &fh);
  glfwGetWindowSize(w, &ww, &wh);
  inspect_pick(&v->inspect, v->g.sim, &v->cam, fw, fh, v->press_x * (ww ? (double)fw / ww : 1.0),
               v->press_y * (wh ? (double)fh / wh : 1.0));
}

static void on_button(GLFWwindow *w, int button, int action, int mods) {
  (void)mods;
  viewer *v = glfwGetWindowUserPointer(w);
  if (button != GLFW_MOUSE_BUTTON_LEFT) return;
  v->dragging = action == GLFW_PRESS;
  glfwGetCursorPos(w, &v->drag_x, &v->drag_y);
  if (action == GLFW_PRESS) v->press_x = v->drag_x, v->press_y = v->drag_y;
  if (action == GLFW_RELEASE && fabs(v->drag_x - v->press_x) + fabs(v->drag_y - v->press_y) < 3.0) click(v);
}

static void on_cursor(GLFWwindow *w, double x, double y) {
  viewer *v = glfwGetWindowUserPointer(w);
  if (!v->dragging) return;
  int fw, fh, ww, wh;
  glfwGetFramebufferSize(w, &fw, &fh);
  glfwGetWindowSize(w, &ww, &wh);
  herd_camera_drag(&v->cam, (x - v->drag_x) * (ww ? (double)fw / ww : 1.0),
                   (y - v->drag_y) * (wh ? (double)fh / wh : 1.0));
  v->drag_x = x, v->drag_y = y;
}

/* The agent under hand control heads for the world point under the cursor (in 3D, on the plane
 * through the middle of the view that faces the camera). */
static void steer_to_cursor(viewer *v) {
  GLFWwindow *w = herd_window_glfw(v->g.win);
  double x, y;
  int fw, fh, ww, wh;
  glfwGetCursorPos(w, &x, &y);
  glfwGetFramebufferSize(w, &fw, &fh);
  glfwGetWindowSize(w, &ww, &wh);
  float world[3];
  herd_camera_to_world(&v->cam, x * (ww ? (double)fw / ww : 1.0), y * (wh ? (double)fh / wh : 1.0), fw, fh, world);
  steering_pick_steer(&v->pick, v->g.sim, world);
}

static int advance(viewer *v) {
  herd_error err;
  bool go = !v->paused || v->step_once;
  int steps = v->step_once ? 1 : v->steps_per_frame;
  v->step_once = false;
  if (!go || herd_sim_outcome(v->g.sim) != HERD_RUNNING) return 0;
  if (v->g.share) glFinish(); /* OpenCL may take the shared buffers only once GL is done with them */
  for (int k = 0; k < steps && herd_sim_outcome(v->g.sim) == HERD_RUNNING; ++k) {
    if (v->pick.manual) steer_to_cursor(v);
    if (herd_sim_step(v->g.sim, &err) != HERD_OK) return err.status == HERD_E_INTERRUPTED ? 0 : cli_error(&err);
    ++v->meter_steps;
    if (v->plot) herd_plot_observe(v->plot, v->g.sim);
  }
  return 0;
}

static void measure(viewer *v) {
  double now = glfwGetTime();
  ++v->meter_frames;
  if (now - v->meter_start < 0.5) return;
  v->fps = v->meter_frames / (now - v->meter_start);
  v->steps_per_s = v->meter_steps / (now - v->meter_start);
  v->meter_frames = v->meter_steps = 0;
  v->meter_start = now;
  char title[160];
  snprintf(title, sizeof title, "herd: step %u, %.0f fps, %.0f steps/s", herd_sim_step_index(v->g.sim), v->fps,
           v->steps_per_s);
  glfwSetWindowTitle(herd_window_glfw(v->g.win), title);
}

static int interact(viewer *v) {
  GLFWwindow *w = herd_window_glfw(v->g.win);
  glfwSetWindowUserPointer(w, v);
  glfwSetKeyCallback(w, on_key);
  glfwSetScrollCallback(w, on_scroll);
  glfwSetMouseButtonCallback(w, on_button);
  glfwSetCursorPosCallback(w, on_cursor);
  int fw, fh;
  glfwGetFramebufferSize(w, &fw, &fh);
  char hud[HUD_TEXT_MAX];
  hud_text(v, hud, sizeof hud);
  v->cam = view_marks_camera_for(&v->opts->marks, v->g.sim, fw, fh, hud);
  v->meter_start = glfwGetTime();
  herd_error err;
  double start = glfwGetTime();
  uint32_t first_step = herd_sim_step_index(v->g.sim);
  for (long frame = 0; !glfwWindowShouldClose(w) && !cli_stop && (v->opts->frames == 0 || frame < v->opts->frames);
       ++frame) {
    int status = advance(v);
    if (status) return status;
    if (herd_renderer_update(v->g.renderer, v->g.sim, &err) != HERD_OK) return cli_fail(1, "%s", err.message);
    glfwGetFramebufferSize(w, &fw, &fh);
    herd_renderer_select(v->g.renderer, v->pick.selected);
    inspect_update(&v->inspect, v->g.sim, v->g.renderer);
    hud_text(v, hud, sizeof hud);
    herd_renderer_draw(v->g.renderer, v->g.sim, &v->cam, fw, fh, hud);
    capture_window(v);
    glfwSwapBuffers(w);
    glfwPollEvents();
    measure(v);
  }
  if (v->recorder) toggle_recording(v); /* quitting, or Ctrl-C, finishes the video */
  if (cli_stop) return 128 + cli_stop;
  if (v->opts->frames) {
    glFinish();
    double seconds = glfwGetTime() - start;
    printf("frames: %ld in %.3f s, %.1f frames/s, %.1f steps/s (%u agents, %s)\n", v->opts->frames, seconds,
           v->opts->frames / seconds, (herd_sim_step_index(v->g.sim) - first_step) / seconds,
           herd_scenario_describe(v->g.sc).count, v->g.share_why);
  }
  return 0;
}

/* The window's session with the parameter edits logged and the live plot fed. */
static int edit_and_interact(viewer *v) {
  herd_error err;
  if (param_edit_open(&v->edit, v->opts->log_edits, v->opts->force, &err) != HERD_OK) return cli_error(&err);
  v->plot = herd_plot_create();
  if (v->plot) herd_plot_observe(v->plot, v->g.sim);
  int status = interact(v);
  herd_renderer_set_plot(v->g.renderer, NULL);
  herd_plot_destroy(v->plot);
  if (param_edit_close(&v->edit, &err) != HERD_OK) return status ? status : cli_error(&err);
  if (v->opts->log_edits) printf("herd view: %u parameter edits in %s\n", v->edit.edits, cli_shown(v->opts->log_edits));
  return status;
}

/* ---- The command ------------------------------------------------------------------------------ */

static int open_view(viewer *v) {
  view_opts *o = v->opts;
  gl_session_desc d = {.backend = o->backend, .width = o->width, .height = o->height, .hidden = o->screenshot != NULL};
  int status = gl_session_open(&v->g, &d);
  if (status == 0) herd_renderer_show_route(v->g.renderer, o->route);
  if (status == 0) herd_renderer_set_overlays(v->g.renderer, o->marks.overlays);
  if (status == 0 && !o->screenshot) steering_pick_start(&v->pick, v->g.sim); /* a screenshot selects none */
  if (status == 0 && !o->screenshot)
    if (!cli_quiet)
      printf("herd view: %s (%s); buffers %s\n", herd_sim_backend(v->g.sim), herd_sim_device(v->g.sim), v->g.share_why);
  return status;
}

int cmd_view(int argc, char **argv) {
  view_opts o = {.width = 1280, .height = 800, .inspect = -1};
  viewer v = {.opts = &o, .steps_per_frame = 1, .pick = {.selected = -1}, .edit = {.selected = -1}};
  cli_catch_signals();
  int status = parse_view(argc, argv, &o);
  herd_error err;
  if (status == -1 &&
      herd_scenario_load(o.scenario.path, o.scenario.sets, o.scenario.set_count, &v.g.sc, &err) != HERD_OK)
    status = cli_error(&err);
  if (status == -1) status = view_marks_check(&o.marks, v.g.sc) ? EXIT_BAD_INPUT : -1;
  uint32_t count = status == -1 ? herd_scenario_describe(v.g.sc).count : 0;
  if (status == -1 && o.inspect >= (long)count)
    status = cli_fail(EXIT_BAD_INPUT, "--inspect: agent %ld does not exist (allowed: 0 to %u)", o.inspect, count - 1);
  cli_claims files = {.force = o.force};
  if (status == -1 &&
      (cli_claim_input(&files, "the scenario", o.scenario.path) ||
       cli_claim_output(&files, "--screenshot", o.screenshot) || cli_claim_output(&files, "--log-edits", o.log_edits)))
    status = EXIT_BAD_INPUT;
  if (status == -1 && o.screenshot && herd_outfile_check("--screenshot", o.screenshot, o.force, &err) != HERD_OK)
    status = cli_error(&err);
  if (status == -1 && o.log_edits && o.screenshot)
    status = cli_fail(EXIT_BAD_INPUT, "--log-edits: a --screenshot makes no edits; give one or the other");
  if (status == -1 && o.log_edits && herd_outfile_check("--log-edits", o.log_edits, o.force, &err) != HERD_OK)
    status = cli_error(&err);
  if (status == -1 && o.screenshot) {
    /* --steps counts the steps before the picture (none without it), not a step limit. */
    o.screenshot_steps = o.steps_given ? o.steps : 0;
    if (herd_scenario_set(v.g.sc, "max_steps", "1000000000", &err) != HERD_OK) status = cli_error(&err);
  } else if (status == -1 && o.steps_given) {
    char steps[32];
    snprintf(steps, sizeof steps, "%u", o.steps);
    if (herd_scenario_set(v.g.sc, "max_steps", steps, &err) != HERD_OK) status = cli_error(&err);
  }
  if (status == -1) {
    status = open_view(&v);
    if (status == 0) cli_begin_output();
    if (status == 0 && cli_stop) status = 128 + cli_stop;
    if (status == 0) status = o.screenshot ? screenshot(&v) : edit_and_interact(&v);
  }
  gl_session_close(&v.g);
  scenario_args_free(&o.scenario);
  return status == -1 ? 0 : status;
}
