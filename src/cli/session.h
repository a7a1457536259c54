/* What herd view and herd record share: a backend chosen before the window, the window
 * (visible or hidden), the renderer, and the simulation drawing into it, with the flock's
 * buffers shared between OpenCL and GL when the device allows. */
#ifndef HERD_CLI_SESSION_H
#define HERD_CLI_SESSION_H
#include "../render/render.h"
#include "cli.h"
#include "steering_ui.h"

/* Room for the HUD's text: a line per steering agent at most. */
#define HUD_TEXT_MAX 4096

typedef struct gl_session_desc {
  backend_args backend;
  int width, height;
  bool hidden;
} gl_session_desc;

typedef struct gl_session {
  herd_scenario *sc; /* loaded by the caller before gl_session_open; gl_session_close frees it */
  gl_session_desc desc;
  herd_backend_choice choice;
  bool share;
  char share_why[160]; /* the buffer path in words, for the HUD */
  herd_window *win;
  herd_renderer *renderer;
  herd_gl_share gl;
  herd_sim *sim;
} gl_session;

/* Chooses the backend, opens the window and renderer, starts the sim. Returns 0 or an exit
 * status (after printing the error). */
int gl_session_open(gl_session *s, const gl_session_desc *desc);

/* Starts (or restarts, after herd_sim_destroy) the sim on the session's scenario. */
int gl_session_start_sim(gl_session *s);

void gl_session_close(gl_session *s);

/* The HUD's lines that depend only on the simulation and the viewer's keys (so recordings stay
 * reproducible): step, N, delivered, outcome; the groups and the shepherds' flock state; every
 * steering agent's strategy and mode, `pick`'s selection marked (NULL: none); backend, device
 * and buffer path. */
void gl_session_status(const gl_session *s, const char *rates, const steering_pick *pick, char *out, size_t size);

#endif
