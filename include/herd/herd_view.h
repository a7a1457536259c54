/* herd's hooks for a viewer: what drawing a run needs beyond herd.h. The flock's buffers as
 * the backend holds them (or OpenGL buffers it shares), the agents' groups, the scenario's
 * obstacles and path, the route the dogs follow, the model's marks and one agent's update
 * terms. `herd view` and `herd record` are built on these; a program that only runs
 * simulations needs herd.h alone. */
#ifndef HERD_HERD_VIEW_H
#define HERD_HERD_VIEW_H

#include "herd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Sharing and reading the flock's buffers ------------------------------------------- */

/* OpenGL buffers for the OpenCL backend to share (cl_khr_gl_sharing): it then keeps the
 * flock's state in them, so a renderer draws it with no copy. Each buffer must hold the
 * whole flock: N positions and N velocities (float2 in 2D, float4 in 3D), N uint words. */
struct herd_gl_share {
  void *gl_context; /* the current GLXContext */
  void *display;    /* its X11 Display */
  unsigned pos_buffer, vel_buffer, agent_buffer;
};

/* The flock as the backend holds it (not in id order): N positions and N velocities, as
 * float2 in 2D and float4 (w unused) in 3D, and N agent words (id in the low 28 bits; bit
 * 31 delivered, bit 30 moved in the last step, bit 29 reacted to a steering agent). The
 * pointers stay valid until the next step; on a device they point at a host copy made by
 * this call. For drawing without buffer sharing. */
herd_status herd_sim_map_state(herd_sim *sim, const float **pos, const float **vel, const uint32_t **agent,
                               herd_error *err);

/* Each agent's group, in the order of herd_sim_map_state: an index into the observation's
 * group[] (below groups_tracked), or HERD_GROUP_UNTRACKED. NULL when groups are not observed.
 * Valid until the next step. */
#define HERD_GROUP_UNTRACKED 0xffffffffu
herd_status herd_sim_map_groups(herd_sim *sim, const uint32_t **group, herd_error *err);

/* True when the flock lives in the GL buffers of desc.gl_share. */
bool herd_sim_shares_gl(const herd_sim *sim);

/* An agent's length in metres under `model`, for drawing. */
float herd_model_body_m(uint32_t model);

/* ---- The scenario's obstacles and path, for drawing ------------------------------------ */

#define HERD_MAX_SPHERES 64      /* obstacles.spheres per scenario (also food and path points) */
#define HERD_MAX_SHAPES 16       /* obstacles.walls, .water, .pens, .bridges: each list at most */
#define HERD_MAX_SHAPE_POINTS 32 /* the points of one wall, water or pen */

/* A scenario's list of points: each world.dims coordinates (z = 0 in 2D) and, for spheres, the
 * radius in v[k][3]. */
typedef struct herd_point_list {
  uint32_t count;
  float v[HERD_MAX_SPHERES][4];
} herd_point_list;

/* One element of a list of 2D obstacle shapes (obstacles.walls, .water, .pens, .bridges;
 * docs/scenario.md): its points and the numbers its kind has. A 3D world extends each shape
 * as a vertical prism (z plays no part). */
typedef struct herd_shape {
  uint32_t count;                    /* points */
  float v[HERD_MAX_SHAPE_POINTS][2]; /* x, y in metres */
  float width_m;                     /* walls: thickness_m; pens: fence_m; bridges: width_m */
  float gate[2][2];                  /* pens: the gate's two ends */
  uint32_t water;                    /* bridges: the index into obstacles.water it spans */
} herd_shape;

typedef struct herd_shape_list {
  uint32_t count;
  herd_shape s[HERD_MAX_SHAPES];
} herd_shape_list;

/* Every obstacle of a scenario (docs/scenario.md, "obstacles"). */
typedef struct herd_obstacles {
  herd_point_list spheres; /* centres and radii (circles in 2D) */
  herd_shape_list walls;   /* polylines with a thickness (walls, fences) */
  herd_shape_list water;   /* polygons no agent enters */
  herd_shape_list pens;    /* polygons fenced along their boundary, open at a gate */
  herd_shape_list bridges; /* passable strips across a water polygon */
} herd_obstacles;

