/* The viewer's parameter edits: P picks the next field herd_sim_set_param can change,
 * [ and ] lower and raise it by 10 %, the HUD shows it, and every change is logged: one line on
 * stderr (step, path, old -> new) and, with --log-edits FILE, one CSV row. Plain logic over the
 * public API (no GL), so tests check it without a window. */
#ifndef HERD_CLI_PARAM_EDIT_H
#define HERD_CLI_PARAM_EDIT_H
#include <stdio.h>

#include "../util/outfile.h"
#include "herd/herd.h"

#define PARAM_EDIT_STEP 0.1 /* [ divides by 1 + this, ] multiplies by it */

typedef struct param_edit {
  int selected;     /* an index for herd_sim_param_name; -1: none picked yet */
  herd_outfile log; /* --log-edits: written under a temporary name, kept by param_edit_close */
  bool logging;
  uint32_t edits;
} param_edit;

/* Opens the --log-edits FILE (unless path is NULL) and writes its header "step,path,old,new". */
herd_status param_edit_open(param_edit *e, const char *path, bool force, herd_error *err);

/* Keeps the log (renamed into place); the edits made so far are in it. */
herd_status param_edit_close(param_edit *e, herd_error *err);

/* P: the next field the sim can change (after the last, the first again). */
void param_edit_next(param_edit *e, const herd_sim *sim);

/* [ (direction -1) or ] (+1): the selected field times or over 1 + PARAM_EDIT_STEP (a whole
 * number by at least 1; from 0, ] gives PARAM_EDIT_STEP or 1), from the next step on. Logs the
 * change; a value the scenario does not allow is refused with --set's message on stderr and
 * changes nothing. Returns the status of herd_sim_set_param (HERD_OK with nothing picked). */
herd_status param_edit_change(param_edit *e, herd_sim *sim, int direction);

/* The value the field would take: `value` raised (+1) or lowered (-1) by one step. */
double param_edit_stepped(double value, bool whole, int direction);

/* The HUD's line: "param sheep.repulsion = 2  (P next, [ ] -/+10 %)", or the hint to press P. */
void param_edit_hud(const param_edit *e, const herd_sim *sim, char *out, size_t size);

#endif
