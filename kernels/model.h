/* What every flock model plugs into, written once for both backends.
 *
 * A model is two headers under kernels/models/:
 *
 *   - <name>_params.h, its description: its parameter fields as an X-macro list,
 *     HERD_PARAMS_<name>(X, M) (kernels/params.h), and herd_<name>_check, the relations
 *     between them. The scenario code (src/core) reads this and nothing else of the model;
 *   - <name>.h, its execution: its per-agent update,
 *       herd_agent_next herd_<name>_update(const herd_<name>_params *m,
 *                                          const herd_flock_view *v, herd_u32 self,
 *                                          herd_neighbour *scratch)
 *     reading the flock as sorted for this step and writing nothing;
 *     HERD_MODEL_ENTRY(name, params type, scratch size), which becomes the OpenCL kernel
 *     herd_step_<name> and the CPU backend's loop over a chunk of agents (or
 *     HERD_MODEL_ENTRY_BY_DIMS with HERD_MODEL_KERNELS_2D/_3D: a kernel per dims, below; the
 *     kernel's last arguments are the results of the model's pre-pass, if it has one and the
 *     host ran it, herd_flock_view.pre, and of the guide pass in a world with a path,
 *     herd_flock_view.guide; NULL otherwise); and, on the host, its grid cell, its reach, its
 *     agents' first velocity, and optionally its viewer marks, its explained update and a
 *     pre-pass (rows in kernels/models/steps.h; the pre-pass's kernels in kernels/knn_coop.cl).
 *
 * and is listed once in kernels/models/models.h (what it is) and, where it has the optional
 * parts, in kernels/models/steps.h (how it runs). No backend names a model. */
#ifndef HERD_KERNELS_MODEL_H
#define HERD_KERNELS_MODEL_H
#include "agent.h"
#include "env.h"
#include "grid.h"
#include "params.h"
#include "rng.h"

/* A model's update is for the backends (and the OpenCL compiler) alone: the scenario code reads
 * only the models' descriptions (kernels/models/models.h, kernels/params.h). */
#if !defined(HERD_OPENCL) && !defined(HERD_LAYER_BACKEND)
#error "kernels/model.h (how a model runs) was included outside the backend layer; see docs/architecture.md"
#endif

/* The facts of one step a model may use. Plain 4-byte fields: it goes to kernels by value. */
typedef struct herd_step_info {
  herd_u32 step;
  herd_u32 seed_lo, seed_hi;
  herd_u32 steering_count; /* steering agents in the steering buffer */
  float centroid[3];       /* the flock's centre of mass before the step */
  float goal[3];           /* where agents are delivered (herd_in_goal) */
  float goal_radius_m;     /* negative: no goal */
  herd_u32 unobserved;     /* the observation's parts the reduction leaves out (HERD_REDUCE_* bits) */
  herd_env_info env;       /* the obstacles and the path in the view's env array */
} herd_step_info;

/* One world of a batch (many independent worlds in one set of buffers, laid end to end), as
 * the batch kernels read it. 4-byte fields only, so C and OpenCL C lay it out alike. */
typedef struct herd_world {
  herd_grid grid;       /* the world's own grid: as for the world alone */
  herd_step_info info;  /* this step's facts */
  herd_u32 begin;       /* its first agent in the batch's state arrays */
  herd_u32 bucket_base; /* its first bucket in the batch's cell table */
  herd_u32 steer_base;  /* its first steering agent in the steering buffer */
  herd_u32 active;      /* 0: finished; its agents keep their state */
  herd_u32 block_base;  /* its first reduction block */
  herd_u32 blocks;      /* its reduction blocks */
  herd_u32 env_base;    /* its first float in the batch's env array */
} herd_world;

