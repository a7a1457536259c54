/* herd — large flocks and the agents that steer them.
 *
 * The public API for programs (docs/library.md); a viewer's hooks are in herd/herd_view.h.
 * Typical use:
 *
 *   herd_error err;
 *   herd_scenario *sc;
 *   if (herd_scenario_load("field.json", NULL, 0, &sc, &err) != HERD_OK) { puts(err.message); ... }
 *   herd_sim *sim;
 *   if (herd_sim_create(&(herd_sim_desc){.scenario = sc}, &sim, &err) != HERD_OK) ...
 *   while (herd_sim_outcome(sim) == HERD_RUNNING) herd_sim_step(sim, &err);
 *   herd_sim_destroy(sim);
 *   herd_scenario_free(sc);
 *
 * Every function that can fail returns a herd_status and fills a herd_error with a
 * message a user can act on. The library never exits the process. In *_desc structs a
 * zero field means the documented default. */
#ifndef HERD_HERD_H
#define HERD_HERD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HERD_ERROR_MAX 1024

typedef enum herd_status {
  HERD_OK = 0,
  HERD_E_INPUT = 2,  /* the user's input is wrong: a scenario, an option (exit status 2) */
  HERD_E_IO,         /* a file could not be read or written */
  HERD_E_MEMORY,     /* an allocation failed */
  HERD_E_BACKEND,    /* the compute backend failed */
  HERD_E_INTERRUPTED /* herd_sim_desc.stop was raised during a step: the step was abandoned */
} herd_status;

typedef struct herd_error {
  herd_status status;
  char message[HERD_ERROR_MAX];
} herd_error;

/* Copies `text` into `out` (size bytes with the NUL) with every control character (C0, DEL,
 * C1), invisible separator and byte that is not UTF-8 written as an escape (\n, \t, \x1b,
 * \u0085, \xff), so user text quoted in a message keeps it one line and cannot drive a
 * terminal. Never cuts an escape or a character in half. Returns out. Every herd_error
 * message is already escaped. */
char *herd_escape(const char *text, char *out, size_t size);

/* herd's version ("0.1.0") and the commit it was built from (`git describe --dirty`, or
 * "unknown" when built outside a git checkout). */
const char *herd_version(void);
const char *herd_build_commit(void);

/* ---- Scenarios --------------------------------------------------------------------- */

#define HERD_MAX_STEERING 64 /* steering agents (dogs, cruisers, pursuers, food) per scenario */
#define HERD_MAX_GROUPS 32   /* groups.max at most: flock groups tracked in the observation */

/* Flock models, in the order of the model table (herd_model_name gives each one's name). */
#define HERD_MODEL_STROMBOM 0u
uint32_t herd_model_count(void);
const char *herd_model_name(uint32_t model);                  /* "strombom", "boids", ... */
const char *herd_model_section(uint32_t model);               /* its fields' JSON group: "sheep" */
const char *herd_model_title(uint32_t model);                 /* what it is, in a few words */
bool herd_model_supports_dims(uint32_t model, uint32_t dims); /* 2 or 3 */

/* Steering strategies: how a steering agent moves. */
typedef enum herd_strategy {
  HERD_STRATEGY_DOG = 0,  /* Strömbom's sheepdog: collect or drive (the "dogs" group) */
  HERD_STRATEGY_CRUISER,  /* straight on at its speed (through the wrap of a torus) */
  HERD_STRATEGY_PURSUER,  /* toward the nearest flock agent at its speed */
  HERD_STRATEGY_MANUAL,   /* stands still until the user steers it */
  HERD_STRATEGY_FOOD,     /* a food particle (food.points_m): stays put until a flock agent eats it */
  HERD_STRATEGY_SHEPHERD, /* Lien et al.'s shepherd: formations, assignment, merging (shepherds.*) */
  HERD_STRATEGY_COUNT
} herd_strategy;
const char *herd_strategy_name(herd_strategy strategy);

/* ---- Scenarios: an opaque handle, its fields read and written by path ------------------ */

/* A complete, validated scenario. Its fields are those of docs/scenario.md, named by their
 * JSON paths ("sheep.count", "world.size_m[1]", "agents[0].strategy"): read them with
 * herd_scenario_get (numbers) or herd_scenario_describe (what programs read most), change them
 * with herd_scenario_set. */
typedef struct herd_scenario herd_scenario;

/* The built-in default scenario (Strömbom et al. 2014), as JSON text. */
const char *herd_default_scenario_json(void);

/* Parses and validates a scenario into a new one (*out, for herd_scenario_free). `path` NULL
 * means the built-in default. `sets` are "PATH=VALUE" overrides (as `herd run --set`),
 * validated exactly like the file and together (so sheep.count and sheep.neighbours may change
 * at once). On error *out is NULL. */
