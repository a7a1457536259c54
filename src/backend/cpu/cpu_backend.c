/* The native CPU backend: the model headers run over a pool of threads (pool.h). Every
 * result is independent of the thread count: each agent's update reads only the previous
 * state, the sort is a stable counting sort, and reductions combine fixed blocks in fixed
 * order. The model is called through its row of the model table. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../../kernels/agent.h"
#include "../../util/clock.h"
#include "../../util/error.h"
#include "cpu_backend.h"
#include "pool.h"

/* Below this many agents a step runs on one thread: handing out chunks costs more than the
 * work. */
#define PARALLEL_MIN_AGENTS 2048u

/* Agents per chunk handed to a thread: small enough that a thread descheduled mid-chunk
 * holds the others up briefly, large enough that handing out costs nothing. */
#define MODEL_CHUNK 256u
#define PASS_CHUNK 8192u

/* Reductions sum blocks of this many sorted agents, then the blocks in order: a fixed tree. */
#define REDUCE_BLOCK 4096u

/* The sort's serial passes look at the stop flag every this many agents or buckets: a few
 * milliseconds each, even under AddressSanitizer. */
#define SORT_SLICE 65536u

struct herd_backend {
  herd_backend_desc desc;
  unsigned char params[HERD_MODEL_PARAMS_BYTES]; /* desc.params points here */
  herd_grid grid;
  uint32_t stride;   /* floats per agent in pos and vel */
  uint32_t capacity; /* the agents its arrays hold (desc.count at creation; restore may hold fewer) */
  /* Double-buffered state: the sort reads [cur] and writes [1-cur], the model reads
   * [1-cur] and writes back into [cur]. agent[] holds each agent's id and flags
   * (kernels/agent.h). */
  float *pos[2], *vel[2];
  uint32_t *agent[2];
  int cur;
  uint32_t *bucket;       /* per agent, from the bin pass */
  uint32_t *cell_end;     /* per bucket: one past its last sorted agent */
  herd_box_history boxes; /* the grids' dense boxes */
  uint32_t stepped;       /* the index of the last step begun (UINT32_MAX: none since the upload) */
  uint32_t unobserved;    /* the optional parts (HERD_OBSERVE_*) the reduction leaves out */
  float *env;             /* obstacles and path (kernels/env.h), a copy of desc.env */
  int threads;
  herd_pool *pool;
  char device[64];
  herd_profile profile;
  /* The flock's groups (kernels/groups.h), allocated at the first groups call: raw labels live
   * in `bucket` (free once a sort is done); final labels, counts, six words of sums per agent
   * (each group's first id and then the list of groups reuse them once the sums are spent),
   * each agent's slot by id, and map_groups' copy in the state's order. */
  uint32_t *group_label, *group_count, *group_sums, *slot_by_id, *slot_map;
  bool in_groups; /* the stages timed now belong to the groups */
  /* A batch: its worlds, each a one-thread backend of its own, stepped in parallel over
   * `pool` (the fields above are unused). */
  herd_backend **worlds;
  uint32_t world_count;
  /* The viewer: the agent whose update terms each step keeps (id + 1; 0: none). */
  uint32_t explain_plus1;
  bool explained;
  herd_update_terms terms;
};

/* Adds the time since *since to `stage` when profiling, and restarts the clock. */
static void lap(herd_backend *b, herd_stage stage, double *since) {
  if (!b->desc.profile) return;
  if (b->in_groups) stage = HERD_STAGE_GROUPS; /* its own sort too: what groups cost */
  double now = herd_clock_s();
  b->profile.seconds[stage] += now - *since;
  b->profile.calls[stage] += 1;
  *since = now;
}

static void cpu_destroy(herd_backend *b) {
  if (!b) return;
  for (uint32_t w = 0; w < b->world_count; ++w) cpu_destroy(b->worlds[w]);
  free(b->worlds);
  for (int i = 0; i < 2; ++i) {
    free(b->pos[i]);
    free(b->vel[i]);
    free(b->agent[i]);
  }
  free(b->bucket);
  free(b->cell_end);
  free(b->group_label), free(b->group_count), free(b->group_sums), free(b->slot_by_id), free(b->slot_map);
  free(b->env);
  herd_pool_destroy(b->pool);
  free(b);
}

