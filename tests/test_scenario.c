/* Scenario loading: every bad file in tests/data/bad gives exactly its .expected message, `{}`
 * is the default, --set overrides are validated like the file, the JSON dump reads back to the
 * same scenario, and docs/scenario.md documents every field with its default. Runs from the
 * repository root. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <dirent.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/scenario_fields.h"
#include "herd/herd.h"
#include "models/strombom.h"
#include "test.h"

#define BAD_DIR "tests/data/bad"
#define MIN_BAD_FILES 110

/* ---- Helpers -------------------------------------------------------------------------- */

/* The whole file as a NUL-terminated string (malloc'd), or NULL. */
static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t len = 0, cap = 4096;
  char *text = malloc(cap);
  while (text) {
    len += fread(text + len, 1, cap - len - 1, f);
    if (len < cap - 1) break;
    char *grown = realloc(text, cap *= 2);
    if (!grown) free(text);
    text = grown;
  }
  if (text) text[len] = '\0';
  fclose(f);
  return text;
}

typedef struct compare_ctx {
  const herd_scenario *a, *b;
  const char *what;
  bool same;
} compare_ctx;

/* Compares one field (every agents entry's, for a per-agent one) in both scenarios. */
static void compare_field(const scenario_field *f, void *arg) {
  compare_ctx *c = arg;
  uint32_t entries = f->per_agent ? c->a->agents.entries : 1u;
  if (f->per_agent && c->a->agents.entries != c->b->agents.entries) entries = 0, c->same = false;
  for (uint32_t e = 0; e < entries; ++e) {
    field_ref ref = {f, e};
    const void *pa = scenario_field_caddress(c->a, ref), *pb = scenario_field_caddress(c->b, ref);
    size_t bytes = f->kind == FIELD_SEED ? 8 : 4 * scenario_field_length(f, c->a);
    if (f->kind == FIELD_SQUARE) bytes = 4;
    if (f->kind == FIELD_POINTS || f->kind == FIELD_SPHERES) bytes = sizeof(herd_point_list);
    if (f->kind == FIELD_SHAPES) bytes = sizeof(herd_shape_list);
    if (f->kind == FIELD_IDS) bytes = sizeof(herd_id_list);
    if (f->kind == FIELD_TEXT) bytes = strlen(pa) + 1; /* a longer b differs at the end */
    if (f->kind == FIELD_SCHEDULE) bytes = sizeof(herd_schedule);
    if (memcmp(pa, pb, bytes) == 0) continue;
    fprintf(stderr, "  %s: field %s (entry %u) differs\n", c->what, f->path, e);
    c->same = false;
  }
}

/* True when a and b hold the same value in every field; prints each field that differs. */
static bool same_scenario(const herd_scenario *a, const herd_scenario *b, const char *what) {
  compare_ctx c = {a, b, what, a->model == b->model && a->world.dims == b->world.dims};
  if (c.same) scenario_fields_each(a->model, compare_field, &c);
  return c.same;
}

/* A field's value by path (the test fails when the path does not exist). */
static double get(const herd_scenario *sc, const char *path) {
  double v = NAN;
  herd_error err;
  CHECK_MSG(herd_scenario_get(sc, path, &v, &err) == HERD_OK, "%s", err.message);
  return v;
}

/* Strömbom's parameters in a scenario. */
static herd_strombom_params *sheep(herd_scenario *sc) { return (herd_strombom_params *)sc->params.bytes; }

/* True when both scenarios dump to the same JSON text; prints both when not. */
static bool same_json(const herd_scenario *a, const herd_scenario *b, const char *what) {
  char *ja = herd_scenario_to_json(a), *jb = herd_scenario_to_json(b);
  bool same = ja && jb && strcmp(ja, jb) == 0;
  if (!same) fprintf(stderr, "  %s: JSON differs:\n--- first\n%s\n--- second\n%s\n", what, ja, jb);
  free(ja);
  free(jb);
  return same;
}

/* Loads the default scenario with one --set and checks that it fails with exactly `want`. */
static void check_set_fails(const char *set, const char *want) {
  herd_scenario sc;
  herd_error err = {0};
  herd_status s = scenario_load(NULL, &set, 1, &sc, &err);
  CHECK_MSG(s == HERD_E_INPUT && err.status == HERD_E_INPUT, "--set %s: status %d", set, (int)s);
  CHECK_MSG(strcmp(err.message, want) == 0, "--set %s:\n    got:  %s\n    want: %s", set, err.message, want);
}

/* Loads `path` (NULL: the built-in default) with its overrides into *out; false, after a failed
 * check, when it does not load. */
static bool load_ok(const char *path, const char *const *sets, int set_count, herd_scenario *out) {
  herd_error err = {0};
  memset(out, 0, sizeof *out);
  herd_status s = scenario_load(path, sets, set_count, out, &err);
  CHECK_MSG(s == HERD_OK, "%s", err.message);
  return s == HERD_OK;
}

/* The same for scenario text in memory. */
static bool parse_ok(const char *text, const char *const *sets, int set_count, herd_scenario *out) {
  herd_error err = {0};
  memset(out, 0, sizeof *out);
  herd_status s = scenario_parse(text, "<test>", sets, set_count, out, &err);
  CHECK_MSG(s == HERD_OK, "%s (in %s)", err.message, text);
  return s == HERD_OK;
}

