/* The functions herd.h offers programs: the scenario as a handle (loaded, copied, set and read
 * by path, described), flags in id order, runs of many steps, placing a steering agent, outcome
 * names and struct sizes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "herd/herd.h"
#include "sim_util.h"
#include "test.h"

static herd_sim *new_sim(const char *const *sets, int set_count) {
  herd_scenario sc = scenario_with(sets, set_count);
  herd_sim *sim = NULL;
  herd_error err;
  if (herd_sim_create(&(herd_sim_desc){.scenario = &sc, .threads = 1}, &sim, &err) != HERD_OK) {
    fprintf(stderr, "herd_sim_create: %s\n", err.message);
    exit(1);
  }
  return sim;
}

static uint32_t count_flag(const uint8_t *flags, uint32_t n, unsigned flag) {
  uint32_t c = 0;
  for (uint32_t k = 0; k < n; ++k) c += (flags[k] & flag) != 0;
  return c;
}

/* Flags are in id order: every agent inside the goal now (by its own position) is flagged
 * delivered, and the flagged count is the observation's. */
static void flags_follow_agent_ids(void) {
  const char *sets[] = {"seed=3"};
  herd_sim *sim = new_sim(sets, 1);
  const herd_scenario *sc = herd_sim_scenario(sim);
  uint32_t n = sc->flock.count, checked_inside = 0;
  float *pos = malloc(sizeof(float) * 2 * n);
  uint8_t *flags = malloc(n);
  herd_error err;
  for (int round = 0; round < 40 && herd_sim_outcome(sim) == HERD_RUNNING; ++round) {
    CHECK(herd_sim_run(sim, 50, NULL, &err) == HERD_OK);
    CHECK(herd_sim_read_flock(sim, pos, NULL, &err) == HERD_OK);
    CHECK(herd_sim_read_flags(sim, flags, &err) == HERD_OK);
    const herd_observation *o = herd_sim_observation(sim);
    CHECK(count_flag(flags, n, HERD_FLAG_DELIVERED) == o->delivered);
    for (uint32_t k = 0; k < n; ++k) {
      float dx = pos[2 * k] - sc->target.position_m[0], dy = pos[2 * k + 1] - sc->target.position_m[1];
      if (sqrtf(dx * dx + dy * dy) > sc->target.goal_radius_m * 0.99f) continue;
      CHECK_MSG(flags[k] & HERD_FLAG_DELIVERED, "agent %u is in the goal but not flagged delivered", k);
      ++checked_inside;
    }
  }
  CHECK(herd_sim_outcome(sim) == HERD_SUCCEEDED);
  CHECK(checked_inside > 0);
  CHECK(count_flag(flags, n, HERD_FLAG_DELIVERED) == n);
  free(pos);
  free(flags);
  herd_sim_destroy(sim);
}

/* herd_sim_run stops after the steps asked for, or at the outcome, the same step a loop of
 * herd_sim_step reaches; after the outcome it takes none. */
static void run_stops_at_the_outcome(void) {
  const char *sets[] = {"seed=5"};
  herd_sim *a = new_sim(sets, 1), *b = new_sim(sets, 1);
  herd_error err;
  uint32_t done = 99;
  CHECK(herd_sim_run(a, 7, &done, &err) == HERD_OK);
  CHECK(done == 7 && herd_sim_step_index(a) == 7);
  CHECK(herd_sim_run(a, 0, &done, &err) == HERD_OK);
  CHECK(herd_sim_outcome(a) != HERD_RUNNING);
  CHECK(done + 7 == herd_sim_step_index(a));
  while (herd_sim_outcome(b) == HERD_RUNNING) CHECK(herd_sim_step(b, &err) == HERD_OK);
  CHECK(herd_sim_step_index(a) == herd_sim_step_index(b));
  CHECK(herd_sim_outcome(a) == herd_sim_outcome(b));
  CHECK(herd_sim_observation(a)->delivered == herd_sim_observation(b)->delivered);
  CHECK(herd_sim_run(a, 10, &done, &err) == HERD_OK);
  CHECK(done == 0);
  herd_sim_destroy(a);
  herd_sim_destroy(b);
}

