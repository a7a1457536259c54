/* Lien et al.'s shepherds (src/steer/lien*.c): the three assignment methods on hand-made cases
 * and against independent references, the formations and manoeuvres against their equations,
 * the safe-zone approach, the flock states and the share of shepherds on synthetic
 * observations, and whole runs (herding, no clumping, determinism, merging). */
#include <math.h>

#include "sim_util.h"
#include "steer/lien.h"
#include "test.h"

#define TESTS(X)                                        \
  X(projection_ranks_along_the_perpendicular_line)      \
  X(greedy_takes_the_shortest_pair_first)               \
  X(hungarian_takes_the_least_total_distance)           \
  X(greedy_reports_pairs_as_algorithm_1)                \
  X(hungarian_total_is_the_brute_force_minimum)         \
  X(line_formation_stands_behind_across_the_diameter)   \
  X(arc_formation_lies_on_the_semicircle_behind)        \
  X(turning_rotates_the_formation_by_the_heading_error) \
  X(stopping_mirrors_the_formation_about_the_heading)   \
  X(a_lone_shepherd_sweeps_side_to_side)                \
  X(a_group_without_heading_is_steered_straight)        \
  X(safe_zone_approach_goes_around_the_group)           \
  X(flock_states_follow_groups_and_shepherds)           \
  X(shares_are_proportional_with_one_each_at_least)     \
  X(one_group_gets_every_shepherd)                      \
  X(a_dominant_group_is_held_and_the_others_brought)    \
  X(without_a_dominant_group_all_go_to_one_milestone)   \
  X(more_groups_than_shepherds_farthest_first)          \
  X(no_groups_observed_is_one_group_of_the_whole_flock) \
  X(milestones_follow_the_route)                        \
  X(decisions_do_not_depend_on_the_order_of_moving)     \
  X(shepherds_herd_a_small_flock_home)                  \
  X(shepherds_keep_apart_in_formation)                  \
  X(same_seed_same_shepherd_trajectories)               \
  X(merging_states_are_reached_and_acted_on)
TESTS(DECLARE_TEST)

#define PI 3.14159265358979323846

static bool near(double a, double b, double tol) { return fabs(a - b) <= tol; }

static bool near_point(const float p[2], double x, double y, double tol) {
  return near(p[0], x, tol) && near(p[1], y, tol);
}

/* xorshift64: the random cases' positions, the same on every machine. */
static float uniform(uint64_t *state, float lo, float hi) {
  *state ^= *state << 13, *state ^= *state >> 7, *state ^= *state << 17;
  return lo + (hi - lo) * (float)((*state >> 11) * (1.0 / 9007199254740992.0));
}

/* ---- Assignment ------------------------------------------------------------------------- */

static void projection_ranks_along_the_perpendicular_line(void) {
  /* The line runs along y. Shepherds at y = 5, -5, 0 rank 2, 0, 1 (s2 far out at x = 10 still
   * ranks by y alone); points at y = 0, 10, -10 rank 1, 2, 0. The i-th shepherd from the left
   * takes the i-th point: s0 (rank 2) -> p1, s1 (rank 0) -> p2, s2 (rank 1) -> p0. */
  const float axis[2] = {0, 1};
  const float s[3][2] = {{0, 5}, {0, -5}, {10, 0}}, p[3][2] = {{-3, 0}, {-3, 10}, {-3, -10}};
  uint32_t out[3];
  herd_lien_assign_projection(3, s, p, axis, out);
  CHECK(out[0] == 1 && out[1] == 2 && out[2] == 0);
  /* Ties by index: both shepherds project to 0, so s0 ranks first and takes the lower point. */
  const float ts[2][2] = {{1, 0}, {-1, 0}}, tp[2][2] = {{0, 2}, {0, -2}};
  herd_lien_assign_projection(2, ts, tp, axis, out);
  CHECK(out[0] == 1 && out[1] == 0);
}

/* s0 at 0 and s1 at 2.5 on a line, p0 at 1 and p1 at -2: the pairs by length are (s0, p0) 1,
 * (s1, p0) 1.5, (s0, p1) 2, (s1, p1) 4.5. Greedy reports (s0, p0) first, which leaves s1 the
 * long way to p1 (total 5.5); the least total is s0 -> p1, s1 -> p0 (2 + 1.5 = 3.5). */
static const float line_s[2][2] = {{0, 0}, {2.5f, 0}}, line_p[2][2] = {{1, 0}, {-2, 0}};

static void greedy_takes_the_shortest_pair_first(void) {
  uint32_t out[2], order[2][2];
  herd_lien_assign_greedy(2, line_s, line_p, out, order);
  CHECK(out[0] == 0 && out[1] == 1);
  CHECK(order[0][0] == 0 && order[0][1] == 0 && order[1][0] == 1 && order[1][1] == 1);
  /* A tie (s0 and s1 both 1 m from p0): the smaller shepherd index is reported first. */
  const float ts[2][2] = {{0, 0}, {2, 0}}, tp[2][2] = {{1, 0}, {1, 5}};
  herd_lien_assign_greedy(2, ts, tp, out, order);
  CHECK(out[0] == 0 && out[1] == 1 && order[0][0] == 0);
}

static void hungarian_takes_the_least_total_distance(void) {
  uint32_t out[2];
  herd_lien_assign_hungarian(2, line_s, line_p, out);
  CHECK(out[0] == 1 && out[1] == 0);
  /* Three on a line, points shifted by one place: s_i at 10 i, p_i at 10 i + 4. Every s_i -> p_i
   * costs 4 (total 12); any other match crosses and costs more. */
  const float s[3][2] = {{0, 0}, {10, 0}, {20, 0}}, p[3][2] = {{24, 0}, {4, 0}, {14, 0}};
  uint32_t o3[3];
  herd_lien_assign_hungarian(3, s, p, o3);
  CHECK(o3[0] == 1 && o3[1] == 2 && o3[2] == 0);
}

/* The pair an independent naive loop reports next: the shortest over all remaining pairs,
 * ties by shepherd then point. */
static void naive_next(uint32_t k, const float s[][2], const float p[][2], const bool *s_used, const bool *p_used,
                       uint32_t *bi, uint32_t *bj) {
  double best = INFINITY;
  for (uint32_t i = 0; i < k; ++i)
    for (uint32_t j = 0; j < k; ++j) {
      if (s_used[i] || p_used[j]) continue;
      double d = hypot((double)s[i][0] - p[j][0], (double)s[i][1] - p[j][1]);
      if (d < best) best = d, *bi = i, *bj = j;
    }
}

