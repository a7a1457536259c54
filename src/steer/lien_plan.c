/* The plan every Lien shepherd computes alike (§4, §6): the groups and their milestones, the
 * flock's state, how many steering points each group gets and where, and who takes which. */
#include <math.h>
#include <string.h>

#include "lien.h"

/* ---- Groups ------------------------------------------------------------------------------- */

/* Where group g is steered toward the goal: the route's waypoint radius + epsilon down the field
 * from its centre (just past its front), or the target without a route. */
static void milestone_of(const herd_steer_context *ctx, herd_lien_group *g) {
  const herd_scenario *sc = ctx->sc;
  g->milestone[0] = sc->target.position_m[0], g->milestone[1] = sc->target.position_m[1];
  if (ctx->dog.route)
    herd_route_waypoint(ctx->dog.route, g->centre, g->radius_m + sc->shepherds.margin_m, g->milestone);
}

/* The whole flock as one group, from the global observation: no heading is known for it. */
static herd_lien_group whole_flock(const herd_observation *o) {
  herd_lien_group g = {.index = -1, .count = o->count, .radius_m = o->farthest_dist_m};
  g.centre[0] = (float)o->centroid[0], g.centre[1] = (float)o->centroid[1];
  return g;
}

uint32_t herd_lien_groups(const herd_steer_context *ctx, herd_lien_group out[HERD_MAX_GROUPS]) {
  const herd_observation *o = ctx->obs;
  uint32_t n = o->group_count ? o->groups_tracked : 0u;
  if (n > HERD_MAX_GROUPS) n = HERD_MAX_GROUPS;
  for (uint32_t i = 0; i < n; ++i) {
    const herd_group *src = &o->group[i];
    out[i] = (herd_lien_group){.index = (int32_t)i, .count = src->count, .radius_m = src->radius_m};
    out[i].centre[0] = (float)src->centroid[0], out[i].centre[1] = (float)src->centroid[1];
    out[i].heading[0] = src->heading[0], out[i].heading[1] = src->heading[1];
  }
  if (n == 0 && o->count > 0) out[n++] = whole_flock(o);
  for (uint32_t i = 0; i < n; ++i) milestone_of(ctx, &out[i]);
  return n;
}

/* ---- States and the share of shepherds ---------------------------------------------------- */

uint32_t herd_lien_flock_state(uint32_t groups, uint32_t shepherds) {
  if (groups <= 1) return 1;
  return groups <= shepherds ? 2 : 3;
}

void herd_lien_share(uint32_t shepherds, uint32_t groups, const uint32_t count[], uint32_t out[]) {
  double all = 0.0, quota[HERD_MAX_GROUPS];
  uint32_t sum = 0;
  for (uint32_t i = 0; i < groups; ++i) all += count[i];
  for (uint32_t i = 0; i < groups; ++i) {
    quota[i] = all > 0.0 ? shepherds * (double)count[i] / all : (double)shepherds / groups;
    out[i] = quota[i] >= 1.0 ? (uint32_t)floor(quota[i]) : 1u;
    sum += out[i];
  }
  while (sum < shepherds) { /* the largest remainder first; ties: the earlier (larger) group */
    uint32_t best = 0;
    for (uint32_t i = 1; i < groups; ++i)
      if (quota[i] - out[i] > quota[best] - out[best]) best = i;
    ++out[best], ++sum;
  }
  while (sum > shepherds) { /* the floor of one cost a seat: from the most over-served; ties: the later */
    uint32_t best = groups;
    for (uint32_t i = 0; i < groups; ++i)
      if (out[i] > 1 && (best == groups || out[i] - quota[i] >= out[best] - quota[best])) best = i;
    if (best == groups) break; /* more groups than shepherds: not state 2 */
    --out[best], --sum;
  }
}

/* A group with more than half of all the groups' members (the largest, group 0, if any). */
static int32_t dominant_group(const herd_lien_plan *p) {
  uint64_t all = 0;
  for (uint32_t i = 0; i < p->group_count; ++i) all += p->group[i].count;
  return p->group_count && 2u * (uint64_t)p->group[0].count > all ? 0 : -1;
}

/* ---- Steering points ---------------------------------------------------------------------- */

/* Points first..first + k - 1 work on group g in this mode. */
static void label_points(herd_lien_plan *p, uint32_t g, herd_steering_mode mode, uint32_t first, uint32_t k) {
  for (uint32_t i = 0; i < k; ++i) p->point_group[first + i] = g, p->point_mode[first + i] = mode;
  p->on_group[g] += k;
}

/* The members' centre of every group but g, weighted by their sizes (g's own centre if none). */
static void others_centre(const herd_lien_plan *p, uint32_t g, float out[2]) {
  double sum[2] = {0, 0}, n = 0;
  for (uint32_t i = 0; i < p->group_count; ++i) {
    if (i == g) continue;
    sum[0] += (double)p->group[i].count * p->group[i].centre[0];
    sum[1] += (double)p->group[i].count * p->group[i].centre[1];
    n += p->group[i].count;
  }
  out[0] = n > 0 ? (float)(sum[0] / n) : p->group[g].centre[0];
  out[1] = n > 0 ? (float)(sum[1] / n) : p->group[g].centre[1];
}

