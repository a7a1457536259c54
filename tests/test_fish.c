/* The fish school of Ban, Ning & Tu (2008) (kernels/models/fish.h, docs/models/fish.md): the
 * escape turn as read from eqs. 17-19, a shark kept at a distance by escape (against the same
 * seeds with escape off), foraging that brings the school onto the food (against sated fish),
 * a meal resetting hunger, sated fish leaving food uneaten, food validation, and the backends
 * agreeing. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>

#include "models/fish.h"
#include "sim_util.h"

#define PI 3.14159265358979323846

#define TESTS(X)                                     \
  X(escape_angle_follows_eqs_17_to_19)               \
  X(escape_turns_away_from_the_threats_side)         \
  X(escape_keeps_the_shark_away_in_every_seed)       \
  X(foraging_brings_the_school_onto_the_food)        \
  X(a_meal_resets_hunger)                            \
  X(a_sated_school_leaves_the_food_it_swims_through) \
  X(food_must_lie_in_the_world_and_fit_the_steering) \
  X(backends_agree_with_shark_food_and_reef)
TESTS(DECLARE_TEST)

static herd_vec3 v3(float x, float y, float z) { return herd_v3(x, y, z); }

/* e = 180 deg head on, 0 when the threat swims the fish's way or across it, and
 * arccos(cos) - pi/2 between, rising from 0 at 90 deg to pi/2 near 180 deg. */
static void escape_angle_follows_eqs_17_to_19(void) {
  herd_vec3 dir = v3(1, 0, 0);
  CHECK(fabsf(herd_fish_escape_angle(dir, v3(-0.4f, 0, 0)) - (float)PI) < 1e-6f); /* any speed */
  CHECK(herd_fish_escape_angle(dir, v3(0.3f, 0, 0)) == 0.0f);
  CHECK(herd_fish_escape_angle(dir, v3(0, 0.5f, 0)) == 0.0f);
  CHECK(herd_fish_escape_angle(dir, v3(0.2f, -0.9f, 0.1f)) == 0.0f);
  CHECK(herd_fish_escape_angle(dir, v3(0, 0, 0)) == 0.0f); /* a threat standing still: no turn */
  double previous = 0;
  for (int deg = 95; deg <= 175; deg += 10) {
    double a = deg * PI / 180;
    float e = herd_fish_escape_angle(dir, v3((float)(2 * cos(a)), (float)(2 * sin(a)), 0));
    CHECK_MSG(fabs(e - (a - PI / 2)) < 1e-5, "%d deg: e = %g, want %g", deg, (double)e, a - PI / 2);
    CHECK(e > previous);
    previous = e;
  }
}

/* A flock view over nothing but one threat: enough for the direction of escape. */
typedef struct threat_view {
  herd_grid grid;
  herd_step_info info;
  float steer[HERD_STEER_FLOATS];
  herd_flock_view v;
} threat_view;

static void make_threat_view(threat_view *t, herd_vec3 at, herd_vec3 vel) {
  memset(t, 0, sizeof *t);
  t->grid.dims = 3;
  t->info.steering_count = 1;
  float s[HERD_STEER_FLOATS] = {at.x, at.y, at.z, HERD_ROLE_THREAT, vel.x, vel.y, vel.z, 0};
  memcpy(t->steer, s, sizeof s);
  t->v.grid = &t->grid, t->v.steer = t->steer, t->v.info = &t->info;
}

/* A shark crossing ahead from the left (+y): the fish turns right (-y) by e, in the plane of
 * its heading and the shark's offset; from the right it turns left; head on it reverses. */
