/* The counter-based generator: known answers from the Philox authors, then the properties
 * the model relies on (range, uniformity, independence of its keys). */
#include <math.h>

#include "rng.h"
#include "test.h"

#define TESTS(X)                      \
  X(philox_known_answers)             \
  X(unit_float_is_in_zero_one)        \
  X(unit_float_is_uniform_chi_square) \
  X(direction_is_unit_and_unbiased)   \
  X(every_key_part_changes_the_draw)  \
  X(draws_are_pure_functions)
TESTS(DECLARE_TEST)

/* Random123 kat_vectors, "philox4x32 10" lines: counter, key -> output. */
static void philox_known_answers(void) {
  static const herd_u32 kat[3][10] = {
      {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
      {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d, 0x41c83b0e, 0xa20bc7c6,
       0x6d5451fd},
      {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09, 0x94fdcceb, 0x5001e420,
       0x24126ea1},
  };
  for (int t = 0; t < 3; ++t) {
    const herd_u32 *k = kat[t];
    herd_rng4 r = herd_philox4x32_10(k[0], k[1], k[2], k[3], k[4], k[5]);
    for (int w = 0; w < 4; ++w)
      CHECK_MSG(r.v[w] == k[6 + w], "vector %d word %d: %08x, want %08x", t, w, r.v[w], k[6 + w]);
  }
}

static void unit_float_is_in_zero_one(void) {
  CHECK(herd_rng_unit_float(0) == 0.0f);
  CHECK(herd_rng_unit_float(0xffffffffu) < 1.0f);
  CHECK(herd_rng_unit_float(0xffffffffu) > 0.99999f);
}

static void unit_float_is_uniform_chi_square(void) {
  enum { BINS = 64, DRAWS = 200000 };
  unsigned counts[BINS] = {0};
  for (herd_u32 i = 0; i < DRAWS; ++i) {
    herd_rng4 r = herd_rng_draw(42, i / 1000, i % 1000, 1);
    ++counts[(int)(herd_rng_unit_float(r.v[0]) * BINS)];
  }
  double expected = (double)DRAWS / BINS, chi2 = 0;
  for (int b = 0; b < BINS; ++b) chi2 += (counts[b] - expected) * (counts[b] - expected) / expected;
  /* 63 degrees of freedom: P(chi2 > 103.4) = 0.001 for a uniform source. */
  CHECK_MSG(chi2 < 103.4, "chi-square %.1f", chi2);
}

static void direction_is_unit_and_unbiased(void) {
  double sx = 0, sy = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    herd_vec2 d = herd_rng_direction(herd_rng_draw(7, 3, (herd_u32)i, 1).v[0]);
    CHECK(fabsf(herd_v2_len2(d) - 1.0f) < 1e-5f);
    sx += d.x, sy += d.y;
  }
  /* The mean of n unit vectors of uniform direction has standard deviation 1/sqrt(2n) per axis. */
  double sd = 1.0 / sqrt(2.0 * n);
  CHECK_MSG(fabs(sx / n) < 5 * sd && fabs(sy / n) < 5 * sd, "mean (%g, %g)", sx / n, sy / n);
}

static void every_key_part_changes_the_draw(void) {
  herd_u32 base = herd_rng_draw(1, 2, 3, 4).v[0];
  CHECK(herd_rng_draw(2, 2, 3, 4).v[0] != base);
  CHECK(herd_rng_draw(1ull | (1ull << 40), 2, 3, 4).v[0] != base); /* the seed's high half counts */
  CHECK(herd_rng_draw(1, 3, 3, 4).v[0] != base);
  CHECK(herd_rng_draw(1, 2, 4, 4).v[0] != base);
  CHECK(herd_rng_draw(1, 2, 3, 5).v[0] != base);
}

static void draws_are_pure_functions(void) {
  herd_rng4 a = herd_rng_draw(99, 1234, 56, 2), b = herd_rng_draw(99, 1234, 56, 2);
  CHECK(memcmp(&a, &b, sizeof a) == 0);
}

int main(void) { TEST_MAIN(TESTS); }
