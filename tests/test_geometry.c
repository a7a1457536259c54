/* Walls, water, pens and bridges (obstacles.*; kernels/sdf.h, src/core/geometry.c): the baked
 * field against the exact distance within its stated bound, no agent of any model ending a step
 * inside or passing through the geometry over long runs on both backends, agents passing
 * through a pen's gate and over a bridge (and not without them), and the backends agreeing on
 * a step. The scenario errors are in the bad-file corpus (tests/data/bad/geometry_*). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/sdf.h"
#include "core/geometry.h"
#include "sim_util.h"

#define TESTS(X)                                 \
  X(exact_distance_of_each_shape)                \
  X(field_is_within_its_bound)                   \
  X(no_agent_ends_a_step_inside_on_the_cpu)      \
  X(no_agent_ends_a_step_inside_with_opencl)     \
  X(agents_pass_the_gate_and_not_a_closed_fence) \
  X(agents_cross_the_bridge_and_not_the_water)   \
  X(backends_agree_on_a_step_with_geometry)      \
  X(a_batch_steps_each_world_as_alone)
TESTS(DECLARE_TEST)

static const double sqrt_half = 0.70710678118654752;

/* A uniform number in [lo, hi) from a small deterministic generator. */
static double uniform(uint64_t *state, double lo, double hi) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return lo + (hi - lo) * (double)(*state >> 11) / 9007199254740992.0;
}

/* ---- The exact distance ------------------------------------------------------------------ */

/* A straight wall and a square of water against their distances written out by hand. */
static void exact_distance_of_each_shape(void) {
  const char *wall[] = {"model=boids",
                        "obstacles.walls=[{\"points_m\": [[100, 200], [300, 200]], \"thickness_m\": 2}]"};
  const char *water[] = {"model=boids",
                         "obstacles.water=[{\"points_m\": [[100, 100], [200, 100], [200, 200], [100, 200]]}]"};
  herd_scenario a = scenario_with(wall, 2), b = scenario_with(water, 2);
  uint64_t rng = 1;
  double worst = 0;
  for (int i = 0; i < 20000; ++i) {
    double x = uniform(&rng, 0, 400), y = uniform(&rng, 100, 300);
    double along = x < 100 ? 100 - x : (x > 300 ? x - 300 : 0), want = hypot(along, y - 200) - 1;
    worst = fmax(worst, fabs(herd_geometry_distance(&a, x, y, NULL) - want));
    double qx = fabs(x - 150) - 50, qy = fabs(y - 150) - 50;
    double box = hypot(fmax(qx, 0), fmax(qy, 0)) + fmin(fmax(qx, qy), 0);
    worst = fmax(worst, fabs(herd_geometry_distance(&b, x, y, NULL) - box));
  }
  printf("  largest difference from the written-out distances: %.3g m\n", worst);
  CHECK_MSG(worst < 1e-9, "the exact distance is off by %.3g m", worst);
}

/* ---- The baked field -------------------------------------------------------------------- */

/* The field of `sc` at random points of its grid (and beyond it) against the exact distance:
 * within sqrt(2)/2 h everywhere; outside a convex shape, more than 10 h from it, the gradient
 * within (sqrt(2)/2 h / d) radians of the exact one when `convex`. */