/* A run stopped by the flag reports the steps it took and HERD_E_INTERRUPTED. */
static void run_reports_an_interruption(void) {
  herd_scenario sc = scenario_with(NULL, 0);
  static volatile sig_atomic_t stop = 1;
  herd_sim *sim;
  herd_error err;
  CHECK(herd_sim_create(&(herd_sim_desc){.scenario = &sc, .threads = 1, .stop = &stop}, &sim, &err) == HERD_OK);
  uint32_t done = 99;
  CHECK(herd_sim_run(sim, 10, &done, &err) == HERD_E_INTERRUPTED);
  CHECK(done == 0 && herd_sim_step_index(sim) == 0);
  herd_sim_destroy(sim);
}

/* A placed dog starts its next step from its new place, and the flock sees it there: the
 * sheep it is put beside reacts. */
static void placed_dog_moves_from_its_place(void) {
  herd_sim *sim = new_sim(NULL, 0);
  uint32_t n = herd_sim_scenario(sim)->flock.count;
  float *pos = malloc(sizeof(float) * 2 * n);
  uint8_t *flags = malloc(n);
  herd_error err;
  CHECK(herd_sim_run(sim, 3, NULL, &err) == HERD_OK);
  CHECK(herd_sim_read_flock(sim, pos, NULL, &err) == HERD_OK);
  float beside[2] = {pos[2 * 17] + 1.0f, pos[2 * 17 + 1]};
  CHECK(herd_sim_place_steering(sim, 0, beside, &err) == HERD_OK);
  const herd_steering_state *dog = herd_sim_steering(sim, 0);
  CHECK(dog->pos[0] == beside[0] && dog->pos[1] == beside[1]);
  CHECK(dog->velocity[0] == 0.0f && dog->velocity[1] == 0.0f);
  CHECK(herd_sim_step(sim, &err) == HERD_OK);
  float dx = dog->pos[0] - beside[0], dy = dog->pos[1] - beside[1];
  CHECK(sqrtf(dx * dx + dy * dy) <= herd_sim_scenario(sim)->dogs.speed_m_per_step * 1.001f);
  CHECK(herd_sim_read_flags(sim, flags, &err) == HERD_OK);
  CHECK_MSG(flags[17] & HERD_FLAG_REACTED, "sheep 17 did not react to the dog put beside it");
  free(pos);
  free(flags);
  herd_sim_destroy(sim);
}

static void placing_refuses_bad_input(void) {
  herd_sim *sim = new_sim(NULL, 0);
  herd_error err;
  float inside[2] = {10, 10}, outside[2] = {10, 1e6f}, nan_pos[2] = {NAN, 10};
  CHECK(herd_sim_place_steering(sim, 7, inside, &err) == HERD_E_INPUT);
  CHECK_MSG(strcmp(err.message, "herd_sim_place_steering: steering agent 7: this simulation has 1 (0..0)") == 0, "%s",
            err.message);
  CHECK(herd_sim_place_steering(sim, 0, outside, &err) == HERD_E_INPUT);
  CHECK(strstr(err.message, "position[1] (y)") != NULL && strstr(err.message, "outside the world") != NULL);
  CHECK(herd_sim_place_steering(sim, 0, nan_pos, &err) == HERD_E_INPUT);
  CHECK_MSG(strstr(err.message, "position[0] (x) = nan is not a finite number") != NULL, "%s", err.message);
  CHECK(herd_sim_place_steering(sim, 0, (const float[2]){INFINITY, 10}, &err) == HERD_E_INPUT);
  CHECK_MSG(strstr(err.message, "position[0] (x) = inf is not a finite number") != NULL, "%s", err.message);
  CHECK(herd_sim_place_steering(sim, 0, NULL, &err) == HERD_E_INPUT);
  CHECK_MSG(strstr(err.message, "no position given") != NULL, "%s", err.message);
  CHECK(herd_sim_steering(sim, 0)->pos[1] != 1e6f); /* left where it was */
  herd_sim_destroy(sim);
}

