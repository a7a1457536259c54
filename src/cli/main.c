/* The `herd` program: the table of commands, and main, which picks one. What the commands
 * share is in messages.c, signals.c and options.c. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "herd/herd.h"
#include "options.h"
#ifdef HERD_WITH_GL
#include "../render/render.h"
#endif

#ifdef HERD_WITH_GL
#define VIEWER(run) run
#else
#define VIEWER(run) NULL /* this build has no viewer */
#endif

/* The commands, in the order herd --help lists them: name, what follows it, the function
 * (NULL: not in this build), and what it does (a line break continues under it). */
typedef struct command_entry {
  const char *name, *args;
  int (*run)(int argc, char **argv);
  const char *help;
} command_entry;

static const command_entry commands[] = {
    {"view", "[SCENARIO]", VIEWER(cmd_view),
     "show the flock in a window, steer the dog by hand (the default\ncommand where there is a display)"},
    {"run", "[SCENARIO]", cmd_run, "run a scenario headless and print a summary (the default elsewhere)"},
    {"record", "[SCENARIO]", VIEWER(cmd_record), "render a run into a video (.mp4, .webm, .gif) through ffmpeg"},
    {"scenario", "[SCENARIO]", cmd_scenario, "print the scenario with every field resolved, as JSON"},
    {"devices", "", cmd_devices, "list the OpenCL platforms and devices (for run --backend opencl)"},
    {"bench", "", cmd_bench, "time steps against flock size per backend; tables and plots"},
    {"sweep", "[SWEEP.json]", cmd_sweep,
     "many runs over a grid of parameters and seeds: success rates,\nsteps, summary tables and plots"},
    {"experiment", "NAME", cmd_experiment,
     "a named experiment (sweeps and a report against the published\nclaims); herd experiment --list"},
};
#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

static const char usage_head[] =
    "herd — simulate large flocks and the dogs that herd them\n"
    "\n"
    "usage: herd [COMMAND] [OPTIONS]\n"
    "\n"
    "commands:\n";

static const char usage_tail[] =
    "\n"
    "With no command, herd shows the built-in default scenario (Strömbom et al. 2014) in a\n"
    "window, or runs it headless where there is no display.\n"
    "Any scenario field can be overridden with --set PATH=VALUE, e.g. herd run --set sheep.count=80.\n"
    "`herd COMMAND --help` describes a command. Scenario fields: docs/scenario.md.\n"
    "\n"
    "Every command takes -h/--help, -V/--version and -q/--quiet (nothing but errors and the\n"
    "output asked for). Options: --opt=VALUE or --opt VALUE, -x VALUE or -xVALUE; a unique\n"
    "abbreviation (--ste) is accepted; options may follow the scenario; -- ends the options.\n";

static void print_usage(void) {
  fputs(usage_head, stdout);
  for (size_t k = 0; k < COMMAND_COUNT; ++k) {
    char named[64];
    snprintf(named, sizeof named, "%s%s%s", commands[k].name, commands[k].args[0] ? " " : "", commands[k].args);
    printf("  %-20s ", named);
    const char *line = commands[k].help;
    for (const char *nl; (nl = strchr(line, '\n')); line = nl + 1) printf("%.*s\n%23s", (int)(nl - line), line, "");
    printf("%s\n", line);
  }
  fputs(usage_tail, stdout);
}

/* "view, run, ..., experiment": the known commands, for the message on an unknown one. */
static void list_commands(char *out, size_t size) {
  size_t used = 0;
  out[0] = '\0';
  for (size_t k = 0; k < COMMAND_COUNT && used < size; ++k)
    used += (size_t)snprintf(out + used, size - used, "%s%s", k ? ", " : "", commands[k].name);
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
    print_usage();
    return 0;
  }
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
    cli_print_version();
    return 0;
  }
  if (cmd[0] == '-') return cmd_run(argc, argv); /* options without a command: run's */
  for (size_t k = 0; k < COMMAND_COUNT; ++k) {
    if (strcmp(cmd, commands[k].name) != 0) continue;
    if (!commands[k].run) return cli_fail(1, "%s: this build has no viewer (rebuild with HERD_WITH_GL=ON)", cmd);
    return commands[k].run(argc - 1, argv + 1);
  }
  char known[200];
  list_commands(known, sizeof known);
  return cli_fail(EXIT_BAD_INPUT, "%s: unknown command (known: %s; see herd --help)", cmd, known);
}
