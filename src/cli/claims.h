/* The files one command reads and writes, checked together before any work: no two outputs
 * are the same file (after resolving ".", ".." and symbolic links), none is inside another's
 * output folder under a name that folder gets, and none is one of the command's inputs unless
 * --force. Every output option of every command claims its path here first. */
#ifndef HERD_CLI_CLAIMS_H
#define HERD_CLI_CLAIMS_H
#include <stdbool.h>

#include "../util/outfile.h"

#define CLI_MAX_CLAIMS 16

typedef struct cli_claim {
  const char *option;       /* "--csv", "-o", or for an input what it is ("the scenario") */
  const char *const *names; /* an output folder: the files it gets (NULL-terminated); else NULL */
  bool input;
  char path[HERD_PATH_MAX]; /* resolved; "-" for standard output */
} cli_claim;

typedef struct cli_claims {
  cli_claim at[CLI_MAX_CLAIMS];
  int count;
  bool force; /* --force: an output may replace an input */
} cli_claims;

/* Each returns 0, or EXIT_BAD_INPUT after saying which two options name the same file.
 * A NULL path claims nothing. */
int cli_claim_input(cli_claims *c, const char *what, const char *path);
int cli_claim_output(cli_claims *c, const char *option, const char *path);
int cli_claim_folder(cli_claims *c, const char *option, const char *path, const char *const *names);

/* True when a and b name the same file (resolved as above). */
bool cli_same_file(const char *a, const char *b);

#endif
