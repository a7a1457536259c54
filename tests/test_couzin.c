/* The Couzin et al. (2002) zone model (kernels/models/couzin.h, docs/models/couzin.md): the
 * turning limit, the zone of repulsion, fleeing, and the paper's four collective states from
 * the shipped scenarios, each in at least 8 of 10 seeds, the swarm at Delta r_o = 0, and the
 * hysteresis between torus and parallel group. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>

#include "models/couzin.h"
#include "sim_util.h"

#define PI 3.14159265358979323846

#define TESTS(X)                                  \
  X(defaults_are_the_papers)                      \
  X(no_turn_is_larger_than_theta_tau)             \
  X(fish_swim_at_constant_speed_in_2d_and_3d)     \
  X(repulsion_keeps_fish_apart)                   \
  X(fish_flee_a_steering_agent_within_the_radius) \
  X(swarm_in_8_of_10_seeds)                       \
  X(swarm_at_no_orientation_zone)                 \
  X(torus_in_8_of_10_seeds)                       \
  X(dynamic_parallel_in_8_of_10_seeds)            \
  X(highly_parallel_in_8_of_10_seeds)             \
  X(the_states_come_in_the_papers_order)          \
  X(torus_and_parallel_group_remember_their_past)
TESTS(DECLARE_TEST)

static const herd_couzin_params *params_of(const herd_scenario *sc) {
  return (const herd_couzin_params *)sc->params.bytes;
}

static double dot(const float *a, const float *b, uint32_t dims) {
  double s = 0;
  for (uint32_t k = 0; k < dims; ++k) s += (double)a[k] * b[k];
  return s;
}

static double distance(const float *a, const float *b, uint32_t dims) {
  double s = 0;
  for (uint32_t k = 0; k < dims; ++k) s += ((double)a[k] - b[k]) * ((double)a[k] - b[k]);
  return sqrt(s);
}

/* The angle between two unit vectors, in radians. */
static double angle(const float *a, const float *b, uint32_t dims) {
  double c = dot(a, b, dims) / sqrt(dot(a, a, dims) * dot(b, b, dims));
  return acos(c > 1 ? 1 : (c < -1 ? -1 : c));
}

/* r_r = 1, alpha = 270 degrees, s = 3 units/s, theta = 40 degrees/s, tau = 0.1 s, sigma = 0.05
 * rad: the values the paper's simulations use (docs/models/couzin.md). */
static void defaults_are_the_papers(void) {
  herd_scenario sc = scenario_with((const char *[]){"model=couzin"}, 1);
  const herd_couzin_params *m = params_of(&sc);
  CHECK(sc.world.dims == 3 && sc.flock.count == 100);
  CHECK(m->repulsion_radius_m == 1.0f && m->field_of_perception_deg == 270.0f);
  CHECK(m->speed_m_per_s == 3.0f && m->turning_rate_deg_per_s == 40.0f);
  CHECK(m->time_step_s == 0.1f && m->noise_rad == 0.05f);
  CHECK(m->combine == HERD_COUZIN_COMBINE_SUMS);
}

/* Every fish turns by at most theta tau (4 degrees) a step, over all agents and 300 steps of
 * the swarm (the state that turns most); and the limit is reached, so the check bites. */
static void check_turns(const char *file, const char *const *sets, int set_count) {
  herd_scenario sc = file ? shipped(file, sets, set_count) : scenario_with(sets, set_count);
  double limit = params_of(&sc)->turning_rate_deg_per_s * params_of(&sc)->time_step_s * PI / 180.0;
  herd_sim *sim = sim_start(&sc, 0);
  herd_error err;
  flock_copy before = read_flock(sim);
  double worst = 0;
  long at_limit = 0, turns = 0;
  for (int t = 0; t < 300; ++t) {
    CHECK(herd_sim_step(sim, &err) == HERD_OK);
    flock_copy now = read_flock(sim);
    for (uint32_t i = 0; i < now.n; ++i) {
      double a = angle(&before.vel[now.dims * i], &now.vel[now.dims * i], now.dims);
      worst = fmax(worst, a);
      at_limit += a > 0.99 * limit;
      ++turns;
    }
    free_flock(&before);
    before = now;
  }
  printf("  %s %uD: largest turn %.5f rad (theta tau = %.5f), %.1f %% of turns at the limit\n",
         file ? file : "2D torus, theta 90 deg/s", sc.world.dims, worst, limit,
         100.0 * (double)at_limit / (double)turns);
  CHECK(worst <= limit + 1e-4); /* float rounding of the stored unit vectors */
  CHECK(at_limit > 0);
  free_flock(&before);
  herd_sim_destroy(sim);
}

static void no_turn_is_larger_than_theta_tau(void) {
  check_turns("couzin-swarm.json", NULL, 0);
  check_turns(NULL,
              (const char *[]){"model=couzin", "world.size_m=[20,20]", "couzin.orientation_band_m=1",
                               "couzin.turning_rate_deg_per_s=90"},
              4);
}