herd_status herd_scenario_load(const char *path, const char *const *sets, int set_count, herd_scenario **out,
                               herd_error *err);

/* The same from text in memory; `origin` names it in messages (a file name, "<default>"). */
herd_status herd_scenario_parse(const char *text, const char *origin, const char *const *sets, int set_count,
                                herd_scenario **out, herd_error *err);

/* A new scenario equal to sc (*out, for herd_scenario_free; NULL on error). */
herd_status herd_scenario_copy(const herd_scenario *sc, herd_scenario **out, herd_error *err);

/* Frees a scenario from herd_scenario_load, _parse, _copy or herd_checkpoint_scenario (NULL:
 * nothing). A sim keeps its own copy: the scenario may be freed once the sim is created. */
void herd_scenario_free(herd_scenario *sc);

/* Sets field `path` to `value`, text as `--set PATH=VALUE` takes it ("80", "[10, 20]",
 * "near_sheep", "random"), checked exactly as --set checks it: the same messages and ranges,
 * the whole scenario checked again. On any error (HERD_E_INPUT) sc is unchanged. The model is
 * chosen when loading (a set of "model=NAME" there), not here. */
herd_status herd_scenario_set(herd_scenario *sc, const char *path, const char *value, herd_error *err);

/* The number in field `path` ("sheep.neighbours", "world.size_m[1]", "agents[0].count"). A
 * choice holds the index of its name ("dogs.stop": 0 for "near_sheep"); a strategy its
 * herd_strategy. */
herd_status herd_scenario_get(const herd_scenario *sc, const char *path, double *value, herd_error *err);

/* What programs read most often, in one struct (herd_scenario_describe). Axes past dims are 0. */
typedef struct herd_scenario_info {
  uint32_t model;         /* a row of the model table (herd_model_name) */
  uint32_t dims;          /* world.dims: 2 or 3 */
  float size_m[3];        /* world.size_m: the world box, from 0 on each axis */
  uint32_t wrap[3];       /* world.wrap: 1 where the axis wraps (a torus) */
  uint64_t seed;          /* seed */
  uint32_t max_steps;     /* max_steps: the step limit */
  uint32_t count;         /* flock.count: the flock's agents, N */
  float target_m[3];      /* target.position_m */
  float goal_radius_m;    /* target.goal_radius_m; negative: no goal */
  int32_t goal_pen;       /* the pen (obstacles.pens index) holding the target, whose inside is the goal; -1: none */
  uint32_t dogs;          /* Strömbom sheepdogs (dogs.count where the model has dogs, else 0) */
  uint32_t steering;      /* steering agents at the start: dogs, every agents entry's count, food particles */
  uint32_t agent_entries; /* entries of the "agents" list (read each as agents[K].strategy, .count, ...) */
  uint32_t food;          /* food.points_m: food particles */
  uint32_t path_points;   /* path.points_m: the guiding path's control points; 0: no path */
  uint32_t spheres;       /* obstacles.spheres */
  uint32_t shapes;        /* obstacles.walls, .water and .pens together (bridges only carve water) */
  bool observes_groups;   /* the flock's groups are found each step (groups.observe, shepherds) */
  float grid_cell_m;      /* the neighbour grid's cell: the model's interaction radius (Strömbom: 2 r_a) */
  uint32_t observation_every, order_every, steering_every, trajectories_every; /* output.*.every_steps */
} herd_scenario_info;
herd_scenario_info herd_scenario_describe(const herd_scenario *sc);

/* Its description ("description": what it is for, in words), "" when it has none. */
const char *herd_scenario_description(const herd_scenario *sc);

/* Its schedule ("schedule", docs/scenario.md): the parameters the run changes as it goes. Entry
 * k sets field *path to *value once *step steps have run, before the next step; false past the
 * last entry. The entries come in the order of their steps. */
uint32_t herd_scenario_schedule_count(const herd_scenario *sc);
bool herd_scenario_schedule_entry(const herd_scenario *sc, uint32_t k, uint32_t *step, const char **path,
                                  double *value);

/* Writes the scenario as JSON with every field of its model, so a run can be reproduced
 * exactly. Returns a malloc'd string, or NULL when out of memory. */
char *herd_scenario_to_json(const herd_scenario *sc);

/* True when a quantity written every `every` steps (output.*.every_steps) is due after `step`
 * steps: step is a multiple of every (step 0, the start, included); every 0: never. */
bool herd_output_due(uint32_t every, uint32_t step);

