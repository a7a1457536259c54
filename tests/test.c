#include "test.h"

#include <stdlib.h>

int test_failed_checks = 0;

/* $HERD_TEST_ONLY: a comma-separated list of case names; when set, only those run (the
 * Oclgrind test runs one case of test_opencl so). */
static bool selected(const char *name) {
  const char *only = getenv("HERD_TEST_ONLY");
  if (!only || !*only) return true;
  size_t n = strlen(name);
  for (const char *at = only; (at = strstr(at, name)) != NULL; at += n)
    if ((at == only || at[-1] == ',') && (at[n] == ',' || at[n] == '\0')) return true;
  return false;
}

int test_run(const test_case *cases, size_t count) {
  int passed = 0, failed = 0;
  for (size_t i = 0; i < count; ++i) {
    if (!selected(cases[i].name)) continue;
    int before = test_failed_checks;
    cases[i].fn();
    bool ok = test_failed_checks == before;
    printf("%-52s %s\n", cases[i].name, ok ? "ok" : "FAILED");
    fflush(stdout);
    ok ? ++passed : ++failed;
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