/* herd_sim_steer and herd_sim_release refuse an agent past the last, and an aim that is NULL
 * or not finite, naming the index and the count, or the coordinate; a refusal changes
 * nothing: the dog keeps heading for the aim it had, and stays finite. */
static void steering_refuses_bad_input(void) {
  herd_sim *sim = new_sim(NULL, 0);
  herd_error err;
  const float aim[2] = {30, 40};
  CHECK(herd_sim_steer(sim, 99, aim, &err) == HERD_E_INPUT);
  CHECK_MSG(strcmp(err.message, "herd_sim_steer: steering agent 99: this simulation has 1 (0..0)") == 0, "%s",
            err.message);
  CHECK(herd_sim_steer(sim, 1, aim, &err) == HERD_E_INPUT); /* one past the last */
  CHECK_MSG(strstr(err.message, "steering agent 1: this simulation has 1 (0..0)") != NULL, "%s", err.message);
  CHECK(herd_sim_release(sim, 99, &err) == HERD_E_INPUT);
  CHECK_MSG(strcmp(err.message, "herd_sim_release: steering agent 99: this simulation has 1 (0..0)") == 0, "%s",
            err.message);
  CHECK(herd_sim_steer(sim, UINT32_MAX, aim, &err) == HERD_E_INPUT);
  CHECK(herd_sim_steer(sim, 0, aim, &err) == HERD_OK);
  CHECK(herd_sim_steer(sim, 0, (const float[2]){INFINITY, 0}, &err) == HERD_E_INPUT);
  CHECK_MSG(strcmp(err.message, "herd_sim_steer: aim[0] (x) = inf is not a finite number") == 0, "%s", err.message);
  CHECK(herd_sim_steer(sim, 0, (const float[2]){10, NAN}, &err) == HERD_E_INPUT);
  CHECK_MSG(strstr(err.message, "aim[1] (y) = nan is not a finite number") != NULL, "%s", err.message);
  CHECK(herd_sim_steer(sim, 0, (const float[2]){-INFINITY, 0}, &err) == HERD_E_INPUT);
  CHECK_MSG(strstr(err.message, "aim[0] (x) = -inf") != NULL, "%s", err.message);
  CHECK(herd_sim_steer(sim, 0, NULL, &err) == HERD_E_INPUT);
  CHECK_MSG(strstr(err.message, "herd_sim_steer: no aim given") != NULL, "%s", err.message);
  const herd_steering_state *dog = herd_sim_steering(sim, 0);
  float was[2] = {dog->pos[0], dog->pos[1]};
  CHECK(herd_sim_step(sim, &err) == HERD_OK);
  CHECK_MSG(isfinite(dog->pos[0]) && isfinite(dog->pos[1]), "the dog is at (%g, %g)", (double)dog->pos[0],
            (double)dog->pos[1]);
  CHECK(dog->mode == HERD_MODE_MANUAL);
  float to_aim = hypotf(aim[0] - was[0], aim[1] - was[1]), now = hypotf(aim[0] - dog->pos[0], aim[1] - dog->pos[1]);
  CHECK_MSG(fabsf(to_aim - now - herd_sim_scenario(sim)->dogs.speed_m_per_step) < 1e-3f,
            "the dog came %g m nearer the aim it had", (double)(to_aim - now));
  CHECK(herd_sim_release(sim, 0, &err) == HERD_OK);
  CHECK(herd_sim_release(sim, 0, &err) == HERD_OK); /* released already: nothing to do */
  CHECK(herd_sim_step(sim, &err) == HERD_OK && dog->mode != HERD_MODE_MANUAL);
  herd_sim_destroy(sim);
}

