#include "scenario_fields.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_info.h"

#define AT(member) offsetof(herd_scenario, member)
#define AGENT(member) offsetof(herd_steering_config, member)
#define BIG 1.0e9
#define ALL FIELD_ALL_MODELS
/* They follow path.points_m. */
#define PATH_MODELS ((1u << HERD_MODEL_INDEX_boids) | (1u << HERD_MODEL_INDEX_couzin) | (1u << HERD_MODEL_INDEX_fish))
#define FOOD_MODELS (1u << HERD_MODEL_INDEX_fish) /* they forage food.points_m */

/* The rows of the tables below, one field a line, a macro per kind. ROW is a scenario_field in
 * member order (scenario_fields.h): path, kind, offset, the 3 defaults, lo and hi (the range),
 * min_open, models, per_agent, unit, meaning, choices, max_items; the others fill in what their
 * kind always has. `member` is the herd_scenario member the field is stored in. The tables
 * read as rows, one a line however long, so clang-format leaves them be. */
/* clang-format off */
#define ROW(path, kind, offset, d0, d1, d2, lo, hi, min_open, models, per_agent, unit, meaning, choices, items) \
  {path, kind, offset, {d0, d1, d2}, lo, hi, min_open, models, per_agent, unit, meaning, choices, items}
/* A number. */
#define FLOAT(path, member, def, lo, hi, min_open, models, unit, meaning) \
  ROW(path, FIELD_FLOAT, AT(member), def, 0, 0, lo, hi, min_open, models, false, unit, meaning, NULL, 0)
/* A whole number (its minimum always allowed). */
#define UINT(path, member, def, lo, hi, models, unit, meaning) \
  ROW(path, FIELD_UINT, AT(member), def, 0, 0, lo, hi, false, models, false, unit, meaning, NULL, 0)
/* One of the names after `meaning`, stored as its index (`def` too). */
#define CHOICE(path, member, def, models, meaning, ...) \
  ROW(path, FIELD_CHOICE, AT(member), def, 0, 0, 0, 0, false, models, false, "", meaning, \
      ((const char *const[]){__VA_ARGS__, NULL}), 0)
/* A vector of `kind` (FIELD_VEC2, FIELD_SIZE, FIELD_WRAP, FIELD_SQUARE) and its 3 defaults. */
#define VEC(path, kind, member, d0, d1, d2, lo, hi, min_open, models, unit, meaning) \
  ROW(path, kind, AT(member), d0, d1, d2, lo, hi, min_open, models, false, unit, meaning, NULL, 0)
/* A list of `kind` (FIELD_SPHERES, FIELD_SHAPES, FIELD_POINTS, FIELD_IDS), empty by default, of at
 * most `items` entries whose numbers lie within [lo, hi]. */
#define LIST(path, kind, member, lo, hi, models, unit, meaning, items) \
  ROW(path, kind, AT(member), 0, 0, 0, lo, hi, false, models, false, unit, meaning, NULL, items)
/* A field of each entry of the "agents" list (every model's), in herd_steering_config's `member`. */
#define PER_AGENT(path, kind, member, d0, d1, d2, lo, hi, min_open, unit, meaning) \
  ROW(path, kind, AGENT(member), d0, d1, d2, lo, hi, min_open, ALL, true, unit, meaning, NULL, 0)

/* The engine's fields before the model's own (keep in step with docs/scenario.md: a test
 * checks that every field of every model has a row there). */
