#include "session.h"

#include <stdio.h>

#include "cli.h"
#include "options.h"

int gl_session_start_sim(gl_session *s) {
  herd_error err;
  herd_sim_desc desc = {.scenario = s->sc,
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
  if (*s->choice.note) cli_note("%s", s->choice.note);
  s->share = herd_share_decide(s->choice.backend, s->choice.extensions, desc->backend.no_share, s->share_why,
                               sizeof s->share_why);
  herd_window_desc wd = {.width = desc->width, .height = desc->height, .hidden = desc->hidden, .title = "herd"};
  if (herd_window_open(&wd, &s->win, &err) != HERD_OK) return cli_fail(1, "%s", err.message);
  herd_scenario_info sc = herd_scenario_describe(s->sc);
  if (herd_renderer_create(sc.count, sc.dims, &s->renderer, &err) != HERD_OK) return cli_fail(1, "%s", err.message);
  s->gl = herd_renderer_share(s->renderer, s->win);
  return gl_session_start_sim(s);
}

void gl_session_close(gl_session *s) {
  herd_sim_destroy(s->sim);
  herd_renderer_destroy(s->renderer);
  herd_window_close(s->win);
  herd_scenario_free(s->sc);
  s->sim = NULL, s->renderer = NULL, s->win = NULL, s->sc = NULL;
}

void gl_session_status(const gl_session *s, const char *rates, const steering_pick *pick, char *out, size_t size) {
  const herd_observation *o = herd_sim_observation(s->sim);
  herd_scenario_info sc = herd_scenario_describe(herd_sim_scenario(s->sim));
  const char *outcome = herd_sim_outcome(s->sim) == HERD_SUCCEEDED    ? "  HERDED"
                        : herd_sim_outcome(s->sim) == HERD_STEP_LIMIT ? "  step limit"
                                                                      : "";
  char goal[64] = "", groups[160], steering[HUD_TEXT_MAX / 2];
  if (sc.goal_radius_m >= 0.0f) snprintf(goal, sizeof goal, "  delivered %u", o->delivered);
  steering_ui_groups(s->sim, false, groups, sizeof groups);
  steering_ui_hud(s->sim, pick ? pick->selected : -1, pick && pick->manual, steering, sizeof steering);
  snprintf(out, size, "%s  step %u%s  N %u%s  pol %.2f  mill %.2f%s\n%s%s%s%s%s (%s)  %s", herd_model_name(sc.model),
           herd_sim_step_index(s->sim), rates, o->count, goal, o->polarisation, o->milling, outcome, groups,
           *groups ? "\n" : "", steering, *steering ? "\n" : "", herd_sim_backend(s->sim), herd_sim_device(s->sim),
           s->share_why);
}
