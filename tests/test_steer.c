/* Steering agents from hand-made observations: the Strömbom dog's decisions, the cruiser,
 * the pursuer, and an agent the user steers. */
#include <math.h>

#include "sim/goal.h"
#include "sim_util.h"
#include "steer/steer.h"
#include "test.h"

#define TESTS(X)                              \
  X(waits_while_a_sheep_is_within_3_ra)       \
  X(drives_a_cohesive_flock)                  \
  X(collects_the_farthest_sheep)              \
  X(cohesion_threshold_is_ra_n_two_thirds)    \
  X(within_reach_caps_f_of_n_at_r_s)          \
  X(stop_near_centre_waits_within_f_of_g)     \
  X(with_removal_n_is_the_sheep_left)         \
  X(success_rules_decide_the_goal)            \
  X(removal_observation_is_of_the_sheep_left) \
  X(step_is_delta_s_toward_the_aim)           \
  X(noise_turns_the_step_by_at_most_asin_e)   \
  X(a_user_steered_dog_follows_its_aim)       \
  X(a_cruiser_goes_straight_through_the_wrap) \
  X(a_pursuer_closes_on_the_nearest_agent)    \
  X(a_manual_agent_waits_for_the_user)        \
  X(a_team_of_one_is_the_papers_dog)          \
  X(a_team_shares_the_sectors_by_angle)       \
  X(a_team_drives_spread_behind_the_flock)    \
  X(a_team_gathers_within_kappa_ra_sqrt_n)    \
  X(a_team_drives_within_c_of_the_edge)       \
  X(an_arc_spreads_the_dogs_over_delta)       \
  X(an_arc_dog_goes_around_the_flock)         \
  X(a_ring_presses_in_along_each_ray)         \
  X(a_ring_dog_comes_in_while_going_around)
TESTS(DECLARE_TEST)

static herd_strombom_dog_params params(uint32_t n) {
  return (herd_strombom_dog_params){
      .repulsion_radius_m = 2, .sheep_count = n, .target_m = {0, 0}, .speed_m_per_step = 1.5f, .noise = 0};
}

static const float dog_at[2] = {20, 20}; /* where the dog is when only its aim is asked */

/* A flock centred at (50, 50), farthest sheep at (50 + far, 50), nearest sheep 30 m from the dog. */
static herd_observation obs_with(float far) {
  herd_observation o;
  memset(&o, 0, sizeof o);
  o.count = 100;
  o.centroid[0] = o.centroid[1] = 50;
  o.farthest_pos[0] = 50 + far, o.farthest_pos[1] = 50, o.farthest_dist_m = far;
  o.steering_count = 1;
  o.nearest[0].dist_m = 30;
  return o;
}

/* A flock of 100 about G = (50, 50) whose sector k's farthest sheep (id 10 + k) lies at the angle
 * 45 k + offset_deg degrees (in sector k for offsets in [0, 45)), dist[k] m from G; the flock's
 * farthest is the farthest of them. */
static herd_observation sectored(const float dist[HERD_SECTORS], float offset_deg) {
  herd_observation o = obs_with(0);
  for (uint32_t k = 0; k < HERD_SECTORS; ++k) {
    float a = (45.0f * (float)k + offset_deg) * 0.0174532925f;
    herd_sector *sec = &o.sector[k];
    sec->count = 12;
    sec->farthest_id = 10 + k;
    sec->farthest_pos[0] = 50 + dist[k] * cosf(a), sec->farthest_pos[1] = 50 + dist[k] * sinf(a);
    sec->farthest_dist_m = dist[k];
    if (dist[k] > o.farthest_dist_m) {
      o.farthest_dist_m = dist[k], o.farthest_id = sec->farthest_id;
      o.farthest_pos[0] = sec->farthest_pos[0], o.farthest_pos[1] = sec->farthest_pos[1];
    }
  }
  return o;
}

static herd_strombom_dog_params team(uint32_t n, uint32_t dogs) {
  herd_strombom_dog_params p = params(n);
  p.team = HERD_DOG_TEAM_SECTORS, p.dog_count = dogs, p.team_compact = 1.5f, p.team_margin = 3.0f;
  p.team_reach_m = 1.0e9f; /* no cap: the paper's r_a sqrt(N) behind G stands */
  return p;
}

/* dogs.team = sectors with one dog, its gathering radius no nearer than f(N) (kappa large):
 * the paper's dog's mode and aim, for flocks it collects from (a sheep beyond f(N) = 43.1 m) and
 * compact ones it drives (every sheep within r_a sqrt(N) - m r_a = 14 m of G). */
