/* The world's obstacles and guiding path (kernels/env.h) in whole runs: boids follow the path
 * of path2d.json and path3d-sphere.json to its end, the observation's path measures equal a
 * count over the flock, no agent ever ends a step inside a sphere (nor starts inside one),
 * and the CPU and OpenCL backends agree on a step. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/env.h"
#include "sim_util.h"

#define TESTS(X)                      \
  X(boids_follow_the_path_in_2d)      \
  X(boids_follow_the_path_in_3d)      \
  X(couzin_fish_follow_the_path)      \
  X(no_agent_ends_a_step_in_a_sphere) \
  X(no_agent_starts_in_a_sphere)      \
  X(backends_agree_with_path_and_sphere)
TESTS(DECLARE_TEST)

enum { FOLLOW_STEPS = 600 };
static const float boid_m = 7.0f; /* a boid's length as drawn (kernels/models/models.h) */

/* The scenario's path array, built on the host as the sim builds it. */
static float *host_path(const herd_scenario *sc) {
  uint32_t n = sc->path.points.count;
  float *path = malloc(herd_path_floats(n, HERD_PATH_INTERVALS) * sizeof *path), xyz[3 * HERD_MAX_PATH_POINTS];
  for (uint32_t i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) xyz[3 * i + k] = sc->path.points.v[i][k];
  if (path && herd_path_build(path, xyz, n, HERD_PATH_INTERVALS) != 0) free(path), path = NULL;
  return path;
}

static herd_vec3 agent_at(const float *pos, uint32_t i, uint32_t dims) {
  return herd_v3(pos[dims * i], pos[dims * i + 1], dims == 3 ? pos[dims * i + 2] : 0.0f);
}

/* How many agents lie inside a sphere of the scenario. */
static uint32_t inside_spheres(const herd_scenario *sc, const float *pos) {
  uint32_t inside = 0, dims = sc->world.dims;
  for (uint32_t i = 0; i < sc->flock.count; ++i)
    for (uint32_t k = 0; k < sc->obstacles.spheres.count; ++k) {
      const float *s = sc->obstacles.spheres.v[k];
      inside += herd_sphere_contains(herd_v3(s[0], s[1], s[2]), s[3], agent_at(pos, i, dims)) != 0;
    }
  return inside;
}

/* Runs the scenario `steps` steps, reading the flock after each: the path measures of the
 * observation against the same measures over the flock, each agent's arrival at the last 5 %
 * of the path (latched), the nearest the flock came to the path (on average: within
 * `near_m`), and sphere entries. */
static void check_following(const char *file, herd_scenario sc, uint32_t steps, float near_m) {
  float *path = host_path(&sc);
  CHECK(path != NULL);
  herd_sim *sim = sim_start(&sc, 2);
  uint32_t n = sc.flock.count, dims = sc.world.dims, entered = 0, worst_end_error = 0;
  float *pos = malloc(n * dims * sizeof *pos), nearest_mean = INFINITY;
  bool *arrived = calloc(n, sizeof *arrived);
  double worst_mean_error = 0;
  herd_error err;
  for (uint32_t step = 0; step < steps && path && pos && arrived; ++step) {
    CHECK(herd_sim_step(sim, &err) == HERD_OK);
    CHECK(herd_sim_read_flock(sim, pos, NULL, &err) == HERD_OK);
    double sum = 0;
    uint32_t at_end = 0;
    for (uint32_t i = 0; i < n; ++i) {
      herd_path_hit hit = herd_path_closest(path, agent_at(pos, i, dims));
      int end = herd_path_near_end(path, hit, HERD_PATH_END_FRACTION);
      sum += hit.dist_m, at_end += (uint32_t)end;
      arrived[i] = arrived[i] || end;
    }
    const herd_observation *o = herd_sim_observation(sim);
    worst_mean_error = fmax(worst_mean_error, fabs(o->path_distance_m - sum / n));
    uint32_t end_error = o->path_end > at_end ? o->path_end - at_end : at_end - o->path_end;
    worst_end_error = end_error > worst_end_error ? end_error : worst_end_error;
    nearest_mean = fminf(nearest_mean, o->path_distance_m);
    entered += inside_spheres(&sc, pos);
  }
  uint32_t reached = 0;
  for (uint32_t i = 0; arrived && i < n; ++i) reached += arrived[i];
  printf("  %s: nearest mean distance %.2f m, %u of %u reached the last 5 %% within %u steps\n", file,
         (double)nearest_mean, reached, n, steps);
  CHECK_MSG(worst_mean_error < 1e-3 && worst_end_error == 0,
            "%s: the observation's path measures differ from a count over the flock (%.3g m, %u agents)", file,
            worst_mean_error, worst_end_error);
  CHECK_MSG(nearest_mean < near_m, "%s: the flock never came within %.1f m of the path on average (%.2f m)", file,
            (double)near_m, (double)nearest_mean);
  CHECK_MSG(reached * 10 >= n * 9, "%s: only %u of %u agents reached the path's end", file, reached, n);
  CHECK_MSG(entered == 0, "%s: %u agent-steps ended inside a sphere", file, entered);
  free(path), free(pos), free(arrived);
  herd_sim_destroy(sim);
}

