/* The `herd` program: main, which picks a command. What the commands share is in
 * messages.c, signals.c and options.c. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