static void a_team_of_one_is_the_papers_dog(void) {
  herd_strombom_dog_params alone = params(100), one = team(100, 1);
  one.team_compact = 1000.0f;
  for (uint32_t trial = 0; trial < 200; ++trial) {
    float dist[HERD_SECTORS];
    for (uint32_t k = 0; k < HERD_SECTORS; ++k)
      dist[k] = trial % 2 ? 5.0f + (float)((trial * 37u + k * 11u) % 60u) : 2.0f + (float)((trial + k * 5u) % 12u);
    herd_observation o = sectored(dist, (float)(trial % 45u));
    herd_dog_aim a = herd_strombom_dog_aim(&alone, &o, 0, dog_at), b = herd_strombom_dog_aim(&one, &o, 0, dog_at);
    CHECK_MSG(a.mode == b.mode && fabsf(a.point[0] - b.point[0]) < 1e-4f && fabsf(a.point[1] - b.point[1]) < 1e-4f,
              "trial %u: alone %d (%g, %g), team of one %d (%g, %g)", trial, a.mode, (double)a.point[0],
              (double)a.point[1], b.mode, (double)b.point[0], (double)b.point[1]);
  }
}

/* Every sector beyond f(N) (f(100) = 43.1 m): with T at (0, 50), straight away from it is +x, so
 * dog i of 8 holds the angles within 22.5 degrees of 45 i and collects sector i's sheep (at
 * 45 i + 10); of 2 dogs, dog 0 holds the back half (sectors 0, 1, 6, 7 at 10, 55, 280, 325
 * degrees: the farthest of them) and dog 1 the front. Each dog's choice is the same asked in
 * any order. */
static void a_team_shares_the_sectors_by_angle(void) {
  const float dist[HERD_SECTORS] = {50, 60, 70, 80, 90, 55, 65, 75};
  herd_observation o = sectored(dist, 10.0f);
  const float toward[2] = {0, 50};
  herd_strombom_dog_params eight = team(100, 8), two = team(100, 2);
  float gathered = herd_strombom_dog_gathered_m(&eight, &o);
  for (int i = 7; i >= 0; --i)
    CHECK_MSG(herd_strombom_team_sector(&eight, &o, (uint32_t)i, toward, gathered) == i, "dog %d of 8 takes %d", i,
              herd_strombom_team_sector(&eight, &o, (uint32_t)i, toward, gathered));
  CHECK(herd_strombom_team_sector(&two, &o, 0, toward, gathered) == 7); /* 75 m at 325 degrees */
  CHECK(herd_strombom_team_sector(&two, &o, 1, toward, gathered) == 4); /* 90 m at 190 degrees */
  /* Sector 7 within f(N): dog 7 of 8 has nothing to collect, the others keep theirs. */
  o.sector[7].farthest_dist_m = 40.0f;
  CHECK(herd_strombom_team_sector(&eight, &o, 7, toward, gathered) == -1);
  CHECK(herd_strombom_team_sector(&eight, &o, 6, toward, gathered) == 6);
  CHECK(herd_strombom_team_sector(&two, &o, 0, toward, gathered) == 6); /* then 65 m at 280 */
  /* A sector left out of the observation (count UINT32_MAX) is no one's. */
  o.sector[6].count = UINT32_MAX;
  CHECK(herd_strombom_team_sector(&eight, &o, 6, toward, gathered) == -1);
}

/* A gathered flock (every sector's farthest within kappa r_a sqrt(N) = 30 m): the dogs drive from
 * r_a sqrt(N) = 20 m behind G, spread over a quarter turn: of 3 with T at (0, 50), at -45, 0 and
 * 45 degrees from +x; but dog 0's direction lies in sector 7 (a border opens its sector), whose
 * farthest sheep is 24 m out, so it stands m r_a = 6 m beyond: 30 m from G. */
static void a_team_drives_spread_behind_the_flock(void) {
  const float dist[HERD_SECTORS] = {10, 12, 14, 16, 18, 20, 22, 24};
  herd_observation o = sectored(dist, 10.0f);
  herd_strombom_dog_params three = team(100, 3);
  three.target_m[0] = 0, three.target_m[1] = 50;
  o.steering_count = 3, o.nearest[1].dist_m = o.nearest[2].dist_m = 30; /* none waits */
  for (uint32_t i = 0; i < 3; ++i) {
    herd_dog_aim aim = herd_strombom_dog_aim(&three, &o, i, dog_at);
    float a = ((float)i - 1.0f) * 0.785398163f, r = i == 0 ? 30.0f : 20.0f;
    CHECK_MSG(aim.mode == HERD_MODE_DRIVE && fabsf(aim.point[0] - (50 + r * cosf(a))) < 1e-3f &&
                  fabsf(aim.point[1] - (50 + r * sinf(a))) < 1e-3f,
              "dog %u: mode %d at (%g, %g)", i, aim.mode, (double)aim.point[0], (double)aim.point[1]);
  }
}

