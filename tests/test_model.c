/* One Strömbom sheep update on hand-made situations, each term checked against the
 * equation written out independently here. */
#include <math.h>

#include "agent.h"
#include "models/strombom.h"
#include "reduce.h"
#include "test.h"

#define TESTS(X)                                   \
  X(grazing_sheep_stays_unless_the_draw_says_move) \
  X(grazing_step_is_a_random_direction)            \
  X(grazing_sheep_moves_off_a_crowding_neighbour)  \
  X(dog_within_r_s_repels)                         \
  X(dog_beyond_r_s_is_ignored)                     \
  X(attraction_is_to_the_n_nearest_only)           \
  X(full_equation_matches_hand_computation)        \
  X(every_dog_within_r_s_repels)                   \
  X(coincident_neighbour_exerts_no_repulsion)      \
  X(delivery_latches_and_moved_is_per_step)        \
  X(n_of_all_others_is_attraction_to_the_centroid) \
  X(reacting_neighbours_leave_out_calm_sheep)      \
  X(removed_sheep_are_nobodys_neighbours)          \
  X(a_delivered_sheep_leaves_for_the_pen)          \
  X(removal_latches_and_counts_as_delivered)       \
  X(removed_sheep_are_left_out_of_the_reduction)   \
  X(a_sated_agent_is_no_foods_nearest)
TESTS(DECLARE_TEST)

enum { MAX_SHEEP = 16 };

typedef struct world {
  herd_strombom_params m;
  uint32_t n, dog_count;
  herd_vec2 pos[MAX_SHEEP], heading[MAX_SHEEP];
  herd_u32 agent[MAX_SHEEP];         /* agent words: the sorted index is the id */
  float dogs[HERD_STEER_FLOATS * 4]; /* as the backends pass them (kernels/agent.h) */
  herd_vec2 centroid;                /* the flock's, as the sim passes it */
} world;

static void set_dog(world *w, int d, float x, float y) {
  memset(&w->dogs[HERD_STEER_FLOATS * d], 0, HERD_STEER_FLOATS * sizeof(float));
  w->dogs[HERD_STEER_FLOATS * d] = x, w->dogs[HERD_STEER_FLOATS * d + 1] = y;
}

/* All terms off, a dog far away: each test switches on what it examines. */
static world quiet_world(void) {
  world w;
  memset(&w, 0, sizeof w);
  w.m.repulsion_radius_m = 2, w.m.dog_radius_m = 65, w.m.speed_m_per_step = 1, w.m.neighbours = 1;
  w.n = 1, w.dog_count = 1;
  w.pos[0] = herd_v2(0, 0), w.heading[0] = herd_v2(1, 0), set_dog(&w, 0, 1000, 1000);
  return w;
}

static void add_sheep(world *w, float x, float y) {
  w->agent[w->n] = w->n;
  w->pos[w->n] = herd_v2(x, y);
  w->heading[w->n++] = herd_v2(0, 1);
}

/* Updates sheep 0 with every sheep in one bucket: the grid then scans all of them. */
static herd_sheep_next update(const world *w, uint32_t step) {
  herd_grid g = {.cell_m = 4, .inv_cell_m = 0.25f, .table_mask = 0, .count = w->n, .flock_count = w->n, .dims = 2};
  herd_u32 cell_end[1] = {w->n};
  herd_neighbour scratch[HERD_MAX_NEIGHBOURS];
  herd_strombom_flock f = {&g, w->pos, w->agent, cell_end, w->dogs, w->dog_count, NULL, NULL, NULL};
  return herd_strombom_sheep(&w->m, &f, w->heading, w->centroid, 0, 0, 77, step, scratch);
}

static herd_vec2 noise_direction(uint32_t step) {
  return herd_rng_direction(herd_rng_draw(77, step, 0, HERD_STREAM_SHEEP_NOISE).v[0]);
}

static bool graze_draw_moves(uint32_t step, float p) {
  return herd_rng_unit_float(herd_rng_draw(77, step, 0, HERD_STREAM_SHEEP_GRAZE).v[0]) < p;
}

static bool near(herd_vec2 a, double x, double y) { return fabs(a.x - x) < 1e-5 && fabs(a.y - y) < 1e-5; }

static void grazing_sheep_stays_unless_the_draw_says_move(void) {
  world w = quiet_world();
  w.m.graze_probability = 0.05f, w.m.noise = 0.3f;
  int moved = 0, steps = 4000;
  for (uint32_t s = 0; s < (uint32_t)steps; ++s) {
    herd_sheep_next next = update(&w, s);
    bool did = next.pos.x != 0 || next.pos.y != 0;
    CHECK(did == graze_draw_moves(s, 0.05f));
    moved += did;
  }
  /* Binomial(4000, 0.05): mean 200, sd 13.8. */
  CHECK_MSG(moved > 140 && moved < 260, "moved %d of %d", moved, steps);
}