/* Within 2 body lengths of the path on average, at some step. */
static void boids_follow_the_path_in_2d(void) {
  const char *sets[] = {"boids.count=200"};
  check_following("path2d.json", shipped("path2d.json", sets, 1), FOLLOW_STEPS, 2.0f * boid_m);
}

static void boids_follow_the_path_in_3d(void) {
  const char *sets[] = {"boids.count=300"};
  check_following("path3d-sphere.json", shipped("path3d-sphere.json", sets, 1), FOLLOW_STEPS, 2.0f * boid_m);
}

/* A highly parallel school of Couzin's fish (1 m long, 0.3 m a step) along a 3D path that
 * starts at its spawn corner; without the path (weight 0) it swims off hundreds of metres. */
static void couzin_fish_follow_the_path(void) {
  const char *sets[] = {"model=couzin",
                        "couzin.count=100",
                        "couzin.orientation_band_m=10",
                        "world.size_m=[80, 80, 80]",
                        "couzin.spawn.to=[0.2, 0.2, 0.2]",
                        "path.points_m=[[8, 8, 8], [20, 70, 60], [60, 10, 20], [72, 72, 72]]",
                        "path.weight=0.05",
                        "path.lookahead_m=5",
                        "obstacles.spheres=[[40, 40, 40, 6]]"};
  check_following("couzin along a path", scenario_with(sets, 9), 1500, 2.0f * 1.0f); /* 2 body lengths */
}

/* Boids flying straight at a sphere, with no push to turn them: only the projection keeps
 * them out, every step, on both backends. */
static void check_kept_out(const char *backend) {
  const char *sets[] = {"model=boids",
                        "boids.count=400",
                        "boids.spawn.from=[0.05, 0.4]",
                        "boids.spawn.to=[0.2, 0.6]",
                        "boids.centering=0",
                        "boids.matching=0",
                        "obstacles.spheres=[[320, 240, 80], [420, 260, 40]]",
                        "obstacles.push=0",
                        "obstacles.margin_m=0",
                        "agents[0].strategy=cruiser",
                        "agents[0].position_m=[5, 240]",
                        "agents[0].direction=[1, 0]"};
  herd_scenario sc = scenario_file_with(NULL, sets, 12);
  herd_sim *sim;
  herd_error err;
  CHECK_MSG(herd_sim_create(&(herd_sim_desc){.scenario = &sc, .threads = 2, .backend = backend}, &sim, &err) == HERD_OK,
            "%s", err.message);
  uint32_t n = sc.flock.count, entered = 0, touching = 0;
  float *pos = malloc(n * 2 * sizeof *pos);
  for (int step = 0; step < 150 && pos; ++step) {
    CHECK(herd_sim_step(sim, &err) == HERD_OK);
    CHECK(herd_sim_read_flock(sim, pos, NULL, &err) == HERD_OK);
    entered += inside_spheres(&sc, pos);
    for (uint32_t i = 0; i < n; ++i) {
      float dx = pos[2 * i] - 320.0f, dy = pos[2 * i + 1] - 240.0f;
      touching += sqrtf(dx * dx + dy * dy) < 80.5f;
    }
  }
  printf("  %s: %u agent-steps on the big sphere's surface, %u inside\n", backend, touching, entered);
  CHECK_MSG(touching > 0, "%s: no boid reached the sphere: the test proves nothing", backend);
  CHECK_MSG(entered == 0, "%s: %u agent-steps ended inside a sphere", backend, entered);
  free(pos);
  herd_sim_destroy(sim);
}

