/* What both backends do alike on the host for the flock's groups: pick the tracked ones from
 * the list of all, and turn the tracked groups' integer sums into the observation. */
#include <math.h>
#include <string.h>

#include "backend.h"

_Static_assert(HERD_GROUP_MAX_TRACKED == HERD_MAX_GROUPS, "kernels/groups.h and herd.h disagree on tracked groups");
_Static_assert(HERD_GROUP_UNTRACKED == HERD_GROUP_NONE, "an untracked agent's slot is the kernels' 'none'");

/* Whether group a (count, first id) comes before group b: larger first, then the smaller id. */
static bool ranks_before(uint32_t count_a, uint32_t id_a, uint32_t count_b, uint32_t id_b) {
  return count_a > count_b || (count_a == count_b && id_a < id_b);
}

void herd_groups_pick(const uint32_t *roots, uint32_t found, uint32_t max, herd_group_pick *pick) {
  memset(pick, 0, sizeof *pick);
  if (max > HERD_GROUP_MAX_TRACKED) max = HERD_GROUP_MAX_TRACKED;
  /* Insertion into the sorted few kept: first ids are unique, so the order is total and the
   * pick does not depend on the order of the list (which atomics made on a device). */
  for (uint32_t g = 0; g < found; ++g) {
    uint32_t root = roots[3 * g], count = roots[3 * g + 1], id = roots[3 * g + 2];
    uint32_t at = pick->tracked;
    while (at > 0 && ranks_before(count, id, pick->count[at - 1], pick->first_id[at - 1])) --at;
    if (at >= max) continue;
    uint32_t last = pick->tracked < max ? pick->tracked : max - 1;
    for (uint32_t k = last; k > at; --k) {
      pick->root[k] = pick->root[k - 1];
      pick->count[k] = pick->count[k - 1];
      pick->first_id[k] = pick->first_id[k - 1];
    }
    pick->root[at] = root, pick->count[at] = count, pick->first_id[at] = id;
    if (pick->tracked < max) ++pick->tracked;
  }
}

void herd_groups_acc_reset(herd_group_acc *acc, uint32_t count) {
  memset(acc, 0, count * sizeof *acc);
  for (uint32_t k = 0; k < count; ++k) acc[k].far_id = HERD_GROUP_NONE;
}

/* x brought into [0, period) along a wrapping axis, in double. */
static double wrap_coord(double x, double period) {
  x -= period * floor(x / period);
  return x >= period || x < 0.0 ? 0.0 : x;
}

/* Group k of the pick from its sums: the centre is the root's position plus the members' mean
 * offset from it (so a group across the wrap has its centre among its members). */
static void observe_group(const herd_group_pick *pick, const herd_group_acc *acc, uint32_t k,
                          const herd_groups_params *p, const herd_grid *grid, herd_group *out) {
  const herd_group_acc *a = &acc[k];
  double n = pick->count[k];
  out->count = pick->count[k];
  out->first_id = pick->first_id[k];
  for (uint32_t axis = 0; axis < 3; ++axis) {
    double c = a->root_pos[axis] + (double)herd_i64_at(&a->sum[2 * axis]) / n / HERD_GROUP_POS_SCALE;
    if (grid->wrap & (1u << axis)) c = wrap_coord(c, grid->size_m[axis]);
    out->centroid[axis] = axis < grid->dims ? c : 0.0;
    out->heading[axis] = (float)((double)herd_i64_at(&a->head[2 * axis]) / n / HERD_GROUP_HEAD_SCALE);
    out->farthest_pos[axis] = a->far_pos[axis];
  }
  float d2;
  memcpy(&d2, &a->far_d2, sizeof d2);
  out->radius_m = sqrtf(d2);
  out->compact_radius_m = p->member_radius_m * sqrtf(2.0f * (float)pick->count[k]);
  out->farthest_id = a->far_id;
}

void herd_groups_fill(const herd_group_pick *pick, const herd_group_acc *acc, uint32_t found,
                      const herd_groups_params *p, const herd_grid *grid, herd_observation *obs) {
  memset(obs->group, 0, sizeof obs->group);
  obs->group_count = found;
  obs->groups_tracked = pick->tracked;
  for (uint32_t k = 0; k < pick->tracked; ++k) observe_group(pick, acc, k, p, grid, &obs->group[k]);
}
