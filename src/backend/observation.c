#include <math.h>
#include <string.h>

#include "backend.h"

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
  obs->steering_count = steering_count;
  for (uint32_t d = 0; d < steering_count; ++d) {
    obs->nearest[d].id = p->near[d].id;
    obs->nearest[d].pos[0] = p->near[d].x, obs->nearest[d].pos[1] = p->near[d].y;
    obs->nearest[d].pos[2] = p->near[d].z;
    obs->nearest[d].dist_m = sqrtf(p->near[d].d2);
  }
}
