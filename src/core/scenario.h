/* The scenario as the library holds it: every field of docs/scenario.md, with each strategy's
 * settings. Programs see herd_scenario as an opaque handle (include/herd/herd.h) and read and
 * write its fields by path; the library's own layers (core, backend, steer, sim, sweep) include
 * this header. */
#ifndef HERD_CORE_SCENARIO_H
#define HERD_CORE_SCENARIO_H
#include <stdbool.h>
#include <stdint.h>
#include "layer.h"

#include "herd/herd.h"
#include "herd/herd_view.h"

#define HERD_MAX_PATH_POINTS 16     /* path.points_m: the control points of one Bezier curve */
#define HERD_MODEL_PARAMS_BYTES 256 /* room for any model's parameter struct */
#define HERD_DESCRIPTION_BYTES 2048 /* description: at most 2047 bytes of UTF-8 and its end */

/* When a Strömbom dog stands still (dogs.stop). */
typedef enum herd_dog_stop {
  HERD_DOG_STOP_NEAR_SHEEP = 0,      /* "near_sheep": while a sheep is within 3 r_a (the paper) */
  HERD_DOG_STOP_NEAR_SHEEP_OR_CENTRE /* "near_sheep_or_centre": also within f(N) of G (authors' 2020 code) */
} herd_dog_stop;

/* How Strömbom dogs share the flock (dogs.team). */
typedef enum herd_dog_team {
  HERD_DOG_TEAM_ALONE = 0, /* "alone": each dog the paper's, all after the one farthest sheep */
  HERD_DOG_TEAM_SECTORS,   /* "sectors": each its own share of the sectors about G [ours] */
  HERD_DOG_TEAM_ARC,       /* "arc": on an arc behind G (Pierson & Schwager 2018, as implemented publicly) */
  HERD_DOG_TEAM_RING       /* "ring": spread over an arc about G, each pressing in along its ray [ours] */
} herd_dog_team;

/* When a Strömbom dog counts the flock gathered (dogs.gathered). */
typedef enum herd_dog_gathered {
  HERD_DOG_GATHERED_PAPER = 0,   /* "paper": every sheep within f(N) = r_a N^(2/3) of G */
  HERD_DOG_GATHERED_WITHIN_REACH /* "within_reach": within min(f(N), r_s) of G [ours] */
} herd_dog_gathered;

/* How a Strömbom dog finds its way among walls, water and pens (dogs.rules). */
typedef enum herd_dog_rules {
  HERD_DOG_RULES_WAYPOINTS = 0, /* "waypoints": drive toward the route's next waypoint, sweep stragglers along it */
  HERD_DOG_RULES_PUBLISHED      /* "published": the paper's dog alone (straight at the target) */
} herd_dog_rules;

/* How Lien's shepherds place their steering points behind a group (shepherds.formation). */
typedef enum herd_formation {
  HERD_FORMATION_LINE = 0, /* "line": perpendicular to centre -> milestone, behind the group */
  HERD_FORMATION_ARC       /* "arc": a semicircle behind the group about its centre */
} herd_formation;

/* How each shepherd picks its steering point, on its own (shepherds.assignment). */
typedef enum herd_assignment {
  HERD_ASSIGN_PROJECTION = 0, /* "projection": rank along the line perpendicular to centre -> milestone */
  HERD_ASSIGN_GREEDY,         /* "greedy": the paper's Algorithm 1, shortest pair first */
  HERD_ASSIGN_HUNGARIAN       /* "hungarian": the least total distance (optimal matching) */
} herd_assignment;

/* How a shepherd reaches its steering point (shepherds.approach). */
typedef enum herd_approach {
  HERD_APPROACH_STRAIGHT = 0, /* "straight": straight at it */
  HERD_APPROACH_SAFE_ZONE     /* "safe_zone": around a circle about the group, never through it */
} herd_approach;

/* How Lien's shepherds hold the dominant group while the others are brought to it (shepherds.hold). */
typedef enum herd_hold {
  HERD_HOLD_STOP = 0, /* "stop": the stopping formation, in front of it against its heading (the paper) */
  HERD_HOLD_MEET      /* "meet": behind it as seen from the other groups, so it goes to meet them (ours) */
} herd_hold;

