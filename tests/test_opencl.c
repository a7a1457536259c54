/* The OpenCL backend against the CPU backend on the same input: the grid and neighbour
 * sets exactly, one step and the reductions within rounding, whole herding runs in
 * distribution, and its own runs bit for bit. Skipped (exit 77) without an OpenCL device. */
#include <math.h>
#include <stdlib.h>

#include "backend/cl/cl_backend.h"
#include "backend/cpu/cpu_backend.h"
#include "rng.h"
#include "sim_util.h"

#define TESTS(X)                                \
  X(sort_and_cell_ranges_equal_the_cpu_backend) \
  X(neighbour_sets_equal_the_cpu_backend)       \
  X(one_step_matches_the_cpu_backend)           \
  X(reductions_match_the_cpu_backend)           \
  X(two_runs_are_bit_identical)                 \
  X(herding_outcomes_match_the_cpu_backend)     \
  X(an_interrupted_step_changes_nothing)        \
  X(a_step_stopped_midway_restores_the_flock)
TESTS(DECLARE_TEST)

enum { N = 6000, DOGS = 2 };

/* A flock of N: a dense core, looser fringes, and a few far strays. */
static void make_flock(herd_vec2 *pos, herd_vec2 *heading) {
  for (uint32_t i = 0; i < N; ++i) {
    herd_rng4 r = herd_rng_draw(99, 0, i, 11);
    float spread = i % 3 == 0 ? 60.0f : 25.0f;
    if (i % 500 == 0) spread = 3000.0f;
    pos[i] = herd_v2(spread * herd_rng_unit_float(r.v[0]) + 100.0f, spread * herd_rng_unit_float(r.v[1]) - 40.0f);
    heading[i] = herd_rng_direction(r.v[2]);
  }
}

static herd_backend_desc desc_for(void) {
  herd_scenario sc = scenario_with(NULL, 0);
  herd_backend_desc d = {.count = N,
                         .model = {.repulsion_radius_m = sc.sheep.repulsion_radius_m,
                                   .dog_radius_m = sc.sheep.dog_radius_m,
                                   .inertia = sc.sheep.inertia,
                                   .attraction = sc.sheep.attraction,
                                   .repulsion = sc.sheep.repulsion,
                                   .dog_repulsion = sc.sheep.dog_repulsion,
                                   .noise = sc.sheep.noise,
                                   .graze_probability = sc.sheep.graze_probability,
                                   .speed_m_per_step = sc.sheep.speed_m_per_step,
                                   .neighbours = sc.sheep.neighbours},
                         .goal_m = {110, -30},
                         .goal_radius_m = 15,
                         .seed = 5,
                         .threads = 2};
  return d;
}

static const herd_vec2 dogs[DOGS] = {{90, -50}, {160, 10}};

/* Both backends holding the same flock. */
static void make_pair(herd_backend **cpu, herd_backend **cl) {
  herd_backend_desc d = desc_for();
  herd_vec2 *pos = malloc(N * sizeof *pos), *heading = malloc(N * sizeof *heading);
  make_flock(pos, heading);
  herd_error err;
  if (herd_cpu_backend.create(&d, cpu, &err) != HERD_OK || herd_cl_backend.create(&d, cl, &err) != HERD_OK) {
    fprintf(stderr, "%s\n", err.message);
    exit(1);
  }
  CHECK(herd_cpu_backend.upload(*cpu, pos, heading, &err) == HERD_OK);
  CHECK(herd_cl_backend.upload(*cl, pos, heading, &err) == HERD_OK);
  free(pos);
  free(heading);
}

static void destroy_pair(herd_backend *cpu, herd_backend *cl) {
  herd_cpu_backend.destroy(cpu);
  herd_cl_backend.destroy(cl);
}

/* Both backends holding the same flock, each with its grid built (the OpenCL one read back). */
static void make_grids(herd_backend **cpu, herd_backend **cl, herd_cpu_grid_view *v, herd_cl_grid_copy *c) {
  herd_error err;
  make_pair(cpu, cl);
  *v = herd_cpu_build_grid(*cpu);
  CHECK(herd_cl_read_grid(*cl, c, &err) == HERD_OK);
}

