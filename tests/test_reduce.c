/* The backend's reductions against plain loops over the same flock. */
#include <math.h>
#include <stdlib.h>

#include "backend/backend.h"
#include "rng.h"
#include "test.h"

#define TESTS(X)                     \
  X(observation_matches_naive_loops) \
  X(ties_go_to_the_lowest_id)        \
  X(observation_is_independent_of_threads)
TESTS(DECLARE_TEST)

enum { N = 20000, DOGS = 3 };

static herd_vec2 *flock(void) {
  herd_vec2 *pos = malloc(N * sizeof *pos);
  for (uint32_t i = 0; i < N; ++i) {
    herd_rng4 r = herd_rng_draw(5, 0, i, 9);
    float spread = (i % 50 == 0) ? 400.0f : 60.0f;
    pos[i] = herd_v2(spread * herd_rng_unit_float(r.v[0]) - 30.0f, spread * herd_rng_unit_float(r.v[1]) + 10.0f);
  }
  return pos;
}

static herd_observation reduce(const herd_vec2 *pos, uint32_t n, const herd_vec2 *dogs, int threads) {
  herd_backend_desc desc = {.count = n,
                            .model = {.repulsion_radius_m = 2, .neighbours = 1},
                            .goal_m = {0, 20},
                            .goal_radius_m = 15,
                            .threads = threads};
  herd_backend *b;
  herd_error err;
  herd_observation obs;
  herd_vec2 *heading = calloc(n, sizeof *heading);
  CHECK(herd_cpu_backend.create(&desc, &b, &err) == HERD_OK);
  CHECK(herd_cpu_backend.upload(b, pos, heading, &err) == HERD_OK);
  /* A step in which nobody moves (no dog, grazing probability 0) leaves the flock sorted
   * by cell, so the reduction sees an order unlike the id order. */
  CHECK(herd_cpu_backend.step(b, dogs, 0, herd_v2(0, 0), 0, &err) == HERD_OK);
  CHECK(herd_cpu_backend.reduce(b, dogs, DOGS, &obs, &err) == HERD_OK);
  herd_cpu_backend.destroy(b);
  free(heading);
  return obs;
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
  CHECK(o.dog_count == DOGS);
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

int main(void) { TEST_MAIN(TESTS); }