static herd_status cpu_create(const herd_backend_desc *desc, herd_backend **out, herd_error *err) {
  herd_backend *b = calloc(1, sizeof *b);
  if (!b) return herd_fail(err, HERD_E_MEMORY, "out of memory creating the CPU backend");
  b->desc = *desc;
  memcpy(b->params, desc->params, desc->model->params_size);
  b->desc.params = b->params;
  b->grid = herd_grid_for(&b->desc);
  herd_box_history_start(&b->boxes, NULL, 0, desc->dims); /* no flock yet: hash */
  b->stepped = UINT32_MAX;
  b->stride = herd_state_stride(desc->dims);
  b->capacity = desc->count;
  b->threads = desc->threads > 0 ? desc->threads : herd_available_cpus();
  if (desc->count < PARALLEL_MIN_AGENTS) b->threads = 1;
  herd_status s = herd_pool_create(b->threads, &b->pool, err);
  if (s != HERD_OK) {
    cpu_destroy(b);
    return s;
  }
  snprintf(b->device, sizeof b->device, "native CPU, %d thread%s", b->threads, b->threads == 1 ? "" : "s");
  size_t n = desc->count, floats = n * b->stride;
  bool ok = true;
  for (int i = 0; i < 2; ++i) {
    ok = ok && (b->pos[i] = malloc(floats * sizeof(float)));
    ok = ok && (b->vel[i] = malloc(floats * sizeof(float)));
    ok = ok && (b->agent[i] = malloc(n * sizeof(uint32_t)));
  }
  ok = ok && (b->bucket = malloc(n * sizeof(uint32_t)));
  ok = ok && (b->cell_end = malloc(((size_t)b->grid.table_mask + 1) * sizeof(uint32_t)));
  ok = ok && (!desc->env_floats || (b->env = malloc(desc->env_floats * sizeof(float))));
  if (ok && desc->env_floats) memcpy(b->env, desc->env, desc->env_floats * sizeof(float));
  b->desc.env = b->env;
  if (!ok) {
    size_t mib = (n * (4 * b->stride * sizeof(float) + 20)) >> 20;
    cpu_destroy(b);
    return herd_fail(err, HERD_E_MEMORY, "out of memory: %u agents need about %zu MiB on the CPU backend", desc->count,
                     mib);
  }
  *out = b;
  return HERD_OK;
}

static herd_status cpu_upload(herd_backend *b, const float *pos, const float *vel, herd_error *err) {
  (void)err;
  size_t n = b->desc.count;
  b->cur = 0;
  memcpy(b->pos[0], pos, n * b->stride * sizeof(float));
  memcpy(b->vel[0], vel, n * b->stride * sizeof(float));
  herd_box_history_start(&b->boxes, pos, b->desc.count, b->desc.dims);
  b->stepped = UINT32_MAX;
  for (uint32_t i = 0; i < n; ++i) b->agent[0][i] = herd_agent_start_word(&b->desc, pos, i);
  return HERD_OK;
}

/* What the parallel passes of a step read and write. */
typedef struct pass_ctx {
  herd_backend *b;
  const herd_grid *grid; /* the sort's */
  const float *pos;
  herd_flock_view view; /* the model step */
  float *out_pos, *out_vel;
  uint32_t *out_agent;
  herd_steering_input steer; /* the reductions */
  herd_vec3 centroid;
  herd_flock_partial *parts;
  const volatile sig_atomic_t *stop; /* the sort's: NULL where it must finish */
} pass_ctx;

/* Sets HERD_BUCKET_MIXED on each bucket whose sorted agents lie in more than one cell: a
 * bucket is mixed exactly when two neighbours in sorted order share it but not a cell. */
static void mark_mixed_chunk(void *ctx, uint32_t begin, uint32_t end) {
  const pass_ctx *c = ctx;
  const herd_grid *g = c->grid;
  uint32_t i = begin > 0 ? begin : 1;
  if (i >= end) return;
  herd_cell before = herd_cell_of(g, herd_load_vec(c->pos, i - 1u, g->dims));
  uint32_t before_bucket = herd_bucket_of_cell(g, before);
  for (; i < end; ++i) { /* each agent's cell and bucket worked out once, kept for the next */
    herd_cell here = herd_cell_of(g, herd_load_vec(c->pos, i, g->dims));
    uint32_t bucket = herd_bucket_of_cell(g, here);
    if (bucket == before_bucket && !herd_same_cell(here, before))
      __atomic_fetch_or(&c->b->cell_end[bucket], HERD_BUCKET_MIXED, __ATOMIC_RELAXED);
    before = here, before_bucket = bucket;
  }
}

/* Each bucket of a chunk of buckets in order of id (herd_order_bucket); cell_end holds the
 * buckets' ends, not yet marked. */
static void order_chunk(void *ctx, uint32_t first, uint32_t last) {
  const pass_ctx *c = ctx;
  const herd_backend *b = c->b;
  int dst = 1 - b->cur;
  if (herd_stop_raised(c->stop)) return;
  for (uint32_t k = first; k < last; ++k) {
    uint32_t begin = k ? b->cell_end[k - 1u] : 0u, end = b->cell_end[k];
    if (end - begin > 1u) herd_order_bucket(b->pos[dst], b->vel[dst], b->agent[dst], begin, end, b->desc.dims);
  }
}