/* The flock as a model sees it during a step: sorted by bucket, read-only. */
typedef struct herd_flock_view {
  const herd_grid *grid;
  HERD_GLOBAL const float *pos, *vel; /* float2 or float4 per agent (grid->dims) */
  HERD_GLOBAL const herd_u32 *agent;  /* id and flags (agent.h) */
  HERD_GLOBAL const herd_u32 *cell_end;
  HERD_GLOBAL const float *steer; /* HERD_STEER_FLOATS per steering agent (agent.h) */
  HERD_GLOBAL const float *env;   /* obstacles and path (kernels/env.h; info->env) */
  const herd_step_info *info;
  /* What the model's pre-pass (kernels/knn_coop.cl) left per sorted agent this step; NULL
   * when none ran (the CPU backend, batches, models without one): the model then computes it
   * itself, with the same bits. */
  HERD_GLOBAL const herd_i64 *pre;
#ifdef HERD_OPENCL
  /* The path's pull on each sorted agent this step (float4: herd_agent_guide), left by the guide
   * pass (herd_path_guide, kernels/herd.cl) when the world has a path; NULL otherwise. The CPU
   * backend works it out in the update instead, with the same function. */
  HERD_GLOBAL const float *guide;
#endif
} herd_flock_view;

/* In the first word of an agent's pre-pass result: no result, the pre-pass left this agent to
 * the step's own search (a model's results stay above it). */
#define HERD_PRE_SEARCH ((herd_i64)(-9223372036854775807L - 1L))

/* What one agent's update produces. */
typedef struct herd_agent_next {
  herd_vec3 pos, vel;
  int alert;       /* HERD_ALERT_* bits: it reacted to a steering agent, leaves, keeps memory */
  float memory[2]; /* with HERD_ALERT_MEMORY: what it keeps (herd_agent_memory) */
} herd_agent_next;

HERD_INLINE herd_u64 herd_step_seed(const herd_step_info *info) {
  return (herd_u64)info->seed_lo | ((herd_u64)info->seed_hi << 32);
}

HERD_INLINE herd_vec3 herd_steer_pos(const herd_flock_view *v, herd_u32 d) {
  herd_u32 at = HERD_STEER_FLOATS * d;
  return herd_v3(v->steer[at], v->steer[at + 1u], v->steer[at + 2u]);
}

/* Its velocity in m per step: its last move (0 for food, and before it first moved). */
HERD_INLINE herd_vec3 herd_steer_vel(const herd_flock_view *v, herd_u32 d) {
  herd_u32 at = HERD_STEER_FLOATS * d + 4u;
  return herd_v3(v->steer[at], v->steer[at + 1u], v->steer[at + 2u]);
}

/* Its role (HERD_ROLE_*): what the flock makes of it. */
HERD_INLINE herd_u32 herd_steer_role(const herd_flock_view *v, herd_u32 d) {
  return (herd_u32)v->steer[HERD_STEER_FLOATS * d + 3u];
}

HERD_INLINE herd_vec3 herd_agent_pos(const herd_flock_view *v, herd_u32 i) {
  return herd_load_vec(v->pos, i, v->grid->dims);
}

HERD_INLINE herd_vec3 herd_agent_vel(const herd_flock_view *v, herd_u32 i) {
  return herd_load_vec(v->vel, i, v->grid->dims);
}

/* The path's pull on agent i, which stands at p: path.weight times the target vector
 * (herd_env_guide; zero without a path). A GPU finds the path's closest point in a pass of its
 * own before the step (herd_path_guide): the search takes some 80 registers and a 256 B private
 * array, which in the step kernel would hold every agent's neighbour loop to a quarter of the
 * device; the step reads its result. The same function on the same point: the same bits. */
HERD_INLINE herd_vec3 herd_agent_guide(const herd_flock_view *v, herd_u32 i, herd_vec3 p) {
#ifdef HERD_OPENCL
  (void)p;
  return v->info->env.has_path ? herd_load_vec(v->guide, i, 3u) : herd_v3(0.0f, 0.0f, 0.0f);
#else
  (void)i;
  return herd_env_guide(v->env, &v->info->env, p);
#endif
}

