/* One agent's update explained (herd_sim_explain, the model table's explain hook): on a CPU
 * step, the terms' weighted sum, made a unit vector, is the heading the agent took, and its
 * step is along it; watching changes nothing; models and backends without the hook say n/a. */
#include <math.h>
#include <string.h>

#include "sim_util.h"

#define TESTS(X)                               \
  X(the_terms_sum_to_the_update)               \
  X(the_terms_sum_with_the_whole_flock_as_lcm) \
  X(watching_changes_nothing)                  \
  X(no_terms_where_the_hook_is_missing)        \
  X(an_id_past_the_flock_is_refused)           \
  X(model_marks_come_from_the_parameters)
TESTS(DECLARE_TEST)

static double field(const herd_scenario *sc, const char *path) {
  double v = 0;
  herd_error err;
  CHECK(herd_scenario_get(sc, path, &v, &err) == HERD_OK);
  return v;
}

/* The weight the scenario gives the term named `name`, read here by its path. */
static double scenario_weight(const herd_scenario *sc, const char *name) {
  static const char *const by_name[][2] = {{"noise e eps", "sheep.noise"},
                                           {"repulsion rho_a R_a", "sheep.repulsion"},
                                           {"inertia h H", "sheep.inertia"},
                                           {"attraction c C", "sheep.attraction"},
                                           {"dog repulsion rho_s R_s", "sheep.dog_repulsion"}};
  for (size_t k = 0; k < sizeof by_name / sizeof by_name[0]; ++k)
    if (strcmp(name, by_name[k][0]) == 0) return field(sc, by_name[k][1]);
  CHECK_MSG(0, "a term no Strombom weight names: %s", name);
  return NAN;
}

typedef struct tally {
  int full, grazing_moves, stood;
} tally;

/* Watches the sheep nearest the dog for `steps` steps, checking each update against its terms. */
static tally check_updates(const herd_scenario *sc, uint32_t steps) {
  herd_error err;
  herd_sim *sim = sim_start(sc, 1);
  double speed = field(sc, "sheep.speed_m_per_step");
  tally t = {0, 0, 0};
  for (uint32_t s = 0; s < steps; ++s) {
    uint32_t id = herd_sim_observation(sim)->nearest[0].id, at = herd_sim_step_index(sim);
    if (s % 3 == 2) id = (id * 7u + s) % sc->flock.count; /* now and then a sheep far from the dog */
    CHECK(herd_sim_explain(sim, id, &err) == HERD_OK);
    flock_copy before = read_flock(sim);
    CHECK(herd_sim_step(sim, &err) == HERD_OK);
    flock_copy after = read_flock(sim);
    herd_update_terms terms;
    CHECK(herd_sim_update_terms(sim, &terms));
    CHECK(terms.id == id && terms.step == at);
    const float *p0 = before.pos + 2 * id, *h0 = before.vel + 2 * id, *p1 = after.pos + 2 * id,
                *h1 = after.vel + 2 * id;
    if (!terms.moved) {
      CHECK(terms.count == 0 && p0[0] == p1[0] && p0[1] == p1[1] && h0[0] == h1[0] && h0[1] == h1[1]);
      ++t.stood;
    } else {
      double sum[2] = {0, 0};
      bool attraction = false;
      for (uint32_t k = 0; k < terms.count; ++k) {
        CHECK_MSG(terms.term[k].weight == (float)scenario_weight(sc, terms.term[k].name), "%s", terms.term[k].name);
        sum[0] += terms.term[k].weight * terms.term[k].dir[0];
        sum[1] += terms.term[k].weight * terms.term[k].dir[1];
        attraction |= strcmp(terms.term[k].name, "attraction c C") == 0;
      }
      double len = hypot(sum[0], sum[1]), u[2] = {sum[0] / len, sum[1] / len};
      CHECK_MSG(len > 1e-6 && fabs(u[0] - h1[0]) < 1e-5 && fabs(u[1] - h1[1]) < 1e-5,
                "step %u, sheep %u: terms sum to (%.6f, %.6f), it took (%.6f, %.6f)", at, id, u[0], u[1], h1[0], h1[1]);
      CHECK(fabs(p1[0] - (p0[0] + speed * h1[0])) < 1e-4 && fabs(p1[1] - (p0[1] + speed * h1[1])) < 1e-4);
      if (attraction)
        ++t.full;
      else
        ++t.grazing_moves;
    }
    free_flock(&before);
    free_flock(&after);
  }
  herd_sim_destroy(sim);
  printf("  %d full updates (near the dog), %d grazing moves, %d stood still\n", t.full, t.grazing_moves, t.stood);
  return t;
}

static void the_terms_sum_to_the_update(void) {
  herd_scenario sc = scenario_with((const char *const[]){"sheep.count=60", "sheep.neighbours=10"}, 2);
  tally t = check_updates(&sc, 150);
  CHECK(t.full >= 50); /* the sheep nearest the dog reacts to it */
  CHECK(t.stood + t.grazing_moves > 0);
}

/* n = N - 1: the attraction is toward the flock's centroid G (the step's other path); r_s
 * wide enough that every sheep reacts. */