static const scenario_field head_fields[] = {
    ROW("model", FIELD_MODEL, AT(model), 0, 0, 0, 0, 0, false, ALL, false, "", "the flock model", NULL, 0),
    ROW("seed", FIELD_SEED, AT(seed), 1, 0, 0, 0, 9007199254740991.0, false, ALL, false, "", "the random seed", NULL, 0),
    UINT("max_steps", max_steps, 5000, 1, 1.0e9, ALL, "step", "the step limit"),
    ROW("description", FIELD_TEXT, AT(description), 0, 0, 0, 0, 0, false, ALL, false, "", "what the scenario is for, in words: free text, kept and shown, never read", NULL, HERD_DESCRIPTION_BYTES),
    VEC("world.size_m", FIELD_SIZE, world.size_m, 0, 0, 0, 0, 1.0e7, true, FIELD_NOT_STROMBOM, "m", "the world box from 0 along each axis; 2 numbers for 2D, 3 for 3D"),
    VEC("world.wrap", FIELD_WRAP, world.wrap, 0, 0, 0, 0, 1, false, FIELD_NOT_STROMBOM, "", "per axis: true wraps it (a torus), false leaves it open"),
    VEC("field.size_m", FIELD_SQUARE, world.size_m, 150, 150, 0, 0, 1.0e7, true, FIELD_STROMBOM, "m", "L: the side of the square field (open: sheep may leave it)"),
    VEC("target.position_m", FIELD_VEC2, target.position_m, 0, 0, 0, -1.0e7, 1.0e7, false, FIELD_STROMBOM, "m", "T: where the dogs drive the flock"),
    FLOAT("target.goal_radius_m", target.goal_radius_m, 15, 0, 1.0e7, true, FIELD_STROMBOM, "m", "a sheep is delivered once within this of T"),
};