/* Each step moves a fish by s tau, and its direction stays a unit vector. */
static void fish_swim_at_constant_speed_in_2d_and_3d(void) {
  const char *flat[] = {"model=couzin", "world.size_m=[30,30]", "world.wrap=[true,true]",
                        "couzin.orientation_band_m=1"};
  for (int k = 0; k < 2; ++k) {
    herd_scenario sc = k ? scenario_with(flat, 4) : shipped("couzin-torus.json", NULL, 0);
    double step = params_of(&sc)->speed_m_per_s * params_of(&sc)->time_step_s, worst = 0, worst_unit = 0;
    herd_sim *sim = sim_start(&sc, 0);
    herd_error err;
    flock_copy before = read_flock(sim);
    for (int t = 0; t < 200; ++t) {
      CHECK(herd_sim_step(sim, &err) == HERD_OK);
      flock_copy now = read_flock(sim);
      for (uint32_t i = 0; i < now.n; ++i) {
        double d[3] = {0, 0, 0};
        for (uint32_t a = 0; a < now.dims; ++a) {
          d[a] = (double)now.pos[now.dims * i + a] - before.pos[now.dims * i + a];
          if (k) d[a] -= 30.0 * round(d[a] / 30.0); /* through the wrap */
        }
        worst = fmax(worst, fabs(sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) - step));
        worst_unit = fmax(worst_unit, fabs(sqrt(dot(&now.vel[now.dims * i], &now.vel[now.dims * i], now.dims)) - 1));
      }
      free_flock(&before);
      before = now;
    }
    printf("  %uD: step length within %.2g of s tau = %.2f m, |v| within %.2g of 1\n", sc.world.dims, worst, step,
           worst_unit);
    CHECK(worst < 1e-4 && worst_unit < 1e-5);
    free_flock(&before);
    herd_sim_destroy(sim);
  }
}

/* At the model's default density (its default scenario: 100 fish starting in a 20 m cube,
 * forming a parallel school) pairs closer than r_r are rare and do not last: over 1000
 * steps, the pairs within r_r of each other in two consecutive steps are under 0.2 % of all
 * pairs on average and under 1 % in any step. */
static void repulsion_keeps_fish_apart(void) {
  herd_scenario sc = scenario_with((const char *[]){"model=couzin"}, 1);
  double r_r = params_of(&sc)->repulsion_radius_m;
  herd_sim *sim = sim_start(&sc, 0);
  herd_error err;
  uint32_t n = sc.flock.count, dims = sc.world.dims;
  size_t pairs = (size_t)n * (n - 1) / 2;
  unsigned char *close = calloc(pairs, 1);
  double mean = 0, worst = 0;
  enum { STEPS = 1000 };
  for (int t = 0; t <= STEPS; ++t) {
    if (t) CHECK(herd_sim_step(sim, &err) == HERD_OK);
    flock_copy f = read_flock(sim);
    size_t twice = 0, k = 0;
    for (uint32_t i = 0; i < n; ++i)
      for (uint32_t j = i + 1; j < n; ++j, ++k) {
        unsigned char now = distance(&f.pos[dims * i], &f.pos[dims * j], dims) < r_r;
        twice += now && close[k];
        close[k] = now;
      }
    if (t) {
      double fraction = (double)twice / (double)pairs;
      mean += fraction / STEPS;
      worst = fmax(worst, fraction);
    }
    free_flock(&f);
  }
  printf("  pairs within r_r in two consecutive steps: %.4f %% of pairs on average, at most %.3f %%\n", 100 * mean,
         100 * worst);
  CHECK(mean < 0.002);
  CHECK(worst < 0.01);
  free(close);
  herd_sim_destroy(sim);
}

/* A steering agent standing in the school: every fish within the fear radius turns away from
 * it (by theta tau, or to face straight away), and every other fish moves exactly as it would
 * without the agent. */