static void check_field(const char *what, const herd_scenario *sc, bool convex) {
  uint32_t floats;
  float *f = herd_geometry_bake(sc, &floats);
  CHECK(f != NULL);
  if (!f) return;
  double h = f[4], x0 = f[2], y0 = f[3], w = (f[0] - 1) * h, ht = (f[1] - 1) * h;
  double worst = 0, worst_near = 0, worst_angle = 0, angle_bound = 0;
  uint64_t rng = 7;
  for (int i = 0; i < 100000; ++i) {
    double x = uniform(&rng, x0 - 0.1 * w, x0 + 1.1 * w), y = uniform(&rng, y0 - 0.1 * ht, y0 + 1.1 * ht);
    double g[2], exact = herd_geometry_distance(sc, x, y, g);
    herd_sdf_sample s = herd_sdf_at(f, herd_v3((float)x, (float)y, 0.0f));
    double rim = 0.01 * h; /* the float test of herd_sdf_at may put the very edge beyond */
    bool inside_grid = x >= x0 + rim && x <= x0 + w - rim && y >= y0 + rim && y <= y0 + ht - rim;
    if (inside_grid) {
      worst = fmax(worst, fabs(s.d - exact));
      if (fabs(exact) < 2 * h) worst_near = fmax(worst_near, fabs(s.d - exact));
    } else if (x < x0 - rim || x > x0 + w + rim || y < y0 - rim || y > y0 + ht + rim) {
      CHECK_MSG(s.d <= exact + 1e-3, "%s: beyond the grid at (%g, %g) the field (%g) exceeds the distance (%g)", what,
                x, y, (double)s.d, exact);
    }
    if (convex && inside_grid && exact > 10 * h) {
      double len = hypot(s.g.x, s.g.y), c = (s.g.x * g[0] + s.g.y * g[1]) / len;
      double angle = acos(fmin(1.0, c)), bound = sqrt_half * h / exact + 1e-3;
      worst_angle = fmax(worst_angle, angle / bound);
      angle_bound = fmax(angle_bound, angle);
    }
  }
  printf("  %s: h = %.4g m, largest error %.4g m (%.3f h; within 2 h of a surface %.3f h), bound %.4g m", what, h,
         worst, worst / h, worst_near / h, sqrt_half * h);
  if (convex) printf(", gradient within %.3g deg", angle_bound * 57.29577951);
  printf("\n");
  CHECK_MSG(worst <= sqrt_half * h + 1e-4, "%s: the field is off by %.4g m, more than sqrt(2)/2 h = %.4g m", what,
            worst, sqrt_half * h);
  CHECK_MSG(f[6] > sqrt_half * h, "%s: the skin (%g) is not above the error bound", what, (double)f[6]);
  CHECK_MSG(worst_angle <= 1.0, "%s: the gradient is off by %.3g times its bound", what, worst_angle);
  free(f);
}

static void field_is_within_its_bound(void) {
  const char *wall[] = {"model=boids",
                        "obstacles.walls=[{\"points_m\": [[100, 200], [300, 200]], \"thickness_m\": 2}]"};
  const char *water[] = {"model=boids",
                         "obstacles.water=[{\"points_m\": [[100, 100], [200, 100], [200, 200], [100, 200]]}]",
                         "obstacles.resolution_m=0.5"};
  const char *river[] = {
      "model=boids", "obstacles.water=[{\"points_m\": [[300, -10], [340, -10], [350, 250], [340, 490], [300, 490]]}]",
      "obstacles.bridges=[{\"points_m\": [[280, 240], [370, 250]], \"width_m\": 30, \"water\": 0}]"};
  herd_scenario a = scenario_with(wall, 2), b = scenario_with(water, 3), c = scenario_with(river, 3);
  herd_scenario d = shipped("pen-with-gate.json", NULL, 0), e = shipped("river-with-bridge.json", NULL, 0);
  check_field("a straight wall", &a, true);
  check_field("a square of water", &b, true);
  check_field("a river with a bridge", &c, false);
  check_field("pen-with-gate.json", &d, false);
  check_field("river-with-bridge.json", &e, false);
}

/* ---- Whole runs ------------------------------------------------------------------------- */

/* A thin wall, a triangle of water and a pen with a gate, as fractions of the world. */
typedef struct layout {
  double wall[2][2], water[3][2], pen[4][2], gate[2][2], thick;
} layout;

static const layout plan = {{{0.2, 0.5}, {0.8, 0.5}},
                            {{0.1, 0.1}, {0.3, 0.1}, {0.2, 0.3}},
                            {{0.6, 0.6}, {0.9, 0.6}, {0.9, 0.9}, {0.6, 0.9}},
                            {{0.7, 0.6}, {0.8, 0.6}},
                            0.005};