/* When the backend finds the flock's groups (groups.observe). */
typedef enum herd_groups_observe {
  HERD_GROUPS_WITH_SHEPHERDS = 0, /* "with_shepherds": every step when the scenario has a shepherd */
  HERD_GROUPS_ALWAYS,             /* "always": every step */
  HERD_GROUPS_NEVER               /* "never" */
} herd_groups_observe;

/* One entry of a scenario's "agents" list: `count` steering agents alike. */
typedef struct herd_steering_config {
  uint32_t strategy; /* herd_strategy */
  uint32_t count;
  float position_m[3]; /* NAN: each at a random place in the world */
  float direction[3];  /* NAN: each in a random direction; else a unit vector */
  float speed_m_per_step;
} herd_steering_config;

/* An explicit list of agent ids (output.trajectories.ids), ascending. */
#define HERD_MAX_OUTPUT_IDS 1024
typedef struct herd_id_list {
  uint32_t count;
  uint32_t id[HERD_MAX_OUTPUT_IDS];
} herd_id_list;

/* The scenario's "schedule": parameters changed during the run. Entry k sets `path` (a field
 * herd_sim_set_param may change) to `value` when `step` steps have run, before the next one;
 * the entries go in the order of their steps (equal steps: in the list's order). */
#define HERD_MAX_SCHEDULE 256
#define HERD_SCHEDULE_PATH_BYTES 64
typedef struct herd_schedule_entry {
  uint32_t step;
  char path[HERD_SCHEDULE_PATH_BYTES];
  double value;
} herd_schedule_entry;
typedef struct herd_schedule {
  uint32_t count;
  herd_schedule_entry entry[HERD_MAX_SCHEDULE];
} herd_schedule;

/* The scenario's "output" section (docs/output.md). An every_steps of n writes at the steps
 * that are multiples of n (step 0, the start, included); 0 writes the quantity never. */
typedef struct herd_output_config {
  uint32_t observation_every;    /* output.observation.every_steps: the CSV's observation columns */
  uint32_t order_every;          /* output.order.every_steps: polarisation and milling */
  uint32_t steering_every;       /* output.steering.every_steps: the steering agents' state */
  uint32_t trajectories_every;   /* output.trajectories.every_steps: per-agent positions, headings */
  uint32_t trajectories_sample;  /* output.trajectories.sample: K ids drawn from the seed; 0: all agents */
  herd_id_list trajectories_ids; /* output.trajectories.ids: these agents (none: as the sample says) */
} herd_output_config;

/* A complete, validated scenario. Field names follow the JSON paths of docs/scenario.md;
 * the model's own parameters are in `params`, read them by path with herd_scenario_get. */
