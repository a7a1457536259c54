/* The one getopt_long loop behind every command's options, its error messages, and the
 * shared groups (scenario, backend) that several commands take. */
#define _GNU_SOURCE
#include "options.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "herd/herd.h"

bool cli_quiet = false;

const struct option cli_scenario_options[] = {
    {"seed", required_argument, NULL, OPT_SEED},
    {"steps", required_argument, NULL, OPT_STEPS},
    {"set", required_argument, NULL, OPT_SET},
    {"set-at", required_argument, NULL, OPT_SET_AT},
    {0, 0, 0, 0},
};

const struct option cli_backend_options[] = {
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"device", required_argument, NULL, OPT_DEVICE},
    {"threads", required_argument, NULL, OPT_THREADS},
    {0, 0, 0, 0},
};

const struct option cli_share_options[] = {
    {"no-share", no_argument, NULL, OPT_NO_SHARE},
    {0, 0, 0, 0},
};

static const struct option common_options[] = {
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {0, 0, 0, 0},
};

/* Rows in one command's table: the largest has about 25. */
#define MAX_OPTIONS 64

typedef struct option_table {
  struct option rows[MAX_OPTIONS + 1];
  int count;
  char shorts[2 * MAX_OPTIONS + 3];
} option_table;

void cli_note(const char *fmt, ...) {
  if (cli_quiet) return;
  va_list ap;
  va_start(ap, fmt);
  cli_vsay(fmt, ap);
  va_end(ap);
}

void cli_print_version(void) { printf("herd %s (commit %s)\n", herd_version(), herd_build_commit()); }

/* ---- The table ------------------------------------------------------------------------------ */

static void add_rows(option_table *t, const struct option *rows) {
  for (; rows->name && t->count < MAX_OPTIONS; ++rows) {
    t->rows[t->count++] = *rows;
    /* A short form is a code below 256 (CLI_OPERAND excepted). */
    if (rows->val > CLI_OPERAND && rows->val < 256) {
      size_t n = strlen(t->shorts);
      t->shorts[n] = (char)rows->val;
      if (rows->has_arg == required_argument) t->shorts[++n] = ':';
      t->shorts[n + 1] = '\0';
    }
  }
}

/* "-:" first: operands come back in order as CLI_OPERAND (options after the scenario work
 * whatever POSIXLY_CORRECT says, and argv is not reordered), and a missing value is ':'. */
static void build_table(const cli_command *c, option_table *t) {
  memset(t, 0, sizeof *t);
  strcpy(t->shorts, "-:");
  add_rows(t, common_options);
  for (const struct option *const *p = c->tables; p && *p; ++p) add_rows(t, *p);
}

/* ---- Messages --------------------------------------------------------------------------------- */

/* The option's name in `element` ("--ste=5" -> "--ste"). */
static void typed_name(const char *element, char *out, size_t size) {
  size_t n = strcspn(element, "=");
  snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), element);
}

static size_t edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b), row[65];
  if (la > 64 || lb > 64) return (size_t)-1;
  for (size_t j = 0; j <= lb; ++j) row[j] = j;
  for (size_t i = 1; i <= la; ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; ++j) {
      size_t up = row[j], best = diagonal + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      diagonal = up, row[j] = best;
    }
  }
  return row[lb];
}

/* "--fooo": the nearest long name, if near enough to be a slip. */
static const char *suggestion(const option_table *t, const char *name) {
  const char *best = NULL;
  size_t best_d = 4;
  for (int k = 0; k < t->count; ++k) {
    size_t d = edit_distance(name, t->rows[k].name);
    if (d < best_d && d < strlen(t->rows[k].name)) best = t->rows[k].name, best_d = d;
  }
  return best;
}