static void fish_flee_a_steering_agent_within_the_radius(void) {
  const char *with[] = {"agents[0].strategy=manual", "agents[0].position_m=[10,10,10]", "couzin.fear_radius_m=6"};
  herd_scenario sc = shipped("couzin-torus.json", with, 3), alone = shipped("couzin-torus.json", NULL, 0);
  double limit = params_of(&sc)->turning_rate_deg_per_s * params_of(&sc)->time_step_s * PI / 180.0;
  herd_sim *sim = sim_start(&sc, 0), *ref = sim_start(&alone, 0);
  herd_error err;
  flock_copy before = read_flock(sim);
  CHECK(herd_sim_step(sim, &err) == HERD_OK && herd_sim_step(ref, &err) == HERD_OK);
  flock_copy after = read_flock(sim), without = read_flock(ref);
  const float at[3] = {10, 10, 10};
  int fled = 0, same = 0, others = 0;
  for (uint32_t i = 0; i < before.n; ++i) {
    const float *p = &before.pos[3 * i];
    if (distance(p, at, 3) >= 6.0) {
      ++others;
      same += memcmp(&after.pos[3 * i], &without.pos[3 * i], 3 * sizeof(float)) == 0;
      continue;
    }
    float away[3] = {p[0] - at[0], p[1] - at[1], p[2] - at[2]};
    double was = angle(&before.vel[3 * i], away, 3), now = angle(&after.vel[3 * i], away, 3);
    /* noise (sigma = 0.05 rad) may leave a fish already facing away a little off */
    fled += now <= was - 0.9 * limit || now < 0.25;
  }
  int near = (int)before.n - others;
  printf("  %d fish within 6 m of the agent, %d turned away; %d of %d others as without the agent\n", near, fled, same,
         others);
  CHECK(near >= 5 && fled == near);
  CHECK(same == others);
  free_flock(&before);
  free_flock(&after);
  free_flock(&without);
  herd_sim_destroy(sim);
  herd_sim_destroy(ref);
}

/* ---- The four collective states ------------------------------------------------------------ */

/* The order parameters averaged over the second half of the run (steps 501-1000), as a sweep's
 * polarisation_late and milling_late are: the state forms in the first half, and a single
 * step's value fluctuates (docs/models/couzin.md). */
enum { SEEDS = 10, STEPS = 1000 };

typedef struct state_run {
  const char *file;
  int seed;
  const char *const *sets; /* overrides after the seed (PATH=VALUE, @STEP:PATH=VALUE) */
  int set_count, steps;    /* steps: STEPS unless given */
  double polarisation, milling;
  uint32_t changes_made; /* of the scenario's schedule */
} state_run;

static void *run_state(void *arg) {
  state_run *r = arg;
  char seed[32];
  const char *sets[8] = {seed};
  snprintf(seed, sizeof seed, "seed=%d", r->seed);
  for (int k = 0; k < r->set_count && k < 7; ++k) sets[k + 1] = r->sets[k];
  herd_scenario sc = shipped(r->file, sets, 1 + r->set_count);
  herd_sim *sim = sim_start(&sc, 1);
  herd_error err;
  int steps = r->steps ? r->steps : STEPS, from = steps / 2;
  r->polarisation = r->milling = 0;
  for (int t = 1; t <= steps; ++t) {
    if (herd_sim_step(sim, &err) != HERD_OK) break;
    if (t <= from) continue;
    r->polarisation += herd_sim_observation(sim)->polarisation / (steps - from);
    r->milling += herd_sim_observation(sim)->milling / (steps - from);
  }
  r->changes_made = herd_sim_schedule_made(sim);
  herd_sim_destroy(sim);
  return NULL;
}

/* Seeds 1..10 of a shipped scenario, two at a time (the machine has two cores). */
static void run_seeds(const char *file, state_run *runs) {
  for (int s = 0; s < SEEDS; ++s) runs[s] = (state_run){.file = file, .seed = s + 1};
  run_two_at_a_time(run_state, runs, sizeof runs[0], SEEDS);
}

/* The results of each shipped scenario, computed once. */
static state_run swarm[SEEDS], torus[SEEDS], dynamic[SEEDS], parallel[SEEDS];

static const state_run *state(const char *file, state_run *runs) {
  if (!runs[0].file) run_seeds(file, runs);
  return runs;
}

typedef bool (*state_test)(double polarisation, double milling);

/* Counts and prints the runs that ended in a state. */
static int tally(const state_run *r, state_test in_state, const char *what) {
  int hits = 0;
  printf("  %s, polarisation/milling per seed:", what);
  for (int s = 0; s < SEEDS; ++s) {
    bool in = in_state(r[s].polarisation, r[s].milling);
    hits += in;
    printf(" %.2f/%.2f%s", r[s].polarisation, r[s].milling, in ? "" : "(x)");
  }
  printf("; %d of %d\n", hits, SEEDS);
  return hits;
}

static int seeds_in_state(const char *file, state_run *runs, state_test in_state, const char *what) {
  char label[160];
  snprintf(label, sizeof label, "%s (%s)", file, what);
  return tally(state(file, runs), in_state, label);
}

static bool is_swarm(double p, double m) { return p < 0.3 && m < 0.3; }
static bool is_torus(double p, double m) { return (void)p, m > 0.6; }
static bool is_dynamic_parallel(double p, double m) { return p > 0.7 && p < 0.97 && m < 0.3; }
static bool is_parallel(double p, double m) { return p > 0.9 && m < 0.3; }

static void swarm_in_8_of_10_seeds(void) {
  CHECK(seeds_in_state("couzin-swarm.json", swarm, is_swarm, "p < 0.3 and m < 0.3") >= 8);
}

