/* The strategy table and the simple strategies: cruiser, pursuer, manual. */
#include <math.h>

#include "../../kernels/grid.h"
#include "../../kernels/models/strombom_params.h"
#include "lien.h"
#include "steer.h"

void herd_steer_wrap(const herd_scenario *sc, float pos[3]) {
  for (uint32_t k = 0; k < sc->world.dims; ++k)
    if (sc->world.wrap[k]) pos[k] = herd_wrap_coord(pos[k], sc->world.size_m[k]);
}

bool herd_steer_toward(const herd_scenario *sc, herd_steering_state *agent, const float aim[3], float speed) {
  float d[3] = {0, 0, 0}, len2 = 0;
  for (uint32_t k = 0; k < sc->world.dims; ++k) {
    d[k] = aim[k] - agent->pos[k];
    if (sc->world.wrap[k]) d[k] = herd_wrap_offset(d[k], sc->world.size_m[k]);
    len2 += d[k] * d[k];
  }
  if (len2 <= 0.0f) return false;
  float len = sqrtf(len2), move = len < speed ? len : speed;
  for (uint32_t k = 0; k < 3; ++k) {
    agent->heading[k] = d[k] / len;
    agent->pos[k] += move * agent->heading[k];
  }
  herd_steer_wrap(sc, agent->pos);
  return true;
}

static void dog_step(const herd_steer_context *ctx, uint32_t index, herd_steering_state *agent) {
  herd_strombom_dog_step(&ctx->dog, ctx->obs, index, ctx->sc->seed, ctx->step, agent);
}

/* Straight on along its heading. */
static void cruiser_step(const herd_steer_context *ctx, uint32_t index, herd_steering_state *agent) {
  (void)index;
  agent->mode = HERD_MODE_CRUISE;
  for (uint32_t k = 0; k < 3; ++k) agent->pos[k] += agent->speed_m_per_step * agent->heading[k];
  herd_steer_wrap(ctx->sc, agent->pos);
}

/* Toward the flock agent nearest to it (the observation's), at its own speed. */
static void pursuer_step(const herd_steer_context *ctx, uint32_t index, herd_steering_state *agent) {
  agent->mode = HERD_MODE_PURSUE;
  if (ctx->obs->count == 0) return;
  herd_steer_toward(ctx->sc, agent, ctx->obs->nearest[index].pos, agent->speed_m_per_step);
}

/* True when food particle `index` has been eaten: gone already, or an agent ended the last
 * step within food.eat_radius_m of it. */
static bool food_eaten(const herd_steer_context *ctx, uint32_t index) {
  const herd_steering_state *a = &ctx->agents[index];
  return a->mode == HERD_MODE_EATEN || ctx->obs->nearest[index].dist_m <= ctx->sc->food.eat_radius_m;
}

/* A food particle stays where it lies until eaten. Of those still there, the one nearest to
 * any agent is the flock's best find (the particle swarm's gbest) once an agent is within
 * food.sense_radius_m of it; ties go to the first. */
static void food_step(const herd_steer_context *ctx, uint32_t index, herd_steering_state *agent) {
  if (ctx->obs->count == 0 || food_eaten(ctx, index)) {
    agent->mode = ctx->obs->count == 0 ? agent->mode : HERD_MODE_EATEN;
    return;
  }
  float mine = ctx->obs->nearest[index].dist_m;
  bool best = mine <= ctx->sc->food.sense_radius_m;
  for (uint32_t f = 0; best && f < ctx->agent_count; ++f) {
    if (f == index || ctx->agents[f].strategy != HERD_STRATEGY_FOOD || food_eaten(ctx, f)) continue;
    float other = ctx->obs->nearest[f].dist_m;
    best = other > mine || (other == mine && f > index);
  }
  agent->mode = best ? HERD_MODE_FOOD_BEST : HERD_MODE_FOOD;
}

/* Nothing, until the user takes it (herd_sim_steer). */
static void manual_step(const herd_steer_context *ctx, uint32_t index, herd_steering_state *agent) {
  (void)ctx, (void)index;
  agent->mode = HERD_MODE_IDLE;
}

const herd_steer_fn herd_strategies[HERD_STRATEGY_COUNT] = {
    [HERD_STRATEGY_DOG] = dog_step,         [HERD_STRATEGY_CRUISER] = cruiser_step,
    [HERD_STRATEGY_PURSUER] = pursuer_step, [HERD_STRATEGY_MANUAL] = manual_step,
    [HERD_STRATEGY_FOOD] = food_step,       [HERD_STRATEGY_SHEPHERD] = herd_lien_shepherd_step,
};

bool herd_steer_reads_sectors(const herd_scenario *sc, herd_strategy strategy) {
  return strategy == HERD_STRATEGY_DOG && sc->dogs.team != HERD_DOG_TEAM_ALONE;
}

/* The dog's parameters from a Strömbom scenario (its sheep's parameters and its dogs), with
 * the route built for it. */
static herd_strombom_dog_params dog_params_for(const herd_scenario *sc, const herd_route *route) {
  const herd_strombom_params *sheep = (const herd_strombom_params *)sc->params.bytes;
  return (herd_strombom_dog_params){
      .repulsion_radius_m = sheep->repulsion_radius_m,
      .sheep_count = sc->flock.count,
      .target_m = {sc->target.position_m[0], sc->target.position_m[1]},
      .speed_m_per_step = sc->dogs.speed_m_per_step,
      .noise = sc->dogs.noise,
      .stop = sc->dogs.stop,
      .gathered = sc->dogs.gathered,
      .dog_radius_m = sheep->dog_radius_m,
      .count_remaining = sheep->success == HERD_STROMBOM_SUCCESS_REMOVE_DELIVERED,
      .sc = sc,
      .route = route,
      .waypoints = sc->dogs.rules == HERD_DOG_RULES_WAYPOINTS,
      .team = sc->dogs.team,
      .dog_count = herd_scenario_dog_count(sc),
      .team_compact = sc->dogs.team_compact,
      .team_margin = sc->dogs.team_margin,
      .team_reach_m = sc->dogs.team_reach_m,
      .arc_rad = sc->dogs.arc_deg * 0.0174532925199432958f,
  };
}

herd_steer_context herd_steer_context_for(const herd_scenario *sc) {
  herd_steer_context ctx = {.sc = sc};
  if (sc->model == HERD_MODEL_STROMBOM) ctx.dog = dog_params_for(sc, herd_route_build(sc));
  return ctx;
}

void herd_steer_context_refresh(herd_steer_context *ctx, const herd_scenario *sc) {
  ctx->sc = sc;
  if (sc->model == HERD_MODEL_STROMBOM) ctx->dog = dog_params_for(sc, ctx->dog.route);
}

bool herd_steer_flock_waypoint(const herd_steer_context *ctx, const herd_observation *obs, float out[2]) {
  return herd_strombom_dog_waypoint(&ctx->dog, obs, out);
}

void herd_steer_context_free(herd_steer_context *ctx) {
  herd_route_free((herd_route *)ctx->dog.route);
  ctx->dog.route = NULL;
}