/* The agent ids whose trajectories are written, ascending: the candidates (the ids of
 * output.trajectories.ids, or else the whole flock), or output.trajectories.sample of them
 * drawn from the seed alone (the same seed and candidates give the same ids on every machine).
 * Fills ids (room for flock.count) when not NULL; returns how many. */
uint32_t herd_scenario_trajectory_ids(const herd_scenario *sc, uint32_t *ids);

/* ---- Observation: what the backend reduces from the flock each step ---------------- */

/* One group of the flock: agents linked by chains of agents within groups.view_radius_m of
 * each other, less those outside its compact area (which form groups of their own). Groups
 * are ordered by size, largest first; ties by the smaller id. */
typedef struct herd_group {
  uint32_t count;
  uint32_t first_id;      /* its smallest agent id: names the group while it holds together */
  double centroid[3];     /* its centre of mass */
  float radius_m;         /* its enclosing circle about the centroid: the farthest member's distance */
  float compact_radius_m; /* R_c = R_f sqrt(2 N_f) (groups.member_radius_m) */
  uint32_t farthest_id;   /* the member farthest from the centroid (ties: the smaller id) */
  float farthest_pos[3];
  float heading[3]; /* the members' mean unit velocity (its length: the group's polarisation) */
} herd_group;

/* The flock about its centroid G in HERD_SECTORS sectors of azimuth (the xy-plane; in 3D the
 * agents' projections): sector k holds the agents whose offset r - G points between k * 45
 * and (k + 1) * 45 degrees counter-clockwise from +x (each border belongs to the sector it
 * opens; an agent at G itself to sector 0). Decided by comparisons of the offset's components
 * alone, so every backend puts every agent in the same sector. */
#define HERD_SECTORS 8
typedef struct herd_sector {
  uint32_t count;       /* flock agents in the sector (removed ones not) */
  uint32_t farthest_id; /* the one farthest from G (ties: the smaller id); UINT32_MAX: none */
  float farthest_pos[3];
  float farthest_dist_m; /* 0 when the sector is empty */
} herd_sector;

typedef struct herd_observation {
  uint32_t count;      /* flock agents */
  uint32_t in_goal;    /* agents within target.goal_radius_m of the target now */
  uint32_t delivered;  /* agents that have been within it at some step (latched) */
  double centroid[3];  /* G, the flock's centre of mass (z = 0 in 2D) */
  float extent_min[3]; /* bounding box of the flock */
  float extent_max[3];
  uint32_t farthest_id; /* the agent farthest from G */
  float farthest_pos[3];
  float farthest_dist_m;
  float polarisation;      /* |mean unit velocity|: 1 all aligned, about 0 disordered */
  float milling;           /* |mean of unit(r - G) x unit(v)|: 1 a perfect mill about G */
  float path_distance_m;   /* the agents' mean distance from the world's path (0 without one) */
  uint32_t path_end;       /* agents whose closest path point lies in the path's last 5 % (arc length) */
  uint32_t group_count;    /* groups found this step (0 when groups are not observed) */
  uint32_t groups_tracked; /* of them in group[]: the largest, at most groups.max */
  herd_group group[HERD_MAX_GROUPS];
  uint32_t steering_count;
  struct {
    uint32_t id; /* the flock agent nearest to this steering agent (through the wrap) */
    float pos[3];
    float dist_m;
  } nearest[HERD_MAX_STEERING];
  /* The parts this observation lacks (HERD_OBSERVE_* bits; 0: none), as herd_sim_set_observed
   * let the backend leave them out: their fields then hold NaN (ids UINT32_MAX). */
  uint32_t missing;
  /* HERD_OBSERVE_SECTORS: the flock sector by sector about G (last: an observation of an older
   * herd is the prefix before it). */
  herd_sector sector[HERD_SECTORS];
} herd_observation;

/* An observation's optional parts: every other field is reduced each step, as the run needs it
 * (the goal, the grid's box, the dogs' centroid). */
#define HERD_OBSERVE_FAR 1u          /* farthest_id, farthest_pos, farthest_dist_m and milling: a second pass */
#define HERD_OBSERVE_POLARISATION 2u /* polarisation: each agent's unit velocity */
#define HERD_OBSERVE_SECTORS 4u      /* sector[]: in the second pass (the centroid first) */
#define HERD_OBSERVE_ALL (HERD_OBSERVE_FAR | HERD_OBSERVE_POLARISATION | HERD_OBSERVE_SECTORS)

/* ---- Devices ---------------------------------------------------------------------- */