/* The steering agents, after the model's fields. */
static const scenario_field tail_fields[] = {
    UINT("dogs.count", dogs.count, 1, 0, HERD_MAX_STEERING, FIELD_STROMBOM, "", "Strömbom sheepdogs"),
    VEC("dogs.start", FIELD_VEC2, dogs.start, 0, 0, 0, -100, 100, false, FIELD_STROMBOM, "fraction", "where the first dog starts, as fractions of field.size_m"),
    FLOAT("dogs.spacing_m", dogs.spacing_m, 5, 0, 1.0e7, false, FIELD_STROMBOM, "m", "the dogs start this far apart along x"),
    FLOAT("dogs.speed_m_per_step", dogs.speed_m_per_step, 1.5, 0, 1000, true, FIELD_STROMBOM, "m/step", "delta_s: a dog's step length"),
    FLOAT("dogs.noise", dogs.noise, 0.3, 0, 1000, false, FIELD_STROMBOM, "", "e: weight of the random direction in a dog's heading"),
    CHOICE("dogs.stop", dogs.stop, HERD_DOG_STOP_NEAR_SHEEP, FIELD_STROMBOM, "when a dog stands still: near_sheep, or near_sheep_or_centre (also within f(N) of the centroid)", "near_sheep", "near_sheep_or_centre"),
    CHOICE("dogs.gathered", dogs.gathered, HERD_DOG_GATHERED_PAPER, FIELD_STROMBOM, "when a dog counts the flock gathered and drives it: paper (every sheep within f(N) = r_a N^(2/3) of the centroid) or within_reach (within min(f(N), r_s), so that a flock wider than the sheep's reaction radius is collected first)", "paper", "within_reach"),
    CHOICE("dogs.team", dogs.team, HERD_DOG_TEAM_ALONE, FIELD_STROMBOM, "how several dogs share the flock: alone (each the paper's dog, all after the one farthest sheep), sectors (each collects in its own share of the sectors about the centroid and drives from its own place behind it) arc (Pierson and Schwager's partial encirclement: the dogs spread evenly on an arc behind the flock, none collects) or ring (the dogs spread evenly over dogs.arc_deg about the centroid, each walking in toward it along its own ray until a sheep is within 3 r_a, so the flock is squeezed toward the open side)", "alone", "sectors", "arc", "ring"),
    FLOAT("dogs.team_compact", dogs.team_compact, 1.5, 0, 1000, true, FIELD_STROMBOM, "", "kappa: with dogs.team = sectors, the dogs collect every sheep beyond kappa r_a sqrt(N) of the centroid (or beyond f(N), if nearer)"),
    FLOAT("dogs.team_margin", dogs.team_margin, 3, 0, 1000, false, FIELD_STROMBOM, "", "m: with dogs.team = sectors, arc or ring, a driving dog stands (a ring dog goes around) at least m r_a beyond the farthest sheep of the sector behind it"),
    FLOAT("dogs.team_reach_m", dogs.team_reach_m, 20, 0, 1.0e7, false, FIELD_STROMBOM, "m", "c: with dogs.team = sectors, a driving dog stands at most c beyond the farthest sheep of the sector behind it, however far r_a sqrt(N) puts it"),
    FLOAT("dogs.arc_deg", dogs.arc_deg, 90, 0, 360, false, FIELD_STROMBOM, "deg", "Delta: with dogs.team = arc or ring, the angle the dogs span about the flock (its middle straight away from where the flock is driven)"),
    CHOICE("dogs.rules", dogs.rules, HERD_DOG_RULES_WAYPOINTS, FIELD_STROMBOM, "among walls, water and pens: waypoints (drive along the route home, sweep stragglers along it) or published (the paper's dog alone, straight at the target)", "waypoints", "published"),
    PER_AGENT("agents[].strategy", FIELD_STRATEGY, strategy, HERD_STRATEGY_CRUISER, 0, 0, 0, 0, false, "", "how these steering agents move: cruiser, pursuer or manual"),
    PER_AGENT("agents[].count", FIELD_UINT, count, 1, 0, 0, 1, HERD_MAX_STEERING, false, "", "how many agents this entry makes"),
    PER_AGENT("agents[].position_m", FIELD_VEC_RANDOM, position_m, NAN, NAN, NAN, -1.0e7, 1.0e7, false, "m", "where they start, or \"random\": anywhere in the world"),
    PER_AGENT("agents[].direction", FIELD_VEC_RANDOM, direction, NAN, NAN, NAN, -1.0e7, 1.0e7, false, "", "the way they first head (any length), or \"random\""),
    PER_AGENT("agents[].speed_m_per_step", FIELD_FLOAT, speed_m_per_step, 1, 0, 0, 0, 1000, true, "m/step", "their step length"),
    LIST("obstacles.spheres", FIELD_SPHERES, obstacles.spheres, -1.0e7, 1.0e7, ALL, "m", "spheres (circles in 2D) no agent enters: [x, y, z, radius] each ([x, y, radius] in 2D)", HERD_MAX_SPHERES),
    FLOAT("obstacles.margin_m", obstacles.margin_m, 10, 0, 1.0e7, false, ALL, "m", "agents closer than this to an obstacle's surface are pushed away from it"),
    FLOAT("obstacles.push", obstacles.push, 1, 0, 1.0e6, false, ALL, "", "the push's weight at the surface (none at the margin's edge)"),
    LIST("obstacles.walls", FIELD_SHAPES, obstacles.walls, -1.0e7, 1.0e7, ALL, "m", "walls and fences: polylines with a thickness, {\"points_m\": [[x, y], ...], \"thickness_m\": t} each", HERD_MAX_SHAPES),
    LIST("obstacles.water", FIELD_SHAPES, obstacles.water, -1.0e7, 1.0e7, ALL, "m", "water: simple polygons no agent enters, {\"points_m\": [[x, y], ...]} each", HERD_MAX_SHAPES),
    LIST("obstacles.pens", FIELD_SHAPES, obstacles.pens, -1.0e7, 1.0e7, ALL, "m", "pens: polygons fenced along their boundary with a gap at the gate, {\"points_m\", \"gate_m\", \"fence_m\"} each", HERD_MAX_SHAPES),
    LIST("obstacles.bridges", FIELD_SHAPES, obstacles.bridges, -1.0e7, 1.0e7, ALL, "m", "bridges: passable strips across a water polygon, {\"points_m\": [a, b], \"width_m\", \"water\"} each", HERD_MAX_SHAPES),
    FLOAT("obstacles.resolution_m", obstacles.resolution_m, 0.25, 0, 1.0e6, true, ALL, "m", "the spacing of the signed-distance field of walls, water and pens (larger when the geometry spans more than 1022 of it)"),
    CHOICE("groups.observe", groups.observe, HERD_GROUPS_WITH_SHEPHERDS, ALL, "when the flock's groups are found: with_shepherds (every step when there is a shepherd), always or never", "with_shepherds", "always", "never"),
    UINT("groups.max", groups.max, 16, 1, HERD_MAX_GROUPS, ALL, "", "the largest groups tracked in the observation (the rest are counted)"),
    FLOAT("groups.view_radius_m", groups.view_radius_m, 20, 0, 1.0e6, true, ALL, "m", "agents this close see each other; chains of them make one group"),
    FLOAT("groups.member_radius_m", groups.member_radius_m, 3, 0, 1.0e6, false, ALL, "m", "R_f: a group's compact area has radius R_f sqrt(2 N_f); members outside it are separated (0: no compact area)"),
    CHOICE("shepherds.formation", shepherds.formation, HERD_FORMATION_ARC, FIELD_STROMBOM, "where shepherds stand behind a group: line (perpendicular to centre -> milestone) or arc (a semicircle)", "line", "arc"),
    CHOICE("shepherds.assignment", shepherds.assignment, HERD_ASSIGN_GREEDY, FIELD_STROMBOM, "how each shepherd picks its steering point on its own: projection, greedy (Algorithm 1) or hungarian", "projection", "greedy", "hungarian"),
    CHOICE("shepherds.approach", shepherds.approach, HERD_APPROACH_SAFE_ZONE, FIELD_STROMBOM, "how a shepherd reaches its steering point: straight, or safe_zone (around the group, never through it)", "straight", "safe_zone"),
    FLOAT("shepherds.turn_angle_deg", shepherds.turn_angle_deg, 30, 0, 90, false, FIELD_STROMBOM, "deg", "theta_t: a group heading within this of its milestone is steered straight; to 90 turned; beyond, stopped"),
    FLOAT("shepherds.margin_m", shepherds.margin_m, 5, 0, 1.0e6, false, FIELD_STROMBOM, "m", "epsilon: the formation stands this far outside the group's enclosing circle"),
    FLOAT("shepherds.side_amplitude_m", shepherds.side_amplitude_m, 10, 0, 1.0e6, false, FIELD_STROMBOM, "m", "a lone shepherd's side-to-side steering: how far either side of the line behind the group it goes"),
    FLOAT("shepherds.side_period_steps", shepherds.side_period_steps, 60, 0, 1.0e9, true, FIELD_STROMBOM, "steps", "and the steps one full sweep (there and back) takes"),
    FLOAT("shepherds.safe_margin_m", shepherds.safe_margin_m, 5, 0, 1.0e6, false, FIELD_STROMBOM, "m", "the safe zone a shepherd goes around: the group's enclosing circle plus this"),
    CHOICE("shepherds.hold", shepherds.hold, HERD_HOLD_STOP, FIELD_STROMBOM, "how the dominant group is held while the others are brought: stop (in front, against its heading) or meet", "stop", "meet"),
    LIST("food.points_m", FIELD_POINTS, food.points, -1.0e7, 1.0e7, FOOD_MODELS, "m", "food particles, world.dims numbers each, inside the world; each is a steering agent (none: no food)", HERD_MAX_STEERING),
    FLOAT("food.eat_radius_m", food.eat_radius_m, 0.5, 0, 1.0e7, true, FOOD_MODELS, "m", "an agent that ends a step this close to a particle eats it; the particle is gone from the next step"),
    FLOAT("food.sense_radius_m", food.sense_radius_m, 10, 0, 1.0e7, true, FOOD_MODELS, "m", "an agent this close to a particle has found it (its personal best; the nearest find is the flock's best)"),
    LIST("path.points_m", FIELD_POINTS, path.points, -1.0e7, 1.0e7, PATH_MODELS, "m", "the control points of the guiding Bezier path, world.dims numbers each (none: no path)", HERD_MAX_PATH_POINTS),
    FLOAT("path.lookahead_m", path.lookahead_m, 20, 0, 1.0e7, true, PATH_MODELS, "m", "L: an agent aims this far ahead along the path of its closest point"),
    FLOAT("path.weight", path.weight, 0.05, 0, 1.0e6, false, PATH_MODELS, "", "how strongly the path's vector field steers (the model's bias factor)"),
    UINT("output.observation.every_steps", output.observation_every, 1, 0, 1.0e9, ALL, "step", "herd run --csv: the observation's columns (delivered, centroid, extent, farthest agent, path, groups) every this many steps; 0: never"),
    UINT("output.order.every_steps", output.order_every, 1, 0, 1.0e9, ALL, "step", "herd run --csv: the order parameters (polarisation, milling) every this many steps; 0: never"),
    UINT("output.steering.every_steps", output.steering_every, 1, 0, 1.0e9, ALL, "step", "herd run --csv: the steering agents' state (position, mode, nearest agent) every this many steps; 0: never"),
    UINT("output.trajectories.every_steps", output.trajectories_every, 1, 1, 1.0e9, ALL, "step", "herd run --trajectories: every agent's position and heading every this many steps"),
    LIST("output.trajectories.ids", FIELD_IDS, output.trajectories_ids, 0, 1.0e9, ALL, "", "herd run --trajectories: these agents' ids, ascending (none: as output.trajectories.sample says)", HERD_MAX_OUTPUT_IDS),
    UINT("output.trajectories.sample", output.trajectories_sample, 0, 0, 1.0e9, ALL, "agents", "herd run --trajectories: this many agents' ids drawn from the seed (0: all agents)"),
    LIST("schedule", FIELD_SCHEDULE, schedule, 0, 1.0e9, ALL, "", "parameters changed during the run: {\"step\": K, \"path\": P, \"value\": V} sets P (a field herd_sim_set_param may change) to V once K steps have run, before the next; steps ascending", HERD_MAX_SCHEDULE),
};
/* clang-format on */

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const char *herd_strategy_name(herd_strategy strategy) {
  static const char *const names[HERD_STRATEGY_COUNT] = {"dog", "cruiser", "pursuer", "manual", "food", "shepherd"};
  return strategy < HERD_STRATEGY_COUNT ? names[strategy] : "?";
}