static void sort_and_cell_ranges_equal_the_cpu_backend(void) {
  herd_backend *cpu, *cl;
  herd_cpu_grid_view v;
  herd_cl_grid_copy c;
  make_grids(&cpu, &cl, &v, &c);
  CHECK(memcmp(v.pos, c.pos, N * sizeof *v.pos) == 0);
  CHECK(memcmp(v.heading, c.heading, N * sizeof *v.heading) == 0);
  CHECK(memcmp(v.agent, c.agent, N * sizeof *v.agent) == 0);
  size_t buckets = (size_t)v.grid.table_mask + 1;
  CHECK(memcmp(v.cell_end, c.cell_end, buckets * sizeof *v.cell_end) == 0); /* mixed flags included */
  herd_cl_grid_copy_free(&c);
  destroy_pair(cpu, cl);
}

static void neighbour_sets_equal_the_cpu_backend(void) {
  static const uint32_t ks[] = {1, 50, HERD_MAX_NEIGHBOURS};
  herd_backend *cpu, *cl;
  herd_cpu_grid_view v;
  herd_cl_grid_copy c;
  herd_error err;
  make_grids(&cpu, &cl, &v, &c);
  for (size_t kk = 0; kk < sizeof ks / sizeof ks[0]; ++kk) {
    uint32_t k = ks[kk];
    uint32_t *rows = malloc((size_t)N * k * sizeof *rows);
    CHECK(herd_cl_knn(cl, k, rows, &err) == HERD_OK);
    int differ = 0;
    herd_neighbour best[HERD_MAX_NEIGHBOURS];
    for (uint32_t i = 0; i < N; ++i) {
      uint32_t found = herd_grid_knn(&v.grid, v.pos, v.cell_end, i, best, k);
      /* The CPU's selection is a heap; the device rows are sorted: compare as sets. */
      bool same = found == k || rows[(size_t)i * k + found] == UINT32_MAX;
      for (uint32_t m = 0; same && m < found; ++m) {
        bool listed = false;
        for (uint32_t q = 0; q < found && !listed; ++q) listed = rows[(size_t)i * k + q] == best[m].j;
        same = listed;
      }
      differ += !same;
    }
    CHECK_MSG(differ == 0, "k=%u: %d of %d neighbour sets differ", k, differ, N);
    free(rows);
  }
  herd_cl_grid_copy_free(&c);
  destroy_pair(cpu, cl);
}

static void one_step_matches_the_cpu_backend(void) {
  herd_backend *cpu, *cl;
  make_pair(&cpu, &cl);
  herd_error err;
  CHECK(herd_cpu_backend.step(cpu, dogs, DOGS, herd_v2(110, -20), 3, &err) == HERD_OK);
  CHECK(herd_cl_backend.step(cl, dogs, DOGS, herd_v2(110, -20), 3, &err) == HERD_OK);
  herd_vec2 *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
  CHECK(herd_cpu_backend.read_agents(cpu, a, NULL, &err) == HERD_OK);
  CHECK(herd_cl_backend.read_agents(cl, b, NULL, &err) == HERD_OK);
  int close = 0, moved = 0;
  for (uint32_t i = 0; i < N; ++i) {
    double scale = fmax(fabs(a[i].x) + fabs(a[i].y), 1.0);
    close += fabs(a[i].x - b[i].x) <= 1e-5 * scale && fabs(a[i].y - b[i].y) <= 1e-5 * scale;
  }
  herd_vec2 *start = malloc(N * sizeof *start), *heading = malloc(N * sizeof *heading);
  make_flock(start, heading);
  for (uint32_t i = 0; i < N; ++i) moved += a[i].x != start[i].x || a[i].y != start[i].y;
  CHECK_MSG(close >= 0.999 * N, "%d of %d positions within 1e-5", close, N);
  CHECK_MSG(moved > N / 2, "only %d of %d sheep moved: the step tested little", moved, N);
  free(a);
  free(b);
  free(start);
  free(heading);
  destroy_pair(cpu, cl);
}

static bool rel_close(double a, double b, double tol) { return fabs(a - b) <= tol * fmax(fabs(a), fabs(b)) + 1e-30; }