/* Memory slot k (0 or 1) of agent i as its last step left it (HERD_ALERT_MEMORY); 0 at the
 * start and in 2D. */
HERD_INLINE float herd_agent_memory(const herd_flock_view *v, herd_u32 i, herd_u32 k) {
  if (v->grid->dims != 3u) return 0.0f;
  return (k == 0u ? v->pos : v->vel)[4u * i + 3u];
}

/* Stores agent i's next state and its agent word. */
/* Where agent i, moving to `to`, ends the step: never inside an obstacle. The field's geometry
 * is kept out along the move (no wall is passed through), spheres by projection. An agent
 * leaving for its model's pen (HERD_ALERT_REMOVE in `alert`) jumps. */
HERD_INLINE herd_vec3 herd_agent_end(const herd_flock_view *v, herd_u32 i, herd_vec3 to, int alert) {
  const herd_env_info *e = &v->info->env;
  if (e->has_field && !(alert & HERD_ALERT_REMOVE)) {
    herd_vec3 from = herd_agent_pos(v, i);
    return herd_world_wrap(v->grid, herd_env_finish_move(v->env, e, from, to, herd_world_delta(v->grid, from, to)));
  }
  if (e->spheres) return herd_env_keep_out(v->env, e, to);
  return to;
}

HERD_INLINE void herd_finish_agent(const herd_flock_view *v, herd_u32 i, herd_agent_next next,
                                   HERD_GLOBAL float *out_pos, HERD_GLOBAL float *out_vel,
                                   HERD_GLOBAL herd_u32 *out_agent) {
  herd_u32 dims = v->grid->dims;
  const herd_step_info *in = v->info;
  if (!(next.alert & HERD_ALERT_PLACED)) next.pos = herd_agent_end(v, i, next.pos, next.alert);
  herd_store_vec(out_pos, i, dims, next.pos);
  herd_store_vec(out_vel, i, dims, next.vel);
  if (dims == 3u && (next.alert & HERD_ALERT_MEMORY)) {
    out_pos[4u * i + 3u] = next.memory[0];
    out_vel[4u * i + 3u] = next.memory[1];
  }
  herd_vec3 goal = herd_v3(in->goal[0], in->goal[1], in->goal[2]);
  out_agent[i] = herd_agent_after_step(v->agent[i], herd_agent_pos(v, i), next.pos, next.alert,
                                       herd_env_in_goal(v->env, &in->env, next.pos, goal, in->goal_radius_m));
}

/* ---- The entry points a model gets ------------------------------------------------------- */

#ifdef HERD_OPENCL
#include "reduce.h" /* herd_flock_partial: the step kernels take the last observation */
/* `observed` (NULL: the host's info.centroid stands): the device's last observation
 * (kernels/reduce.h's herd_flock_partial), from which the centroid is taken exactly as the host
 * takes it (src/backend/observation.c: the fixed-point sum over every agent as a double, divided
 * by the count, rounded to float), so the host need not read it back before the next step. */
#define HERD_OBSERVED_CENTROID(info, observed, count, dims)                                                      \
  do {                                                                                                           \
    if (observed) {                                                                                              \
      (info).centroid[0] = (float)(herd_fix_wide((observed)->sum_x, HERD_FIX_POS_SCALE) / (double)(count));      \
      (info).centroid[1] = (float)(herd_fix_wide((observed)->sum_y, HERD_FIX_POS_SCALE) / (double)(count));      \
      (info).centroid[2] =                                                                                       \
          (dims) == 3u ? (float)(herd_fix_wide((observed)->sum_z, HERD_FIX_POS_SCALE) / (double)(count)) : 0.0f; \
    }                                                                                                            \
  } while (0)
