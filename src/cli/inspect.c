/* Click to inspect: a host-side look at one flock agent through the mapped state (a scan of
 * the flock per click, and per frame one brute-force neighbour query for that agent). */
#include "inspect.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/agent.h" /* herd_sim_map_state's agent words: herd_agent_id */

typedef struct mapped {
  const float *pos, *vel;
  const uint32_t *agent;
  uint32_t count, stride, dims;
} mapped;

static bool map(herd_sim *sim, mapped *m) {
  herd_error err;
  herd_scenario_info sc = herd_scenario_describe(herd_sim_scenario(sim));
  m->count = sc.count, m->dims = sc.dims, m->stride = m->dims == 3 ? 4 : 2;
  return herd_sim_map_state(sim, &m->pos, &m->vel, &m->agent, &err) == HERD_OK;
}

static void point_of(const mapped *m, uint32_t i, float out[3]) {
  out[0] = m->pos[(size_t)i * m->stride], out[1] = m->pos[(size_t)i * m->stride + 1];
  out[2] = m->dims == 3 ? m->pos[(size_t)i * m->stride + 2] : 0.0f;
}

/* The index in the mapped order of agent `id`; UINT32_MAX when none has it. */
static uint32_t index_of(const mapped *m, uint32_t id) {
  for (uint32_t i = 0; i < m->count; ++i)
    if ((herd_agent_id(m->agent[i])) == id) return i;
  return UINT32_MAX;
}

uint32_t inspect_nearest(herd_sim *sim, const herd_camera *cam, int w, int h, double px, double py) {
  mapped m;
  if (!map(sim, &m)) return UINT32_MAX;
  double best = INSPECT_PICK_PX * INSPECT_PICK_PX;
  uint32_t found = UINT32_MAX;
  for (uint32_t i = 0; i < m.count; ++i) {
    float p[3];
    double at[2];
    point_of(&m, i, p);
    if (!herd_camera_to_pixel(cam, p, w, h, at)) continue;
    double d2 = (at[0] - px) * (at[0] - px) + (at[1] - py) * (at[1] - py);
    if (d2 <= best) best = d2, found = herd_agent_id(m.agent[i]);
  }
  return found;
}

void inspect_pick(inspector *in, herd_sim *sim, const herd_camera *cam, int w, int h, double px, double py) {
  inspect_agent(in, sim, inspect_nearest(sim, cam, w, h, px, py));
}

void inspect_agent(inspector *in, herd_sim *sim, uint32_t id) {
  herd_error err;
  in->on = id != UINT32_MAX;
  in->id = id;
  in->terms_na[0] = '\0';
  if (herd_sim_explain(sim, id, &err) != HERD_OK && in->on)
    snprintf(in->terms_na, sizeof in->terms_na, "%.150s", err.message);
}

uint32_t inspect_nearest_ids(herd_sim *sim, uint32_t id, uint32_t n, uint32_t *out) {
  mapped m;
  uint32_t self;
  if (!map(sim, &m) || (self = index_of(&m, id)) == UINT32_MAX) return 0;
  float p[3], q[3];
  point_of(&m, self, p);
  float *d2 = malloc((n ? n : 1) * sizeof *d2);
  uint32_t found = 0;
  for (uint32_t i = 0; d2 && i < m.count; ++i) {
    if (i == self) continue;
    point_of(&m, i, q);
    float d = (q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]) + (q[2] - p[2]) * (q[2] - p[2]);
    uint32_t at = found < n ? found++ : n;
    if (at == n && (n == 0 || d >= d2[n - 1])) continue;
    if (at == n) at = n - 1;
    while (at > 0 && d2[at - 1] > d) d2[at] = d2[at - 1], out[at] = out[at - 1], --at;
    d2[at] = d, out[at] = herd_agent_id(m.agent[i]);
  }
  free(d2);
  return found;
}

uint32_t inspect_within_ids(herd_sim *sim, uint32_t id, float radius_m, uint32_t max, uint32_t *out) {
  mapped m;
  uint32_t self, found = 0;
  if (!map(sim, &m) || (self = index_of(&m, id)) == UINT32_MAX) return 0;
  float p[3], q[3];
  point_of(&m, self, p);
  for (uint32_t i = 0; i < m.count && found < max; ++i) {
    point_of(&m, i, q);
    float d = (q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]) + (q[2] - p[2]) * (q[2] - p[2]);
    if (i != self && d < radius_m * radius_m) out[found++] = herd_agent_id(m.agent[i]);
  }
  return found;
}