/* The "--set"s that put the plan into a world of size (sx, sy). */
static void plan_sets(double sx, double sy, char out[4][512]) {
  double t = plan.thick * fmin(sx, sy);
  const double(*p)[2] = plan.pen;
  snprintf(out[0], 512, "obstacles.walls=[{\"points_m\": [[%g, %g], [%g, %g]], \"thickness_m\": %g}]",
           plan.wall[0][0] * sx, plan.wall[0][1] * sy, plan.wall[1][0] * sx, plan.wall[1][1] * sy, t);
  snprintf(out[1], 512, "obstacles.water=[{\"points_m\": [[%g, %g], [%g, %g], [%g, %g]]}]", plan.water[0][0] * sx,
           plan.water[0][1] * sy, plan.water[1][0] * sx, plan.water[1][1] * sy, plan.water[2][0] * sx,
           plan.water[2][1] * sy);
  snprintf(out[2], 512,
           "obstacles.pens=[{\"points_m\": [[%g, %g], [%g, %g], [%g, %g], [%g, %g]], \"gate_m\": [[%g, %g], [%g, %g]], "
           "\"fence_m\": %g}]",
           p[0][0] * sx, p[0][1] * sy, p[1][0] * sx, p[1][1] * sy, p[2][0] * sx, p[2][1] * sy, p[3][0] * sx,
           p[3][1] * sy, plan.gate[0][0] * sx, plan.gate[0][1] * sy, plan.gate[1][0] * sx, plan.gate[1][1] * sy, t);
  snprintf(out[3], 512, "obstacles.resolution_m=%g", fmin(sx, sy) / 500);
}

/* True when the move a -> b passes through the middle 90 % of segment pq (a wall's or a
 * fence's centre line). */
static bool crosses(const float *a, const float *b, const double *p, const double *q) {
  double ux = b[0] - a[0], uy = b[1] - a[1], vx = q[0] - p[0], vy = q[1] - p[1];
  double den = ux * vy - uy * vx;
  if (den == 0) return false;
  double wx = p[0] - a[0], wy = p[1] - a[1];
  double s = (wx * vy - wy * vx) / den, t = (wx * uy - wy * ux) / den;
  return s >= 0 && s <= 1 && t >= 0.05 && t <= 0.95;
}

/* Runs `steps` steps and counts, over every agent and step: ends inside the geometry (exact
 * distance < 0), moves through the wall or a fence (the gate's edge left out), and ends within
 * 2 h of a surface (proof that the agents met it). */
static void run_and_count(const char *what, const herd_scenario *sc, const char *backend, uint32_t steps) {
  herd_sim *sim;
  herd_error err;
  if (herd_sim_create(&(herd_sim_desc){.scenario = sc, .threads = 2, .backend = backend}, &sim, &err) != HERD_OK) {
    CHECK_MSG(false, "%s: %s", what, err.message);
    return;
  }
  uint32_t n = sc->flock.count, dims = sc->world.dims, inside = 0, through = 0, touching = 0;
  float *pos = malloc(n * dims * sizeof *pos), *before = malloc(n * dims * sizeof *before);
  double sx = sc->world.size_m[0], sy = sc->world.size_m[1], h = sc->obstacles.resolution_m;
  double lines[5][2][2] = {
      {{plan.wall[0][0] * sx, plan.wall[0][1] * sy}, {plan.wall[1][0] * sx, plan.wall[1][1] * sy}}};
  for (int e = 1; e < 4; ++e) /* the pen's edges but the gate's (its first) */
    for (int k = 0; k < 2; ++k)
      lines[e][k][0] = plan.pen[(e + k) % 4][0] * sx, lines[e][k][1] = plan.pen[(e + k) % 4][1] * sy;
  CHECK(pos && before && herd_sim_read_flock(sim, before, NULL, &err) == HERD_OK);
  for (uint32_t i = 0; pos && i < n; ++i)
    inside += herd_geometry_distance(sc, before[dims * i], before[dims * i + 1], NULL) < 0;
  for (uint32_t step = 0; step < steps && pos && before; ++step) {
    CHECK(herd_sim_step(sim, &err) == HERD_OK);
    CHECK(herd_sim_read_flock(sim, pos, NULL, &err) == HERD_OK);
    for (uint32_t i = 0; i < n; ++i) {
      const float *p = pos + dims * i, *b = before + dims * i;
      double d = herd_geometry_distance(sc, p[0], p[1], NULL);
      inside += d < 0, touching += d < 2 * h;
      bool wrapped = fabs(p[0] - b[0]) > 0.5 * sx || fabs(p[1] - b[1]) > 0.5 * sy;
      for (int e = 0; e < 4 && !wrapped; ++e) through += crosses(b, p, lines[e][0], lines[e][1]);
    }
    memcpy(before, pos, n * dims * sizeof *pos);
  }
  printf("  %s on %s: %u agent-steps within 2 h of a surface, %u inside, %u through a wall or fence\n", what, backend,
         touching, inside, through);
  CHECK_MSG(touching > steps, "%s (%s): the agents hardly met the geometry: the run proves little", what, backend);
  CHECK_MSG(inside == 0, "%s (%s): %u agent-steps ended inside an obstacle", what, backend, inside);
  CHECK_MSG(through == 0, "%s (%s): %u moves went through a wall or fence", what, backend, through);
  free(pos), free(before);
  herd_sim_destroy(sim);
}