/* In 3D the message names z; a sim without steering agents has none to give. */
static void steering_names_z_and_an_empty_list(void) {
  herd_scenario sc = shipped("boids3d.json", (const char *const[]){"agents[0].strategy=manual"}, 1);
  herd_sim *sim;
  herd_error err;
  CHECK_MSG(herd_sim_create(&(herd_sim_desc){.scenario = &sc, .threads = 1}, &sim, &err) == HERD_OK, "%s", err.message);
  CHECK(herd_sim_steering_count(sim) == 1);
  CHECK(herd_sim_steer(sim, 0, (const float[3]){1, 2, NAN}, &err) == HERD_E_INPUT);
  CHECK_MSG(strstr(err.message, "aim[2] (z) = nan") != NULL, "%s", err.message);
  CHECK(herd_sim_steer(sim, 0, (const float[3]){1, 2, 3}, &err) == HERD_OK);
  herd_sim_destroy(sim);
  sim = new_sim((const char *const[]){"dogs.count=0"}, 1);
  CHECK(herd_sim_steering_count(sim) == 0);
  CHECK(herd_sim_release(sim, 0, &err) == HERD_E_INPUT);
  CHECK_MSG(strcmp(err.message, "herd_sim_release: steering agent 0: this simulation has none") == 0, "%s",
            err.message);
  CHECK(herd_sim_steering(sim, 0) == NULL);
  herd_sim_destroy(sim);
}

/* On a torus a place past the edge wraps into the world. */
static void placing_wraps_on_a_torus(void) {
  herd_scenario sc = shipped("netlogo-enemies.json", NULL, 0);
  herd_sim *sim;
  herd_error err;
  CHECK(herd_sim_create(&(herd_sim_desc){.scenario = &sc, .threads = 1}, &sim, &err) == HERD_OK);
  float past[2] = {sc.world.size_m[0] + 5.0f, -3.0f};
  CHECK(herd_sim_place_steering(sim, 2, past, &err) == HERD_OK);
  const herd_steering_state *cruiser = herd_sim_steering(sim, 2);
  CHECK(fabsf(cruiser->pos[0] - 5.0f) < 1e-4f);
  CHECK(fabsf(cruiser->pos[1] - (sc.world.size_m[1] - 3.0f)) < 1e-4f);
  herd_sim_destroy(sim);
}

/* ---- The scenario as a handle ---------------------------------------------------------- */

static herd_scenario *loaded(const char *path, const char *const *sets, int set_count) {
  herd_scenario *sc = NULL;
  herd_error err;
  CHECK_MSG(herd_scenario_load(path, sets, set_count, &sc, &err) == HERD_OK && sc, "%s", err.message);
  return sc;
}

static double field(const herd_scenario *sc, const char *path) {
  double v = NAN;
  herd_error err;
  CHECK_MSG(herd_scenario_get(sc, path, &v, &err) == HERD_OK, "%s: %s", path, err.message);
  return v;
}