void scenario_fields_each(uint32_t model, void (*fn)(const scenario_field *f, void *ctx), void *ctx) {
  const herd_model_info *info = herd_model_info_of(model);
  for (size_t i = 0; i < COUNT(head_fields); ++i)
    if (scenario_field_of(&head_fields[i], model)) fn(&head_fields[i], ctx);
  for (size_t i = 0; i < info->field_count; ++i) fn(&info->fields[i], ctx);
  for (size_t i = 0; i < COUNT(tail_fields); ++i)
    if (scenario_field_of(&tail_fields[i], model)) fn(&tail_fields[i], ctx);
}

size_t scenario_field_total(void) {
  size_t n = COUNT(head_fields) + COUNT(tail_fields);
  for (uint32_t m = 0; m < herd_model_total; ++m) n += herd_models[m].field_count;
  return n;
}

const scenario_field *scenario_field_at(size_t i) {
  if (i < COUNT(head_fields)) return &head_fields[i];
  i -= COUNT(head_fields);
  for (uint32_t m = 0; m < herd_model_total; ++m) {
    if (i < herd_models[m].field_count) return &herd_models[m].fields[i];
    i -= herd_models[m].field_count;
  }
  return i < COUNT(tail_fields) ? &tail_fields[i] : NULL;
}

