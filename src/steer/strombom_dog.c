#include "strombom_dog.h"

#include <math.h>

#include "../../kernels/reduce.h"
#include "../../kernels/rng.h"

static herd_vec2 unit_from(float from_x, float from_y, float to_x, float to_y) {
  return herd_v2_unit(herd_v2(to_x - from_x, to_y - from_y));
}

/* N as the dog counts it: with removal, the sheep still in the flock. */
static float flock_size(const herd_strombom_dog_params *p, const herd_observation *obs) {
  if (!p->count_remaining) return (float)p->sheep_count;
  return (float)(obs->delivered < obs->count ? obs->count - obs->delivered : 0u);
}

float herd_strombom_dog_gathered_m(const herd_strombom_dog_params *p, const herd_observation *obs) {
  float f = p->repulsion_radius_m * powf(flock_size(p, obs), 2.0f / 3.0f);
  /* [ours] beyond N = (r_s / r_a)^(3/2) (186 sheep at Table 1's radii) f(N) exceeds r_s, and a
   * flock the paper's dog counts as gathered is wider than its sheep's reaction radius */
  if (p->gathered == HERD_DOG_GATHERED_WITHIN_REACH && p->dog_radius_m < f) return p->dog_radius_m;
  return f;
}

/* True when the dog stands still this step: a sheep within 3 r_a (the paper), or, with
 * dogs.stop = near_sheep_or_centre, the dog within f(N) of G (the authors' 2020 code). */
static bool dog_waits(const herd_strombom_dog_params *p, const herd_observation *obs, uint32_t dog_index,
                      const float pos[2]) {
  if (obs->nearest[dog_index].dist_m < 3.0f * p->repulsion_radius_m) return true;
  if (p->stop != HERD_DOG_STOP_NEAR_SHEEP_OR_CENTRE) return false;
  double dx = pos[0] - obs->centroid[0], dy = pos[1] - obs->centroid[1];
  return sqrt(dx * dx + dy * dy) < (double)herd_strombom_dog_gathered_m(p, obs);
}

bool herd_strombom_dog_waypoint(const herd_strombom_dog_params *p, const herd_observation *obs, float out[2]) {
  float n = flock_size(p, obs), g[2] = {(float)obs->centroid[0], (float)obs->centroid[1]};
  return p->route && p->waypoints && n > 0.0f &&
         herd_route_waypoint(p->route, g, p->repulsion_radius_m * sqrtf(n), out);
}

#define HERD_TURN 6.28318530717958647692f /* 2 pi */

/* The angle of (dx, dy) counter-clockwise from the unit vector `zero`, in [0, 2 pi). */
static float angle_from(herd_vec2 zero, float dx, float dy) {
  float a = atan2f(zero.x * dy - zero.y * dx, zero.x * dx + zero.y * dy);
  return a < 0.0f ? a + HERD_TURN : a;
}

int herd_strombom_team_sector(const herd_strombom_dog_params *p, const herd_observation *obs, uint32_t dog_index,
                              const float toward[2], float gathered) {
  float gx = (float)obs->centroid[0], gy = (float)obs->centroid[1];
  herd_vec2 away = unit_from(toward[0], toward[1], gx, gy);
  float share = HERD_TURN / (float)(p->dog_count ? p->dog_count : 1u);
  int best = -1;
  for (int k = 0; k < HERD_SECTORS; ++k) {
    const herd_sector *s = &obs->sector[k];
    if (s->count == 0 || s->count == UINT32_MAX || !(s->farthest_dist_m >= gathered)) continue;
    /* its angle from the middle of dog i's share, shifted by half a share into [0, 2 pi) */
    float rel =
        angle_from(away, s->farthest_pos[0] - gx, s->farthest_pos[1] - gy) - share * (float)dog_index + 0.5f * share;
    rel = fmodf(rel + 2.0f * HERD_TURN, HERD_TURN);
    if (!(rel < share)) continue;
    if (best < 0 || herd_farther(s->farthest_dist_m, s->farthest_id, obs->sector[best].farthest_dist_m,
                                 obs->sector[best].farthest_id))
      best = k;
  }
  return best;
}

/* A team's driving dog [ours]: `turn` radians counter-clockwise about G from straight away from
 * `toward`, `floor` m from G, but no nearer than m r_a and no farther than c beyond the farthest
 * sheep of the sector it stands in (from G alone, a loose flock's back can lie beyond r_s of the
 * dog, and the paper's r_a sqrt(N) lies far beyond a large packed flock's back). */
static herd_dog_aim drive_point(const herd_strombom_dog_params *p, const herd_observation *obs, const float toward[2],
                                float turn, float floor) {
  float gx = (float)obs->centroid[0], gy = (float)obs->centroid[1], behind = floor;
  herd_vec2 away = unit_from(toward[0], toward[1], gx, gy);
  float c = cosf(turn), s = sinf(turn);
  herd_vec2 dir = herd_v2(c * away.x - s * away.y, s * away.x + c * away.y);
  const herd_sector *back = &obs->sector[herd_sector_of(dir.x, dir.y)];
  if (back->count && back->count != UINT32_MAX) {
    float edge = back->farthest_dist_m, nearest = edge + p->team_margin * p->repulsion_radius_m;
    float farthest = edge + p->team_reach_m;
    if (behind > farthest) behind = farthest;
    if (behind < nearest) behind = nearest;
  }
  herd_dog_aim aim = {.mode = HERD_MODE_DRIVE};
  aim.point[0] = gx + behind * dir.x;
  aim.point[1] = gy + behind * dir.y;
  return aim;
}