/* What herd_scenario_describe gives is what the fields hold, by path. */
static void describe_agrees_with_the_fields(void) {
  const char *sets[] = {"seed=42", "max_steps=321", "sheep.count=70"};
  herd_scenario *sc = loaded(NULL, sets, 3);
  if (!sc) return;
  herd_scenario_info in = herd_scenario_describe(sc);
  CHECK(in.model == HERD_MODEL_STROMBOM && in.dims == 2 && in.seed == 42 && in.max_steps == 321 && in.count == 70);
  CHECK(in.size_m[0] == (float)field(sc, "field.size_m") && in.size_m[1] == in.size_m[0] && in.size_m[2] == 0.0f);
  CHECK(in.target_m[0] == (float)field(sc, "target.position_m[0]") && in.goal_radius_m > 0.0f);
  CHECK(in.goal_radius_m == (float)field(sc, "target.goal_radius_m") && in.goal_pen == -1);
  CHECK(in.dogs == 1 && in.steering == 1 && in.agent_entries == 0 && in.food == 0 && in.path_points == 0);
  CHECK(in.shapes == 0 && in.spheres == 0 && !in.observes_groups && in.grid_cell_m > 0.0f);
  CHECK(in.observation_every == (uint32_t)field(sc, "output.observation.every_steps"));
  CHECK(in.trajectories_every == (uint32_t)field(sc, "output.trajectories.every_steps"));
  herd_scenario_free(sc);
  herd_scenario *farm = loaded("scenarios/pen-with-gate.json", NULL, 0);
  if (!farm) return;
  herd_obstacles ob;
  herd_scenario_obstacles(farm, &ob);
  in = herd_scenario_describe(farm);
  CHECK(in.shapes == ob.walls.count + ob.water.count + ob.pens.count && ob.pens.count >= 1 && in.goal_pen >= 0);
  herd_scenario_free(farm);
}

/* A set is checked as --set checks it; a refused one leaves the scenario as it was. */
static void set_is_checked_like_set(void) {
  herd_scenario *sc = loaded(NULL, NULL, 0);
  if (!sc) return;
  herd_error err;
  CHECK_MSG(herd_scenario_set(sc, "sheep.count", "80", &err) == HERD_OK, "%s", err.message);
  CHECK(herd_scenario_describe(sc).count == 80);
  char *before = herd_scenario_to_json(sc);
  CHECK(herd_scenario_set(sc, "sheep.neighbours", "90", &err) == HERD_E_INPUT);
  CHECK_MSG(strstr(err.message, "--set sheep.neighbours=90: ") && strstr(err.message, "sheep.count"), "%s",
            err.message);
  CHECK(herd_scenario_set(sc, "sheep.cuont", "3", &err) == HERD_E_INPUT && strstr(err.message, "sheep.count"));
  CHECK(herd_scenario_set(sc, "seed", "nan", &err) == HERD_E_INPUT);
  CHECK(herd_scenario_set(sc, "model", "boids", &err) == HERD_E_INPUT && strstr(err.message, "loaded"));
  CHECK(herd_scenario_set(sc, "", "1", &err) == HERD_E_INPUT &&
        herd_scenario_set(sc, "seed", NULL, &err) == HERD_E_INPUT);
  char *after = herd_scenario_to_json(sc);
  CHECK(before && after && strcmp(before, after) == 0);
  free(before), free(after);
  CHECK_MSG(herd_scenario_set(sc, "dogs.stop", "near_sheep_or_centre", &err) == HERD_OK, "%s", err.message);
  CHECK(field(sc, "dogs.stop") == 1);
  CHECK_MSG(herd_scenario_set(sc, "agents[0].strategy", "cruiser", &err) == HERD_OK, "%s", err.message);
  CHECK(herd_scenario_describe(sc).agent_entries == 1 && herd_scenario_describe(sc).steering == 2);
  CHECK(field(sc, "agents[0].strategy") == HERD_STRATEGY_CRUISER);
  CHECK_MSG(herd_scenario_set(sc, "field.size_m", "300", &err) == HERD_OK, "%s", err.message);
  CHECK(herd_scenario_describe(sc).size_m[1] == 300.0f);
  herd_scenario_free(sc);
  herd_scenario *boids = loaded(NULL, (const char *const[]){"model=boids"}, 1);
  if (!boids) return;
  CHECK_MSG(herd_scenario_set(boids, "world.size_m", "[50, 60]", &err) == HERD_OK, "%s", err.message);
  herd_scenario_info in = herd_scenario_describe(boids);
  CHECK(in.dims == 2 && in.size_m[0] == 50.0f && in.size_m[1] == 60.0f && in.size_m[2] == 0.0f);
  herd_scenario_free(boids);
}

