/* What a compute backend does: hold the flock, step it with its model, reduce the
 * observation. The simulation loop talks to backends only through this table, so it knows
 * nothing of threads or OpenCL; backends know models only through their row in the
 * backends' model table (model_exec.h). Agent arrays stay inside the backend; they cross this interface
 * only in upload and read_agents.
 *
 * Agent state arrays use the device layout: per agent a float2 (2D) or a float4 (3D, w
 * unused) for position and for velocity, and a uint agent word (kernels/agent.h). */
#ifndef HERD_BACKEND_BACKEND_H
#define HERD_BACKEND_BACKEND_H
#include "../../kernels/groups.h"
#include "../../kernels/reduce.h"
#include "../core/scenario.h"
#include "herd/herd.h"
#include "layer.h"
#include "model_exec.h"

typedef struct herd_backend herd_backend;

typedef struct herd_backend_desc {
  uint32_t count; /* flock agents */
  /* An MPI rank's backend (src/backend/mpi) holds part of the flock: `count` is then the most
   * it holds, and layout_count the whole flock's size, for which its grid is laid out. 0: count. */
  uint32_t layout_count;
  const herd_model_exec *model;
  const void *params; /* the model's parameter struct (model->params_size bytes) */
  uint32_t dims;
  float world_size_m[3];
  uint32_t world_wrap[3];
  float goal_m[3];     /* target, for the in-goal count */
  float goal_radius_m; /* negative: no goal */
  uint64_t seed;
  int threads;                       /* 0 = the backend's default */
  const char *device;                /* OpenCL: index or name substring (NULL: $HERD_CL_DEVICE, else 0) */
  bool profile;                      /* time each stage */
  const herd_gl_share *gl_share;     /* OpenCL with cl_khr_gl_sharing: keep the state in these */
  const volatile sig_atomic_t *stop; /* raised: abandon the step (HERD_E_INTERRUPTED) */
  const float *env;                  /* obstacles and path (kernels/env.h); copied by create */
  uint32_t env_floats;
  herd_env_info env_info; /* where in env, and their parameters */
  /* The most steering agents reduce is given (a sim's never change): the OpenCL backend sizes
   * its reduction's partials for it and refuses more. */
  uint32_t steering_count;
  /* The MPI backend (src/backend/mpi): the backend each rank steps its part on, and how the
   * flock is split. */
  const struct herd_backend_ops *inner;
  herd_mpi_options mpi;
} herd_backend_desc;

/* The steering agents as the flock sees them: HERD_STEER_FLOATS per agent (kernels/agent.h). */
typedef struct herd_steering_input {
  const float *pos;
  uint32_t count;
} herd_steering_input;

/* How the flock's groups are found and how many are tracked (the scenario's groups.*). */
typedef struct herd_groups_params {
  uint32_t max;          /* the largest groups tracked in the observation, 1 to HERD_MAX_GROUPS */
  float view_radius_m;   /* agents this close are linked */
  float member_radius_m; /* R_f of the compact area; 0: no compact area */
} herd_groups_params;

/* What a batch's step needs of each world: as herd_backend_ops.step's arguments. */
typedef struct herd_world_input {
  herd_steering_input steer;
  float centroid[3];
  uint32_t step;
  bool active;                      /* false: the world has finished; its flock stays as it is */
  const herd_groups_params *groups; /* reduce_batch: also find the world's groups (ops.batch_groups); NULL: not */
} herd_world_input;

/* True once the stop flag (herd_sim_desc.stop) is raised. Read atomically: a signal handler
 * or another thread raises it while the backend's threads read it. */
static inline bool herd_stop_raised(const volatile sig_atomic_t *stop) {
  return stop && __atomic_load_n(stop, __ATOMIC_RELAXED);
}

/* Tests only (NULL otherwise): called at each look at the stop flag between the pieces of a
 * step (the CPU backend's chunks, the OpenCL step kernel's slices), from any of the backend's
 * threads, before the flag is read. A test's hook raises its own flag at the K-th call: a step
 * stopped midway on a machine of any speed, never a race against a timer. */
extern void (*herd_test_piece_hook)(void);

/* herd_stop_raised, where a step may stop between two of its pieces. */
static inline bool herd_stop_between_pieces(const volatile sig_atomic_t *stop) {
  void (*hook)(void) = __atomic_load_n(&herd_test_piece_hook, __ATOMIC_ACQUIRE);
  if (hook && stop) hook();
  return herd_stop_raised(stop);
}

struct herd_box_history; /* below */