#ifdef HERD_NO_STEP_KERNELS /* kernels/sized.cl: the models' functions without their kernels */
#define HERD_STEP_KERNELS(name, params_t, scratch_n, suffix, fixed_dims)
#else
/* The step kernel herd_step_<name><suffix> and its batch variant herd_step_batch_<name><suffix>.
 * fixed_dims 2 or 3: the kernels run only on grids of that many dimensions (the host picks them
 * by the world's), and the grid's dims are that constant, so that every test on them folds
 * away and a 2D kernel carries no third coordinate; 0: the grid's dims at run time. `guide`:
 * the guide pass's results in a world with a path (herd_agent_guide), NULL in one without. */
#define HERD_STEP_KERNELS(name, params_t, scratch_n, suffix, fixed_dims)                                               \
  HERD_SIMPLE_KERNEL void herd_step_##name##suffix(                                                                    \
      __global const float *pos, __global const float *vel, __global const uint *agent, __global const uint *cell_end, \
      __global const float *steer, __global const float *env, params_t params, herd_grid grid, herd_step_info info,    \
      __global float *out_pos, __global float *out_vel, __global uint *out_agent,                                      \
      __global const herd_flock_partial *observed, __global const long *pre, __global const float *guide) {            \
    uint i = get_global_id(0);                                                                                         \
    if (i >= grid.count) return;                                                                                       \
    if ((fixed_dims) != 0u) grid.dims = (fixed_dims);                                                                  \
    HERD_OBSERVED_CENTROID(info, observed, grid.count, grid.dims);                                                     \
    herd_neighbour scratch[scratch_n];                                                                                 \
    herd_flock_view v;                                                                                                 \
    v.grid = &grid, v.pos = pos, v.vel = vel, v.agent = agent, v.cell_end = cell_end, v.steer = steer;                 \
    v.env = env, v.info = &info, v.pre = pre, v.guide = guide;                                                         \
    herd_finish_agent(&v, i, herd_##name##_update(&params, &v, i, scratch), out_pos, out_vel, out_agent);              \
  }                                                                                                                    \
  /* The same over a batch: each agent is stepped in its own world, exactly as alone. A work-group                     \
   * steps agents of one world only (`spans`: per group, its world and its first agent there;                          \
   * `first_group`: the launch's first group), so that the world's facts are the same for all its                      \
   * work-items: a GPU then keeps them in its uniform registers (sm_90: 87 registers for boids 2D                      \
   * where a world a work-item took 105). `guide`: the guide pass's results for the whole batch. */                    \
  HERD_SIMPLE_KERNEL void herd_step_batch_##name##suffix(                                                              \
      __global const float *pos, __global const float *vel, __global const uint *agent, __global const uint *cell_end, \
      __global const float *steer, __global const float *env, __global const params_t *params,                         \
      __global const herd_world *worlds, __global const uint *spans, __global const float *guide,                      \
      __global float *out_pos, __global float *out_vel, __global uint *out_agent, uint first_group) {                  \
    uint t = get_local_id(0), g = first_group + get_group_id(0);                                                       \
    uint w = spans[2u * g];                                                                                            \
    herd_world world = worlds[w];                                                                                      \
    uint self = spans[2u * g + 1u] + t;                                                                                \
    if (self >= world.grid.count) return;                                                                              \
    if ((fixed_dims) != 0u) world.grid.dims = (fixed_dims);                                                            \
    uint stride = world.grid.dims == 2u ? 2u : 4u, i = world.begin + self, at = world.begin * stride;                  \
    if (world.active == 0u) {                                                                                          \
      herd_copy_state(pos, out_pos, i, world.grid.dims);                                                               \
      herd_copy_state(vel, out_vel, i, world.grid.dims);                                                               \
      out_agent[i] = agent[i];                                                                                         \
      return;                                                                                                          \
    }                                                                                                                  \
    params_t m = params[w];                                                                                            \
    herd_neighbour scratch[scratch_n];                                                                                 \
    herd_flock_view v;                                                                                                 \
    v.grid = &world.grid, v.pos = pos + at, v.vel = vel + at, v.agent = agent + world.begin;                           \
    v.cell_end = cell_end + world.bucket_base, v.steer = steer + HERD_STEER_FLOATS * world.steer_base,                 \
    v.info = &world.info;                                                                                              \
    v.env = env + world.env_base, v.pre = 0, v.guide = world.info.env.has_path ? guide + 4u * world.begin : 0;         \
    herd_finish_agent(&v, self, herd_##name##_update(&m, &v, self, scratch), out_pos + at, out_vel + at,               \
                      out_agent + world.begin);                                                                        \
  }