static void no_agent_ends_a_step_in_a_sphere(void) {
  check_kept_out("cpu");
  if (have_opencl()) check_kept_out("opencl");
}

/* A spawn box that a sphere covers half of: every agent starts outside it. */
static void no_agent_starts_in_a_sphere(void) {
  const char *sets[] = {"model=boids", "boids.count=1000", "boids.spawn.from=[0.4, 0.4]", "boids.spawn.to=[0.6, 0.6]",
                        "obstacles.spheres=[[320, 240, 60]]"};
  herd_scenario sc = scenario_file_with(NULL, sets, 5);
  herd_sim *sim = sim_start(&sc, 1);
  float *pos = malloc(sc.flock.count * 2 * sizeof *pos);
  herd_error err;
  CHECK(pos && herd_sim_read_flock(sim, pos, NULL, &err) == HERD_OK);
  uint32_t on_surface = 0;
  for (uint32_t i = 0; pos && i < sc.flock.count; ++i) {
    float dx = pos[2 * i] - 320.0f, dy = pos[2 * i + 1] - 240.0f;
    on_surface += sqrtf(dx * dx + dy * dy) < 60.01f;
  }
  CHECK_MSG(on_surface > 100, "only %u agents were moved to the surface: the box should be half covered", on_surface);
  CHECK_MSG(pos && inside_spheres(&sc, pos) == 0, "an agent starts inside the sphere");
  free(pos);
  herd_sim_destroy(sim);
}

/* One step and 30 steps of path3d-sphere.json on both backends: positions within rounding,
 * the path measures alike. */
static void backends_agree_with_path_and_sphere(void) {
  if (!have_opencl()) {
    printf("  no OpenCL device: skipped\n");
    return;
  }
  const char *sets[] = {"boids.count=500"};
  herd_scenario sc = scenario_file_with("scenarios/path3d-sphere.json", sets, 1);
  herd_sim *cpu, *cl;
  herd_error err;
  CHECK(herd_sim_create(&(herd_sim_desc){.scenario = &sc, .threads = 2, .backend = "cpu"}, &cpu, &err) == HERD_OK);
  CHECK_MSG(herd_sim_create(&(herd_sim_desc){.scenario = &sc, .backend = "opencl"}, &cl, &err) == HERD_OK, "%s",
            err.message);
  uint32_t n = sc.flock.count * 3;
  float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  for (int step = 1; step <= 30 && a && b; ++step) {
    CHECK(herd_sim_step(cpu, &err) == HERD_OK && herd_sim_step(cl, &err) == HERD_OK);
    if (step != 1 && step != 30) continue;
    CHECK(herd_sim_read_flock(cpu, a, NULL, &err) == HERD_OK && herd_sim_read_flock(cl, b, NULL, &err) == HERD_OK);
    float worst = 0;
    for (uint32_t i = 0; i < n; ++i) worst = fmaxf(worst, fabsf(a[i] - b[i]));
    const herd_observation *x = herd_sim_observation(cpu), *y = herd_sim_observation(cl);
    printf("  step %d: largest position difference %.3g m; path distance %.6f / %.6f m\n", step, (double)worst,
           (double)x->path_distance_m, (double)y->path_distance_m);
    CHECK_MSG(worst < (step == 1 ? 1e-3f : 1.0f), "step %d: the backends differ by %.3g m", step, (double)worst);
    CHECK(fabsf(x->path_distance_m - y->path_distance_m) < (step == 1 ? 1e-3f : 0.5f));
    CHECK(step != 1 || x->path_end == y->path_end);
  }
  free(a), free(b);
  herd_sim_destroy(cpu);
  herd_sim_destroy(cl);
}

int main(void) { TEST_MAIN(TESTS); }
