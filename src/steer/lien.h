/* Lien, Rodríguez, Malric, Amato (2004), "Shepherding Behaviors with Multiple Shepherds":
 * shepherds that share a flock's work without talking to each other. Each one reads the
 * observation's groups, lays out every steering point (formations, merging), picks its own
 * by the scenario's assignment method and walks there. docs/models/lien-shepherds.md.
 *
 * Every shepherd computes the same plan from the same inputs (the observation, the scenario and
 * the steering agents as the step began), so they agree on who goes where without a word; each
 * keeps nothing but its own herd_steering_state. The pure parts (assignment, formations,
 * the distribution over groups, the approach) are exposed for the tests. */
#ifndef HERD_STEER_LIEN_H
#define HERD_STEER_LIEN_H
#include "layer.h"
#include "steer.h"

/* Moves shepherd `index` one step (the strategy table's HERD_STRATEGY_SHEPHERD). */
void herd_lien_shepherd_step(const herd_steer_context *ctx, uint32_t index, herd_steering_state *agent);

/* ---- Assignment (§4.2): k shepherds at s[], k steering points p[]; out[i] is shepherd i's
 * point. k <= HERD_MAX_STEERING. Pure functions of their arguments. */

/* Vector projection: shepherds and points ranked by their projection on `axis` (the line
 * perpendicular to centre -> milestone; ties by index); the i-th shepherd takes the i-th point. */
void herd_lien_assign_projection(uint32_t k, const float s[][2], const float p[][2], const float axis[2],
                                 uint32_t out[]);

/* Greedy distance minimisation, the paper's Algorithm 1: every (shepherd, point) pair sorted by
 * distance (ties: the smaller shepherd index, then the smaller point index), the shortest
 * remaining reported and its two ends removed, until none remain. `order` (NULL: not wanted)
 * receives the reported pairs in order: order[r] = {shepherd, point}. */
void herd_lien_assign_greedy(uint32_t k, const float s[][2], const float p[][2], uint32_t out[], uint32_t order[][2]);

/* Global distance minimisation: the assignment of least total distance (Hungarian algorithm,
 * O(k^3)). */
void herd_lien_assign_hungarian(uint32_t k, const float s[][2], const float p[][2], uint32_t out[]);

/* The scenario's method (herd_assignment); `axis` is used by projection only. */
void herd_lien_assign(uint32_t method, uint32_t k, const float s[][2], const float p[][2], const float axis[2],
                      uint32_t out[]);

/* ---- Formations and the push on one group (§4.1, §5) ---------------------------------- */

/* k steering points behind a group at `centre` of radius r, pushing it along the unit vector
 * `u` (from its centre toward where it should go), at R = r + margin_m from the centre.
 * n = (-u_y, u_x) (u turned 90 deg counter-clockwise); the points come in order along n.
 *   line: p_i = c - R u + r ((2i + 1) / k - 1) n
 *   arc:  p_i = c + R (-cos(phi_i) u + sin(phi_i) n),  phi_i = (pi / 2) ((2i + 1) / k - 1)
 * Each of the k shepherds covers an equal share of the group's width (line) or of the
 * semicircle (arc); k = 1 stands straight behind the centre. */
void herd_lien_formation(uint32_t formation, const float centre[2], const float u[2], float radius_m, float margin_m,
                         uint32_t k, float out[][2]);

/* A group as the shepherds see it. */
typedef struct herd_lien_group {
  int32_t index; /* in the observation's group[]; -1: the whole flock (no groups observed) */
  uint32_t count;
  float centre[2];
  float radius_m;
  float heading[2];   /* the members' mean unit velocity (its length: their polarisation) */
  float milestone[2]; /* where it is steered toward the goal (the route's waypoint or the target) */
} herd_lien_group;

/* A group's heading counts when its polarisation reaches this: below it the members' headings
 * mostly cancel, and the group is steered straight on. */
#define HERD_LIEN_MIN_POLARISATION 0.2f

/* theta: the signed angle (radians, counter-clockwise positive) from the group's heading to
 * centre -> `toward`; 0 when the group has no heading (below HERD_LIEN_MIN_POLARISATION). */
float herd_lien_heading_error(const herd_lien_group *g, const float toward[2]);

/* The k points that push group g toward `toward` this step, and the manoeuvre (§5), with
 * theta_fm = |herd_lien_heading_error| and theta_t = shepherds.turn_angle_deg:
 *   theta_fm < theta_t: straight on, the formation behind the group (HERD_MODE_STEER); a lone
 *     shepherd (k = 1) sweeps side to side instead, its point c - R u + A sin(2 pi step / P) n
 *     (HERD_MODE_SIDE; A = side_amplitude_m, P = side_period_steps);
 *   theta_t <= theta_fm < 90 deg: the formation rotated about the centre by theta (HERD_MODE_TURN):
 *     it then pushes along the group's heading mirrored about u, so heading + push points along u;
 *   theta_fm >= 90 deg: the formation behind the group w.r.t. its heading h, mirrored about the
 *     line through the centre perpendicular to h: in front of the group, against its heading
 *     (HERD_MODE_STOP). */
