/* The `herd` program's commands. Exit statuses: 0 done, 1 a run failed (I/O, backend),
 * 2 bad input (scenario, option), 130/143 interrupted. */
#ifndef HERD_CLI_CLI_H
#define HERD_CLI_CLI_H
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "herd/herd.h"

#define EXIT_BAD_INPUT 2

int cmd_run(int argc, char **argv);
int cmd_scenario(int argc, char **argv);
int cmd_devices(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_experiment(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_record(int argc, char **argv);

/* --size WxH (`typed`: the option as written, for the message): 0 and sets the size, or
 * prints the error and returns EXIT_BAD_INPUT. */
int parse_size(const char *typed, const char *text, int *width, int *height);

/* --threads T: 0 and sets *out, or prints the error and returns EXIT_BAD_INPUT. */
int parse_threads(const char *typed, const char *text, int *out);

/* Prints "herd: <message>" on stderr, as one line with control characters escaped, and
 * returns `status`. */
int cli_fail(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "herd: <message>" on stderr as cli_fail does (for cli_fail and cli_note). */
void cli_vsay(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Prints err's message (as cli_fail) and returns the exit status for it: 2 for bad input,
 * 128 + the signal for an interruption, else 1. */
int cli_error(const herd_error *err);

/* Raised (to the signal number) by the first SIGINT or SIGTERM once cli_catch_signals ran;
 * a second signal exits at once. Give it to herd_sim_desc.stop so long steps stop too. */
extern volatile sig_atomic_t cli_stop;
void cli_catch_signals(void);

/* Until a command calls this (just before it opens its first output), a Ctrl-C or SIGTERM
 * ends herd at once with 128 + the signal: setting up writes nothing, and its long parts
 * (placing, uploading, building kernels, baking) are not cut into pieces that look at the flag. */
void cli_begin_output(void);

/* User text (a file name, a typed option) escaped for printing: one line, no terminal
 * controls. The result lives until four more calls. */
const char *cli_shown(const char *text);

/* Scenario options shared by commands: [SCENARIO] [--seed S] [--steps MAX] [--set P=V]...
 * (taken by scenario_args_option, options.h). */
typedef struct scenario_args {
  const char *path; /* NULL = the built-in default */
  const char **sets;
  int set_count;
  char **owned; /* strings made for --seed/--steps, freed by scenario_args_free */
  int owned_count;
} scenario_args;

/* Backend options shared by commands: --backend B, --device D, --threads T, and (where the
 * command draws) --no-share (taken by backend_args_option, options.h). */
typedef struct backend_args {
  const char *backend, *device;
  int threads;
  bool no_share;
} backend_args;

void scenario_args_free(scenario_args *a);

/* Runs gnuplot on `script` inside folder `dir`, by an argument vector (no shell ever sees a
 * user's folder name). 0, or an exit status after saying why; `who` names the command. */
int cli_gnuplot(const char *dir, const char *script, const char *who);

#endif
