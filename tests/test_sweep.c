/* Sweeps: lists and ranges, cross and zip, seeds, each run's scenario, the bad sweep files
 * in tests/data/bad_sweeps/, and the statistics of the summary (Wilson interval, quantiles). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/stats.h"
#include "sweep/sweep.h"
#include "test.h"

#define TESTS(X)                                    \
  X(lists_and_ranges_expand_to_their_values)        \
  X(bad_lists_are_refused_naming_the_option)        \
  X(cross_varies_the_last_field_fastest)            \
  X(zip_pairs_the_lists_and_needs_equal_lengths)    \
  X(seed_lists_expand)                              \
  X(each_run_gets_its_cell_and_seed)                \
  X(a_cell_the_scenario_refuses_is_named)           \
  X(the_sweep_file_is_read)                         \
  X(bad_sweep_files_give_expected_messages)         \
  X(wilson_interval_matches_published_values)       \
  X(quantiles_interpolate_between_order_statistics) \
  X(line_fit_gives_slope_and_its_interval)
TESTS(DECLARE_TEST)

/* The values of one --vary list, joined by spaces; "" after an error (message in err). */
static const char *expand_list(const char *list, herd_error *err) {
  static char joined[4096];
  herd_sweep sw;
  herd_sweep_init(&sw);
  joined[0] = '\0';
  if (herd_sweep_add_vary(&sw, "sheep.count", list, "--vary", err) == HERD_OK) {
    for (size_t k = 0; k < sw.vary[0].count; ++k)
      snprintf(joined + strlen(joined), sizeof joined - strlen(joined), "%s%s", k ? " " : "", sw.vary[0].values[k]);
  }
  herd_sweep_free(&sw);
  return joined;
}

static void lists_and_ranges_expand_to_their_values(void) {
  static const struct {
    const char *list, *values;
  } cases[] = {
      {"5,10:50:5", "5 10 15 20 25 30 35 40 45 50"},
      {"1:3", "1 2 3"},
      {"0.1:0.5:0.1", "0.1 0.2 0.3 0.4 0.5"}, /* not 0.30000000000000004 */
      {"10:20:4", "10 14 18"},                /* 20 is not on the grid */
      {"7", "7"},
      {"2.5,-1,1e3", "2.5 -1 1e3"},
      {"true,\"x\",pursuer", "true \"x\" \"pursuer\""},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    herd_error err = {0};
    const char *got = expand_list(cases[k].list, &err);
    CHECK_MSG(strcmp(got, cases[k].values) == 0, "%s: got \"%s\" (%s), want \"%s\"", cases[k].list, got, err.message,
              cases[k].values);
  }
}

static void bad_lists_are_refused_naming_the_option(void) {
  static const struct {
    const char *list, *message;
  } cases[] = {
      {"5:1", "--vary: sheep.count: \"5:1\" is an empty range (TO is below FROM)"},
      {"1:5:0", "--vary: sheep.count: \"1:5:0\": the step must be > 0"},
      {"1:5:-1", "--vary: sheep.count: \"1:5:-1\": the step must be > 0"},
      {"a:b", "--vary: sheep.count: \"a:b\" is not a range (allowed: FROM:TO or FROM:TO:STEP, numbers)"},
      {"", "--vary: sheep.count: no values given"},
      {"1,,2", "--vary: sheep.count: an empty or overlong value in \"1,,2\""},
      {"0:1e9", "--vary: sheep.count: \"0:1e9\" has 1000000001 values (allowed: at most 100000)"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    herd_error err = {0};
    expand_list(cases[k].list, &err);
    CHECK_MSG(err.status == HERD_E_INPUT && strcmp(err.message, cases[k].message) == 0, "%s: got \"%s\", want \"%s\"",
              cases[k].list, err.message, cases[k].message);
  }
}

/* A sweep over sheep.count and sheep.neighbours with the given lists. */
static herd_status two_field_sweep(herd_sweep *sw, const char *counts, const char *neighbours, bool zip,
                                   herd_error *err) {
  herd_sweep_init(sw);
  sw->zip = zip;
  herd_status s = herd_sweep_add_vary(sw, "sheep.count", counts, "--vary", err);
  if (s == HERD_OK) s = herd_sweep_add_vary(sw, "sheep.neighbours", neighbours, "--vary", err);
  if (s == HERD_OK) s = herd_sweep_expand(sw, err);
  return s;
}

static void cross_varies_the_last_field_fastest(void) {
  herd_sweep sw;
  herd_error err = {0};
  CHECK_MSG(two_field_sweep(&sw, "50,100", "5,10,20", false, &err) == HERD_OK, "%s", err.message);
  CHECK(sw.cell_count == 6);
  static const size_t want[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}};
  for (size_t c = 0; c < 6 && sw.cell_count == 6; ++c)
    CHECK(herd_sweep_value_index(&sw, c, 0) == want[c][0] && herd_sweep_value_index(&sw, c, 1) == want[c][1]);
  herd_sweep_free(&sw);
}