static int unknown_long(const cli_command *c, const option_table *t, const char *element) {
  char typed[128];
  typed_name(element, typed, sizeof typed);
  const char *name = typed + 2;
  char matches[512] = "";
  int count = 0;
  for (int k = 0; k < t->count; ++k)
    if (strncmp(t->rows[k].name, name, strlen(name)) == 0)
      count++, snprintf(matches + strlen(matches), sizeof matches - strlen(matches), "%s--%s", count > 1 ? ", " : "",
                        t->rows[k].name);
  if (count > 1) return cli_fail(EXIT_BAD_INPUT, "%s: %s is ambiguous (could be %s)", c->name, typed, matches);
  const char *near = suggestion(t, name);
  if (near) return cli_fail(EXIT_BAD_INPUT, "%s: unknown option %s (did you mean --%s?)", c->name, typed, near);
  return cli_fail(EXIT_BAD_INPUT, "%s: unknown option %s (see herd %s --help)", c->name, typed, c->name);
}

/* getopt_long answered '?' for `element`: an unknown option, an ambiguous abbreviation, or a
 * value given to a flag ("--quiet=1"). */
static int bad_option(const cli_command *c, const option_table *t, const char *element) {
  if (strncmp(element, "--", 2) != 0)
    return cli_fail(EXIT_BAD_INPUT, "%s: unknown option -%c (see herd %s --help)", c->name, optopt, c->name);
  char typed[128];
  typed_name(element, typed, sizeof typed);
  const char *value = strchr(element, '=');
  if (optopt && value) return cli_fail(EXIT_BAD_INPUT, "%s: takes no value (given \"%s\")", typed, value + 1);
  return unknown_long(c, t, element);
}

static int missing_value(const char *element) {
  char typed[128];
  if (strncmp(element, "--", 2) == 0)
    typed_name(element, typed, sizeof typed);
  else
    snprintf(typed, sizeof typed, "-%c", optopt);
  return cli_fail(EXIT_BAD_INPUT, "%s: needs a value", typed);
}

/* ---- The loop --------------------------------------------------------------------------------- */

static int take_common(const cli_command *c, int code) {
  if (code == OPT_HELP) {
    fputs(c->usage, stdout);
    return 0;
  }
  if (code == OPT_VERSION) {
    cli_print_version();
    return 0;
  }
  cli_quiet = true;
  return CLI_GO_ON;
}

/* The option as typed, kept for the rest of the process: a command may keep the pointer
 * (to name the option in a message after parsing) long after this call returns. Reachable
 * from here, so never a leak. */
static const char *kept_typed(const char *typed) {
  static char **kept;
  static size_t count;
  char *copy = strdup(typed);
  char **grown = copy ? realloc(kept, (count + 1) * sizeof *kept) : NULL;
  if (!grown) {
    free(copy);
    return "an option"; /* out of memory: still a string that lives */
  }
  kept = grown;
  kept[count++] = copy;
  return copy;
}

int cli_parse(const cli_command *c, int argc, char **argv) {
  option_table t;
  build_table(c, &t);
  opterr = 0;
  optind = 0; /* glibc: start afresh, whatever ran before */
  int status = CLI_GO_ON;
  while (status == CLI_GO_ON) {
    /* The element getopt_long reads next (operands come in order: nothing is permuted); a
     * short option inside "-qr5" leaves optind on its element until the last letter. */
    const char *element = argv[optind < 1 ? 1 : optind < argc ? optind : argc - 1];
    int index = -1, code = getopt_long(argc, argv, t.shorts, t.rows, &index);
    if (code == -1) break;
    char typed[128];
    if (code == '?') return bad_option(c, &t, element);
    if (code == ':') return missing_value(element);
    if (code == CLI_OPERAND)
      typed[0] = '\0';
    else if (index >= 0)
      typed_name(element, typed, sizeof typed);
    else
      snprintf(typed, sizeof typed, "-%c", code);
    if (code == OPT_HELP || code == OPT_VERSION || code == OPT_QUIET)
      status = take_common(c, code);
    else
      status = c->take(c->ctx, code, code == CLI_OPERAND ? optarg : kept_typed(typed), optarg);
  }
  /* After "--": every element is an operand, "-x.json" included. */
  for (int k = optind; k < argc && status == CLI_GO_ON; ++k) status = c->take(c->ctx, CLI_OPERAND, argv[k], argv[k]);
  return status;
}

/* ---- Values ----------------------------------------------------------------------------------- */