static void bin_chunk(void *ctx, uint32_t begin, uint32_t end) {
  const pass_ctx *c = ctx;
  const herd_grid *g = c->grid;
  if (herd_stop_raised(c->stop)) return;
  for (uint32_t i = begin; i < end; ++i) c->b->bucket[i] = herd_bucket_at(g, herd_load_vec(c->pos, i, g->dims));
}

/* One agent's position or velocity from one state array to another. */
static inline void copy_state(float *to, const float *from, uint32_t stride) {
  to[0] = from[0], to[1] = from[1];
  if (stride == 4u) to[2] = from[2], to[3] = from[3];
}

/* Whether the sort's serial pass at agent or bucket i is to end there: a raised stop, looked at
 * every SORT_SLICE of them. */
static inline bool sort_stopped(const volatile sig_atomic_t *stop, uint32_t i) {
  return i % SORT_SLICE == 0 && herd_stop_raised(stop);
}

/* Bins on g (the model's, or the groups', its box chosen), then a stable counting sort by
 * bucket from [cur] into [1-cur], each bucket then in order of id; leaves cell_end. With a
 * stop flag, a raised stop ends the sort early (false; [cur] is untouched): at 10^7 agents the
 * sort takes 0.5 s (2 s under AddressSanitizer), longer than the second in which Ctrl-C is
 * answered. A plain read of the flag, not a piece of the step (herd_test_piece_hook counts the
 * model's chunks). */
static bool cpu_sort_on(herd_backend *b, herd_grid *g, const volatile sig_atomic_t *stop) {
  uint32_t n = b->desc.count, buckets = g->table_mask + 1u, stride = b->stride;
  uint32_t *bucket = b->bucket, *cursor = b->cell_end;
  double clock = b->desc.profile ? herd_clock_s() : 0.0;
  herd_pool_for(b->pool, n, PASS_CHUNK, bin_chunk, &(pass_ctx){.b = b, .grid = g, .pos = b->pos[b->cur], .stop = stop});
  lap(b, HERD_STAGE_BIN, &clock);
  /* Sequential from here: a few memory passes, small next to the model step; each looks at the
   * stop every SORT_SLICE agents or buckets. */
  memset(cursor, 0, buckets * sizeof *cursor);
  for (uint32_t i = 0; i < n; ++i) {
    if (sort_stopped(stop, i)) return false;
    ++cursor[bucket[i]];
  }
  uint32_t start = 0;
  for (uint32_t k = 0; k < buckets; ++k) {
    if (sort_stopped(stop, k)) return false;
    uint32_t c = cursor[k];
    cursor[k] = start;
    start += c;
  }
  int src = b->cur, dst = 1 - b->cur;
  for (uint32_t i = 0; i < n; ++i) {
    if (sort_stopped(stop, i)) return false;
    uint32_t to = cursor[bucket[i]]++;
    copy_state(&b->pos[dst][(size_t)to * stride], &b->pos[src][(size_t)i * stride], stride);
    copy_state(&b->vel[dst][(size_t)to * stride], &b->vel[src][(size_t)i * stride], stride);
    b->agent[dst][to] = b->agent[src][i];
  }
  /* Each cursor has advanced to the end of its bucket: exactly cell_end. */
  herd_pool_for(b->pool, buckets, PASS_CHUNK, order_chunk, &(pass_ctx){.b = b, .stop = stop});
  lap(b, HERD_STAGE_SORT, &clock); /* the scatter moves the data too: reorder is part of it */
  if (herd_stop_raised(stop)) return false;
  herd_pool_for(b->pool, n, PASS_CHUNK, mark_mixed_chunk, &(pass_ctx){.b = b, .grid = g, .pos = b->pos[dst]});
  lap(b, HERD_STAGE_RANGES, &clock);
  return true;
}

/* The model's grid of the step begun last (herd_box_history); false when a raised stop
 * (when given) ended it early. */
static bool cpu_sort(herd_backend *b, const volatile sig_atomic_t *stop) {
  herd_grid_box_for_step(&b->grid, &b->boxes, b->stepped);
  return cpu_sort_on(b, &b->grid, stop);
}

herd_cpu_grid_view herd_cpu_build_grid(herd_backend *b) {
  cpu_sort(b, NULL);
  int sorted = 1 - b->cur;
  return (herd_cpu_grid_view){b->grid, b->pos[sorted], b->vel[sorted], b->agent[sorted], b->cell_end};
}

/* The model over a chunk of sorted agents; a raised stop skips the chunk (checked between
 * chunks of MODEL_CHUNK agents, so a long step ends within milliseconds). */
static void model_chunk(void *ctx, uint32_t begin, uint32_t end) {
  const pass_ctx *c = ctx;
  const herd_backend *b = c->b;
  if (herd_stop_between_pieces(b->desc.stop)) return;
  b->desc.model->cpu_step(b->desc.params, &c->view, begin, end, c->out_pos, c->out_vel, c->out_agent);
}

/* The watched agent's terms in this step's view, by the model's hook (a scan for its id: one
 * agent, once a step). */