/* A sheep 35 m out: within f(100) = 43.1 m, so the paper's dog drives; beyond kappa r_a sqrt(N)
 * = 30 m, so a team of two collects it (dog 1: it lies ahead, toward T at (0, 50)). */
static void a_team_gathers_within_kappa_ra_sqrt_n(void) {
  const float dist[HERD_SECTORS] = {10, 12, 14, 16, 35, 20, 22, 24};
  herd_observation o = sectored(dist, 10.0f);
  o.steering_count = 2, o.nearest[1].dist_m = 30;
  herd_strombom_dog_params alone = params(100), two = team(100, 2);
  alone.target_m[0] = two.target_m[0] = 0, alone.target_m[1] = two.target_m[1] = 50;
  CHECK(herd_strombom_dog_aim(&alone, &o, 0, dog_at).mode == HERD_MODE_DRIVE);
  herd_dog_aim aim = herd_strombom_dog_aim(&two, &o, 1, dog_at);
  float a = 190.0f * 0.0174532925f;
  CHECK_MSG(aim.mode == HERD_MODE_COLLECT && fabsf(aim.point[0] - (50 + 37 * cosf(a))) < 1e-3f &&
                fabsf(aim.point[1] - (50 + 37 * sinf(a))) < 1e-3f,
            "mode %d at (%g, %g)", aim.mode, (double)aim.point[0], (double)aim.point[1]);
  CHECK(herd_strombom_dog_aim(&two, &o, 0, dog_at).mode == HERD_MODE_DRIVE);
  two.team_compact = 2.0f; /* 40 m: gathered */
  CHECK(herd_strombom_dog_aim(&two, &o, 1, dog_at).mode == HERD_MODE_DRIVE);
}

/* A packed flock of 10^4 whose every sector's farthest sheep is 100 m from G: the paper's
 * r_a sqrt(N) = 200 m behind G is 100 m beyond its back, out of the sheep's reach (r_s = 65 m);
 * with c = 20 m a lone driving dog stands 120 m behind G, and never nearer than m r_a = 6 m
 * beyond the back (c = 1 m: 106 m). */
static void a_team_drives_within_c_of_the_edge(void) {
  const float dist[HERD_SECTORS] = {100, 100, 100, 100, 100, 100, 100, 100};
  herd_observation o = sectored(dist, 10.0f);
  herd_strombom_dog_params one = team(10000, 1);
  one.target_m[0] = 0, one.target_m[1] = 50, one.team_compact = 1000.0f; /* gathered: it drives */
  const float want[3] = {200, 120, 106}, reach[3] = {1.0e9f, 20, 1};
  for (int k = 0; k < 3; ++k) {
    one.team_reach_m = reach[k];
    herd_dog_aim aim = herd_strombom_dog_aim(&one, &o, 0, dog_at);
    CHECK_MSG(
        aim.mode == HERD_MODE_DRIVE && fabsf(aim.point[0] - (50 + want[k])) < 1e-3f && fabsf(aim.point[1] - 50) < 1e-3f,
        "c = %g: mode %d at (%g, %g), want (%g, 50)", (double)reach[k], aim.mode, (double)aim.point[0],
        (double)aim.point[1], (double)(50 + want[k]));
  }
}

static herd_strombom_dog_params arc(uint32_t dogs, float delta_deg) {
  herd_strombom_dog_params p = team(100, dogs);
  p.team = HERD_DOG_TEAM_ARC, p.arc_rad = delta_deg * 0.0174532925f;
  p.target_m[0] = 0, p.target_m[1] = 50; /* straight away from T is +x */
  return p;
}

/* dogs.team = arc, Delta = 120 degrees, 4 dogs: at -60, -20, 20 and 60 degrees from +x about G,
 * each m r_a = 6 m beyond the farthest sheep of the sector its direction points into (sector k
 * holds 45 k .. 45 (k + 1) degrees; its sheep lie at 45 k + 10), whatever a sheep's distance
 * from G (no dog collects); one dog stands straight behind. Each dog's slot is where it
 * heads when it is already there, so asked in any order. */
