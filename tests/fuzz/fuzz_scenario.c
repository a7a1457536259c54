/* libFuzzer harness for the scenario parser: herd_scenario_parse with --set overrides.
 * Build and run with scripts/fuzz.sh; see tests/fuzz/README.md.
 *
 * Input format (chosen so seed files read like a command line):
 *   JSON text ["\n--set " PATH=VALUE] ... (at most 4 sets; the 4th takes the rest)
 * e.g.  {"sheep": {"count": 80}}\n--set sheep.neighbours=79\n--set model=strombom
 * The API takes C strings, so a NUL byte ends its part early, as it would for a caller.
 *
 * Asserted, beyond the sanitizers' own checks (each failure prints why, then aborts):
 *   1. a scenario that parses also passes herd_scenario_validate;
 *   2. its JSON dump parses again (no sets) and dumps to the very same bytes; the dump is
 *      what a user keeps to reproduce a run, so the dumps are compared, not the floats;
 *   3. every error message is one non-empty line of valid UTF-8 with no control
 *      characters (C0, DEL, C1): messages quote user text and go to a terminal. */
#define _GNU_SOURCE /* memmem */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "herd/herd.h"

#define SEPARATOR "\n--set "
#define MAX_SETS 4

static void fail(const char *what, const char *detail) {
  fprintf(stderr, "fuzz_scenario: %s\n  %s\n", what, detail ? detail : "");
  abort();
}

/* Length of the valid UTF-8 sequence at s (1 to 4), or 0 when there is none: overlong
 * forms, surrogates and code points above U+10FFFF are invalid too. Written here again on
 * purpose, not taken from src/core/error.c: the oracle must not share a bug with the escaping
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

/* Assertion 3. The message is printed escaped so that the report itself stays readable. */
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* The parser reads a C string: copy the input and terminate it. */
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';

  /* Cut the copy at each separator: the first part is the JSON text, the others --set. */
  const char *sets[MAX_SETS];
  int set_count = 0;
  char *at = text, *end = text + size;
  while (set_count < MAX_SETS) {
    char *sep = memmem(at, (size_t)(end - at), SEPARATOR, strlen(SEPARATOR));
    if (!sep) break;
    *sep = '\0';
    at = sep + strlen(SEPARATOR);
    sets[set_count++] = at;
  }

  herd_scenario sc;
  herd_error err = no_error();
  if (herd_scenario_parse(text, "fuzz.json", sets, set_count, &sc, &err) != HERD_OK) {
    check_message(&err);
    free(text);
    return 0;
  }
  free(text);

  err = no_error();
  if (herd_scenario_validate(&sc, &err) != HERD_OK) {
    check_message(&err);
    fail("a parsed scenario fails herd_scenario_validate:", err.message);
  }

  char *dump = herd_scenario_to_json(&sc);
  if (!dump) fail("herd_scenario_to_json returned NULL for a parsed scenario", NULL);
  herd_scenario again;
  err = no_error();
  if (herd_scenario_parse(dump, "<dump>", NULL, 0, &again, &err) != HERD_OK) {
    check_message(&err);
    fprintf(stderr, "dump:\n%s\n", dump);
    fail("the JSON dump of a parsed scenario does not parse again:", err.message);
  }
  char *redump = herd_scenario_to_json(&again);
  if (!redump) fail("herd_scenario_to_json returned NULL for a reparsed dump", NULL);
  if (strcmp(dump, redump) != 0) {
    fprintf(stderr, "first dump:\n%s\nsecond dump:\n%s\n", dump, redump);
    fail("the dump of a parsed scenario changes when parsed and dumped again", NULL);
  }
  free(redump);
  free(dump);
  return 0;
}
