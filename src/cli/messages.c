/* What every command prints its errors and notes with: one line on stderr, "herd: " first,
 * user text escaped (cli.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "herd/herd.h"

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
