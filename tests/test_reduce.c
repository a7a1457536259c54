/* The backend's reductions against plain loops over the same flock. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "backend_util.h"
#include "rng.h"
#include "test.h"

#define TESTS(X)                                      \
  X(observation_matches_naive_loops)                  \
  X(ties_go_to_the_lowest_id)                         \
  X(observation_is_independent_of_threads)            \
  X(order_parameters_match_their_definitions)         \
  X(nearest_is_taken_through_the_wrap)                \
  X(nearest_of_many_steering_agents_is_exact)         \
  X(a_tie_between_pieces_goes_to_the_lower_id)        \
  X(observation_in_3d_matches_naive_loops)            \
  X(sums_hold_2e31_agents_at_the_largest_coordinates) \
  X(sector_borders_open_their_sectors)                \
  X(sectors_match_naive_loops)                        \
  X(sectors_are_left_out_unless_observed)
TESTS(DECLARE_TEST)

enum { N = 20000, DOGS = 3 };
static const double QUARTER_PI = 0.78539816339744830962; /* 45 degrees: a sector */

static herd_vec2 *flock(void) {
  herd_vec2 *pos = malloc(N * sizeof *pos);
  for (uint32_t i = 0; i < N; ++i) {
    herd_rng4 r = herd_rng_draw(5, 0, i, 9);
    float spread = (i % 50 == 0) ? 400.0f : 60.0f;
    pos[i] = herd_v2(spread * herd_rng_unit_float(r.v[0]) - 30.0f, spread * herd_rng_unit_float(r.v[1]) + 10.0f);
  }
  return pos;
}

/* Steering agents as the backend takes them: HERD_STEER_FLOATS each, standing still. */
static void steering(const herd_vec2 *dogs, int count, float *out) {
  memset(out, 0, (size_t)count * HERD_STEER_FLOATS * sizeof *out);
  for (int d = 0; d < count; ++d) out[HERD_STEER_FLOATS * d] = dogs[d].x, out[HERD_STEER_FLOATS * d + 1] = dogs[d].y;
}

/* The observation of a flock of n (float2 positions and velocities) from the CPU backend,
 * after a step in which nobody moves (a Strömbom flock with no dog in reach and grazing
 * probability 0: the flock is then sorted by cell, an order unlike the id order). */
static herd_observation reduce_with(const char *const *sets, int set_count, const float *pos, const float *vel,
                                    uint32_t n, const float *steer, uint32_t steer_count, int threads) {
  herd_scenario sc = scenario_with(sets, set_count);
  herd_backend_desc desc = backend_desc_for(&sc, n, threads);
  desc.goal_m[0] = 0, desc.goal_m[1] = 20, desc.goal_radius_m = 15;
  herd_backend *b;
  herd_error err;
  herd_observation obs;
  CHECK(herd_cpu_backend.create(&desc, &b, &err) == HERD_OK);
  CHECK(herd_cpu_backend.upload(b, pos, vel, &err) == HERD_OK);
  float centroid[3] = {0, 0, 0};
  if (sc.model == HERD_MODEL_STROMBOM)
    CHECK(herd_cpu_backend.step(b, (herd_steering_input){steer, 0}, centroid, 0, &err) == HERD_OK);
  CHECK(herd_cpu_backend.reduce(b, (herd_steering_input){steer, steer_count}, &obs, &err) == HERD_OK);
  herd_cpu_backend.destroy(b);
  return obs;
}

static herd_observation reduce(const herd_vec2 *pos, uint32_t n, const herd_vec2 *dogs, int threads) {
  const char *sets[] = {"sheep.count=2", "sheep.neighbours=1", "sheep.graze_probability=0", "sheep.dog_radius_m=0"};
  float steer[HERD_STEER_FLOATS * DOGS];
  steering(dogs, DOGS, steer);
  herd_vec2 *heading = calloc(n, sizeof *heading);
  herd_observation o = reduce_with(sets, 4, (const float *)pos, (const float *)heading, n, steer, DOGS, threads);
  free(heading);
  return o;
}