static void grazing_step_is_a_random_direction(void) {
  world w = quiet_world();
  w.m.graze_probability = 1, w.m.noise = 0.3f;
  herd_sheep_next next = update(&w, 5);
  herd_vec2 eps = noise_direction(5);
  CHECK(near(next.heading, eps.x, eps.y));
  CHECK(near(next.pos, eps.x, eps.y)); /* delta = 1 */
}

static void grazing_sheep_moves_off_a_crowding_neighbour(void) {
  world w = quiet_world();
  w.m.graze_probability = 1, w.m.repulsion = 2;
  add_sheep(&w, 1, 1); /* within r_a = 2 */
  add_sheep(&w, 5, 0); /* beyond r_a */
  herd_sheep_next next = update(&w, 0);
  CHECK(near(next.heading, -sqrt(0.5), -sqrt(0.5)));
}

static void dog_within_r_s_repels(void) {
  world w = quiet_world();
  w.m.dog_repulsion = 1;
  set_dog(&w, 0, 30, 40); /* 50 m away, r_s = 65 */
  herd_sheep_next next = update(&w, 0);
  CHECK(near(next.heading, -0.6, -0.8));
  CHECK(near(next.pos, -0.6, -0.8));
}

static void dog_beyond_r_s_is_ignored(void) {
  world w = quiet_world();
  w.m.dog_repulsion = 1;
  set_dog(&w, 0, 39, 52); /* 65 m away: not within r_s */
  herd_sheep_next next = update(&w, 0);
  CHECK(next.pos.x == 0 && next.pos.y == 0);
}

static void attraction_is_to_the_n_nearest_only(void) {
  world w = quiet_world();
  w.m.attraction = 1, w.m.neighbours = 2;
  set_dog(&w, 0, 0, -60); /* within r_s, but rho_s = 0 */
  add_sheep(&w, 3, 0);
  add_sheep(&w, 3, 4);
  add_sheep(&w, -20, 0); /* third nearest: left out */
  herd_sheep_next next = update(&w, 0);
  CHECK(near(next.heading, 3 / sqrt(13), 2 / sqrt(13)));
}

static void full_equation_matches_hand_computation(void) {
  world w = quiet_world();
  w.m = (herd_strombom_params){.repulsion_radius_m = 2,
                               .dog_radius_m = 65,
                               .inertia = 0.5f,
                               .attraction = 1.05f,
                               .repulsion = 2,
                               .dog_repulsion = 1,
                               .noise = 0.3f,
                               .graze_probability = 0.05f,
                               .speed_m_per_step = 1,
                               .neighbours = 3};
  w.heading[0] = herd_v2(0.6f, 0.8f);
  set_dog(&w, 0, -10, 5);
  add_sheep(&w, 1, 0.5f);
  add_sheep(&w, 4, 3);
  add_sheep(&w, 6, -2);
  add_sheep(&w, 30, 30);
  herd_sheep_next next = update(&w, 9);
  double cx = (1 + 4 + 6) / 3.0, cy = (0.5 + 3 - 2) / 3.0, cl = hypot(cx, cy);
  double ax = -1, ay = -0.5, al = hypot(ax, ay);
  double sx = 10, sy = -5, sl = hypot(sx, sy);
  herd_vec2 eps = noise_direction(9);
  double hx = 0.5 * 0.6 + 1.05 * cx / cl + 2 * ax / al + 1 * sx / sl + 0.3 * eps.x;
  double hy = 0.5 * 0.8 + 1.05 * cy / cl + 2 * ay / al + 1 * sy / sl + 0.3 * eps.y;
  double hl = hypot(hx, hy);
  CHECK_MSG(near(next.heading, hx / hl, hy / hl), "heading (%g, %g), want (%g, %g)", next.heading.x, next.heading.y,
            hx / hl, hy / hl);
  CHECK(near(next.pos, hx / hl, hy / hl));
}

static void every_dog_within_r_s_repels(void) {
  world w = quiet_world();
  w.m.dog_repulsion = 1;
  w.dog_count = 3;
  set_dog(&w, 0, 10, 0);
  set_dog(&w, 1, 0, 10);
  set_dog(&w, 2, -100, 0); /* out of range */
  herd_sheep_next next = update(&w, 0);
  CHECK(near(next.heading, -sqrt(0.5), -sqrt(0.5)));
}

