/* The OpenCL backend against the CPU backend on the same input, for every model: the grid
 * and neighbour sets exactly, one step within rounding, the reductions of one state bit for
 * bit, whole runs in
 * distribution, and its own runs bit for bit. Skipped (exit 77) without an OpenCL device. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>

#include "backend/cl/cl_backend.h"
#include "backend/cl/cl_internal.h"
#include "backend/cpu/cpu_backend.h"
#include "backend_util.h"
#include "rng.h"

#define TESTS(X)                                         \
  X(sort_and_cell_ranges_equal_the_cpu_backend)          \
  X(dense_tiny_and_large_flocks_sort_as_the_cpu_backend) \
  X(neighbour_sets_equal_the_cpu_backend)                \
  X(one_step_matches_the_cpu_backend)                    \
  X(a_step_takes_the_centroid_on_the_device)             \
  X(reductions_match_the_cpu_backend)                    \
  X(reductions_refuse_more_steering_agents)              \
  X(reductions_match_at_every_work_item_size)            \
  X(strombom_variants_step_as_the_cpu_backend)           \
  X(every_model_steps_as_the_cpu_backend)                \
  X(grid_3d_and_torus_equal_the_cpu_backend)             \
  X(two_runs_are_bit_identical)                          \
  X(herding_outcomes_match_the_cpu_backend)              \
  X(flocking_outcomes_match_the_cpu_backend)             \
  X(an_interrupted_step_changes_nothing)                 \
  X(a_step_stopped_midway_restores_the_flock)            \
  X(running_a_step_ahead_changes_nothing)                \
  X(coop_neighbour_sums_equal_the_cpu_bit_for_bit)       \
  X(a_step_with_the_pre_pass_equals_one_without)         \
  X(the_gpu_selection_finds_the_same_neighbours)         \
  X(the_gpu_radius_loop_steps_as_the_cpu_backend)        \
  X(path_worlds_step_as_the_cpu_backend)                 \
  X(the_capped_program_steps_the_same_bits)
TESTS(DECLARE_TEST)

enum { DOGS = 2 };
/* Agents of the flocks below: $HERD_TEST_OPENCL_AGENTS where set (the Oclgrind test, whose
 * simulator is slow, runs a case with a few hundred). */
static uint32_t N = 6000;

/* A Strömbom flock of N: a dense core, looser fringes, and a few far strays. */
static void make_flock(herd_vec2 *pos, herd_vec2 *heading) {
  for (uint32_t i = 0; i < N; ++i) {
    herd_rng4 r = herd_rng_draw(99, 0, i, 11);
    float spread = i % 3 == 0 ? 60.0f : 25.0f;
    if (i % 500 == 0) spread = 3000.0f;
    pos[i] = herd_v2(spread * herd_rng_unit_float(r.v[0]) + 100.0f, spread * herd_rng_unit_float(r.v[1]) - 40.0f);
    heading[i] = herd_rng_direction(r.v[2]);
  }
}

/* The dogs as the backends take them: HERD_STEER_FLOATS each (position, role, velocity). */
static const float dogs[HERD_STEER_FLOATS * DOGS] = {90, -50, 0, 0, 0, 0, 0, 0, 160, 10, 0, 0, 0, 0, 0, 0};
static const herd_steering_input two_dogs = {dogs, DOGS};

/* Both backends made from scenario sc with n agents, holding the same state; built for DOGS
 * steering agents (the OpenCL reduction's partials sized for them, the CPU's for the most). */
static void make_pair_from(const herd_scenario *sc, uint32_t n, const float *pos, const float *vel, herd_backend **cpu,
                           herd_backend **cl) {
  herd_backend_desc d = backend_desc_for(sc, n, 2);
  d.steering_count = DOGS;
  herd_error err;
  if (herd_cpu_backend.create(&d, cpu, &err) != HERD_OK || herd_cl_backend.create(&d, cl, &err) != HERD_OK) {
    fprintf(stderr, "%s\n", err.message);
    exit(1);
  }
  CHECK(herd_cpu_backend.upload(*cpu, pos, vel, &err) == HERD_OK);
  CHECK(herd_cl_backend.upload(*cl, pos, vel, &err) == HERD_OK);
}