/* Runs the seeds set up in runs[] and counts those that end in a state. */
static int count_in_state(state_run *runs, state_test in_state, const char *what) {
  run_two_at_a_time(run_state, runs, sizeof runs[0], SEEDS);
  return tally(runs, in_state, what);
}

/* Delta r_o = 0, the paper's first value (the swarm scenario has 0.25): no zone of orientation. */
static void swarm_at_no_orientation_zone(void) {
  static const char *const none[] = {"couzin.orientation_band_m=0"};
  state_run runs[SEEDS];
  for (int s = 0; s < SEEDS; ++s)
    runs[s] = (state_run){.file = "couzin-swarm.json", .seed = s + 1, .sets = none, .set_count = 1};
  CHECK(count_in_state(runs, is_swarm, "Delta r_o = 0: p < 0.3 and m < 0.3") >= 8);
}

static void torus_in_8_of_10_seeds(void) {
  CHECK(seeds_in_state("couzin-torus.json", torus, is_torus, "m > 0.6") >= 8);
}

static void dynamic_parallel_in_8_of_10_seeds(void) {
  CHECK(seeds_in_state("couzin-dynamic-parallel.json", dynamic, is_dynamic_parallel, "0.7 < p < 0.97 and m < 0.3") >=
        8);
}

static void highly_parallel_in_8_of_10_seeds(void) {
  CHECK(seeds_in_state("couzin-parallel.json", parallel, is_parallel, "p > 0.9 and m < 0.3") >= 8);
}

/* The medians over the seeds order the states as the paper's sequence along Delta r_o does:
 * polarisation grows from swarm and torus to dynamic and then highly parallel, and the torus
 * mills most. */
static double median(const state_run *r, bool milling) {
  double v[SEEDS];
  for (int s = 0; s < SEEDS; ++s) {
    double x = milling ? r[s].milling : r[s].polarisation;
    int k = s;
    for (; k > 0 && v[k - 1] > x; --k) v[k] = v[k - 1];
    v[k] = x;
  }
  return 0.5 * (v[SEEDS / 2 - 1] + v[SEEDS / 2]);
}

static void the_states_come_in_the_papers_order(void) {
  const state_run *runs[4] = {state("couzin-swarm.json", swarm), state("couzin-torus.json", torus),
                              state("couzin-dynamic-parallel.json", dynamic), state("couzin-parallel.json", parallel)};
  double p[4], m[4];
  for (int k = 0; k < 4; ++k) p[k] = median(runs[k], false), m[k] = median(runs[k], true);
  printf(
      "  medians, swarm / torus / dynamic parallel / highly parallel: polarisation %.3f %.3f %.3f %.3f, milling "
      "%.3f %.3f %.3f %.3f\n",
      p[0], p[1], p[2], p[3], m[0], m[1], m[2], m[3]);
  CHECK(p[1] < p[2] && p[0] < p[2] && p[2] < p[3]);
  CHECK(m[1] > m[0] && m[1] > m[2] && m[1] > m[3]);
}

/* Collective memory (Couzin et al. 2002): at Delta r_o = 3 a group that comes from a torus
 * (Delta r_o = 2 for 1000 steps) stays a torus, and one that comes from a parallel group
 * (Delta r_o = 8) stays parallel, over steps 1501-2000 after the change at step 1000; from
 * random starts Delta r_o = 3 gives a torus, so the parallel group's persistence is its past. */
static void torus_and_parallel_group_remember_their_past(void) {
  static const char *const from_torus[] = {"couzin.orientation_band_m=2", "@1000:couzin.orientation_band_m=3"};
  static const char *const from_parallel[] = {"couzin.orientation_band_m=8", "@1000:couzin.orientation_band_m=3"};
  static const char *const from_random[] = {"couzin.orientation_band_m=3"};
  state_run up[SEEDS], down[SEEDS], random[SEEDS];
  for (int s = 0; s < SEEDS; ++s) {
    up[s] = (state_run){.file = "couzin-torus.json", .seed = s + 1, .sets = from_torus, .set_count = 2, .steps = 2000};
    down[s] = up[s], down[s].sets = from_parallel;
    random[s] = up[s], random[s].sets = from_random, random[s].set_count = 1;
  }
  CHECK(count_in_state(up, is_torus, "raised from 2 to 3: m > 0.6") >= 8);
  CHECK(count_in_state(down, is_parallel, "lowered from 8 to 3: p > 0.9 and m < 0.3") >= 8);
  CHECK(count_in_state(random, is_torus, "3 from a random start: m > 0.6") >= 8);
  for (int s = 0; s < SEEDS; ++s) CHECK(up[s].changes_made == 1 && down[s].changes_made == 1);
}

int main(void) { TEST_MAIN(TESTS); }