static void an_arc_spreads_the_dogs_over_delta(void) {
  const float dist[HERD_SECTORS] = {10, 12, 14, 16, 80, 20, 22, 24};
  herd_observation o = sectored(dist, 10.0f);
  o.steering_count = 4;
  herd_strombom_dog_params four = arc(4, 120.0f), one = arc(1, 120.0f);
  const float want_deg[4] = {-60, -20, 20, 60}, want_r[4] = {22 + 6, 24 + 6, 10 + 6, 12 + 6};
  for (int i = 3; i >= 0; --i) {
    o.nearest[i].dist_m = 30; /* none waits */
    float a = want_deg[i] * 0.0174532925f, at[2] = {50 + want_r[i] * cosf(a), 50 + want_r[i] * sinf(a)};
    herd_dog_aim aim = herd_strombom_dog_aim(&four, &o, (uint32_t)i, at);
    CHECK_MSG(aim.mode == HERD_MODE_DRIVE && fabsf(aim.point[0] - at[0]) < 1e-3f && fabsf(aim.point[1] - at[1]) < 1e-3f,
              "dog %d: mode %d at (%g, %g), want (%g, %g)", i, aim.mode, (double)aim.point[0], (double)aim.point[1],
              (double)at[0], (double)at[1]);
  }
  const float behind[2] = {50 + 16, 50};
  herd_dog_aim aim = herd_strombom_dog_aim(&one, &o, 0, behind);
  CHECK(aim.mode == HERD_MODE_DRIVE && fabsf(aim.point[0] - 66) < 1e-3f && fabsf(aim.point[1] - 50) < 1e-3f);
}

/* A dog on the flock's far side from its slot (straight behind, +x) does not head through the
 * flock: it heads a twelfth of a turn on about G, on the wider of its own circle and the slot's,
 * the shorter way round (from 150 degrees, to 120). Within a twelfth of a turn it heads for the
 * slot itself. */
static void an_arc_dog_goes_around_the_flock(void) {
  const float dist[HERD_SECTORS] = {10, 12, 14, 16, 18, 20, 22, 24};
  herd_observation o = sectored(dist, 10.0f);
  herd_strombom_dog_params one = arc(1, 90.0f);
  float a = 150.0f * 0.0174532925f, far[2] = {50 + 40 * cosf(a), 50 + 40 * sinf(a)};
  herd_dog_aim aim = herd_strombom_dog_aim(&one, &o, 0, far);
  float b = 120.0f * 0.0174532925f;
  CHECK_MSG(fabsf(aim.point[0] - (50 + 40 * cosf(b))) < 1e-3f && fabsf(aim.point[1] - (50 + 40 * sinf(b))) < 1e-3f,
            "(%g, %g)", (double)aim.point[0], (double)aim.point[1]);
  a = -150.0f * 0.0174532925f, b = -120.0f * 0.0174532925f;
  float below[2] = {50 + 5 * cosf(a), 50 + 5 * sinf(a)}; /* inside the slot's circle (16 m): out to it */
  aim = herd_strombom_dog_aim(&one, &o, 0, below);
  CHECK_MSG(fabsf(aim.point[0] - (50 + 16 * cosf(b))) < 1e-3f && fabsf(aim.point[1] - (50 + 16 * sinf(b))) < 1e-3f,
            "(%g, %g)", (double)aim.point[0], (double)aim.point[1]);
  a = 25.0f * 0.0174532925f;
  float near_slot[2] = {50 + 30 * cosf(a), 50 + 30 * sinf(a)};
  aim = herd_strombom_dog_aim(&one, &o, 0, near_slot);
  CHECK(fabsf(aim.point[0] - 66) < 1e-3f && fabsf(aim.point[1] - 50) < 1e-3f);
}

static herd_strombom_dog_params ring(uint32_t dogs, float delta_deg) {
  herd_strombom_dog_params p = arc(dogs, delta_deg);
  p.team = HERD_DOG_TEAM_RING, p.dog_radius_m = 65.0f;
  return p;
}

/* dogs.team = ring, Delta = 240 degrees, 5 dogs: at -120, -60, 0, 60 and 120 degrees from +x
 * about G (in sectors 5, 6, 0, 1, 2), each heading in along its ray to r_s / 2 = 32.5 m inside
 * the farthest sheep of that sector, or to r_a = 2 m from G where that is nearer (a sector
 * whose farthest sheep is within r_s / 2: the dog walks in until the paper's stop rule holds
 * it); from anywhere on its ray, however far out, so asked in any order. */
