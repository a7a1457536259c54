/* What the viewer, the recorder and herd run show of the steering agents and the groups, and
 * the viewer's hand control of any one of them (src/cli/steering_ui.c): an entry for every
 * steering agent, not only the first; the mouse steers the selected agent and no other;
 * releasing gives it back to its strategy. No window needed. */
#include <math.h>

#include "cli/steering_ui.h"
#include "sim_util.h"

#define TESTS(X)                                \
  X(hand_control_moves_the_selected_agent_only) \
  X(selecting_another_hands_the_mouse_over)     \
  X(selection_skips_food_and_wraps_round)       \
  X(the_hud_has_an_entry_for_every_agent)       \
  X(many_agents_share_the_hud_lines)            \
  X(the_progress_line_names_every_agent)        \
  X(groups_and_flock_state_are_reported)
TESTS(DECLARE_TEST)

static herd_sim *started(const herd_scenario *sc) {
  herd_sim *sim;
  herd_error err;
  CHECK_MSG(herd_sim_create(&(herd_sim_desc){.scenario = sc, .backend = "cpu"}, &sim, &err) == HERD_OK, "%s",
            err.message);
  return sim;
}

/* `steps` steps, the picked agent (if under hand control) heading for `aim` before each. */
static void steer_steps(herd_sim *sim, const steering_pick *p, const float *aim, int steps) {
  herd_error err;
  for (int s = 0; s < steps; ++s) {
    steering_pick_steer(p, sim, aim);
    CHECK(herd_sim_step(sim, &err) == HERD_OK);
  }
}

static float distance_2d(const float *a, const float *b) { return hypotf(a[0] - b[0], a[1] - b[1]); }

/* Two dogs, then Lien's three shepherds: agent 1 under hand control walks straight at the aim
 * at its speed, in mode manual; agent 0 keeps to its strategy. */
static void check_hand_control(const herd_scenario *sc, float speed) {
  herd_sim *sim = started(sc);
  steering_pick p;
  steering_pick_start(&p, sim);
  CHECK(p.selected == 0 && !p.manual);
  steering_pick_select(&p, sim, 1);
  steering_pick_toggle_manual(&p, sim);
  CHECK(p.selected == 1 && p.manual);
  const float aim[3] = {75, 140, 0};
  float before = distance_2d(herd_sim_steering(sim, 1)->pos, aim);
  steer_steps(sim, &p, aim, 20);
  const herd_steering_state *a0 = herd_sim_steering(sim, 0), *a1 = herd_sim_steering(sim, 1);
  float after = distance_2d(a1->pos, aim);
  printf("  %s: agent 1 from %.1f m to %.1f m of the aim; agent 0 %s\n", herd_strategy_name(a1->strategy), before,
         after, herd_steering_mode_name(a0->mode));
  CHECK_MSG(a1->mode == HERD_MODE_MANUAL, "agent 1 is in mode %s", herd_steering_mode_name(a1->mode));
  CHECK_MSG(fabsf(before - after - 20 * speed) < 0.01f * 20 * speed, "agent 1 came %.2f m nearer, not %.2f",
            before - after, 20 * speed);
  CHECK_MSG(a0->mode != HERD_MODE_MANUAL, "agent 0 is steered by hand too");
  CHECK(steering_pick_steer(&p, sim, aim));
  CHECK(!steering_pick_steer(&p, sim, (const float[3]){NAN, 140, 0})); /* the cursor off the ground */
  float at = distance_2d(a1->pos, aim);
  CHECK(herd_sim_step(sim, &(herd_error){0}) == HERD_OK);
  CHECK_MSG(isfinite(a1->pos[0]) && fabsf(at - distance_2d(a1->pos, aim) - speed) < 0.01f * speed,
            "agent 1 left the aim it had for the one refused");
  steering_pick_toggle_manual(&p, sim); /* released: back to its strategy */
  CHECK(!steering_pick_steer(&p, sim, aim));
  steer_steps(sim, &p, aim, 1);
  CHECK_MSG(a1->mode != HERD_MODE_MANUAL, "agent 1 still in mode manual after its release");
  herd_sim_destroy(sim);
}

static void hand_control_moves_the_selected_agent_only(void) {
  const char *dogs[] = {"dogs.count=2"};
  herd_scenario sc = scenario_with(dogs, 1);
  check_hand_control(&sc, sc.dogs.speed_m_per_step);
  herd_scenario lien = shipped("lien-empty.json", NULL, 0);
  CHECK(herd_scenario_steering_count(&lien) >= 2);
  check_hand_control(&lien, lien.agents.entry[0].speed_m_per_step);
}