/* Copies the scenario's obstacles into *out (the unused entries zero, so two copies compare
 * with memcmp). */
void herd_scenario_obstacles(const herd_scenario *sc, herd_obstacles *out);

/* The signed distance in metres from (x, y) to the scenario's walls, pens' fences and water
 * (less the bridges), negative inside, as the flock and the dogs meet them; a large positive
 * number where the scenario has none. */
double herd_scenario_obstacle_distance(const herd_scenario *sc, double x, double y);

/* The edge of pen `pen` (from its point k to k + 1) that holds its gate, and the gate's ends
 * on it as parameters t0 <= t1 along the edge; -1 when no edge does. */
int herd_shape_gate_edge(const herd_shape *pen, double *t0, double *t1);

/* Writes `count` points (x, y, z each; z = 0 in 2D) evenly spaced in the parameter along the
 * scenario's guiding path, for drawing. Returns false when the scenario has no path. */
bool herd_scenario_path_points(const herd_scenario *sc, uint32_t count, float *xyz);

/* ---- The route among walls, water and pens --------------------------------------------- */

/* The route home among walls, water and pens (docs/models/env.md "Routing"): the point `ahead_m`
 * metres down the distance-to-goal field from (from[0], from[1]), the way a flock there is
 * driven. False when the scenario has no route (no walls, water or pens, or no dogs) or the
 * point is cut off from the goal. */
bool herd_sim_route_waypoint(const herd_sim *sim, const float from[2], float ahead_m, float out[2]);

/* The waypoint the dogs drive the flock toward now (from its centre, as far ahead as they
 * drive it); false when they drive toward none (no route, or dogs.rules = published). */
bool herd_sim_flock_waypoint(const herd_sim *sim, float out[2]);

/* ---- What the model marks, and one agent's update --------------------------------------- */

/* Radii a viewer draws for the present state, as the flock's model defines them; NAN where the
 * model has none: cohesion_m about the flock's centroid (Strombom: f(N) = r_a N^(2/3), N the
 * agents still in the flock), reaction_m about each steering agent (Strombom: r_s, within
 * which the flock reacts to it). */
typedef struct herd_model_marks {
  float cohesion_m;
  float reaction_m;
  uint32_t nearest_n;  /* an agent's update reads its n nearest (Strombom: n); 0: not so */
  float interaction_m; /* it reads the agents within this (boids: r_v; Couzin: r_a); NAN: not so */
} herd_model_marks;
herd_model_marks herd_sim_model_marks(const herd_sim *sim);

/* The terms of one flock agent's update, as the model's step evaluates them: the new heading
 * is the unit vector of the sum of weight x dir over the terms, taken in order (the model keeps
 * the old heading where that sum is zero). */
#define HERD_UPDATE_TERMS_MAX 8
typedef struct herd_update_terms {
  uint32_t id;   /* the flock agent */
  uint32_t step; /* the step index the update was made in (herd_sim_step_index before it) */
  bool moved;    /* false: it stood still this step (a grazing sheep); no terms */
  uint32_t count;
  struct {
    const char *name; /* "attraction c C", ... (static storage) */
    float weight;
    float dir[3];
  } term[HERD_UPDATE_TERMS_MAX];
} herd_update_terms;

/* Every following step keeps the terms of flock agent `id`'s update (UINT32_MAX: stop).
 * HERD_E_INPUT, and nothing changes, for an id past the flock ("herd_sim_explain: flock agent
 * 500: this simulation has 60 (0..59)"), and with "terms: n/a for MODEL" or "terms: n/a on the
 * opencl backend" where the model or backend cannot (the CPU backend can, for models with the
 * hook). */
herd_status herd_sim_explain(herd_sim *sim, uint32_t id, herd_error *err);

/* The watched agent's terms from the last step; false when no step has run since
 * herd_sim_explain. */
bool herd_sim_update_terms(const herd_sim *sim, herd_update_terms *out);

#ifdef __cplusplus
}
#endif
#endif