static void a_ring_presses_in_along_each_ray(void) {
  const float dist[HERD_SECTORS] = {30, 100, 14, 16, 18, 90, 60, 24};
  herd_observation o = sectored(dist, 10.0f);
  o.steering_count = 5;
  herd_strombom_dog_params five = ring(5, 240.0f);
  const float want_deg[5] = {-120, -60, 0, 60, 120}, want_r[5] = {57.5f, 27.5f, 2, 67.5f, 2};
  for (int i = 4; i >= 0; --i) {
    o.nearest[i].dist_m = 30; /* none waits */
    float a = want_deg[i] * 0.0174532925f, c = cosf(a), s = sinf(a);
    const float from[2] = {50 + 300 * c, 50 + 300 * s};
    herd_dog_aim aim = herd_strombom_dog_aim(&five, &o, (uint32_t)i, from);
    float want[2] = {50 + want_r[i] * c, 50 + want_r[i] * s};
    CHECK_MSG(
        aim.mode == HERD_MODE_DRIVE && fabsf(aim.point[0] - want[0]) < 1e-3f && fabsf(aim.point[1] - want[1]) < 1e-3f,
        "dog %d: mode %d at (%g, %g), want (%g, %g)", i, aim.mode, (double)aim.point[0], (double)aim.point[1],
        (double)want[0], (double)want[1]);
  }
  o.nearest[2].dist_m = 5; /* a sheep within 3 r_a: the paper's dog stands still */
  CHECK(herd_strombom_dog_aim(&five, &o, 2, dog_at).mode == HERD_MODE_WAIT);
}

/* A ring dog 400 m out on the far side from its ray (+x) goes around the flock a twelfth of a
 * turn at a time on the circle m r_a beyond the edge there (30 + 6 m), coming in as it goes, where
 * an arc's dog keeps to its own wider circle. */
static void a_ring_dog_comes_in_while_going_around(void) {
  const float dist[HERD_SECTORS] = {30, 12, 14, 16, 18, 20, 22, 24};
  herd_observation o = sectored(dist, 10.0f);
  herd_strombom_dog_params one = ring(1, 270.0f);
  float a = 150.0f * 0.0174532925f, b = 120.0f * 0.0174532925f, far[2] = {50 + 400 * cosf(a), 50 + 400 * sinf(a)};
  herd_dog_aim aim = herd_strombom_dog_aim(&one, &o, 0, far);
  CHECK_MSG(fabsf(aim.point[0] - (50 + 36 * cosf(b))) < 1e-3f && fabsf(aim.point[1] - (50 + 36 * sinf(b))) < 1e-3f,
            "(%g, %g)", (double)aim.point[0], (double)aim.point[1]);
  one.team = HERD_DOG_TEAM_ARC;
  aim = herd_strombom_dog_aim(&one, &o, 0, far);
  CHECK(fabsf(aim.point[0] - (50 + 400 * cosf(b))) < 1e-2f && fabsf(aim.point[1] - (50 + 400 * sinf(b))) < 1e-2f);
}

static void waits_while_a_sheep_is_within_3_ra(void) {
  herd_strombom_dog_params p = params(100);
  herd_observation o = obs_with(10);
  o.nearest[0].dist_m = 5.9f;
  herd_steering_state dog = {.mode = HERD_MODE_DRIVE, .pos = {20, 20}, .heading = {1, 0}};
  herd_strombom_dog_step(&p, &o, 0, 1, 0, &dog);
  CHECK(dog.mode == HERD_MODE_WAIT);
  CHECK(dog.pos[0] == 20 && dog.pos[1] == 20);
  o.nearest[0].dist_m = 6.0f; /* 3 r_a exactly: free to move */
  herd_strombom_dog_step(&p, &o, 0, 1, 0, &dog);
  CHECK(dog.mode != HERD_MODE_WAIT);
}

static void drives_a_cohesive_flock(void) {
  herd_strombom_dog_params p = params(100);
  herd_observation o = obs_with(10);
  herd_dog_aim aim = herd_strombom_dog_aim(&p, &o, 0, dog_at);
  CHECK(aim.mode == HERD_MODE_DRIVE);
  /* G + r_a sqrt(N) unit(G - T) = (50, 50) + 20 (1, 1)/sqrt(2) */
  CHECK(fabsf(aim.point[0] - (50 + 20 / sqrtf(2))) < 1e-4f && fabsf(aim.point[1] - (50 + 20 / sqrtf(2))) < 1e-4f);
}

static void collects_the_farthest_sheep(void) {
  herd_strombom_dog_params p = params(100);
  herd_observation o = obs_with(50);
  herd_dog_aim aim = herd_strombom_dog_aim(&p, &o, 0, dog_at);
  CHECK(aim.mode == HERD_MODE_COLLECT);
  /* A_far + r_a unit(A_far - G) = (100, 50) + 2 (1, 0) */
  CHECK(fabsf(aim.point[0] - 102) < 1e-4f && fabsf(aim.point[1] - 50) < 1e-4f);
}