bool scenario_field_of(const scenario_field *f, uint32_t model) { return (f->models >> model) & 1u; }

uint32_t scenario_choice_count(const scenario_field *f) {
  uint32_t n = 0;
  while (f->choices && f->choices[n]) ++n;
  return n;
}

void scenario_choice_names(const scenario_field *f, char *out, size_t size) {
  size_t used = 0;
  out[0] = '\0';
  for (uint32_t k = 0; k < scenario_choice_count(f) && used < size; ++k) {
    int w = snprintf(out + used, size - used, "%s\"%s\"", k ? ", " : "", f->choices[k]);
    if (w > 0) used += (size_t)w;
  }
}

/* "agents[12].count" -> "agents[].count" and 12; other paths are copied. False when the
 * index is not a plain number. */
static bool template_of(const char *path, char *out, size_t size, uint32_t *entry, bool *indexed) {
  *indexed = false;
  const char *open = strchr(path, '[');
  if (strncmp(path, "agents[", 7) != 0 || open != path + 6) {
    snprintf(out, size, "%s", path);
    return true;
  }
  char *end;
  unsigned long k = strtoul(open + 1, &end, 10);
  if (end == open + 1 || *end != ']' || k > 1000000) return false;
  *indexed = true;
  *entry = (uint32_t)k;
  snprintf(out, size, "agents[]%s", end + 1);
  return true;
}

