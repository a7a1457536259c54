/* The route home around walls, water and pens (src/steer/route.c, docs/models/env.md
 * "Routing"): from every open point of each level the field leads into the goal without
 * crossing an obstacle; a dog never stands inside one, nor a sheep at the end of a run; with
 * waypoints every level (pen-with-gate, river-with-bridge, farm) is herded in at least 18 of 20
 * seeds (over the bridge, the flock's centre within 15 m of its middle, not round the river), and with the published
 * dog alone pen-with-gate and river-with-bridge fail in at least 15 of 20 (seed 002's claim). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>

#include "core/geometry.h"
#include "sim_util.h"
#include "steer/route.h"

#define TESTS(X)                                \
  X(the_field_leads_home_from_every_open_point) \
  X(a_dog_walks_around_a_wall_not_through_it)   \
  X(levels_are_herded_with_waypoints_not_by_the_paper_alone)
TESTS(DECLARE_TEST)

static const char *const levels[] = {"pen-with-gate.json", "river-with-bridge.json", "farm.json"};

/* True when the segment a -> b enters no obstacle (sampled every 5 cm). */
static bool clear_segment(const herd_scenario *sc, const float a[2], const float b[2]) {
  float dx = b[0] - a[0], dy = b[1] - a[1];
  int samples = 1 + (int)(sqrtf(dx * dx + dy * dy) / 0.05f);
  for (int s = 0; s <= samples; ++s) {
    float t = (float)s / (float)samples, p[2] = {a[0] + t * dx, a[1] + t * dy};
    if (herd_geometry_blocks(sc, p)) return false;
  }
  return true;
}

/* How far (x, y) is from the nearest obstacle: walls, water and pens, or a rock. */
static double clearance(const herd_scenario *sc, float x, float y) {
  double d = herd_geometry_distance(sc, x, y, NULL);
  for (uint32_t k = 0; k < sc->obstacles.spheres.count; ++k) {
    const float *c = sc->obstacles.spheres.v[k];
    d = fmin(d, hypot(x - c[0], y - c[1]) - c[3]);
  }
  return d;
}

/* True when (x, y) lies inside a wall that closes on itself (a building, a fenced field):
 * shut in, with no way home. */
static bool shut_in(const herd_scenario *sc, float x, float y) {
  for (uint32_t w = 0; w < sc->obstacles.walls.count; ++w) {
    const herd_shape *s = &sc->obstacles.walls.s[w];
    if (s->count < 4 || s->v[0][0] != s->v[s->count - 1][0] || s->v[0][1] != s->v[s->count - 1][1]) continue;
    bool in = false;
    for (uint32_t i = 0, j = s->count - 2; i < s->count - 1; j = i++)
      if ((s->v[i][1] > y) != (s->v[j][1] > y) &&
          x < (s->v[j][0] - s->v[i][0]) * (y - s->v[i][1]) / (s->v[j][1] - s->v[i][1]) + s->v[i][0])
        in = !in;
    if (in) return true;
  }
  return false;
}

static bool in_goal(const herd_scenario *sc, const float p[2]) {
  float dx = p[0] - sc->target.position_m[0], dy = p[1] - sc->target.position_m[1];
  return dx * dx + dy * dy <= sc->target.goal_radius_m * sc->target.goal_radius_m;
}

/* Every point of the field (a 3 m lattice) with room for a flock (HERD_ROUTE_CLEARANCE_M plus
 * a cell's diagonal from every obstacle) that no closed wall shuts in has a finite distance to
 * the goal, and following the waypoints a metre at a time reaches the goal's circle without
 * entering an obstacle, the distance falling all the way; no point shut in has a way home. */
static void the_field_leads_home_from_every_open_point(void) {
  for (size_t l = 0; l < sizeof levels / sizeof levels[0]; ++l) {
    herd_scenario sc = shipped(levels[l], NULL, 0);
    herd_route *route = herd_route_build(&sc);
    CHECK(route != NULL);
    if (!route) continue;
    int points = 0, home = 0, crossed = 0, longest = 0, enclosed = 0, enclosed_reached = 0;
    for (float x = 1.5f; x < sc.world.size_m[0]; x += 3.0f)
      for (float y = 1.5f; y < sc.world.size_m[1]; y += 3.0f) {
        if (clearance(&sc, x, y) < HERD_ROUTE_CLEARANCE_M + 1.5f) continue;
        if (shut_in(&sc, x, y)) {
          ++enclosed, enclosed_reached += isfinite(herd_route_distance(route, x, y));
          continue;
        }
        ++points;
        float p[2] = {x, y}, next[2];
        int steps = 0;
        bool ok = isfinite(herd_route_distance(route, x, y));
        while (ok && !in_goal(&sc, p) && steps < 2000) {
          ok = herd_route_waypoint(route, p, 1.0f, next);
          if (ok && !clear_segment(&sc, p, next)) ++crossed, ok = false;
          ok = ok && herd_route_distance(route, next[0], next[1]) < herd_route_distance(route, p[0], p[1]);
          p[0] = next[0], p[1] = next[1], ++steps;
        }
        home += ok && in_goal(&sc, p);
        longest = steps > longest ? steps : longest;
      }
    printf(
        "  %s: %d of %d open points led home (the longest in %d waypoints), %d crossings; %d shut in by walls, "
        "%d of them with a way home\n",
        levels[l], home, points, longest, crossed, enclosed, enclosed_reached);
    CHECK(points > 500 && home == points && crossed == 0 && enclosed_reached == 0);
    herd_route_free(route);
  }
}