/* A copy is a scenario of its own; a parse error hands out none. */
static void copies_and_errors(void) {
  herd_scenario *sc = loaded(NULL, NULL, 0), *copy = NULL;
  if (!sc) return;
  herd_error err;
  CHECK(herd_scenario_copy(sc, &copy, &err) == HERD_OK && copy);
  CHECK(herd_scenario_set(copy, "seed", "9", &err) == HERD_OK);
  CHECK(herd_scenario_describe(sc).seed == 1 && herd_scenario_describe(copy).seed == 9);
  herd_scenario_free(copy);
  herd_scenario_free(sc);
  herd_scenario_free(NULL);
  herd_scenario *bad = sc;
  CHECK(herd_scenario_parse("{\"sheep\": {\"count\": -1}}", "bad.json", NULL, 0, &bad, &err) == HERD_E_INPUT);
  CHECK(bad == NULL && strstr(err.message, "bad.json: sheep.count"));
  bad = sc;
  CHECK(herd_scenario_load("tests/data/no-such.json", NULL, 0, &bad, &err) != HERD_OK && bad == NULL);
}

/* Set after loading or given as a set at loading: the same scenario, the same run, bit for bit. */
static void set_after_loading_runs_the_same(void) {
  const char *sets[] = {"seed=5", "sheep.count=60", "sheep.neighbours=30", "dogs.speed_m_per_step=1.25"};
  herd_scenario *a = loaded(NULL, sets, 4), *b = loaded(NULL, NULL, 0);
  if (!a || !b) return;
  herd_error err;
  CHECK(herd_scenario_set(b, "seed", "5", &err) == HERD_OK &&
        herd_scenario_set(b, "sheep.neighbours", "30", &err) == HERD_OK);
  CHECK(herd_scenario_set(b, "sheep.count", "60", &err) == HERD_OK);
  CHECK(herd_scenario_set(b, "dogs.speed_m_per_step", "1.25", &err) == HERD_OK);
  char *x = herd_scenario_to_json(a), *y = herd_scenario_to_json(b);
  CHECK(x && y && strcmp(x, y) == 0);
  free(x), free(y);
  herd_sim *sa = NULL, *sb = NULL;
  CHECK(herd_sim_create(&(herd_sim_desc){.scenario = a, .threads = 1}, &sa, &err) == HERD_OK);
  herd_scenario_free(a); /* the sim keeps its own copy */
  CHECK(herd_sim_create(&(herd_sim_desc){.scenario = b, .threads = 1}, &sb, &err) == HERD_OK);
  herd_scenario_free(b);
  if (!sa || !sb) return;
  CHECK(herd_sim_run(sa, 200, NULL, &err) == HERD_OK && herd_sim_run(sb, 200, NULL, &err) == HERD_OK);
  float pa[120], pb[120];
  CHECK(herd_sim_read_flock(sa, pa, NULL, &err) == HERD_OK && herd_sim_read_flock(sb, pb, NULL, &err) == HERD_OK);
  CHECK(memcmp(pa, pb, sizeof pa) == 0);
  herd_sim_destroy(sa);
  herd_sim_destroy(sb);
}

static void names_and_sizes(void) {
  CHECK(strcmp(herd_outcome_name(HERD_RUNNING), "running") == 0);
  CHECK(strcmp(herd_outcome_name(HERD_SUCCEEDED), "succeeded") == 0);
  CHECK(strcmp(herd_outcome_name(HERD_STEP_LIMIT), "step_limit") == 0);
  CHECK(herd_sizeof("herd_scenario") == 0); /* opaque: a program cannot allocate one */
  CHECK(herd_sizeof("herd_scenario_info") == sizeof(herd_scenario_info));
  CHECK(herd_sizeof("herd_observation") == sizeof(herd_observation));
  CHECK(herd_sizeof("herd_steering_state") == sizeof(herd_steering_state));
  CHECK(herd_sizeof("herd_sim_desc") == sizeof(herd_sim_desc));
  CHECK(herd_sizeof("herd_error") == sizeof(herd_error));
  CHECK(herd_sizeof("herd_sim") == 0 && herd_sizeof(NULL) == 0);
}