/* The Strömbom pair: the default scenario's parameters, the goal at (110, -30). */
static void make_pair(herd_backend **cpu, herd_backend **cl) {
  herd_scenario sc = scenario_with((const char *[]){"seed=5", "target.position_m=[110, -30]"}, 2);
  herd_vec2 *pos = malloc(N * sizeof *pos), *heading = malloc(N * sizeof *heading);
  make_flock(pos, heading);
  make_pair_from(&sc, N, (const float *)pos, (const float *)heading, cpu, cl);
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

/* The sorted state and every bucket's end with its mixed flag, byte for byte. */
static void check_same_grid(const herd_cpu_grid_view *v, const herd_cl_grid_copy *c, uint32_t n) {
  uint32_t stride = herd_state_stride(v->grid.dims);
  CHECK(memcmp(v->pos, c->pos, (size_t)n * stride * sizeof(float)) == 0);
  CHECK(memcmp(v->vel, c->vel, (size_t)n * stride * sizeof(float)) == 0);
  CHECK(memcmp(v->agent, c->agent, n * sizeof *v->agent) == 0);
  /* Every bucket a query reads (past a dense box the table is never read, nor written on the device). */
  size_t buckets = herd_grid_buckets_read(&v->grid);
  CHECK(memcmp(&v->grid, &c->grid, sizeof v->grid) == 0);
  CHECK(memcmp(v->cell_end, c->cell_end, buckets * sizeof *v->cell_end) == 0); /* mixed flags included */
}

static void sort_and_cell_ranges_equal_the_cpu_backend(void) {
  herd_backend *cpu, *cl;
  herd_cpu_grid_view v;
  herd_cl_grid_copy c;
  make_grids(&cpu, &cl, &v, &c);
  check_same_grid(&v, &c, N);
  herd_cl_grid_copy_free(&c);
  destroy_pair(cpu, cl);
}

/* The grid of n sheep, `dense` of them packed into one 1 m square (one bucket), the rest
 * spread over `spread` m, built on both backends and compared as above. */
static void check_sorted_flock(uint32_t n, uint32_t dense, float spread) {
  herd_scenario sc = scenario_with((const char *[]){"seed=5"}, 1);
  herd_vec2 *pos = malloc(n * sizeof *pos), *heading = malloc(n * sizeof *heading);
  for (uint32_t i = 0; i < n; ++i) {
    herd_rng4 r = herd_rng_draw(7, 0, i, 3);
    float side = i < dense ? 1.0f : spread; /* the dense ones first and last in index order */
    pos[i] = herd_v2(side * herd_rng_unit_float(r.v[0]) + 0.25f, side * herd_rng_unit_float(r.v[1]) + 0.25f);
    heading[i] = herd_rng_direction(r.v[2]);
  }
  herd_backend *cpu, *cl;
  make_pair_from(&sc, n, (const float *)pos, (const float *)heading, &cpu, &cl);
  herd_cpu_grid_view v = herd_cpu_build_grid(cpu);
  herd_cl_grid_copy c;
  herd_error err;
  CHECK(herd_cl_read_grid(cl, &c, &err) == HERD_OK);
  check_same_grid(&v, &c, n);
  if (dense) { /* the dense square's bucket holds them all, in their previous order */
    uint32_t b = herd_bucket_of(&v.grid, pos[0]), begin = herd_bucket_begin(c.cell_end, b);
    CHECK(herd_bucket_end(c.cell_end, b) - begin >= dense);
    for (uint32_t j = begin + 1; j < begin + dense; ++j) CHECK(c.agent[j - 1] < c.agent[j]);
  }
  herd_cl_grid_copy_free(&c);
  destroy_pair(cpu, cl);
  free(pos);
  free(heading);
}

/* The radix sort's edge cases: thousands of agents in one bucket (the insertion sort it
 * replaced was quadratic there), a flock so small that one pass is first and last, and one
 * whose bucket keys need three 8-bit passes (a middle pass: keys and indices moved alone);
 * the small ones both by one work-group (herd_grid_small) and by a launch per stage. */
static void dense_tiny_and_large_flocks_sort_as_the_cpu_backend(void) {
  check_sorted_flock(9000, 8000, 400.0f);
  check_sorted_flock(7, 0, 30.0f);
  CHECK(herd_grid_table_size(70000) > (1u << 16)); /* keys of 17 bits: three passes */
  check_sorted_flock(70000, 3000, 3000.0f);
  /* The one work-group as wide as a GPU's (1024 work-items, its table in ushorts), up to the
   * largest flock it takes. */
  setenv("HERD_CL_SMALL_GROUP", "gpu", 1);
  check_sorted_flock(9000, 8000, 400.0f);
  check_sorted_flock(7, 0, 30.0f);
  check_sorted_flock(16384, 2000, 700.0f);
  unsetenv("HERD_CL_SMALL_GROUP");
  /* The small flocks again with their grid in a launch per stage (not one work-group's), and
   * their digit tables scanned by blocks at both levels. */
  setenv("HERD_CL_GRID_SMALL_MAX", "0", 1);
  setenv("HERD_CL_SCAN_SINGLE_MAX", "0", 1);
  check_sorted_flock(9000, 8000, 400.0f);
  check_sorted_flock(7, 0, 30.0f);
  /* A table of 2304 entries in 3 blocks, one level: the last of 3 groups scans their totals. */
  setenv("HERD_CL_SCAN_SINGLE_MAX", "4", 1);
  check_sorted_flock(9000, 8000, 400.0f);
  unsetenv("HERD_CL_GRID_SMALL_MAX");
  unsetenv("HERD_CL_SCAN_SINGLE_MAX");
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
      uint32_t found = herd_grid_knn(&v.grid, (const herd_vec2 *)v.pos, v.cell_end, i, best, k);
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

/* After one step on both backends: the share of agents whose position agrees within `tol`
 * relative (rounding: PoCL's sin, cos, atan2 are not glibc's), and the share that moved. */
static void compare_step(herd_backend *cpu, herd_backend *cl, uint32_t n, uint32_t dims, const float *start, double tol,
                         double *close_share, double *moved_share) {
  herd_error err;
  uint32_t stride = herd_state_stride(dims);
  float *a = malloc((size_t)n * stride * sizeof *a), *b = malloc((size_t)n * stride * sizeof *b);
  CHECK(herd_cpu_backend.read_agents(cpu, a, NULL, &err) == HERD_OK);
  CHECK(herd_cl_backend.read_agents(cl, b, NULL, &err) == HERD_OK);
  uint32_t close = 0, moved = 0;
  for (uint32_t i = 0; i < n; ++i) {
    bool agree = true, went = false;
    for (uint32_t k = 0; k < dims; ++k) {
      float x = a[i * stride + k], y = b[i * stride + k];
      agree = agree && fabs(x - y) <= tol * fmax(fabs(x), 1.0);
      went = went || x != start[i * stride + k];
    }
    close += agree, moved += went;
  }
  *close_share = (double)close / n;
  *moved_share = (double)moved / n;
  free(a);
  free(b);
}

static void one_step_matches_the_cpu_backend(void) {
  herd_backend *cpu, *cl;
  make_pair(&cpu, &cl);
  herd_error err;
  float centroid[3] = {110, -20, 0};
  CHECK(herd_cpu_backend.step(cpu, two_dogs, centroid, 3, &err) == HERD_OK);
  CHECK(herd_cl_backend.step(cl, two_dogs, centroid, 3, &err) == HERD_OK);
  herd_vec2 *start = malloc(N * sizeof *start), *heading = malloc(N * sizeof *heading);
  make_flock(start, heading);
  double close, moved;
  compare_step(cpu, cl, N, 2, (const float *)start, 1e-5, &close, &moved);
  CHECK_MSG(close >= 0.999, "%.4f of positions within 1e-5", close);
  CHECK_MSG(moved > 0.5, "only %.2f of the sheep moved: the step tested little", moved);
  free(start);
  free(heading);
  destroy_pair(cpu, cl);
}

/* The flock after two OpenCL steps from the test flock, each after a reduce as in a run, with
 * n = N - 1 neighbours (attraction is toward the centroid). Each step is given the host's
 * centroid from that reduce, moved by `shift` m; with `on_device`, none: the kernel takes it
 * from the reduce's total on the device. */
static float *two_steps(bool on_device, float shift) {
  herd_scenario sc = scenario_with((const char *[]){"seed=5", "sheep.count=6000", "sheep.neighbours=5999"}, 3);
  herd_vec2 *pos = malloc(N * sizeof *pos), *heading = malloc(N * sizeof *heading);
  make_flock(pos, heading);
  herd_backend_desc d = backend_desc_for(&sc, N, 2);
  herd_backend *cl;
  herd_error err;
  CHECK(herd_cl_backend.create(&d, &cl, &err) == HERD_OK);
  CHECK(herd_cl_backend.upload(cl, (const float *)pos, (const float *)heading, &err) == HERD_OK);
  for (uint32_t step = 0; step < 2; ++step) {
    herd_observation obs;
    CHECK(herd_cl_backend.reduce(cl, two_dogs, &obs, &err) == HERD_OK);
    float centroid[3] = {(float)obs.centroid[0] + shift, (float)obs.centroid[1], (float)obs.centroid[2]};
    CHECK(herd_cl_backend.step(cl, two_dogs, on_device ? NULL : centroid, step, &err) == HERD_OK);
  }
  float *out = malloc(N * 2 * sizeof *out);
  CHECK(herd_cl_backend.read_agents(cl, out, NULL, &err) == HERD_OK);
  herd_cl_backend.destroy(cl);
  free(pos);
  free(heading);
  return out;
}

/* Steps fed the centroid kept on the device equal those fed the host's, bit for bit; and the
 * centroid matters here (a moved one changes the flock), so a kernel ignoring it would fail. */
static void a_step_takes_the_centroid_on_the_device(void) {
  float *host = two_steps(false, 0.0f), *device = two_steps(true, 0.0f), *moved = two_steps(false, 5.0f);
  CHECK(memcmp(host, device, N * 2 * sizeof *host) == 0);
  CHECK(memcmp(host, moved, N * 2 * sizeof *host) != 0);
  free(host);
  free(device);
  free(moved);
}

static bool rel_close(double a, double b, double tol) { return fabs(a - b) <= tol * fmax(fabs(a), fabs(b)) + 1e-30; }

/* The two observations agree: counts and ids exactly, sums and distances within rounding. */
static void check_same_observation(const herd_observation *a, const herd_observation *b, uint32_t dims) {
  CHECK(a->count == b->count && a->in_goal == b->in_goal && a->delivered == b->delivered);
  for (uint32_t k = 0; k < dims; ++k) {
    CHECK(rel_close(a->centroid[k], b->centroid[k], 1e-6));
    CHECK(a->extent_min[k] == b->extent_min[k] && a->extent_max[k] == b->extent_max[k]);
  }
  CHECK(a->farthest_id == b->farthest_id && rel_close(a->farthest_dist_m, b->farthest_dist_m, 1e-6));
  CHECK(fabsf(a->polarisation - b->polarisation) < 1e-5f && fabsf(a->milling - b->milling) < 1e-5f);
  CHECK(a->steering_count == b->steering_count);
  for (uint32_t d = 0; d < a->steering_count; ++d)
    CHECK(a->nearest[d].id == b->nearest[d].id && rel_close(a->nearest[d].dist_m, b->nearest[d].dist_m, 1e-6));
}

/* Of one state, the observations are the same bits: every sum is an integer (kernels/reduce.h),
 * so the CPU's blocks and the device's tree and last-group fold cannot round differently. */
static void check_identical_observation(const herd_observation *a, const herd_observation *b) {
  CHECK_MSG(memcmp(a, b, sizeof *a) == 0,
            "observations differ: centroid (%.17g, %.17g) vs (%.17g, %.17g), polarisation %.9g vs %.9g, milling %.9g "
            "vs %.9g",
            a->centroid[0], a->centroid[1], b->centroid[0], b->centroid[1], (double)a->polarisation,
            (double)b->polarisation, (double)a->milling, (double)b->milling);
}

/* The pair's observations with both dogs, which must be the same bits: the CPU's into *a. */
static void reduce_pair_with_two_dogs(herd_backend *cpu, herd_backend *cl, herd_observation *a) {
  herd_error err;
  herd_observation b;
  CHECK(herd_cpu_backend.reduce(cpu, two_dogs, a, &err) == HERD_OK);
  CHECK(herd_cl_backend.reduce(cl, two_dogs, &b, &err) == HERD_OK);
  check_identical_observation(a, &b);
}

static void reductions_match_the_cpu_backend(void) {
  herd_backend *cpu, *cl;
  make_pair(&cpu, &cl);
  herd_error err;
  herd_observation a, b;
  reduce_pair_with_two_dogs(cpu, cl, &a);
  CHECK(a.in_goal > 0 && a.milling > 0.0f && a.nearest[1].id != a.nearest[0].id);
  uint32_t in_sectors = 0, sectors_held = 0; /* the sectors were reduced (the same bits: above) */
  for (int k = 0; k < HERD_SECTORS; ++k) in_sectors += a.sector[k].count, sectors_held += a.sector[k].count > 0;
  CHECK_MSG(in_sectors == a.count && sectors_held >= 4, "%u agents in %u sectors", in_sectors, sectors_held);
  /* Again with one steering agent, fewer than the program's room, and after a step. */
  float centroid[3] = {110, -20, 0};
  herd_steering_input one_dog = {dogs, 1};
  CHECK(herd_cpu_backend.step(cpu, two_dogs, centroid, 3, &err) == HERD_OK);
  CHECK(herd_cl_backend.step(cl, two_dogs, centroid, 3, &err) == HERD_OK);
  float *pos = malloc(2 * N * sizeof *pos), *vel = malloc(2 * N * sizeof *vel);
  CHECK(herd_cpu_backend.read_agents(cpu, pos, vel, &err) == HERD_OK);
  CHECK(herd_cl_backend.upload(cl, pos, vel, &err) == HERD_OK); /* the CPU's stepped flock on both */
  CHECK(herd_cpu_backend.upload(cpu, pos, vel, &err) == HERD_OK);
  CHECK(herd_cpu_backend.reduce(cpu, one_dog, &a, &err) == HERD_OK);
  CHECK(herd_cl_backend.reduce(cl, one_dog, &b, &err) == HERD_OK);
  CHECK(a.steering_count == 1);
  check_identical_observation(&a, &b);
  free(pos);
  free(vel);
  destroy_pair(cpu, cl);
}

/* A backend built for DOGS steering agents refuses a reduction of more (its partials have no
 * room for them) rather than reading past them. */
static void reductions_refuse_more_steering_agents(void) {
  herd_backend *cpu, *cl;
  make_pair(&cpu, &cl);
  herd_error err;
  herd_observation b;
  float three[HERD_STEER_FLOATS * (DOGS + 1)] = {0};
  CHECK(herd_cl_backend.reduce(cl, (herd_steering_input){three, DOGS + 1}, &b, &err) == HERD_E_INPUT);
  CHECK(herd_cl_backend.reduce(cl, two_dogs, &b, &err) == HERD_OK && b.steering_count == DOGS);
  destroy_pair(cpu, cl);
}

/* The reductions' agents per work-item (herd_cl_reduce_per_item): on a GPU the shortest chain
 * of loads in a row, a work-item's agents plus the last group's share of the partials (brute
 * force over every power of two here, ties to the larger), 4 at 10^4 agents and 32 at 10^6;
 * on a CPU device the most. Whatever the choice, the same bits as the CPU backend: the GPU's
 * choices, forced on this device ($HERD_CL_REDUCE=gpu), for flocks from 150 to 76800. */
static void reductions_match_at_every_work_item_size(void) {
  const uint32_t lo = HERD_CL_REDUCE_PER_ITEM_MIN, hi = HERD_CL_REDUCE_PER_ITEM_MAX, group = 32u; /* REDUCE_GROUP */
  const uint32_t flocks[] = {0, 1, 100, 1000, 10000, 100000, 1000000, 10000000, 4000000000u};
  for (size_t f = 0; f < sizeof flocks / sizeof *flocks; ++f) {
    uint32_t n = flocks[f], per = herd_cl_reduce_per_item(n, true), best = 0;
    uint64_t best_chain = UINT64_MAX;
    for (uint32_t p = hi; p >= lo; p /= 2) {
      uint64_t groups = ((uint64_t)n + group * p - 1) / (group * p), chain = p + (groups + group - 1) / group;
      if (chain < best_chain) best_chain = chain, best = p;
    }
    CHECK_MSG(per == best, "%u agents: %u a work-item, %u gives the shortest chain", n, per, best);
    CHECK(herd_cl_reduce_per_item(n, false) == hi);
  }
  CHECK(herd_cl_reduce_per_item(10000, true) == 4 && herd_cl_reduce_per_item(1000000, true) == 32);
  setenv("HERD_CL_REDUCE", "gpu", 1);
  uint32_t saved = N, seen = 0;
  for (N = 150; N <= 80000; N *= 2) {
    seen |= herd_cl_reduce_per_item(N, true);
    herd_backend *cpu, *cl;
    make_pair(&cpu, &cl);
    herd_observation a;
    reduce_pair_with_two_dogs(cpu, cl, &a);
    destroy_pair(cpu, cl);
  }
  N = saved;
  unsetenv("HERD_CL_REDUCE");
  CHECK_MSG(seen == (4u | 8u), "the flocks tried per-item sizes 0x%x, not 4 and 8", seen);
}

/* Two steps of each Strömbom variant (sheep.neighbours_from, sheep.success; dogs.stop is the
 * host's alone) on both backends from the same flock, the goal among the sheep: positions
 * agree to rounding, and so do the observations, which leave the removed sheep out. */
static void strombom_variants_step_as_the_cpu_backend(void) {
  /* r_s = 30 m: the edge of the reacting sheep runs through the flock. */
  const char *variants[][3] = {
      {"sheep.neighbours_from=reacting", "sheep.dog_radius_m=30", ""},
      {"sheep.neighbours_from=reacting", "sheep.neighbours=5999", "sheep.dog_radius_m=30"},
      {"sheep.success=remove_delivered", "", ""},
      {"sheep.success=remove_delivered", "sheep.neighbours_from=reacting", "sheep.dog_radius_m=30"},
      {"sheep.success=remove_delivered", "sheep.neighbours=5999", ""},
      {"sheep.success=centroid_in_goal", "", ""}};
  herd_vec2 *start = malloc(N * sizeof *start), *heading = malloc(N * sizeof *heading);
  make_flock(start, heading);
  for (size_t v = 0; v < sizeof variants / sizeof variants[0]; ++v) {
    const char *sets[6] = {"seed=5", "target.position_m=[110, -30]", "sheep.count=6000"};
    int count = 3;
    for (int k = 0; k < 3; ++k)
      if (*variants[v][k]) sets[count++] = variants[v][k];
    herd_scenario sc = scenario_with(sets, count);
    herd_backend *cpu, *cl;
    make_pair_from(&sc, N, (const float *)start, (const float *)heading, &cpu, &cl);
    herd_error err;
    float centroid[3] = {110, -20, 0};
    for (uint32_t step = 3; step < 5; ++step) {
      CHECK(herd_cpu_backend.step(cpu, two_dogs, centroid, step, &err) == HERD_OK);
      CHECK(herd_cl_backend.step(cl, two_dogs, centroid, step, &err) == HERD_OK);
      double close, moved;
      compare_step(cpu, cl, N, 2, (const float *)start, 1e-5, &close, &moved);
      CHECK_MSG(close >= 0.999 && moved > 0.3, "%s %s, step %u: %.4f of positions within 1e-5, %.4f moved",
                variants[v][0], variants[v][1], step, close, moved);
      herd_observation a, b;
      CHECK(herd_cpu_backend.reduce(cpu, two_dogs, &a, &err) == HERD_OK);
      CHECK(herd_cl_backend.reduce(cl, two_dogs, &b, &err) == HERD_OK);
      check_same_observation(&a, &b, 2);
      bool removal = strcmp(variants[v][0], "sheep.success=remove_delivered") == 0;
      CHECK(!removal || (a.delivered > 100 && a.in_goal == 0 && a.extent_min[0] > -1e6f));
    }
    destroy_pair(cpu, cl);
  }
  free(start);
  free(heading);
}

/* A flock of n for scenario sc: positions anywhere in its world box (a clump in the middle),
 * velocities from the model's own start. */
static void model_flock(const herd_scenario *sc, uint32_t n, float **pos, float **vel) {
  uint32_t dims = sc->world.dims, stride = herd_state_stride(dims);
  const herd_model_exec *model = herd_model_exec_of(sc->model);
  *pos = calloc((size_t)n * stride, sizeof **pos);
  *vel = calloc((size_t)n * stride, sizeof **vel);
  for (uint32_t i = 0; i < n; ++i) {
    herd_rng4 r = herd_rng_draw(31, 0, i, 13), v = herd_rng_draw(31, 1, i, 13);
    float spread = i % 2 ? 1.0f : 0.2f;
    herd_vec3 p = herd_v3(0, 0, 0);
    for (uint32_t k = 0; k < dims; ++k) {
      float u = 0.5f + spread * (herd_rng_unit_float(r.v[k]) - 0.5f);
      (&p.x)[k] = u * sc->world.size_m[k];
    }
    herd_store_vec(*pos, i, dims, p);
    herd_store_vec(*vel, i, dims, model->initial_velocity(sc->params.bytes, r, v, dims));
  }
}

/* One step of each model, in 2D and 3D, open, walled and wrapping, with steering agents
 * near the flock: the backends agree to rounding, and the reductions after it agree. */
static void every_model_steps_as_the_cpu_backend(void) {
  const char *boids2d[] = {"model=boids", "world.size_m=[400,300]", "boids.margin_m=60"};
  const char *boids3d[] = {"model=boids", "world.size_m=[300,200,200]", "world.wrap=[true,true,false]",
                           "boids.view_angle_deg=300"};
  const char *netlogo[] = {"model=netlogo", "world.size_m=[71,71]"};
  const char *couzin3d[] = {"model=couzin", "world.size_m=[60,60,60]", "couzin.orientation_band_m=3",
                            "couzin.attraction_band_m=5"};
  const char *couzin2d[] = {"model=couzin",
                            "world.size_m=[150,150]",
                            "world.wrap=[true,true]",
                            "couzin.orientation_band_m=2",
                            "couzin.attraction_band_m=6",
                            "couzin.field_of_perception_deg=200"};
  struct {
    const char *const *sets;
    int count;
    uint32_t n;
  } cases[] = {{boids2d, 3, 5000}, {boids3d, 4, 5000}, {netlogo, 2, 3000}, {couzin3d, 4, 5000}, {couzin2d, 6, 4000}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    herd_scenario sc = scenario_with(cases[c].sets, cases[c].count);
    uint32_t n = cases[c].n, dims = sc.world.dims;
    float *pos, *vel;
    model_flock(&sc, n, &pos, &vel);
    herd_backend *cpu, *cl;
    make_pair_from(&sc, n, pos, vel, &cpu, &cl);
    float centre[3] = {0.5f * sc.world.size_m[0], 0.5f * sc.world.size_m[1], 0.5f * sc.world.size_m[2]};
    float steer[2 * HERD_STEER_FLOATS] = {centre[0],     centre[1],     centre[2], 0, 1, 0, 0, 0,
                                          centre[0] + 3, centre[1] - 2, centre[2], 0, 0, 1, 0, 0};
    herd_steering_input in = {steer, 2};
    herd_error err;
    CHECK(herd_cpu_backend.step(cpu, in, centre, 1, &err) == HERD_OK);
    CHECK(herd_cl_backend.step(cl, in, centre, 1, &err) == HERD_OK);
    double close, moved;
    compare_step(cpu, cl, n, dims, pos, 1e-4, &close, &moved);
    CHECK_MSG(close >= 0.995 && moved > 0.99, "case %zu: %.4f agree within 1e-4, %.4f moved", c, close, moved);
    herd_observation a, b;
    CHECK(herd_cpu_backend.reduce(cpu, in, &a, &err) == HERD_OK);
    CHECK(herd_cl_backend.reduce(cl, in, &b, &err) == HERD_OK);
    CHECK(a.count == b.count && a.steering_count == 2);
    CHECK_MSG(fabsf(a.polarisation - b.polarisation) < 1e-3f, "case %zu: polarisation %g vs %g", c,
              (double)a.polarisation, (double)b.polarisation);
    for (uint32_t k = 0; k < dims; ++k) CHECK(rel_close(a.centroid[k], b.centroid[k], 1e-4));
    destroy_pair(cpu, cl);
    free(pos);
    free(vel);
  }
}

/* The 3D hash and the wrapping cells sort exactly as on the CPU; the reductions agree. */
static void grid_3d_and_torus_equal_the_cpu_backend(void) {
  const char *sets[] = {"model=boids", "world.size_m=[300,200,100]", "world.wrap=[true,false,true]",
                        "boids.visual_range_m=17"};
  herd_scenario sc = scenario_with(sets, 4);
  uint32_t n = 7000;
  float *pos, *vel;
  model_flock(&sc, n, &pos, &vel);
  herd_backend *cpu, *cl;
  make_pair_from(&sc, n, pos, vel, &cpu, &cl);
  herd_error err;
  herd_observation a, b;
  float steer[HERD_STEER_FLOATS] = {10, 10, 10, 0};
  herd_steering_input in = {steer, 1};
  CHECK(herd_cpu_backend.reduce(cpu, in, &a, &err) == HERD_OK);
  CHECK(herd_cl_backend.reduce(cl, in, &b, &err) == HERD_OK);
  check_identical_observation(&a, &b);
  herd_cpu_grid_view v = herd_cpu_build_grid(cpu);
  herd_cl_grid_copy c;
  CHECK(herd_cl_read_grid(cl, &c, &err) == HERD_OK);
  check_same_grid(&v, &c, n);
  herd_cl_grid_copy_free(&c);
  destroy_pair(cpu, cl);
  free(pos);
  free(vel);
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
  const char *boids[] = {"model=boids", "world.size_m=[300,300,300]", "agents[0].strategy=pursuer"};
  herd_scenario b = scenario_with(boids, 3);
  CHECK(run_fingerprint(&b, 60) == run_fingerprint(&b, 60));
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

/* Polarisation after `steps` steps of scenario `sets` for seeds 1.. on a backend. */
static void polarisation_after(const char *const *sets, int set_count, uint32_t steps, const char *backend, int seeds,
                               double *out) {
  herd_error err;
  for (int seed = 1; seed <= seeds; ++seed) {
    herd_scenario sc = scenario_with(sets, set_count);
    sc.seed = (uint64_t)seed;
    herd_sim *sim;
    CHECK(herd_sim_create(&(herd_sim_desc){.scenario = &sc, .backend = backend}, &sim, &err) == HERD_OK);
    for (uint32_t s = 0; s < steps; ++s) CHECK(herd_sim_step(sim, &err) == HERD_OK);
    out[seed - 1] = herd_sim_observation(sim)->polarisation;
    herd_sim_destroy(sim);
  }
}

/* Boids, NetLogo flocking and Couzin's fish, 20 seeds on each backend: the polarisation
 * reached has one distribution (Mann-Whitney U, 1 % level). The runs diverge from rounding early on, so
 * they are compared in distribution, as the herding runs are. */
static void flocking_outcomes_match_the_cpu_backend(void) {
  enum { SEEDS = 20 };
  const char *boids[] = {"model=boids", "boids.count=300"};
  const char *netlogo[] = {"model=netlogo"};
  const char *couzin[] = {"model=couzin"};
  struct {
    const char *name;
    const char *const *sets;
    int count;
    uint32_t steps;
  } cases[] = {{"boids", boids, 2, 150}, {"netlogo", netlogo, 1, 200}, {"couzin", couzin, 1, 120}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    double cpu[SEEDS], cl[SEEDS], mc = 0, ml = 0;
    polarisation_after(cases[c].sets, cases[c].count, cases[c].steps, "cpu", SEEDS, cpu);
    polarisation_after(cases[c].sets, cases[c].count, cases[c].steps, "opencl", SEEDS, cl);
    for (int s = 0; s < SEEDS; ++s) mc += cpu[s] / SEEDS, ml += cl[s] / SEEDS;
    double z = mann_whitney_z(cpu, SEEDS, cl, SEEDS);
    printf("  %s: mean polarisation after %u steps: cpu %.3f, opencl %.3f; Mann-Whitney z = %.2f\n", cases[c].name,
           cases[c].steps, mc, ml, z);
    CHECK(fabs(z) < 2.576);
  }
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
  herd_scenario sc = scenario_with((const char *[]){"sheep.dog_radius_m=1e6"}, 1); /* every sheep works */
  float centroid[3] = {200, 200, 0};
  for (size_t k = 0; k < 2; ++k) {
    herd_backend_desc d = backend_desc_for(&sc, M, 2);
    d.stop = &stop;
    herd_backend *b;
    herd_error err;
    CHECK_MSG(ops[k]->create(&d, &b, &err) == HERD_OK, "%s", err.message);
    CHECK(ops[k]->upload(b, (const float *)pos, (const float *)heading, &err) == HERD_OK);
    CHECK_MSG(ops[k]->step(b, two_dogs, centroid, 1, &err) == HERD_E_INTERRUPTED, "%s", ops[k]->name);
    CHECK(ops[k]->read_agents(b, (float *)back, (float *)back_heading, &err) == HERD_OK);
    CHECK_MSG(memcmp(back, pos, M * sizeof *pos) == 0 && memcmp(back_heading, heading, M * sizeof *heading) == 0,
              "%s: the flock changed", ops[k]->name);
    ops[k]->destroy(b);
  }
  free(pos);
  free(heading);
  free(back);
  free(back_heading);
}

/* A run of boids (no steering agent: the host may run a step ahead), its observations hashed
 * step by step and the flock read at the end; with `peek`, also read after step 15, which
 * abandons the step run ahead. Sets *waits to the host waits of the run (--profile's count). */
static uint64_t boids_run(bool lockstep, bool peek, float *flock, uint64_t *waits) {
  herd_scenario sc = scenario_with((const char *[]){"model=boids", "boids.count=2000", "seed=9"}, 3);
  herd_sim *sim;
  herd_error err;
  CHECK(herd_sim_create(&(herd_sim_desc){.scenario = &sc, .backend = "opencl", .profile = true, .lockstep = lockstep},
                        &sim, &err) == HERD_OK);
  uint64_t h = 1469598103934665603ull;
  for (uint32_t s = 0; s < 40; ++s) {
    CHECK(herd_sim_step(sim, &err) == HERD_OK);
    h = fnv1a(h, herd_sim_observation(sim), sizeof(herd_observation));
    if (peek && s == 15) CHECK(herd_sim_read_flock(sim, flock, NULL, &err) == HERD_OK);
  }
  CHECK(herd_sim_step_index(sim) == 40);
  CHECK(herd_sim_read_flock(sim, flock, NULL, &err) == HERD_OK);
  herd_profile p;
  CHECK(herd_sim_profile(sim, &p, &err) == HERD_OK);
  *waits = p.waits;
  herd_sim_destroy(sim);
  return h;
}

/* Running a step ahead gives the lockstep run's observations and flock bit for bit, also when
 * a read in between abandons the step run ahead; that a step was run ahead shows in the
 * waits: abandoning it waits once more (its restore), where lockstep has nothing to abandon
 * and otherwise one wait per step as well. */
static void running_a_step_ahead_changes_nothing(void) {
  float *a = malloc(2000 * 2 * sizeof *a), *b = malloc(2000 * 2 * sizeof *b), *c = malloc(2000 * 2 * sizeof *c);
  uint64_t waits_a, waits_b, waits_c, waits_d;
  uint64_t lockstep = boids_run(true, true, a, &waits_a), ahead = boids_run(false, true, b, &waits_b);
  uint64_t straight = boids_run(false, false, c, &waits_c);
  CHECK(lockstep == ahead && ahead == straight);
  CHECK(memcmp(a, b, 2000 * 2 * sizeof *a) == 0 && memcmp(a, c, 2000 * 2 * sizeof *a) == 0);
  (void)boids_run(true, false, c, &waits_d);
  /* Run ahead, each read abandons a step (the peek, and the final read: step 40 was ahead). */
  CHECK_MSG(waits_b == waits_a + 2, "waits: lockstep %llu, ahead %llu", (unsigned long long)waits_a,
            (unsigned long long)waits_b);
  CHECK(waits_c == waits_d + 1);
  free(a);
  free(b);
  free(c);
}

/* Clouds for the cooperative k-nearest pre-pass (kernels/knn_coop.cl): 0 uniform at one sheep
 * per 4 m^2, 1 tight clusters far apart, 2 many sheep on few points (ties in distance, and
 * distance 0), 3 sparse over 20 km (most searches beyond the cooperative reach). */
static void make_cloud(int kind, uint32_t n, herd_vec2 *pos) {
  float side = sqrtf(4.0f * (float)n);
  for (uint32_t i = 0; i < n; ++i) {
    herd_rng4 r = herd_rng_draw(17, (uint32_t)kind, i, 12);
    float u = herd_rng_unit_float(r.v[0]), v = herd_rng_unit_float(r.v[1]);
    if (kind == 0) pos[i] = herd_v2(side * u, side * v);
    if (kind == 1) pos[i] = herd_v2(250.0f * (float)(i % 8) + 6.0f * u * v, 90.0f * (float)(i % 3) + 6.0f * v);
    if (kind == 2) pos[i] = herd_v2(3.0f * (float)(r.v[2] % 7u), 2.0f * (float)(r.v[3] % 6u));
    if (kind == 3) pos[i] = herd_v2(20000.0f * u, 20000.0f * v);
  }
}

/* Every sheep's fixed-point sum of the offsets to its n nearest (the pre-pass serves every
 * sheep: the dog reaches them all) equals the CPU's herd_strombom_lcm_sum on the same sorted
 * flock, bit for bit; and each cloud sends its share down the path it is made for. */
static void coop_neighbour_sums_equal_the_cpu_bit_for_bit(void) {
  static const struct {
    int kind;
    uint32_t n;
    const char *neighbours;
  } cases[] = {{0, 4000, "sheep.neighbours=50"}, {0, 4000, "sheep.neighbours=1"},  {0, 4000, "sheep.neighbours=256"},
               {1, 4000, "sheep.neighbours=50"}, {2, 3000, "sheep.neighbours=50"}, {2, 3000, "sheep.neighbours=256"},
               {3, 1500, "sheep.neighbours=50"}};
  static const float far_dog[HERD_STEER_FLOATS] = {-5000, -5000, 0, 0, 0, 0, 0, 0};
  herd_steering_input dog = {far_dog, 1};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    uint32_t n = cases[c].n;
    char count[40];
    snprintf(count, sizeof count, "sheep.count=%u", n);
    herd_scenario sc =
        scenario_with((const char *[]){"seed=5", "sheep.dog_radius_m=1e9", count, cases[c].neighbours}, 4);
    herd_vec2 *pos = malloc(n * sizeof *pos), *heading = calloc(n, sizeof *heading);
    make_cloud(cases[c].kind, n, pos);
    herd_backend_desc d = backend_desc_for(&sc, n, 1);
    herd_backend *cl;
    herd_error err;
    CHECK(herd_cl_backend.create(&d, &cl, &err) == HERD_OK);
    CHECK(herd_cl_backend.upload(cl, (const float *)pos, (const float *)heading, &err) == HERD_OK);
    herd_cl_grid_copy g;
    CHECK(herd_cl_read_grid(cl, &g, &err) == HERD_OK);
    int64_t *sums = malloc(2 * (size_t)n * sizeof *sums);
    CHECK(herd_cl_prepass(cl, dog, sums, &err) == HERD_OK);
    const herd_strombom_params *m = (const herd_strombom_params *)sc.params.bytes;
    herd_strombom_flock f = {&g.grid, (const herd_vec2 *)g.pos, g.agent, g.cell_end, far_dog, 1, NULL, NULL, NULL};
    herd_neighbour scratch[HERD_MAX_NEIGHBOURS];
    /* Each sheep's sum, or the mark that leaves it to the step kernel's own search (far); none
     * unserved (the filler herd_cl_prepass puts first). */
    uint32_t differ = 0, far = 0, unserved = 0;
    for (uint32_t i = 0; i < n; ++i) {
      herd_strombom_sum want = herd_strombom_lcm_sum(m, &f, i, scratch);
      unserved += sums[2 * i] == INT64_MAX;
      if (sums[2 * i] == HERD_PRE_SEARCH)
        ++far;
      else
        differ += sums[2 * i] != want.x || sums[2 * i + 1] != want.y;
    }
    CHECK_MSG(differ == 0, "cloud %d, %s: %u of %u sums differ", cases[c].kind, cases[c].neighbours, differ, n);
    CHECK_MSG(unserved == 0, "cloud %d: %u of %u sheep not served", cases[c].kind, unserved, n);
    /* The dense clouds are served by the lanes (n = 256 reaches past their block: mostly far),
     * the sparse one mostly left far. */
    if (cases[c].kind != 3 && strcmp(cases[c].neighbours, "sheep.neighbours=256") != 0)
      CHECK_MSG(far < n / 10, "cloud %d: %u of %u far", cases[c].kind, far, n);
    if (cases[c].kind == 3) CHECK_MSG(far > n / 2, "sparse cloud: only %u of %u far", far, n);
    free(sums);
    herd_cl_grid_copy_free(&g);
    herd_cl_backend.destroy(cl);
    free(pos);
    free(heading);
  }
}

/* Three steps of n sheep from pos, heading with the pre-pass equal the step kernel's own
 * search, bit for bit ($HERD_CL_COOP=0 keeps the latter); at least `far` of the sheep the
 * pre-pass serves in the first step are left to the step's search (its mark, kernels/knn_coop.cl). */
static void steps_with_the_pre_pass_equal_those_without(const herd_scenario *sc, uint32_t n, const herd_vec2 *pos,
                                                        const herd_vec2 *heading, herd_steering_input steer,
                                                        uint32_t far) {
  herd_backend_desc d = backend_desc_for(sc, n, 1);
  herd_backend *with, *without;
  herd_error err;
  CHECK(herd_cl_backend.create(&d, &with, &err) == HERD_OK);
  setenv("HERD_CL_COOP", "0", 1);
  CHECK(herd_cl_backend.create(&d, &without, &err) == HERD_OK);
  setenv("HERD_CL_COOP", "1", 1);
  int64_t *sums = malloc(2 * (size_t)n * sizeof *sums);
  CHECK(herd_cl_prepass(without, steer, sums, &err) != HERD_OK); /* it really runs none */
  CHECK(herd_cl_backend.upload(with, (const float *)pos, (const float *)heading, &err) == HERD_OK);
  herd_cl_grid_copy g;
  CHECK(herd_cl_read_grid(with, &g, &err) == HERD_OK); /* the grid the pre-pass reads */
  CHECK(herd_cl_prepass(with, steer, sums, &err) == HERD_OK);
  uint32_t marked = 0;
  for (uint32_t i = 0; i < n; ++i) marked += sums[2 * i] == HERD_PRE_SEARCH;
  CHECK_MSG(marked >= far, "%u sheep left to the step's search, expected at least %u", marked, far);
  float centroid[3] = {110, -20, 0}, *a = malloc(2 * n * sizeof *a), *b = malloc(2 * n * sizeof *b);
  for (int k = 0; k < 2; ++k) {
    herd_backend *x = k ? without : with;
    CHECK(herd_cl_backend.upload(x, (const float *)pos, (const float *)heading, &err) == HERD_OK);
    for (uint32_t step = 0; step < 3; ++step) CHECK(herd_cl_backend.step(x, steer, centroid, step, &err) == HERD_OK);
    CHECK(herd_cl_backend.read_agents(x, k ? b : a, NULL, &err) == HERD_OK);
  }
  uint32_t moved = 0;
  for (uint32_t i = 0; i < n; ++i) moved += a[2 * i] != pos[i].x || a[2 * i + 1] != pos[i].y;
  CHECK(memcmp(a, b, 2 * n * sizeof *a) == 0);
  CHECK_MSG(moved > n / 2, "only %u of %u sheep moved: the step tested little", moved, n);
  free(a), free(b), free(sums);
  herd_cl_grid_copy_free(&g);
  herd_cl_backend.destroy(with);
  herd_cl_backend.destroy(without);
}

/* The test flock with its two dogs; and the sparse cloud, every sheep within r_s of a dog and
 * most with neighbours beyond the lanes' reach, whose sums the step kernel then finds. */
static void a_step_with_the_pre_pass_equals_one_without(void) {
  herd_scenario sc = scenario_with((const char *[]){"seed=5", "target.position_m=[110, -30]"}, 2);
  herd_vec2 *pos = malloc(N * sizeof *pos), *heading = malloc(N * sizeof *heading);
  make_flock(pos, heading);
  steps_with_the_pre_pass_equal_those_without(&sc, N, pos, heading, two_dogs, 0);
  const uint32_t sparse = 1500;
  herd_scenario wide = scenario_with((const char *[]){"seed=5", "sheep.dog_radius_m=1e9"}, 2);
  herd_vec2 *cloud = malloc(sparse * sizeof *cloud), *still = calloc(sparse, sizeof *still);
  make_cloud(3, sparse, cloud);
  steps_with_the_pre_pass_equal_those_without(&wide, sparse, cloud, still, two_dogs, sparse / 2);
  free(pos), free(heading), free(cloud), free(still);
}

/* A GPU build keeps no array for the k nearest (kernels/grid.h, HERD_KNN_BOUNDED); PoCL, a CPU
 * device, keeps its private array unless $HERD_CL_KNN=bounded: the same checks that way. The
 * variants' steps (a narrowed neighbour set: the scan of the whole flock) and the far sheep's
 * sums (the sparse cloud) go through it too. */
static void the_gpu_selection_finds_the_same_neighbours(void) {
  setenv("HERD_CL_KNN", "bounded", 1);
  neighbour_sets_equal_the_cpu_backend();
  coop_neighbour_sums_equal_the_cpu_bit_for_bit();
  strombom_variants_step_as_the_cpu_backend();
  a_step_with_the_pre_pass_equals_one_without();
  unsetenv("HERD_CL_KNN");
}

/* A GPU build takes each radius candidate at once (HERD_RADIUS_FOR_EACH_DIRECT: a loop of its
 * own for a dense grid's rows, another for the hash's cells); PoCL, a CPU device, gathers them
 * in batches unless $HERD_CL_RADIUS=direct: every model's step that way, dense and hashed. */
static void the_gpu_radius_loop_steps_as_the_cpu_backend(void) {
  setenv("HERD_CL_RADIUS", "direct", 1);
  every_model_steps_as_the_cpu_backend();
  grid_3d_and_torus_equal_the_cpu_backend();
  unsetenv("HERD_CL_RADIUS");
}

/* Where the device's compiler takes a register bound (NVIDIA), the step kernels of boids, NetLogo
 * and Couzin come from the main program built again with it (HERD_CL_PROGRAM_CAPPED), in worlds
 * with a path too; $HERD_CL_CAPPED=1 does so on PoCL, without the bound its compiler lacks: the
 * step ran is that program's, and its bits are the main program's kernel's. Strömbom's never
 * comes from it. */
static void check_capped_steps(const char *const *sets, int count) {
  herd_scenario sc = scenario_with(sets, count);
  const uint32_t n = 3000;
  float *pos, *vel, *out[2];
  model_flock(&sc, n, &pos, &vel);
  float centre[3] = {200, 150, 0};
  herd_steering_input none = {NULL, 0};
  herd_error err;
  for (int capped = 0; capped < 2; ++capped) {
    setenv("HERD_CL_CAPPED", capped ? "1" : "0", 1);
    herd_backend *cpu, *cl;
    make_pair_from(&sc, n, pos, vel, &cpu, &cl);
    CHECK(cl->step_capped == (capped == 1));
    CHECK((cl->programs[HERD_CL_PROGRAM_CAPPED] != NULL) == (capped == 1));
    for (uint32_t step = 0; step < 3; ++step) CHECK(herd_cl_backend.step(cl, none, centre, step, &err) == HERD_OK);
    out[capped] = malloc((size_t)n * 2 * sizeof(float));
    CHECK(herd_cl_backend.read_agents(cl, out[capped], NULL, &err) == HERD_OK);
    destroy_pair(cpu, cl);
  }
  uint32_t moved = 0;
  for (uint32_t i = 0; i < n; ++i) moved += out[0][2 * i] != pos[2 * i] || out[0][2 * i + 1] != pos[2 * i + 1];
  CHECK_MSG(memcmp(out[0], out[1], (size_t)n * 2 * sizeof(float)) == 0, "%s: the capped program's step differs",
            sets[count - 1]);
  CHECK_MSG(moved > n / 2, "only %u of %u boids moved: the step tested little", moved, n);
  unsetenv("HERD_CL_CAPPED");
  free(out[0]), free(out[1]), free(pos), free(vel);
}

/* The flock (by id) of a run of `steps` steps of a scenario on `backend`. */
static flock_copy run_flock(const herd_scenario *sc, const char *backend, uint32_t steps) {
  herd_sim *sim;
  herd_error err;
  CHECK_MSG(herd_sim_create(&(herd_sim_desc){.scenario = sc, .threads = 2, .backend = backend}, &sim, &err) == HERD_OK,
            "%s", err.message);
  for (uint32_t s = 0; s < steps; ++s) CHECK(herd_sim_step(sim, &err) == HERD_OK);
  flock_copy f = read_flock(sim);
  herd_sim_destroy(sim);
  return f;
}

/* The share of agents whose position agrees within 1e-4 (relative) between two flocks. */
static double share_close(const flock_copy *a, const flock_copy *b) {
  uint32_t close = 0;
  for (uint32_t i = 0; i < a->n; ++i) {
    bool agree = true;
    for (uint32_t k = 0; k < a->dims; ++k) {
      float x = a->pos[i * a->dims + k], y = b->pos[i * a->dims + k];
      agree = agree && fabs(x - y) <= 1e-4 * fmax(fabs(x), 1.0);
    }
    close += agree;
  }
  return (double)close / a->n;
}

/* In a world with a path the OpenCL step reads the path's pull from the guide pass
 * (herd_path_guide), the CPU backend works it out in the update: one step of each model that
 * follows a path agrees to rounding, and differs from the same step without the path. */
static void path_worlds_step_as_the_cpu_backend(void) {
  const char *boids[] = {"model=boids", "boids.count=2000", "path.points_m=[[10,10],[320,470],[630,20]]"};
  const char *couzin[] = {"model=couzin", "couzin.count=1500", "world.size_m=[60,60,60]",
                          "path.points_m=[[5,5,5],[30,55,40],[55,10,20]]", "path.weight=0.5"};
  const char *fish[] = {"model=fish", "fish.count=1500", "path.points_m=[[5,5,5],[30,55,25],[55,10,20]]",
                        "path.weight=0.5"};
  struct {
    const char *const *sets;
    int count;
  } cases[] = {{boids, 3}, {couzin, 5}, {fish, 4}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    herd_scenario sc = scenario_with(cases[c].sets, cases[c].count), plain = sc;
    plain.path.points.count = 0;
    flock_copy cpu = run_flock(&sc, "cpu", 1), cl = run_flock(&sc, "opencl", 1), off = run_flock(&plain, "opencl", 1);
    double agree = share_close(&cpu, &cl), unguided = share_close(&off, &cl);
    CHECK_MSG(agree >= 0.995, "%s: %.4f of the agents agree within 1e-4", cases[c].sets[0], agree);
    CHECK_MSG(unguided < 0.5, "%s: %.4f agree with the step without the path: the path tested little", cases[c].sets[0],
              unguided);
    free_flock(&cpu), free_flock(&cl), free_flock(&off);
  }
}

static void the_capped_program_steps_the_same_bits(void) {
  check_capped_steps((const char *[]){"model=boids", "world.size_m=[400,300]", "world.wrap=[true,true]"}, 3);
  /* and in a world with a path, where the capped step reads the guide pass's pull */
  herd_scenario path =
      scenario_with((const char *[]){"model=boids", "boids.count=1000", "path.points_m=[[10,10],[630,470]]"}, 3);
  flock_copy f[2];
  for (int capped = 0; capped < 2; ++capped) {
    setenv("HERD_CL_CAPPED", capped ? "1" : "0", 1);
    f[capped] = run_flock(&path, "opencl", 3);
  }
  CHECK(memcmp(f[0].pos, f[1].pos, (size_t)f[0].n * f[0].dims * sizeof(float)) == 0);
  free_flock(&f[0]), free_flock(&f[1]);
  setenv("HERD_CL_CAPPED", "1", 1);
  herd_backend *cpu, *cl;
  float *pos, *vel;
  herd_scenario sheep = scenario_with((const char *[]){"seed=5"}, 1);
  model_flock(&sheep, 3000, &pos, &vel);
  make_pair_from(&sheep, 3000, pos, vel, &cpu, &cl);
  CHECK(!cl->step_capped && !cl->programs[HERD_CL_PROGRAM_CAPPED]);
  destroy_pair(cpu, cl);
  unsetenv("HERD_CL_CAPPED");
  free(pos), free(vel);
}

int main(void) {
  herd_device_info device;
  if (!first_opencl_device(&device)) return 77;
  printf("OpenCL device: %s (%s)\n", device.name, device.platform);
  const char *agents = getenv("HERD_TEST_OPENCL_AGENTS");
  if (agents && atoi(agents) >= 100) N = (uint32_t)atoi(agents);
  /* The Strömbom pre-pass runs by default on GPUs only; every step here checks it on PoCL. */
  setenv("HERD_CL_COOP", "1", 1);
  TEST_MAIN(TESTS);
}