static void observation_matches_naive_loops(void) {
  herd_vec2 *pos = flock();
  herd_vec2 dogs[DOGS] = {{-100, -100}, {500, 500}, {0, 30}};
  herd_observation o = reduce(pos, N, dogs, 2);
  double sx = 0, sy = 0;
  float lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
  uint32_t in_goal = 0;
  for (uint32_t i = 0; i < N; ++i) {
    sx += pos[i].x, sy += pos[i].y;
    lo[0] = fminf(lo[0], pos[i].x), lo[1] = fminf(lo[1], pos[i].y);
    hi[0] = fmaxf(hi[0], pos[i].x), hi[1] = fmaxf(hi[1], pos[i].y);
    double dx = pos[i].x, dy = pos[i].y - 20.0;
    in_goal += dx * dx + dy * dy <= 15.0 * 15.0;
  }
  double gx = sx / N, gy = sy / N;
  CHECK(o.count == N);
  CHECK_MSG(fabs(o.centroid[0] - gx) <= 1e-9 * fabs(gx) && fabs(o.centroid[1] - gy) <= 1e-9 * fabs(gy),
            "centroid (%.12g, %.12g) vs (%.12g, %.12g)", o.centroid[0], o.centroid[1], gx, gy);
  CHECK(o.extent_min[0] == lo[0] && o.extent_min[1] == lo[1] && o.extent_max[0] == hi[0] && o.extent_max[1] == hi[1]);
  CHECK_MSG(o.in_goal == in_goal, "in goal %u vs %u", o.in_goal, in_goal);
  /* Nobody moved, so exactly those placed in the goal have been delivered. */
  CHECK_MSG(o.delivered == in_goal && in_goal > 0, "delivered %u, in goal %u", o.delivered, in_goal);
  double far = -1;
  uint32_t far_id = 0;
  for (uint32_t i = 0; i < N; ++i) {
    double d = hypot(pos[i].x - (float)gx, pos[i].y - (float)gy);
    if (d > far) far = d, far_id = i;
  }
  CHECK_MSG(o.farthest_id == far_id, "farthest %u vs %u", o.farthest_id, far_id);
  CHECK(fabs(o.farthest_dist_m - far) <= 1e-5 * far);
  CHECK(o.farthest_pos[0] == pos[far_id].x && o.farthest_pos[1] == pos[far_id].y);
  CHECK(o.steering_count == DOGS);
  for (int d = 0; d < DOGS; ++d) {
    double best = INFINITY;
    uint32_t best_id = 0;
    for (uint32_t i = 0; i < N; ++i) {
      double dist = hypot(pos[i].x - dogs[d].x, pos[i].y - dogs[d].y);
      if (dist < best) best = dist, best_id = i;
    }
    CHECK_MSG(o.nearest[d].id == best_id, "dog %d: nearest %u vs %u", d, o.nearest[d].id, best_id);
    CHECK(fabs(o.nearest[d].dist_m - best) <= 1e-5 * best + 1e-6);
    CHECK(o.nearest[d].pos[0] == pos[best_id].x && o.nearest[d].pos[1] == pos[best_id].y);
  }
  free(pos);
}

static void ties_go_to_the_lowest_id(void) {
  /* Four sheep on a square around the origin: all equally near the dog and equally far
   * from the centroid. */
  herd_vec2 pos[4] = {{1, 1}, {-1, 1}, {-1, -1}, {1, -1}};
  herd_vec2 dogs[DOGS] = {{0, 0}, {0, 0}, {0, 0}};
  herd_observation o = reduce(pos, 4, dogs, 1);
  CHECK(o.farthest_id == 0);
  CHECK(o.nearest[0].id == 0);
}

static void observation_is_independent_of_threads(void) {
  herd_vec2 *pos = flock();
  herd_vec2 dogs[DOGS] = {{-100, -100}, {500, 500}, {0, 30}};
  herd_observation a = reduce(pos, N, dogs, 1), b = reduce(pos, N, dogs, 2);
  CHECK(memcmp(&a, &b, sizeof a) == 0);
  free(pos);
}

/* Polarisation |mean unit(v)| and milling |mean unit(r - G) x unit(v)|, against plain
 * loops, on a flock half milling counter-clockwise about (100, 0), half flying east. */