static void zip_pairs_the_lists_and_needs_equal_lengths(void) {
  herd_sweep sw;
  herd_error err = {0};
  CHECK_MSG(two_field_sweep(&sw, "50,100,200", "5,10,20", true, &err) == HERD_OK, "%s", err.message);
  CHECK(sw.cell_count == 3);
  for (size_t c = 0; c < 3 && sw.cell_count == 3; ++c)
    CHECK(herd_sweep_value_index(&sw, c, 0) == c && herd_sweep_value_index(&sw, c, 1) == c);
  herd_sweep_free(&sw);
  CHECK(two_field_sweep(&sw, "50,100", "5,10,20", true, &err) == HERD_E_INPUT);
  CHECK_MSG(strcmp(err.message,
                   "sweep: combine \"zip\" needs lists of one length: sheep.count has 2 values, "
                   "sheep.neighbours has 3") == 0,
            "%s", err.message);
  herd_sweep_free(&sw);
}

static void seed_lists_expand(void) {
  static const struct {
    const char *list;
    size_t count;
    uint64_t first, last;
  } good[] = {{"1-5", 5, 1, 5},
              {"1,3,7", 3, 1, 7},
              {"1-3,10", 4, 1, 10},
              {"0", 1, 0, 0},
              {"9007199254740991", 1, 9007199254740991ull, 9007199254740991ull}};
  for (size_t k = 0; k < sizeof good / sizeof good[0]; ++k) {
    herd_sweep sw;
    herd_sweep_init(&sw);
    herd_error err = {0};
    CHECK_MSG(herd_sweep_set_seeds(&sw, good[k].list, "--seeds", &err) == HERD_OK, "%s", err.message);
    CHECK_MSG(
        sw.seed_count == good[k].count && sw.seeds[0] == good[k].first && sw.seeds[sw.seed_count - 1] == good[k].last,
        "%s: %zu seeds", good[k].list, sw.seed_count);
    herd_sweep_free(&sw);
  }
  static const char *const bad[] = {"5-1", "x", "-1", "1.5", "", "1,", "9007199254740992"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
    herd_sweep sw;
    herd_sweep_init(&sw);
    herd_error err = {0};
    CHECK_MSG(herd_sweep_set_seeds(&sw, bad[k], "--seeds", &err) == HERD_E_INPUT && strstr(err.message, "--seeds: "),
              "\"%s\" accepted (%s)", bad[k], err.message);
    herd_sweep_free(&sw);
  }
}