struct herd_scenario {
  uint32_t model; /* a row of the model table */
  uint64_t seed;
  uint32_t max_steps;
  char description[HERD_DESCRIPTION_BYTES]; /* "description": what the scenario is for ("": none) */
  struct {
    uint32_t dims;    /* 2 or 3 */
    float size_m[3];  /* the world box, from 0 on each axis (Strömbom: field.size_m square) */
    uint32_t wrap[3]; /* 1: the axis wraps (a torus) */
  } world;
  struct {
    float position_m[3];
    float goal_radius_m; /* negative: no goal (every model but Strömbom's) */
  } target;
  struct {
    uint32_t count; /* N */
    struct {
      float from[3]; /* fractions of the world's size */
      float to[3];
    } spawn;
  } flock;
  struct { /* Strömbom's sheepdogs */
    uint32_t count;
    float start[2]; /* fraction of field.size_m */
    float spacing_m;
    float speed_m_per_step; /* delta_s */
    float noise;            /* e */
    uint32_t stop;          /* herd_dog_stop: when a dog stands still */
    uint32_t gathered;      /* herd_dog_gathered: when the flock counts as gathered */
    uint32_t rules;         /* herd_dog_rules: waypoints and sweep, or the paper's dog alone */
    uint32_t team;          /* herd_dog_team: how several dogs share the flock */
    float team_compact;     /* kappa: a team gathers the flock within kappa r_a sqrt(N) of G */
    float team_margin;      /* m: a team's driving dog stands m r_a beyond the flock's back */
    float team_reach_m;     /* c: a team's driving dog stands at most c beyond the flock's back */
    float arc_deg;          /* Delta: with dogs.team = arc or ring, the dogs' angular spread */
  } dogs;
  struct {
    uint32_t entries;
    herd_steering_config entry[HERD_MAX_STEERING];
  } agents;
  struct {                   /* static obstacles of every model's world */
    herd_point_list spheres; /* centres and radii (circles in 2D) */
    float margin_m;          /* agents closer than this to a surface are pushed away */
    float push;              /* the push's weight at the surface */
    herd_shape_list walls;   /* polylines with a thickness (walls, fences) */
    herd_shape_list water;   /* polygons no agent enters */
    herd_shape_list pens;    /* polygons fenced along their boundary, open at a gate */
    herd_shape_list bridges; /* passable strips across a water polygon */
    float resolution_m;      /* the signed-distance field's grid spacing (at least) */
  } obstacles;
  struct {                 /* the flock's groups (docs/models/groups.md) */
    uint32_t observe;      /* herd_groups_observe */
    uint32_t max;          /* the largest groups tracked in the observation (at most HERD_MAX_GROUPS) */
    float view_radius_m;   /* agents this close see each other: they are in one group */
    float member_radius_m; /* R_f: a group's compact area is R_c = R_f sqrt(2 N_f); 0: no compact area */
  } groups;
  struct {                   /* Lien et al.'s shepherds (agents entries of strategy "shepherd") */
    uint32_t formation;      /* herd_formation */
    uint32_t assignment;     /* herd_assignment */
    uint32_t approach;       /* herd_approach */
    float turn_angle_deg;    /* theta_t: below it steer straight, to 90 deg turn, beyond stop */
    float margin_m;          /* epsilon: the formation this far outside the group's enclosing circle */
    float side_amplitude_m;  /* side-to-side steering of a lone shepherd: half the sweep */
    float side_period_steps; /* and the steps of one full sweep */
    float safe_margin_m;     /* the safe zone: the group's enclosing circle plus this */
    uint32_t hold;           /* herd_hold: how the dominant group is held in states 2 and 3 */
  } shepherds;
  struct {                  /* food particles a foraging model seeks (steering agents of HERD_STRATEGY_FOOD) */
    herd_point_list points; /* where they lie; none: no food */
    float eat_radius_m;     /* an agent this close to a particle eats it */
    float sense_radius_m;   /* an agent this close to a particle has found it */
  } food;
  struct {                  /* a guiding path (docs/models/path.md) */
    herd_point_list points; /* the Bezier curve's control points; none: no path */
    float lookahead_m;      /* how far ahead along the path an agent aims */
    float weight;           /* how strongly the path steers (the model's bias factor) */
  } path;
  herd_output_config output; /* what herd run writes, and how often (docs/output.md) */
  herd_schedule schedule;    /* parameters changed during the run */
  union {
    unsigned char bytes[HERD_MODEL_PARAMS_BYTES];
    uint32_t words[HERD_MODEL_PARAMS_BYTES / 4];
  } params;
};

/* herd_scenario_load and herd_scenario_parse into a scenario the caller holds (the library's
 * own layers and tests keep scenarios by value); herd_scenario_load allocates one of these. */
herd_status scenario_load(const char *path, const char *const *sets, int set_count, herd_scenario *out,
                          herd_error *err);
herd_status scenario_parse(const char *text, const char *origin, const char *const *sets, int set_count,
                           herd_scenario *out, herd_error *err);

/* Checks a scenario built or changed in code against the same ranges and rules as a file
 * (herd_sim_create does this too). */
herd_status herd_scenario_validate(const herd_scenario *sc, herd_error *err);

/* The pen (an index into obstacles.pens) whose inside holds the target: its interior is then
 * the goal, instead of the circle of target.goal_radius_m. -1 when there is none. */
int herd_scenario_goal_pen(const herd_scenario *sc);

/* How many Strömbom sheepdogs the scenario has (dogs.count where the model has dogs, else 0). */
uint32_t herd_scenario_dog_count(const herd_scenario *sc);

/* Steering agents the scenario starts with: dogs.count, every agents entry's count, then one per
 * food particle. */
uint32_t herd_scenario_steering_count(const herd_scenario *sc);

/* Whether runs of the scenario find the flock's groups each step: groups.observe is "always",
 * or "with_shepherds" and an agents entry is of strategy "shepherd". */
bool herd_scenario_observes_groups(const herd_scenario *sc);

#endif