herd_steering_mode herd_lien_push(const herd_scenario *sc, const herd_lien_group *g, const float toward[2], uint32_t k,
                                  uint32_t step, float out[][2]);

/* The k points that hold group g (the dominant group while the others are brought to it), by
 * shepherds.hold: stop, the stopping formation, in front of it against its heading (the paper);
 * meet, and stop for a group with no heading: the formation behind it as seen from `others` (the
 * other groups' centre), so that it goes, if anywhere, to meet them. */
void herd_lien_hold(const herd_scenario *sc, const herd_lien_group *g, const float others[2], uint32_t k,
                    float out[][2]);

/* p rotated by `angle` (radians, counter-clockwise) about c; mirrored about the line through c
 * perpendicular to the unit vector h. */
void herd_lien_rotate(const float c[2], float angle, float p[2]);
void herd_lien_mirror(const float c[2], const float h[2], float p[2]);

/* ---- Approaching (§3, fig. 4) ----------------------------------------------------------- */

/* Where a shepherd at `pos` heads this step for its point `point`, `step_m` a step:
 *   straight: the point itself;
 *   safe_zone: the point when the segment to it stays out of the circle Z about the group's
 *     centre of radius rho = min(zone_m, |point - centre|, |pos - centre|) (never a zone that
 *     holds the shepherd or its point), or when it is a step away; else the shorter way round
 *     Z: the tangent point T from pos, T = c + rho (cos a, sin a), a = a_pos + s acos(rho /
 *     |pos - c|) (s = +1 counter-clockwise), and on along the tangent at T for what is left of
 *     the step: T + s max(0, step_m - |T - pos|) (-sin a, cos a). That line touches Z at T only. */
void herd_lien_approach(uint32_t approach, const float pos[2], const float point[2], const float centre[2],
                        float zone_m, float step_m, float out[2]);

/* ---- Groups and merging (§6) ----------------------------------------------------------- */

/* The groups the shepherds work on: the observation's tracked groups (at most groups.max, the
 * largest first), each with its milestone: the route's waypoint radius_m + margin_m down the
 * field from its centre when the scenario has a route, else the target. With no groups observed,
 * the whole flock as one group (centroid, farthest_dist_m as radius, no heading). Returns N_g. */
uint32_t herd_lien_groups(const herd_steer_context *ctx, herd_lien_group out[HERD_MAX_GROUPS]);

/* Lien's flock state: 1 one group, 2 more than one and no more than the shepherds, 3 more groups
 * than shepherds. */
uint32_t herd_lien_flock_state(uint32_t groups, uint32_t shepherds);

/* State 2: shepherds per group in proportion to the groups' sizes, at least one each (requires
 * shepherds >= groups). Hamilton's largest remainders over the paper's quotas
 * q_i = N_s n_i / N_all: a_i = max(1, floor(q_i)); while the sum falls short, one more to the
 * largest q_i - a_i (ties: the earlier group); while it is over, one less from the group with
 * a_i > 1 and the largest a_i - q_i (ties: the later group). */
void herd_lien_share(uint32_t shepherds, uint32_t groups, const uint32_t count[], uint32_t out[]);

/* The whole plan every shepherd computes alike. */
typedef struct herd_lien_plan {
  uint32_t flock_state; /* 1, 2 or 3 */
  uint32_t group_count; /* N_g */
  herd_lien_group group[HERD_MAX_GROUPS];
  int32_t dominant;                        /* a group holding more than half the groups' members; -1 none */
  float merge_point[2];                    /* states 2 and 3: where the groups are brought */
  uint32_t shepherds;                      /* N_s */
  uint32_t shepherd[HERD_MAX_STEERING];    /* their indices among the steering agents, in order */
  uint32_t on_group[HERD_MAX_GROUPS];      /* steering points on each group */
  float point[HERD_MAX_STEERING][2];       /* N_s steering points */
  uint32_t point_group[HERD_MAX_STEERING]; /* the group (in group[]) each works on */
  herd_steering_mode point_mode[HERD_MAX_STEERING];
  float axis[2];                        /* the projection method's line */
  uint32_t assigned[HERD_MAX_STEERING]; /* the point of the i-th shepherd */
} herd_lien_plan;

/* The plan from the context alone: the observation, the scenario, the step and the steering
 * agents as the step began (ctx->start, else ctx->agents). */
void herd_lien_plan_make(const herd_steer_context *ctx, herd_lien_plan *out);

#endif