static void the_terms_sum_with_the_whole_flock_as_lcm(void) {
  herd_scenario sc =
      scenario_with((const char *const[]){"sheep.count=40", "sheep.neighbours=39", "sheep.dog_radius_m=1000"}, 3);
  CHECK(check_updates(&sc, 60).full == 60);
}

static void watching_changes_nothing(void) {
  herd_scenario sc = scenario_with((const char *const[]){"sheep.count=80"}, 1);
  herd_sim *a = sim_start(&sc, 1), *b = sim_start(&sc, 1);
  herd_error err;
  CHECK(herd_sim_explain(b, 5, &err) == HERD_OK);
  for (int s = 0; s < 80; ++s) CHECK(herd_sim_step(a, &err) == HERD_OK && herd_sim_step(b, &err) == HERD_OK);
  flock_copy fa = read_flock(a), fb = read_flock(b);
  CHECK(memcmp(fa.pos, fb.pos, 2 * sizeof(float) * sc.flock.count) == 0);
  CHECK(memcmp(fa.vel, fb.vel, 2 * sizeof(float) * sc.flock.count) == 0);
  herd_update_terms t;
  CHECK(!herd_sim_update_terms(a, &t) && herd_sim_update_terms(b, &t) && t.id == 5);
  CHECK(herd_sim_explain(b, UINT32_MAX, &err) == HERD_OK);
  CHECK(herd_sim_step(b, &err) == HERD_OK && !herd_sim_update_terms(b, &t));
  free_flock(&fa);
  free_flock(&fb);
  herd_sim_destroy(a);
  herd_sim_destroy(b);
}

static void no_terms_where_the_hook_is_missing(void) {
  herd_scenario sc = scenario_with((const char *const[]){"model=boids", "boids.count=20"}, 2);
  herd_sim *sim = sim_start(&sc, 1);
  herd_error err;
  CHECK(herd_sim_explain(sim, 0, &err) == HERD_E_INPUT);
  CHECK_MSG(strstr(err.message, "n/a for boids"), "%s", err.message);
  herd_sim_destroy(sim);
  if (!have_opencl()) return;
  herd_scenario st = scenario_with((const char *const[]){"sheep.count=20", "sheep.neighbours=10"}, 2);
  CHECK(herd_sim_create(&(herd_sim_desc){.scenario = &st, .backend = "opencl"}, &sim, &err) == HERD_OK);
  CHECK(herd_sim_explain(sim, 0, &err) == HERD_E_INPUT);
  CHECK_MSG(strstr(err.message, "n/a on the opencl backend"), "%s", err.message);
  herd_sim_destroy(sim);
}

/* An id past the flock is refused with the id and the count, and the agent watched before is
 * still watched (before the fix it was dropped without a word). */
static void an_id_past_the_flock_is_refused(void) {
  herd_scenario sc = scenario_with((const char *const[]){"sheep.count=60"}, 1);
  herd_sim *sim = sim_start(&sc, 1);
  herd_error err;
  CHECK(herd_sim_explain(sim, 5, &err) == HERD_OK);
  CHECK(herd_sim_explain(sim, 60, &err) == HERD_E_INPUT);
  CHECK_MSG(strcmp(err.message, "herd_sim_explain: flock agent 60: this simulation has 60 (0..59)") == 0, "%s",
            err.message);
  CHECK(herd_sim_explain(sim, UINT32_MAX - 1u, &err) == HERD_E_INPUT);
  herd_update_terms t;
  CHECK(herd_sim_step(sim, &err) == HERD_OK && herd_sim_update_terms(sim, &t) && t.id == 5);
  herd_sim_destroy(sim);
}

/* herd_sim_model_marks: each radius from the scenario's own fields, read here by path; NAN
 * (or 0) where the model has none. */
static void model_marks_come_from_the_parameters(void) {
  herd_scenario sc = scenario_with((const char *const[]){"sheep.count=64", "sheep.repulsion_radius_m=1.5",
                                                         "sheep.dog_radius_m=40", "sheep.neighbours=12"},
                                   4);
  herd_sim *sim = sim_start(&sc, 1);
  herd_model_marks m = herd_sim_model_marks(sim);
  CHECK(fabsf(m.cohesion_m - 1.5f * 16.0f) < 1e-4f); /* 64^(2/3) = 16 */
  CHECK(m.reaction_m == 40.0f && m.nearest_n == 12 && isnan(m.interaction_m));
  herd_sim_destroy(sim);
  herd_scenario boids =
      scenario_with((const char *const[]){"model=boids", "boids.count=20", "boids.visual_range_m=33"}, 3);
  sim = sim_start(&boids, 1);
  m = herd_sim_model_marks(sim);
  CHECK(m.interaction_m == 33.0f && m.reaction_m == (float)field(&boids, "boids.fear_radius_m"));
  CHECK(isnan(m.cohesion_m) && m.nearest_n == 0);
  herd_sim_destroy(sim);
  herd_scenario netlogo = scenario_with((const char *const[]){"model=netlogo"}, 1);
  sim = sim_start(&netlogo, 1);
  m = herd_sim_model_marks(sim);
  CHECK(isnan(m.cohesion_m) && isnan(m.reaction_m) && isnan(m.interaction_m) && m.nearest_n == 0);
  herd_sim_destroy(sim);
}

int main(void) { TEST_MAIN(TESTS); }