static void reductions_match_the_cpu_backend(void) {
  herd_backend *cpu, *cl;
  make_pair(&cpu, &cl);
  herd_error err;
  herd_observation a, b;
  CHECK(herd_cpu_backend.reduce(cpu, dogs, DOGS, &a, &err) == HERD_OK);
  CHECK(herd_cl_backend.reduce(cl, dogs, DOGS, &b, &err) == HERD_OK);
  CHECK(a.count == b.count && a.in_goal == b.in_goal && a.delivered == b.delivered && a.in_goal > 0);
  CHECK(rel_close(a.centroid[0], b.centroid[0], 1e-6) && rel_close(a.centroid[1], b.centroid[1], 1e-6));
  for (int k = 0; k < 2; ++k) CHECK(a.extent_min[k] == b.extent_min[k] && a.extent_max[k] == b.extent_max[k]);
  CHECK(a.farthest_id == b.farthest_id && rel_close(a.farthest_dist_m, b.farthest_dist_m, 1e-6));
  for (int d = 0; d < DOGS; ++d)
    CHECK(a.nearest[d].id == b.nearest[d].id && rel_close(a.nearest[d].dist_m, b.nearest[d].dist_m, 1e-6));
  destroy_pair(cpu, cl);
}

/* ---- Whole runs -------------------------------------------------------------------------- */

static uint64_t run_fingerprint(const herd_scenario *sc, uint32_t steps) {
  herd_sim *sim;
  herd_error err;
  CHECK(herd_sim_create(&(herd_sim_desc){.scenario = sc, .backend = "opencl"}, &sim, &err) == HERD_OK);
  uint64_t h = 1469598103934665603ull;
  for (uint32_t s = 0; s < steps && herd_sim_outcome(sim) == HERD_RUNNING; ++s) {
    CHECK(herd_sim_step(sim, &err) == HERD_OK);
    h = fnv1a(h, herd_sim_observation(sim), sizeof(herd_observation));
  }
  herd_sim_destroy(sim);
  return h;
}

static void two_runs_are_bit_identical(void) {
  const char *sets[] = {"sheep.count=3000", "seed=8"};
  herd_scenario sc = scenario_with(sets, 2);
  CHECK(run_fingerprint(&sc, 150) == run_fingerprint(&sc, 150));
}

/* Steps to success of `seeds` seeds on a backend; 0 marks a failure. */
static void herding_steps(const char *backend, int seeds, double *steps) {
  herd_error err;
  for (int seed = 1; seed <= seeds; ++seed) {
    char set[32];
    snprintf(set, sizeof set, "seed=%d", seed);
    const char *sets[] = {set};
    herd_scenario sc = scenario_with(sets, 1);
    herd_sim *sim;
    CHECK(herd_sim_create(&(herd_sim_desc){.scenario = &sc, .backend = backend}, &sim, &err) == HERD_OK);
    while (herd_sim_outcome(sim) == HERD_RUNNING) CHECK(herd_sim_step(sim, &err) == HERD_OK);
    steps[seed - 1] = herd_sim_outcome(sim) == HERD_SUCCEEDED ? herd_sim_step_index(sim) : 0;
    herd_sim_destroy(sim);
  }
}

/* log C(n, k), for Fisher's exact test. */
static double log_choose(int n, int k) { return lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0); }

/* Two-sided Fisher exact test on successes a of n against b of n. */
static double fisher_p(int a, int b, int n) {
  int total = a + b;
  double observed = log_choose(n, a) + log_choose(n, b), p = 0;
  for (int x = 0; x <= total; ++x) {
    if (x > n || total - x > n) continue;
    double lp = log_choose(n, x) + log_choose(n, total - x);
    if (lp <= observed + 1e-9) p += exp(lp - log_choose(2 * n, total));
  }
  return p;
}

/* Mann-Whitney U as a z score (normal approximation, average ranks for ties). */
static double mann_whitney_z(const double *x, int nx, const double *y, int ny) {
  double u = 0;
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < ny; ++j) u += x[i] > y[j] ? 1.0 : x[i] == y[j] ? 0.5 : 0.0;
  double mean = nx * ny / 2.0, sd = sqrt(nx * ny * (nx + ny + 1) / 12.0);
  return (u - mean) / sd;
}