static void greedy_reports_pairs_as_algorithm_1(void) {
  uint64_t rng = 0x9e3779b97f4a7c15ull;
  for (int trial = 0; trial < 200; ++trial) {
    uint32_t k = 1 + (uint32_t)trial % HERD_MAX_STEERING, out[HERD_MAX_STEERING], order[HERD_MAX_STEERING][2];
    float s[HERD_MAX_STEERING][2], p[HERD_MAX_STEERING][2];
    for (uint32_t i = 0; i < k; ++i) {
      s[i][0] = uniform(&rng, 0, 100), s[i][1] = uniform(&rng, 0, 100);
      p[i][0] = uniform(&rng, 0, 100), p[i][1] = uniform(&rng, 0, 100);
    }
    if (trial % 5 == 0) s[k - 1][0] = s[0][0], s[k - 1][1] = s[0][1]; /* shepherds on one spot: ties */
    herd_lien_assign_greedy(k, (const float(*)[2])s, (const float(*)[2])p, out, order);
    bool s_used[HERD_MAX_STEERING] = {false}, p_used[HERD_MAX_STEERING] = {false};
    for (uint32_t r = 0; r < k; ++r) {
      uint32_t i = 0, j = 0;
      naive_next(k, (const float(*)[2])s, (const float(*)[2])p, s_used, p_used, &i, &j);
      CHECK_MSG(order[r][0] == i && order[r][1] == j, "trial %d, report %u: (%u, %u), naive (%u, %u)", trial, r,
                order[r][0], order[r][1], i, j);
      CHECK(out[i] == j);
      s_used[i] = p_used[j] = true;
    }
  }
}

static double total(uint32_t k, const float s[][2], const float p[][2], const uint32_t *match) {
  double sum = 0;
  for (uint32_t i = 0; i < k; ++i) sum += hypot((double)s[i][0] - p[match[i]][0], (double)s[i][1] - p[match[i]][1]);
  return sum;
}

/* The least total over all k! matches (Heap's algorithm). */
static double brute_force(uint32_t k, const float s[][2], const float p[][2]) {
  uint32_t perm[8], c[8] = {0};
  for (uint32_t i = 0; i < k; ++i) perm[i] = i;
  double best = total(k, s, p, perm);
  for (uint32_t i = 1; i < k;) {
    if (c[i] < i) {
      uint32_t a = i % 2 ? c[i] : 0, t = perm[a];
      perm[a] = perm[i], perm[i] = t;
      best = fmin(best, total(k, s, p, perm));
      ++c[i], i = 1;
    } else {
      c[i++] = 0;
    }
  }
  return best;
}

static void hungarian_total_is_the_brute_force_minimum(void) {
  uint64_t rng = 12345;
  for (uint32_t k = 1; k <= 7; ++k)
    for (int trial = 0; trial < 30; ++trial) {
      float s[8][2], p[8][2];
      for (uint32_t i = 0; i < k; ++i) {
        s[i][0] = uniform(&rng, -50, 50), s[i][1] = uniform(&rng, -50, 50);
        p[i][0] = uniform(&rng, -50, 50), p[i][1] = uniform(&rng, -50, 50);
      }
      uint32_t out[8];
      bool seen[8] = {false}, one_each = true;
      herd_lien_assign_hungarian(k, (const float(*)[2])s, (const float(*)[2])p, out);
      for (uint32_t i = 0; i < k; ++i) one_each = one_each && out[i] < k && !seen[out[i]], seen[out[i] % 8] = true;
      CHECK(one_each);
      double got = total(k, (const float(*)[2])s, (const float(*)[2])p, out);
      double best = brute_force(k, (const float(*)[2])s, (const float(*)[2])p);
      CHECK_MSG(near(got, best, 1e-9 * (1 + best)), "k = %u: %.9f, brute force %.9f", k, got, best);
      uint32_t greedy[8];
      herd_lien_assign_greedy(k, (const float(*)[2])s, (const float(*)[2])p, greedy, NULL);
      CHECK(total(k, (const float(*)[2])s, (const float(*)[2])p, greedy) >= best - 1e-9);
    }
}

/* ---- Formations and manoeuvres ------------------------------------------------------------ */

/* A group at (10, 20) of radius 4, pushed along u = (0.6, 0.8); epsilon 1, so R = 5; n = (-0.8, 0.6). */
static const float c0[2] = {10, 20}, u0[2] = {0.6f, 0.8f}, n0[2] = {-0.8f, 0.6f};

static double along(const float p[2], const float c[2], const float d[2]) {
  return ((double)p[0] - c[0]) * d[0] + ((double)p[1] - c[1]) * d[1];
}

static void line_formation_stands_behind_across_the_diameter(void) {
  float pts[4][2];
  for (uint32_t k = 1; k <= 4; ++k) {
    herd_lien_formation(HERD_FORMATION_LINE, c0, u0, 4, 1, k, pts);
    for (uint32_t i = 0; i < k; ++i) {
      /* On the line perpendicular to u, R = 5 behind the centre, at r ((2i + 1) / k - 1) along n:
       * k equal shares of the diameter, each shepherd in the middle of its own. */
      CHECK(near(along(pts[i], c0, u0), -5, 1e-5));
      CHECK(near(along(pts[i], c0, n0), 4.0 * ((2.0 * i + 1) / k - 1), 1e-5));
      CHECK(near(along(pts[i], c0, n0), -along(pts[k - 1 - i], c0, n0), 1e-5)); /* symmetric about the axis */
    }
  }
  herd_lien_formation(HERD_FORMATION_LINE, c0, u0, 4, 1, 1, pts); /* alone: straight behind */
  CHECK(near_point(pts[0], 10 - 3, 20 - 4, 1e-5));
  herd_lien_formation(HERD_FORMATION_LINE, c0, u0, 4, 1, 2, pts); /* two: +-r/2 across */
  CHECK(near_point(pts[0], 7 + 1.6, 16 - 1.2, 1e-5) && near_point(pts[1], 7 - 1.6, 16 + 1.2, 1e-5));
}

