#include <math.h>
#include <string.h>

#include "backend.h"
#include "model_exec.h"

/* Defined here, below both backends that call it (herd_stop_between_pieces): in choose.c, which
 * names both backends, it made the backends and the chooser one circle of calls. */
void (*herd_test_piece_hook)(void) = NULL;

void herd_observation_from_partial(const herd_flock_partial *p, uint32_t count, uint32_t dims, uint32_t steering_count,
                                   herd_observation *obs) {
  memset(obs, 0, sizeof *obs);
  obs->count = count;
  obs->in_goal = p->in_goal;
  obs->delivered = p->delivered;
  obs->centroid[0] = herd_fix_wide(p->sum_x, HERD_FIX_POS_SCALE) / count;
  obs->centroid[1] = herd_fix_wide(p->sum_y, HERD_FIX_POS_SCALE) / count;
  obs->centroid[2] = dims == 3 ? herd_fix_wide(p->sum_z, HERD_FIX_POS_SCALE) / count : 0.0;
  obs->extent_min[0] = p->lo_x, obs->extent_min[1] = p->lo_y, obs->extent_min[2] = dims == 3 ? p->lo_z : 0.0f;
  obs->extent_max[0] = p->hi_x, obs->extent_max[1] = p->hi_y, obs->extent_max[2] = dims == 3 ? p->hi_z : 0.0f;
  obs->farthest_id = p->far_id;
  obs->farthest_pos[0] = p->far_x, obs->farthest_pos[1] = p->far_y, obs->farthest_pos[2] = p->far_z;
  obs->farthest_dist_m = p->far_d2 >= 0.0f ? sqrtf(p->far_d2) : 0.0f; /* -1: no agent left in the flock */
  double hx = (double)p->head_x, hy = (double)p->head_y, hz = (double)p->head_z;
  double mx = (double)p->mill_x, my = (double)p->mill_y, mz = (double)p->mill_z;
  obs->polarisation = (float)(sqrt(hx * hx + hy * hy + hz * hz) / HERD_FIX_UNIT_SCALE / count);
  obs->milling = (float)(sqrt(mx * mx + my * my + mz * mz) / HERD_FIX_UNIT_SCALE / count);
  uint32_t in_flock = count > p->removed ? count - p->removed : 0u;
  obs->path_distance_m = in_flock ? (float)(herd_fix_wide(p->path_dist, HERD_FIX_POS_SCALE) / in_flock) : 0.0f;
  obs->path_end = p->path_end;
  for (int k = 0; k < HERD_SECTORS; ++k) {
    const herd_sector_part *from = &p->sector[k];
    herd_sector *to = &obs->sector[k];
    to->count = from->count;
    to->farthest_id = from->count ? from->id : UINT32_MAX;
    to->farthest_pos[0] = from->x, to->farthest_pos[1] = from->y, to->farthest_pos[2] = from->z;
    to->farthest_dist_m = from->count ? sqrtf(from->d2) : 0.0f;
  }
  obs->steering_count = steering_count;
  for (uint32_t d = 0; d < steering_count; ++d) {
    obs->nearest[d].id = p->near[d].id;
    obs->nearest[d].pos[0] = p->near[d].x, obs->nearest[d].pos[1] = p->near[d].y;
    obs->nearest[d].pos[2] = p->near[d].z;
    obs->nearest[d].dist_m = sqrtf(p->near[d].d2);
  }
}

_Static_assert(HERD_REDUCE_FAR == HERD_OBSERVE_FAR && HERD_REDUCE_HEADING == HERD_OBSERVE_POLARISATION &&
                   HERD_REDUCE_SECTORS == HERD_OBSERVE_SECTORS,
               "kernels/reduce.h names the observation's parts as herd.h does");
_Static_assert(HERD_KERNEL_SECTORS == HERD_SECTORS, "kernels/reduce.h and herd.h disagree on the sectors");