static void explain_step(herd_backend *b, const herd_flock_view *v, uint32_t step) {
  uint32_t id = b->explain_plus1 - 1u;
  b->explained = false;
  for (uint32_t j = 0; j < b->desc.count; ++j) {
    if (herd_agent_id(v->agent[j]) != id) continue;
    herd_neighbour scratch[HERD_MAX_NEIGHBOURS];
    herd_model_explanation e = {0};
    (*b->desc.model->explain)(b->desc.params, v, j, scratch, &e);
    b->terms = (herd_update_terms){.id = id, .step = step, .moved = e.moved != 0, .count = e.count};
    for (uint32_t k = 0; k < e.count && k < HERD_UPDATE_TERMS_MAX; ++k) {
      b->terms.term[k].name = e.term[k].name;
      b->terms.term[k].weight = e.term[k].weight;
      b->terms.term[k].dir[0] = e.term[k].dir.x, b->terms.term[k].dir[1] = e.term[k].dir.y;
      b->terms.term[k].dir[2] = e.term[k].dir.z;
    }
    b->explained = true;
    return;
  }
}

static herd_status cpu_explain(herd_backend *b, uint32_t id, herd_error *err) {
  if (!*b->desc.model->explain) return herd_fail(err, HERD_E_INPUT, "terms: n/a for %s", b->desc.model->name);
  b->explain_plus1 = id == UINT32_MAX || id >= b->desc.count ? 0u : id + 1u;
  b->explained = false;
  return HERD_OK;
}

static bool cpu_update_terms(const herd_backend *b, herd_update_terms *out) {
  if (b->explained) *out = b->terms;
  return b->explained;
}

static herd_status cpu_step(herd_backend *b, herd_steering_input steer, const float centroid[3], uint32_t step,
                            herd_error *err) {
  (void)err;
  b->stepped = step;
  if (!cpu_sort(b, b->desc.stop)) return HERD_E_INTERRUPTED; /* the flock is untouched in [cur] */
  double clock = b->desc.profile ? herd_clock_s() : 0.0;
  int src = 1 - b->cur, dst = b->cur;
  herd_step_info info = herd_step_info_for(&b->desc, steer, centroid, step);
  pass_ctx c = {.b = b, .out_pos = b->pos[dst], .out_vel = b->vel[dst], .out_agent = b->agent[dst]};
  c.view = (herd_flock_view){.grid = &b->grid,
                             .pos = b->pos[src],
                             .vel = b->vel[src],
                             .agent = b->agent[src],
                             .cell_end = b->cell_end,
                             .steer = steer.pos,
                             .env = b->env,
                             .info = &info};
  uint32_t n = b->desc.count;
  herd_pool_for(b->pool, n, MODEL_CHUNK, model_chunk, &c);
  lap(b, HERD_STAGE_STEP, &clock);
  if (b->explain_plus1) explain_step(b, &c.view, step);
  if (herd_stop_raised(b->desc.stop)) { /* the sorted copy holds the whole flock as before the step */
    memcpy(c.out_pos, c.view.pos, (size_t)n * b->stride * sizeof(float));
    memcpy(c.out_vel, c.view.vel, (size_t)n * b->stride * sizeof(float));
    memcpy(c.out_agent, c.view.agent, n * sizeof(uint32_t));
    return HERD_E_INTERRUPTED;
  }
  return HERD_OK;
}

/* ---- Reductions ---------------------------------------------------------------------- */

/* The first pass over fixed blocks of REDUCE_BLOCK sorted agents, each into its own slot,
 * folded in block order afterwards: the same result for any number of threads. */
static void reduce_blocks(void *ctx, uint32_t first, uint32_t last) {
  const pass_ctx *c = ctx;
  const herd_backend *b = c->b;
  uint32_t n = b->desc.count;
  for (uint32_t k = first; k < last; ++k) {
    uint32_t end = (k + 1) * REDUCE_BLOCK < n ? (k + 1) * REDUCE_BLOCK : n;
    c->parts[k] = herd_partial_over(&b->desc, &b->grid, c->pos, b->vel[b->cur], b->agent[b->cur], k * REDUCE_BLOCK, end,
                                    c->steer, b->unobserved);
  }
}

/* The second pass: the agent farthest from the centroid, the milling sum and the sectors where
 * they are observed, per block. */
static void far_blocks(void *ctx, uint32_t first, uint32_t last) {
  const pass_ctx *c = ctx;
  const herd_backend *b = c->b;
  uint32_t n = b->desc.count;
  for (uint32_t k = first; k < last; ++k) {
    uint32_t end = (k + 1) * REDUCE_BLOCK < n ? (k + 1) * REDUCE_BLOCK : n;
    c->parts[k] = herd_far_over(b->desc.dims, c->pos, b->vel[b->cur], b->agent[b->cur], k * REDUCE_BLOCK, end,
                                c->centroid, HERD_WANTS_SECTORS(b->unobserved));
  }
}

