#include "test.h"

int test_failed_checks = 0;

int test_run(const test_case *cases, size_t count) {
  int passed = 0, failed = 0;
  for (size_t i = 0; i < count; ++i) {
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
