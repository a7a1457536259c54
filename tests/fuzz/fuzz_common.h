/* What the fuzz targets share (tests/fuzz/README.md): failing with a message, and the check
 * that an error message is one line of valid UTF-8 (messages quote user text and are printed
 * on terminals). Static functions: each target is one translation unit, which defines
 * FUZZ_TARGET (its name) first. */
#ifndef HERD_FUZZ_COMMON_H
#define HERD_FUZZ_COMMON_H
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "herd/herd.h"

#ifndef FUZZ_TARGET
#error "define FUZZ_TARGET (the target's name, for its reports) before including fuzz_common.h"
#endif

/* Prints why, then aborts: libFuzzer saves the input as a crash. */
static void fail(const char *what, const char *detail) {
  fprintf(stderr, FUZZ_TARGET ": %s\n  %s\n", what, detail ? detail : "");
  abort();
}

/* Length of the valid UTF-8 sequence at s (1 to 4), or 0 when there is none: overlong
 * forms, surrogates and code points above U+10FFFF are invalid too. Written here again on
 * purpose, not taken from src/util/error.c: the oracle must not share a bug with the escaping
 * code it checks. */
static size_t utf8_length(const unsigned char *s, unsigned *cp) {
  unsigned c = s[0], min;
  size_t len;
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  if (c >= 0xc2 && c <= 0xdf)
    len = 2, min = 0x80, c &= 0x1f;
  else if (c >= 0xe0 && c <= 0xef)
    len = 3, min = 0x800, c &= 0x0f;
  else if (c >= 0xf0 && c <= 0xf4)
    len = 4, min = 0x10000, c &= 0x07;
  else
    return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((s[k] & 0xc0) != 0x80) return 0; /* also stops at the NUL */
    c = (c << 6) | (s[k] & 0x3fu);
  }
  if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) return 0;
  *cp = c;
  return len;
}

/* Every error message is one non-empty line of valid UTF-8 without control characters (C0,
 * DEL, C1). The message is printed escaped so that the report itself stays readable. */
static void check_message(const herd_error *err) {
  const char *why = NULL;
  if (!memchr(err->message, '\0', sizeof err->message))
    why = "error message not NUL-terminated";
  else if (!err->message[0])
    why = "error message is empty";
  for (const unsigned char *s = (const unsigned char *)err->message; !why && *s;) {
    unsigned cp;
    size_t len = utf8_length(s, &cp);
    if (len == 0)
      why = "error message is not valid UTF-8";
    else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f))
      why = "error message holds a control character (or is more than one line)";
    s += len ? len : 1;
  }
  if (!why) return;
  char shown[4 * sizeof err->message + 1];
  size_t used = 0;
  for (size_t i = 0; i < sizeof err->message && err->message[i]; ++i) {
    unsigned char b = (unsigned char)err->message[i];
    if (b < 0x20 || b >= 0x7f)
      used += (size_t)snprintf(shown + used, sizeof shown - used, "\\x%02x", b);
    else
      shown[used++] = (char)b;
  }
  shown[used] = '\0';
  fail(why, shown);
}

/* A fresh error, so that a failure which wrote no message shows up as an empty one. */
static herd_error no_error(void) {
  herd_error err;
  memset(&err, 0, sizeof err);
  return err;
}

/* A scratch folder of the harness's own, "herd-fuzz-NAME-XXXXXX" in /dev/shm (a file system in
 * memory) where it can write, else $TMPDIR or /tmp, into out; aborts when it cannot be made. */
static inline void scratch_folder(const char *name, char *out, size_t size) {
  const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  snprintf(out, size, "%s/herd-fuzz-%s-XXXXXX", tmp, name);
  if (!mkdtemp(out)) {
    perror(out);
    abort();
  }
}

#endif