static void arc_formation_lies_on_the_semicircle_behind(void) {
  float pts[5][2];
  for (uint32_t k = 1; k <= 5; ++k) {
    herd_lien_formation(HERD_FORMATION_ARC, c0, u0, 4, 1, k, pts);
    for (uint32_t i = 0; i < k; ++i) {
      double phi = PI / 2 * ((2.0 * i + 1) / k - 1); /* from straight behind, toward n */
      CHECK(near(hypot(pts[i][0] - c0[0], pts[i][1] - c0[1]), 5, 1e-5));
      CHECK(near(along(pts[i], c0, u0), -5 * cos(phi), 1e-5) && along(pts[i], c0, u0) < 0); /* behind */
      CHECK(near(along(pts[i], c0, n0), 5 * sin(phi), 1e-5));
      CHECK(near(along(pts[i], c0, n0), -along(pts[k - 1 - i], c0, n0), 1e-5));
    }
  }
  herd_lien_formation(HERD_FORMATION_ARC, c0, u0, 4, 1, 3, pts); /* -60, 0, 60 deg: chords R, R */
  CHECK(near(hypot(pts[0][0] - pts[1][0], pts[0][1] - pts[1][1]), 5, 1e-5));
  CHECK(near_point(pts[1], 7, 16, 1e-5));
}

/* The scenario of the manoeuvre tests: formation and epsilon as given, theta_t = 30 deg. */
static herd_scenario shepherd_scenario(const char *formation) {
  char f[64];
  snprintf(f, sizeof f, "shepherds.formation=%s", formation);
  const char *sets[] = {"dogs.count=0",
                        "agents[0].strategy=shepherd",
                        "agents[0].count=3",
                        "shepherds.margin_m=1",
                        "shepherds.turn_angle_deg=30",
                        "shepherds.side_amplitude_m=3",
                        "shepherds.side_period_steps=40",
                        f};
  return scenario_with(sets, 8);
}

/* A group at c0 of radius 4 heading at `deg` degrees from +x with polarisation `pol`. */
static herd_lien_group group_heading(double deg, double pol) {
  herd_lien_group g = {.index = 0, .count = 20, .centre = {c0[0], c0[1]}, .radius_m = 4};
  g.heading[0] = (float)(pol * cos(deg * PI / 180)), g.heading[1] = (float)(pol * sin(deg * PI / 180));
  return g;
}

static void turning_rotates_the_formation_by_the_heading_error(void) {
  herd_scenario sc = shepherd_scenario("arc");
  const float toward[2] = {c0[0] + 60, c0[1]}; /* u = +x */
  const float ux[2] = {1, 0};
  for (int sign = -1; sign <= 1; sign += 2) {
    /* Heading 45 deg off u (to the left for sign = -1... the heading at -45 deg needs a left turn). */
    herd_lien_group g = group_heading(sign * -45.0, 0.9);
    float theta = herd_lien_heading_error(&g, toward);
    CHECK(near(theta, sign * PI / 4, 1e-5)); /* from the heading to u */
    float pts[3][2], base[3][2];
    CHECK(herd_lien_push(&sc, &g, toward, 3, 0, pts) == HERD_MODE_TURN);
    herd_lien_formation(HERD_FORMATION_ARC, c0, ux, 4, 1, 3, base);
    for (int i = 0; i < 3; ++i) {
      herd_lien_rotate(c0, theta, base[i]);
      CHECK(near_point(pts[i], base[i][0], base[i][1], 1e-4));
    }
    /* The middle shepherd now pushes along the heading mirrored about u (at +45 deg for a heading
     * at -45): it stands opposite that direction, on the far side from the turn. */
    double push = atan2(c0[1] - pts[1][1], c0[0] - pts[1][0]);
    CHECK(near(push, sign * PI / 4, 1e-4));
  }
  herd_lien_group g = group_heading(-29, 0.9); /* within theta_t: straight on */
  float pts[3][2];
  CHECK(herd_lien_push(&sc, &g, toward, 3, 0, pts) == HERD_MODE_STEER);
  g = group_heading(-89, 0.9); /* just short of 90: still a turn */
  CHECK(herd_lien_push(&sc, &g, toward, 3, 0, pts) == HERD_MODE_TURN);
}

static void stopping_mirrors_the_formation_about_the_heading(void) {
  for (int f = 0; f < 2; ++f) {
    herd_scenario sc = shepherd_scenario(f ? "arc" : "line");
    const float toward[2] = {c0[0] - 60, c0[1] - 10}; /* behind the group: theta_fm > 90 deg */
    herd_lien_group g = group_heading(20, 0.8);
    float h[2] = {(float)cos(20 * PI / 180), (float)sin(20 * PI / 180)}, pts[3][2], behind[3][2];
    CHECK(fabs(herd_lien_heading_error(&g, toward)) >= PI / 2);
    CHECK(herd_lien_push(&sc, &g, toward, 3, 0, pts) == HERD_MODE_STOP);
    /* The formation behind the group w.r.t. its heading, mirrored about the line through the
     * centre perpendicular to the heading: the same offsets across, R in front instead of behind. */
    herd_lien_formation(sc.shepherds.formation, c0, h, 4, 1, 3, behind);
    for (int i = 0; i < 3; ++i) {
      float hn[2] = {-h[1], h[0]};
      CHECK(near(along(pts[i], c0, h), -along(behind[i], c0, h), 1e-4) && along(pts[i], c0, h) > 0);
      CHECK(near(along(pts[i], c0, hn), along(behind[i], c0, hn), 1e-4));
    }
    CHECK(near(along(pts[1], c0, h), 5, 1e-4)); /* the middle one straight ahead of the group */
  }
}

static void a_lone_shepherd_sweeps_side_to_side(void) {
  herd_scenario sc = shepherd_scenario("arc");
  const float toward[2] = {c0[0] + 60 * u0[0], c0[1] + 60 * u0[1]};
  herd_lien_group g = group_heading(atan2(u0[1], u0[0]) * 180 / PI, 0.9);
  float pt[1][2];
  const uint32_t steps[] = {0, 10, 20, 30, 45}; /* period 40: offsets 0, +3, 0, -3, +3 sin(45 deg)... */
  const double offsets[] = {0, 3, 0, -3, 3 * sin(2 * PI * 45 / 40)};
  for (int i = 0; i < 5; ++i) {
    CHECK(herd_lien_push(&sc, &g, toward, 1, steps[i], pt) == HERD_MODE_SIDE);
    CHECK(near(along(pt[0], c0, u0), -5, 1e-4));
    CHECK_MSG(near(along(pt[0], c0, n0), offsets[i], 1e-4), "step %u: %g", steps[i], along(pt[0], c0, n0));
  }
  float two[2][2];
  CHECK(herd_lien_push(&sc, &g, toward, 2, 10, two) == HERD_MODE_STEER); /* two: in formation, no sweep */
}

