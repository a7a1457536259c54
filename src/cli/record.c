/* `herd record`: a run rendered offscreen, one frame every K steps, piped to ffmpeg. The
 * frames depend only on the scenario, seed and backend, never on wall-clock time. */
#define _POSIX_C_SOURCE 200809L
#include <GL/glew.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "session.h"
#include "view_marks.h"

static const char record_usage[] =
    "usage: herd record [SCENARIO] -o FILE [OPTIONS]\n"
    "\n"
    "Renders a run offscreen and writes it as a video: .mp4 (H.264, yuv420p: plays in\n"
    "browsers), .webm (VP9) or .gif (with a generated palette). Needs ffmpeg and a display\n"
    "(xvfb-run -a herd record ... on a server).\n"
    "\n"
    "options:\n"
    "  -o FILE            the video to write (never replaced unless --force)\n"
    "  --size WxH         frame size in pixels (default 1280x720)\n"
    "  --fps F            frames per second of the video (default 30)\n"
    "  --every K          one frame every K simulation steps (default 1)\n"
    "  --steps N          record N steps (stops earlier if the flock is herded)\n"
    "  --until-done       record until herded or the scenario's max_steps (the default)\n"
    "  --hud              draw the HUD (step, N, delivered, dog mode, backend) on the frames\n"
    "  --overlays LIST    marks to draw: " HERD_OVERLAY_NAMES
    " (comma-separated)\n"
    "  --camera SPEC      a fixed camera: x,y,width_m (2D: centre and width in metres) or fit-field\n"
    "  --seed S, --set PATH=VALUE, --backend B, --device D, --threads T, --no-share\n"
    "                     as for herd run and herd view\n"
    "  --force            replace FILE if it exists\n"
    "\n"
    "Ctrl-C (SIGINT) or SIGTERM stops stepping, writes the frames in flight and closes the\n"
    "video so it plays; the exit status is then 130 or 143.\n";

typedef struct record_opts {
  scenario_args scenario;
  backend_args backend;
  const char *out;
  int width, height, fps;
  long every;
  bool steps_given, until_done, hud, force;
  view_marks marks; /* --overlays, --camera */
} record_opts;

static volatile sig_atomic_t stop_signal = 0;
static void on_signal(int sig) { stop_signal = sig; }

static int parse_positive(const char *option, const char *text, long max, long *out) {
  char *end;
  long v = strtol(text, &end, 10);
  if (end == text || *end || v < 1 || v > max)
    return cli_fail(EXIT_BAD_INPUT, "%s: \"%s\" is not allowed (allowed: an integer from 1 to %ld)", option, text, max);
  *out = v;
  return 0;
}

static int parse_record(int argc, char **argv, record_opts *o) {
  for (int i = 1; i < argc; ++i) {
    int status = -1;
    const char *arg = argv[i], *v;
    long n = 0;
    if (strcmp(arg, "--steps") == 0) o->steps_given = true;
    if (scenario_args_take(&o->scenario, argc, argv, &i, &status) ||
        backend_args_take(&o->backend, true, argc, argv, &i, &status)) {
      if (status != -1) return status;
    } else if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      fputs(record_usage, stdout);
      return 0;
    } else if (strcmp(arg, "-o") == 0 || strcmp(arg, "--output") == 0) {
      if (!(o->out = option_value(argc, argv, &i))) return EXIT_BAD_INPUT;
    } else if (strcmp(arg, "--size") == 0) {
      if (!(v = option_value(argc, argv, &i)) || parse_size(v, &o->width, &o->height)) return EXIT_BAD_INPUT;
    } else if (strcmp(arg, "--fps") == 0) {
      if (!(v = option_value(argc, argv, &i)) || parse_positive("--fps", v, 240, &n)) return EXIT_BAD_INPUT;
      o->fps = (int)n;
    } else if (strcmp(arg, "--every") == 0) {
      if (!(v = option_value(argc, argv, &i)) || parse_positive("--every", v, 1000000, &o->every))
        return EXIT_BAD_INPUT;
    } else if (strcmp(arg, "--until-done") == 0) {
      o->until_done = true;
    } else if (strcmp(arg, "--hud") == 0) {
      o->hud = true;
    } else if (strcmp(arg, "--overlays") == 0) {
      if (!(v = option_value(argc, argv, &i)) || view_marks_overlays(v, &o->marks)) return EXIT_BAD_INPUT;
    } else if (strcmp(arg, "--camera") == 0) {
      if (!(v = option_value(argc, argv, &i)) || view_marks_camera(v, &o->marks)) return EXIT_BAD_INPUT;
    } else if (strcmp(arg, "--force") == 0) {
      o->force = true;
    } else {
      return cli_fail(EXIT_BAD_INPUT, "record: unknown option %s (see herd record --help)", arg);
    }
  }
  if (!o->out) return cli_fail(EXIT_BAD_INPUT, "record: -o FILE is required (see herd record --help)");
  if (o->steps_given && o->until_done)
    return cli_fail(EXIT_BAD_INPUT, "record: give --steps N or --until-done, not both");
  return -1;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void progress(const herd_sim *sim, uint32_t frames, uint32_t max_steps, double elapsed) {
  uint32_t step = herd_sim_step_index(sim);
  double rate = elapsed > 0 ? step / elapsed : 0;
  fprintf(stderr, "\rframes %u  step %u/%u  %.0f steps/s  about %.0f s left   ", frames, step, max_steps, rate,
          rate > 0 ? (max_steps - step) / rate : 0.0);
  fflush(stderr);
}