static void escape_turns_away_from_the_threats_side(void) {
  threat_view t;
  herd_vec3 p = v3(0, 0, 0), dir = v3(1, 0, 0);
  double a = 150 * PI / 180, e = a - PI / 2;
  herd_vec3 vel = v3((float)cos(a), -(float)sin(a), 0); /* 150 deg from the fish's heading */
  make_threat_view(&t, v3(4, 3, 0), vel);
  herd_vec3 want = herd_fish_escape_dir(&t.v, p, dir, 0);
  CHECK_MSG(fabs(want.x - cos(e)) < 1e-5 && fabs(want.y + sin(e)) < 1e-5 && fabsf(want.z) < 1e-6f, "left: (%g, %g, %g)",
            (double)want.x, (double)want.y, (double)want.z);
  make_threat_view(&t, v3(4, -3, 0), v3(vel.x, -vel.y, 0));
  want = herd_fish_escape_dir(&t.v, p, dir, 0);
  CHECK_MSG(fabs(want.x - cos(e)) < 1e-5 && fabs(want.y - sin(e)) < 1e-5, "right: (%g, %g)", (double)want.x,
            (double)want.y);
  make_threat_view(&t, v3(3, 0, 2), v3(-1, 0, 0)); /* above and ahead, head on */
  want = herd_fish_escape_dir(&t.v, p, dir, 0);
  CHECK_MSG(fabsf(want.x + 1) < 1e-5f && fabsf(want.y) < 1e-5f && fabsf(want.z) < 1e-5f, "head on: (%g, %g, %g)",
            (double)want.x, (double)want.y, (double)want.z);
}

/* ---- The shark ------------------------------------------------------------------------------ */

/* fish-shark.json: a pursuer at 4.5 m/s chases the nearest of 200 fish. Over steps 201-1000
 * the shark's distance to its nearest fish is above 2 m (two body lengths) in most steps with
 * escape and in few without, seed by seed. */
enum { SHARK_SEEDS = 4, SHARK_STEPS = 1000, SHARK_FROM = 200 };
#define SHARK_BOUND_M 2.0

typedef struct shark_run {
  int seed;
  const char *escape;
  double above; /* fraction of steps with the nearest fish beyond SHARK_BOUND_M */
} shark_run;

static void *run_shark(void *arg) {
  shark_run *r = arg;
  char seed[32], escape[48];
  snprintf(seed, sizeof seed, "seed=%d", r->seed);
  snprintf(escape, sizeof escape, "fish.escape=%s", r->escape);
  herd_scenario sc = shipped("fish-shark.json", (const char *[]){seed, escape}, 2);
  herd_sim *sim = sim_start(&sc, 1);
  herd_error err;
  int above = 0;
  for (int t = 1; t <= SHARK_STEPS && herd_sim_step(sim, &err) == HERD_OK; ++t)
    above += t > SHARK_FROM && herd_sim_observation(sim)->nearest[0].dist_m > SHARK_BOUND_M;
  r->above = (double)above / (SHARK_STEPS - SHARK_FROM);
  herd_sim_destroy(sim);
  return NULL;
}

static void escape_keeps_the_shark_away_in_every_seed(void) {
  for (int s = 1; s <= SHARK_SEEDS; ++s) {
    shark_run runs[2] = {{s, "ban2008", 0}, {s, "none", 0}};
    run_two_at_a_time(run_shark, runs, sizeof runs[0], 2);
    double on = runs[0].above, off = runs[1].above;
    printf("  seed %d: nearest fish beyond %.0f m in %.3f of steps with escape, %.3f without\n", s, SHARK_BOUND_M, on,
           off);
    CHECK_MSG(on >= 0.8 && off <= 0.2, "seed %d: %.3f with escape, %.3f without", s, on, off);
  }
}

/* ---- Food ------------------------------------------------------------------------------------ */

/* The distance from fish i of f to steering agent a, the short way through the wrapping world;
 * INFINITY when a is not a food particle left uneaten. */
static double distance_to_food(const herd_sim *sim, const flock_copy *f, uint32_t i, const herd_steering_state *a) {
  if (a->strategy != HERD_STRATEGY_FOOD || a->mode == HERD_MODE_EATEN) return INFINITY;
  double s = 0;
  for (int k = 0; k < 3; ++k) {
    double x = fabs(f->pos[3 * i + k] - a->pos[k]), size = herd_sim_scenario(sim)->world.size_m[k];
    x = fmin(x, size - x); /* the world wraps */
    s += x * x;
  }
  return sqrt(s);
}

/* The mean over fish of the distance to the nearest food particle not yet eaten; -1 when all
 * are gone. */
static double mean_distance_to_food(herd_sim *sim) {
  flock_copy f = read_flock(sim);
  double sum = 0;
  bool any = false;
  for (uint32_t i = 0; i < f.n; ++i) {
    double best = INFINITY;
    for (uint32_t d = 0; d < herd_sim_steering_count(sim); ++d)
      best = fmin(best, distance_to_food(sim, &f, i, herd_sim_steering(sim, d)));
    any = any || isfinite(best);
    sum += best;
  }
  free_flock(&f);
  return any ? sum / herd_sim_scenario(sim)->flock.count : -1;
}