static void a_group_without_heading_is_steered_straight(void) {
  herd_scenario sc = shepherd_scenario("line");
  const float toward[2] = {c0[0] - 60, c0[1]};
  herd_lien_group g = group_heading(0, 0.19); /* the milestone behind, but hardly any heading */
  float pts[2][2], base[2][2];
  const float back[2] = {-1, 0};
  CHECK(herd_lien_heading_error(&g, toward) == 0.0f);
  CHECK(herd_lien_push(&sc, &g, toward, 2, 0, pts) == HERD_MODE_STEER);
  herd_lien_formation(HERD_FORMATION_LINE, c0, back, 4, 1, 2, base);
  CHECK(near_point(pts[0], base[0][0], base[0][1], 1e-5) && near_point(pts[1], base[1][0], base[1][1], 1e-5));
  g = group_heading(0, 0.21);
  CHECK(herd_lien_push(&sc, &g, toward, 2, 0, pts) == HERD_MODE_STOP);
}

/* ---- Approaching ------------------------------------------------------------------------- */

/* Walks from `from` toward `point` by herd_lien_approach, 1.5 m a step; the closest it came to
 * the origin and whether it arrived within `steps`. */
static bool walk_around(uint32_t how, float from_x, float from_y, const float point[2], int steps, double *closest) {
  const float centre[2] = {0, 0};
  float pos[2] = {from_x, from_y};
  *closest = INFINITY;
  for (int s = 0; s < steps; ++s) {
    float via[2];
    herd_lien_approach(how, pos, point, centre, 10, 1.5f, via);
    double dx = via[0] - pos[0], dy = via[1] - pos[1], d = hypot(dx, dy), step = fmin(1.5, d);
    if (d > 0) pos[0] += (float)(step * dx / d), pos[1] += (float)(step * dy / d);
    *closest = fmin(*closest, hypot(pos[0], pos[1]));
    if (pos[0] == point[0] && pos[1] == point[1]) return true;
  }
  return false;
}

static void safe_zone_approach_goes_around_the_group(void) {
  const float behind[2] = {-12, 1}, centre[2] = {0, 0};
  double closest;
  /* From in front of the group to behind it: straight walks through it, the safe zone around. */
  CHECK(walk_around(HERD_APPROACH_STRAIGHT, 25, 0, behind, 100, &closest) && closest < 1);
  CHECK(walk_around(HERD_APPROACH_SAFE_ZONE, 25, 0, behind, 100, &closest));
  CHECK_MSG(closest > 10 - 0.05, "came %g m from the centre, the zone is 10", closest);
  CHECK(walk_around(HERD_APPROACH_SAFE_ZONE, 25, -0.5f, behind, 100, &closest) && closest > 9.95);
  /* A clear way: straight at the point. */
  float via[2];
  herd_lien_approach(HERD_APPROACH_SAFE_ZONE, (const float[2]){-30, 20}, behind, centre, 10, 1.5f, via);
  CHECK(via[0] == behind[0] && via[1] == behind[1]);
  /* Blocked: the tangent point on the circle of radius 10, the shorter way round (the point is
   * above the axis: counter-clockwise from (25, 0)). */
  herd_lien_approach(HERD_APPROACH_SAFE_ZONE, (const float[2]){25, 0}, behind, centre, 10, 1.5f, via);
  double a = acos(10.0 / 25);
  CHECK_MSG(near_point(via, 10 * cos(a), 10 * sin(a), 1e-4), "(%g, %g)", via[0], via[1]);
  /* On the circle: along its tangent, a step on. */
  herd_lien_approach(HERD_APPROACH_SAFE_ZONE, (const float[2]){10, 0}, behind, centre, 10, 1.5f, via);
  CHECK_MSG(near_point(via, 10, 1.5, 1e-4), "(%g, %g)", via[0], via[1]);
  /* A zone holding the point shrinks to the point's distance: the shepherd still arrives. */
  const float inside[2] = {-6, 0};
  CHECK(walk_around(HERD_APPROACH_SAFE_ZONE, 25, 0, inside, 100, &closest) && closest > 5.95);
}

/* ---- States and shares -------------------------------------------------------------------- */

static void flock_states_follow_groups_and_shepherds(void) {
  CHECK(herd_lien_flock_state(1, 3) == 1);
  CHECK(herd_lien_flock_state(1, 1) == 1);
  CHECK(herd_lien_flock_state(2, 3) == 2);
  CHECK(herd_lien_flock_state(3, 3) == 2);
  CHECK(herd_lien_flock_state(4, 3) == 3);
  CHECK(herd_lien_flock_state(2, 1) == 3);
}

static bool shares(uint32_t shepherds, uint32_t groups, const uint32_t *count, const uint32_t *want) {
  uint32_t out[HERD_MAX_GROUPS];
  herd_lien_share(shepherds, groups, count, out);
  bool same = true;
  for (uint32_t i = 0; i < groups; ++i) same = same && out[i] == want[i];
  if (!same) fprintf(stderr, "  share(%u): got %u %u %u\n", shepherds, out[0], out[1], groups > 2 ? out[2] : 0);
  return same;
}