/* 20 seeds per backend: success counts by Fisher's exact test and steps to success by the
 * Mann-Whitney U test, each must not differ at the 1 % level. */
static void herding_outcomes_match_the_cpu_backend(void) {
  enum { SEEDS = 20 };
  double cpu[SEEDS], cl[SEEDS], cpu_ok[SEEDS], cl_ok[SEEDS];
  herding_steps("cpu", SEEDS, cpu);
  herding_steps("opencl", SEEDS, cl);
  int n_cpu = 0, n_cl = 0;
  double mean_cpu = 0, mean_cl = 0;
  for (int s = 0; s < SEEDS; ++s) {
    if (cpu[s] > 0) cpu_ok[n_cpu++] = cpu[s], mean_cpu += cpu[s];
    if (cl[s] > 0) cl_ok[n_cl++] = cl[s], mean_cl += cl[s];
  }
  double p = fisher_p(n_cpu, n_cl, SEEDS), z = n_cpu && n_cl ? mann_whitney_z(cpu_ok, n_cpu, cl_ok, n_cl) : 0;
  printf(
      "  cpu: %d/%d herded, mean %.0f steps; opencl: %d/%d, mean %.0f steps; Fisher p = %.3f, Mann-Whitney z = %.2f\n",
      n_cpu, SEEDS, n_cpu ? mean_cpu / n_cpu : 0, n_cl, SEEDS, n_cl ? mean_cl / n_cl : 0, p, z);
  CHECK(n_cpu >= 18 && n_cl >= 18);
  CHECK(p > 0.01);
  CHECK(fabs(z) < 2.576);
}

static void an_interrupted_step_changes_nothing(void) { check_interrupted_step_changes_nothing("opencl"); }

/* A stop raised while a step runs: the OpenCL step kernel stops between slices (a flock
 * larger than the first slice is cut), the CPU backend between agents; either way the
 * flock read back is the one before the step. */
static void a_step_stopped_midway_restores_the_flock(void) {
  enum { M = 40000 };
  const herd_backend_ops *ops[] = {&herd_cpu_backend, &herd_cl_backend};
  herd_vec2 *pos = malloc(M * sizeof *pos), *heading = malloc(M * sizeof *heading);
  herd_vec2 *back = malloc(M * sizeof *back), *back_heading = malloc(M * sizeof *back_heading);
  for (uint32_t i = 0; i < M; ++i) {
    herd_rng4 r = herd_rng_draw(7, 0, i, 12);
    pos[i] = herd_v2(400.0f * herd_rng_unit_float(r.v[0]), 400.0f * herd_rng_unit_float(r.v[1]));
    heading[i] = herd_rng_direction(r.v[2]);
  }
  volatile sig_atomic_t stop = 1;
  for (size_t k = 0; k < 2; ++k) {
    herd_backend_desc d = desc_for();
    d.count = M;
    d.model.dog_radius_m = 1e6f; /* every sheep does the full update */
    d.stop = &stop;
    herd_backend *b;
    herd_error err;
    CHECK_MSG(ops[k]->create(&d, &b, &err) == HERD_OK, "%s", err.message);
    CHECK(ops[k]->upload(b, pos, heading, &err) == HERD_OK);
    CHECK_MSG(ops[k]->step(b, dogs, DOGS, herd_v2(200, 200), 1, &err) == HERD_E_INTERRUPTED, "%s", ops[k]->name);
    CHECK(ops[k]->read_agents(b, back, back_heading, &err) == HERD_OK);
    CHECK_MSG(memcmp(back, pos, M * sizeof *pos) == 0 && memcmp(back_heading, heading, M * sizeof *heading) == 0,
              "%s: the flock changed", ops[k]->name);
    ops[k]->destroy(b);
  }
  free(pos);
  free(heading);
  free(back);
  free(back_heading);
}

int main(void) {
  herd_device_info info[8];
  int count;
  herd_error err;
  if (herd_devices(info, 8, &count, &err) != HERD_OK) {
    printf("no OpenCL device: %s\nskipped\n", err.message);
    return 77;
  }
  printf("OpenCL device: %s (%s)\n", info[0].name, info[0].platform);
  TEST_MAIN(TESTS);
}