static herd_status cpu_reduce(herd_backend *b, herd_steering_input steer, herd_observation *obs, herd_error *err) {
  uint32_t n = b->desc.count, blocks = (n + REDUCE_BLOCK - 1) / REDUCE_BLOCK;
  pass_ctx c = {.b = b, .pos = b->pos[b->cur], .steer = steer};
  c.parts = malloc(blocks * sizeof *c.parts);
  if (!c.parts) return herd_fail(err, HERD_E_MEMORY, "out of memory in the reduction");
  double clock = b->desc.profile ? herd_clock_s() : 0.0;
  herd_pool_for(b->pool, blocks, 1, reduce_blocks, &c);
  herd_flock_partial all = c.parts[0];
  for (uint32_t k = 1; k < blocks; ++k) all = herd_partial_fold(all, c.parts[k], steer.count);
  c.centroid = herd_partial_centroid(all, n);
  if (HERD_SECOND_PASS(b->unobserved)) {
    herd_pool_for(b->pool, blocks, 1, far_blocks, &c);
    for (uint32_t k = 0; k < blocks; ++k) all = herd_far_fold(all, c.parts[k]);
  }
  free(c.parts);
  herd_observation_from_partial(&all, n, b->desc.dims, steer.count, obs);
  herd_observation_leave_out(obs, HERD_OBSERVE_ALL & ~b->unobserved);
  herd_box_history_observe(&b->boxes, b->stepped, obs);
  lap(b, HERD_STAGE_REDUCE, &clock);
  return HERD_OK;
}

static void cpu_set_observed(herd_backend *b, uint32_t parts) { b->unobserved = HERD_OBSERVE_ALL & ~parts; }

/* ---- Groups (kernels/groups.h) ------------------------------------------------------------ */

/* Agents per chunk of a groups pass: the summing passes add once per run of one group within
 * a chunk, so chunks are long. */
#define GROUP_CHUNK 4096u

typedef enum group_pass {
  PASS_START,        /* each agent its own raw root */
  PASS_STAR_RAW,     /* each cell one tree (herd_group_star) */
  PASS_HOOK_RAW,     /* union over every link */
  PASS_COMPRESS_RAW, /* each agent labelled with its raw root */
  PASS_RAW_SUMS,     /* raw groups' counts and centres */
  PASS_MARK_OUTSIDE, /* members outside the compact area */
  PASS_START_FINAL,  /* final labels start */
  PASS_STAR_FINAL,
  PASS_HOOK_FINAL, /* union over links within one side */
  PASS_COMPRESS_FINAL,
  PASS_COUNT,   /* final groups' counts and first ids */
  PASS_SUM,     /* tracked groups' sums; each agent's slot */
  PASS_FAR_MAX, /* their largest distance from the centre */
  PASS_FAR_ID,  /* the smallest id there */
  PASS_FAR_POS  /* its position */
} group_pass;

typedef struct group_ctx {
  herd_backend *b;
  herd_group_view view;
  const herd_groups_params *p;
  uint32_t *raw, *label; /* label == raw without a compact area */
  herd_group_pick pick;
  herd_group_acc acc[HERD_GROUP_MAX_TRACKED];
  group_pass pass;
} group_ctx;

static void group_chunk(void *ctx, uint32_t begin, uint32_t end) {
  group_ctx *c = ctx;
  herd_backend *b = c->b;
  const herd_group_view *v = &c->view;
  uint32_t *first_id = b->group_sums; /* once the raw sums are spent */
  switch (c->pass) {
    case PASS_START:
      for (uint32_t s = begin; s < end; ++s) c->raw[s] = herd_group_start_label(v->agent, s);
      return;
    case PASS_STAR_RAW:
      for (uint32_t s = begin; s < end; ++s) herd_group_star(v, c->p->view_radius_m, c->raw, 0, c->raw, s);
      return;
    case PASS_HOOK_RAW:
      for (uint32_t s = begin; s < end; ++s) herd_group_hook(v, c->p->view_radius_m, c->raw, 0, c->raw, s);
      return;
    case PASS_COMPRESS_RAW:
      for (uint32_t s = begin; s < end; ++s) herd_group_compress(c->raw, s);
      return;
    case PASS_RAW_SUMS: herd_group_raw_sums(v, c->raw, b->group_count, b->group_sums, begin, end); return;
    case PASS_MARK_OUTSIDE:
      for (uint32_t s = begin; s < end; ++s)
        herd_group_mark_outside(v, c->raw, b->group_count, b->group_sums, c->p->member_radius_m, s);
      return;
    case PASS_START_FINAL:
      for (uint32_t s = begin; s < end; ++s) herd_group_start_final(c->raw, b->group_count, c->label, s);
      return;
    case PASS_STAR_FINAL:
      for (uint32_t s = begin; s < end; ++s) herd_group_star(v, c->p->view_radius_m, c->raw, 1, c->label, s);
      return;
    case PASS_HOOK_FINAL:
      for (uint32_t s = begin; s < end; ++s) herd_group_hook(v, c->p->view_radius_m, c->raw, 1, c->label, s);
      return;
    case PASS_COMPRESS_FINAL:
      for (uint32_t s = begin; s < end; ++s) herd_group_compress(c->label, s);
      return;
    case PASS_COUNT: herd_group_count(v->agent, c->label, b->group_count, first_id, begin, end); return;
    case PASS_SUM: herd_group_sum_tracked(v, c->label, &c->pick, b->slot_by_id, c->acc, begin, end); return;
    case PASS_FAR_MAX: herd_group_far_max(v, c->label, &c->pick, c->acc, begin, end); return;
    case PASS_FAR_ID:
      for (uint32_t s = begin; s < end; ++s) herd_group_far_id(v, c->label, &c->pick, c->acc, s);
      return;
    case PASS_FAR_POS:
      for (uint32_t s = begin; s < end; ++s) herd_group_far_pos(v, b->slot_by_id, c->acc, s);
      return;
  }
}

