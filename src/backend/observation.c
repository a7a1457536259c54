#include <math.h>
#include <string.h>

#include "backend.h"

void herd_observation_from_partial(const herd_flock_partial *p, uint32_t count, uint32_t dog_count,
                                   herd_observation *obs) {
  memset(obs, 0, sizeof *obs);
  obs->count = count;
  obs->in_goal = p->in_goal;
  obs->delivered = p->delivered;
  obs->centroid[0] = p->sum_x / count;
  obs->centroid[1] = p->sum_y / count;
  obs->extent_min[0] = p->lo_x, obs->extent_min[1] = p->lo_y;
  obs->extent_max[0] = p->hi_x, obs->extent_max[1] = p->hi_y;
  obs->farthest_id = p->far_id;
  obs->farthest_pos[0] = p->far_x, obs->farthest_pos[1] = p->far_y;
  obs->farthest_dist_m = sqrtf(p->far_d2);
  obs->dog_count = dog_count;
  for (uint32_t d = 0; d < dog_count; ++d) {
    obs->nearest[d].id = p->near_id[d];
    obs->nearest[d].pos[0] = p->near_x[d], obs->nearest[d].pos[1] = p->near_y[d];
    obs->nearest[d].dist_m = sqrtf(p->near_d2[d]);
  }
}