static void order_parameters_match_their_definitions(void) {
  enum { M = 3000 };
  float *pos = malloc(2 * M * sizeof *pos), *vel = malloc(2 * M * sizeof *vel);
  for (uint32_t i = 0; i < M; ++i) {
    float a = 6.2831853f * (float)i / M, r = 20.0f + (float)(i % 7);
    pos[2 * i] = 100.0f + r * cosf(a), pos[2 * i + 1] = r * sinf(a);
    vel[2 * i] = i % 2 ? 3.0f : -2.0f * sinf(a), vel[2 * i + 1] = i % 2 ? 0.0f : 2.0f * cosf(a);
  }
  const char *sets[] = {"model=boids", "world.size_m=[2000,2000]"};
  herd_observation o = reduce_with(sets, 2, pos, vel, M, NULL, 0, 2);
  double gx = 0, gy = 0, hx = 0, hy = 0, mz = 0;
  for (uint32_t i = 0; i < M; ++i) gx += pos[2 * i], gy += pos[2 * i + 1];
  gx /= M, gy /= M;
  for (uint32_t i = 0; i < M; ++i) {
    double vx = vel[2 * i], vy = vel[2 * i + 1], vl = hypot(vx, vy);
    double rx = pos[2 * i] - (float)gx, ry = pos[2 * i + 1] - (float)gy, rl = hypot(rx, ry);
    hx += vx / vl, hy += vy / vl;
    mz += (rx * vy - ry * vx) / (rl * vl);
  }
  double pol = hypot(hx, hy) / M, mill = fabs(mz) / M;
  CHECK_MSG(fabs(o.polarisation - pol) < 1e-5, "polarisation %.6f vs %.6f", o.polarisation, pol);
  CHECK_MSG(fabs(o.milling - mill) < 1e-5, "milling %.6f vs %.6f", o.milling, mill);
  CHECK(pol > 0.45 && pol < 0.55 && mill > 0.45 && mill < 0.55); /* half aligned, half milling */
  free(pos);
  free(vel);
}

/* In a torus the agent nearest to a steering agent may be across the edge. */
static void nearest_is_taken_through_the_wrap(void) {
  float pos[6] = {1, 50, 60, 50, 98, 50}, vel[6] = {1, 0, 1, 0, 1, 0}, steer[HERD_STEER_FLOATS] = {99.5f, 50};
  const char *wrap[] = {"model=netlogo", "world.size_m=[100,100]", "world.wrap=[true,true]"};
  const char *open[] = {"model=netlogo", "world.size_m=[100,100]", "world.wrap=[false,false]"};
  herd_observation a = reduce_with(wrap, 3, pos, vel, 3, steer, 1, 1),
                   b = reduce_with(open, 3, pos, vel, 3, steer, 1, 1);
  CHECK_MSG(a.nearest[0].id == 0 && fabsf(a.nearest[0].dist_m - 1.5f) < 1e-5f, "torus: nearest %u at %g",
            a.nearest[0].id, (double)a.nearest[0].dist_m);
  CHECK_MSG(b.nearest[0].id == 2 && fabsf(b.nearest[0].dist_m - 1.5f) < 1e-5f, "open: nearest %u at %g",
            b.nearest[0].id, (double)b.nearest[0].dist_m);
}

/* The nearest agent to each of HERD_MAX_STEERING steering agents (the backend searches the pieces
 * of the sorted flock whose box may hold it: src/backend/observation.c) is the brute force's, in
 * a clustered flock sorted by cell and on a torus: steering agents inside it, at its edge, far
 * away and beyond the torus's edge. Distances as the backend rounds them. */
static void check_many_nearest(const char *const *sets, int set_count, const float *pos, uint32_t n,
                               const herd_vec2 *at, const float *period) {
  float steer[HERD_STEER_FLOATS * HERD_MAX_STEERING];
  steering(at, HERD_MAX_STEERING, steer);
  float *vel = calloc(2 * (size_t)n, sizeof *vel);
  for (uint32_t i = 0; i < n; ++i) vel[2 * i] = 1;
  herd_observation o = reduce_with(sets, set_count, pos, vel, n, steer, HERD_MAX_STEERING, 2);
  for (int d = 0; d < HERD_MAX_STEERING; ++d) {
    float best = INFINITY;
    uint32_t best_id = 0;
    for (uint32_t i = 0; i < n; ++i) {
      float dx = pos[2 * i] - at[d].x, dy = pos[2 * i + 1] - at[d].y;
      if (period) dx -= period[0] * roundf(dx / period[0]), dy -= period[1] * roundf(dy / period[1]);
      float d2 = dx * dx + dy * dy;
      if (d2 < best) best = d2, best_id = i; /* ascending ids: a tie keeps the lower */
    }
    CHECK_MSG(o.nearest[d].id == best_id, "%s, steering agent %d at (%g, %g): nearest %u, brute force %u", sets[0], d,
              (double)at[d].x, (double)at[d].y, o.nearest[d].id, best_id);
  }
  free(vel);
}