#endif
/* One step kernel for any world: herd_step_<name> (and herd_step_batch_<name>). */
#define HERD_MODEL_ENTRY(name, params_t, scratch_n) HERD_STEP_KERNELS(name, params_t, scratch_n, , 0u)
/* A model with a kernel per dimension it runs in, herd_step_<name>_2d and _3d (each with its
 * batch variant; the host picks by the world's dims): HERD_MODEL_ENTRY_BY_DIMS, then
 * HERD_MODEL_KERNELS_2D and/or _3D for the dimensions of its row in kernels/models/models.h.
 * reads_path 1: its update follows a world's path (herd_agent_guide), for which the host runs
 * the guide pass before the step. */
#define HERD_MODEL_ENTRY_BY_DIMS(name, params_t, scratch_n, reads_path)
#define HERD_MODEL_ENTRY_BY_DIMS_IN_RUNS(name, params_t, scratch_n, reads_path)
#define HERD_MODEL_KERNELS_2D(name, params_t, scratch_n) HERD_STEP_KERNELS(name, params_t, scratch_n, _2d, 2u)
#define HERD_MODEL_KERNELS_3D(name, params_t, scratch_n) HERD_STEP_KERNELS(name, params_t, scratch_n, _3d, 3u)
#else
/* The CPU backend's loop over sorted agents [begin, end). */
typedef void (*herd_model_chunk_fn)(const void *params, const herd_flock_view *v, herd_u32 begin, herd_u32 end,
                                    float *out_pos, float *out_vel, herd_u32 *out_agent);
#define HERD_MODEL_CHUNK(name, params_t, scratch_n)                                                              \
  static inline void herd_step_chunk_##name(const void *params, const herd_flock_view *v, herd_u32 begin,        \
                                            herd_u32 end, float *out_pos, float *out_vel, herd_u32 *out_agent) { \
    herd_neighbour scratch[scratch_n];                                                                           \
    for (herd_u32 i = begin; i < end; ++i)                                                                       \
      herd_finish_agent(v, i, herd_##name##_update((const params_t *)params, v, i, scratch), out_pos, out_vel,   \
                        out_agent);                                                                              \
  }
#define HERD_MODEL_CHUNK_IN_RUNS(name, params_t, scratch_n)                                                      \
  static inline void herd_step_chunk_##name(const void *params, const herd_flock_view *v, herd_u32 begin,        \
                                            herd_u32 end, float *out_pos, float *out_vel, herd_u32 *out_agent) { \
    herd_neighbour scratch[scratch_n];                                                                           \
    herd_agent_next next[HERD_LANES];                                                                            \
    for (herd_u32 i = begin, n; i < end; i += n) {                                                               \
      n = herd_##name##_update_run((const params_t *)params, v, i, end, scratch, next);                          \
      for (herd_u32 k = 0; k < n; ++k) herd_finish_agent(v, i + k, next[k], out_pos, out_vel, out_agent);        \
    }                                                                                                            \
  }
/* The name of a model's OpenCL step kernel (batch: its batch variant) for a world of dims:
 * HERD_MODEL_ENTRY's one, or HERD_MODEL_ENTRY_BY_DIMS's (above); and herd_reads_path_<name>,
 * whether its update follows a world's path (the host then runs the guide pass). */