static void shares_are_proportional_with_one_each_at_least(void) {
  /* Quotas 10 * (0.8, 0.1, 0.1) = (8, 1, 1): exact. */
  CHECK(shares(10, 3, (const uint32_t[]){80, 10, 10}, (const uint32_t[]){8, 1, 1}));
  /* 5 * (0.8, 0.1, 0.1) = (4, .5, .5): one each costs the large group a seat: (3, 1, 1). */
  CHECK(shares(5, 3, (const uint32_t[]){80, 10, 10}, (const uint32_t[]){3, 1, 1}));
  /* 3 * (0.98, .01, .01): one each, whatever the sizes. */
  CHECK(shares(3, 3, (const uint32_t[]){98, 1, 1}, (const uint32_t[]){1, 1, 1}));
  /* 6 * (.4, .35, .25) = (2.4, 2.1, 1.5): floors (2, 2, 1), the last seat to the largest remainder. */
  CHECK(shares(6, 3, (const uint32_t[]){40, 35, 25}, (const uint32_t[]){2, 2, 2}));
  /* 3 * (.5, .5) = (1.5, 1.5): equal remainders, the seat to the earlier group. */
  CHECK(shares(3, 2, (const uint32_t[]){50, 50}, (const uint32_t[]){2, 1}));
  /* 7 * (.6, .3, .1) = (4.2, 2.1, .7): (4, 2, 1). */
  CHECK(shares(7, 3, (const uint32_t[]){60, 30, 10}, (const uint32_t[]){4, 2, 1}));
}

/* A synthetic world: the scenario, an observation of the given groups and shepherds at the
 * given places, and a context over them. */
typedef struct world {
  herd_scenario sc;
  herd_observation obs;
  herd_steering_state agents[HERD_MAX_STEERING];
  herd_steer_context ctx;
} world;

static void world_init(world *w, uint32_t shepherds, const char *extra) {
  char count[48];
  snprintf(count, sizeof count, "agents[0].count=%u", shepherds);
  const char *sets[] = {"dogs.count=0", "agents[0].strategy=shepherd", count, "shepherds.formation=arc", extra};
  w->sc = scenario_with(sets, extra ? 5 : 4);
  memset(&w->obs, 0, sizeof w->obs);
  memset(w->agents, 0, sizeof w->agents);
  for (uint32_t i = 0; i < shepherds; ++i) {
    w->agents[i].strategy = HERD_STRATEGY_SHEPHERD;
    w->agents[i].speed_m_per_step = 1.5f;
    w->agents[i].pos[0] = 5.0f * (float)i, w->agents[i].pos[1] = 140;
  }
  w->ctx = herd_steer_context_for(&w->sc);
  w->ctx.obs = &w->obs, w->ctx.agents = w->agents, w->ctx.start = w->agents, w->ctx.agent_count = shepherds;
}

static void add_group(world *w, uint32_t count, double x, double y, float radius) {
  herd_group *g = &w->obs.group[w->obs.group_count];
  g->count = count, g->centroid[0] = x, g->centroid[1] = y, g->radius_m = radius;
  w->obs.group_count = ++w->obs.groups_tracked;
  w->obs.count += count;
}

static void one_group_gets_every_shepherd(void) {
  world w;
  world_init(&w, 3, NULL);
  add_group(&w, 50, 100, 100, 8);
  herd_lien_plan p;
  herd_lien_plan_make(&w.ctx, &p);
  CHECK(p.flock_state == 1 && p.group_count == 1 && p.on_group[0] == 3 && p.dominant == 0);
  bool taken[3] = {false};
  for (uint32_t i = 0; i < 3; ++i) {
    CHECK(p.point_group[i] == 0 && p.point_mode[i] == HERD_MODE_STEER);
    /* On the arc behind the group w.r.t. the target (0, 0): R = 8 + 5 from the centre, farther from T. */
    CHECK(near(hypot(p.point[i][0] - 100, p.point[i][1] - 100), 13, 1e-4));
    CHECK(hypot(p.point[i][0], p.point[i][1]) > hypot(100, 100));
    taken[p.assigned[i] % 3] = true;
  }
  CHECK(taken[0] && taken[1] && taken[2]);
}

static void a_dominant_group_is_held_and_the_others_brought(void) {
  world w;
  world_init(&w, 5, NULL);
  add_group(&w, 80, 100, 100, 10); /* 80 of 100: dominant */
  add_group(&w, 10, 40, 100, 3);
  add_group(&w, 10, 100, 30, 3);
  w.obs.group[0].heading[0] = 0.5f; /* the dominant group walks east */
  herd_lien_plan p;
  herd_lien_plan_make(&w.ctx, &p);
  CHECK(p.flock_state == 2 && p.dominant == 0);
  CHECK(p.on_group[0] == 3 && p.on_group[1] == 1 && p.on_group[2] == 1); /* (4, .5, .5) -> (3, 1, 1) */
  CHECK(p.merge_point[0] == 100 && p.merge_point[1] == 100);
  for (uint32_t i = 0; i < 5; ++i) {
    uint32_t g = p.point_group[i];
    CHECK(p.point_mode[i] == (g == 0 ? HERD_MODE_HOLD : HERD_MODE_MERGE));
    if (g == 0) /* in front of it, against its heading: east of its centre */
      CHECK(p.point[i][0] > 100 && near(hypot(p.point[i][0] - 100, p.point[i][1] - 100), 15, 1e-4));
  }
  /* The lone shepherds stand behind their groups as seen from the merge point (step 0: no sweep). */
  for (uint32_t i = 0; i < 5; ++i) {
    if (p.point_group[i] == 1) CHECK(near_point(p.point[i], 40 - 8, 100, 1e-4));
    if (p.point_group[i] == 2) CHECK(near_point(p.point[i], 100, 30 - 8, 1e-4));
  }
  /* Every shepherd took a different point. */
  bool taken[5] = {false};
  for (uint32_t i = 0; i < 5; ++i) taken[p.assigned[i] % 5] = true;
  CHECK(taken[0] && taken[1] && taken[2] && taken[3] && taken[4]);
  /* shepherds.hold = meet: behind the dominant group as seen from the others' centre,
   * (10 (40, 100) + 10 (100, 30)) / 20 = (70, 65), whatever its heading. */
  w.sc.shepherds.hold = HERD_HOLD_MEET;
  herd_lien_plan_make(&w.ctx, &p);
  const float u[2] = {-30 / 46.0977f, -35 / 46.0977f};
  for (uint32_t i = 0; i < 5; ++i)
    if (p.point_group[i] == 0)
      CHECK(p.point_mode[i] == HERD_MODE_HOLD && along(p.point[i], p.group[0].centre, u) < -7.4 &&
            near(hypot(p.point[i][0] - 100, p.point[i][1] - 100), 15, 1e-4));
}