typedef struct herd_device_info {
  int index; /* as `--device` takes it */
  char platform[128];
  char name[128];
  const char *type; /* "GPU", "CPU", "accelerator" or "other" */
  uint32_t compute_units;
  uint64_t global_mem_bytes;
  uint64_t max_alloc_bytes;
  char opencl_c_version[64]; /* e.g. "OpenCL C 1.2 pocl" */
  char driver_version[64];
  bool gl_sharing; /* cl_khr_gl_sharing */
  bool fp64;       /* cl_khr_fp64 */
} herd_device_info;

/* Lists the OpenCL devices (up to `max`). Fails, with a message naming the packages to
 * install, when there is no OpenCL platform or this build has no OpenCL. */
herd_status herd_devices(herd_device_info *out, int max, int *count, herd_error *err);

/* A backend and device resolved before a sim is made (the viewer must know whether the
 * device can share buffers with OpenGL before it creates them). */
typedef struct herd_backend_choice {
  char backend[16]; /* "cpu" or "opencl": give it and device to herd_sim_desc */
  char device[16];  /* the OpenCL device index; "" for cpu */
  char device_name[128];
  char extensions[4096]; /* the OpenCL device's extension string; "" for cpu */
  char note[300];        /* what auto chose, or "" */
} herd_backend_choice;

/* Resolves --backend (NULL = "cpu") and --device as herd_sim_create would. */
herd_status herd_choose_backend(const char *backend, const char *device, herd_backend_choice *out, herd_error *err);

/* ---- Simulation -------------------------------------------------------------------- */

typedef enum herd_outcome {
  HERD_RUNNING = 0,
  HERD_SUCCEEDED, /* every sheep delivered: each has come within the goal radius */
  HERD_STEP_LIMIT /* max_steps reached first */
} herd_outcome;

/* What a steering agent is doing. */
typedef enum herd_steering_mode {
  HERD_MODE_COLLECT = 0, /* a dog fetching the agent farthest from the flock */
  HERD_MODE_DRIVE,       /* a dog pushing the flock toward the target */
  HERD_MODE_WAIT,        /* a dog with a flock agent closer than 3 r_a: standing still */
  HERD_MODE_MANUAL,      /* steered by the user (herd_sim_steer) */
  HERD_MODE_CRUISE,      /* a cruiser going straight on */
  HERD_MODE_PURSUE,      /* a pursuer chasing the nearest flock agent */
  HERD_MODE_IDLE,        /* a manual agent nobody steers */
  HERD_MODE_FOOD,        /* a food particle not yet eaten */
  HERD_MODE_FOOD_BEST,   /* the food particle nearest to any agent, once one senses it: the flock's best find */
  HERD_MODE_EATEN,       /* a food particle an agent reached */
  HERD_MODE_APPROACH,    /* a shepherd on its way to its steering point */
  HERD_MODE_STEER,       /* shepherds in formation pushing a group straight on toward its milestone */
  HERD_MODE_SIDE,        /* a lone shepherd steering its group side to side */
  HERD_MODE_TURN,        /* shepherds turning a group: the formation rotated about its centre */
  HERD_MODE_STOP,        /* shepherds stopping a group: the formation mirrored about its heading */
  HERD_MODE_MERGE,       /* shepherds bringing a separated group to the others (states 2 and 3) */
  HERD_MODE_HOLD         /* shepherds holding the dominant group while the others are brought to it */
} herd_steering_mode;

typedef struct herd_steering_state {
  herd_strategy strategy;
  herd_steering_mode mode;
  float pos[3];
  float heading[3];     /* unit vector of its last move */
  float velocity[3];    /* its last move (m per step, through the wrap); 0 before it moved */
  float aim[3];         /* where a dog or shepherd is heading this step (its steering point); NAN: nowhere */
  int32_t group;        /* a shepherd: the observation's group it works on; -1 none */
  uint32_t flock_state; /* a shepherd: Lien's state as it sees it: 1 one group, 2 groups <= shepherds, 3 more groups */
  float speed_m_per_step;
} herd_steering_state;

/* OpenGL buffers for the OpenCL backend to share: a viewer's (include/herd/herd_view.h). */
typedef struct herd_gl_share herd_gl_share;

/* One flock split over the ranks of MPI_COMM_WORLD (docs/cluster.md). Every rank
 * creates the sim alike (same scenario, seed and options) after MPI_Init; each steps its part
 * of the flock on its own backend, and every rank sees the same observation, bit for bit the
 * one process's. Builds without MPI refuse it. */
typedef struct herd_mpi_options {
  bool on;
  const char *layout;       /* "slabs", "grid" (a 2D process grid), or NULL: grid when the ranks allow */
  uint32_t rebalance_every; /* steps between rebalancings by agent count; 0: 50 */
} herd_mpi_options;