static void nearest_of_many_steering_agents_is_exact(void) {
  enum { M = 30000 };
  float *pos = malloc(2 * M * sizeof *pos);
  for (uint32_t i = 0; i < M; ++i) { /* clusters of every size, and a few stragglers */
    herd_rng4 r = herd_rng_draw(17, 0, i, 5);
    float cx = 40.0f * (float)(i % 7), cy = 25.0f * (float)(i % 5), spread = i % 97 == 0 ? 120.0f : 12.0f;
    pos[2 * i] = 10.0f + cx + spread * herd_rng_unit_float(r.v[0]);
    pos[2 * i + 1] = 10.0f + cy + spread * herd_rng_unit_float(r.v[1]);
  }
  herd_vec2 at[HERD_MAX_STEERING];
  for (int d = 0; d < HERD_MAX_STEERING; ++d) {
    herd_rng4 r = herd_rng_draw(23, 0, (uint32_t)d, 5);
    float reach = d % 3 == 0 ? 900.0f : 300.0f; /* inside, beside and far from the flock */
    at[d] =
        herd_v2(reach * herd_rng_unit_float(r.v[0]) - 0.3f * reach, reach * herd_rng_unit_float(r.v[1]) - 0.3f * reach);
  }
  const char *open[] = {"sheep.count=2", "sheep.neighbours=1", "sheep.graze_probability=0", "sheep.dog_radius_m=0"};
  check_many_nearest(open, 4, pos, M, at, NULL);
  const float period[2] = {400, 400};
  const char *torus[] = {"model=netlogo", "world.size_m=[400,400]", "world.wrap=[true,true]"};
  at[1] = herd_v2(399.5f, 30), at[2] = herd_v2(0.25f, 399.75f); /* beside the torus's edges */
  check_many_nearest(torus, 3, pos, M, at, period);
  free(pos);
}

/* A tie between pieces (herd_partial_over over a range laid out by hand): sorted agent 0, id 7,
 * and sorted agent 1000, id 3, are both 60 m from the steering agent, their pieces' boxes as near
 * as they are, the pieces between far away. The lower id wins though its piece comes later: a
 * piece whose box is exactly as near as the nearest found is searched. */
static void a_tie_between_pieces_goes_to_the_lower_id(void) {
  enum { M = 1200 };
  herd_scenario sc = scenario_with((const char *[]){"sheep.count=2", "sheep.neighbours=1"}, 2);
  herd_backend_desc desc = backend_desc_for(&sc, M, 1);
  herd_grid g = herd_grid_for(&desc);
  float *pos = malloc(2 * M * sizeof *pos), *vel = calloc(2 * M, sizeof *vel), steer[HERD_STEER_FLOATS] = {150, 150};
  uint32_t *agent = malloc(M * sizeof *agent);
  for (uint32_t i = 0; i < M; ++i) {
    agent[i] = 10u + i;
    pos[2 * i] = 100.0f + (float)(i % 100);                          /* x: 100 to 199 */
    pos[2 * i + 1] = i < 256 ? 80.0f : (i < 768 ? -500.0f : 220.0f); /* pieces 0, 1-2, 3-4: below, far, above */
  }
  pos[0] = 150, pos[1] = 90, agent[0] = 7;
  pos[2000] = 150, pos[2001] = 210, agent[1000] = 3;
  herd_flock_partial p =
      herd_partial_over(&desc, &g, pos, vel, agent, 0, M, (herd_steering_input){steer, 1}, HERD_OBSERVE_FAR);
  CHECK_MSG(p.near[0].id == 3 && p.near[0].d2 == 3600.0f, "nearest id %u at d2 %g", p.near[0].id, (double)p.near[0].d2);
  agent[1000] = 8; /* the earlier piece's agent wins a tie with a higher id */
  p = herd_partial_over(&desc, &g, pos, vel, agent, 0, M, (herd_steering_input){steer, 1}, HERD_OBSERVE_FAR);
  CHECK_MSG(p.near[0].id == 7, "nearest id %u", p.near[0].id);
  free(pos), free(vel), free(agent);
}