/* Every model in a world with the plan; the push off, so that only the engine keeps agents
 * out; steering agents to stir them up. */
static void every_model_kept_out(const char *backend, uint32_t steps) {
  static const struct {
    const char *what, *sets[6];
    double sx, sy;
  } runs[] = {
      {"strombom",
       {"sheep.count=300", "sheep.graze_probability=1", "sheep.dog_radius_m=1e6", "sheep.spawn.from=[0.05, 0.05]",
        "sheep.spawn.to=[0.95, 0.95]", "max_steps=100000"},
       150,
       150},
      {"boids 2D",
       {"model=boids", "boids.count=400", "boids.spawn.from=[0.05, 0.05]", "boids.spawn.to=[0.95, 0.95]",
        "agents[0].strategy=pursuer", "boids.view_angle_deg=360"},
       640,
       480},
      {"boids 3D",
       {"model=boids", "world.size_m=[640, 480, 480]", "boids.count=400", "boids.spawn.from=[0.05, 0.05, 0.05]",
        "boids.spawn.to=[0.95, 0.95, 0.95]", "agents[0].strategy=cruiser"},
       640,
       480},
      {"netlogo",
       {"model=netlogo", "netlogo.count=300", "agents[0].count=2", "agents[0].strategy=cruiser",
        "netlogo.spawn.from=[0, 0]", "netlogo.spawn.to=[1, 1]"},
       71,
       71},
      {"couzin 2D",
       {"model=couzin", "world.size_m=[40, 40]", "couzin.count=200", "couzin.spawn.from=[0.05, 0.05]",
        "couzin.spawn.to=[0.95, 0.95]", "agents[0].strategy=cruiser"},
       40,
       40},
  };
  for (size_t r = 0; r < sizeof runs / sizeof runs[0]; ++r) {
    char geo[4][512];
    plan_sets(runs[r].sx, runs[r].sy, geo);
    const char *sets[12];
    int n = 0;
    for (int k = 0; k < 6 && runs[r].sets[k]; ++k) sets[n++] = runs[r].sets[k];
    for (int k = 0; k < 4; ++k) sets[n++] = geo[k];
    sets[n++] = "obstacles.push=0";
    herd_scenario sc = scenario_with(sets, n);
    run_and_count(runs[r].what, &sc, backend, steps);
  }
}

static void no_agent_ends_a_step_inside_on_the_cpu(void) { every_model_kept_out("cpu", 1500); }

static void no_agent_ends_a_step_inside_with_opencl(void) {
  if (!have_opencl()) {
    printf("  no OpenCL device: skipped\n");
    return;
  }
  every_model_kept_out("opencl", 300);
}

/* Boids drawn along a path (a vector field) from the left of the world into a pen through its
 * gate; with the same pen closed (a fence all round), none gets in. */