typedef struct herd_sim_desc {
  const herd_scenario *scenario; /* required */
  int threads;                   /* CPU threads; 0 = every processor herd may use */
  const char *backend;           /* "cpu" (default), "opencl", or "auto": first GPU, else an
                                    OpenCL CPU device, else "cpu" */
  const char *device;            /* OpenCL device: index or name substring; NULL = $HERD_CL_DEVICE or 0 */
  bool profile;                  /* time each stage (OpenCL profiling events) */
  const herd_gl_share *gl_share; /* share these GL buffers (OpenCL devices with
                                    cl_khr_gl_sharing only); NULL = no sharing */
  /* A flag a signal handler may raise: a step that sees it becomes non-zero stops within a
   * block of agents (well under a second) and returns HERD_E_INTERRUPTED. NULL = never. */
  const volatile sig_atomic_t *stop;
  /* Never run a step ahead of the observation (docs/opencl.md, "Running a step ahead"): for
   * comparing with the run ahead, which must give the same results. */
  bool lockstep;
  herd_mpi_options mpi; /* split the flock over MPI ranks */
} herd_sim_desc;

/* Stages of a step, as --profile reports them. */
typedef enum herd_stage {
  HERD_STAGE_BIN,
  HERD_STAGE_SORT,
  HERD_STAGE_RANGES,
  HERD_STAGE_REORDER,
  HERD_STAGE_STEP,
  HERD_STAGE_REDUCE,
  HERD_STAGE_READBACK,
  HERD_STAGE_GROUPS, /* the flock's groups, their own sort included (groups.observe) */
  HERD_STAGE_STEER,  /* the steering agents' decisions and moves, on the host (every backend) */
  HERD_STAGE_COUNT
} herd_stage;

typedef struct herd_profile {
  double seconds[HERD_STAGE_COUNT]; /* summed over the run */
  uint64_t calls[HERD_STAGE_COUNT];
  uint64_t kernels; /* kernel launches (OpenCL; 0 on the CPU backend) */
  uint64_t waits;   /* host waits for the device: clFinish, blocking reads and writes (OpenCL) */
} herd_profile;

const char *herd_stage_name(herd_stage stage);

typedef struct herd_sim herd_sim;

herd_status herd_sim_create(const herd_sim_desc *desc, herd_sim **out, herd_error *err);
void herd_sim_destroy(herd_sim *sim);

/* Advances one step: the steering agents move on the last observation, then every flock
 * agent moves. HERD_E_INTERRUPTED when desc.stop was raised during the step: the step is
 * abandoned and the flock, steering agents, observation and step index are as before it
 * (the flock's internal order may differ, so a run continued after an interruption is
 * valid but not bit-identical to one never interrupted). */
herd_status herd_sim_step(herd_sim *sim, herd_error *err);

uint32_t herd_sim_step_index(const herd_sim *sim); /* steps completed */
herd_outcome herd_sim_outcome(const herd_sim *sim);
const herd_observation *herd_sim_observation(const herd_sim *sim);
/* The optional parts (HERD_OBSERVE_*) each step's observation is to hold from the next step on;
 * HERD_OBSERVE_ALL unless set. With steering agents every part but the sectors is kept (their
 * strategies read the observation), and the sectors too where a strategy reads them. The parts
 * computed are bit for bit as with all of them. */
void herd_sim_set_observed(herd_sim *sim, uint32_t parts);
/* Fills in the parts the current observation lacks, from the flock as it is now: the same bits
 * as had they been reduced with the step. A step run ahead is abandoned first, as for a read. */
herd_status herd_sim_observe_now(herd_sim *sim, herd_error *err);
uint32_t herd_sim_steering_count(const herd_sim *sim);
/* Steering agent `index` (0 to herd_sim_steering_count - 1); NULL past the last. */
const herd_steering_state *herd_sim_steering(const herd_sim *sim, uint32_t index);
const char *herd_steering_mode_name(herd_steering_mode mode);

/* Copies the flock out, ordered by agent id (0..N-1): world.dims floats per agent (x, y
 * and, in 3D, z) for positions and velocities (Strömbom's and NetLogo's: unit headings).
 * Either pointer may be NULL. */
herd_status herd_sim_read_flock(herd_sim *sim, float *pos, float *vel, herd_error *err);

/* The flock's unit headings, ordered by agent id: velocity / |velocity| computed in float (0
 * where an agent stands still), world.dims floats per agent; the HDF5 trajectories' /headings
 * are these, bit for bit. */