/* Dog i's place in a spread of D dogs over `spread` radians centred on angle 0: (i - (D - 1) / 2)
 * spread / (D - 1); one dog stands at 0. */
static float spread_turn(const herd_strombom_dog_params *p, uint32_t dog_index, float spread) {
  uint32_t d = p->dog_count ? p->dog_count : 1u;
  return d > 1u ? ((float)dog_index - 0.5f * (float)(d - 1u)) * spread / (float)(d - 1u) : 0.0f;
}

/* dogs.team = sectors [ours]: dog i collects the farthest agent of its share (Strömbom's
 * collecting point, r_a beyond it from G), else drives from its own place behind the flock,
 * r_a sqrt(N) from G but between m r_a and c beyond the flock's edge there, the team spread over
 * a quarter turn (one dog: straight behind, the paper's). */
static herd_dog_aim team_aim(const herd_strombom_dog_params *p, const herd_observation *obs, uint32_t dog_index,
                             const float toward[2], float gathered) {
  float r_a = p->repulsion_radius_m, gx = (float)obs->centroid[0], gy = (float)obs->centroid[1];
  int k = herd_strombom_team_sector(p, obs, dog_index, toward, gathered);
  if (k < 0)
    return drive_point(p, obs, toward, spread_turn(p, dog_index, 0.25f * HERD_TURN), r_a * sqrtf(flock_size(p, obs)));
  const float *f = obs->sector[k].farthest_pos;
  herd_vec2 out = unit_from(gx, gy, f[0], f[1]);
  herd_dog_aim aim = {.mode = HERD_MODE_COLLECT};
  aim.point[0] = f[0] + r_a * out.x;
  aim.point[1] = f[1] + r_a * out.y;
  return aim;
}

/* A dog more than a twelfth of a turn about G from its `slot` goes around the flock to it [ours]:
 * it heads for the point a twelfth of a turn on toward the slot on the circle about G at
 * `radius` (with `wider`, through itself where that is wider), not through the flock. Otherwise
 * the slot. */
static herd_dog_aim around_to(const herd_observation *obs, herd_dog_aim slot, float radius, bool wider,
                              const float pos[2]) {
  float gx = (float)obs->centroid[0], gy = (float)obs->centroid[1];
  float sx = slot.point[0] - gx, sy = slot.point[1] - gy, dx = pos[0] - gx, dy = pos[1] - gy;
  float dist = sqrtf(dx * dx + dy * dy);
  float off = atan2f(dx * sy - dy * sx, dx * sx + dy * sy); /* from the dog to its slot, about G */
  const float step = HERD_TURN / 12.0f;
  if (!(fabsf(off) > step) || !(dist > 0.0f)) return slot;
  float turn = off > 0.0f ? step : -step, c = cosf(turn), s = sinf(turn), r = wider && dist > radius ? dist : radius;
  slot.point[0] = gx + r * (c * dx - s * dy) / dist;
  slot.point[1] = gy + r * (s * dx + c * dy) / dist;
  return slot;
}

/* dogs.team = arc: Pierson & Schwager's (2018) partial encirclement as public implementations
 * place the dogs, evenly over Delta behind G (docs/models/strombom-team.md); each slot m r_a
 * beyond the flock's edge there [ours]. A dog more than a twelfth of a turn from its slot goes
 * around the flock to it [ours]: it heads for the point a twelfth of a turn on toward the slot
 * on the circle about G through the slot or itself, whichever is wider, not through the flock. */
static herd_dog_aim arc_aim(const herd_strombom_dog_params *p, const herd_observation *obs, uint32_t dog_index,
                            const float toward[2], const float pos[2]) {
  herd_dog_aim slot = drive_point(p, obs, toward, spread_turn(p, dog_index, p->arc_rad), 0.0f);
  float sx = slot.point[0] - (float)obs->centroid[0], sy = slot.point[1] - (float)obs->centroid[1];
  return around_to(obs, slot, sqrtf(sx * sx + sy * sy), true, pos);
}

/* dogs.team = ring [ours]: the dogs spread evenly over Delta about G like the arc's, but each
 * walks in along its own ray toward G and stands where the paper's rule stops it (a sheep
 * within 3 r_a): the dogs follow the flock's edge wherever it is, and the sheep within r_s of
 * them are pushed in toward G and out of the open side toward where the flock is driven. It
 * goes around the flock to its ray as the arc's dogs do, but on the circle m r_a beyond the
 * edge there however far out it is (coming in while it goes around). */