bool scenario_field_find(const char *path, field_ref *ref) {
  char key[200];
  bool indexed;
  ref->f = NULL;
  ref->entry = 0;
  if (!template_of(path, key, sizeof key, &ref->entry, &indexed)) return false;
  for (size_t i = 0; i < scenario_field_total(); ++i) {
    const scenario_field *f = scenario_field_at(i);
    if (strcmp(f->path, key) != 0 || f->per_agent != indexed) continue;
    ref->f = f;
    return true;
  }
  return false;
}

void *scenario_field_address(herd_scenario *sc, field_ref ref) {
  char *base = ref.f->per_agent ? (char *)&sc->agents.entry[ref.entry] : (char *)sc;
  return base + ref.f->offset;
}

const void *scenario_field_caddress(const herd_scenario *sc, field_ref ref) {
  return scenario_field_address((herd_scenario *)sc, ref);
}

uint32_t scenario_field_length(const scenario_field *f, const herd_scenario *sc) {
  switch (f->kind) {
    case FIELD_VEC2: return 2;
    case FIELD_VEC:
    case FIELD_SIZE:
    case FIELD_WRAP:
    case FIELD_VEC_RANDOM: return sc->world.dims;
    default: return 1;
  }
}

bool scenario_group_exists(const char *path) {
  char key[200];
  uint32_t entry;
  bool indexed;
  if (!template_of(path, key, sizeof key, &entry, &indexed)) return false;
  if (strcmp(key, "agents") == 0) return true;
  size_t len = strlen(key);
  for (size_t i = 0; i < scenario_field_total(); ++i) {
    const char *p = scenario_field_at(i)->path;
    if (strncmp(p, key, len) == 0 && p[len] == '.') return true;
  }
  return false;
}