typedef struct herd_backend_ops {
  const char *name;
  herd_status (*create)(const herd_backend_desc *desc, herd_backend **out, herd_error *err);
  /* Sets the flock; arrays in id order, device layout. */
  herd_status (*upload)(herd_backend *b, const float *pos, const float *vel, herd_error *err);
  /* One step of every agent, seeing the steering agents at their new positions; `centroid`
   * is the flock's centre of mass before the step (from the last reduce; NULL, OpenCL only:
   * the last reduce's as kept on the device, the same value without reading it back). When desc.stop is
   * raised it returns HERD_E_INTERRUPTED with the flock as before the step. */
  herd_status (*step)(herd_backend *b, herd_steering_input steer, const float centroid[3], uint32_t step,
                      herd_error *err);
  herd_status (*reduce)(herd_backend *b, herd_steering_input steer, herd_observation *obs, herd_error *err);
  /* Optional (NULL: every part, always): the optional parts of the observation (HERD_OBSERVE_*)
   * the reductions from now on compute; the others they leave out (herd_observation_leave_out).
   * HERD_OBSERVE_ALL at creation. */
  void (*set_observed)(herd_backend *b, uint32_t parts);
  /* Optional (NULL where not offered; OpenCL): reduce in two halves, for a host that runs a
   * step ahead (src/sim/sim.c). reduce_async enqueues the reduction of the flock as the queue
   * will leave it and a read of it into host slot `slot` (0 or 1) without waiting;
   * reduce_wait waits for that read and gives the observation. cancel_step abandons the last
   * step enqueued (its reduce_async slot is then never waited for): the flock goes back as
   * before it. */
  herd_status (*reduce_async)(herd_backend *b, herd_steering_input steer, int slot, herd_error *err);
  herd_status (*reduce_wait)(herd_backend *b, int slot, herd_observation *obs, herd_error *err);
  herd_status (*cancel_step)(herd_backend *b, herd_error *err);
  /* The flock's groups as it is now (kernels/groups.h), after reduce filled `obs`: sets its
   * group_count, groups_tracked and group[]. The step's grid is of the positions before the
   * step, so this sorts the flock again (into the scratch half of the state, which the next
   * step overwrites) for a grid of where it is. Only the tracked groups' results (and the
   * list of groups' sizes) cross from a device. */
  herd_status (*groups)(herd_backend *b, const herd_groups_params *p, herd_observation *obs, herd_error *err);
  /* Each agent's index into the last groups call's obs->group[] (HERD_GROUP_UNTRACKED when its
   * group is not tracked or it is in none), in the order of map_state; valid until the next
   * step. Kept by agent id, so it stays right when an interrupted step reorders the state. */
  herd_status (*map_groups)(herd_backend *b, const uint32_t **slot, herd_error *err);
  /* New values of the model's parameters (desc.params' struct), for the steps from the next
   * on (herd_sim_set_param). The grid keeps the cells it was created with (its queries take
   * any radius). */
  herd_status (*set_params)(herd_backend *b, const void *params, herd_error *err);
  /* Copies the flock out in id order, device layout; either pointer may be NULL. */
  herd_status (*read_agents)(herd_backend *b, float *pos, float *vel, herd_error *err);
  /* The state in the backend's own order, valid until the next step (herd_sim_map_state). */
  herd_status (*map_state)(herd_backend *b, const float **pos, const float **vel, const uint32_t **agent,
                           herd_error *err);
  /* True when the state lives in the GL buffers of desc.gl_share. */
  bool (*shares_gl)(const herd_backend *b);
  /* The viewer (NULL where the backend cannot): keep flock agent `id`'s update
   * terms in every following step (UINT32_MAX: stop), and read the last step's. */
  herd_status (*explain)(herd_backend *b, uint32_t id, herd_error *err);
  bool (*update_terms)(const herd_backend *b, herd_update_terms *out);
  size_t (*memory_bytes)(const herd_backend *b);
  /* Stage times so far (zero unless created with profile). */
  herd_status (*profile)(herd_backend *b, herd_profile *out, herd_error *err);
  const char *(*device_name)(const herd_backend *b);
  /* CPU threads it steps with; NULL for a backend without threads (herd_sim_threads: 0). */
  int (*threads)(const herd_backend *b);
  void (*destroy)(herd_backend *b);

  /* Checkpoints (src/sim/checkpoint.c). The grids' box history, which the next two steps'
   * grids are boxed by: with map_state, all the backend holds that the next step depends on. */
  void (*box_history)(const herd_backend *b, struct herd_box_history *out);
  /* Sets the flock in the backend's own order (as map_state gave it: agent words and their
   * flags included) and the box history, as they were after `steps` steps: the steps after
   * are bit for bit those of the run that was saved. `count` agents, at most desc.count: an MPI
   * rank (src/backend/mpi) loads its part of the flock and its halo so, every step. */
  herd_status (*restore)(herd_backend *b, uint32_t count, const float *pos, const float *vel, const uint32_t *agent,
                         const struct herd_box_history *boxes, uint32_t steps, herd_error *err);

  /* Batches: `count` independent worlds of one model and dimension (world w described by
   * descs[w]: its flock size, parameters, world, seed) in one backend, stepped together: on
   * the CPU, worlds in parallel over the threads; on OpenCL, every world in one launch of
   * each kernel. Each world's run is bit-identical to that world alone on the same backend.
   * A batch backend takes only the ops below, plus memory_bytes, profile, device_name and
   * destroy. */
  herd_status (*create_batch)(const herd_backend_desc *descs, uint32_t count, herd_backend **out, herd_error *err);
  /* World `world` starts a run of `seed` (its step 0) with this flock, in id order: at the
   * batch's creation, or again between its steps (herd_batch_restart) while the others go on. */
  herd_status (*upload_world)(herd_backend *b, uint32_t world, uint64_t seed, const float *pos, const float *vel,
                              herd_error *err);
  /* One step of every world whose in[w].active is set (the others keep their state), then
   * the reduction of every world into obs[w]. */
  herd_status (*step_batch)(herd_backend *b, const herd_world_input *in, herd_error *err);
  herd_status (*reduce_batch)(herd_backend *b, const herd_world_input *in, herd_observation *obs, herd_error *err);
  herd_status (*read_world)(herd_backend *b, uint32_t world, float *pos, float *vel, herd_error *err);
  /* set_params for world `world` alone (herd_sim_set_param on a batch's world; its schedule). */
  herd_status (*set_world_params)(herd_backend *b, uint32_t world, const void *params, herd_error *err);
  bool batch_groups; /* reduce_batch finds groups (herd_world_input.groups) */

  /* The MPI backend's costs (herd_sim_mpi_stats; collective); NULL for the others. */
  bool (*mpi_stats)(herd_backend *b, herd_mpi_stats *out);
} herd_backend_ops;