/* k points on group g placed at out->point[first..]: state 1 steers it to its milestone; states
 * 2 and 3 hold the dominant group and bring the others to the merge point. */
static void points_on(const herd_steer_context *ctx, herd_lien_plan *p, uint32_t g, uint32_t first, uint32_t k) {
  const herd_lien_group *grp = &p->group[g];
  float(*at)[2] = &p->point[first];
  if (p->flock_state == 1) {
    label_points(p, g, herd_lien_push(ctx->sc, grp, grp->milestone, k, ctx->step, at), first, k);
  } else if ((int32_t)g == p->dominant) {
    float others[2];
    others_centre(p, g, others);
    herd_lien_hold(ctx->sc, grp, others, k, at);
    label_points(p, g, HERD_MODE_HOLD, first, k);
  } else { /* pushed, turned or stopped as in state 1, toward the merge point */
    herd_lien_push(ctx->sc, grp, p->merge_point, k, ctx->step, at);
    label_points(p, g, HERD_MODE_MERGE, first, k);
  }
}

static double distance_to(const float a[2], const float b[2]) {
  return hypot((double)a[0] - b[0], (double)a[1] - b[1]);
}

/* State 3: the N_s groups farthest from the merge point (ties: the earlier), one shepherd each. */
static void farthest_first(const herd_steer_context *ctx, herd_lien_plan *p) {
  bool taken[HERD_MAX_GROUPS] = {false};
  for (uint32_t s = 0; s < p->shepherds; ++s) {
    uint32_t best = p->group_count;
    for (uint32_t i = 0; i < p->group_count; ++i)
      if (!taken[i] && (best == p->group_count || distance_to(p->group[i].centre, p->merge_point) >
                                                      distance_to(p->group[best].centre, p->merge_point)))
        best = i;
    taken[best] = true;
    points_on(ctx, p, best, s, 1);
  }
}

/* The groups' steering points for the plan's state. */
static void place_points(const herd_steer_context *ctx, herd_lien_plan *p) {
  if (p->flock_state == 1) {
    points_on(ctx, p, 0, 0, p->shepherds);
    return;
  }
  const herd_lien_group *d = p->dominant >= 0 ? &p->group[p->dominant] : NULL;
  /* A dominant group is the merge point; else the largest group's milestone ([ours]: the
   * paper's "closest milestone" of the flock). */
  memcpy(p->merge_point, d ? d->centre : p->group[0].milestone, sizeof p->merge_point);
  if (p->flock_state == 3) {
    farthest_first(ctx, p);
    return;
  }
  uint32_t count[HERD_MAX_GROUPS], share[HERD_MAX_GROUPS], first = 0;
  for (uint32_t i = 0; i < p->group_count; ++i) count[i] = p->group[i].count;
  herd_lien_share(p->shepherds, p->group_count, count, share);
  for (uint32_t i = 0; i < p->group_count; ++i) points_on(ctx, p, i, first, share[i]), first += share[i];
}

/* The projection method's line: perpendicular to the largest group's centre -> milestone (in state
 * 1 the paper's; in states 2 and 3 ours, a line that does not swing as groups come and go). */
static void projection_axis(herd_lien_plan *p) {
  const herd_lien_group *g = &p->group[0];
  double dx = (double)g->milestone[0] - g->centre[0], dy = (double)g->milestone[1] - g->centre[1];
  double len = hypot(dx, dy);
  p->axis[0] = len > 1e-6 ? (float)(-dy / len) : 0.0f;
  p->axis[1] = len > 1e-6 ? (float)(dx / len) : 1.0f;
}

void herd_lien_plan_make(const herd_steer_context *ctx, herd_lien_plan *out) {
  memset(out, 0, sizeof *out);
  const herd_steering_state *agents = ctx->start ? ctx->start : ctx->agents;
  for (uint32_t a = 0; a < ctx->agent_count && out->shepherds < HERD_MAX_STEERING; ++a)
    if (agents[a].strategy == HERD_STRATEGY_SHEPHERD) out->shepherd[out->shepherds++] = a;
  out->group_count = herd_lien_groups(ctx, out->group);
  out->dominant = -1;
  if (out->group_count == 0 || out->shepherds == 0) return;
  out->flock_state = herd_lien_flock_state(out->group_count, out->shepherds);
  out->dominant = dominant_group(out);
  place_points(ctx, out);
  projection_axis(out);
  float s[HERD_MAX_STEERING][2];
  for (uint32_t i = 0; i < out->shepherds; ++i)
    s[i][0] = agents[out->shepherd[i]].pos[0], s[i][1] = agents[out->shepherd[i]].pos[1];
  herd_lien_assign(ctx->sc->shepherds.assignment, out->shepherds, (const float(*)[2])s, (const float(*)[2])out->point,
                   out->axis, out->assigned);
}