static void group_pass_run(group_ctx *c, group_pass pass) {
  c->pass = pass;
  herd_pool_for(c->b->pool, c->b->desc.count, GROUP_CHUNK, group_chunk, c);
}

static herd_status alloc_groups(herd_backend *b, herd_error *err) {
  if (b->group_label) return HERD_OK;
  size_t n = b->desc.count ? b->desc.count : 1;
  b->group_label = malloc(n * sizeof(uint32_t));
  b->group_count = malloc(n * sizeof(uint32_t));
  b->group_sums = malloc(6 * n * sizeof(uint32_t));
  b->slot_by_id = malloc(n * sizeof(uint32_t));
  if (b->group_label && b->group_count && b->group_sums && b->slot_by_id) return HERD_OK;
  free(b->group_label), free(b->group_count), free(b->group_sums), free(b->slot_by_id);
  b->group_label = b->group_count = b->group_sums = b->slot_by_id = NULL;
  return herd_fail(err, HERD_E_MEMORY, "out of memory: the groups of %u agents need about %zu MiB", b->desc.count,
                   (n * 36) >> 20);
}

/* The raw groups, and the final ones where a compact area splits them: c->label. */
static void find_components(group_ctx *c) {
  herd_backend *b = c->b;
  size_t n = b->desc.count;
  group_pass_run(c, PASS_START);
  group_pass_run(c, PASS_STAR_RAW);
  group_pass_run(c, PASS_HOOK_RAW);
  group_pass_run(c, PASS_COMPRESS_RAW);
  c->label = c->raw;
  if (c->p->member_radius_m <= 0.0f) return;
  memset(b->group_count, 0, n * sizeof *b->group_count);
  memset(b->group_sums, 0, 6 * n * sizeof *b->group_sums);
  group_pass_run(c, PASS_RAW_SUMS);
  group_pass_run(c, PASS_MARK_OUTSIDE);
  c->label = b->group_label;
  group_pass_run(c, PASS_START_FINAL);
  group_pass_run(c, PASS_STAR_FINAL);
  group_pass_run(c, PASS_HOOK_FINAL);
  group_pass_run(c, PASS_COMPRESS_FINAL);
}

/* Counts and names the final groups; returns how many there are, listed as (root, count,
 * first id) triples after the first ids in group_sums. */
static uint32_t list_groups(group_ctx *c, uint32_t **list) {
  herd_backend *b = c->b;
  size_t n = b->desc.count;
  memset(b->group_count, 0, n * sizeof *b->group_count);
  memset(b->group_sums, 0xff, n * sizeof *b->group_sums); /* first ids, min'd into */
  group_pass_run(c, PASS_COUNT);
  uint32_t found = 0, *roots = b->group_sums + n;
  for (uint32_t s = 0; s < n; ++s) {
    if (c->label[s] != s) continue;
    roots[3 * found] = s, roots[3 * found + 1] = b->group_count[s], roots[3 * found + 2] = b->group_sums[s];
    ++found;
  }
  *list = roots;
  return found;
}