herd_status herd_sim_read_headings(herd_sim *sim, float *headings, herd_error *err);
/* The same in place on `count` velocities as herd_sim_read_flock gives them (one read of the
 * flock for both positions and headings: under MPI each read is a gather of every rank). */
void herd_headings_of_velocities(float *rows, uint32_t count, uint32_t dims);

/* The backend running the flock ("cpu" or "opencl") and its device, in words. */
const char *herd_sim_backend(const herd_sim *sim);
const char *herd_sim_device(const herd_sim *sim);

/* Stage times so far; all zero unless the sim was created with profile = true. */
herd_status herd_sim_profile(herd_sim *sim, herd_profile *out, herd_error *err);

/* What splitting the flock over MPI ranks cost, summed over every rank and step; a
 * collective call: every rank must make it. False (and nothing written) without --mpi. */
typedef struct herd_mpi_stats {
  uint32_t ranks, px, py; /* the process grid: px slabs, each cut into py parts */
  const char *layout;     /* "slabs" or "grid" */
  uint32_t steps;         /* steps taken */
  float halo_width_m;     /* the halo's width at the last step */
  uint64_t halo_agents;   /* agents sent as halos */
  uint64_t halo_bytes;    /* their bytes */
  uint64_t migrated;      /* agents that changed rank */
  uint64_t messages;      /* point-to-point messages with data (halos, migrations), not collectives */
  uint32_t rebalances;    /* times the cuts were moved to even the counts */
  uint32_t halo_grows;    /* times a step widened the halo for a k-nearest query */
  uint32_t most_agents;   /* the most agents one rank held at the end (the least: fewest_agents) */
  uint32_t fewest_agents;
  double exchange_s; /* rank 0's wall time in halo exchange and migration */
  double reduce_s;   /* rank 0's wall time in the observation's reductions */
  double step_s;     /* rank 0's wall time in its backend's steps */
} herd_mpi_stats;
bool herd_sim_mpi_stats(herd_sim *sim, herd_mpi_stats *out);

/* A line about how the backend was chosen ("auto: no GPU; using ..."), or "" if none. */
const char *herd_sim_backend_note(const herd_sim *sim);

/* The CPU threads the backend steps with: desc.threads, or fewer where the backend decided
 * so (the CPU backend runs small flocks on one thread); 0 for a backend without threads
 * (OpenCL). */
int herd_sim_threads(const herd_sim *sim);

/* Hands steering agent `index` to the user: from the next step on it moves toward `aim`
 * (world.dims numbers, anywhere: a point outside the world is headed for, not reached) at its
 * speed, in mode HERD_MODE_MANUAL; herd_sim_release gives it back to its strategy (also one
 * the user never steered). HERD_E_INPUT, and nothing changes, for an index past
 * herd_sim_steering_count ("herd_sim_steer: steering agent 99: this simulation has 1 (0..0)"),
 * an aim that is NULL or has a coordinate that is not finite (the message names it:
 * "aim[0] (x) = inf is not a finite number"). */
herd_status herd_sim_steer(herd_sim *sim, uint32_t index, const float *aim, herd_error *err);
herd_status herd_sim_release(herd_sim *sim, uint32_t index, herd_error *err);

/* The scenario the simulation runs. */
const herd_scenario *herd_sim_scenario(const herd_sim *sim);

/* ---- Checkpoints (docs/checkpoint.md) ------------------------------------------------- */
/* A checkpoint is the whole state of a sim after a whole step: the flock in the backend's own
 * order, the steering agents, the observation, the step index and the scenario (as JSON). A
 * sim resumed from it runs on bit for bit as the sim that wrote it would have, on the same
 * backend (and OpenCL device). */

/* Writes the sim's state to `path` (a temporary name in its folder, renamed once complete and
 * synced to disk, so a crash never leaves a torn file); an existing file is replaced only with
 * `force`. A step run ahead is abandoned first; the run after is unchanged. */
herd_status herd_sim_checkpoint(herd_sim *sim, const char *path, bool force, herd_error *err);

/* The scenario a checkpoint holds (a new one, for herd_scenario_free), and its step index (NULL:
 * not wanted). Corrupt, truncated
 * or foreign files: HERD_E_INPUT with a message naming the file and what is wrong. */
herd_status herd_checkpoint_scenario(const char *path, herd_scenario **out, uint32_t *step, herd_error *err);

/* A sim continuing from the checkpoint at `path`. desc->scenario NULL: the checkpoint's; else
 * it must be the checkpoint's but for max_steps (from herd_checkpoint_scenario, the step limit
 * changed), anything else is refused. desc->backend NULL: the backend that wrote it; another
 * backend is refused (HERD_E_INPUT). The rest of desc (threads, device, stop) as for
 * herd_sim_create. */