static void cohesion_threshold_is_ra_n_two_thirds(void) {
  herd_strombom_dog_params p = params(8); /* f(8) = 2 * 8^(2/3) = 8 */
  herd_observation o = obs_with(7.99f);
  CHECK(herd_strombom_dog_aim(&p, &o, 0, dog_at).mode == HERD_MODE_DRIVE);
  o = obs_with(8.01f);
  CHECK(herd_strombom_dog_aim(&p, &o, 0, dog_at).mode == HERD_MODE_COLLECT);
}

/* dogs.gathered = within_reach: gathered within min(f(N), r_s). f(512) = 2 * 64 = 128 m > r_s =
 * 65 m; f(64) = 32 m < r_s. */
static void within_reach_caps_f_of_n_at_r_s(void) {
  herd_strombom_dog_params paper = params(512), reach = params(512);
  reach.gathered = HERD_DOG_GATHERED_WITHIN_REACH, reach.dog_radius_m = 65;
  paper.dog_radius_m = 65;
  herd_observation o = obs_with(100);
  CHECK(fabsf(herd_strombom_dog_gathered_m(&paper, &o) - 128) < 1e-3f);
  CHECK(fabsf(herd_strombom_dog_gathered_m(&reach, &o) - 65) < 1e-6f);
  CHECK(herd_strombom_dog_aim(&paper, &o, 0, dog_at).mode == HERD_MODE_DRIVE);
  herd_dog_aim aim = herd_strombom_dog_aim(&reach, &o, 0, dog_at);
  CHECK(aim.mode == HERD_MODE_COLLECT && fabsf(aim.point[0] - 152) < 1e-4f && fabsf(aim.point[1] - 50) < 1e-4f);
  o = obs_with(64.9f);
  CHECK(herd_strombom_dog_aim(&reach, &o, 0, dog_at).mode == HERD_MODE_DRIVE);
  herd_strombom_dog_params small = params(64);
  small.gathered = HERD_DOG_GATHERED_WITHIN_REACH, small.dog_radius_m = 65;
  CHECK(fabsf(herd_strombom_dog_gathered_m(&small, &o) - 32) < 1e-3f); /* below r_s: the paper's f(N) */
}

/* dogs.stop = near_sheep_or_centre: the dog also stands still within f(N) of G (authors'
 * 2020 code); f(100) = 2 * 100^(2/3) = 43.09 m. */
static void stop_near_centre_waits_within_f_of_g(void) {
  herd_strombom_dog_params p = params(100);
  herd_observation o = obs_with(10);
  const float close[2] = {50, 93}, beyond[2] = {50, 93.2f};
  CHECK(herd_strombom_dog_aim(&p, &o, 0, close).mode == HERD_MODE_DRIVE); /* the paper's dog */
  p.stop = HERD_DOG_STOP_NEAR_SHEEP_OR_CENTRE;
  CHECK(herd_strombom_dog_aim(&p, &o, 0, close).mode == HERD_MODE_WAIT);
  CHECK(herd_strombom_dog_aim(&p, &o, 0, beyond).mode == HERD_MODE_DRIVE);
  o = obs_with(50); /* scattered: waits all the same, as that code does */
  CHECK(herd_strombom_dog_aim(&p, &o, 0, close).mode == HERD_MODE_WAIT);
  herd_steering_state dog = {.pos = {50, 93}, .heading = {1, 0}};
  herd_strombom_dog_step(&p, &o, 0, 1, 0, &dog);
  CHECK(dog.mode == HERD_MODE_WAIT && dog.pos[0] == 50 && dog.pos[1] == 93);
}

/* With removal the dog's N is the sheep left: 8 of 100, so f = 2 * 8^(2/3) = 8 m and the
 * drive point is r_a sqrt(8) behind G. */
static void with_removal_n_is_the_sheep_left(void) {
  herd_strombom_dog_params p = params(100);
  herd_observation o = obs_with(8.01f);
  o.delivered = 92;
  CHECK(herd_strombom_dog_aim(&p, &o, 0, dog_at).mode == HERD_MODE_DRIVE); /* N = 100: f = 43 m */
  p.count_remaining = true;
  CHECK(herd_strombom_dog_aim(&p, &o, 0, dog_at).mode == HERD_MODE_COLLECT);
  o.farthest_dist_m = 7.99f;
  herd_dog_aim aim = herd_strombom_dog_aim(&p, &o, 0, dog_at);
  float behind = 2 * sqrtf(8) / sqrtf(2);
  CHECK(aim.mode == HERD_MODE_DRIVE && fabsf(aim.point[0] - (50 + behind)) < 1e-4f);
}