void herd_observation_leave_out(herd_observation *obs, uint32_t observed) {
  obs->missing = HERD_OBSERVE_ALL & ~observed;
  if (obs->missing & HERD_OBSERVE_POLARISATION) obs->polarisation = NAN;
  if (obs->missing & HERD_OBSERVE_SECTORS)
    for (int k = 0; k < HERD_SECTORS; ++k) {
      herd_sector *sector = &obs->sector[k];
      sector->count = sector->farthest_id = UINT32_MAX;
      sector->farthest_pos[0] = sector->farthest_pos[1] = sector->farthest_pos[2] = sector->farthest_dist_m = NAN;
    }
  if (!(obs->missing & HERD_OBSERVE_FAR)) return;
  obs->farthest_id = UINT32_MAX;
  for (int k = 0; k < 3; ++k) obs->farthest_pos[k] = NAN;
  obs->farthest_dist_m = obs->milling = NAN;
}

void herd_observation_fill_in(herd_observation *obs, const herd_observation *full) {
  if (obs->missing & HERD_OBSERVE_POLARISATION) obs->polarisation = full->polarisation;
  if (obs->missing & HERD_OBSERVE_SECTORS) memcpy(obs->sector, full->sector, sizeof obs->sector);
  if (obs->missing & HERD_OBSERVE_FAR) {
    obs->farthest_id = full->farthest_id;
    memcpy(obs->farthest_pos, full->farthest_pos, sizeof obs->farthest_pos);
    obs->farthest_dist_m = full->farthest_dist_m;
    obs->milling = full->milling;
  }
  obs->missing = 0u;
}

/* The nearest agent to each steering agent is searched piece by piece: pieces of NEAR_PIECE
 * agents, in runs of at most NEAR_RUN pieces, each piece's box (its agents in the flock) known
 * first. A steering agent scans the piece whose box is nearest to it, then only the pieces whose
 * box is not farther than the nearest agent found: the sorted flock's pieces are compact, so a
 * steering agent reads a piece or two of a run instead of every agent (herding 10^5 sheep with
 * 16 dogs: 1.6 million distances a step). The nearest, ties to the lower id, is the same agent
 * in any order: the same bits. */
#define NEAR_PIECE 256u
#define NEAR_RUN 64u

typedef struct near_box {
  herd_vec3 lo, hi; /* lo > hi: no agent of the flock in the piece */
} near_box;

/* A lower bound on the squared distance from s to any point of the box, as herd_nearest_add
 * rounds it (each offset's rounding is monotone in the point, so no agent of the box is
 * nearer), along the axes that do not wrap; 0 along those that do. */
static float box_d2(const herd_grid *g, const near_box *box, herd_vec3 s) {
  const float lo[3] = {box->lo.x, box->lo.y, box->lo.z}, hi[3] = {box->hi.x, box->hi.y, box->hi.z};
  const float at[3] = {s.x, s.y, s.z};
  float gap[3];
  if (lo[0] > hi[0]) return INFINITY;
  for (int k = 0; k < 3; ++k) {
    gap[k] = at[k] < lo[k] ? lo[k] - at[k] : (at[k] > hi[k] ? at[k] - hi[k] : 0.0f);
    if (g->wrap & (1u << k)) gap[k] = 0.0f;
  }
  return herd_v3_len2(herd_v3(gap[0], gap[1], gap[2]));
}

/* Agents [begin, end) against the nearest entry of the steering agent at s (its role, role). */
static herd_nearest nearest_in(const herd_backend_desc *d, const herd_grid *g, const float *pos, const uint32_t *agent,
                               uint32_t begin, uint32_t end, herd_vec3 s, uint32_t role, herd_nearest best) {
  for (uint32_t i = begin; i < end; ++i)
    if (herd_near_takes_part(agent[i], role))
      best = herd_nearest_add(best, g, s, herd_load_vec(pos, i, d->dims), herd_agent_id(agent[i]));
  return best;
}