static herd_status cpu_groups(herd_backend *b, const herd_groups_params *p, herd_observation *obs, herd_error *err) {
  herd_status st = alloc_groups(b, err);
  if (st != HERD_OK) return st;
  b->in_groups = true;
  herd_grid grid = herd_groups_grid(&b->grid, p->view_radius_m);
  herd_grid_dense_box(&grid, b->boxes.lo[b->boxes.latest], b->boxes.hi[b->boxes.latest]);
  cpu_sort_on(b, &grid, NULL); /* the grid of where the flock is now, in the scratch half */
  double clock = b->desc.profile ? herd_clock_s() : 0.0;
  int sorted = 1 - b->cur;
  group_ctx *c = malloc(sizeof *c);
  if (!c) {
    b->in_groups = false;
    return herd_fail(err, HERD_E_MEMORY, "out of memory finding groups");
  }
  c->b = b, c->p = p, c->raw = b->bucket;
  c->view = (herd_group_view){&grid, b->pos[sorted], b->vel[sorted], b->agent[sorted], b->cell_end};
  find_components(c);
  uint32_t *roots, found = list_groups(c, &roots);
  herd_groups_pick(roots, found, p->max, &c->pick);
  herd_groups_acc_reset(c->acc, HERD_GROUP_MAX_TRACKED);
  group_pass_run(c, PASS_SUM);
  group_pass_run(c, PASS_FAR_MAX);
  group_pass_run(c, PASS_FAR_ID);
  group_pass_run(c, PASS_FAR_POS);
  herd_groups_fill(&c->pick, c->acc, found, p, &grid, obs);
  free(c);
  lap(b, HERD_STAGE_GROUPS, &clock);
  b->in_groups = false;
  return HERD_OK;
}

static herd_status cpu_map_groups(herd_backend *b, const uint32_t **slot, herd_error *err) {
  size_t n = b->desc.count;
  if (!b->slot_by_id) return herd_fail(err, HERD_E_INPUT, "map_groups: no groups were found yet");
  if (!b->slot_map && !(b->slot_map = malloc((n ? n : 1) * sizeof *b->slot_map)))
    return herd_fail(err, HERD_E_MEMORY, "out of memory copying the groups for drawing");
  for (size_t i = 0; i < n; ++i) b->slot_map[i] = b->slot_by_id[herd_agent_id(b->agent[b->cur][i])];
  *slot = b->slot_map;
  return HERD_OK;
}

static herd_status cpu_read_agents(herd_backend *b, float *pos, float *vel, herd_error *err) {
  (void)err;
  size_t stride = b->stride;
  for (uint32_t i = 0; i < b->desc.count; ++i) {
    size_t id = herd_agent_id(b->agent[b->cur][i]);
    if (pos) memcpy(&pos[id * stride], &b->pos[b->cur][i * stride], stride * sizeof(float));
    if (vel) memcpy(&vel[id * stride], &b->vel[b->cur][i * stride], stride * sizeof(float));
  }
  return HERD_OK;
}

static herd_status cpu_map_state(herd_backend *b, const float **pos, const float **vel, const uint32_t **agent,
                                 herd_error *err) {
  (void)err;
  *pos = b->pos[b->cur];
  *vel = b->vel[b->cur];
  *agent = b->agent[b->cur];
  return HERD_OK;
}

static void cpu_box_history(const herd_backend *b, herd_box_history *out) { *out = b->boxes; }

static herd_status cpu_restore(herd_backend *b, uint32_t count, const float *pos, const float *vel,
                               const uint32_t *agent, const herd_box_history *boxes, uint32_t steps, herd_error *err) {
  if (count > b->capacity)
    return herd_fail(err, HERD_E_INPUT, "%u agents restored into a CPU backend made for %u", count, b->capacity);
  b->desc.count = b->grid.count = count;
  size_t n = count;
  b->cur = 0;
  memcpy(b->pos[0], pos, n * b->stride * sizeof(float));
  memcpy(b->vel[0], vel, n * b->stride * sizeof(float));
  memcpy(b->agent[0], agent, n * sizeof(uint32_t));
  b->boxes = *boxes;
  b->stepped = steps ? steps - 1u : UINT32_MAX; /* the reduce of the last step wrote its slot */
  return HERD_OK;
}

static bool cpu_shares_gl(const herd_backend *b) {
  (void)b;
  return false;
}

static size_t cpu_memory_bytes(const herd_backend *b) {
  if (b->worlds) {
    size_t sum = 0;
    for (uint32_t w = 0; w < b->world_count; ++w) sum += cpu_memory_bytes(b->worlds[w]);
    return sum;
  }
  size_t n = b->desc.count, groups = b->group_label ? 9 * sizeof(uint32_t) : 0;
  return n * (2 * 2 * b->stride * sizeof(float) + 3 * sizeof(uint32_t) + groups) +
         ((size_t)b->grid.table_mask + 1) * sizeof(uint32_t);
}

/* ---- Batches: worlds in parallel, each on one thread ----------------------------------------- */