/* 3D: centroid, extent, farthest and nearest in three coordinates. */
static void observation_in_3d_matches_naive_loops(void) {
  enum { M = 5000 };
  float *pos = malloc(4 * M * sizeof *pos), *vel = calloc(4 * M, sizeof *vel);
  for (uint32_t i = 0; i < M; ++i) {
    herd_rng4 r = herd_rng_draw(9, 0, i, 3);
    for (int k = 0; k < 3; ++k) pos[4 * i + k] = 50.0f + 100.0f * herd_rng_unit_float(r.v[k]) * (k == 2 ? 0.5f : 1.0f);
    pos[4 * i + 3] = 0, vel[4 * i] = 1;
  }
  float steer[HERD_STEER_FLOATS] = {0};
  const char *sets[] = {"model=boids", "world.size_m=[300,300,300]"};
  herd_observation o = reduce_with(sets, 2, pos, vel, M, steer, 1, 2);
  double g[3] = {0, 0, 0};
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (uint32_t i = 0; i < M; ++i)
    for (int k = 0; k < 3; ++k)
      g[k] += pos[4 * i + k], lo[k] = fminf(lo[k], pos[4 * i + k]), hi[k] = fmaxf(hi[k], pos[4 * i + k]);
  double far = -1, near = INFINITY;
  uint32_t far_id = 0, near_id = 0;
  for (uint32_t i = 0; i < M; ++i) {
    double dx = pos[4 * i] - (float)(g[0] / M), dy = pos[4 * i + 1] - (float)(g[1] / M),
           dz = pos[4 * i + 2] - (float)(g[2] / M);
    double d = sqrt(dx * dx + dy * dy + dz * dz),
           s = sqrt(pos[4 * i] * pos[4 * i] + pos[4 * i + 1] * pos[4 * i + 1] + pos[4 * i + 2] * pos[4 * i + 2]);
    if (d > far) far = d, far_id = i;
    if (s < near) near = s, near_id = i;
  }
  for (int k = 0; k < 3; ++k) {
    CHECK_MSG(fabs(o.centroid[k] - g[k] / M) < 1e-9 * fabs(g[k] / M), "centroid[%d]", k);
    CHECK(o.extent_min[k] == lo[k] && o.extent_max[k] == hi[k]);
  }
  CHECK_MSG(o.farthest_id == far_id && fabs(o.farthest_dist_m - far) < 1e-4, "farthest %u vs %u", o.farthest_id,
            far_id);
  CHECK_MSG(o.nearest[0].id == near_id && o.nearest[0].pos[2] == pos[4 * near_id + 2], "nearest %u vs %u",
            o.nearest[0].id, near_id);
  CHECK(fabsf(o.polarisation - 1.0f) < 1e-6f);
  free(pos);
  free(vel);
}

/* The fixed-point sums' bound (kernels/reduce.h): 2^31 agents at the schema's largest
 * coordinates, +-1e7 m, and unit headings, sum without overflow and exactly (against GCC's
 * 128-bit integers), and the centroid both backends measure from is those agents' position.
 * 2^31 agents are one agent's partial folded with itself 31 times. */
static void sums_hold_2e31_agents_at_the_largest_coordinates(void) {
  herd_grid g = {.cell_m = 4, .inv_cell_m = 0.25f, .count = 1, .dims = 2};
  const float xs[] = {1e7f, -1e7f, -9999999.5f, 1234.5678f};
  for (size_t k = 0; k < sizeof xs / sizeof xs[0]; ++k) {
    herd_vec3 at = herd_v3(xs[k], -xs[k], 0), vel = herd_v3(-1, 0, 0);
    herd_flock_partial p = herd_partial_empty();
    herd_partial_add(&p, &g, at, vel, 0u, NULL, 0, 0, 1);
    for (int d = 0; d < 31; ++d) p = herd_partial_fold(p, p, 0);
    __int128 one = (__int128)(int64_t)(xs[k] * 4294967296.0f),
             want = one * ((__int128)1 << 31); /* no shift of a negative */
    __int128 got = (__int128)(((unsigned __int128)(uint64_t)p.sum_x.hi << 64) | p.sum_x.lo);
    CHECK_MSG(got == want, "x = %g: the sum of 2^31 is not exact", (double)xs[k]);
    CHECK(p.head_x == -((int64_t)1 << 61)); /* -1 in 2^-30, 2^31 times: no overflow */
    herd_vec3 c = herd_partial_centroid(p, 1u << 31);
    CHECK_MSG(c.x == xs[k] && c.y == -xs[k], "centroid (%.9g, %.9g) of agents at (%.9g, %.9g)", (double)c.x,
              (double)c.y, (double)xs[k], (double)-xs[k]);
    herd_observation o;
    herd_observation_from_partial(&p, 1u << 31, 2, 0, &o);
    CHECK(o.centroid[0] == xs[k] && o.centroid[1] == -xs[k] && o.polarisation == 1.0f);
  }
}