herd_status herd_sim_resume(const herd_sim_desc *desc, const char *path, herd_sim **out, herd_error *err);

/* ---- Parameters changed during a run ------------------------------------------------ */

/* Sets scenario field `path` of the running simulation to `value`, from the next step on, on
 * either backend. The value is checked exactly as `--set PATH=VALUE` checks it (the same
 * messages and ranges, the whole scenario checked again); on any error nothing changes
 * (HERD_E_INPUT for a NULL or empty path, an unknown field, a value out of range or not finite:
 * NAN or an infinity; the message names the field). Only fields nothing was built from may
 * change: the model's numeric parameters (sheep.repulsion, boids.turn_factor,
 * couzin.orientation_radius_m, ...) and dogs.speed_m_per_step, dogs.noise (herd_sim_param_name
 * lists them); counts, the world, obstacles, seeds, steering agents and choices of rule are
 * refused with a message saying they cannot change during a run. The neighbour grid keeps the
 * cells it was made with (queries take any radius), so a run whose radius changed is exact but
 * need not be bit-identical to one started with the new radius. */
herd_status herd_sim_set_param(herd_sim *sim, const char *path, double value, herd_error *err);
/* (The scenario's schedule makes its changes with this call at the steps it names, a batch's
 * worlds each its own in the batch's backend.) */

/* The `index`-th field herd_sim_set_param may change for this simulation's model ("sheep.inertia",
 * ...), in the scenario's table order; NULL past the last (a loop from 0 to NULL lists them).
 * *whole (unless NULL): it holds a whole number (sheep.neighbours). Read its value with
 * herd_scenario_get. */
const char *herd_sim_param_name(const herd_sim *sim, uint32_t index, bool *whole);

/* How many of its scenario's schedule entries the run has made (each once its step count was
 * reached, at the start of herd_sim_step; a resumed run counts those before its checkpoint). */
uint32_t herd_sim_schedule_made(const herd_sim *sim);

/* A batch: many independent small worlds (scenarios of one model and one world.dims) in one
 * backend, stepped together: on the CPU, worlds in parallel over the threads; on OpenCL,
 * every world in one launch of each kernel. Each world runs bit for bit as herd_sim_create
 * and herd_sim_step run it alone on the same backend. descs[w].scenario is world w's; the
 * backend, device, threads and stop flag are taken from descs[0].
 *
 *   herd_batch *b;
 *   if (herd_batch_create(descs, count, &b, &err) != HERD_OK) ...
 *   while (herd_batch_running(b) && herd_batch_step(b, &err) == HERD_OK) { ... }
 *   herd_sim_outcome(herd_batch_world(b, w)) ...
 *   herd_batch_destroy(b); */
typedef struct herd_batch herd_batch;

herd_status herd_batch_create(const herd_sim_desc *descs, uint32_t count, herd_batch **out, herd_error *err);
void herd_batch_destroy(herd_batch *batch);

/* One step of every world still running (HERD_RUNNING); finished worlds keep their state.
 * HERD_E_INTERRUPTED when the stop flag is raised: no world has moved. */
herd_status herd_batch_step(herd_batch *batch, herd_error *err);

uint32_t herd_batch_count(const herd_batch *batch);
uint32_t herd_batch_running(const herd_batch *batch); /* worlds still running */

/* World w, for the read-only herd_sim_* calls (outcome, step index, observation, steering
 * agents, scenario, backend). */
const herd_sim *herd_batch_world(const herd_batch *batch, uint32_t w);

/* World w's flock, as herd_sim_read_flock gives it. */
herd_status herd_batch_read_flock(herd_batch *batch, uint32_t w, float *pos, float *vel, herd_error *err);

/* World worlds[k] starts again from step 0 as herd_sim_create would start scenarios[k], bit
 * for bit (its flock placed anew, its steering agents at their start and under their
 * strategies, its parameters the scenario's), while the other worlds keep their state; its
 * observation is the new start's. A scenario may differ from the one its world was made with
 * in its seed, max_steps, schedule and the parameters herd_sim_set_param changes; its flock's
 * count, world, target, obstacles, path, food and steering agents are laid out in the batch's
 * backend and must stay (HERD_E_INPUT, naming the first that differs). Every world is
 * checked before any restarts. For a learning environment's reset of the worlds that ended.
 * (A new interaction radius is taken exactly, but the neighbour grid keeps the cells it was
 * made with, as after herd_sim_set_param: the run need not be a new simulation's bit for bit.) */
herd_status herd_batch_restart(herd_batch *batch, const uint32_t *worlds, const herd_scenario *const *scenarios,
                               uint32_t count, herd_error *err);

