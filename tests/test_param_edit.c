/* The viewer's parameter edits (src/cli/param_edit.c), without a window: the step of [ and ],
 * P's cycle, the sim changed from the next step, and the --log-edits record of each change. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/param_edit.h"
#include "sim_util.h"

#define TESTS(X)                      \
  X(brackets_step_by_ten_percent)     \
  X(p_cycles_through_the_live_fields) \
  X(each_change_is_logged)            \
  X(a_refused_change_is_not_logged)
TESTS(DECLARE_TEST)

static void brackets_step_by_ten_percent(void) {
  CHECK(param_edit_stepped(2.0, false, +1) == 2.0 * 1.1);
  CHECK(param_edit_stepped(2.0, false, -1) == 2.0 / 1.1);
  CHECK(param_edit_stepped(0.0, false, +1) == 0.1);
  CHECK(param_edit_stepped(0.0, false, -1) == 0.0);
  CHECK(param_edit_stepped(50.0, true, +1) == 55.0);
  CHECK(param_edit_stepped(3.0, true, +1) == 4.0);
  CHECK(param_edit_stepped(0.0, true, -1) == 0.0);
}

static void p_cycles_through_the_live_fields(void) {
  herd_scenario sc = scenario_with(NULL, 0);
  herd_sim *sim = sim_start(&sc, 1);
  param_edit e = {.selected = -1};
  uint32_t count = 0;
  while (herd_sim_param_name(sim, count, NULL)) ++count;
  CHECK(count > 2);
  for (uint32_t k = 0; k < count; ++k) param_edit_next(&e, sim);
  CHECK(e.selected == (int)count - 1);
  param_edit_next(&e, sim);
  CHECK(e.selected == 0);
  char hud[200];
  param_edit_hud(&e, sim, hud, sizeof hud);
  CHECK_MSG(strstr(hud, herd_sim_param_name(sim, 0, NULL)) != NULL, "%s", hud);
  herd_sim_destroy(sim);
}

/* Selects field `path` by pressing P until it is the one. */
static void pick(param_edit *e, const herd_sim *sim, const char *path) {
  for (int k = 0; k < 100; ++k) {
    const char *now = e->selected >= 0 ? herd_sim_param_name(sim, (uint32_t)e->selected, NULL) : NULL;
    if (now && strcmp(now, path) == 0) return;
    param_edit_next(e, sim);
  }
  CHECK_MSG(false, "P never reached %s", path);
}

static char *read_text(const char *path) {
  static char text[2000];
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
  if (f) fclose(f);
  text[n] = '\0';
  return text;
}

static void each_change_is_logged(void) {
  char dir[] = "/tmp/herd-param-edit-XXXXXX", path[100];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/edits.csv", dir);
  herd_scenario sc = scenario_with(NULL, 0);
  herd_sim *sim = sim_start(&sc, 1);
  herd_error err;
  param_edit e = {.selected = -1};
  CHECK(param_edit_open(&e, path, false, &err) == HERD_OK);
  pick(&e, sim, "sheep.repulsion");
  for (int s = 0; s < 3; ++s) CHECK(herd_sim_step(sim, &err) == HERD_OK);
  double old, now;
  herd_scenario_get(herd_sim_scenario(sim), "sheep.repulsion", &old, &err);
  CHECK(param_edit_change(&e, sim, +1) == HERD_OK);
  herd_scenario_get(herd_sim_scenario(sim), "sheep.repulsion", &now, &err);
  CHECK(now == (double)(float)(old * 1.1));
  CHECK(param_edit_change(&e, sim, -1) == HERD_OK);
  CHECK(param_edit_close(&e, &err) == HERD_OK && e.edits == 2);
  char want[200];
  double back = (double)(float)(now / 1.1);
  snprintf(want, sizeof want, "step,path,old,new\n3,sheep.repulsion,%.9g,%.9g\n3,sheep.repulsion,%.9g,%.9g\n", old, now,
           now, back);
  CHECK_MSG(strcmp(read_text(path), want) == 0, "the log holds \"%s\", want \"%s\"", read_text(path), want);
  /* An existing log is not replaced without --force. */
  param_edit again = {.selected = -1};
  CHECK(param_edit_open(&again, path, false, &err) == HERD_E_INPUT);
  CHECK(strcmp(read_text(path), want) == 0);
  unlink(path);
  rmdir(dir);
  herd_sim_destroy(sim);
}

static void a_refused_change_is_not_logged(void) {
  const char *sets[] = {"sheep.count=56"}; /* sheep.neighbours = 50: 55 is allowed, 60 is not */
  herd_scenario sc = scenario_with(sets, 1);
  herd_sim *sim = sim_start(&sc, 1);
  param_edit e = {.selected = -1};
  pick(&e, sim, "sheep.neighbours");
  double n;
  herd_error err;
  CHECK(param_edit_change(&e, sim, +1) == HERD_OK);
  herd_scenario_get(herd_sim_scenario(sim), "sheep.neighbours", &n, &err);
  CHECK(n == 55);
  CHECK(param_edit_change(&e, sim, +1) == HERD_E_INPUT);
  herd_scenario_get(herd_sim_scenario(sim), "sheep.neighbours", &n, &err);
  CHECK(n == 55 && e.edits == 1);
  herd_sim_destroy(sim);
}

int main(void) { TEST_MAIN(TESTS); }