/* A dog behind a wall, sent to the other side: it goes around (never inside), and gets there. */
static void a_dog_walks_around_a_wall_not_through_it(void) {
  const char *sets[] = {"obstacles.walls=[{\"points_m\": [[40, 20], [40, 80]], \"thickness_m\": 1}]",
                        "target.position_m=[100, 50]", "obstacles.pens=[]", "obstacles.spheres=[]"};
  herd_scenario sc = shipped("pen-with-gate.json", sets, 4);
  herd_route *route = herd_route_build(&sc);
  CHECK(route != NULL);
  if (!route) return;
  float dog[2] = {30, 50}, aim[2] = {50, 50};
  bool inside = false;
  int steps = 0;
  for (; steps < 200 && hypotf(dog[0] - aim[0], dog[1] - aim[1]) > 1.0f; ++steps) {
    float next[2], was[2] = {dog[0], dog[1]};
    CHECK(herd_route_toward(route, dog, aim, HERD_DOG_CLEARANCE_M, next));
    float dx = next[0] - dog[0], dy = next[1] - dog[1], len = hypotf(dx, dy), move = len < 1.5f ? len : 1.5f;
    if (len > 0) herd_route_slide(&sc, dog, move * dx / len, move * dy / len, HERD_DOG_CLEARANCE_M);
    inside = inside || !clear_segment(&sc, was, dog);
  }
  printf("  around a 60 m wall in %d steps of 1.5 m (straight through: 14)\n", steps);
  CHECK(!inside && steps < 200 && steps > 30);
  herd_route_free(route);
}

/* ---- The levels, 20 seeds each way ----------------------------------------------------------- */

typedef struct level_run {
  const char *file, *rules;
  int seed;
  bool herded, dog_inside;
  uint32_t sheep_inside; /* sheep inside an obstacle at the end */
  double bridge_m;       /* how close the flock's centre came to the first bridge's middle */
} level_run;

static void *run_level(void *arg) {
  level_run *r = arg;
  char seed[32], rules[48];
  snprintf(seed, sizeof seed, "seed=%d", r->seed);
  snprintf(rules, sizeof rules, "dogs.rules=%s", r->rules);
  herd_scenario sc = shipped(r->file, (const char *[]){seed, rules}, 2);
  herd_sim *sim = sim_start(&sc, 1);
  herd_error err;
  const herd_shape *bridge = &sc.obstacles.bridges.s[0];
  float mid[2] = {0.5f * (bridge->v[0][0] + bridge->v[1][0]), 0.5f * (bridge->v[0][1] + bridge->v[1][1])};
  r->bridge_m = INFINITY;
  while (herd_sim_outcome(sim) == HERD_RUNNING && herd_sim_step(sim, &err) == HERD_OK) {
    r->dog_inside = r->dog_inside || herd_geometry_blocks(&sc, herd_sim_steering(sim, 0)->pos);
    const double *g = herd_sim_observation(sim)->centroid;
    if (sc.obstacles.bridges.count) r->bridge_m = fmin(r->bridge_m, hypot(g[0] - mid[0], g[1] - mid[1]));
  }
  r->herded = herd_sim_outcome(sim) == HERD_SUCCEEDED;
  flock_copy f = read_flock(sim);
  for (uint32_t i = 0; i < f.n; ++i) r->sheep_inside += herd_geometry_blocks(&sc, &f.pos[2 * i]);
  free_flock(&f);
  herd_sim_destroy(sim);
  return NULL;
}

enum { SEEDS = 20 };

static void levels_are_herded_with_waypoints_not_by_the_paper_alone(void) {
  for (size_t l = 0; l < sizeof levels / sizeof levels[0]; ++l)
    for (int published = 0; published <= 1; ++published) {
      level_run runs[SEEDS];
      for (int s = 0; s < SEEDS; ++s)
        runs[s] = (level_run){levels[l], published ? "published" : "waypoints", s + 1, false, false, 0, 0};
      run_two_at_a_time(run_level, runs, sizeof runs[0], SEEDS);
      int herded = 0, inside = 0, sheep = 0, around = 0;
      for (int s = 0; s < SEEDS; ++s) {
        herded += runs[s].herded, inside += runs[s].dog_inside, sheep += runs[s].sheep_inside;
        around += runs[s].herded && isfinite(runs[s].bridge_m) && runs[s].bridge_m > 15.0; /* not over the bridge */
      }
      printf(
          "  %s, dogs.rules = %s: herded in %d of %d seeds (%d of them not over the bridge); the dog inside an "
          "obstacle in %d, sheep at the end %d\n",
          levels[l], runs[0].rules, herded, SEEDS, around, inside, sheep);
      /* A herded flock crosses by the bridge; one seed in 20 may see the flock bolt and come
       * home around the river's end beyond the field (the field is open): the dynamics are
       * chaotic, and a change in the last bit of a sum changes which seed does. */
      CHECK(inside == 0 && sheep == 0 && around <= 1);
      if (published && strcmp(levels[l], "farm.json") == 0) continue; /* the claim is about gates and bridges */
      if (published)
        CHECK_MSG(herded <= SEEDS - 15, "%s: the paper's dog alone herded %d of %d", levels[l], herded, SEEDS);
      else
        CHECK_MSG(herded >= 18, "%s: waypoints herded only %d of %d", levels[l], herded, SEEDS);
    }
}

int main(void) { TEST_MAIN(TESTS); }