static uint32_t food_eaten(const herd_sim *sim) {
  uint32_t n = 0;
  for (uint32_t d = 0; d < herd_sim_steering_count(sim); ++d) n += herd_sim_steering(sim, d)->mode == HERD_MODE_EATEN;
  return n;
}

/* A patch of 12 food particles 25 m from where a school of 200 starts (fish-foraging.json
 * without its reefs), each so small (eaten within 5 cm) that the school gathers on the patch
 * before it is gone. Hungry (H0 = 1), the school's mean distance to the nearest particle left
 * falls below 3 m within 600 steps in each of seeds 1-3; sated (H0 = 0: it schools and never
 * forages), the same school never comes that close (it may pass near the patch by chance). */
#define PATCH                                                                                                      \
  "food.points_m=[[27.5, 27.5, 15], [28.5, 27.5, 15], [27.5, 28.5, 15], [28.5, 28.5, 15], [28, 28, 13], [28, 28, " \
  "17], [26.5, 28, 15], [29.5, 28, 15], [28, 26.5, 15], [28, 29.5, 15], [27.5, 27.5, 17], [28.5, 28.5, 13]]"
/* fish-foraging.json without its reefs, with the food `points` eaten within `eat`, for `seed`,
 * hungry (H0 = 1) or sated (H0 = 0), started on two threads. */
static herd_sim *foraging_start(const char *points, const char *eat, int seed, bool hungry, herd_scenario *sc) {
  char seed_set[32];
  snprintf(seed_set, sizeof seed_set, "seed=%d", seed);
  const char *sets[] = {points, "obstacles.spheres=[]", eat, seed_set,
                        hungry ? "fish.initial_hunger=1" : "fish.initial_hunger=0"};
  *sc = shipped("fish-foraging.json", sets, 5);
  return sim_start(sc, 2);
}

static double closest_approach_to_food(int seed, bool hungry) {
  herd_scenario sc;
  herd_sim *sim = foraging_start(PATCH, "food.eat_radius_m=0.05", seed, hungry, &sc);
  herd_error err;
  double closest = INFINITY;
  for (int t = 1; t <= 600 && herd_sim_step(sim, &err) == HERD_OK; ++t) {
    double d = mean_distance_to_food(sim);
    if (d >= 0) closest = fmin(closest, d);
  }
  printf("  seed %d, %s: the school came within %.2f m of the food on average; %u of 12 eaten\n", seed,
         hungry ? "hungry" : "sated", closest, food_eaten(sim));
  herd_sim_destroy(sim);
  return closest;
}

static void foraging_brings_the_school_onto_the_food(void) {
  for (int seed = 1; seed <= 3; ++seed) {
    double hungry = closest_approach_to_food(seed, true), sated = closest_approach_to_food(seed, false);
    CHECK_MSG(hungry < 3.0 && sated > 3.0, "seed %d: %.2f m hungry, %.2f m sated", seed, hungry, sated);
  }
}

/* The step a particle is found eaten, the fish that was nearest to it after the step before
 * has hunger 0 plus at most one step's digestion (kept in the w of its velocity: H = H0 + w). */
static void a_meal_resets_hunger(void) {
  herd_scenario sc = shipped("fish-foraging.json", NULL, 0);
  const herd_fish_params *m = (const herd_fish_params *)sc.params.bytes;
  herd_sim *sim = sim_start(&sc, 1);
  herd_error err;
  uint32_t meals = 0, steering = herd_sim_steering_count(sim);
  for (int t = 1; t <= 600 && meals < 3; ++t) {
    herd_observation before = *herd_sim_observation(sim);
    herd_steering_mode was[HERD_MAX_STEERING];
    for (uint32_t d = 0; d < steering; ++d) was[d] = herd_sim_steering(sim, d)->mode;
    CHECK(herd_sim_step(sim, &err) == HERD_OK);
    for (uint32_t d = 0; d < steering; ++d) {
      if (was[d] == HERD_MODE_EATEN || herd_sim_steering(sim, d)->mode != HERD_MODE_EATEN) continue;
      const float *pos, *vel;
      const uint32_t *agent;
      CHECK(herd_sim_map_state(sim, &pos, &vel, &agent, &err) == HERD_OK);
      for (uint32_t i = 0; i < sc.flock.count; ++i) {
        if (herd_agent_id(agent[i]) != before.nearest[d].id) continue;
        float hunger = m->initial_hunger + vel[4 * i + 3];
        printf("  step %d: food %u eaten by fish %u, hunger now %.6f\n", t, d, before.nearest[d].id, (double)hunger);
        CHECK(before.nearest[d].dist_m <= sc.food.eat_radius_m);
        CHECK_MSG(hunger >= 0.0f && hunger <= 1.01f * m->digestion_per_step, "hunger %g", (double)hunger);
        ++meals;
      }
    }
  }
  CHECK_MSG(meals >= 3, "only %u meals seen", meals);
  herd_sim_destroy(sim);
}