#define HERD_MODEL_ENTRY(name, params_t, scratch_n)                             \
  HERD_MODEL_CHUNK(name, params_t, scratch_n)                                   \
  static inline const char *herd_step_kernel_##name(herd_u32 dims, int batch) { \
    (void)dims;                                                                 \
    return batch ? "herd_step_batch_" #name : "herd_step_" #name;               \
  }                                                                             \
  enum { herd_reads_path_##name = 0 };
#define HERD_MODEL_KERNELS_BY_DIMS(name, reads_path)                                          \
  static inline const char *herd_step_kernel_##name(herd_u32 dims, int batch) {               \
    if (dims == 3u) return batch ? "herd_step_batch_" #name "_3d" : "herd_step_" #name "_3d"; \
    return batch ? "herd_step_batch_" #name "_2d" : "herd_step_" #name "_2d";                 \
  }                                                                                           \
  enum { herd_reads_path_##name = (reads_path) };
#define HERD_MODEL_ENTRY_BY_DIMS(name, params_t, scratch_n, reads_path) \
  HERD_MODEL_CHUNK(name, params_t, scratch_n)                           \
  HERD_MODEL_KERNELS_BY_DIMS(name, reads_path)
/* The same for a model whose CPU loop steps runs of agents at once (kernels/lanes.h):
 * herd_<name>_update_run(params, view, first, last, scratch, next[HERD_LANES]) steps agents
 * first, first + 1, ... (before last) into next[] and says how many, at least one. */
#define HERD_MODEL_ENTRY_BY_DIMS_IN_RUNS(name, params_t, scratch_n, reads_path) \
  HERD_MODEL_CHUNK_IN_RUNS(name, params_t, scratch_n)                           \
  HERD_MODEL_KERNELS_BY_DIMS(name, reads_path)
#define HERD_MODEL_KERNELS_2D(name, params_t, scratch_n)
#define HERD_MODEL_KERNELS_3D(name, params_t, scratch_n)
#endif

#ifndef HERD_OPENCL
/* What one agent's update reads of the other agents, for a rank that holds part of the flock
 * (src/backend/mpi): every agent within radius_m, and its `nearest` nearest (0: none). A halo
 * of the agents that near a rank's region then gives each of its agents all that it reads. A
 * model's reach hook returns 0, or, when an update may read any agent of the flock with these
 * parameters, the length of a message saying which parameter makes it so. */
typedef struct herd_model_reach {
  float radius_m;
  herd_u32 nearest;
} herd_model_reach;

/* What a model's marks hook (HERD_MARKS_MODELS) gives a viewer; each radius NAN where the
 * model has none (the caller fills them so). */
typedef struct herd_model_marks_out {
  float cohesion_m;    /* about the flock's centroid */
  float reaction_m;    /* about each steering agent: the flock reacts within it */
  herd_u32 nearest_n;  /* an agent's update reads its n nearest; 0: not so */
  float interaction_m; /* an agent's update reads the agents within this; NAN: not so */
} herd_model_marks_out;

/* The terms of one agent's update, for a viewer (host only; HERD_EXPLAIN_MODELS): each a
 * name, a weight and a direction (2D: z = 0), in the order the model sums weight x direction. */
#define HERD_EXPLAIN_TERMS 8
typedef struct herd_model_explanation {
  herd_u32 count;
  herd_u32 moved; /* 0: the agent did not move (its terms do not apply) */
  struct {
    const char *name;
    float weight;
    herd_vec3 dir;
  } term[HERD_EXPLAIN_TERMS];
} herd_model_explanation;

static inline void herd_model_explain_add(herd_model_explanation *e, const char *name, float weight, herd_vec2 dir) {
  if (e->count >= HERD_EXPLAIN_TERMS) return;
  e->term[e->count].name = name, e->term[e->count].weight = weight, e->term[e->count].dir = herd_v3(dir.x, dir.y, 0.0f);
  ++e->count;
}
#endif

#endif