/* The goal of a scenario: every sheep delivered, or the centroid within the goal radius. */
static void success_rules_decide_the_goal(void) {
  herd_observation o = obs_with(10);
  o.centroid[0] = 10.5, o.centroid[1] = 10.5; /* 14.85 m from the target (0, 0) */
  o.delivered = 99;
  herd_scenario all = scenario_with(NULL, 0);
  herd_scenario centroid = scenario_with((const char *[]){"sheep.success=centroid_in_goal"}, 1);
  herd_scenario removal = scenario_with((const char *[]){"sheep.success=remove_delivered"}, 1);
  herd_goal a = herd_goal_for(&all), c = herd_goal_for(&centroid), r = herd_goal_for(&removal);
  CHECK(!herd_goal_reached(&a, &o) && herd_goal_reached(&c, &o) && !herd_goal_reached(&r, &o));
  o.delivered = 100, o.centroid[0] = o.centroid[1] = 10.7; /* 15.13 m: outside */
  CHECK(herd_goal_reached(&a, &o) && !herd_goal_reached(&c, &o) && herd_goal_reached(&r, &o));
  herd_scenario boids = scenario_with((const char *[]){"model=boids"}, 1);
  herd_goal none = herd_goal_for(&boids);
  CHECK(!herd_goal_reached(&none, &o));
}

/* The backends divide the sums over the sheep left by every sheep: the goal scales them back. */
static void removal_observation_is_of_the_sheep_left(void) {
  herd_observation o = obs_with(10);
  o.count = 10, o.delivered = 4;
  o.centroid[0] = 6, o.centroid[1] = 3, o.polarisation = 0.3f, o.milling = 0.06f;
  herd_observation kept = o;
  herd_scenario all = scenario_with(NULL, 0);
  herd_scenario removal = scenario_with((const char *[]){"sheep.success=remove_delivered"}, 1);
  herd_goal a = herd_goal_for(&all), r = herd_goal_for(&removal);
  herd_goal_observe(&a, &kept);
  CHECK(memcmp(&kept, &o, sizeof o) == 0);
  herd_goal_observe(&r, &o);
  CHECK(o.centroid[0] == 10 && o.centroid[1] == 5);
  CHECK(fabsf(o.polarisation - 0.5f) < 1e-6f && fabsf(o.milling - 0.1f) < 1e-6f);
}

static void step_is_delta_s_toward_the_aim(void) {
  herd_strombom_dog_params p = params(100);
  herd_observation o = obs_with(50);
  herd_steering_state dog = {.mode = HERD_MODE_DRIVE, .pos = {102, 10}, .heading = {1, 0}};
  herd_strombom_dog_step(&p, &o, 0, 1, 0, &dog);
  CHECK(dog.mode == HERD_MODE_COLLECT);
  CHECK(fabsf(dog.pos[0] - 102) < 1e-5f && fabsf(dog.pos[1] - 11.5f) < 1e-5f);
}

static void noise_turns_the_step_by_at_most_asin_e(void) {
  herd_strombom_dog_params p = params(100);
  p.noise = 0.3f;
  herd_observation o = obs_with(50);
  double max_turn = 0;
  bool varied = false;
  for (uint32_t step = 0; step < 500; ++step) {
    herd_steering_state dog = {.mode = HERD_MODE_DRIVE, .pos = {102, 10}, .heading = {1, 0}};
    herd_strombom_dog_step(&p, &o, 0, 3, step, &dog);
    double dx = dog.pos[0] - 102, dy = dog.pos[1] - 10;
    CHECK(fabs(hypot(dx, dy) - 1.5) < 1e-5);
    double turn = fabs(atan2(dx, dy));
    if (turn > max_turn) max_turn = turn;
    varied = varied || turn > 0.05;
  }
  CHECK_MSG(max_turn <= asin(0.3) + 1e-4, "turned %g rad", max_turn);
  CHECK(varied);
}

