/* libFuzzer harness for the scenario parser: herd_scenario_parse's (scenario_parse, into a
 * scenario held here) with --set overrides. Build and run with scripts/fuzz.sh; see
 * tests/fuzz/README.md.
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
 *      characters (C0, DEL, C1): messages quote user text and go to a terminal
 *      (fuzz_common.h). */
#define _GNU_SOURCE /* memmem */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_TARGET "fuzz_scenario"
#include "core/scenario.h"
#include "fuzz_common.h"
#include "herd/herd.h"

#define SEPARATOR "\n--set "
#define MAX_SETS 4

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
  if (scenario_parse(text, "fuzz.json", sets, set_count, &sc, &err) != HERD_OK) {
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
  if (scenario_parse(dump, "<dump>", NULL, 0, &again, &err) != HERD_OK) {
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
