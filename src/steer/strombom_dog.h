/* The Strömbom et al. (2014) sheepdog: collects the sheep farthest from the flock, or
 * drives the flock toward the target once it is cohesive. It sees only the observation
 * the backend reduces, never the sheep themselves. docs/models/strombom.md. */
#ifndef HERD_STEER_STROMBOM_DOG_H
#define HERD_STEER_STROMBOM_DOG_H
#include "../core/scenario.h"
#include "herd/herd.h"
#include "layer.h"
#include "route.h"

typedef struct herd_strombom_dog_params {
  float repulsion_radius_m; /* r_a: sets the collect and drive offsets and the stop distance */
  uint32_t sheep_count;     /* N */
  float target_m[2];        /* T */
  float speed_m_per_step;   /* delta_s */
  float noise;              /* e */
  uint32_t stop;            /* herd_dog_stop (dogs.stop) */
  uint32_t gathered;        /* herd_dog_gathered (dogs.gathered) */
  float dog_radius_m;       /* r_s: how far sheep react to a dog (caps f(N) with within_reach) */
  bool count_remaining;     /* N is the sheep not yet removed (sheep.success = remove_delivered) */
  const herd_scenario *sc;  /* its obstacles, which the dog never passes through */
  const herd_route *route;  /* the way home around walls, water and pens, or NULL without them */
  bool waypoints;           /* dogs.rules = waypoints: drive and sweep along the route */
  uint32_t team;            /* herd_dog_team (dogs.team): sectors and arc read the observation's sectors */
  uint32_t dog_count;       /* D: the team's dogs (dogs.count) */
  float team_compact;       /* kappa (dogs.team_compact) */
  float team_margin;        /* m (dogs.team_margin) */
  float team_reach_m;       /* c (dogs.team_reach_m) */
  float arc_rad;            /* Delta (dogs.arc_deg), in radians */
} herd_strombom_dog_params;

/* Where the dog heads this step and in which mode, from the observation alone. */
typedef struct herd_dog_aim {
  herd_steering_mode mode;
  float point[2];
} herd_dog_aim;

/* f(N) = r_a N^(2/3): every sheep within this of G is a gathered flock. N is the flock the
 * dog sees in `obs` (the sheep not yet removed, with count_remaining). With dogs.gathered =
 * within_reach [ours], no more than r_s. */
float herd_strombom_dog_gathered_m(const herd_strombom_dog_params *p, const herd_observation *obs);

/* The route's waypoint the dogs drive the flock toward now: r_a sqrt(N) down the field from G
 * (dogs.rules = waypoints, among walls, water or pens); false when there is none. */
bool herd_strombom_dog_waypoint(const herd_strombom_dog_params *p, const herd_observation *obs, float out[2]);

/* dogs.team = sectors [ours]: the sector (obs->sector) that dog `dog_index` of the team of D
 * collects, or -1 when it drives. About G, the direction away from the point the flock is
 * driven to (`toward`) is angle 0; dog i's share is the angles within pi / D of 2 pi i / D
 * (counter-clockwise); of the sectors whose farthest agent lies in its share at or beyond
 * `gathered` = f(N), the one whose agent is farthest (ties: the smaller id). With D = 1 that is
 * the flock's farthest agent whenever it is beyond f(N): the paper's dog. */
int herd_strombom_team_sector(const herd_strombom_dog_params *p, const herd_observation *obs, uint32_t dog_index,
                              const float toward[2], float gathered);

/* `pos`: the dog's own position (for dogs.stop = near_sheep_or_centre). */
herd_dog_aim herd_strombom_dog_aim(const herd_strombom_dog_params *p, const herd_observation *obs, uint32_t dog_index,
                                   const float pos[2]);

/* Moves dog `dog_index` one step: aim, then a step of delta_s along unit(aim) + e eps. */
void herd_strombom_dog_step(const herd_strombom_dog_params *p, const herd_observation *obs, uint32_t dog_index,
                            uint64_t seed, uint32_t step, herd_steering_state *dog);

#endif