static herd_status cpu_create_batch(const herd_backend_desc *descs, uint32_t count, herd_backend **out,
                                    herd_error *err) {
  herd_backend *b = calloc(1, sizeof *b);
  if (!b || !(b->worlds = calloc(count ? count : 1, sizeof *b->worlds))) {
    free(b);
    return herd_fail(err, HERD_E_MEMORY, "out of memory creating a batch of %u worlds", count);
  }
  b->desc = descs[0];
  b->threads = descs[0].threads > 0 ? descs[0].threads : herd_available_cpus();
  herd_status s = herd_pool_create(b->threads, &b->pool, err);
  for (uint32_t w = 0; w < count && s == HERD_OK; ++w, ++b->world_count) {
    herd_backend_desc one = descs[w];
    one.threads = 1;
    s = cpu_create(&one, &b->worlds[w], err);
  }
  if (s != HERD_OK) {
    cpu_destroy(b);
    return s;
  }
  snprintf(b->device, sizeof b->device, "native CPU, %u worlds on %d thread%s", count, b->threads,
           b->threads == 1 ? "" : "s");
  *out = b;
  return HERD_OK;
}

static herd_status cpu_upload_world(herd_backend *b, uint32_t world, uint64_t seed, const float *pos, const float *vel,
                                    herd_error *err) {
  b->worlds[world]->desc.seed = seed;
  return cpu_upload(b->worlds[world], pos, vel, err);
}

static herd_status cpu_read_world(herd_backend *b, uint32_t world, float *pos, float *vel, herd_error *err) {
  return cpu_read_agents(b->worlds[world], pos, vel, err);
}

/* One pass of a batch: step (or reduce) each world of the chunk; the first failure kept. */
typedef struct batch_ctx {
  herd_backend *b;
  const herd_world_input *in;
  herd_observation *obs; /* NULL: step; else reduce into it */
  herd_status status;    /* HERD_OK, or a world's failure (an interruption, or memory for groups) */
} batch_ctx;

static void batch_chunk(void *ctx, uint32_t begin, uint32_t end) {
  batch_ctx *c = ctx;
  for (uint32_t w = begin; w < end; ++w) {
    herd_backend *world = c->b->worlds[w];
    const herd_world_input *in = &c->in[w];
    herd_error err;
    herd_status s = c->obs       ? cpu_reduce(world, in->steer, &c->obs[w], &err)
                    : in->active ? cpu_step(world, in->steer, in->centroid, in->step, &err)
                                 : HERD_OK;
    if (s == HERD_OK && c->obs && in->groups) s = cpu_groups(world, in->groups, &c->obs[w], &err);
    if (s != HERD_OK) __atomic_store_n(&c->status, s, __ATOMIC_RELAXED);
  }
}

static herd_status cpu_step_batch(herd_backend *b, const herd_world_input *in, herd_error *err) {
  batch_ctx c = {b, in, NULL, HERD_OK};
  herd_pool_for(b->pool, b->world_count, 1, batch_chunk, &c);
  if (c.status == HERD_E_INTERRUPTED) return herd_fail(err, HERD_E_INTERRUPTED, "interrupted during a batch step");
  return c.status;
}

static herd_status cpu_reduce_batch(herd_backend *b, const herd_world_input *in, herd_observation *obs,
                                    herd_error *err) {
  batch_ctx c = {b, in, obs, HERD_OK};
  herd_pool_for(b->pool, b->world_count, 1, batch_chunk, &c);
  if (c.status != HERD_OK) return herd_fail(err, c.status, "out of memory finding the groups of a batch's worlds");
  return HERD_OK;
}

static herd_status cpu_profile(herd_backend *b, herd_profile *out, herd_error *err) {
  (void)err;
  *out = b->profile;
  return HERD_OK;
}

static const char *cpu_device_name(const herd_backend *b) { return b->device; }
static int cpu_threads(const herd_backend *b) { return b->threads; }

/* The step reads b->params afresh each time. */
static herd_status cpu_set_params(herd_backend *b, const void *params, herd_error *err) {
  (void)err;
  memcpy(b->params, params, b->desc.model->params_size);
  return HERD_OK;
}

static herd_status cpu_set_world_params(herd_backend *b, uint32_t world, const void *params, herd_error *err) {
  return cpu_set_params(b->worlds[world], params, err);
}

const herd_backend_ops herd_cpu_backend = {
    .name = "cpu",
    .create = cpu_create,
    .upload = cpu_upload,
    .set_observed = cpu_set_observed,
    .step = cpu_step,
    .reduce = cpu_reduce,
    .groups = cpu_groups,
    .set_params = cpu_set_params,
    .map_groups = cpu_map_groups,
    .read_agents = cpu_read_agents,
    .map_state = cpu_map_state,
    .box_history = cpu_box_history,
    .restore = cpu_restore,
    .shares_gl = cpu_shares_gl,
    .explain = cpu_explain,
    .update_terms = cpu_update_terms,
    .memory_bytes = cpu_memory_bytes,
    .profile = cpu_profile,
    .device_name = cpu_device_name,
    .threads = cpu_threads,
    .create_batch = cpu_create_batch,
    .set_world_params = cpu_set_world_params,
    .upload_world = cpu_upload_world,
    .step_batch = cpu_step_batch,
    .reduce_batch = cpu_reduce_batch,
    .read_world = cpu_read_world,
    .batch_groups = true,
    .destroy = cpu_destroy,
};