/* Food particles not yet eaten with a fish within `radius` of them, by brute force. */
static uint32_t food_within_reach(herd_sim *sim, double radius) {
  flock_copy f = read_flock(sim);
  uint32_t n = 0;
  for (uint32_t d = 0; d < herd_sim_steering_count(sim); ++d) {
    bool near = false;
    for (uint32_t i = 0; i < f.n && !near; ++i)
      near = distance_to_food(sim, &f, i, herd_sim_steering(sim, d)) <= radius;
    n += near;
  }
  free_flock(&f);
  return n;
}

/* 18 particles strewn through the box the school starts in (fish-foraging.json without its
 * reefs), 1 m to eat, in seeds 1-3. Sated (H0 = 0: H reaches beta = 0.5 only after ~750 steps), the school
 * swims through them for 300 steps, fish end steps within reach of particles, and not one is
 * eaten, every fish is flagged sated and no fish is the food's nearest; hungry (H0 = 1), the
 * same school eats at least half of them in the same 300 steps. */
#define STREWN                                                                                                   \
  "food.points_m=[[6, 6, 12], [10.5, 6, 12], [15, 6, 12], [6, 10.5, 12], [10.5, 10.5, 12], [15, 10.5, 12], [6, " \
  "15, 12], [10.5, 15, 12], [15, 15, 12], [6, 6, 18], [10.5, 6, 18], [15, 6, 18], [6, 10.5, 18], [10.5, 10.5, "  \
  "18], [15, 10.5, 18], [6, 15, 18], [10.5, 15, 18], [15, 15, 18]]"
static uint32_t eaten_in_300_steps(int seed, bool hungry, uint32_t *reached) {
  herd_scenario sc;
  herd_sim *sim = foraging_start(STREWN, "food.eat_radius_m=1", seed, hungry, &sc);
  herd_error err;
  uint8_t *flags = malloc(sc.flock.count);
  CHECK(flags != NULL);
  *reached = 0;
  for (int t = 1; t <= 300 && herd_sim_step(sim, &err) == HERD_OK; ++t) {
    *reached += food_within_reach(sim, sc.food.eat_radius_m);
    CHECK(herd_sim_read_flags(sim, flags, &err) == HERD_OK);
    uint32_t sated = 0;
    for (uint32_t i = 0; i < sc.flock.count; ++i) sated += (flags[i] & HERD_FLAG_SATED) != 0;
    /* Hungry, none in the first step (later those that ate, for ~750 steps); sated, all of them. */
    if (!hungry || t == 1)
      CHECK_MSG(sated == (hungry ? 0u : sc.flock.count), "step %d: %u of %u fish flagged sated", t, sated,
                sc.flock.count);
    for (uint32_t d = 0; !hungry && d < herd_sim_steering_count(sim); ++d)
      if (herd_sim_steering(sim, d)->mode != HERD_MODE_EATEN)
        CHECK(isinf(herd_sim_observation(sim)->nearest[d].dist_m)); /* no fish is hungry */
  }
  uint32_t eaten = food_eaten(sim);
  printf("  seed %d, %s: %u of 18 eaten; a fish ended a step within reach of an uneaten particle %u times\n", seed,
         hungry ? "hungry" : "sated", eaten, *reached);
  free(flags);
  herd_sim_destroy(sim);
  return eaten;
}

static void a_sated_school_leaves_the_food_it_swims_through(void) {
  for (int seed = 1; seed <= 3; ++seed) {
    uint32_t reached_sated, reached_hungry;
    uint32_t sated = eaten_in_300_steps(seed, false, &reached_sated);
    uint32_t hungry = eaten_in_300_steps(seed, true, &reached_hungry);
    CHECK_MSG(sated == 0 && reached_sated > 0, "seed %d sated: %u eaten, %u times within reach", seed, sated,
              reached_sated);
    CHECK_MSG(hungry >= 9, "seed %d hungry: %u of 18 eaten", seed, hungry);
  }
}