extern const herd_backend_ops herd_cpu_backend;
#ifdef HERD_WITH_OPENCL
extern const herd_backend_ops herd_cl_backend;
#endif
#ifdef HERD_WITH_MPI
extern const herd_backend_ops herd_mpi_backend;
#endif

/* Resolves "cpu", "opencl" or "auto" (first GPU, else an OpenCL CPU device, else cpu) to a
 * backend and, for OpenCL, a device spec written into device_out. `note` gets a line for
 * the user when auto chose or fell back; "" otherwise. */
herd_status herd_backend_choose(const char *backend, const char *device, const herd_backend_ops **ops, char *device_out,
                                size_t device_size, char *note, size_t note_size, herd_error *err);

/* The observation from a fully reduced flock of `count` agents. */
void herd_observation_from_partial(const herd_flock_partial *p, uint32_t count, uint32_t dims, uint32_t steering_count,
                                   herd_observation *obs);
/* The optional parts not in `observed` (HERD_OBSERVE_*) marked missing: NaN, ids UINT32_MAX. */
void herd_observation_leave_out(herd_observation *obs, uint32_t observed);
/* The parts obs is missing, from `full` (a full reduction of the same flock): none missing then.
 * Each part's fields are named here and in herd_observation_leave_out only. */
void herd_observation_fill_in(herd_observation *obs, const herd_observation *full);

/* The observation's first pass over agents [begin, end) of state arrays in any order (the
 * desc's goal, env and dims; g for distances through the wrap; the unit velocities unless
 * `unobserved` has HERD_OBSERVE_POLARISATION), and its second pass, once the centroid is known
 * (the sectors with `sectors`): what the CPU backend sums per block and an MPI rank over its
 * agents. */
herd_flock_partial herd_partial_over(const herd_backend_desc *d, const herd_grid *g, const float *pos, const float *vel,
                                     const uint32_t *agent, uint32_t begin, uint32_t end, herd_steering_input steer,
                                     uint32_t unobserved);
herd_flock_partial herd_far_over(uint32_t dims, const float *pos, const float *vel, const uint32_t *agent,
                                 uint32_t begin, uint32_t end, herd_vec3 centroid, int sectors);