/* A run of `steps` on `backend` ("cpu" or "opencl"; NULL when it cannot be made), each step's
 * observation into obs[], with the optional parts `parts` (herd_sim_set_observed). */
static herd_sim *observed_run(const char *backend, const char *const *sets, int set_count, uint32_t parts,
                              uint32_t steps, herd_observation *obs) {
  herd_scenario sc = scenario_with(sets, set_count);
  herd_sim *sim = NULL;
  herd_error err;
  if (herd_sim_create(&(herd_sim_desc){.scenario = &sc, .threads = 2, .backend = backend}, &sim, &err) != HERD_OK) {
    fprintf(stderr, "  %s: %s\n", backend, err.message);
    return NULL;
  }
  herd_sim_set_observed(sim, parts);
  for (uint32_t k = 0; k < steps; ++k) {
    CHECK(herd_sim_step(sim, &err) == HERD_OK);
    obs[k] = *herd_sim_observation(sim);
  }
  return sim;
}

/* What herd_observation_leave_out leaves: every field but the optional parts'. */
static bool same_but_optional(const herd_observation *a, const herd_observation *b) {
  herd_observation x = *a, y = *b;
  x.farthest_id = y.farthest_id = 0, x.farthest_dist_m = y.farthest_dist_m = x.milling = y.milling = 0;
  for (int k = 0; k < 3; ++k) x.farthest_pos[k] = y.farthest_pos[k] = 0;
  x.missing = y.missing = 0, x.polarisation = y.polarisation = 0;
  memset(x.sector, 0, sizeof x.sector), memset(y.sector, 0, sizeof y.sector);
  return memcmp(&x, &y, sizeof x) == 0;
}

/* Leaving out the optional parts (farthest agent and milling, polarisation, sectors) changes no
 * other bit of any step, nor the flock; herd_sim_observe_now then gives them as the full run had
 * them; a dog reads the observation, so a run with one keeps them, all but the sectors, which
 * only a team of dogs sharing them (dogs.team = sectors) reads. On the CPU backend and, where there is a device,
 * on OpenCL (whose host runs a step ahead without a dog: observe_now abandons that step). */