static void without_a_dominant_group_all_go_to_one_milestone(void) {
  world w;
  world_init(&w, 6, NULL);
  add_group(&w, 40, 100, 100, 6);
  add_group(&w, 35, 60, 120, 6);
  add_group(&w, 25, 120, 50, 5);
  herd_lien_plan p;
  herd_lien_plan_make(&w.ctx, &p);
  CHECK(p.flock_state == 2 && p.dominant == -1);
  CHECK(p.on_group[0] == 2 && p.on_group[1] == 2 && p.on_group[2] == 2);
  /* The largest group's milestone, here the target. */
  CHECK(p.merge_point[0] == 0 && p.merge_point[1] == 0);
  for (uint32_t i = 0; i < 6; ++i) {
    const herd_lien_group *g = &p.group[p.point_group[i]];
    CHECK(p.point_mode[i] == HERD_MODE_MERGE);
    /* Behind its group as seen from the merge point. */
    CHECK(hypot(p.point[i][0], p.point[i][1]) > hypot(g->centre[0], g->centre[1]));
  }
}

static void more_groups_than_shepherds_farthest_first(void) {
  world w;
  world_init(&w, 2, NULL);
  add_group(&w, 30, 50, 50, 5);  /* 70.7 m from the merge point (0, 0) */
  add_group(&w, 30, 100, 10, 5); /* 100.5 m */
  add_group(&w, 20, 20, 20, 4);  /* 28.3 m */
  add_group(&w, 20, 10, 120, 4); /* 120.4 m */
  herd_lien_plan p;
  herd_lien_plan_make(&w.ctx, &p);
  CHECK(p.flock_state == 3 && p.dominant == -1);
  CHECK(p.on_group[3] == 1 && p.on_group[1] == 1 && p.on_group[0] == 0 && p.on_group[2] == 0);
  CHECK(p.point_group[0] == 3 && p.point_group[1] == 1); /* the farthest first */
  /* With a dominant group the merge point is its centre, 0 m away: it gets nobody in state 3. */
  world_init(&w, 2, NULL);
  add_group(&w, 70, 50, 50, 8);
  add_group(&w, 10, 100, 10, 3);
  add_group(&w, 10, 20, 20, 3);
  add_group(&w, 10, 10, 120, 3);
  herd_lien_plan_make(&w.ctx, &p);
  CHECK(p.flock_state == 3 && p.dominant == 0 && p.on_group[0] == 0);
  CHECK(p.on_group[3] == 1 && p.on_group[1] == 1); /* 86.0 and 80.6 m from (50, 50); group 2: 42.4 */
}

static void no_groups_observed_is_one_group_of_the_whole_flock(void) {
  world w;
  world_init(&w, 2, NULL);
  w.obs.count = 40, w.obs.centroid[0] = 60, w.obs.centroid[1] = 80, w.obs.farthest_dist_m = 12;
  herd_lien_plan p;
  herd_lien_plan_make(&w.ctx, &p);
  CHECK(p.flock_state == 1 && p.group_count == 1 && p.group[0].index == -1 && p.group[0].radius_m == 12);
  CHECK(p.group[0].heading[0] == 0 && p.group[0].heading[1] == 0);
  for (uint32_t i = 0; i < 2; ++i) CHECK(near(hypot(p.point[i][0] - 60, p.point[i][1] - 80), 17, 1e-4));
  herd_steering_state a = w.agents[1];
  herd_lien_shepherd_step(&w.ctx, 1, &a);
  CHECK(a.group == -1 && a.flock_state == 1 && a.mode == HERD_MODE_APPROACH && !isnan(a.aim[0]));
  CHECK(near(hypot(a.pos[0] - w.agents[1].pos[0], a.pos[1] - w.agents[1].pos[1]), 1.5, 1e-4));
  w.obs.count = 0; /* nothing left to herd */
  herd_lien_shepherd_step(&w.ctx, 1, &a);
  CHECK(a.mode == HERD_MODE_IDLE && isnan(a.aim[0]));
}

static void milestones_follow_the_route(void) {
  herd_scenario sc =
      shipped("pen-with-gate.json", (const char *[]){"agents[0].strategy=shepherd", "agents[0].count=2"}, 2);
  herd_steer_context ctx = herd_steer_context_for(&sc);
  CHECK(ctx.dog.route != NULL);
  herd_observation o;
  memset(&o, 0, sizeof o);
  o.count = 30, o.group_count = o.groups_tracked = 1;
  o.group[0].count = 30, o.group[0].centroid[0] = 0.8 * sc.world.size_m[0];
  o.group[0].centroid[1] = 0.8 * sc.world.size_m[1], o.group[0].radius_m = 7;
  ctx.obs = &o;
  herd_lien_group g[HERD_MAX_GROUPS];
  CHECK(herd_lien_groups(&ctx, g) == 1);
  float want[2], from[2] = {g[0].centre[0], g[0].centre[1]};
  CHECK(herd_route_waypoint(ctx.dog.route, from, 7 + sc.shepherds.margin_m, want));
  CHECK(g[0].milestone[0] == want[0] && g[0].milestone[1] == want[1]);
  CHECK(want[0] != sc.target.position_m[0] || want[1] != sc.target.position_m[1]); /* not the target itself */
  herd_steer_context_free(&ctx);
}

/* Three shepherds stepped one after another, in the order given, each reading the others as the
 * step began; their positions after. */
static void step_in_order(world *w, const uint32_t order[3], herd_steering_state out[3]) {
  herd_steering_state start[HERD_MAX_STEERING], now[HERD_MAX_STEERING];
  memcpy(start, w->agents, sizeof start);
  memcpy(now, w->agents, sizeof now);
  w->ctx.agents = now, w->ctx.start = start;
  for (int k = 0; k < 3; ++k) herd_lien_shepherd_step(&w->ctx, order[k], &now[order[k]]);
  memcpy(out, now, 3 * sizeof *out);
}

