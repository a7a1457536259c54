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

#include "../util/clock.h"
#include "claims.h"
#include "cli.h"
#include "options.h"
#include "session.h"
#include "summary.h"
#include "view_marks.h"

static const char record_usage[] =
    "usage: herd record [SCENARIO] -o FILE [OPTIONS]\n"
    "\n"
    "Renders a run offscreen and writes it as a video: .mp4 (H.264, yuv420p: plays in\n"
    "browsers), .webm (VP9) or .gif (with a generated palette). Needs ffmpeg and a display\n"
    "(xvfb-run -a herd record ... on a server).\n"
    "\n"
    "options (--opt=VALUE or --opt VALUE; -r7 or -r 7; a unique abbreviation is enough):\n"
    "  -o, --output FILE  the video to write (never replaced unless --force)\n"
    "  --size WxH         frame size in pixels (default 1280x720)\n"
    "  --fps F            frames per second of the video (default 30)\n"
    "  --every K          one frame every K simulation steps (default 1)\n"
    "  -s, --steps N      record N steps (stops earlier if the flock is herded)\n"
    "  --until-done       record until herded or the scenario's max_steps (the default)\n"
    "  --hud              draw the HUD (step, N, delivered, dog mode, backend) on the frames\n"
    "  --overlays LIST    marks to draw: " HERD_OVERLAY_NAMES
    " (comma-separated)\n"
    "  --camera SPEC      a fixed camera: x,y,width_m (2D: centre and width in metres) or fit-field\n"
    "  -r, --seed S, --set PATH=VALUE, --set-at STEP:PATH=VALUE, --backend B, --device D,\n"
    "  -t, --threads T, --no-share\n"
    "                     as for herd run and herd view\n"
    "  --force            replace FILE (and --summary's file) if it exists\n"
    "  -q, --quiet        no progress line, notes or closing lines (errors only)\n"
    "  -h, --help, -V, --version, --   as for herd run\n"
    "  --summary FILE     also write the run's summary as JSON, with the video's facts\n"
    "                     (docs/schema/run-summary.schema.json)\n"
    "  --json             print that JSON on standard output (the text lines then go to\n"
    "                     standard error)\n"
    "\n"
    "Ctrl-C (SIGINT) or SIGTERM stops stepping, writes the frames in flight and closes the\n"
    "video so it plays; the exit status is then 130 or 143.\n";

typedef struct record_opts {
  scenario_args scenario;
  backend_args backend;
  summary_args summary;
  const char *out;
  int width, height, fps;
  long every;
  bool steps_given, until_done, hud, force;
  view_marks marks; /* --overlays, --camera */
} record_opts;

static volatile sig_atomic_t stop_signal = 0;
static void on_signal(int sig) { stop_signal = sig; }

static int parse_positive(const char *typed, const char *text, long max, long *out) {
  unsigned long long v = 0;
  if (cli_parse_integer(typed, text, 1, (unsigned long long)max, &v)) return EXIT_BAD_INPUT;
  *out = (long)v;
  return 0;
}

enum { OPT_SIZE = OPT_COMMAND_FIRST, OPT_FPS, OPT_EVERY, OPT_UNTIL_DONE, OPT_HUD, OPT_FORCE };

static const struct option record_own_options[] = {
    {"output", required_argument, NULL, OPT_OUTPUT},   {"size", required_argument, NULL, OPT_SIZE},
    {"fps", required_argument, NULL, OPT_FPS},         {"every", required_argument, NULL, OPT_EVERY},
    {"until-done", no_argument, NULL, OPT_UNTIL_DONE}, {"hud", no_argument, NULL, OPT_HUD},
    {"force", no_argument, NULL, OPT_FORCE},           {0, 0, 0, 0},
};

static int take_record(void *ctx, int code, const char *typed, const char *value) {
  record_opts *o = ctx;
  long n = 0;
  switch (code) {
    case OPT_OUTPUT: o->out = value; return CLI_GO_ON;
    case OPT_SIZE: return parse_size(typed, value, &o->width, &o->height) ? EXIT_BAD_INPUT : CLI_GO_ON;
    case OPT_FPS:
      if (parse_positive(typed, value, 240, &n)) return EXIT_BAD_INPUT;
      o->fps = (int)n;
      return CLI_GO_ON;
    case OPT_EVERY: return parse_positive(typed, value, 1000000, &o->every) ? EXIT_BAD_INPUT : CLI_GO_ON;
    case OPT_UNTIL_DONE: o->until_done = true; return CLI_GO_ON;
    case OPT_HUD: o->hud = true; return CLI_GO_ON;
    case OPT_FORCE: o->force = true; return CLI_GO_ON;
    case OPT_STEPS: o->steps_given = true; break; /* and the scenario's max_steps */
  }
  int status = scenario_args_option(&o->scenario, code, typed, value);
  if (status == CLI_NOT_MINE) status = backend_args_option(&o->backend, code, typed, value);
  if (status == CLI_NOT_MINE) status = view_marks_option(&o->marks, code, value);
  return status != CLI_NOT_MINE ? status : summary_args_option(&o->summary, code, value);
}