static void observed_parts_keep_the_bits(void) {
  const char *boids[] = {"model=boids", "boids.count=700", "world.size_m=[200,200]", "world.wrap=[true,true]"};
  const char *sheep[] = {"sheep.count=60", "seed=4"};
  const char *backends[] = {"cpu", "opencl"};
  enum { STEPS = 12 };
  for (int k = 0; k < 4; ++k) {
    bool dog = k % 2 == 1;
    const char *const *sets = dog ? sheep : boids;
    int set_count = dog ? 2 : 4;
    herd_observation all[STEPS], some[STEPS];
    herd_sim *a = observed_run(backends[k / 2], sets, set_count, HERD_OBSERVE_ALL, STEPS, all);
    herd_sim *b = observed_run(backends[k / 2], sets, set_count, 0u, STEPS, some);
    if (!a || !b) { /* only where there is no OpenCL device */
      herd_device_info devices[4];
      int found = 0;
      herd_error err;
      if (herd_devices(devices, 4, &found, &err) != HERD_OK) found = 0;
      CHECK_MSG(k >= 2 && found == 0, "%s: no sim made, with %d OpenCL devices", backends[k / 2], found);
      herd_sim_destroy(a), herd_sim_destroy(b);
      continue;
    }
    for (uint32_t s = 0; s < STEPS; ++s) {
      CHECK_MSG(same_but_optional(&all[s], &some[s]), "%s, step %u: the first pass differs", backends[k / 2], s);
      CHECK(all[s].missing == 0u && some[s].missing == (dog ? HERD_OBSERVE_SECTORS : HERD_OBSERVE_ALL));
      if (!dog)
        CHECK(isnan(some[s].milling) && isnan(some[s].farthest_dist_m) && some[s].farthest_id == UINT32_MAX &&
              isnan(some[s].polarisation));
    }
    CHECK(dog || all[STEPS - 1].farthest_id < 700u);
    herd_error err;
    CHECK(herd_sim_observe_now(b, &err) == HERD_OK);
    const herd_observation *now = herd_sim_observation(b);
    CHECK_MSG(memcmp(now, &all[STEPS - 1], sizeof *now) == 0, "%s: observe_now differs", backends[k / 2]);
    uint32_t n = all[0].count, dims = 2;
    float *pa = malloc(sizeof(float) * dims * n), *pb = malloc(sizeof(float) * dims * n);
    CHECK(herd_sim_read_flock(a, pa, NULL, &err) == HERD_OK && herd_sim_read_flock(b, pb, NULL, &err) == HERD_OK);
    CHECK(memcmp(pa, pb, sizeof(float) * dims * n) == 0);
    free(pa), free(pb);
    herd_sim_destroy(a), herd_sim_destroy(b);
  }
  const char *team[] = {"sheep.count=60", "dogs.count=3", "dogs.team=sectors"};
  herd_observation seen[3];
  herd_sim *c = observed_run("cpu", team, 3, 0u, 3, seen);
  uint32_t in_sectors = 0;
  for (int k = 0; k < HERD_SECTORS; ++k) in_sectors += seen[2].sector[k].count;
  CHECK_MSG(seen[0].missing == 0u && seen[2].missing == 0u && in_sectors == 60, "a team: missing %u, %u in sectors",
            seen[2].missing, in_sectors);
  herd_sim_destroy(c);
}

/* The steering's own stage: its time counted once a step when profiling (the default scenario
 * has a dog), and nothing when not. */
static void the_profile_times_the_steering(void) {
  herd_scenario sc = scenario_with(NULL, 0);
  herd_error err;
  for (int profiled = 0; profiled < 2; ++profiled) {
    herd_sim *sim;
    CHECK(herd_sim_create(&(herd_sim_desc){.scenario = &sc, .threads = 1, .profile = profiled}, &sim, &err) == HERD_OK);
    uint32_t done = 0;
    CHECK(herd_sim_run(sim, 12, &done, &err) == HERD_OK && done == 12);
    herd_profile p;
    CHECK(herd_sim_profile(sim, &p, &err) == HERD_OK);
    CHECK_MSG(p.calls[HERD_STAGE_STEER] == (profiled ? 12u : 0u), "profiled %d: %llu steering stages", profiled,
              (unsigned long long)p.calls[HERD_STAGE_STEER]);
    CHECK(profiled ? p.seconds[HERD_STAGE_STEER] > 0 : p.seconds[HERD_STAGE_STEER] == 0);
    CHECK(strcmp(herd_stage_name(HERD_STAGE_STEER), "steer") == 0);
    herd_sim_destroy(sim);
  }
}

#define TESTS(X)                        \
  X(the_profile_times_the_steering)     \
  X(flags_follow_agent_ids)             \
  X(run_stops_at_the_outcome)           \
  X(run_reports_an_interruption)        \
  X(placed_dog_moves_from_its_place)    \
  X(placing_refuses_bad_input)          \
  X(steering_refuses_bad_input)         \
  X(steering_names_z_and_an_empty_list) \
  X(placing_wraps_on_a_torus)           \
  X(describe_agrees_with_the_fields)    \
  X(set_is_checked_like_set)            \
  X(copies_and_errors)                  \
  X(set_after_loading_runs_the_same)    \
  X(observed_parts_keep_the_bits)       \
  X(names_and_sizes)
TESTS(DECLARE_TEST)
int main(void) { TEST_MAIN(TESTS); }