/* The neighbours the model's update reads (marks: its n nearest, or those within its
 * interaction radius), ids into out[] (room for `max`), and a line saying which. */
static uint32_t neighbours_of(herd_sim *sim, uint32_t id, uint32_t max, uint32_t *out, char *line, size_t size) {
  herd_model_marks marks = herd_sim_model_marks(sim);
  uint32_t n = 0;
  if (marks.nearest_n) {
    n = inspect_nearest_ids(sim, id, marks.nearest_n < max ? marks.nearest_n : max, out);
    snprintf(line, size, "neighbours: its %u nearest (ringed)\n", n);
  } else if (isfinite(marks.interaction_m)) {
    n = inspect_within_ids(sim, id, marks.interaction_m, max, out);
    snprintf(line, size, "neighbours: the %u within %.2f m (ringed)\n", n, (double)marks.interaction_m);
  } else {
    snprintf(line, size, "neighbours: n/a for %s\n",
             herd_model_name(herd_scenario_describe(herd_sim_scenario(sim)).model));
  }
  return n;
}

/* The terms of its last update, one line each, and their sum's direction. */
size_t inspect_terms(const inspector *in, const herd_sim *sim, char *out, size_t size) {
  if (in->terms_na[0]) return (size_t)snprintf(out, size, "%s\n", in->terms_na);
  herd_update_terms t;
  if (!herd_sim_update_terms(sim, &t) || t.id != in->id)
    return (size_t)snprintf(out, size, "terms: after the next step\n");
  if (!t.moved) return (size_t)snprintf(out, size, "terms of step %u: it stood still (grazing)\n", t.step);
  size_t used = (size_t)snprintf(out, size, "terms of step %u (weight x direction):\n", t.step);
  float sum[3] = {0, 0, 0};
  for (uint32_t k = 0; k < t.count && used < size; ++k) {
    used += (size_t)snprintf(out + used, size - used, "  %-24s %5.2f x (%+.3f, %+.3f, %+.3f)\n", t.term[k].name,
                             t.term[k].weight, t.term[k].dir[0], t.term[k].dir[1], t.term[k].dir[2]);
    for (int c = 0; c < 3; ++c) sum[c] += t.term[k].weight * t.term[k].dir[c];
  }
  if (used < size)
    used += (size_t)snprintf(out + used, size - used, "  sum                      (%+.3f, %+.3f, %+.3f)\n", sum[0],
                             sum[1], sum[2]);
  return used;
}

void inspect_update(inspector *in, herd_sim *sim, herd_renderer *r) {
  mapped m;
  uint32_t self;
  in->text[0] = '\0';
  if (!in->on || !map(sim, &m) || (self = index_of(&m, in->id)) == UINT32_MAX) {
    herd_renderer_inspect(r, NULL, NULL, 0);
    return;
  }
  float p[3], v[3] = {m.vel[(size_t)self * m.stride], m.vel[(size_t)self * m.stride + 1],
                      m.dims == 3 ? m.vel[(size_t)self * m.stride + 2] : 0.0f};
  point_of(&m, self, p);
  uint32_t *ids = malloc(INSPECT_MAX_RINGS * sizeof *ids);
  float *near = malloc((size_t)INSPECT_MAX_RINGS * 3 * sizeof *near);
  char which[96] = "";
  uint32_t n = ids && near ? neighbours_of(sim, in->id, INSPECT_MAX_RINGS, ids, which, sizeof which) : 0;
  map(sim, &m); /* the same state: mapping again is a no-op on the CPU, a fresh copy on a device */
  for (uint32_t k = 0; k < n; ++k) point_of(&m, index_of(&m, ids[k]), near + 3 * k);
  herd_renderer_inspect(r, p, near, n);
  size_t used = (size_t)snprintf(in->text, sizeof in->text,
                                 "\nagent %u  at (%.2f, %.2f, %.2f) m  heading (%+.3f, %+.3f, %+.3f)\n", in->id, p[0],
                                 p[1], p[2], v[0], v[1], v[2]);
  if (used < sizeof in->text) used += (size_t)snprintf(in->text + used, sizeof in->text - used, "%s", which);
  if (used < sizeof in->text && in->terms)
    snprintf(in->text + used, sizeof in->text - used, "%s", in->terms);
  else if (used < sizeof in->text)
    inspect_terms(in, sim, in->text + used, sizeof in->text - used);
  free(ids);
  free(near);
}