/* One frame of the present state, through --camera or fitted to the scene, into the recorder. */
static herd_status frame(gl_session *s, herd_recorder *rec, const record_opts *o, herd_error *err) {
  char hud[HUD_TEXT_MAX] = "";
  if (o->hud) gl_session_status(s, "", NULL, hud, sizeof hud);
  herd_camera cam = view_marks_camera_for(&o->marks, s->sim, o->width, o->height, hud);
  herd_status st = herd_renderer_update(s->renderer, s->sim, err);
  if (st == HERD_OK) st = herd_renderer_render_offscreen(s->renderer, s->sim, &cam, o->width, o->height, hud, err);
  if (st == HERD_OK) st = herd_recorder_capture(rec, err);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  return st;
}

/* Steps and captures until done, interrupted, or an error; returns 0 or an exit status. */
static int record_loop(gl_session *s, herd_recorder *rec, const record_opts *o, uint32_t *queued, double *seconds) {
  herd_error err;
  bool live = isatty(STDERR_FILENO);
  double start = now_s(), shown = start;
  if (frame(s, rec, o, &err) != HERD_OK) return cli_fail(1, "%s", err.message);
  *queued = 1;
  while (herd_sim_outcome(s->sim) == HERD_RUNNING && !stop_signal) {
    if (s->share) glFinish();
    if (herd_sim_step(s->sim, &err) != HERD_OK) return cli_fail(1, "%s", err.message);
    if (herd_sim_step_index(s->sim) % (uint32_t)o->every != 0) continue;
    if (frame(s, rec, o, &err) != HERD_OK) return cli_fail(1, "%s", err.message);
    ++*queued;
    if (live && now_s() - shown > 0.25) {
      progress(s->sim, *queued, s->sc.max_steps, now_s() - start);
      shown = now_s();
    }
  }
  if (live) fputs("\r\033[K", stderr);
  *seconds = now_s() - start;
  return 0;
}

int cmd_record(int argc, char **argv) {
  record_opts o = {.width = 1280, .height = 720, .fps = 30, .every = 1};
  gl_session g = {0};
  int status = parse_record(argc, argv, &o);
  herd_error err;
  if (status == -1 &&
      herd_scenario_load(o.scenario.path, o.scenario.sets, o.scenario.set_count, &g.sc, &err) != HERD_OK)
    status = cli_fail(err.status == HERD_E_INPUT ? EXIT_BAD_INPUT : 1, "%s", err.message);
  herd_recorder_desc rd = {.path = o.out, .width = o.width, .height = o.height, .fps = o.fps, .force = o.force};
  /* Everything that can fail is checked before the simulation starts. */
  if (status == -1) status = view_marks_check(&o.marks, &g.sc) ? EXIT_BAD_INPUT : -1;
  if (status == -1 && herd_recorder_check(&rd, &err) != HERD_OK)
    status = cli_fail(err.status == HERD_E_INPUT ? EXIT_BAD_INPUT : 1, "%s", err.message);
  bool started = false; /* status 0 from parsing means done (--help): nothing to record */
  if (status == -1) {
    gl_session_desc d = {.backend = o.backend, .width = 64, .height = 64, .hidden = true};
    status = gl_session_open(&g, &d);
    started = status == 0;
    if (started) herd_renderer_set_overlays(g.renderer, o.marks.overlays);
  }
  herd_recorder *rec = NULL;
  if (started && herd_recorder_open(&rd, &rec, &err) != HERD_OK) status = cli_fail(1, "%s", err.message);
  if (started && status == 0) {
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    uint32_t queued = 0, written = 0;
    double seconds = 0, start = now_s();
    status = record_loop(&g, rec, &o, &queued, &seconds);
    herd_status closed = herd_recorder_close(rec, &written, &err);
    seconds = now_s() - start; /* until ffmpeg has finished the file */
    if (closed != HERD_OK && status == 0) status = cli_fail(1, "%s", err.message);
    if (status == 0) {
      printf("wrote %u frames (%d x %d, %d fps, one every %ld step%s, steps 0 to %u) to %s\n", written, o.width,
             o.height, o.fps, o.every, o.every == 1 ? "" : "s", herd_sim_step_index(g.sim), o.out);
      printf("wall time: %.3f s (%.1f steps/s with recording)\n", seconds,
             seconds > 0 ? herd_sim_step_index(g.sim) / seconds : 0.0);
    }
    if (status == 0 && stop_signal) {
      fprintf(stderr, "herd: interrupted at step %u; the video is complete with %u frames\n",
              herd_sim_step_index(g.sim), written);
      status = 128 + stop_signal;
    }
  }
  gl_session_close(&g);
  scenario_args_free(&o.scenario);
  return status == -1 ? 0 : status;
}