/* Levenshtein distance between a and the first lb characters of b. */
static size_t edit_distance(const char *a, const char *b, size_t lb) {
  if (lb > 127) return (size_t)-1;
  size_t row[128];
  for (size_t j = 0; j <= lb; ++j) row[j] = j;
  for (size_t i = 1; a[i - 1]; ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; ++j) {
      size_t up = row[j];
      size_t best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[lb];
}

bool scenario_nearest_name(const char *path, char *out, size_t size) {
  const char *best = NULL;
  size_t best_len = 0, best_d = (size_t)-1;
  for (size_t i = 0; i < scenario_field_total(); ++i) {
    const char *p = scenario_field_at(i)->path;
    /* Candidates: the field itself and each group above it ("sheep", "sheep.spawn"). */
    for (const char *end = p;; ++end) {
      if (*end != '.' && *end != '\0') continue;
      size_t d = edit_distance(path, p, (size_t)(end - p));
      if (d < best_d) {
        best_d = d;
        best = p;
        best_len = (size_t)(end - p);
      }
      if (*end == '\0') break;
    }
  }
  size_t limit = strlen(path) / 3;
  if (limit < 2) limit = 2;
  if (!best || best_d > limit) return false;
  snprintf(out, size, "%.*s", (int)best_len, best);
  return true;
}

typedef struct names_ctx {
  const char *prefix;
  size_t plen;
  char *out;
  size_t size, used;
} names_ctx;

/* Adds the name directly under the prefix of field f's path, once. */
static void add_name(const scenario_field *f, void *arg) {
  names_ctx *c = arg;
  const char *p = f->path;
  if (c->plen && (strncmp(p, c->prefix, c->plen) != 0 || p[c->plen] != '.')) return;
  const char *name = c->plen ? p + c->plen + 1 : p;
  size_t nlen = strcspn(name, ".[");
  char word[80];
  snprintf(word, sizeof word, "%.*s", (int)nlen, name);
  for (const char *at = c->out; (at = strstr(at, word));) { /* listed already? */
    bool starts = at == c->out || at[-1] == ' ', ends = at[nlen] == '\0' || at[nlen] == ',';
    if (starts && ends) return;
    at += nlen;
  }
  int w = snprintf(c->out + c->used, c->size - c->used, "%s%s", c->used ? ", " : "", word);
  if (w > 0 && (size_t)w < c->size - c->used) c->used += (size_t)w;
}

void scenario_names_under(const char *prefix, uint32_t model, char *out, size_t size) {
  names_ctx c = {prefix, strlen(prefix), out, size, 0};
  out[0] = '\0';
  char agents_prefix[200];
  uint32_t entry;
  bool indexed;
  if (template_of(prefix, agents_prefix, sizeof agents_prefix, &entry, &indexed) && indexed) {
    c.prefix = agents_prefix; /* fields of an entry: under "agents[]" */
    c.plen = strlen(agents_prefix);
  }
  scenario_fields_each(model, add_name, &c);
  if (!*prefix) add_name(&(scenario_field){.path = "agents"}, &c);
}

void scenario_agent_defaults(herd_steering_config *entry) {
  memset(entry, 0, sizeof *entry);
  for (size_t i = 0; i < COUNT(tail_fields); ++i) {
    const scenario_field *f = &tail_fields[i];
    if (!f->per_agent) continue;
    char *at = (char *)entry + f->offset;
    if (f->kind == FIELD_VEC_RANDOM)
      for (int k = 0; k < 3; ++k) ((float *)at)[k] = (float)f->def[k];
    else if (f->kind == FIELD_FLOAT)
      *(float *)at = (float)f->def[0];
    else
      *(uint32_t *)at = (uint32_t)f->def[0];
  }
}

/* The field's default into sc (per-agent fields have none here: an entry is made whole). */
static void set_default(const scenario_field *f, void *arg) {
  herd_scenario *sc = arg;
  if (f->per_agent) return;
  char *at = (char *)sc + f->offset;
  switch (f->kind) {
    case FIELD_UINT:
    case FIELD_CHOICE: *(uint32_t *)at = (uint32_t)f->def[0]; break;
    case FIELD_SEED: *(uint64_t *)at = (uint64_t)f->def[0]; break;
    case FIELD_FLOAT: *(float *)at = (float)f->def[0]; break;
    case FIELD_VEC2:
    case FIELD_VEC:
    case FIELD_SQUARE:
      for (int k = 0; k < (f->kind == FIELD_VEC ? 3 : 2); ++k) ((float *)at)[k] = (float)f->def[k];
      break;
    case FIELD_SIZE:
    case FIELD_WRAP:
    case FIELD_MODEL:
    case FIELD_STRATEGY:
    case FIELD_VEC_RANDOM: break; /* the world is the model's; the model is set by the caller */
    case FIELD_POINTS:
    case FIELD_SPHERES: ((herd_point_list *)at)->count = 0; break;
    case FIELD_SHAPES: memset(at, 0, sizeof(herd_shape_list)); break;
    case FIELD_IDS: ((herd_id_list *)at)->count = 0; break;
    case FIELD_TEXT: *(char *)at = '\0'; break;
    case FIELD_SCHEDULE: ((herd_schedule *)at)->count = 0; break;
  }
}

void scenario_set_defaults(herd_scenario *sc, uint32_t model) {
  memset(sc, 0, sizeof *sc);
  const herd_model_info *info = herd_model_info_of(model);
  sc->model = model;
  sc->world.dims = info->default_dims;
  for (int k = 0; k < 3; ++k) {
    sc->world.size_m[k] = k < (int)info->default_dims ? info->default_size_m[k] : 0.0f;
    sc->world.wrap[k] = k < (int)info->default_dims ? info->default_wrap[k] : 0u;
  }
  sc->target.goal_radius_m = -1.0f; /* no goal unless the model has one (below) */
  scenario_fields_each(model, set_default, sc);
  if (sc->world.dims == 2) sc->flock.spawn.from[2] = sc->flock.spawn.to[2] = 0.0f;
}
