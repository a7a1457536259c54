/* What herd view, herd record and herd run show of the steering agents and the flock's
 * groups, and the viewer's hand control of any one steering agent: plain text and plain
 * logic over the public API (no GL), so that tests check them without a window. */
#ifndef HERD_CLI_STEERING_UI_H
#define HERD_CLI_STEERING_UI_H
#include <stdbool.h>
#include <stddef.h>

#include "herd/herd.h"

/* The groups as Lien's shepherds see them: "groups 3 found, 2 tracked  flock state 2 (groups
 * <= shepherds)", `brief` (a terminal's progress line): "groups 3/2  state 2"; the state is the
 * shepherds' (each shepherd's, "2/3", where they differ), left out before they first judged it
 * or without shepherds. "" when the sim has no shepherd and does not observe groups
 * (herd_scenario_info.observes_groups). */
void steering_ui_groups(const herd_sim *sim, bool brief, char *out, size_t size);

/* The HUD's lines about every steering agent, one entry each: its index (the viewer's number
 * key), strategy and mode, and for a shepherd the group it works on: "#1 shepherd steer, group
 * 0". The entry of `selected` (-1: none) starts with ">" and says "(mouse)" while `manual`.
 * One entry a line up to HUD_ONE_PER_LINE agents, else HUD_PER_LINE a line. */
#define HUD_ONE_PER_LINE 6
#define HUD_PER_LINE 3
void steering_ui_hud(const herd_sim *sim, int selected, bool manual, char *out, size_t size);

/* The progress line's part on the steering agents: each run of agents of one strategy by its
 * strategy, index range and modes in index order: "shepherd0-2 approach/steer/hold  dog3
 * collect"; "" without steering agents. */
void steering_ui_progress(const herd_sim *sim, char *out, size_t size);

/* The viewer's hand control: the steering agent its keys act on, and whether the mouse steers
 * it. Every steering agent but a food particle can be selected. */
typedef struct steering_pick {
  int selected; /* -1: none (no steering agent to select) */
  bool manual;  /* the selected agent follows the mouse (herd_sim_steer) */
} steering_pick;

/* The first selectable agent, under the strategies' control. */
void steering_pick_start(steering_pick *p, const herd_sim *sim);

/* After a restart (a new sim): keeps the selection and hand control where the new sim has that
 * agent, else starts again. */
void steering_pick_restart(steering_pick *p, const herd_sim *sim);

/* Selects agent `index` (ignored when it does not exist or cannot be selected). Under hand
 * control the previous agent goes back to its strategy and the mouse steers the new one. */
void steering_pick_select(steering_pick *p, herd_sim *sim, int index);

/* Selects the next (step 1) or previous (step -1) selectable agent, round the list. */
void steering_pick_next(steering_pick *p, herd_sim *sim, int step);

/* Hands the selected agent to the mouse, or gives it back to its strategy (herd_sim_release). */
void steering_pick_toggle_manual(steering_pick *p, herd_sim *sim);

/* Before each step: under hand control, the selected agent heads for `aim` (world.dims
 * numbers). False when no agent took it: none is under hand control, or the aim is not a point
 * (a coordinate not finite: the cursor off the ground), and the agent keeps its last aim. */
bool steering_pick_steer(const steering_pick *p, herd_sim *sim, const float *aim);

#endif