static void coincident_neighbour_exerts_no_repulsion(void) {
  world w = quiet_world();
  w.m.graze_probability = 1, w.m.repulsion = 2;
  add_sheep(&w, 0, 0);
  add_sheep(&w, 0, 1);
  herd_sheep_next next = update(&w, 0);
  CHECK(near(next.heading, 0, -1));
}

/* n = N - 1: the centre of all the others, (N G - p) / (N - 1), lies in the direction of G
 * from p; the update uses the centroid it is given rather than a search of the flock. */
static void n_of_all_others_is_attraction_to_the_centroid(void) {
  world w = quiet_world();
  w.m.attraction = 1;
  set_dog(&w, 0, 0, -60); /* within r_s, rho_s = 0 */
  add_sheep(&w, 3, 0);
  add_sheep(&w, 0, 6);
  add_sheep(&w, -9, 0);
  w.m.neighbours = 3; /* all the others */
  w.centroid = herd_v2(-6.0f / 4, 6.0f / 4);
  herd_sheep_next next = update(&w, 0);
  CHECK(near(next.heading, -sqrt(0.5), sqrt(0.5)));
  /* The same through the search with n = 2 < N - 1 differs: the test can tell them apart. */
  w.m.neighbours = 2;
  next = update(&w, 0);
  CHECK(near(next.heading, 3 / sqrt(45), 6 / sqrt(45)));
  /* With sheep.success = remove_delivered too: the observation's centroid leaves out the sheep
   * removed, so it stands in as well (given one that is not the others' centre, the update
   * follows it: no scan of the flock). */
  w.m.neighbours = 3, w.m.success = HERD_STROMBOM_SUCCESS_REMOVE_DELIVERED;
  w.centroid = herd_v2(5, 5);
  next = update(&w, 0);
  CHECK(near(next.heading, sqrt(0.5), sqrt(0.5)));
  /* With neighbours_from = reacting the candidates are not the flock: they are summed. */
  w.m.neighbours_from = HERD_STROMBOM_FROM_REACTING;
  next = update(&w, 0);
  CHECK(!near(next.heading, sqrt(0.5), sqrt(0.5)));
}

/* The agent word after a step, with the goal a circle of radius r about goal. */
static herd_u32 after_step(herd_u32 word, herd_vec3 old_pos, herd_vec3 pos, int alert, herd_vec3 goal, float r) {
  return herd_agent_after_step(word, old_pos, pos, alert, herd_in_goal(pos, goal, r));
}

static void delivery_latches_and_moved_is_per_step(void) {
  herd_vec3 goal = herd_v3(0, 0, 0), far = herd_v3(40, 0, 0), inside = herd_v3(10, 0, 0);
  herd_u32 word = 1234u;
  word = after_step(word, far, inside, 0, goal, 15); /* walks in */
  CHECK(herd_agent_id(word) == 1234u && (word & HERD_AGENT_DELIVERED) && (word & HERD_AGENT_MOVED));
  word = after_step(word, inside, far, 1, goal, 15); /* walks out, alarmed: still delivered */
  CHECK(herd_agent_id(word) == 1234u && (word & HERD_AGENT_DELIVERED) && (word & HERD_AGENT_MOVED));
  CHECK(word & HERD_AGENT_ALERT);
  word = after_step(word, far, far, 0, goal, 15); /* stands still, calm */
  CHECK((word & HERD_AGENT_DELIVERED) && !(word & HERD_AGENT_MOVED) && !(word & HERD_AGENT_ALERT));
  CHECK(!(after_step(7u, far, far, 0, goal, 15) & HERD_AGENT_DELIVERED));
  CHECK(after_step(7u, far, herd_v3(15, 0, 0), 0, goal, 15) & HERD_AGENT_DELIVERED); /* the rim counts */
  CHECK(!(after_step(7u, far, goal, 0, goal, -1) & HERD_AGENT_DELIVERED));           /* no goal: never */
}

/* A dog at (0, -60) with r_s = 65: sheep 0 at the origin reacts; sheep 1, nearest to it,
 * is 66 m from the dog and calm; sheeps 2, 3 and 4 react. Only attraction is switched on. */
static world reacting_world(void) {
  world w = quiet_world();
  w.m.attraction = 1;
  set_dog(&w, 0, 0, -60);
  add_sheep(&w, 0, 6);   /* 6 m away, calm */
  add_sheep(&w, -8, -3); /* 8.5 m, reacts */
  add_sheep(&w, 9, -1);  /* 9.1 m, reacts */
  add_sheep(&w, -20, 0); /* 20 m, reacts */
  return w;
}

