/* --overlays and --camera, shared by herd view and herd record. */
#ifndef HERD_CLI_VIEW_MARKS_H
#define HERD_CLI_VIEW_MARKS_H
#include <getopt.h>

#include "../render/render.h"

typedef struct view_marks {
  uint32_t overlays;       /* --overlays: herd_renderer_set_overlays's mask */
  herd_camera_spec camera; /* --camera */
} view_marks;

/* --overlays and --camera's rows for a command's option table (options.h), ending in a zero
 * row, and their take function: CLI_GO_ON, EXIT_BAD_INPUT after a one-line error, or
 * CLI_NOT_MINE for another option's code. */
extern const struct option view_marks_options[];
int view_marks_option(view_marks *m, int code, const char *value);

/* Each stores its option's value; 0, or EXIT_BAD_INPUT after a one-line error. */
int view_marks_overlays(const char *value, view_marks *m);
int view_marks_camera(const char *value, view_marks *m);

/* --inspect ID: an agent id (checked against the flock later); 0 or EXIT_BAD_INPUT. */
int view_marks_agent(const char *option, const char *value, long *out);

/* Whether --camera applies to the scenario (x,y,width_m needs a 2D world): 0 or EXIT_BAD_INPUT. */
int view_marks_check(const view_marks *m, const herd_scenario *sc);

/* The camera to draw through: --camera's, or the default fit to the scene (herd_camera_for_sim)
 * in the rows below the HUD's `hud` text (NULL or "": none). */
herd_camera view_marks_camera_for(const view_marks *m, const herd_sim *sim, int w, int h, const char *hud);

/* F1 to F6: overlay k (HERD_OVERLAY_* bit k) on or off, said on stdout. */
void view_marks_toggle(herd_renderer *r, int k);

#endif
