/* Click to inspect: the flock agent nearest a click, its neighbours
 * ringed, and its id, position, heading and the terms of its last update in the HUD. */
#ifndef HERD_CLI_INSPECT_H
#define HERD_CLI_INSPECT_H
#include "../render/render.h"

/* A click picks the agent drawn nearest to it within this many pixels. */
#define INSPECT_PICK_PX 8.0

/* At most this many neighbours are ringed (a dense flock's interaction radius can hold more). */
#define INSPECT_MAX_RINGS 4096u

typedef struct inspector {
  bool on;
  uint32_t id;
  char terms_na[160]; /* why there are no terms (the model or backend cannot give them); "" when it can */
  char text[1536];    /* the HUD's lines for it */
  const char *terms;  /* NULL, or the terms' lines as inspect_terms gave them for another copy
                         of the sim (the web page's, stepped in a worker), shown instead */
} inspector;

/* The flock agent drawn nearest pixel (px, py) of a w x h view through cam, within
 * INSPECT_PICK_PX; UINT32_MAX when none is. */
uint32_t inspect_nearest(herd_sim *sim, const herd_camera *cam, int w, int h, double px, double py);

/* Inspects the agent nearest the click, or stops inspecting when none is near it. */
void inspect_pick(inspector *in, herd_sim *sim, const herd_camera *cam, int w, int h, double px, double py);

/* Inspects agent `id` from now on (--inspect). */
void inspect_agent(inspector *in, herd_sim *sim, uint32_t id);

/* The lines on the terms of the inspected agent's last update (herd_sim_explain's), into out. */
size_t inspect_terms(const inspector *in, const herd_sim *sim, char *out, size_t size);

/* For the frame about to be drawn: the rings (herd_renderer_inspect) and the text. */
void inspect_update(inspector *in, herd_sim *sim, herd_renderer *r);

/* The n nearest flock agents to agent `id` (brute force over the mapped state), their ids in
 * out[] nearest first; returns how many (fewer when the flock is smaller). */
uint32_t inspect_nearest_ids(herd_sim *sim, uint32_t id, uint32_t n, uint32_t *out);

/* The flock agents within `radius_m` of agent `id` (straight distance: a wrapping world's
 * seam is not crossed), at most `max`, their ids in out[]; returns how many. */
uint32_t inspect_within_ids(herd_sim *sim, uint32_t id, float radius_m, uint32_t max, uint32_t *out);

#endif
