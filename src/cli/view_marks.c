/* --overlays and --camera for herd view and herd record: parsing, the check against the
 * scenario, and the camera they give (the work is in src/render/overlays.c). */
#include "view_marks.h"

#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "options.h"

int view_marks_overlays(const char *value, view_marks *m) {
  char why[300];
  if (!herd_overlays_parse(value, &m->overlays, why, sizeof why)) return cli_fail(EXIT_BAD_INPUT, "%s", why);
  return 0;
}

int view_marks_camera(const char *value, view_marks *m) {
  char why[300];
  if (!herd_camera_spec_parse(value, &m->camera, why, sizeof why)) return cli_fail(EXIT_BAD_INPUT, "%s", why);
  return 0;
}

int view_marks_agent(const char *option, const char *value, long *out) {
  char *end;
  long id = strtol(value, &end, 10);
  if (end == value || *end || id < 0 || id > 100000000)
    return cli_fail(EXIT_BAD_INPUT, "%s: \"%s\" is not allowed (allowed: a flock agent's id, 0 to sheep.count - 1)",
                    option, value);
  *out = id;
  return 0;
}

int view_marks_check(const view_marks *m, const herd_scenario *sc) {
  char why[300];
  herd_camera c;
  if (m->camera.given && !herd_camera_from_spec(&m->camera, sc, 64, 64, &c, why, sizeof why))
    return cli_fail(EXIT_BAD_INPUT, "%s", why);
  return 0;
}

herd_camera view_marks_camera_for(const view_marks *m, const herd_sim *sim, int w, int h, const char *hud) {
  herd_camera c;
  char why[300];
  if (m->camera.given && herd_camera_from_spec(&m->camera, herd_sim_scenario(sim), w, h, &c, why, sizeof why)) return c;
  return herd_camera_below(herd_camera_for_sim(sim, w, h), h, herd_hud_height_px(hud, h));
}

void view_marks_toggle(herd_renderer *r, int k) {
  uint32_t mask = herd_renderer_overlays(r) ^ (1u << k);
  herd_renderer_set_overlays(r, mask);
  printf("herd view: overlay %s %s\n", herd_overlay_name(k), mask & (1u << k) ? "on" : "off");
}

const struct option view_marks_options[] = {
    {"overlays", required_argument, NULL, OPT_OVERLAYS},
    {"camera", required_argument, NULL, OPT_CAMERA},
    {0, 0, 0, 0},
};

int view_marks_option(view_marks *m, int code, const char *value) {
  if (code == OPT_OVERLAYS) return view_marks_overlays(value, m) ? EXIT_BAD_INPUT : CLI_GO_ON;
  if (code == OPT_CAMERA) return view_marks_camera(value, m) ? EXIT_BAD_INPUT : CLI_GO_ON;
  return CLI_NOT_MINE;
}