/* From the next step on, steering agent agents[j] of every world w heads for the point at
 * aims[(w * agent_count + j) * dims] (world.dims finite numbers), as herd_sim_steer takes it.
 * Every index and aim is checked before any is taken. */
herd_status herd_batch_steer(herd_batch *batch, const uint32_t *agents, uint32_t agent_count, const float *aims,
                             herd_error *err);

/* Every world's state now, w in order, into whichever arrays are not NULL: its observation,
 * its HERD_MAX_STEERING steering agent slots (steering[w * HERD_MAX_STEERING + d]; those past
 * herd_sim_steering_count unset), its step index and its herd_outcome. */
void herd_batch_read_worlds(const herd_batch *batch, herd_observation *obs, herd_steering_state *steering,
                            uint32_t *steps, uint32_t *outcomes);

/* What a run that has ended gives: herd sweep's row of it (runs.csv, docs/sweep.md). */
typedef struct herd_run_result {
  herd_outcome outcome;
  uint32_t steps;
  double wall_s;                          /* from its batch's start to the step it ended at */
  herd_observation obs;                   /* after its last step */
  uint32_t dims;                          /* its world.dims */
  uint32_t mode_changes;                  /* of its first steering agent: collect <-> drive for a dog */
  double drive_farthest_m;                /* mean farthest agent from G while it drives; NaN if it never did */
  double late_polarisation, late_milling; /* means over the run's late steps (docs/sweep.md); NaN: none */
  double steering_nearest_m; /* mean over steps of the flock's distance from the steering agents; NaN: none */
  double food_eaten;         /* food particles eaten by the end; NaN: the scenario has none */
} herd_run_result;

/* Runs descs' scenarios (one model, one world.dims; as herd_batch_create takes them) to their
 * ends as one batch and fills results[w] with world w's figures. HERD_E_INTERRUPTED when the
 * stop flag is raised: results are then those of the runs that had ended. */
herd_status herd_batch_run(const herd_sim_desc *descs, uint32_t count, herd_run_result *results, herd_error *err);

/* Bytes allocated for agent and grid data, for memory reports. */
size_t herd_sim_memory_bytes(const herd_sim *sim);

/* ---- Whole runs, flags, placing steering agents ------------------------------------------ */

/* Per-agent flags, as herd_sim_read_flags gives them (one byte per agent). */
#define HERD_FLAG_REMOVED 1u   /* taken out of the flock by its model (latched) */
#define HERD_FLAG_REACTED 2u   /* reacted to a steering agent in the last step */
#define HERD_FLAG_MOVED 4u     /* moved in the last step */
#define HERD_FLAG_DELIVERED 8u /* has been within the goal radius at some step (latched) */
#define HERD_FLAG_SATED 16u    /* ignored food in the last step (a fish not hungry enough to eat) */

/* Copies each flock agent's flags (HERD_FLAG_*), ordered by agent id as herd_sim_read_flock:
 * N bytes. */
herd_status herd_sim_read_flags(herd_sim *sim, uint8_t *flags, herd_error *err);

/* Runs up to `steps` steps (0: no limit but the scenario's max_steps), stopping early at the
 * outcome (herd_sim_outcome no longer HERD_RUNNING). `done`, when not NULL, gets the steps
 * taken by this call, also when it fails (HERD_E_INTERRUPTED: desc.stop was raised). */
herd_status herd_sim_run(herd_sim *sim, uint32_t steps, uint32_t *done, herd_error *err);

/* Puts steering agent `index` at `pos` (world.dims numbers, wrapped on a torus) before the
 * next step; its velocity becomes 0 and its strategy (or the aim of herd_sim_steer) moves it
 * on from there. The observation keeps the nearest agent it found for the old place until
 * the next step. HERD_E_INPUT, and nothing changes, for an index past herd_sim_steering_count
 * (the message as herd_sim_steer's), a NULL pos, a coordinate that is not finite, or one
 * outside the world on an axis that does not wrap. */
herd_status herd_sim_place_steering(herd_sim *sim, uint32_t index, const float *pos, herd_error *err);

/* "running", "succeeded" or "step_limit" (as `herd run` and runs.csv write it). */
const char *herd_outcome_name(herd_outcome outcome);

/* sizeof the public struct named `type` ("herd_scenario_info", "herd_observation",
 * "herd_steering_state", "herd_sim_desc", "herd_error"), 0 for another name: lets a foreign
 * function interface (the Python package) check its copy of the layouts. (herd_scenario is
 * opaque: it has no size a program may know.) */
size_t herd_sizeof(const char *type);

#ifdef __cplusplus
}
#endif
#endif