/* ---- The bad-file corpus -------------------------------------------------------------- */

static int compare_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* True when `text` is one line of valid UTF-8 with no control character (C0, DEL, C1). */
static bool one_clean_line(const char *text) {
  const unsigned char *p = (const unsigned char *)text;
  while (*p) {
    if (*p < 0x20 || *p == 0x7f) return false;
    if (*p < 0x80) {
      ++p;
      continue;
    }
    size_t len = (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 : (*p & 0xf8) == 0xf0 ? 4 : 0;
    if (len == 0 || *p == 0xc0 || *p == 0xc1) return false;
    for (size_t k = 1; k < len; ++k)
      if ((p[k] & 0xc0) != 0x80) return false;
    if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) return false; /* C1 controls */
    p += len;
  }
  return true;
}

/* Every line of the .expected file is a fragment the message must contain. */
static void check_bad_file(const char *name) {
  char json_path[512], expected_path[512];
  snprintf(json_path, sizeof json_path, "%s/%s", BAD_DIR, name);
  snprintf(expected_path, sizeof expected_path, "%s/%.*s.expected", BAD_DIR, (int)(strlen(name) - 5), name);
  char *want = read_text(expected_path);
  CHECK_MSG(want != NULL, "%s: no .expected file next to it", json_path);
  if (!want) return;
  herd_scenario sc;
  herd_error err = {0};
  herd_status s = scenario_load(json_path, NULL, 0, &sc, &err);
  CHECK_MSG(s == HERD_E_INPUT && err.status == HERD_E_INPUT, "%s: status %d, want HERD_E_INPUT (%d)", json_path, (int)s,
            (int)HERD_E_INPUT);
  CHECK_MSG(one_clean_line(err.message), "%s: the message is not one clean line: %s", json_path, err.message);
  int fragments = 0;
  for (char *save = NULL, *line = strtok_r(want, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    ++fragments;
    CHECK_MSG(strstr(err.message, line) != NULL, "%s:\n    message: %s\n    lacks:   %s", json_path, err.message, line);
  }
  CHECK_MSG(fragments > 0, "%s: says nothing the message must contain", expected_path);
  free(want);
}

static void bad_files_give_expected_messages(void) {
  DIR *dir = opendir(BAD_DIR);
  CHECK_MSG(dir != NULL, "cannot open %s (run from the repository root)", BAD_DIR);
  if (!dir) return;
  char **names = NULL;
  size_t count = 0;
  for (struct dirent *e; (e = readdir(dir));) {
    size_t len = strlen(e->d_name);
    if (len <= 5 || strcmp(e->d_name + len - 5, ".json") != 0) continue;
    char **grown = realloc(names, (count + 1) * sizeof *names);
    if (grown) names = grown;
    char *copy = grown ? strdup(e->d_name) : NULL;
    CHECK_MSG(copy != NULL, "out of memory listing %s", BAD_DIR);
    if (!copy) break;
    names[count++] = copy;
  }
  closedir(dir);
  if (count) qsort(names, count, sizeof *names, compare_names);
  CHECK_MSG(count >= MIN_BAD_FILES, "only %zu files in %s (want at least %d)", count, BAD_DIR, MIN_BAD_FILES);
  for (size_t i = 0; i < count; ++i) {
    check_bad_file(names[i]);
    free(names[i]);
  }
  free(names);
}

/* ---- Defaults ------------------------------------------------------------------------- */

static void empty_object_is_the_default(void) {
  herd_scenario empty, shipped, builtin;
  if (!parse_ok("{}", NULL, 0, &empty) || !load_ok("scenarios/strombom2014.json", NULL, 0, &shipped) ||
      !load_ok(NULL, NULL, 0, &builtin))
    return;
  CHECK(same_scenario(&empty, &shipped, "{} vs scenarios/strombom2014.json"));
  CHECK(same_scenario(&empty, &builtin, "{} vs the built-in default"));
  CHECK(same_json(&empty, &shipped, "{} vs scenarios/strombom2014.json"));
  CHECK(same_json(&empty, &builtin, "{} vs the built-in default"));
}

static void defaults_are_the_papers(void) {
  herd_scenario sc;
  if (!load_ok(NULL, NULL, 0, &sc)) return;
  CHECK(sc.model == HERD_MODEL_STROMBOM && sc.world.dims == 2);
  CHECK(get(&sc, "sheep.count") == 100 && get(&sc, "sheep.neighbours") == 50);
  CHECK(get(&sc, "sheep.dog_radius_m") == 65 && get(&sc, "sheep.repulsion_radius_m") == 2);
  CHECK(get(&sc, "sheep.repulsion") == 2 && get(&sc, "sheep.attraction") == 1.05f &&
        get(&sc, "sheep.dog_repulsion") == 1);
  CHECK(get(&sc, "sheep.inertia") == 0.5 && get(&sc, "sheep.noise") == 0.3f &&
        get(&sc, "sheep.graze_probability") == 0.05f);
  CHECK(get(&sc, "sheep.speed_m_per_step") == 1 && sc.dogs.speed_m_per_step == 1.5f && sc.dogs.noise == 0.3f);
  CHECK(get(&sc, "field.size_m") == 150 && sc.world.size_m[1] == 150 && sc.target.goal_radius_m == 15.0f);
  CHECK(sc.dogs.count == 1 && sc.seed == 1 && sc.max_steps == 5000 && sc.agents.entries == 0);
}

/* The other models' defaults are their sources' (docs/models/). */
static void other_models_have_their_sources_defaults(void) {
  herd_scenario b, n;
  const char *boids = "model=boids", *netlogo = "model=netlogo";
  if (!load_ok(NULL, &boids, 1, &b) || !load_ok(NULL, &netlogo, 1, &n)) return;
  CHECK(b.world.dims == 2 && b.world.size_m[0] == 640 && b.world.size_m[1] == 480 && !b.world.wrap[0]);
  CHECK(get(&b, "boids.visual_range_m") == 40 && get(&b, "boids.protected_range_m") == 8);
  CHECK(get(&b, "boids.centering") == 0.0005f && get(&b, "boids.avoid") == 0.05f && get(&b, "boids.matching") == 0.05f);
  CHECK(get(&b, "boids.max_speed_m_per_step") == 6 && get(&b, "boids.min_speed_m_per_step") == 3);
  CHECK(get(&b, "boids.turn_factor") == 0.2f && get(&b, "boids.margin_m") == 100);
  CHECK(b.target.goal_radius_m < 0); /* no goal */
  CHECK(n.world.size_m[0] == 71 && n.world.size_m[1] == 71 && n.world.wrap[0] && n.world.wrap[1]);
  CHECK(get(&n, "netlogo.count") == 300 && get(&n, "netlogo.vision_patches") == 3);
  CHECK(get(&n, "netlogo.minimum_separation") == 1 && get(&n, "netlogo.max_align_turn_deg") == 5);
  CHECK(get(&n, "netlogo.max_cohere_turn_deg") == 3 && get(&n, "netlogo.max_separate_turn_deg") == 1.5);
  /* 3D from the world's size; the spawn box grows a third axis with it. */
  const char *sets3[] = {"model=boids", "world.size_m=[100, 200, 300]"};
  herd_scenario d;
  if (load_ok(NULL, sets3, 2, &d))
    CHECK(d.world.dims == 3 && d.world.size_m[2] == 300 && d.flock.spawn.to[2] == 1 && d.flock.spawn.from[2] == 0);
}

/* ---- --set ---------------------------------------------------------------------------- */

static void set_changes_one_field(void) {
  herd_scenario def, sc;
  const char *set = "sheep.count=200";
  if (!load_ok(NULL, NULL, 0, &def) || !load_ok(NULL, &set, 1, &sc)) return;
  CHECK(sc.flock.count == 200);
  sc.flock.count = def.flock.count;
  CHECK(same_scenario(&sc, &def, "sheep.count=200 changed another field"));
  /* Fewer sheep than the default 50 neighbours + 1 needs the neighbour count lowered too. */
  const char *sets[] = {"sheep.count=50", "sheep.neighbours=20"};
  if (load_ok(NULL, sets, 2, &sc)) CHECK(sc.flock.count == 50 && sheep(&sc)->neighbours == 20);
}

static void set_overrides_the_file(void) {
  herd_scenario sc;
  const char *sets[] = {"sheep.count=200", "sheep.count=300", "model=strombom", "dogs.start=[0.5, 0.25]"};
  if (!parse_ok("{\"sheep\": {\"count\": 150}}", sets, 4, &sc)) return;
  CHECK(sc.flock.count == 300); /* the last --set wins */
  CHECK(sc.dogs.start[0] == 0.5f && sc.dogs.start[1] == 0.25f);
}

static void set_accepts_integral_reals_for_integers(void) {
  herd_scenario sc;
  const char *sets[] = {"sheep.count=1e4", "max_steps=2.5e3", "seed=4e15"};
  if (load_ok(NULL, sets, 3, &sc))
    CHECK(sc.flock.count == 10000 && sc.max_steps == 2500 && sc.seed == 4000000000000000ull);
  check_set_fails("sheep.count=1.5e0", "--set sheep.count=1.5e0: sheep.count: expected an integer, got 1.5");
}

static void set_rejects_unknown_paths(void) {
  check_set_fails("sheep.cont=5", "--set sheep.cont=5: sheep.cont: unknown field (did you mean sheep.count?)");
  check_set_fails("sheeps.count=5", "--set sheeps.count=5: sheeps.count: unknown field (did you mean sheep.count?)");
  check_set_fails("dogs.colour=red",
                  "--set dogs.colour=red: dogs.colour: unknown field (known fields in dogs: count, start, "
                  "spacing_m, speed_m_per_step, noise, stop, gathered, team, team_compact, team_margin, team_reach_m, "
                  "arc_deg, rules)");
}

static void set_rejects_non_finite_numbers(void) {
  check_set_fails("sheep.noise=nan",
                  "--set sheep.noise=nan: sheep.noise: nan is not a finite number (allowed: a number >= 0 and <= "
                  "1000)");
  check_set_fails("field.size_m=inf",
                  "--set field.size_m=inf: field.size_m: inf is not a finite number (allowed: a number > 0 and <= "
                  "10000000)");
  check_set_fails("sheep.count=-inf",
                  "--set sheep.count=-inf: sheep.count: -inf is not a finite number (allowed: an integer from 2 to "
                  "100000000)");
}

static void set_needs_path_equals_value(void) {
  check_set_fails("sheep.count", "--set sheep.count: expected PATH=VALUE, e.g. --set sheep.count=80");
  check_set_fails("=5", "--set =5: expected PATH=VALUE, e.g. --set sheep.count=80");
}

static void set_rejects_groups(void) {
  check_set_fails("sheep.spawn=[0, 1]",
                  "--set sheep.spawn=[0, 1]: sheep.spawn: is a group; set one of its fields (from, to)");
  check_set_fails("target=0", "--set target=0: target: is a group; set one of its fields (position_m, goal_radius_m)");
}

static void set_checks_types_and_ranges(void) {
  check_set_fails("sheep.count=many",
                  "--set sheep.count=many: sheep.count: expected an integer, got the string \"many\"");
  check_set_fails("sheep.noise=\"0.3\"",
                  "--set sheep.noise=\"0.3\": sheep.noise: expected a number, got the string \"0.3\"");
  check_set_fails("sheep.count=0",
                  "--set sheep.count=0: sheep.count: 0 is out of range (allowed: an integer from 2 to 100000000)");
  check_set_fails("dogs.start=[0]",
                  "--set dogs.start=[0]: dogs.start: expected an array of 2 numbers, got an array of 1");
  check_set_fails("model=fishes",
                  "--set model=fishes: model: \"fishes\" is not a known model (allowed: \"strombom\", "
                  "\"boids\", \"netlogo\", \"couzin\", \"fish\")");
  check_set_fails("sheep.success=all",
                  "--set sheep.success=all: sheep.success: \"all\" is not a known value (allowed: \"all_delivered\", "
                  "\"centroid_in_goal\", \"remove_delivered\")");
  check_set_fails("dogs.stop=1",
                  "--set dogs.stop=1: dogs.stop: expected one of \"near_sheep\", "
                  "\"near_sheep_or_centre\", got 1");
}

static void set_is_checked_against_other_fields(void) {
  check_set_fails("sheep.neighbours=100",
                  "<default> (with --set): sheep.neighbours: 100 must be less than sheep.count (100): a sheep has at "
                  "most 99 others");
  check_set_fails("sheep.count=10",
                  "<default> (with --set): sheep.neighbours: 50 must be less than sheep.count (10): a sheep has at "
                  "most 9 others");
  /* Lowering both together is fine. */
  herd_scenario sc;
  const char *sets[] = {"sheep.count=10", "sheep.neighbours=9"};
  if (load_ok(NULL, sets, 2, &sc)) CHECK(sc.flock.count == 10 && sheep(&sc)->neighbours == 9);
}

static void failed_load_leaves_output_alone(void) {
  herd_scenario sc, before;
  memset(&sc, 0xab, sizeof sc);
  memcpy(&before, &sc, sizeof sc);
  herd_error err;
  const char *set = "sheep.count=0";
  CHECK(scenario_load(NULL, &set, 1, &sc, &err) == HERD_E_INPUT);
  CHECK(memcmp(&sc, &before, sizeof sc) == 0);
  CHECK(scenario_load("tests/data/no-such-file.json", NULL, 0, &sc, &err) == HERD_E_INPUT);
  CHECK(strstr(err.message, "tests/data/no-such-file.json: cannot open: ") == err.message);
}

/* ---- What survives a 32-bit float, big integers, odd files ---------------------------- */

/* A value is checked after it is converted to the float that runs, so what prints loads. */
static void values_must_survive_float_conversion(void) {
  herd_scenario sc;
  herd_error err;
  const char *tiny = "field.size_m=1e-50", *subnormal = "sheep.repulsion_radius_m=1e-39";
  CHECK(scenario_load(NULL, &tiny, 1, &sc, &err) == HERD_E_INPUT);
  CHECK_MSG(strstr(err.message, "field.size_m: 1e-50 is too small") != NULL, "%s", err.message);
  CHECK(scenario_load(NULL, &subnormal, 1, &sc, &err) == HERD_E_INPUT);
  CHECK_MSG(strstr(err.message, "sheep.repulsion_radius_m: 1e-39 is too small") != NULL, "%s", err.message);
  /* The smallest normal float is kept, and the dump of it loads back. */
  const char *smallest = "sheep.repulsion_radius_m=1.17549435e-38";
  if (!load_ok(NULL, &smallest, 1, &sc)) return;
  CHECK(sheep(&sc)->repulsion_radius_m == FLT_MIN);
  char *json = herd_scenario_to_json(&sc);
  herd_scenario back;
  if (json && parse_ok(json, NULL, 0, &back)) CHECK(sheep(&back)->repulsion_radius_m == FLT_MIN);
  free(json);
}

static void big_integers_are_reported_as_typed(void) {
  check_set_fails("seed=18446744073709551615",
                  "--set seed=18446744073709551615: seed: 18446744073709551615 is out of range (allowed: an integer "
                  "from 0 to 9007199254740991)");
  check_set_fails("seed=9007199254740993",
                  "--set seed=9007199254740993: seed: 9007199254740993 is out of range (allowed: an integer from 0 to "
                  "9007199254740991)");
  check_set_fails("sheep.count=-99999999999999999999",
                  "--set sheep.count=-99999999999999999999: sheep.count: -99999999999999999999 is out of range "
                  "(allowed: an integer from 2 to 100000000)");
}

static void odd_files_are_named_for_what_they_are(void) {
  herd_scenario sc;
  herd_error err;
  CHECK(scenario_load("tests", NULL, 0, &sc, &err) == HERD_E_INPUT);
  CHECK_MSG(strcmp(err.message, "tests: is a folder; a scenario must be a regular file") == 0, "%s", err.message);
  CHECK(scenario_load("/dev/zero", NULL, 0, &sc, &err) == HERD_E_INPUT);
  CHECK_MSG(strcmp(err.message, "/dev/zero: is a character device; a scenario must be a regular file") == 0, "%s",
            err.message);
  /* A byte order mark, as some editors write, is skipped. */
  char path[] = "/tmp/herd-bom-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0) return;
  static const char bom[] = "\xef\xbb\xbf{\"seed\": 77}";
  CHECK(write(fd, bom, sizeof bom - 1) == (ssize_t)(sizeof bom - 1));
  close(fd);
  if (load_ok(path, NULL, 0, &sc)) CHECK(sc.seed == 77);
  unlink(path);
}

/* herd_escape keeps user text one line and harmless to a terminal. */
static void escape_shows_controls_as_text(void) {
  char out[200];
  herd_escape("a\nb\tc\r\x1b[2J\x05\x7f", out, sizeof out);
  CHECK_MSG(strcmp(out, "a\\nb\\tc\\r\\x1b[2J\\x05\\x7f") == 0, "%s", out);
  herd_escape(
      "\xc2\x9b"
      "31m \xef\xbb\xbf \xff\xc3 caf\xc3\xa9 \xe2\x80\xa8",
      out, sizeof out);
  CHECK_MSG(strcmp(out, "\\u009b31m \\ufeff \\xff\\xc3 caf\xc3\xa9 \\u2028") == 0, "%s", out);
  herd_escape("\xed\xa0\x80\xc0\xaf", out, sizeof out); /* a surrogate and an overlong '/' */
  CHECK_MSG(strcmp(out, "\\xed\\xa0\\x80\\xc0\\xaf") == 0, "%s", out);
  /* Cut short, never in the middle of an escape or a character. */
  herd_escape("ab\ncd", out, 4);
  CHECK_MSG(strcmp(out, "ab") == 0, "%s", out);
  herd_escape("a\xc3\xa9", out, 3);
  CHECK_MSG(strcmp(out, "a") == 0, "%s", out);
  herd_escape(out, out + 100, 50); /* escaping twice changes nothing */
  CHECK(strcmp(out + 100, out) == 0);
}

static void messages_quote_user_text_escaped(void) {
  herd_scenario sc;
  herd_error err;
  CHECK(scenario_parse("{\"model\": \"\\u001b]0;x\\u0007\\nherd: forged\"}", "a\nb.json", NULL, 0, &sc, &err) ==
        HERD_E_INPUT);
  CHECK_MSG(one_clean_line(err.message), "%s", err.message);
  CHECK_MSG(strcmp(err.message,
                   "a\\nb.json: model: \"\\x1b]0;x\\x07\\nherd: forged\" is not a known model (allowed: "
                   "\"strombom\", \"boids\", \"netlogo\", \"couzin\", \"fish\")") == 0,
            "%s", err.message);
  CHECK(scenario_parse("{\"seed\": \x05}", "f.json", NULL, 0, &sc, &err) == HERD_E_INPUT);
  CHECK_MSG(one_clean_line(err.message) && strstr(err.message, "\\x05"), "%s", err.message);
}

/* ---- The JSON dump -------------------------------------------------------------------- */

/* The dump parses back to the same scenario and the same text. */
static void check_round_trip(const herd_scenario *sc) {
  herd_scenario back;
  char *json = herd_scenario_to_json(sc);
  CHECK(json != NULL);
  if (!json) return;
  if (parse_ok(json, NULL, 0, &back)) {
    CHECK(same_scenario(sc, &back, "dump and read back"));
    CHECK(same_json(sc, &back, "dump and read back"));
  }
  free(json);
}

static void dump_reads_back_identically(void) {
  const char *sets[] = {
      "seed=9007199254740991",
      "max_steps=1234",
      "field.size_m=333.3",
      "target.position_m=[-10.5, 0.1]",
      "target.goal_radius_m=7.77",
      "sheep.count=1000",
      "sheep.neighbours=256",
      "sheep.speed_m_per_step=0.3333333",
      "sheep.repulsion_radius_m=2.5",
      "sheep.dog_radius_m=1e6",
      "sheep.inertia=0.123456789",
      "sheep.attraction=1.1",
      "sheep.repulsion=0",
      "sheep.dog_repulsion=1e-7",
      "sheep.noise=0.01",
      "sheep.graze_probability=1",
      "sheep.spawn.from=[0.1, 0.2]",
      "sheep.spawn.to=[0.7, 0.9]",
      "dogs.count=16",
      "dogs.start=[-0.25, 1.5]",
      "dogs.spacing_m=3.14159",
      "dogs.speed_m_per_step=2.2",
      "dogs.noise=0",
      "sheep.neighbours_from=reacting",
      "sheep.success=centroid_in_goal",
      "dogs.stop=near_sheep_or_centre",
      "dogs.gathered=within_reach",
      "dogs.team=sectors",
      "dogs.team_compact=2.5",
      "dogs.team_margin=1.5",
      "dogs.team_reach_m=35",
      "dogs.arc_deg=135",
      "dogs.rules=published",
      "obstacles.spheres=[[10, 20, 5], [100.5, -50, 0.25]]",
      "obstacles.margin_m=3.5",
      "obstacles.push=2.5",
      "obstacles.walls=[{\"points_m\": [[200, 10], [250, 12.5], [260, 40]], \"thickness_m\": 0.75}]",
      "obstacles.water=[{\"points_m\": [[300, 300], [320, 300], [320, 330], [300, 330]]}]",
      "obstacles.pens=[{\"points_m\": [[-100, -100], [-60, -100], [-60, -60]], \"gate_m\": [[-90, -100], [-70, "
      "-100]], \"fence_m\": 0.3}]",
      "obstacles.bridges=[{\"points_m\": [[310, 290], [310, 340]], \"width_m\": 2.5, \"water\": 0}]",
      "obstacles.resolution_m=0.5",
      "output.observation.every_steps=0",
      "output.order.every_steps=3",
      "output.steering.every_steps=7",
      "output.trajectories.every_steps=10",
      "output.trajectories.ids=[3, 17, 999]",
      "output.trajectories.sample=2",
      "groups.observe=always",
      "groups.max=7",
      "groups.view_radius_m=12.5",
      "groups.member_radius_m=0",
      "shepherds.formation=line",
      "shepherds.assignment=hungarian",
      "shepherds.approach=straight",
      "shepherds.turn_angle_deg=45",
      "shepherds.margin_m=2.5",
      "shepherds.side_amplitude_m=4",
      "shepherds.side_period_steps=33",
      "shepherds.safe_margin_m=7.5",
      "shepherds.hold=meet",
      "description=\"Every field set: \\\"quotes\\\", a tab\\there, a line\\nand ünïcödé\"",
      "@300:sheep.neighbours=7",
      "@20:sheep.repulsion=0.1",
      "@20:dogs.noise=0.35",
  };
  int n = (int)(sizeof sets / sizeof sets[0]);
  herd_scenario sc, def;
  if (!load_ok(NULL, NULL, 0, &def) || !load_ok(NULL, sets, n, &sc)) return;
  /* Every field differs from its default, so the round trip below exercises all of them. */
  compare_ctx c = {&sc, &def, "", true};
  for (size_t i = 0; i < scenario_field_total(); ++i) {
    const scenario_field *f = scenario_field_at(i);
    if (f->kind == FIELD_MODEL || f->per_agent || !scenario_field_of(f, HERD_MODEL_STROMBOM)) continue;
    c.same = true;
    compare_field(f, &c);
    CHECK_MSG(!c.same, "%s kept its default", f->path);
  }
  check_round_trip(&sc);
}

/* Boids in 3D with a wrapping axis and steering agents; NetLogo with enemies. */
static void other_models_dump_and_read_back(void) {
  const char *boids[] = {"model=boids",
                         "world.size_m=[300.5, 200, 100]",
                         "world.wrap=[true, false, true]",
                         "boids.count=77",
                         "boids.view_angle_deg=270",
                         "boids.spawn.from=[0.1, 0.2, 0.3]",
                         "agents[0].strategy=pursuer",
                         "agents[0].position_m=[1, 2, 3]",
                         "agents[1].count=3",
                         "agents[1].direction=[0, 0, -2]",
                         "agents[1].speed_m_per_step=2.5",
                         "path.points_m=[[0, 0, 0], [100, 50.5, 20], [200, 10, 90]]",
                         "path.lookahead_m=7",
                         "path.weight=0.3",
                         "obstacles.spheres=[[150, 150, 150, 30]]"};
  const char *netlogo[] = {"model=netlogo", "netlogo.vision_patches=5", "agents[0].count=2",
                           "agents[0].speed_m_per_step=1"};
  herd_scenario a, b;
  if (load_ok(NULL, boids, 15, &a)) {
    CHECK(a.world.dims == 3 && a.world.wrap[0] && !a.world.wrap[1] && a.agents.entries == 2);
    CHECK(a.agents.entry[0].strategy == HERD_STRATEGY_PURSUER && a.agents.entry[0].position_m[2] == 3);
    CHECK(isnan(a.agents.entry[1].position_m[0]) && a.agents.entry[1].direction[2] == -2);
    CHECK(herd_scenario_steering_count(&a) == 4);
    CHECK(a.path.points.count == 3 && a.path.points.v[1][1] == 50.5f && a.path.points.v[2][2] == 90.0f);
    CHECK(a.obstacles.spheres.count == 1 && a.obstacles.spheres.v[0][3] == 30.0f);
    check_round_trip(&a);
  }
  if (load_ok(NULL, netlogo, 4, &b)) check_round_trip(&b);
}

/* ---- docs/scenario.md ----------------------------------------------------------------- */

/* The shortest decimal that reads back as the float v (how the docs and the dump write it). */
static void format_float(float v, char *out, size_t size) {
  if (v == floorf(v) && fabsf(v) <= 16777216.0f) { /* 150, not 1.5e+02 */
    snprintf(out, size, "%.0f", (double)v);
    return;
  }
  for (int digits = 1; digits <= 9; ++digits) {
    snprintf(out, size, "%.*g", digits, (double)v);
    if (strtof(out, NULL) == v) return;
  }
}

/* The default as docs/scenario.md must give it; false for a field whose default is each
 * model's own (the world's size and wrap, given per model in the docs). */
static bool default_text(const scenario_field *f, char *out, size_t size) {
  char a[40], b[40], c[40];
  switch (f->kind) {
    case FIELD_UINT: snprintf(out, size, "%u", (uint32_t)f->def[0]); return true;
    case FIELD_SEED: snprintf(out, size, "%llu", (unsigned long long)f->def[0]); return true;
    case FIELD_FLOAT:
    case FIELD_SQUARE: format_float((float)f->def[0], out, size); return true;
    case FIELD_VEC2:
      format_float((float)f->def[0], a, sizeof a);
      format_float((float)f->def[1], b, sizeof b);
      snprintf(out, size, "[%s, %s]", a, b);
      return true;
    case FIELD_VEC: /* written for 2D; 3D adds the same again */
      format_float((float)f->def[0], a, sizeof a);
      format_float((float)f->def[1], b, sizeof b);
      format_float((float)f->def[2], c, sizeof c);
      snprintf(out, size, "[%s, %s]", a, b);
      return true;
    case FIELD_MODEL: snprintf(out, size, "strombom"); return true;
    case FIELD_STRATEGY: snprintf(out, size, "%s", herd_strategy_name((herd_strategy)f->def[0])); return true;
    case FIELD_VEC_RANDOM: snprintf(out, size, "random"); return true;
    case FIELD_CHOICE: snprintf(out, size, "%s", f->choices[(uint32_t)f->def[0]]); return true;
    case FIELD_POINTS:
    case FIELD_SPHERES:
    case FIELD_SHAPES:
    case FIELD_IDS: snprintf(out, size, "[]"); return true;
    case FIELD_TEXT: snprintf(out, size, "\"\""); return true;
    case FIELD_SCHEDULE: snprintf(out, size, "[]"); return true;
    case FIELD_SIZE:
    case FIELD_WRAP: return false;
  }
  return false;
}

static bool is_word_char(char c) { return isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-'; }

/* True when `word` occurs in text[0, len) not as part of a longer number or name. */
static bool contains_word(const char *text, size_t len, const char *word) {
  size_t wl = strlen(word);
  for (size_t i = 0; i + wl <= len; ++i) {
    if (strncmp(text + i, word, wl) != 0) continue;
    bool left = i == 0 || !is_word_char(text[i - 1]) || !is_word_char(word[0]);
    bool right = i + wl == len || !is_word_char(text[i + wl]) || !is_word_char(word[wl - 1]);
    if (left && right) return true;
  }
  return false;
}

/* Splits a table row "| a | b |" into cells: starts[k], lens[k] (trimmed). Returns the count. */
static int split_row(const char *line, size_t len, const char **starts, size_t *lens, int max) {
  int n = 0;
  size_t i = 1; /* past the leading '|' */
  while (i < len && n < max) {
    size_t j = i;
    while (j < len && line[j] != '|') ++j;
    if (j >= len) break; /* text after the last '|' is not a cell */
    size_t a = i, b = j;
    while (a < b && isspace((unsigned char)line[a])) ++a;
    while (b > a && isspace((unsigned char)line[b - 1])) --b;
    starts[n] = line + a;
    lens[n++] = b - a;
    i = j + 1;
  }
  return n;
}

/* Every field of every model has one row in docs/scenario.md, giving its default. */
static void docs_describe_every_field(void) {
  char *doc = read_text("docs/scenario.md");
  CHECK_MSG(doc != NULL, "cannot read docs/scenario.md");
  if (!doc) return;
  enum { MAX_FIELDS = 200 };
  size_t total = scenario_field_total();
  int rows[MAX_FIELDS] = {0};
  bool default_ok[MAX_FIELDS] = {0};
  CHECK(total <= MAX_FIELDS);
  int default_col = -1, path_col = -1;
  for (char *line = doc; *line;) {
    size_t len = strcspn(line, "\n");
    if (line[0] != '|') {
      default_col = path_col = -1; /* a table ends at the first line that is not a row */
    } else {
      const char *cells[16];
      size_t lens[16];
      int n = split_row(line, len, cells, lens, 16);
      if (default_col < 0) { /* the header row names the columns */
        for (int k = 0; k < n; ++k) {
          if (lens[k] == 7 && strncmp(cells[k], "default", 7) == 0) default_col = k;
          if (lens[k] == 4 && strncmp(cells[k], "path", 4) == 0) path_col = k;
        }
      } else if (path_col >= 0 && n > default_col && n > path_col) {
        for (size_t i = 0; i < total && i < MAX_FIELDS; ++i) {
          char quoted[100], def[100];
          snprintf(quoted, sizeof quoted, "`%s`", scenario_field_at(i)->path);
          if (lens[path_col] != strlen(quoted) || strncmp(cells[path_col], quoted, lens[path_col]) != 0) continue;
          ++rows[i];
          default_ok[i] = !default_text(scenario_field_at(i), def, sizeof def) ||
                          contains_word(cells[default_col], lens[default_col], def);
        }
      }
    }
    line += len + (line[len] == '\n');
  }
  for (size_t i = 0; i < total && i < MAX_FIELDS; ++i) {
    char def[100] = "";
    default_text(scenario_field_at(i), def, sizeof def);
    CHECK_MSG(rows[i] == 1,
              "docs/scenario.md: %d table rows for `%s` (want 1, with a header row naming the "
              "columns path and default)",
              rows[i], scenario_field_at(i)->path);
    CHECK_MSG(rows[i] != 1 || default_ok[i], "docs/scenario.md: the row for `%s` does not give its default %s",
              scenario_field_at(i)->path, def);
  }
  free(doc);
}

#define TESTS(X)                              \
  X(bad_files_give_expected_messages)         \
  X(empty_object_is_the_default)              \
  X(defaults_are_the_papers)                  \
  X(other_models_have_their_sources_defaults) \
  X(set_changes_one_field)                    \
  X(set_overrides_the_file)                   \
  X(set_accepts_integral_reals_for_integers)  \
  X(set_rejects_unknown_paths)                \
  X(set_rejects_non_finite_numbers)           \
  X(set_needs_path_equals_value)              \
  X(set_rejects_groups)                       \
  X(set_checks_types_and_ranges)              \
  X(set_is_checked_against_other_fields)      \
  X(failed_load_leaves_output_alone)          \
  X(values_must_survive_float_conversion)     \
  X(big_integers_are_reported_as_typed)       \
  X(odd_files_are_named_for_what_they_are)    \
  X(escape_shows_controls_as_text)            \
  X(messages_quote_user_text_escaped)         \
  X(dump_reads_back_identically)              \
  X(other_models_dump_and_read_back)          \
  X(docs_describe_every_field)                \
  X(scenarios_built_in_code_are_validated)
TESTS(DECLARE_TEST)

/* A scenario filled in code gets the same checks as a file, and herd_sim_create refuses a
 * bad one instead of overrunning the neighbour selection. */
static void scenarios_built_in_code_are_validated(void) {
  herd_scenario sc;
  herd_error err;
  CHECK(scenario_load(NULL, NULL, 0, &sc, &err) == HERD_OK);
  CHECK(herd_scenario_validate(&sc, &err) == HERD_OK);
  herd_scenario bad = sc;
  sheep(&bad)->neighbours = 300;
  CHECK(herd_scenario_validate(&bad, &err) == HERD_E_INPUT && strstr(err.message, "sheep.neighbours") != NULL);
  herd_sim *sim = NULL;
  CHECK(herd_sim_create(&(herd_sim_desc){.scenario = &bad}, &sim, &err) == HERD_E_INPUT && sim == NULL);
  bad = sc;
  sheep(&bad)->noise = NAN;
  CHECK(herd_scenario_validate(&bad, &err) == HERD_E_INPUT && strstr(err.message, "sheep.noise: nan") != NULL);
  bad = sc;
  bad.flock.spawn.to[1] = 500;
  CHECK(herd_scenario_validate(&bad, &err) == HERD_E_INPUT && strstr(err.message, "sheep.spawn.to[1]") != NULL);
  bad = sc;
  bad.dogs.count = HERD_MAX_STEERING + 1;
  CHECK(herd_scenario_validate(&bad, &err) == HERD_E_INPUT && strstr(err.message, "dogs.count") != NULL);
  bad = sc;
  bad.world.dims = 3; /* Strömbom runs in 2D only */
  CHECK(herd_scenario_validate(&bad, &err) == HERD_E_INPUT && strstr(err.message, "3D") != NULL);
  bad = sc;
  sheep(&bad)->success = 3; /* one past the last name */
  CHECK(herd_scenario_validate(&bad, &err) == HERD_E_INPUT && strstr(err.message, "sheep.success") != NULL);
  bad = sc;
  bad.dogs.stop = 7;
  CHECK(herd_scenario_validate(&bad, &err) == HERD_E_INPUT && strstr(err.message, "dogs.stop") != NULL);
  bad = sc;
  bad.model = 99;
  CHECK(herd_scenario_validate(&bad, &err) == HERD_E_INPUT);
}

int main(void) { TEST_MAIN(TESTS); }