static uint32_t boids_in_pen(const char *fence) {
  const char *sets[] = {"model=boids",
                        "boids.count=200",
                        "boids.spawn.from=[0.02, 0.4]",
                        "boids.spawn.to=[0.15, 0.6]",
                        "path.points_m=[[50, 250], [250, 250], [500, 250]]",
                        "path.weight=0.1",
                        fence};
  herd_scenario sc = scenario_with(sets, 7);
  herd_sim *sim = sim_start(&sc, 2);
  herd_error err;
  uint32_t in = 0, inside = 0;
  float *pos = malloc(sc.flock.count * 2 * sizeof *pos);
  for (int step = 0; step < 500 && pos; ++step) {
    CHECK(herd_sim_step(sim, &err) == HERD_OK);
    CHECK(herd_sim_read_flock(sim, pos, NULL, &err) == HERD_OK);
    for (uint32_t i = 0; i < sc.flock.count; ++i)
      inside += herd_geometry_distance(&sc, pos[2 * i], pos[2 * i + 1], NULL) < 0;
  }
  for (uint32_t i = 0; pos && i < sc.flock.count; ++i)
    in += pos[2 * i] > 400 && pos[2 * i] < 600 && pos[2 * i + 1] > 150 && pos[2 * i + 1] < 350;
  CHECK_MSG(inside == 0, "%u agent-steps ended inside the fence", inside);
  free(pos);
  herd_sim_destroy(sim);
  return in;
}

static void agents_pass_the_gate_and_not_a_closed_fence(void) {
  uint32_t gate = boids_in_pen(
      "obstacles.pens=[{\"points_m\": [[400, 150], [600, 150], [600, 350], [400, 350]], "
      "\"gate_m\": [[400, 280], [400, 220]], \"fence_m\": 0.5}]");
  uint32_t closed = boids_in_pen(
      "obstacles.walls=[{\"points_m\": [[400, 150], [600, 150], [600, 350], [400, 350], "
      "[400, 150]], \"thickness_m\": 0.5}]");
  printf("  in the pen after 500 steps: %u of 200 through the gate, %u with the pen closed\n", gate, closed);
  CHECK_MSG(gate >= 100, "only %u of 200 boids went through the gate", gate);
  CHECK_MSG(closed == 0, "%u boids got into a closed pen", closed);
}

/* Boids drawn along a path across a river that spans the world: over the bridge, most reach the
 * far bank; without it, none does. */
static uint32_t boids_across(bool bridge) {
  const char *sets[] = {"model=boids",
                        "boids.count=200",
                        "boids.spawn.from=[0.02, 0.4]",
                        "boids.spawn.to=[0.15, 0.6]",
                        "path.points_m=[[50, 240], [600, 240]]",
                        "path.weight=0.1",
                        "obstacles.water=[{\"points_m\": [[300, -2000], [340, -2000], [340, 2500], [300, 2500]]}]",
                        "obstacles.bridges=[{\"points_m\": [[280, 240], [360, 240]], \"width_m\": 40, \"water\": 0}]"};
  herd_scenario sc = scenario_with(sets, bridge ? 8 : 7);
  herd_sim *sim = sim_start(&sc, 2);
  herd_error err;
  uint32_t across = 0, inside = 0;
  float *pos = malloc(sc.flock.count * 2 * sizeof *pos);
  for (int step = 0; step < 400 && pos; ++step) {
    CHECK(herd_sim_step(sim, &err) == HERD_OK);
    CHECK(herd_sim_read_flock(sim, pos, NULL, &err) == HERD_OK);
    for (uint32_t i = 0; i < sc.flock.count; ++i)
      inside += herd_geometry_distance(&sc, pos[2 * i], pos[2 * i + 1], NULL) < 0;
  }
  for (uint32_t i = 0; pos && i < sc.flock.count; ++i) across += pos[2 * i] > 340;
  CHECK_MSG(inside == 0, "%u agent-steps ended in the water", inside);
  free(pos);
  herd_sim_destroy(sim);
  return across;
}

