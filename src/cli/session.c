#include "session.h"

#include <stdio.h>

#include "cli.h"

int gl_session_start_sim(gl_session *s) {
  herd_error err;
  herd_sim_desc desc = {.scenario = &s->sc,
                        .threads = s->desc.backend.threads,
                        .backend = s->choice.backend,
                        .device = s->choice.device,
                        .gl_share = s->share ? &s->gl : NULL,
                        .stop = &cli_stop};
  if (herd_sim_create(&desc, &s->sim, &err) != HERD_OK) return cli_error(&err);
  if (s->share && !herd_sim_shares_gl(s->sim)) snprintf(s->share_why, sizeof s->share_why, "copy: sharing refused");
  return 0;
}

int gl_session_open(gl_session *s, const gl_session_desc *desc) {
  herd_error err;
  s->desc = *desc;
  if (herd_choose_backend(desc->backend.backend, desc->backend.device, &s->choice, &err) != HERD_OK)
    return cli_error(&err);
  if (*s->choice.note) fprintf(stderr, "herd: %s\n", s->choice.note);
  s->share = herd_share_decide(s->choice.backend, s->choice.extensions, desc->backend.no_share, s->share_why,
                               sizeof s->share_why);
  herd_window_desc wd = {.width = desc->width, .height = desc->height, .hidden = desc->hidden, .title = "herd"};
  if (herd_window_open(&wd, &s->win, &err) != HERD_OK) return cli_fail(1, "%s", err.message);
  if (herd_renderer_create(s->sc.sheep.count, &s->renderer, &err) != HERD_OK) return cli_fail(1, "%s", err.message);
  s->gl = herd_renderer_share(s->renderer, s->win);
  return gl_session_start_sim(s);
}

void gl_session_close(gl_session *s) {
  herd_sim_destroy(s->sim);
  herd_renderer_destroy(s->renderer);
  herd_window_close(s->win);
  s->sim = NULL, s->renderer = NULL, s->win = NULL;
}

void gl_session_status(const gl_session *s, const char *rates, char *out, size_t size) {
  const herd_observation *o = herd_sim_observation(s->sim);
  const char *mode = herd_sim_dog_count(s->sim) ? herd_dog_mode_name(herd_sim_dog(s->sim, 0)->mode) : "none";
  const char *outcome = herd_sim_outcome(s->sim) == HERD_SUCCEEDED    ? "  HERDED"
                        : herd_sim_outcome(s->sim) == HERD_STEP_LIMIT ? "  step limit"
                                                                      : "";
  snprintf(out, size, "step %u%s  N %u  delivered %u  dog %s%s\n%s (%s)  %s", herd_sim_step_index(s->sim), rates,
           o->count, o->delivered, mode, outcome, herd_sim_backend(s->sim), herd_sim_device(s->sim), s->share_why);
}