/* The nearest entries of a run of pieces from agent `begin` (pieces boxes[0..pieces)). */
static void nearest_over_run(const herd_backend_desc *d, const herd_grid *g, const float *pos, const uint32_t *agent,
                             uint32_t begin, uint32_t end, const near_box *boxes, uint32_t pieces,
                             herd_steering_input steer, herd_nearest *near) {
  for (uint32_t e = 0; e < steer.count && e < HERD_MAX_STEERING; ++e) {
    const float *at = steer.pos + (size_t)HERD_STEER_FLOATS * e;
    herd_vec3 s = herd_v3(at[0], at[1], at[2]);
    float gap[NEAR_RUN];
    uint32_t first = 0;
    for (uint32_t k = 0; k < pieces; ++k) {
      gap[k] = box_d2(g, &boxes[k], s);
      if (gap[k] < gap[first]) first = k;
    }
    for (uint32_t n = 0; n <= pieces; ++n) {
      uint32_t k = n == 0 ? first : n - 1u;
      if ((n > 0 && k == first) || !(gap[k] <= near[e].d2)) continue;
      uint32_t lo = begin + k * NEAR_PIECE, hi = lo + NEAR_PIECE < end ? lo + NEAR_PIECE : end;
      near[e] = nearest_in(d, g, pos, agent, lo, hi, s, (uint32_t)at[3], near[e]);
    }
  }
}

herd_flock_partial herd_partial_over(const herd_backend_desc *d, const herd_grid *g, const float *pos, const float *vel,
                                     const uint32_t *agent, uint32_t begin, uint32_t end, herd_steering_input steer,
                                     uint32_t unobserved) {
  herd_vec3 goal = herd_v3(d->goal_m[0], d->goal_m[1], d->goal_m[2]);
  herd_flock_partial p = herd_partial_empty();
  int heading = !(unobserved & HERD_OBSERVE_POLARISATION);
  near_box boxes[NEAR_RUN];
  for (uint32_t run = begin; run < end; run += NEAR_PIECE * NEAR_RUN) {
    uint32_t run_end = end - run > NEAR_PIECE * NEAR_RUN ? run + NEAR_PIECE * NEAR_RUN : end, pieces = 0;
    for (uint32_t piece = run; piece < run_end; piece += NEAR_PIECE, ++pieces) {
      near_box *box = &boxes[pieces];
      box->lo = herd_v3(INFINITY, INFINITY, INFINITY), box->hi = herd_v3(-INFINITY, -INFINITY, -INFINITY);
      for (uint32_t i = piece; i < run_end && i < piece + NEAR_PIECE; ++i) {
        herd_vec3 at = herd_load_vec(pos, i, d->dims);
        int in_goal = herd_env_in_goal(d->env, &d->env_info, at, goal, d->goal_radius_m);
        herd_partial_add_flock(&p, at, herd_load_vec(vel, i, d->dims), agent[i], in_goal, heading);
        if (d->env_info.has_path) herd_partial_add_path(&p, d->env, &d->env_info, at, agent[i]);
        if (!steer.count || herd_agent_removed(agent[i])) continue; /* the boxes serve the nearest alone */
        box->lo = herd_v3(at.x < box->lo.x ? at.x : box->lo.x, at.y < box->lo.y ? at.y : box->lo.y,
                          at.z < box->lo.z ? at.z : box->lo.z);
        box->hi = herd_v3(at.x > box->hi.x ? at.x : box->hi.x, at.y > box->hi.y ? at.y : box->hi.y,
                          at.z > box->hi.z ? at.z : box->hi.z);
      }
    }
    if (steer.count) nearest_over_run(d, g, pos, agent, run, run_end, boxes, pieces, steer, p.near);
  }
  return p;
}

herd_flock_partial herd_far_over(uint32_t dims, const float *pos, const float *vel, const uint32_t *agent,
                                 uint32_t begin, uint32_t end, herd_vec3 centroid, int sectors) {
  herd_flock_partial p = herd_partial_empty();
  for (uint32_t i = begin; i < end; ++i) {
    herd_vec3 at = herd_load_vec(pos, i, dims);
    herd_far_add(&p, at, herd_load_vec(vel, i, dims), agent[i], centroid);
    if (sectors) HERD_SECTOR_ADD(p.sector, at, agent[i], centroid);
  }
  return p;
}

uint32_t herd_agent_start_word(const herd_backend_desc *d, const float *pos, uint32_t id) {
  herd_vec3 goal = herd_v3(d->goal_m[0], d->goal_m[1], d->goal_m[2]);
  int in_goal = herd_env_in_goal(d->env, &d->env_info, herd_load_vec(pos, id, d->dims), goal, d->goal_radius_m);
  herd_model_start_flags_fn flags = d->model ? *d->model->start_flags : NULL;
  return id | (in_goal ? HERD_AGENT_DELIVERED : 0u) | (flags ? flags(d->params) : 0u);
}