static void agents_cross_the_bridge_and_not_the_water(void) {
  uint32_t over = boids_across(true), without = boids_across(false);
  printf("  on the far bank after 400 steps: %u of 200 with the bridge, %u without\n", over, without);
  CHECK_MSG(over >= 100, "only %u of 200 boids crossed the bridge", over);
  CHECK_MSG(without == 0, "%u boids crossed the river without a bridge", without);
}

/* One step of pen-with-gate.json with many sheep near the fences, and of 3D boids among the
 * plan's prisms, on both backends: positions within rounding. */
static void backends_agree_on_a_step_with_geometry(void) {
  if (!have_opencl()) {
    printf("  no OpenCL device: skipped\n");
    return;
  }
  char geo[4][512];
  plan_sets(640, 480, geo);
  const char *pen[] = {"sheep.count=2000", "sheep.spawn.from=[0, 0]", "sheep.spawn.to=[0.4, 0.4]",
                       "sheep.dog_radius_m=1e6"};
  const char *boids[] = {"model=boids", "world.size_m=[640, 480, 480]", "boids.count=2000", geo[0], geo[1], geo[2],
                         geo[3]};
  herd_scenario scs[2] = {shipped("pen-with-gate.json", pen, 4), scenario_with(boids, 7)};
  for (int k = 0; k < 2; ++k) {
    herd_sim *cpu, *cl;
    herd_error err;
    CHECK(herd_sim_create(&(herd_sim_desc){.scenario = &scs[k], .threads = 2, .backend = "cpu"}, &cpu, &err) ==
          HERD_OK);
    CHECK_MSG(herd_sim_create(&(herd_sim_desc){.scenario = &scs[k], .backend = "opencl"}, &cl, &err) == HERD_OK, "%s",
              err.message);
    CHECK(herd_sim_step(cpu, &err) == HERD_OK && herd_sim_step(cl, &err) == HERD_OK);
    flock_copy a = read_flock(cpu), b = read_flock(cl);
    float worst = 0;
    for (uint32_t i = 0; i < a.n * a.dims; ++i) worst = fmaxf(worst, fabsf(a.pos[i] - b.pos[i]));
    printf("  %s: largest position difference after one step %.3g m\n", k ? "boids 3D" : "pen-with-gate",
           (double)worst);
    CHECK_MSG(worst < 1e-3f, "the backends differ by %.3g m", (double)worst);
    free_flock(&a), free_flock(&b);
    herd_sim_destroy(cpu);
    herd_sim_destroy(cl);
  }
}

/* A batch of two worlds with geometry (one of them with more of it), each stepped as alone. */
static void a_batch_steps_each_world_as_alone(void) {
  char geo[4][512];
  plan_sets(150, 150, geo);
  const char *second[] = {"sheep.count=80", geo[0], geo[2]};
  herd_scenario scs[2] = {shipped("pen-with-gate.json", NULL, 0), shipped("pen-with-gate.json", second, 3)};
  herd_sim_desc descs[2] = {{.scenario = &scs[0], .backend = "cpu"}, {.scenario = &scs[1], .backend = "cpu"}};
  herd_batch *batch;
  herd_error err;
  CHECK_MSG(herd_batch_create(descs, 2, &batch, &err) == HERD_OK, "%s", err.message);
  herd_sim *alone[2] = {sim_start(&scs[0], 1), sim_start(&scs[1], 1)};
  for (int step = 0; step < 200; ++step) {
    CHECK(herd_batch_step(batch, &err) == HERD_OK);
    for (int w = 0; w < 2; ++w) CHECK(herd_sim_step(alone[w], &err) == HERD_OK);
  }
  for (int w = 0; w < 2; ++w) {
    flock_copy a = read_flock(alone[w]);
    float *b = malloc(a.n * a.dims * sizeof *b);
    CHECK(b && herd_batch_read_flock(batch, (uint32_t)w, b, NULL, &err) == HERD_OK);
    CHECK_MSG(b && memcmp(a.pos, b, a.n * a.dims * sizeof *b) == 0, "world %d differs from its run alone", w);
    free_flock(&a), free(b);
    herd_sim_destroy(alone[w]);
  }
  herd_batch_destroy(batch);
}

int main(void) { TEST_MAIN(TESTS); }