/* Under hand control, selecting agent 0 gives agent 1 back to its strategy and the mouse to 0. */
static void selecting_another_hands_the_mouse_over(void) {
  const char *dogs[] = {"dogs.count=2"};
  herd_scenario sc = scenario_with(dogs, 1);
  herd_sim *sim = started(&sc);
  steering_pick p;
  steering_pick_start(&p, sim);
  steering_pick_select(&p, sim, 1);
  steering_pick_toggle_manual(&p, sim);
  const float aim[3] = {75, 140, 0};
  steer_steps(sim, &p, aim, 3);
  steering_pick_select(&p, sim, 0);
  CHECK(p.selected == 0 && p.manual);
  steer_steps(sim, &p, aim, 3);
  CHECK(herd_sim_steering(sim, 0)->mode == HERD_MODE_MANUAL);
  CHECK(herd_sim_steering(sim, 1)->mode != HERD_MODE_MANUAL);
  steering_pick_select(&p, sim, 7); /* no such agent: nothing changes */
  CHECK(p.selected == 0 && p.manual);
  herd_sim_destroy(sim);
}

/* A pursuer (agent 0), a cruiser (1) and six food particles (2-7): only the first two can be
 * selected. */
static void selection_skips_food_and_wraps_round(void) {
  const char *sets[] = {"agents[0].strategy=pursuer", "agents[1].strategy=cruiser"};
  herd_scenario sc = shipped("fish-foraging.json", sets, 2);
  herd_sim *sim = started(&sc);
  CHECK(herd_sim_steering_count(sim) == 8);
  steering_pick p;
  steering_pick_start(&p, sim);
  CHECK(p.selected == 0);
  steering_pick_next(&p, sim, 1);
  CHECK(p.selected == 1);
  steering_pick_next(&p, sim, 1); /* past the food, round to the pursuer */
  CHECK_MSG(p.selected == 0, "Tab went to agent %d", p.selected);
  steering_pick_next(&p, sim, -1);
  CHECK(p.selected == 1);
  steering_pick_select(&p, sim, 4); /* food */
  CHECK(p.selected == 1);
  herd_sim_destroy(sim);
  herd_scenario food_only = shipped("fish-foraging.json", NULL, 0);
  sim = started(&food_only);
  steering_pick_start(&p, sim);
  CHECK(p.selected == -1);
  steering_pick_toggle_manual(&p, sim);
  CHECK(!p.manual);
  herd_sim_destroy(sim);
}

static int count_lines(const char *text) {
  int n = *text ? 1 : 0;
  for (const char *c = text; *c; ++c) n += *c == '\n';
  return n;
}

/* lien-empty's three shepherds: a line each with index, strategy and mode; the selected one
 * marked, and "(mouse)" under hand control. */
static void the_hud_has_an_entry_for_every_agent(void) {
  herd_scenario sc = shipped("lien-empty.json", NULL, 0);
  herd_sim *sim = started(&sc);
  steering_pick p = {.selected = -1};
  steer_steps(sim, &p, NULL, 5);
  char hud[2048], want[96];
  steering_ui_hud(sim, 1, true, hud, sizeof hud);
  printf("%s\n", hud);
  uint32_t n = herd_sim_steering_count(sim);
  CHECK(n == 3 && count_lines(hud) == 3);
  for (uint32_t d = 0; d < n; ++d) {
    const herd_steering_state *a = herd_sim_steering(sim, d);
    snprintf(want, sizeof want, "%s#%u shepherd %s", d == 1 ? ">" : "", d, herd_steering_mode_name(a->mode));
    CHECK_MSG(strstr(hud, want), "no \"%s\" in the HUD", want);
    if (a->group >= 0) {
      snprintf(want, sizeof want, "#%u shepherd %s, group %d", d, herd_steering_mode_name(a->mode), a->group);
      CHECK_MSG(strstr(hud, want), "no \"%s\" in the HUD", want);
    }
  }
  CHECK(strstr(hud, "(mouse)") && strstr(strstr(hud, ">#1"), "(mouse)") < strstr(hud, "#2"));
  steering_ui_hud(sim, -1, false, hud, sizeof hud);
  CHECK(!strchr(hud, '>') && !strstr(hud, "(mouse)"));
  herd_sim_destroy(sim);
}