static herd_dog_aim ring_aim(const herd_strombom_dog_params *p, const herd_observation *obs, uint32_t dog_index,
                             const float toward[2], const float pos[2]) {
  herd_dog_aim edge = drive_point(p, obs, toward, spread_turn(p, dog_index, p->arc_rad), 0.0f);
  float gx = (float)obs->centroid[0], gy = (float)obs->centroid[1];
  float sx = edge.point[0] - gx, sy = edge.point[1] - gy, radius = sqrtf(sx * sx + sy * sy);
  /* no deeper than r_s / 2 inside the farthest sheep of the sector there: a dog that walks on
   * into the flock cleaves it, the sheep beside its path fleeing sideways beyond its reach */
  float r_a = p->repulsion_radius_m, depth = radius - p->team_margin * r_a - 0.5f * p->dog_radius_m;
  if (!(depth > r_a)) depth = r_a;
  herd_dog_aim slot = edge;
  slot.point[0] = gx + (radius > 0.0f ? depth * sx / radius : 0.0f);
  slot.point[1] = gy + (radius > 0.0f ? depth * sy / radius : 0.0f);
  return around_to(obs, slot, radius, false, pos);
}

herd_dog_aim herd_strombom_dog_aim(const herd_strombom_dog_params *p, const herd_observation *obs, uint32_t dog_index,
                                   const float pos[2]) {
  herd_dog_aim aim;
  float r_a = p->repulsion_radius_m, n = flock_size(p, obs);
  if (dog_waits(p, obs, dog_index, pos)) {
    aim.mode = HERD_MODE_WAIT;
    aim.point[0] = aim.point[1] = 0.0f;
    return aim;
  }
  float gx = (float)obs->centroid[0], gy = (float)obs->centroid[1], behind = r_a * sqrtf(n);
  float f[2] = {obs->farthest_pos[0], obs->farthest_pos[1]}, gathered = herd_strombom_dog_gathered_m(p, obs);
  bool route = p->route && p->waypoints;
  float toward[2] = {p->target_m[0], p->target_m[1]};    /* where the flock is driven */
  if (route) herd_strombom_dog_waypoint(p, obs, toward); /* [ours] the next waypoint, not T */
  if (p->team == HERD_DOG_TEAM_ARC) return arc_aim(p, obs, dog_index, toward, pos);
  if (p->team == HERD_DOG_TEAM_RING) return ring_aim(p, obs, dog_index, toward, pos);
  if (p->team == HERD_DOG_TEAM_SECTORS) {
    float compact = p->team_compact * r_a * sqrtf(n);
    return team_aim(p, obs, dog_index, toward, compact < gathered ? compact : gathered);
  }
  /* f(N) = r_a N^(2/3): the flock is cohesive when every sheep is that close to G. */
  if (obs->farthest_dist_m < gathered) {
    herd_vec2 away = unit_from(toward[0], toward[1], gx, gy);
    aim.mode = HERD_MODE_DRIVE;
    aim.point[0] = gx + behind * away.x;
    aim.point[1] = gy + behind * away.y;
  } else {
    herd_vec2 out = unit_from(gx, gy, f[0], f[1]);
    float sweep[2];
    /* [seed 002] once sheep are delivered, stragglers are swept along the route (to the gate),
     * not back to a flock that is already home */
    if (route && obs->delivered > 0 && herd_route_waypoint(p->route, f, behind, sweep))
      out = unit_from(sweep[0], sweep[1], f[0], f[1]);
    aim.mode = HERD_MODE_COLLECT;
    aim.point[0] = f[0] + r_a * out.x;
    aim.point[1] = f[1] + r_a * out.y;
  }
  return aim;
}

void herd_strombom_dog_step(const herd_strombom_dog_params *p, const herd_observation *obs, uint32_t dog_index,
                            uint64_t seed, uint32_t step, herd_steering_state *dog) {
  herd_dog_aim aim = herd_strombom_dog_aim(p, obs, dog_index, dog->pos);
  dog->mode = aim.mode;
  dog->aim[0] = aim.mode == HERD_MODE_WAIT ? NAN : aim.point[0];
  dog->aim[1] = aim.mode == HERD_MODE_WAIT ? NAN : aim.point[1];
  dog->aim[2] = aim.mode == HERD_MODE_WAIT ? NAN : 0.0f;
  if (aim.mode == HERD_MODE_WAIT) return;
  herd_rng4 bits = herd_rng_draw(seed, step, dog_index, HERD_STREAM_DOG_NOISE);
  herd_vec2 eps = herd_rng_direction(bits.v[0]);
  float next[2];
  herd_route_next(p->route, dog->pos, aim.point, next); /* around obstacles */
  herd_vec2 toward = unit_from(dog->pos[0], dog->pos[1], next[0], next[1]);
  herd_vec2 h = herd_v2_unit(herd_v2_madd(toward, p->noise, eps));
  if (herd_v2_len2(h) == 0.0f) return;
  dog->heading[0] = h.x;
  dog->heading[1] = h.y;
  herd_route_move(p->route, dog->pos, p->speed_m_per_step * h.x, p->speed_m_per_step * h.y);
}
