/* Lien et al.'s shepherds: see lien.h. One shepherd's step: the plan (every shepherd's alike),
 * its own point in it, and a step toward that point around the group and the obstacles. */
#include "lien.h"

#include <math.h>

/* Nothing to do: no flock left, or no plan has a place for it. */
static void idle(herd_steering_state *agent) {
  agent->mode = HERD_MODE_IDLE;
  agent->group = -1;
  agent->flock_state = 0;
  agent->aim[0] = agent->aim[1] = agent->aim[2] = NAN;
}

/* A step of at most the shepherd's speed toward `via`, around obstacles (the dogs' way), never
 * past it: a shepherd on its point stays there. */
static void walk(const herd_steer_context *ctx, herd_steering_state *agent, const float via[2]) {
  float next[2];
  herd_route_next(ctx->dog.route, agent->pos, via, next);
  double dx = (double)next[0] - agent->pos[0], dy = (double)next[1] - agent->pos[1], d = hypot(dx, dy);
  if (d <= 0.0) return;
  double step = fmin(agent->speed_m_per_step, d);
  agent->heading[0] = (float)(dx / d), agent->heading[1] = (float)(dy / d), agent->heading[2] = 0.0f;
  herd_route_move(ctx->dog.route, agent->pos, (float)(step * dx / d), (float)(step * dy / d));
}

/* The shepherd is at its point within epsilon (shepherds.margin_m, the formation's own slack) or
 * a step, whichever is more; farther, it is still approaching. */
static bool arrived(const herd_scenario *sc, const herd_steering_state *agent, const float point[2]) {
  double away = hypot((double)point[0] - agent->pos[0], (double)point[1] - agent->pos[1]);
  return away <= fmax(sc->shepherds.margin_m, agent->speed_m_per_step);
}

void herd_lien_shepherd_step(const herd_steer_context *ctx, uint32_t index, herd_steering_state *agent) {
  herd_lien_plan plan;
  herd_lien_plan_make(ctx, &plan);
  uint32_t me = 0;
  while (me < plan.shepherds && plan.shepherd[me] != index) ++me;
  if (plan.flock_state == 0 || me == plan.shepherds) {
    idle(agent);
    return;
  }
  uint32_t j = plan.assigned[me];
  const herd_lien_group *g = &plan.group[plan.point_group[j]];
  const herd_scenario *sc = ctx->sc;
  agent->flock_state = plan.flock_state;
  agent->group = g->index;
  agent->aim[0] = plan.point[j][0], agent->aim[1] = plan.point[j][1], agent->aim[2] = 0.0f;
  agent->mode = arrived(sc, agent, plan.point[j]) ? plan.point_mode[j] : HERD_MODE_APPROACH;
  float via[2];
  herd_lien_approach(sc->shepherds.approach, agent->pos, plan.point[j], g->centre,
                     g->radius_m + sc->shepherds.safe_margin_m, agent->speed_m_per_step, via);
  walk(ctx, agent, via);
}
