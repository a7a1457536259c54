#include <math.h>
#include <string.h>

#include "backend.h"

void herd_observation_from_partial(const herd_flock_partial *p, uint32_t count, uint32_t dims, uint32_t steering_count,
                                   herd_observation *obs) {
  memset(obs, 0, sizeof *obs);
  obs->count = count;
  obs->in_goal = p->in_goal;
  obs->delivered = p->delivered;
  obs->centroid[0] = p->sum_x / count;
  obs->centroid[1] = p->sum_y / count;
  obs->centroid[2] = dims == 3 ? p->sum_z / count : 0.0;
  obs->extent_min[0] = p->lo_x, obs->extent_min[1] = p->lo_y, obs->extent_min[2] = dims == 3 ? p->lo_z : 0.0f;
  obs->extent_max[0] = p->hi_x, obs->extent_max[1] = p->hi_y, obs->extent_max[2] = dims == 3 ? p->hi_z : 0.0f;
  obs->farthest_id = p->far_id;
  obs->farthest_pos[0] = p->far_x, obs->farthest_pos[1] = p->far_y, obs->farthest_pos[2] = p->far_z;
  obs->farthest_dist_m = p->far_d2 >= 0.0f ? sqrtf(p->far_d2) : 0.0f; /* -1: no agent left in the flock */
  obs->polarisation = (float)(sqrt(p->head_x * p->head_x + p->head_y * p->head_y + p->head_z * p->head_z) / count);
  obs->milling = (float)(sqrt(p->mill_x * p->mill_x + p->mill_y * p->mill_y + p->mill_z * p->mill_z) / count);
  uint32_t in_flock = count > p->removed ? count - p->removed : 0u;
  obs->path_distance_m = in_flock ? (float)(p->path_dist / in_flock) : 0.0f;
  obs->path_end = p->path_end;
  obs->steering_count = steering_count;
  for (uint32_t d = 0; d < steering_count; ++d) {
    obs->nearest[d].id = p->near_id[d];
    obs->nearest[d].pos[0] = p->near_x[d], obs->nearest[d].pos[1] = p->near_y[d];
    obs->nearest[d].pos[2] = p->near_z[d];
    obs->nearest[d].dist_m = sqrtf(p->near_d2[d]);
  }
}