static void reacting_neighbours_leave_out_calm_sheep(void) {
  world w = reacting_world();
  w.m.neighbours = 2;
  herd_sheep_next all = update(&w, 0);
  CHECK(near(all.heading, -8 / sqrt(73), 3 / sqrt(73))); /* sheep 1 and 2: centre (-4, 1.5) */
  w.m.neighbours_from = HERD_STROMBOM_FROM_REACTING;
  herd_sheep_next reacting = update(&w, 0);
  CHECK(near(reacting.heading, 0.5 / sqrt(4.25), -2 / sqrt(4.25))); /* sheep 2 and 3: centre (0.5, -2) */
  w.m.neighbours = 4;                                               /* all the others that react */
  herd_sheep_next every = update(&w, 0);
  CHECK(near(every.heading, -19 / sqrt(377), -4 / sqrt(377))); /* sheep 2, 3, 4 */
}

static void removed_sheep_are_nobodys_neighbours(void) {
  world w = reacting_world();
  w.m.success = HERD_STROMBOM_SUCCESS_REMOVE_DELIVERED;
  w.agent[1] |= HERD_AGENT_REMOVED | HERD_AGENT_DELIVERED;
  w.m.neighbours = 2;
  herd_sheep_next two = update(&w, 0);
  CHECK(near(two.heading, 0.5 / sqrt(4.25), -2 / sqrt(4.25))); /* sheep 2 and 3 */
  w.m.neighbours = 4;                                          /* all the others: toward the centroid */
  w.centroid = herd_v2(-19.0f / 4, -1.0f);                     /* the observation's: sheep 0, 2, 3 and 4 */
  herd_sheep_next every = update(&w, 0);
  CHECK(near(every.heading, -19 / sqrt(377), -4 / sqrt(377)));
  w.pos[2] = herd_v2(0, 1); /* within r_a of sheep 0: repels it */
  w.m.attraction = 0, w.m.repulsion = 1;
  CHECK(near(update(&w, 0).heading, 0, -1));
  w.agent[2] |= HERD_AGENT_REMOVED; /* removed sheep are out in the pen, never this close */
  w.pos[2] = herd_v2(HERD_STROMBOM_PEN_M, HERD_STROMBOM_PEN_M);
  CHECK(near(update(&w, 0).heading, 1, 0)); /* nothing pushes it: it keeps its heading */
}

/* One update of sheep 0 through the model's entry (herd_strombom_update), the goal at the
 * origin with radius 15. */
static herd_agent_next entry_update(world *w) {
  herd_grid g = {.cell_m = 4, .inv_cell_m = 0.25f, .table_mask = 0, .count = w->n, .flock_count = w->n, .dims = 2};
  herd_u32 cell_end[1] = {w->n};
  herd_step_info info = {.step = 0, .seed_lo = 77, .steering_count = w->dog_count, .goal_radius_m = 15};
  herd_flock_view v = {&g,  (const float *)w->pos, (const float *)w->heading, w->agent, cell_end, w->dogs, NULL, &info,
                       NULL};
  herd_neighbour scratch[HERD_MAX_NEIGHBOURS];
  return herd_strombom_update(&w->m, &v, 0, scratch);
}

static void a_delivered_sheep_leaves_for_the_pen(void) {
  world w = quiet_world();
  w.m.dog_repulsion = 1;
  w.pos[0] = herd_v2(14.5f, 0);
  set_dog(&w, 0, 20, 0); /* pushes it one metre toward the target, to 13.5 m */
  herd_agent_next stays = entry_update(&w);
  CHECK(fabsf(stays.pos.x - 13.5f) < 1e-5f && stays.alert == HERD_ALERT_REACTED);
  w.m.success = HERD_STROMBOM_SUCCESS_REMOVE_DELIVERED;
  herd_agent_next leaves = entry_update(&w);
  CHECK(leaves.pos.x == HERD_STROMBOM_PEN_M && leaves.pos.y == HERD_STROMBOM_PEN_M);
  CHECK(leaves.alert == (HERD_ALERT_REACTED | HERD_ALERT_REMOVE));
  set_dog(&w, 0, -20, 0); /* now pushes it away, out of the goal: it stays in the flock */
  CHECK(entry_update(&w).pos.x > 15.0f && !(entry_update(&w).alert & HERD_ALERT_REMOVE));
  w.agent[0] |= HERD_AGENT_DELIVERED; /* delivered before (placed in the goal): leaves too */
  CHECK(entry_update(&w).alert & HERD_ALERT_REMOVE);
  w.agent[0] |= HERD_AGENT_REMOVED; /* once removed, it stays where it is, calm */
  herd_agent_next removed = entry_update(&w);
  CHECK(removed.pos.x == 14.5f && removed.pos.y == 0 && removed.alert == 0);
}