int cli_parse_integer(const char *typed, const char *text, unsigned long long lo, unsigned long long hi,
                      unsigned long long *out) {
  const char *digits = text + (*text == '-' || *text == '+');
  bool decimal = *digits && strspn(digits, "0123456789") == strlen(digits);
  if (!decimal)
    return cli_fail(EXIT_BAD_INPUT, "%s: \"%s\" is not an integer (allowed: an integer from %llu to %llu)", typed, text,
                    lo, hi);
  errno = 0;
  unsigned long long v = strtoull(digits, NULL, 10);
  if (*text == '-' || errno == ERANGE || v < lo || v > hi)
    return cli_fail(EXIT_BAD_INPUT, "%s: %s is out of range (allowed: an integer from %llu to %llu)", typed, text, lo,
                    hi);
  *out = v;
  return 0;
}

int parse_threads(const char *typed, const char *text, int *out) {
  unsigned long long t = 0;
  if (cli_parse_integer(typed, text, 1, 1024, &t)) return EXIT_BAD_INPUT;
  *out = (int)t;
  return 0;
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

/* ---- The shared groups ------------------------------------------------------------------------ */

char *cli_set_at(const char *value) {
  size_t len = strlen(value) + 2;
  char *s = malloc(len);
  if (s) snprintf(s, len, "@%s", value);
  return s;
}

static char *make_set(const char *path, const char *value) {
  size_t len = strlen(path) + strlen(value) + 2;
  char *s = malloc(len);
  if (s) snprintf(s, len, "%s=%s", path, value);
  return s;
}

static bool remember(scenario_args *a, const char *set, char *owned) {
  const char **sets = realloc(a->sets, (size_t)(a->set_count + 1) * sizeof *sets);
  char **own = realloc(a->owned, (size_t)(a->owned_count + 1) * sizeof *own);
  if (sets) a->sets = sets;
  if (own) a->owned = own;
  if (!sets || !own || !set) {
    free(owned);
    return false;
  }
  a->sets[a->set_count++] = set;
  if (owned) a->owned[a->owned_count++] = owned;
  return true;
}

/* The scenario's limits, checked here so that the message names the option typed. */
#define SEED_MAX 9007199254740991ull /* 2^53 - 1: a JSON number keeps it exactly */
#define STEPS_MAX 1000000000ull

int scenario_args_option(scenario_args *a, int code, const char *typed, const char *value) {
  unsigned long long n = 0;
  if (code == CLI_OPERAND) {
    if (a->path)
      return cli_fail(EXIT_BAD_INPUT, "%s: only one scenario file may be given (already have %s)", value, a->path);
    a->path = value;
    return CLI_GO_ON;
  }
  if (code == OPT_SEED || code == OPT_STEPS) {
    bool seed = code == OPT_SEED;
    if (cli_parse_integer(typed, value, seed ? 0 : 1, seed ? SEED_MAX : STEPS_MAX, &n)) return EXIT_BAD_INPUT;
    char *owned = make_set(seed ? "seed" : "max_steps", value);
    return remember(a, owned, owned) ? CLI_GO_ON : cli_fail(1, "out of memory");
  }
  if (code == OPT_SET) return remember(a, value, NULL) ? CLI_GO_ON : cli_fail(1, "out of memory");
  if (code == OPT_SET_AT) {
    char *owned = cli_set_at(value);
    return remember(a, owned, owned) ? CLI_GO_ON : cli_fail(1, "out of memory");
  }
  return CLI_NOT_MINE;
}

int backend_args_option(backend_args *b, int code, const char *typed, const char *value) {
  switch (code) {
    case OPT_BACKEND: b->backend = value; return CLI_GO_ON;
    case OPT_DEVICE:
      if (!*value)
        return cli_fail(EXIT_BAD_INPUT, "%s: empty (allowed: an index from herd devices, or part of a device's name)",
                        typed);
      b->device = value;
      return CLI_GO_ON;
    case OPT_THREADS: return parse_threads(typed, value, &b->threads) ? EXIT_BAD_INPUT : CLI_GO_ON;
    case OPT_NO_SHARE: b->no_share = true; return CLI_GO_ON;
    default: return CLI_NOT_MINE;
  }
}

void scenario_args_free(scenario_args *a) {
  for (int k = 0; k < a->owned_count; ++k) free(a->owned[k]);
  free(a->owned);
  free(a->sets);
}