static void each_run_gets_its_cell_and_seed(void) {
  herd_sweep sw;
  herd_error err = {0};
  CHECK_MSG(two_field_sweep(&sw, "50,100", "5,10,20", false, &err) == HERD_OK, "%s", err.message);
  CHECK(herd_sweep_set_seeds(&sw, "3-6", "--seeds", &err) == HERD_OK);
  sw.max_steps = 1234;
  CHECK(herd_sweep_run_count(&sw) == 24);
  herd_scenario *sc = NULL;
  double count, neighbours;
  /* run 21: cell 5 (count 100, neighbours 20), seed index 1 (seed 4) */
  CHECK_MSG(herd_sweep_scenario(&sw, 21, &sc, &err) == HERD_OK, "%s", err.message);
  if (!sc) return herd_sweep_free(&sw);
  CHECK(herd_scenario_get(sc, "sheep.count", &count, &err) == HERD_OK && count == 100);
  CHECK(herd_scenario_get(sc, "sheep.neighbours", &neighbours, &err) == HERD_OK && neighbours == 20);
  CHECK(herd_scenario_describe(sc).seed == 4 && herd_scenario_describe(sc).max_steps == 1234);
  herd_scenario_free(sc);
  herd_sweep_free(&sw);
}

static void a_cell_the_scenario_refuses_is_named(void) {
  herd_sweep sw;
  herd_error err = {0};
  CHECK(two_field_sweep(&sw, "10,100", "5,50", false, &err) == HERD_E_INPUT);
  CHECK_MSG(strstr(err.message, "sweep: cell 1 (sheep.count=10, sheep.neighbours=50): ") == err.message &&
                strstr(err.message, "sheep.neighbours: 50 must be less than sheep.count (10)"),
            "%s", err.message);
  herd_sweep_free(&sw);
}

static void the_sweep_file_is_read(void) {
  herd_sweep sw;
  herd_sweep_init(&sw);
  herd_error err = {0};
  CHECK_MSG(herd_sweep_load("tests/data/sweeps/small.json", &sw, &err) == HERD_OK, "%s", err.message);
  CHECK_MSG(herd_sweep_expand(&sw, &err) == HERD_OK, "%s", err.message);
  CHECK(sw.vary_count == 2 && sw.cell_count == 6 && sw.seed_count == 3 && sw.max_steps == 2000 && sw.set_count == 1);
  /* the scenario is taken from the sweep file's folder */
  CHECK(sw.scenario_path && strcmp(sw.scenario_path, "tests/data/sweeps/small-base.json") == 0);
  herd_scenario *sc = NULL;
  double radius;
  CHECK(herd_sweep_scenario(&sw, 0, &sc, &err) == HERD_OK);
  if (!sc) return herd_sweep_free(&sw);
  CHECK(herd_scenario_get(sc, "sheep.dog_radius_m", &radius, &err) == HERD_OK && radius == 80);
  CHECK(herd_scenario_get(sc, "sheep.repulsion_radius_m", &radius, &err) == HERD_OK && radius == 2.5);
  herd_scenario_free(sc);
  herd_sweep_free(&sw);
}

/* Each line of NAME.expected is a piece the one-line message must contain. */
static void check_bad_sweep(const char *dir, const char *name) {
  char json[512], expected[512], want[2048];
  snprintf(json, sizeof json, "%s/%s", dir, name);
  snprintf(expected, sizeof expected, "%.*s.expected", (int)(strlen(json) - 5), json);
  FILE *f = fopen(expected, "r");
  CHECK_MSG(f != NULL, "%s: no .expected file", json);
  if (!f) return;
  size_t len = fread(want, 1, sizeof want - 1, f);
  fclose(f);
  want[len] = '\0';
  herd_sweep sw;
  herd_sweep_init(&sw);
  herd_error err = {0};
  herd_status s = herd_sweep_load(json, &sw, &err);
  if (s == HERD_OK) s = herd_sweep_expand(&sw, &err);
  herd_sweep_free(&sw);
  CHECK_MSG(s == HERD_E_INPUT, "%s: accepted", json);
  CHECK_MSG(!strchr(err.message, '\n'), "%s: more than one line: %s", json, err.message);
  int pieces = 0;
  for (char *save = NULL, *line = strtok_r(want, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    ++pieces;
    CHECK_MSG(strstr(err.message, line), "%s:\n    message: %s\n    lacks:   %s", json, err.message, line);
  }
  CHECK_MSG(pieces > 0, "%s: says nothing the message must contain", expected);
}

static void bad_sweep_files_give_expected_messages(void) {
  const char *dir = "tests/data/bad_sweeps";
  DIR *d = opendir(dir);
  CHECK_MSG(d != NULL, "cannot open %s (run from the repository root)", dir);
  if (!d) return;
  int files = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    if (len <= 5 || strcmp(e->d_name + len - 5, ".json") != 0) continue;
    ++files;
    check_bad_sweep(dir, e->d_name);
  }
  closedir(d);
  CHECK_MSG(files >= 12, "only %d bad sweep files", files);
}