static void decisions_do_not_depend_on_the_order_of_moving(void) {
  for (uint32_t method = 0; method < 3; ++method) {
    world w;
    char set[48];
    snprintf(set, sizeof set, "shepherds.assignment=%s",
             method == 0   ? "projection"
             : method == 1 ? "greedy"
                           : "hungarian");
    world_init(&w, 3, set);
    add_group(&w, 50, 100, 100, 8);
    w.agents[0].pos[0] = 112, w.agents[0].pos[1] = 122; /* close to each other: moving changes distances */
    w.agents[1].pos[0] = 113, w.agents[1].pos[1] = 121;
    w.agents[2].pos[0] = 121, w.agents[2].pos[1] = 113;
    herd_steering_state a[3], b[3];
    step_in_order(&w, (const uint32_t[]){0, 1, 2}, a);
    step_in_order(&w, (const uint32_t[]){2, 1, 0}, b);
    for (int i = 0; i < 3; ++i) CHECK(memcmp(&a[i], &b[i], sizeof a[i]) == 0);
    CHECK(a[0].aim[0] != a[1].aim[0] && a[1].aim[0] != a[2].aim[0] && a[0].aim[0] != a[2].aim[0]);
  }
}

/* ---- Whole runs ---------------------------------------------------------------------------- */

/* The default field with `shepherds` shepherds (no Strömbom dog) at the dogs' corner. */
static herd_scenario field(uint32_t sheep, uint32_t shepherds, uint64_t seed, const char *extra) {
  char n[40], m[40], k[40], s[40];
  snprintf(n, sizeof n, "sheep.count=%u", sheep);
  snprintf(k, sizeof k, "agents[0].count=%u", shepherds);
  snprintf(s, sizeof s, "seed=%llu", (unsigned long long)seed);
  snprintf(m, sizeof m, "sheep.neighbours=%u", sheep > 50 ? 50 : sheep - 1);
  const char *sets[] = {"dogs.count=0", "agents[0].strategy=shepherd", "agents[0].speed_m_per_step=1.5", n, m, k, s,
                        extra};
  return scenario_with(sets, extra ? 8 : 7);
}

/* Three shepherds herd 30 sheep home in the default field, with the groups observed (view radius
 * 10 m, compact areas of R_f = 2 m). The dominant group is held by meeting the others
 * (shepherds.hold = meet): Strömbom sheep cannot be stopped, and with the paper's stop the
 * flock is lost in 6 of seeds 1-10 (meet: 1; docs/models/lien-shepherds.md). */
static void shepherds_herd_a_small_flock_home(void) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    herd_scenario sc = field(30, 3, seed, "shepherds.hold=meet");
    herd_sim *sim = sim_start(&sc, 1);
    herd_error err;
    while (herd_sim_outcome(sim) == HERD_RUNNING) CHECK(herd_sim_step(sim, &err) == HERD_OK);
    CHECK_MSG(herd_sim_outcome(sim) == HERD_SUCCEEDED, "seed %llu: %u of 30 delivered in %u steps",
              (unsigned long long)seed, herd_sim_observation(sim)->delivered, herd_sim_step_index(sim));
    herd_sim_destroy(sim);
  }
}

static double mean_pair_distance(const herd_sim *sim, uint32_t k) {
  double sum = 0;
  uint32_t pairs = 0;
  for (uint32_t i = 0; i < k; ++i)
    for (uint32_t j = i + 1; j < k; ++j, ++pairs) {
      const float *a = herd_sim_steering(sim, i)->pos, *b = herd_sim_steering(sim, j)->pos;
      sum += hypot(a[0] - b[0], a[1] - b[1]);
    }
  return sum / pairs;
}

/* The lowest and the average over a run, from step 100 on, of the mean distance between the
 * first three steering agents. */
static void spacing(const herd_scenario *sc, double *lowest, double *average) {
  herd_sim *sim = sim_start(sc, 1);
  herd_error err;
  double sum = 0;
  uint32_t steps = 0;
  *lowest = INFINITY;
  while (herd_sim_outcome(sim) == HERD_RUNNING) {
    CHECK(herd_sim_step(sim, &err) == HERD_OK);
    if (herd_sim_step_index(sim) < 100) continue;
    double d = mean_pair_distance(sim, 3);
    *lowest = fmin(*lowest, d), sum += d, ++steps;
  }
  *average = steps ? sum / steps : 0;
  herd_sim_destroy(sim);
}

/* Three shepherds on one flock of 100: the arc's three points are R apart at least (chords
 * 2 R sin 30 deg = R between neighbours, R sqrt 3 between the ends; R = r + epsilon >= epsilon =
 * 5 m), so the mean distance over the three pairs is 1.24 R >= 6.2 m once they stand in formation.
 * Bound: from step 100 on (the approach from one corner is over) the per-step mean never falls
 * below epsilon = 5 m, and its average over the run stays above 1.24 epsilon. Three Strömbom dogs
 * on the same flock fail it (they clump: 0.2 m at the closest, 1.5 m on average). */
static void shepherds_keep_apart_in_formation(void) {
  double lowest, average;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    herd_scenario sc = field(100, 3, seed, NULL);
    spacing(&sc, &lowest, &average);
    CHECK_MSG(lowest >= sc.shepherds.margin_m, "seed %llu: the mean fell to %.2f m", (unsigned long long)seed, lowest);
    CHECK_MSG(average >= 1.24 * sc.shepherds.margin_m, "seed %llu: %.2f m on average", (unsigned long long)seed,
              average);
  }
  herd_scenario dogs = scenario_with((const char *[]){"dogs.count=3"}, 1);
  spacing(&dogs, &lowest, &average);
  CHECK_MSG(lowest < dogs.shepherds.margin_m && average < 1.24 * dogs.shepherds.margin_m, "dogs: %.2f, %.2f m", lowest,
            average);
}

/* FNV-1a over every shepherd's state after every step of a 300-step run. */
static uint64_t trajectory_hash(uint64_t seed) {
  herd_scenario sc = field(60, 4, seed, "max_steps=300");
  herd_sim *sim = sim_start(&sc, 2);
  herd_error err;
  uint64_t h = 1469598103934665603ull;
  while (herd_sim_outcome(sim) == HERD_RUNNING) {
    CHECK(herd_sim_step(sim, &err) == HERD_OK);
    for (uint32_t i = 0; i < 4; ++i) h = fnv1a(h, herd_sim_steering(sim, i), sizeof(herd_steering_state));
  }
  herd_sim_destroy(sim);
  return h;
}

static void same_seed_same_shepherd_trajectories(void) {
  uint64_t a = trajectory_hash(7), b = trajectory_hash(7), c = trajectory_hash(8);
  CHECK(a == b);
  CHECK(a != c);
}

