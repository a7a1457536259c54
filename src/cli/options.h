/* Option parsing for every `herd` command: one glibc getopt_long loop (options.c), fed a
 * command's table joined from shared fragments and the command's own rows, which calls the
 * command's `take` function once per option or operand. The loop reports the errors itself
 * (unknown option with a suggestion, missing value, value given to a flag, ambiguous
 * abbreviation) and answers --help, --version and --quiet for every command.
 *
 * Adding an option to a command: one row in the command's table (a short form only where
 * the letter is free in every command: see the codes below), one `case` in its take function
 * that stores the value (work goes in functions), and a line in its usage text. */
#ifndef HERD_CLI_OPTIONS_H
#define HERD_CLI_OPTIONS_H
#include <getopt.h>
#include <stdbool.h>

#include "cli.h"

/* What take() is called with: a short form's letter, a long-only option's number, or
 * CLI_OPERAND for an argument that is no option (a scenario file, an experiment's name). */
enum cli_option_code {
  CLI_OPERAND = 1,
  OPT_HELP = 'h',
  OPT_VERSION = 'V',
  OPT_QUIET = 'q',
  OPT_SEED = 'r',
  OPT_STEPS = 's',
  OPT_THREADS = 't',
  OPT_OUTPUT = 'o', /* record's video; bench's, sweep's and experiment's --out folder */
  /* -c and -j are kept free for later (checkpoints, jobs). */
  OPT_SET = 256,
  OPT_BACKEND,
  OPT_DEVICE,
  OPT_NO_SHARE,
  OPT_SUMMARY, /* run, record, bench: --summary FILE.json, --json (summary.h) */
  OPT_JSON,
  OPT_OVERLAYS, /* view, record: --overlays LIST, --camera SPEC (view_marks.h) */
  OPT_CAMERA,
  OPT_SET_AT,             /* --set-at STEP:PATH=VALUE: an entry of the scenario's schedule */
  OPT_COMMAND_FIRST = 512 /* each command numbers its own long-only options from here */
};

/* take()'s answer: go on, or stop with this exit status (0 after a command's own --list). */
#define CLI_GO_ON (-1)

/* Shared rows, each ending in a zero row: --seed/-r, --steps/-s, --set, --set-at; --backend, --device,
 * --threads/-t; --no-share (commands that draw). --help, --version, --quiet are in every
 * table without being named. */
extern const struct option cli_scenario_options[];
extern const struct option cli_backend_options[];
extern const struct option cli_share_options[];

typedef struct cli_command {
  const char *name;                   /* "run": for messages */
  const char *usage;                  /* printed by --help */
  const struct option *const *tables; /* NULL-terminated list of zero-row-terminated tables */
  /* `typed` is the option as the user wrote it ("--ste", "-r"), for messages; value is NULL
   * for a flag. Returns CLI_GO_ON or an exit status. */
  int (*take)(void *ctx, int code, const char *typed, const char *value);
  void *ctx;
} cli_command;

/* Parses argv[1..] (argv[0] is the command). Returns CLI_GO_ON when every option was taken,
 * else the exit status: 0 after --help or --version, EXIT_BAD_INPUT after an error. */
int cli_parse(const cli_command *c, int argc, char **argv);

/* Set by --quiet / -q: nothing but errors and the requested output. */
extern bool cli_quiet;

/* "herd: <message>" on stderr unless --quiet: notes, not errors. */
void cli_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "herd VERSION (commit C)" on stdout. */
void cli_print_version(void);

/* The shared groups' take functions: CLI_GO_ON when `code` was theirs and taken, an exit
 * status after an error, or CLI_NOT_MINE. */
#define CLI_NOT_MINE (-2)
int scenario_args_option(scenario_args *a, int code, const char *typed, const char *value);

/* --set-at STEP:PATH=VALUE as the scenario loader takes it among the --set overrides,
 * "@STEP:PATH=VALUE" (malloc'd; NULL when out of memory). */
char *cli_set_at(const char *value);
int backend_args_option(backend_args *b, int code, const char *typed, const char *value);

/* A decimal integer from lo to hi, for `typed`: 0, or EXIT_BAD_INPUT after saying what is
 * allowed. */
int cli_parse_integer(const char *typed, const char *text, unsigned long long lo, unsigned long long hi,
                      unsigned long long *out);

#endif