/* Published 95 % Wilson intervals (Newcombe 1998, Table I; Brown, Cai & DasGupta 2001). */
static void wilson_interval_matches_published_values(void) {
  static const struct {
    unsigned x, n;
    double lo, hi;
  } cases[] = {{0, 10, 0.0, 0.2775},    {10, 10, 0.7225, 1.0},     {5, 10, 0.2366, 0.7634},
               {1, 20, 0.0089, 0.2361}, {81, 263, 0.2553, 0.3662}, {15, 148, 0.0624, 0.1605}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    double lo, hi;
    herd_wilson95(cases[k].x, cases[k].n, &lo, &hi);
    CHECK_MSG(fabs(lo - cases[k].lo) < 5e-5 && fabs(hi - cases[k].hi) < 5e-5, "%u/%u: [%.4f, %.4f], want [%.4f, %.4f]",
              cases[k].x, cases[k].n, lo, hi, cases[k].lo, cases[k].hi);
  }
  double lo, hi;
  herd_wilson95(0, 0, &lo, &hi);
  CHECK(lo == 0.0 && hi == 1.0);
}

static void quantiles_interpolate_between_order_statistics(void) {
  double v[] = {4, 1, 3, 2};
  herd_sort_doubles(v, 4);
  CHECK(v[0] == 1 && v[3] == 4);
  CHECK(herd_quantile(v, 4, 0.25) == 1.75);
  CHECK(herd_quantile(v, 4, 0.5) == 2.5);
  CHECK(herd_quantile(v, 4, 0.75) == 3.25);
  CHECK(herd_quantile(v, 4, 0.0) == 1 && herd_quantile(v, 4, 1.0) == 4);
  double one = 7;
  CHECK(herd_quantile(&one, 1, 0.5) == 7);
  CHECK(isnan(herd_quantile(v, 0, 0.5)));
}

/* An exact line, and a small data set worked by hand: slope 0.6, intercept 2.2, RSS 2.4,
 * s^2 = 0.8, Sxx = 10, SE = sqrt(0.08), t(0.975; 3) = 3.182. */
static void line_fit_gives_slope_and_its_interval(void) {
  double x[] = {1, 2, 3, 4, 5}, exact[] = {5, 8, 11, 14, 17}, y[] = {2, 4, 5, 4, 5};
  herd_line_fit f = herd_fit_line(x, exact, 5);
  CHECK(fabs(f.slope - 3) < 1e-12 && fabs(f.intercept - 2) < 1e-12 && fabs(f.slope_half_width) < 1e-9);
  f = herd_fit_line(x, y, 5);
  CHECK_MSG(fabs(f.slope - 0.6) < 1e-12 && fabs(f.intercept - 2.2) < 1e-12, "%g %g", f.slope, f.intercept);
  CHECK_MSG(fabs(f.slope_half_width - 3.182 * sqrt(0.08)) < 1e-6, "%g", f.slope_half_width);
  CHECK(isnan(herd_fit_line(x, y, 2).slope_half_width) && !isnan(herd_fit_line(x, y, 2).slope));
  double same[] = {1, 1, 1};
  CHECK(isnan(herd_fit_line(same, y, 3).slope));
}

int main(void) { TEST_MAIN(TESTS); }
