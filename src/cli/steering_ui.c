#include "steering_ui.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* printf onto the end of out (size bytes with the NUL), cutting what does not fit. */
__attribute__((format(printf, 3, 4))) static void append(char *out, size_t size, const char *fmt, ...) {
  size_t used = strlen(out);
  if (used + 1 >= size) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(out + used, size - used, fmt, ap);
  va_end(ap);
}

/* ---- Text --------------------------------------------------------------------------------- */

static const char *state_words(uint32_t state) {
  switch (state) {
    case 1: return "one group";
    case 2: return "groups <= shepherds";
    case 3: return "more groups than shepherds";
    default: return "?";
  }
}

/* The flock states the shepherds judged (0: not yet), each once, in index order: "2" or "2/3";
 * returns how many; *last gets the last. */
static int shepherd_states(const herd_sim *sim, char *out, size_t size, uint32_t *last) {
  bool seen[4] = {false};
  int count = 0;
  out[0] = '\0';
  for (uint32_t d = 0; d < herd_sim_steering_count(sim); ++d) {
    const herd_steering_state *a = herd_sim_steering(sim, d);
    uint32_t state = a->flock_state;
    if (a->strategy != HERD_STRATEGY_SHEPHERD || state < 1 || state > 3 || seen[state]) continue;
    seen[state] = true, *last = state;
    append(out, size, "%s%u", count++ ? "/" : "", state);
  }
  return count;
}

static bool has_shepherd(const herd_sim *sim) {
  for (uint32_t d = 0; d < herd_sim_steering_count(sim); ++d)
    if (herd_sim_steering(sim, d)->strategy == HERD_STRATEGY_SHEPHERD) return true;
  return false;
}

void steering_ui_groups(const herd_sim *sim, bool brief, char *out, size_t size) {
  const herd_observation *o = herd_sim_observation(sim);
  out[0] = '\0';
  if (!has_shepherd(sim) && !herd_scenario_describe(herd_sim_scenario(sim)).observes_groups) return;
  snprintf(out, size, brief ? "groups %u/%u" : "groups %u found, %u tracked", o->group_count, o->groups_tracked);
  char states[16];
  uint32_t state = 0;
  int count = shepherd_states(sim, states, sizeof states, &state);
  if (count && brief) append(out, size, "  state %s", states);
  if (count && !brief)
    append(out, size, "  flock state %s (%s)", states, count == 1 ? state_words(state) : "shepherds differ");
}

/* Agent d's HUD entry (steering_ui_hud). */
static void hud_entry(const herd_sim *sim, uint32_t d, int selected, bool manual, char *out, size_t size) {
  const herd_steering_state *a = herd_sim_steering(sim, d);
  bool picked = selected >= 0 && (uint32_t)selected == d;
  snprintf(out, size, "%s#%u %s %s", picked ? ">" : "", d, herd_strategy_name(a->strategy),
           herd_steering_mode_name(a->mode));
  if (a->strategy == HERD_STRATEGY_SHEPHERD && a->group >= 0) append(out, size, ", group %d", a->group);
  if (picked && manual) append(out, size, " (mouse)");
}

void steering_ui_hud(const herd_sim *sim, int selected, bool manual, char *out, size_t size) {
  uint32_t n = herd_sim_steering_count(sim), per_line = n <= HUD_ONE_PER_LINE ? 1 : HUD_PER_LINE;
  out[0] = '\0';
  for (uint32_t d = 0; d < n; ++d) {
    char entry[96];
    hud_entry(sim, d, selected, manual, entry, sizeof entry);
    append(out, size, "%s%s", d == 0 ? "" : d % per_line ? "    " : "\n", entry);
  }
}

void steering_ui_progress(const herd_sim *sim, char *out, size_t size) {
  uint32_t n = herd_sim_steering_count(sim);
  out[0] = '\0';
  for (uint32_t d = 0, end; d < n; d = end) {
    herd_strategy strategy = herd_sim_steering(sim, d)->strategy;
    for (end = d + 1; end < n && herd_sim_steering(sim, end)->strategy == strategy;) ++end;
    append(out, size, "%s%s%u", d ? "  " : "", herd_strategy_name(strategy), d);
    if (end - d > 1) append(out, size, "-%u", end - 1);
    for (uint32_t k = d; k < end; ++k)
      append(out, size, "%s%s", k == d ? " " : "/", herd_steering_mode_name(herd_sim_steering(sim, k)->mode));
  }
}

/* ---- Hand control ---------------------------------------------------------------------------- */

static bool selectable(const herd_sim *sim, int index) {
  const herd_steering_state *a = index >= 0 ? herd_sim_steering(sim, (uint32_t)index) : NULL;
  return a && a->strategy != HERD_STRATEGY_FOOD;
}

/* The selectable agent `step` places on from `from` round the list, or -1 when none is. */
static int next_selectable(const herd_sim *sim, int from, int step) {
  int n = (int)herd_sim_steering_count(sim);
  for (int k = 1; k <= n; ++k) {
    int i = ((from + step * k) % n + n) % n;
    if (selectable(sim, i)) return i;
  }
  return -1;
}

void steering_pick_start(steering_pick *p, const herd_sim *sim) {
  p->selected = next_selectable(sim, -1, 1);
  p->manual = false;
}

void steering_pick_restart(steering_pick *p, const herd_sim *sim) {
  if (!selectable(sim, p->selected)) steering_pick_start(p, sim);
}

/* Gives the selected agent back to its strategy. It is an agent of this sim (selectable), so
 * herd_sim_release cannot refuse it; were it gone, there would be nothing to give back. */
static void release_selected(const steering_pick *p, herd_sim *sim) {
  herd_error err;
  if (p->selected >= 0) (void)herd_sim_release(sim, (uint32_t)p->selected, &err);
}

void steering_pick_select(steering_pick *p, herd_sim *sim, int index) {
  if (!selectable(sim, index) || index == p->selected) return;
  if (p->manual) release_selected(p, sim);
  p->selected = index;
}

void steering_pick_next(steering_pick *p, herd_sim *sim, int step) {
  int next = next_selectable(sim, p->selected, step < 0 ? -1 : 1);
  if (next >= 0) steering_pick_select(p, sim, next);
}

void steering_pick_toggle_manual(steering_pick *p, herd_sim *sim) {
  if (p->selected < 0) return;
  p->manual = !p->manual;
  if (!p->manual) release_selected(p, sim);
}

bool steering_pick_steer(const steering_pick *p, herd_sim *sim, const float *aim) {
  herd_error err; /* refused: an aim that is not a point (not finite); the last one stands */
  return p->manual && p->selected >= 0 && herd_sim_steer(sim, (uint32_t)p->selected, aim, &err) == HERD_OK;
}
