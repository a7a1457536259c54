/* The static world every model's step may read, written once for both backends: sphere
 * obstacles (circles in 2D) and the signed-distance field of the 2D geometry (walls, water,
 * pens, bridges: kernels/sdf.h), which no agent ends a step inside, and a guiding path, a
 * vector field along a Bezier curve (kernels/path.h; docs/models/path.md). All live in one
 * float array, `env`, laid out as the step's herd_env_info says:
 *
 *   env[4k .. 4k+3]    sphere k: centre x, y, z (0 in 2D) and radius, k < spheres
 *   env[path_at ..]    the path array of kernels/path.h, when has_path
 *   env[field_at ..]   the field array of kernels/sdf.h, when has_field
 *
 * Obstacles do not wrap: in a wrapping world a sphere sits where it is given. */
#ifndef HERD_KERNELS_ENV_H
#define HERD_KERNELS_ENV_H
#include "agent.h"
#include "path.h"
#include "sdf.h"

typedef struct herd_env_info {
  herd_u32 spheres;     /* sphere records from env[0] */
  herd_u32 path_at;     /* where the path array starts */
  herd_u32 has_path;    /* 0: no path */
  float margin_m;       /* obstacles.margin_m */
  float push;           /* obstacles.push */
  float lookahead_m;    /* path.lookahead_m */
  float path_weight;    /* path.weight */
  herd_u32 has_field;   /* 0: no walls, water, pens or bridges */
  herd_u32 field_at;    /* where the field array starts */
  float eat_radius_m;   /* food.eat_radius_m (food particles are steering agents: agent.h) */
  float sense_radius_m; /* food.sense_radius_m */
  herd_u32 goal_at;     /* the goal pen's corners (x, y each) from here, when goal_points */
  herd_u32 goal_points; /* 0: the goal is the target's circle; else the pen holding the target */
} herd_env_info;

/* 1 when the world has obstacles of any kind (spheres or the field's geometry). */
HERD_INLINE int herd_env_obstacles(const herd_env_info *e) { return e->spheres != 0u || e->has_field != 0u; }

/* The last 5 % of the path's arc length counts as its end (order parameter). */
#define HERD_PATH_END_FRACTION 0.05f

HERD_INLINE herd_vec3 herd_env_centre(HERD_GLOBAL const float *env, herd_u32 k) {
  return herd_v3(env[4u * k], env[4u * k + 1u], env[4u * k + 2u]);
}

/* The push of every sphere and of the field's geometry on an agent at p, times
 * obstacles.push: away from each surface, 0 at the margin's outer edge rising to push at the
 * surface (herd_sphere_push, herd_sdf_push). */
HERD_INLINE herd_vec3 herd_env_push(HERD_GLOBAL const float *env, const herd_env_info *e, herd_vec3 p) {
  herd_vec3 sum = herd_v3(0.0f, 0.0f, 0.0f);
  for (herd_u32 k = 0; k < e->spheres; ++k)
    sum = herd_v3_add(sum, herd_sphere_push(herd_env_centre(env, k), env[4u * k + 3u], e->margin_m, p));
  if (e->has_field) sum = herd_v3_add(sum, herd_sdf_push(env + e->field_at, e->margin_m, p));
  return herd_v3_scale(sum, e->push);
}

/* p, or p moved onto the surface of each sphere it lies inside. Overlapping spheres can push
 * it from one into another: the projections alternate, up to 32 rounds (one when nothing
 * overlaps), which walks it onto the rim where the surfaces meet (tests/test_env.c: two
 * overlapping spheres, 6000 agent-steps on the surface, none inside). */
HERD_INLINE herd_vec3 herd_env_keep_out(HERD_GLOBAL const float *env, const herd_env_info *e, herd_vec3 p) {
  for (int round = 0; round < 32; ++round) {
    int moved = 0;
    for (herd_u32 k = 0; k < e->spheres; ++k) {
      herd_vec3 c = herd_env_centre(env, k);
      if (!herd_sphere_contains(c, env[4u * k + 3u], p)) continue;
      p = herd_sphere_project(c, env[4u * k + 3u], p);
      moved = 1;
    }
    if (!moved) break;
  }
  return p;
}

/* Where an agent that moves from `from` to `to` (a step's result, `delta` = to - from through
 * any wrap) ends: kept out of the field's geometry along the way (herd_sdf_move), then out of
 * every sphere (herd_env_keep_out). Should a sphere's projection put it back inside the
 * geometry, it stays at `from`. */
HERD_INLINE herd_vec3 herd_env_finish_move(HERD_GLOBAL const float *env, const herd_env_info *e, herd_vec3 from,
                                           herd_vec3 to, herd_vec3 delta) {
  if (e->has_field) to = herd_sdf_move(env + e->field_at, from, delta);
  if (e->spheres) {
    to = herd_env_keep_out(env, e, to);
    if (e->has_field && herd_sdf_at(env + e->field_at, to).d < 0.0f) to = from;
  }
  return to;
}

/* The path's target vector at p times path.weight (zero without a path). */
HERD_INLINE herd_vec3 herd_env_guide(HERD_GLOBAL const float *env, const herd_env_info *e, herd_vec3 p) {
  if (!e->has_path) return herd_v3(0.0f, 0.0f, 0.0f);
  return herd_v3_scale(herd_path_target(env + e->path_at, p, e->lookahead_m), e->path_weight);
}

/* True when (p.x, p.y) lies inside the polygon of n corners at `xy` (even-odd rule). */
HERD_INLINE int herd_polygon_contains(HERD_GLOBAL const float *xy, herd_u32 n, herd_vec3 p) {
  int in = 0;
  for (herd_u32 i = 0, j = n - 1u; i < n; j = i++) {
    float xi = xy[2u * i], yi = xy[2u * i + 1u], xj = xy[2u * j], yj = xy[2u * j + 1u];
    if ((yi > p.y) != (yj > p.y) && p.x < (xj - xi) * (p.y - yi) / (yj - yi) + xi) in = !in;
  }
  return in;
}

/* The goal: the interior of the pen that holds the target when there is one (a sheep is home
 * once inside the fence, wherever in the pen), else the circle of goal_radius_m about it. */
HERD_INLINE int herd_env_in_goal(HERD_GLOBAL const float *env, const herd_env_info *e, herd_vec3 p, herd_vec3 goal,
                                 float goal_radius_m) {
  if (e->goal_points) return herd_polygon_contains(env + e->goal_at, e->goal_points, p);
  return herd_in_goal(p, goal, goal_radius_m);
}

#endif
