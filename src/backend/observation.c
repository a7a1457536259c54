#include <math.h>
#include <string.h>

#include "backend.h"

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

herd_flock_partial herd_partial_over(const herd_backend_desc *d, const herd_grid *g, const float *pos, const float *vel,
                                     const uint32_t *agent, uint32_t begin, uint32_t end, herd_steering_input steer,
                                     uint32_t unobserved) {
  herd_vec3 goal = herd_v3(d->goal_m[0], d->goal_m[1], d->goal_m[2]);
  herd_flock_partial p = herd_partial_empty();
  int heading = !(unobserved & HERD_OBSERVE_POLARISATION);
  for (uint32_t i = begin; i < end; ++i) {
    herd_vec3 at = herd_load_vec(pos, i, d->dims);
    int in_goal = herd_env_in_goal(d->env, &d->env_info, at, goal, d->goal_radius_m);
    herd_partial_add(&p, g, at, herd_load_vec(vel, i, d->dims), agent[i], steer.pos, steer.count, in_goal, heading);
    if (d->env_info.has_path) herd_partial_add_path(&p, d->env, &d->env_info, at, agent[i]);
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
  return id | (in_goal ? HERD_AGENT_DELIVERED : 0u);
}
