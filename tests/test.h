/* A small test runner. A test program lists its tests once:
 *
 *   #define TESTS(X) X(parses_defaults) X(rejects_typos)
 *   TESTS(DECLARE_TEST)
 *   int main(void) { TEST_MAIN(TESTS); }
 *
 * and ends with the line "N passed, N failed" that CI reads. A test fails when any CHECK in
 * it fails; every failed CHECK is printed with its file and line. */
#ifndef HERD_TESTS_TEST_H
#define HERD_TESTS_TEST_H
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

extern int test_failed_checks;

#define CHECK(cond)                                                              \
  do {                                                                           \
    if (!(cond)) {                                                               \
      ++test_failed_checks;                                                      \
      fprintf(stderr, "  %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                            \
  } while (0)

#define CHECK_MSG(cond, ...)                                                     \
  do {                                                                           \
    if (!(cond)) {                                                               \
      ++test_failed_checks;                                                      \
      fprintf(stderr, "  %s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                              \
      fputc('\n', stderr);                                                       \
    }                                                                            \
  } while (0)

typedef struct test_case {
  const char *name;
  void (*fn)(void);
} test_case;

#define DECLARE_TEST(name) static void name(void);
#define TEST_ENTRY(name) {#name, name},
#define TEST_MAIN(LIST)                                \
  static const test_case cases[] = {LIST(TEST_ENTRY)}; \
  return test_run(cases, sizeof cases / sizeof cases[0])

int test_run(const test_case *cases, size_t count);

#endif