static void removal_latches_and_counts_as_delivered(void) {
  herd_vec3 goal = herd_v3(0, 0, 0), far = herd_v3(40, 0, 0), pen = herd_v3(-1e9f, -1e9f, 0);
  herd_u32 word = after_step(55u, far, pen, HERD_ALERT_REMOVE, goal, 15);
  CHECK(herd_agent_id(word) == 55u && (word & HERD_AGENT_DELIVERED) && herd_agent_removed(word));
  CHECK(!(word & HERD_AGENT_ALERT));
  word = after_step(word, pen, pen, 0, goal, 15);
  CHECK((word & HERD_AGENT_DELIVERED) && herd_agent_removed(word) && !(word & HERD_AGENT_MOVED));
  CHECK(!herd_agent_removed(after_step(55u, far, herd_v3(1, 0, 0), HERD_ALERT_REACTED, goal, 15)));
}

/* Three sheep, the middle one removed: the observation is of the other two. */
static void removed_sheep_are_left_out_of_the_reduction(void) {
  herd_grid g = {.cell_m = 4, .inv_cell_m = 0.25f, .count = 3, .flock_count = 3, .dims = 2};
  herd_vec3 at[3] = {herd_v3(10, 0, 0), herd_v3(-1e9f, -1e9f, 0), herd_v3(30, 0, 0)};
  herd_u32 words[3] = {0u, 1u | HERD_AGENT_REMOVED | HERD_AGENT_DELIVERED, 2u};
  const float dog[4] = {-1e9f, -1e9f + 1, 0, 0}; /* next to the removed sheep */
  herd_vec3 goal = herd_v3(0, 0, 0), vel = herd_v3(1, 0, 0);
  herd_flock_partial p = herd_partial_empty();
  for (int i = 0; i < 3; ++i) herd_partial_add(&p, &g, at[i], vel, words[i], dog, 1, herd_in_goal(at[i], goal, 15), 1);
  CHECK(p.delivered == 1 && p.removed == 1 && p.in_goal == 1);
  CHECK(p.lo_x == 10 && p.hi_x == 30 && p.near[0].id == 0u);
  herd_vec3 c = herd_partial_centroid(p, 3);
  CHECK(c.x == 20 && c.y == 0);
  for (int i = 0; i < 3; ++i) herd_far_add(&p, at[i], vel, words[i], c);
  CHECK(p.far_id == 0u && p.far_d2 == 100); /* the lower id of the two 10 m away */
}

/* The sated flag is set by its alert for one step, and a sated agent is nobody's nearest for a
 * food particle (role food or best) while it still is for a threat: the food a sated fish swims
 * through goes to the hungry one behind it. */
static void a_sated_agent_is_no_foods_nearest(void) {
  herd_vec3 goal = herd_v3(0, 0, 0), at = herd_v3(5, 0, 0);
  herd_u32 sated = after_step(0u, at, at, HERD_ALERT_SATED, goal, -1);
  CHECK((sated & HERD_AGENT_SATED) && herd_agent_id(sated) == 0u);
  CHECK(!(after_step(sated, at, at, 0, goal, -1) & HERD_AGENT_SATED)); /* not latched */
  herd_grid g = {.cell_m = 4, .inv_cell_m = 0.25f, .count = 2, .flock_count = 2, .dims = 2};
  herd_vec3 pos[2] = {herd_v3(1, 0, 0), herd_v3(3, 0, 0)};
  herd_u32 words[2] = {0u | HERD_AGENT_SATED, 1u};
  const float steer[3 * HERD_STEER_FLOATS] = {0, 0, 0, HERD_ROLE_FOOD,      0, 0, 0, 0, /* */
                                              0, 0, 0, HERD_ROLE_FOOD_BEST, 0, 0, 0, 0, /* */
                                              0, 0, 0, HERD_ROLE_THREAT,    0, 0, 0, 0};
  herd_flock_partial p = herd_partial_empty();
  for (int i = 0; i < 2; ++i) herd_partial_add(&p, &g, pos[i], herd_v3(1, 0, 0), words[i], steer, 3, 0, 1);
  CHECK(p.near[0].id == 1u && p.near[0].d2 == 9 && p.near[1].id == 1u);
  CHECK(p.near[2].id == 0u && p.near[2].d2 == 1);
  CHECK(herd_near_takes_part(words[0], HERD_ROLE_GONE) && !herd_near_takes_part(words[0], HERD_ROLE_FOOD));
}

int main(void) { TEST_MAIN(TESTS); }