static void check_refused(const char *const *sets, int count, const char *want) {
  herd_scenario sc;
  herd_error err;
  herd_status s = scenario_load("scenarios/fish-foraging.json", sets, count, &sc, &err);
  CHECK_MSG(s == HERD_E_INPUT && strstr(err.message, want), "%s: %s", sets[0], s == HERD_OK ? "accepted" : err.message);
}

static void food_must_lie_in_the_world_and_fit_the_steering(void) {
  check_refused((const char *[]){"food.points_m=[[61, 20, 15]]"}, 1,
                "food.points_m[0][0]: 61 is outside the world (allowed: 0 to 60)");
  check_refused((const char *[]){"food.points_m=[[30, 30, 15]]"}, 1, "food.points_m[0]: inside obstacles.spheres[0]");
  check_refused((const char *[]){"agents[0].strategy=pursuer", "agents[0].count=60"}, 2,
                "food.points_m: 6 particles with 60 other steering agents make 66");
  herd_scenario sc;
  herd_error err;
  CHECK(scenario_load(NULL, (const char *[]){"food.points_m=[[1, 1]]"}, 1, &sc, &err) == HERD_E_INPUT);
  CHECK_MSG(strstr(err.message, "food.points_m"), "%s", err.message); /* no food for Strömbom's sheep */
}

/* A hungry school with a shark, food and a reef on both backends: after one step every fish
 * within rounding; after 20 steps, where a switch of behaviour (escape, a stall's restart) can
 * turn a rounding difference into a different move, nearly all fish still within 0.1 m and
 * the order parameters and meals alike. */
static void backends_agree_with_shark_food_and_reef(void) {
  if (!have_opencl()) {
    printf("  no OpenCL device: skipped\n");
    return;
  }
  const char *sets[] = {"agents[0].strategy=pursuer", "agents[0].position_m=[15, 15, 15]",
                        "agents[0].speed_m_per_step=0.45"};
  herd_scenario sc = shipped("fish-foraging.json", sets, 3);
  herd_sim *cpu, *cl;
  herd_error err;
  CHECK(herd_sim_create(&(herd_sim_desc){.scenario = &sc, .threads = 2, .backend = "cpu"}, &cpu, &err) == HERD_OK);
  CHECK_MSG(herd_sim_create(&(herd_sim_desc){.scenario = &sc, .backend = "opencl"}, &cl, &err) == HERD_OK, "%s",
            err.message);
  for (int step = 1; step <= 20; ++step) {
    CHECK(herd_sim_step(cpu, &err) == HERD_OK && herd_sim_step(cl, &err) == HERD_OK);
    if (step != 1 && step != 20) continue;
    flock_copy a = read_flock(cpu), b = read_flock(cl);
    float worst = 0;
    uint32_t close = 0;
    for (uint32_t i = 0; i < a.n; ++i) {
      float far = 0;
      for (uint32_t k = 0; k < 3; ++k) { /* the world wraps: 0 and 60 m are one place */
        float d = fabsf(a.pos[3 * i + k] - b.pos[3 * i + k]), size = sc.world.size_m[k];
        far = fmaxf(far, fminf(d, size - d));
      }
      worst = fmaxf(worst, far);
      close += far < 0.1f;
    }
    float pol_a = herd_sim_observation(cpu)->polarisation, pol_b = herd_sim_observation(cl)->polarisation;
    printf("  step %d: %u of %u fish within 0.1 m (largest difference %.3g m); polarisation %.4f / %.4f\n", step, close,
           a.n, (double)worst, (double)pol_a, (double)pol_b);
    if (step == 1) CHECK_MSG(worst < 1e-3f, "step 1: the backends differ by %.3g m", (double)worst);
    CHECK(close >= (step == 1 ? a.n : a.n * 95 / 100));
    CHECK(food_eaten(cpu) == food_eaten(cl) && fabsf(pol_a - pol_b) < (step == 1 ? 1e-4f : 0.02f));
    free_flock(&a), free_flock(&b);
  }
  herd_sim_destroy(cpu);
  herd_sim_destroy(cl);
}

int main(void) { TEST_MAIN(TESTS); }
