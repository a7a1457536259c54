#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "herd/herd.h"
#include "options.h"
#ifdef HERD_WITH_GL
#include "../render/render.h"
#endif

static const char usage[] =
    "herd — simulate large flocks and the dogs that herd them\n"
    "\n"
    "usage: herd [COMMAND] [OPTIONS]\n"
    "\n"
    "commands:\n"
    "  view [SCENARIO]      show the flock in a window, steer the dog by hand (the default\n"
    "                       command where there is a display)\n"
    "  run [SCENARIO]       run a scenario headless and print a summary (the default elsewhere)\n"
    "  record [SCENARIO]    render a run into a video (.mp4, .webm, .gif) through ffmpeg\n"
    "  scenario [SCENARIO]  print the scenario with every field resolved, as JSON\n"
    "  devices              list the OpenCL platforms and devices (for run --backend opencl)\n"
    "  bench                time steps against flock size per backend; tables and plots\n"
    "  sweep [SWEEP.json]   many runs over a grid of parameters and seeds: success rates,\n"
    "                       steps, summary tables and plots\n"
    "  experiment NAME      a named experiment (sweeps and a report against the published\n"
    "                       claims); herd experiment --list\n"
    "\n"
    "With no command, herd shows the built-in default scenario (Strömbom et al. 2014) in a\n"
    "window, or runs it headless where there is no display.\n"
    "Any scenario field can be overridden with --set PATH=VALUE, e.g. herd run --set sheep.count=80.\n"
    "`herd COMMAND --help` describes a command. Scenario fields: docs/scenario.md.\n"
    "\n"
    "Every command takes -h/--help, -V/--version and -q/--quiet (nothing but errors and the\n"
    "output asked for). Options: --opt=VALUE or --opt VALUE, -x VALUE or -xVALUE; a unique\n"
    "abbreviation (--ste) is accepted; options may follow the scenario; -- ends the options.\n";

void cli_vsay(const char *fmt, va_list ap) {
  char raw[2048], shown[4096];
  vsnprintf(raw, sizeof raw, fmt, ap);
  fprintf(stderr, "herd: %s\n", herd_escape(raw, shown, sizeof shown));
}

int cli_fail(int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  cli_vsay(fmt, ap);
  va_end(ap);
  return status;
}

volatile sig_atomic_t cli_stop = 0;
static volatile sig_atomic_t setting_up = 1;

void cli_begin_output(void) { setting_up = 0; }

static void say_and_exit(const char *msg, size_t len, int sig) {
  ssize_t ignored = write(STDERR_FILENO, msg, len);
  (void)ignored;
  _exit(128 + sig);
}

/* While a command sets up (reads its inputs, places and uploads the flock, builds kernels,
 * bakes fields), Ctrl-C or SIGTERM ends herd at once: nothing is written yet, and those steps
 * may not look at the flag for seconds. Afterwards the first asks the command to stop cleanly
 * (finish the summary, the CSV, the video); a second leaves at once. */
static void on_stop_signal(int sig) {
  static const char early[] = "herd: interrupted while setting up; nothing was written\n";
  static const char again[] = "\nherd: interrupted again; exiting at once\n";
  if (setting_up) say_and_exit(early, sizeof early - 1, sig);
  if (cli_stop) say_and_exit(again, sizeof again - 1, sig);
  cli_stop = sig;
}

void cli_catch_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sa.sa_flags = SA_RESTART; /* a write in progress goes on: the loop sees the flag */
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

int cli_error(const herd_error *err) {
  if (err->status == HERD_E_INTERRUPTED && cli_stop) return 128 + cli_stop;
  return cli_fail(err->status == HERD_E_INPUT ? EXIT_BAD_INPUT : 1, "%s", err->message);
}

const char *cli_shown(const char *text) {
  static char ring[4][1024];
  static int next;
  char *out = ring[next];
  next = (next + 1) % 4;
  return herd_escape(text, out, sizeof ring[0]);
}

int parse_size(const char *typed, const char *text, int *width, int *height) {
  int w, h;
  char tail;
  if (sscanf(text, "%dx%d%c", &w, &h, &tail) != 2 || w < 16 || h < 16 || w > 16384 || h > 16384)
    return cli_fail(EXIT_BAD_INPUT, "%s: \"%s\" is not allowed (allowed: WxH, each 16 to 16384, e.g. 1280x800)", typed,
                    text);
  *width = w, *height = h;
  return 0;
}

/* The main job: the viewer where a display is available, else a headless run. */
static int default_command(int argc, char **argv) {
#ifdef HERD_WITH_GL
  char why[300];
  if (herd_display_available(why, sizeof why)) return cmd_view(argc, argv);
  fprintf(stderr, "herd: %s; running headless (herd run)\n", why);
#else
  fprintf(stderr, "herd: this build has no viewer (HERD_WITH_GL=OFF); running headless (herd run)\n");
#endif
  return cmd_run(argc, argv);
}

int main(int argc, char **argv) {
  /* A file over the size limit (ulimit -f) fails its write with EFBIG, which each output
   * reports by name, rather than killing herd with its temporary files left behind. */
  signal(SIGXFSZ, SIG_IGN);
  if (argc < 2) return default_command(argc, argv);
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    cli_print_version();
    fputs(usage, stdout);
    return 0;
  }
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
    cli_print_version();
    return 0;
  }
  if (strcmp(cmd, "run") == 0) return cmd_run(argc - 1, argv + 1);
  if (cmd[0] == '-') return cmd_run(argc, argv); /* options without a command: run's */
  if (strcmp(cmd, "scenario") == 0) return cmd_scenario(argc - 1, argv + 1);
  if (strcmp(cmd, "devices") == 0) return cmd_devices(argc - 1, argv + 1);
  if (strcmp(cmd, "bench") == 0) return cmd_bench(argc - 1, argv + 1);
  if (strcmp(cmd, "sweep") == 0) return cmd_sweep(argc - 1, argv + 1);
  if (strcmp(cmd, "experiment") == 0) return cmd_experiment(argc - 1, argv + 1);
#ifdef HERD_WITH_GL
  if (strcmp(cmd, "view") == 0) return cmd_view(argc - 1, argv + 1);
  if (strcmp(cmd, "record") == 0) return cmd_record(argc - 1, argv + 1);
#else
  if (strcmp(cmd, "record") == 0) return cli_fail(1, "record: this build has no viewer (rebuild with HERD_WITH_GL=ON)");
  if (strcmp(cmd, "view") == 0) return cli_fail(1, "view: this build has no viewer (rebuild with HERD_WITH_GL=ON)");
#endif
  return cli_fail(
      EXIT_BAD_INPUT,
      "%s: unknown command (known: view, run, record, scenario, devices, bench, sweep, experiment; see herd --help)",
      cmd);
}