/* Whether the second pass runs, and with the sectors, for the parts left out. */
#define HERD_SECOND_PASS(unobserved) \
  (((unobserved) & (HERD_OBSERVE_FAR | HERD_OBSERVE_SECTORS)) != (HERD_OBSERVE_FAR | HERD_OBSERVE_SECTORS))
#define HERD_WANTS_SECTORS(unobserved) (!((unobserved)&HERD_OBSERVE_SECTORS))

/* The agent word of flock agent `id` at an upload (pos in id order): its id, delivered when it
 * starts in the goal, and its model's start flags (herd_model_exec.start_flags). d->env is read:
 * it must still be there. */
uint32_t herd_agent_start_word(const herd_backend_desc *d, const float *pos, uint32_t id);

/* ---- Groups: what both backends do alike on the host (src/backend/groups.c) ------------------- */

/* The groups to track from the list of every group's (root, count, first_id) triples: the
 * p->max largest, largest first, ties by the smaller first id. */
void herd_groups_pick(const uint32_t *roots, uint32_t found, uint32_t max, herd_group_pick *pick);

/* Sums as the passes start from: zero, no farthest member yet. */
void herd_groups_acc_reset(herd_group_acc *acc, uint32_t count);

/* The observation's groups from the pick and the tracked groups' sums. */
void herd_groups_fill(const herd_group_pick *pick, const herd_group_acc *acc, uint32_t found,
                      const herd_groups_params *p, const herd_grid *grid, herd_observation *obs);

/* The smallest power of two >= count. herd_grid_for's table holds 2 * agents buckets
 * rounded up (at most 16 bytes per agent whatever area the flock covers), so that a compact
 * flock's bounding box fits the dense mode. */
uint32_t herd_grid_table_size(uint32_t count);

/* The grid for a backend: cells from the model's largest radius, the world's wrap. */
herd_grid herd_grid_for(const herd_backend_desc *desc);

/* Puts g in dense mode over the cells of the box [lo, hi] widened by two cells (per axis;
 * whole periods along wrapping axes) when it needs no more buckets than g's table holds, else
 * in hash mode (also for an empty or NaN box); returns whether dense. Both backends take the
 * box alike, from the flock's extent after step s - 2 for step s (herd_box_history), so they
 * build the same grid for the same flock and stay bit-identical; agents that moved out of the
 * box since are clamped into its edge: exact, only slower. */
bool herd_grid_dense_box(herd_grid *g, const float lo[3], const float hi[3]);

/* The flock's extents a backend boxes its grids with. The grid of step s is boxed by the flock
 * after step s - 2 (at upload for steps 0 and 1): an OpenCL host running a step ahead builds
 * step s + 1 before it has read step s's observation, and the lockstep host and the CPU backend
 * must build the very same grid (the box sets the cell size of a crowded flock). Slot s & 1
 * holds the extent after step s - 2 until step s's own observation replaces it. */
typedef struct herd_box_history {
  float lo[2][3], hi[2][3];
  uint32_t latest; /* the slot of the latest extent (the groups' grid takes it) */
} herd_box_history;

/* Both slots the extent of `count` positions (none: hash mode), as at an upload. */
void herd_box_history_start(herd_box_history *h, const float *pos, uint32_t count, uint32_t dims);

/* The extent of the flock after step `after` (UINT32_MAX: before the first step). */
void herd_box_history_observe(herd_box_history *h, uint32_t after, const herd_observation *obs);

/* herd_grid_dense_box for the grid of step `step`. */
bool herd_grid_box_for_step(herd_grid *g, const herd_box_history *h, uint32_t step);

/* The bounding box of `count` positions (float2 or float4 per agent), NaN skipped; none:
 * lo = +inf, hi = -inf. */
void herd_flock_extent(const float *pos, uint32_t count, uint32_t dims, float lo[3], float hi[3]);

/* The grid the groups are found on (kernels/groups.h): the model's, with cells whose diagonal
 * is just inside the view radius, so that a cell's agents all see each other and a query
 * spans at most a few cells along each axis whatever the model's cells. */
herd_grid herd_groups_grid(const herd_grid *model, float view_radius_m);

/* Floats per agent in a state array: 2 in 2D, 4 in 3D. */
static inline uint32_t herd_state_stride(uint32_t dims) { return dims == 3u ? 4u : 2u; }

/* The step's facts for the model (kernels/model.h). */
herd_step_info herd_step_info_for(const herd_backend_desc *desc, herd_steering_input steer, const float centroid[3],
                                  uint32_t step);

#endif