/* A flock of 3 sheep, spawned over the whole field so that they start apart, seen in groups of
 * view radius `view`; `shepherds` shepherds. */
static herd_scenario scattered(uint64_t seed, uint32_t shepherds) {
  char k[40], s[40];
  snprintf(k, sizeof k, "agents[0].count=%u", shepherds);
  snprintf(s, sizeof s, "seed=%llu", (unsigned long long)seed);
  const char *sets[] = {"dogs.count=0",
                        "agents[0].strategy=shepherd",
                        "agents[0].speed_m_per_step=1.5",
                        k,
                        s,
                        "sheep.count=3",
                        "sheep.neighbours=2",
                        "sheep.spawn.from=[0.2,0.2]",
                        "sheep.spawn.to=[0.9,0.9]",
                        "groups.view_radius_m=8",
                        "groups.member_radius_m=0",
                        "agents[0].position_m=[75,5]"};
  return scenario_with(sets, 12);
}

/* Group sizes of the first observation, largest first ({2, 1, 0}: a pair and one apart). */
static bool starts_as(const herd_sim *sim, uint32_t a, uint32_t b, uint32_t c) {
  const herd_observation *o = herd_sim_observation(sim);
  uint32_t n[3] = {0, 0, 0};
  for (uint32_t i = 0; i < o->groups_tracked && i < 3; ++i) n[i] = o->group[i].count;
  return o->group_count == (uint32_t)((a > 0) + (b > 0) + (c > 0)) && n[0] == a && n[1] == b && n[2] == c;
}

/* The first seed whose flock starts in the given groups with the given shepherds; 0 if none. */
static uint64_t seed_starting_as(uint32_t shepherds, uint32_t a, uint32_t b, uint32_t c) {
  for (uint64_t seed = 1; seed < 300; ++seed) {
    herd_scenario sc = scattered(seed, shepherds);
    herd_sim *sim = sim_start(&sc, 1);
    bool found = starts_as(sim, a, b, c);
    herd_sim_destroy(sim);
    if (found) return seed;
  }
  return 0;
}

/* What the shepherds of a run were seen doing, step by step: the plan they follow, recomputed
 * here from the observation and the steering agents as each step began. */
typedef struct seen {
  bool state[4];         /* flock states reported */
  bool hold_on_dominant; /* in state 2, a shepherd holding the dominant group 0 (planned mode HOLD) */
  bool merge_in[4];      /* a shepherd bringing a group in (planned mode MERGE), by state */
  bool split_first;      /* after the first step, the shepherds work on different groups */
  bool followed;         /* every shepherd's aim was its planned point, its group the plan's */
  uint32_t steps;
} seen;

/* One step of the run, checked against the plan computed from its start. */
static void watch_step(herd_sim *sim, herd_steer_context *ctx, uint32_t shepherds, seen *w) {
  herd_observation obs = *herd_sim_observation(sim);
  herd_steering_state start[HERD_MAX_STEERING];
  for (uint32_t i = 0; i < shepherds; ++i) start[i] = *herd_sim_steering(sim, i);
  ctx->obs = &obs, ctx->agents = ctx->start = start, ctx->agent_count = shepherds;
  ctx->step = herd_sim_step_index(sim);
  herd_lien_plan plan;
  herd_lien_plan_make(ctx, &plan);
  herd_error err;
  CHECK(herd_sim_step(sim, &err) == HERD_OK);
  bool on[HERD_MAX_GROUPS] = {false}, split = true;
  for (uint32_t i = 0; i < shepherds; ++i) {
    const herd_steering_state *a = herd_sim_steering(sim, i);
    uint32_t j = plan.assigned[i], g = plan.point_group[j], st = plan.flock_state;
    w->followed = w->followed && a->aim[0] == plan.point[j][0] && a->aim[1] == plan.point[j][1] &&
                  a->group == plan.group[g].index && a->flock_state == st;
    w->state[st] = true;
    w->hold_on_dominant = w->hold_on_dominant || (st == 2 && plan.point_mode[j] == HERD_MODE_HOLD && g == 0);
    w->merge_in[st] = w->merge_in[st] || plan.point_mode[j] == HERD_MODE_MERGE;
    split = split && !on[g], on[g] = true;
  }
  if (++w->steps == 1) w->split_first = split;
}

static seen watch(uint64_t seed, uint32_t shepherds, uint32_t max_steps) {
  herd_scenario sc = scattered(seed, shepherds);
  herd_sim *sim = sim_start(&sc, 1);
  herd_steer_context ctx = herd_steer_context_for(herd_sim_scenario(sim));
  seen w = {.followed = true};
  while (herd_sim_outcome(sim) == HERD_RUNNING && w.steps < max_steps) watch_step(sim, &ctx, shepherds, &w);
  herd_steer_context_free(&ctx);
  herd_sim_destroy(sim);
  return w;
}

static void merging_states_are_reached_and_acted_on(void) {
  /* State 2 with a dominant group: a pair and a single sheep apart, 2 shepherds: one each
   * (shares (1.33, .67) -> (1, 1)); the pair's shepherd holds it (HOLD), the other brings the
   * single sheep to it (MERGE). */
  uint64_t seed = seed_starting_as(2, 2, 1, 0);
  CHECK_MSG(seed != 0, "no seed starts as a pair and a single sheep (are groups observed?)");
  if (seed) {
    seen w = watch(seed, 2, 400);
    CHECK(w.followed && w.state[2] && w.split_first && w.hold_on_dominant && w.merge_in[2] && w.state[1]);
  }
  /* State 3: three single sheep apart, 2 shepherds: the two farthest from the merge point get one
   * shepherd each and bring them in. */
  seed = seed_starting_as(2, 1, 1, 1);
  CHECK_MSG(seed != 0, "no seed starts as three single sheep");
  if (seed) {
    seen w = watch(seed, 2, 400);
    CHECK(w.followed && w.state[3] && w.split_first && w.merge_in[3]);
  }
  /* State 2 without a dominant group, then state 1: three single sheep, 3 shepherds, one on each,
   * brought together and then herded home as one group. */
  seed = seed_starting_as(3, 1, 1, 1);
  if (seed) {
    seen w = watch(seed, 3, 5000);
    CHECK(w.followed && w.state[2] && w.split_first && w.merge_in[2] && w.state[1]);
  }
}

int main(void) { TEST_MAIN(TESTS); }