static int parse_record(int argc, char **argv, record_opts *o) {
  static const struct option *const tables[] = {cli_scenario_options,
                                                cli_backend_options,
                                                cli_share_options,
                                                view_marks_options,
                                                cli_summary_options,
                                                record_own_options,
                                                NULL};
  cli_command c = {.name = "record", .usage = record_usage, .tables = tables, .take = take_record, .ctx = o};
  int status = cli_parse(&c, argc, argv);
  if (status != CLI_GO_ON) return status;
  if (!o->out) return cli_fail(EXIT_BAD_INPUT, "record: -o FILE is required (see herd record --help)");
  if (o->steps_given && o->until_done)
    return cli_fail(EXIT_BAD_INPUT, "record: give --steps N or --until-done, not both");
  return -1;
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
  bool live = !cli_quiet && isatty(STDERR_FILENO);
  double start = herd_clock_s(), shown = start;
  if (frame(s, rec, o, &err) != HERD_OK) return cli_fail(1, "%s", err.message);
  *queued = 1;
  while (herd_sim_outcome(s->sim) == HERD_RUNNING && !stop_signal) {
    if (s->share) glFinish();
    if (herd_sim_step(s->sim, &err) != HERD_OK) return cli_fail(1, "%s", err.message);
    if (herd_sim_step_index(s->sim) % (uint32_t)o->every != 0) continue;
    if (frame(s, rec, o, &err) != HERD_OK) return cli_fail(1, "%s", err.message);
    ++*queued;
    if (live && herd_clock_s() - shown > 0.25) {
      progress(s->sim, *queued, herd_scenario_describe(s->sc).max_steps, herd_clock_s() - start);
      shown = herd_clock_s();
    }
  }
  if (live) fputs("\r\033[K", stderr);
  *seconds = herd_clock_s() - start;
  return 0;
}

/* The run summary with what was recorded ("video"): frames, their spacing, rate and size. */
static json_t *record_summary(const gl_session *s, const record_opts *o, uint32_t frames, double seconds, int argc,
                              char **argv) {
  json_t *doc = summary_run_json(s->sim, s->sc, seconds, argc, argv);
  if (doc)
    json_object_set_new(doc, "video",
                        json_pack("{s:s, s:I, s:I, s:i, s:[i, i]}", "path", o->out, "frames", (json_int_t)frames,
                                  "every", (json_int_t)o->every, "fps", o->fps, "size", o->width, o->height));
  return doc;
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
  if (status == -1) status = view_marks_check(&o.marks, g.sc) ? EXIT_BAD_INPUT : -1;
  if (status == -1 && herd_recorder_check(&rd, &err) != HERD_OK)
    status = cli_fail(err.status == HERD_E_INPUT ? EXIT_BAD_INPUT : 1, "%s", err.message);
  cli_claims files = {.force = o.force};
  if (status == -1 && (cli_claim_input(&files, "the scenario", o.scenario.path) ||
                       cli_claim_output(&files, "-o", o.out) || cli_claim_output(&files, "--summary", o.summary.path)))
    status = EXIT_BAD_INPUT;
  if (status == -1 && summary_check(&o.summary, o.force)) status = EXIT_BAD_INPUT;
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
    double seconds = 0, start = herd_clock_s();
    status = record_loop(&g, rec, &o, &queued, &seconds);
    herd_status closed = herd_recorder_close(rec, &written, &err);
    seconds = herd_clock_s() - start; /* until ffmpeg has finished the file */
    if (closed != HERD_OK && status == 0) status = cli_fail(1, "%s", err.message);
    FILE *text = summary_text_stream(&o.summary, stdout);
    if (status == 0 && !cli_quiet) {
      fprintf(text, "wrote %u frames (%d x %d, %d fps, one every %ld step%s, steps 0 to %u) to %s\n", written, o.width,
              o.height, o.fps, o.every, o.every == 1 ? "" : "s", herd_sim_step_index(g.sim), o.out);
      fprintf(text, "wall time: %.3f s (%.1f steps/s with recording)\n", seconds,
              seconds > 0 ? herd_sim_step_index(g.sim) / seconds : 0.0);
    }
    if (status == 0 && (o.summary.path || o.summary.json))
      status = summary_emit(&o.summary, o.force, record_summary(&g, &o, written, seconds, argc, argv));
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