static void a_user_steered_dog_follows_its_aim(void) {
  herd_scenario sc = scenario_with(NULL, 0);
  herd_sim *sim = sim_start(&sc, 1);
  herd_error err;
  CHECK(herd_sim_steer(sim, 0, (const float[3]){30, 40, 0}, &err) == HERD_OK); /* the dog starts at (0, 0): 50 m away */
  for (int s = 0; s < 10; ++s) CHECK(herd_sim_step(sim, &err) == HERD_OK);
  const herd_steering_state *dog = herd_sim_steering(sim, 0);
  CHECK(dog->mode == HERD_MODE_MANUAL);
  CHECK(fabsf(dog->pos[0] - 9.0f) < 1e-4f && fabsf(dog->pos[1] - 12.0f) < 1e-4f); /* 10 steps of 1.5 m */
  for (int s = 0; s < 40; ++s) CHECK(herd_sim_step(sim, &err) == HERD_OK);
  CHECK(fabsf(dog->pos[0] - 30.0f) < 1e-4f && fabsf(dog->pos[1] - 40.0f) < 1e-4f); /* arrived, stays */
  CHECK(herd_sim_release(sim, 0, &err) == HERD_OK);
  CHECK(herd_sim_step(sim, &err) == HERD_OK);
  CHECK(dog->mode != HERD_MODE_MANUAL);
  herd_sim_destroy(sim);
}

/* A cruiser goes straight on at its speed and comes back in at the other edge of a torus. */
static void a_cruiser_goes_straight_through_the_wrap(void) {
  const char *sets[] = {"model=netlogo", "agents[0].strategy=cruiser", "agents[0].position_m=[70,35]",
                        "agents[0].direction=[1,0]", "agents[0].speed_m_per_step=0.5"};
  herd_scenario sc = scenario_with(sets, 5);
  herd_sim *sim = sim_start(&sc, 1);
  herd_error err;
  const herd_steering_state *a = herd_sim_steering(sim, 0);
  CHECK(herd_sim_steering_count(sim) == 1 && a->strategy == HERD_STRATEGY_CRUISER);
  for (int s = 0; s < 4; ++s) CHECK(herd_sim_step(sim, &err) == HERD_OK);
  CHECK(a->mode == HERD_MODE_CRUISE);
  CHECK_MSG(fabsf(a->pos[0] - 1.0f) < 1e-4f && a->pos[1] == 35.0f, "at (%g, %g)", (double)a->pos[0], (double)a->pos[1]);
  herd_sim_destroy(sim);
}

/* A pursuer heads for the flock agent nearest to it, a step of its speed at a time. */
static void a_pursuer_closes_on_the_nearest_agent(void) {
  herd_scenario sc = scenario_with((const char *[]){"model=boids"}, 1);
  herd_steer_context ctx = herd_steer_context_for(&sc);
  herd_observation o;
  memset(&o, 0, sizeof o);
  o.count = 10, o.steering_count = 1;
  o.nearest[0].pos[0] = 100, o.nearest[0].pos[1] = 40, o.nearest[0].dist_m = 50;
  ctx.obs = &o;
  herd_steering_state a = {.strategy = HERD_STRATEGY_PURSUER, .pos = {70, 0}, .speed_m_per_step = 5};
  herd_strategies[HERD_STRATEGY_PURSUER](&ctx, 0, &a);
  CHECK(a.mode == HERD_MODE_PURSUE);
  CHECK_MSG(fabsf(a.pos[0] - 73.0f) < 1e-4f && fabsf(a.pos[1] - 4.0f) < 1e-4f, "at (%g, %g)", (double)a.pos[0],
            (double)a.pos[1]);
  a.speed_m_per_step = 1000; /* never past its prey */
  herd_strategies[HERD_STRATEGY_PURSUER](&ctx, 0, &a);
  CHECK(fabsf(a.pos[0] - 100.0f) < 1e-4f && fabsf(a.pos[1] - 40.0f) < 1e-4f);
}

/* A manual agent stands still until the user steers it. */
static void a_manual_agent_waits_for_the_user(void) {
  const char *sets[] = {"model=boids", "agents[0].strategy=manual", "agents[0].position_m=[10,10]"};
  herd_scenario sc = scenario_with(sets, 3);
  herd_sim *sim = sim_start(&sc, 1);
  herd_error err;
  for (int s = 0; s < 3; ++s) CHECK(herd_sim_step(sim, &err) == HERD_OK);
  const herd_steering_state *a = herd_sim_steering(sim, 0);
  CHECK(a->mode == HERD_MODE_IDLE && a->pos[0] == 10.0f && a->pos[1] == 10.0f);
  CHECK(herd_sim_steer(sim, 0, (const float[3]){20, 10, 0}, &err) == HERD_OK);
  CHECK(herd_sim_step(sim, &err) == HERD_OK);
  CHECK(a->mode == HERD_MODE_MANUAL && fabsf(a->pos[0] - 11.0f) < 1e-5f);
  herd_sim_destroy(sim);
}

int main(void) { TEST_MAIN(TESTS); }