/* Nine dogs: three entries a line, every one there. */
static void many_agents_share_the_hud_lines(void) {
  const char *sets[] = {"dogs.count=9"};
  herd_scenario sc = scenario_with(sets, 1);
  herd_sim *sim = started(&sc);
  char hud[2048], want[32];
  steering_ui_hud(sim, 8, false, hud, sizeof hud);
  CHECK_MSG(count_lines(hud) == 3, "%d lines for 9 agents", count_lines(hud));
  for (int d = 0; d < 9; ++d) {
    snprintf(want, sizeof want, "%s#%d dog", d == 8 ? ">" : "", d);
    CHECK_MSG(strstr(hud, want), "no \"%s\" in the HUD", want);
  }
  herd_sim_destroy(sim);
}

/* Two dogs, a cruiser, then the scenario's food: each strategy's run with its index range and
 * every agent's mode in order. */
static void the_progress_line_names_every_agent(void) {
  const char *sets[] = {"dogs.count=2", "agents[0].strategy=cruiser"};
  herd_scenario sc = scenario_with(sets, 2);
  herd_sim *sim = started(&sc);
  steering_pick p = {.selected = -1};
  steer_steps(sim, &p, NULL, 3);
  char line[512], want[96];
  steering_ui_progress(sim, line, sizeof line);
  printf("  %s\n", line);
  snprintf(want, sizeof want, "dog0-1 %s/%s  cruiser2 cruise", herd_steering_mode_name(herd_sim_steering(sim, 0)->mode),
           herd_steering_mode_name(herd_sim_steering(sim, 1)->mode));
  CHECK_MSG(strcmp(line, want) == 0, "\"%s\", not \"%s\"", line, want);
  herd_sim_destroy(sim);
  herd_scenario lien = shipped("lien-empty.json", NULL, 0);
  sim = started(&lien);
  steering_ui_progress(sim, line, sizeof line);
  CHECK_MSG(strncmp(line, "shepherd0-2 ", 12) == 0 && count_lines(line) == 1, "\"%s\"", line);
  herd_sim_destroy(sim);
}

/* With shepherds: the groups found and tracked as the observation has them, and the flock state
 * as the shepherds judged it; without shepherds or groups, nothing. */
static void groups_and_flock_state_are_reported(void) {
  herd_scenario sc = shipped("lien-empty.json", NULL, 0);
  herd_sim *sim = started(&sc);
  steering_pick p = {.selected = -1};
  steer_steps(sim, &p, NULL, 5);
  const herd_observation *o = herd_sim_observation(sim);
  char text[256], want[96];
  steering_ui_groups(sim, false, text, sizeof text);
  printf("  %s\n", text);
  snprintf(want, sizeof want, "groups %u found, %u tracked", o->group_count, o->groups_tracked);
  CHECK_MSG(strncmp(text, want, strlen(want)) == 0, "\"%s\", not \"%s...\"", text, want);
  uint32_t state = herd_sim_steering(sim, 0)->flock_state;
  if (state) {
    snprintf(want, sizeof want, "flock state %u (", state);
    CHECK_MSG(strstr(text, want), "no \"%s\" in \"%s\"", want, text);
  }
  steering_ui_groups(sim, true, text, sizeof text);
  snprintf(want, sizeof want, "groups %u/%u", o->group_count, o->groups_tracked);
  CHECK_MSG(strncmp(text, want, strlen(want)) == 0, "\"%s\", not \"%s...\"", text, want);
  herd_sim_destroy(sim);
  herd_scenario plain = scenario_with(NULL, 0);
  sim = started(&plain);
  steering_ui_groups(sim, false, text, sizeof text);
  CHECK_MSG(*text == '\0', "\"%s\" without shepherds or groups", text);
  herd_sim_destroy(sim);
  const char *observed[] = {"groups.observe=always"}; /* no shepherd, but groups */
  herd_scenario dog = scenario_with(observed, 1);
  sim = started(&dog);
  steering_ui_groups(sim, false, text, sizeof text);
  snprintf(want, sizeof want, "groups %u found, %u tracked", herd_sim_observation(sim)->group_count,
           herd_sim_observation(sim)->groups_tracked);
  CHECK_MSG(strcmp(text, want) == 0 && herd_sim_observation(sim)->group_count > 0, "\"%s\", not \"%s\"", text, want);
  herd_sim_destroy(sim);
}

int main(void) { TEST_MAIN(TESTS); }
