#define _GNU_SOURCE /* realpath */
#include "claims.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* `path` as one spelling: resolved as far as it exists (links followed), the rest of its
 * names after that. What cannot be resolved stays as given (it is refused later). */
static void resolve(const char *path, char *out, size_t size) {
  char real[PATH_MAX];
  if (strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0) {
    snprintf(out, size, "-");
    return;
  }
  if (realpath(path, real)) {
    snprintf(out, size, "%s", real);
    return;
  }
  const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
  char dir[PATH_MAX], head[HERD_PATH_MAX];
  herd_folder_of(path, dir, sizeof dir);
  resolve(dir, head, sizeof head); /* a shorter path each time: ends at "." or "/" */
  int written = snprintf(out, size, "%s/%s", strcmp(head, "/") == 0 ? "" : head, name);
  if (written < 0 || (size_t)written >= size) snprintf(out, size, "%s", path);
}

bool cli_same_file(const char *a, const char *b) {
  char ra[HERD_PATH_MAX], rb[HERD_PATH_MAX];
  resolve(a, ra, sizeof ra);
  resolve(b, rb, sizeof rb);
  return strcmp(ra, rb) == 0;
}

/* The name in folder claim `f` that file path `p` is, or NULL. */
static const char *inside(const cli_claim *f, const char *p) {
  size_t len = strlen(f->path);
  if (!f->names || strncmp(p, f->path, len) != 0 || p[len] != '/') return NULL;
  for (const char *const *n = f->names; *n; ++n)
    if (strcmp(p + len + 1, *n) == 0) return *n;
  return NULL;
}

/* Whether claims a and b collide, and the message's words for it. */
static int collide(const cli_claims *c, const cli_claim *a, const cli_claim *b, const char *typed) {
  if (a->input && b->input) return 0; /* reading one file twice is fine */
  const char *name = NULL;
  bool same = strcmp(a->path, b->path) == 0 || (name = inside(a, b->path)) || (name = inside(b, a->path));
  if (!same) return 0;
  const cli_claim *in = a->input ? a : b->input ? b : NULL, *out = in == a ? b : a;
  if (in && c->force) return 0;
  if (in)
    return cli_fail(EXIT_BAD_INPUT, "%s %s: is %s this command reads; not replacing it (use --force to replace)",
                    out->option, cli_shown(typed), in->option);
  if (name)
    return cli_fail(EXIT_BAD_INPUT, "%s %s: %s writes %s there; give them different files", b->option, cli_shown(typed),
                    a->option, name);
  return cli_fail(EXIT_BAD_INPUT, "%s %s: the same path as %s; give them different ones", b->option, cli_shown(typed),
                  a->option);
}

static int claim(cli_claims *c, const char *option, const char *path, const char *const *names, bool input) {
  if (!path) return 0;
  if (c->count == CLI_MAX_CLAIMS) return cli_fail(1, "%s: too many files for one command", option);
  cli_claim *k = &c->at[c->count];
  k->option = option, k->names = names, k->input = input;
  resolve(path, k->path, sizeof k->path);
  if (strcmp(k->path, "-") == 0 && input) return 0;
  for (int j = 0; j < c->count; ++j) {
    int status = collide(c, &c->at[j], k, path);
    if (status) return status;
  }
  ++c->count;
  return 0;
}

int cli_claim_input(cli_claims *c, const char *what, const char *path) { return claim(c, what, path, NULL, true); }

int cli_claim_output(cli_claims *c, const char *option, const char *path) {
  return claim(c, option, path, NULL, false);
}

int cli_claim_folder(cli_claims *c, const char *option, const char *path, const char *const *names) {
  static const char *const none[] = {NULL};
  return claim(c, option, path, names ? names : none, false);
}