/* ---- Sectors ------------------------------------------------------------------------------ */

/* An agent on each sector border (k * 45 degrees, at 1 and sqrt(2) m) and their mirror images:
 * the centroid is exactly 0, and each border belongs to the sector it opens. */
static void sector_borders_open_their_sectors(void) {
  const float border[8][2] = {{1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
  float pos[16], vel[16] = {0}, steer[HERD_STEER_FLOATS] = {0};
  for (int k = 0; k < 8; ++k) pos[2 * k] = border[k][0], pos[2 * k + 1] = border[k][1];
  const char *sets[] = {"model=netlogo", "world.size_m=[100,100]", "world.wrap=[false,false]"};
  herd_observation o = reduce_with(sets, 3, pos, vel, 8, steer, 0, 1);
  CHECK(o.centroid[0] == 0.0 && o.centroid[1] == 0.0 && !(o.missing & HERD_OBSERVE_SECTORS));
  for (uint32_t k = 0; k < HERD_SECTORS; ++k) {
    const herd_sector *sec = &o.sector[k];
    CHECK_MSG(sec->count == 1 && sec->farthest_id == k, "sector %u: %u agents, farthest %u (the border at %u deg)", k,
              sec->count, sec->farthest_id, 45 * k);
    CHECK(sec->farthest_pos[0] == border[k][0] && sec->farthest_pos[1] == border[k][1]);
    CHECK(fabsf(sec->farthest_dist_m - (k % 2 ? sqrtf(2.0f) : 1.0f)) < 1e-6f);
  }
  /* One agent at the centroid: sector 0, at distance 0. */
  float at_g[2] = {0, 0}, still[2] = {0, 0};
  herd_observation one = reduce_with(sets, 3, at_g, still, 1, steer, 0, 1);
  CHECK(one.sector[0].count == 1 && one.sector[0].farthest_id == 0 && one.sector[0].farthest_dist_m == 0.0f);
  for (uint32_t k = 1; k < HERD_SECTORS; ++k)
    CHECK(one.sector[k].count == 0 && one.sector[k].farthest_id == UINT32_MAX && one.sector[k].farthest_dist_m == 0);
}

/* Naive sectors of a flock whose centroid is exactly the origin (mirror pairs), by the offset's
 * azimuth in double (atan2), none of it within 1e-4 rad of a border: counts and farthest (by the
 * distance in all dims) per sector. Flocks: spread with a few strays (clustered), the same in 3D,
 * and on a torus, where the sectors, like the farthest agent, take the plain offset. */
static void check_sectors(const char *const *sets, int set_count, uint32_t dims, uint32_t seed, int threads) {
  enum { M = 6000 };
  float *pos = calloc(4 * M, sizeof *pos), *vel = calloc(4 * M, sizeof *vel), steer[HERD_STEER_FLOATS] = {0};
  uint32_t stride = dims == 3 ? 4 : 2, placed = 0;
  for (uint32_t i = 0; placed < M; ++i) {
    herd_rng4 r = herd_rng_draw(seed, 0, i, 4);
    float spread = (i % 40 == 0) ? 45.0f : 12.0f, p[3];
    for (int k = 0; k < 3; ++k) p[k] = spread * (2.0f * herd_rng_unit_float(r.v[k]) - 1.0f);
    double turns = atan2(p[1], p[0]) / QUARTER_PI;
    if (fabs(turns - round(turns)) < 1e-4 || (p[0] == 0 && p[1] == 0)) continue;
    for (int m = 0; m < 2; ++m, ++placed) {
      for (uint32_t k = 0; k < dims; ++k) pos[stride * placed + k] = m ? -p[k] : p[k];
      vel[stride * placed] = 1;
    }
  }
  herd_observation o = reduce_with(sets, set_count, pos, vel, M, steer, 0, threads);
  CHECK(o.centroid[0] == 0.0 && o.centroid[1] == 0.0 && o.centroid[2] == 0.0);
  uint32_t count[HERD_SECTORS] = {0}, far_id[HERD_SECTORS];
  double far[HERD_SECTORS];
  for (int k = 0; k < HERD_SECTORS; ++k) far[k] = -1, far_id[k] = UINT32_MAX;
  for (uint32_t i = 0; i < M; ++i) {
    const float *p = pos + stride * i;
    double a = atan2(p[1], p[0]);
    int k = (int)floor((a < 0 ? a + 8 * QUARTER_PI : a) / QUARTER_PI) % HERD_SECTORS;
    double d = sqrt((double)p[0] * p[0] + (double)p[1] * p[1] + (dims == 3 ? (double)p[2] * p[2] : 0.0));
    ++count[k];
    if (d > far[k]) far[k] = d, far_id[k] = i;
  }
  for (int k = 0; k < HERD_SECTORS; ++k) {
    const herd_sector *sec = &o.sector[k];
    CHECK_MSG(sec->count == count[k] && sec->farthest_id == far_id[k],
              "%uD seed %u sector %d: %u agents, farthest %u; "
              "naive %u, %u",
              dims, seed, k, sec->count, sec->farthest_id, count[k], far_id[k]);
    CHECK(fabs(sec->farthest_dist_m - far[k]) <= 1e-5 * far[k] && count[k] > 0);
    if (far_id[k] != UINT32_MAX)
      for (uint32_t c = 0; c < dims; ++c) CHECK(sec->farthest_pos[c] == pos[stride * far_id[k] + c]);
  }
  free(pos);
  free(vel);
}

static void sectors_match_naive_loops(void) {
  const char *open2[] = {"model=netlogo", "world.size_m=[200,200]", "world.wrap=[false,false]"};
  const char *torus[] = {"model=netlogo", "world.size_m=[200,200]", "world.wrap=[true,true]"};
  const char *open3[] = {"model=boids", "world.size_m=[200,200,200]"};
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    check_sectors(open2, 3, 2, seed, seed % 2 + 1);
    check_sectors(torus, 3, 2, seed + 10, 2);
    check_sectors(open3, 2, 3, seed + 20, 2);
  }
}

/* Left out (herd_cpu_backend's set_observed without HERD_OBSERVE_SECTORS): marked missing, every
 * other part the same bits; asked for again, the same sectors as before. */
static void sectors_are_left_out_unless_observed(void) {
  herd_vec2 *pos = flock();
  const char *sets[] = {"sheep.count=2", "sheep.neighbours=1", "sheep.graze_probability=0", "sheep.dog_radius_m=0"};
  herd_scenario sc = scenario_with(sets, 4);
  herd_backend_desc desc = backend_desc_for(&sc, N, 2);
  herd_backend *b;
  herd_error err;
  float *vel = calloc(2 * N, sizeof *vel), steer[HERD_STEER_FLOATS] = {0};
  herd_observation all, without, again;
  CHECK(herd_cpu_backend.create(&desc, &b, &err) == HERD_OK);
  CHECK(herd_cpu_backend.upload(b, (const float *)pos, vel, &err) == HERD_OK);
  CHECK(herd_cpu_backend.reduce(b, (herd_steering_input){steer, 0}, &all, &err) == HERD_OK);
  herd_cpu_backend.set_observed(b, HERD_OBSERVE_ALL & ~HERD_OBSERVE_SECTORS);
  CHECK(herd_cpu_backend.reduce(b, (herd_steering_input){steer, 0}, &without, &err) == HERD_OK);
  herd_cpu_backend.set_observed(b, HERD_OBSERVE_ALL);
  CHECK(herd_cpu_backend.reduce(b, (herd_steering_input){steer, 0}, &again, &err) == HERD_OK);
  herd_cpu_backend.destroy(b);
  CHECK(without.missing == HERD_OBSERVE_SECTORS && all.missing == 0 && again.missing == 0);
  CHECK(without.sector[3].count == UINT32_MAX && without.sector[3].farthest_id == UINT32_MAX &&
        isnan(without.sector[3].farthest_dist_m));
  CHECK(memcmp(&all, &without, offsetof(herd_observation, missing)) == 0); /* every part before the word */
  CHECK(memcmp(&all, &again, sizeof all) == 0);
  uint32_t total = 0;
  for (int k = 0; k < HERD_SECTORS; ++k) total += all.sector[k].count;
  CHECK(total == N);
  free(vel);
  free(pos);
}

int main(void) { TEST_MAIN(TESTS); }
