/* One flock over the ranks of MPI_COMM_WORLD (docs/cluster.md). Each rank holds the
 * agents of its region (herd_decomp: slabs, or a 2D grid of ranks) and steps them on its own
 * backend (the `inner` one: CPU or OpenCL) together with a halo: copies of the other ranks'
 * agents within the model's reach of its region (for k-nearest queries, wide enough that every
 * agent's k nearest are known: herd_knn_halo_width, grown as a step needs). Agents that leave
 * the region migrate to their new rank; the cuts move to even the counts every K steps.
 *
 * Bit-identical to one process on any number of ranks, because:
 *  - the inner grid is the whole flock's (desc.layout_count: the same table and cells; the dense
 *    box from the whole flock's extent, which every rank has from the observation);
 *  - both backends sort by (bucket, id) (kernels/grid.h, herd_order_bucket), so the agents a rank
 *    knows keep the relative order they have in the whole flock, and each query meets the same
 *    neighbours in the same order;
 *  - random draws are keyed by agent id and step, never by rank or index;
 *  - the observation's sums are integers (kernels/reduce.h): the ranks' partials fold to the
 *    same bits in any order.
 * The steering agents move on every rank from the same observation; the positions the flock
 * sees are rank 0's, broadcast. Agent data crosses the host every step (the inner backend is
 * loaded with the rank's agents and halo through restore and read back through map_state). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../../kernels/agent.h"
#include "../../util/clock.h"
#include "../../util/error.h"
#include "../backend.h"
#include "decomp.h"

#define DEFAULT_REBALANCE 50u
/* Halo widths carry a margin over the reach: the queries measure distance in their own float
 * arithmetic, the halo test in its own. */
#define WIDTH_MARGIN 1.001f
#define WIDTH_SLACK_M 1e-3f
/* A step that widens the halo for the k nearest widens it this much past what it needs, so that
 * the next steps rarely widen it again; a halo more than twice what a step needs narrows. */
#define GROW_FACTOR 1.25f
#define MAX_GROWS 16

struct herd_backend {
  herd_backend_desc desc; /* the whole flock's: count = N */
  unsigned char params[HERD_MODEL_PARAMS_BYTES];
  const herd_backend_ops *inner_ops;
  herd_backend *inner; /* made for inner_capacity agents: this rank's and its halo */
  uint32_t inner_capacity;
  int rank, ranks;
  herd_decomp decomp;
  herd_model_reach reach;
  uint32_t unobserved;     /* the optional parts (HERD_OBSERVE_*) the reduction leaves out: every rank's alike */
  float base_width, width; /* the reach with its margin; the halo's width now */
  herd_grid grid;          /* the whole flock's: distances through the wrap, the k-nearest cells */
  uint32_t stride, record; /* floats per agent in a state array; per agent record sent */
  /* The agents this rank knows: its own first (`local`), then the halo (up to `known`). */
  float *pos, *vel;
  uint32_t *agent;
  uint32_t local, known, capacity;
  unsigned char *mine; /* per agent id: held by this rank */
  herd_box_history boxes;
  uint32_t stepped;
  float *steer; /* rank 0's steering agents, broadcast */
  /* Exchange buffers. */
  uint32_t *pairs; /* (rank, index) of each record to send */
  size_t pairs_size, pairs_capacity;
  float *send, *recv;
  size_t send_capacity, recv_capacity;
  int *send_counts, *send_displs, *recv_counts, *recv_displs;
  uint32_t *halo_ranks; /* scratch: the ranks one agent is a halo of */
  float *depth;
  herd_mpi_stats stats;
  char device[160];
};

static herd_status mpi_failed(herd_error *err, const char *what, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  return herd_fail(err, HERD_E_BACKEND, "MPI: %s failed: %s", what, text);
}

#define MPI_TRY(what, call)                                        \
  do {                                                             \
    int code_ = (call);                                            \
    if (code_ != MPI_SUCCESS) return mpi_failed(err, what, code_); \
  } while (0)

static void mpi_destroy(herd_backend *b) {
  if (!b) return;
  if (b->inner) b->inner_ops->destroy(b->inner);
  free(b->pos), free(b->vel), free(b->agent), free(b->mine), free(b->steer);
  free(b->pairs), free(b->send), free(b->recv), free(b->depth);
  free(b->send_counts), free(b->send_displs), free(b->recv_counts), free(b->recv_displs), free(b->halo_ranks);
  free(b);
}

/* Room for `count` known agents. */
static herd_status reserve_known(herd_backend *b, uint32_t count, herd_error *err) {
  if (count <= b->capacity) return HERD_OK;
  uint32_t cap = count + count / 2u + 64u; /* never more than the whole flock */
  if (cap > b->desc.count) cap = b->desc.count > count ? b->desc.count : count;
  float *pos = realloc(b->pos, (size_t)cap * b->stride * sizeof *pos);
  if (pos) b->pos = pos;
  float *vel = realloc(b->vel, (size_t)cap * b->stride * sizeof *vel);
  if (vel) b->vel = vel;
  uint32_t *agent = realloc(b->agent, (size_t)cap * sizeof *agent);
  if (agent) b->agent = agent;
  float *depth = realloc(b->depth, (size_t)cap * sizeof *depth);
  if (depth) b->depth = depth;
  if (!pos || !vel || !agent || !depth) return herd_fail(err, HERD_E_MEMORY, "MPI: out of memory for %u agents", cap);
  b->capacity = cap;
  return HERD_OK;
}

static herd_status reserve_floats(float **buf, size_t *capacity, size_t floats, herd_error *err) {
  if (floats <= *capacity) return HERD_OK;
  size_t cap = floats + floats / 2u + 256u;
  float *next = realloc(*buf, cap * sizeof *next);
  if (!next) return herd_fail(err, HERD_E_MEMORY, "MPI: out of memory for an exchange of %zu floats", floats);
  *buf = next, *capacity = cap;
  return HERD_OK;
}

/* The inner backend, made (again) for at least `count` agents. */
static herd_status ensure_inner(herd_backend *b, uint32_t count, herd_error *err) {
  if (b->inner && count <= b->inner_capacity) return HERD_OK;
  if (b->inner) b->inner_ops->destroy(b->inner);
  b->inner = NULL;
  uint32_t cap = count + count / 4u + 256u; /* never more than the whole flock */
  if (cap > b->desc.count) cap = b->desc.count > count ? b->desc.count : count;
  herd_backend_desc d = b->desc;
  d.count = cap;
  d.layout_count = b->desc.count;
  d.stop = NULL; /* ranks stop together, between steps (mpi_step) */
  d.inner = NULL;
  d.mpi.on = false;
  d.gl_share = NULL;
  herd_status s = b->inner_ops->create(&d, &b->inner, err);
  if (s == HERD_OK) b->inner_capacity = d.count;
  return s;
}

/* ---- Records: an agent as it travels between ranks --------------------------------------- */

static void pack(const herd_backend *b, uint32_t i, float *out) {
  memcpy(out, &b->pos[(size_t)i * b->stride], b->stride * sizeof(float));
  memcpy(out + b->stride, &b->vel[(size_t)i * b->stride], b->stride * sizeof(float));
  memcpy(out + 2u * b->stride, &b->agent[i], sizeof(uint32_t));
}

static void unpack(herd_backend *b, const float *in, uint32_t i) {
  memcpy(&b->pos[(size_t)i * b->stride], in, b->stride * sizeof(float));
  memcpy(&b->vel[(size_t)i * b->stride], in + b->stride, b->stride * sizeof(float));
  memcpy(&b->agent[i], in + 2u * b->stride, sizeof(uint32_t));
}

static const float *position(const herd_backend *b, uint32_t i, float p[3]) {
  const float *at = &b->pos[(size_t)i * b->stride];
  p[0] = at[0], p[1] = at[1], p[2] = b->stride == 4u ? at[2] : 0.0f;
  return p;
}

static herd_status add_pair(herd_backend *b, uint32_t rank, uint32_t index, herd_error *err) {
  if (b->pairs_size + 2u > b->pairs_capacity) {
    size_t cap = 2u * b->pairs_capacity + 1024u;
    uint32_t *next = realloc(b->pairs, cap * sizeof *next);
    if (!next) return herd_fail(err, HERD_E_MEMORY, "MPI: out of memory listing agents to send");
    b->pairs = next, b->pairs_capacity = cap;
  }
  b->pairs[b->pairs_size++] = rank;
  b->pairs[b->pairs_size++] = index;
  return HERD_OK;
}

/* Sends the records b->pairs lists (packed by destination rank) and receives the others' into
 * b->recv; returns how many arrived in *received. Counts the messages that carry data. */
static herd_status exchange(herd_backend *b, uint32_t *received, herd_error *err) {
  int P = b->ranks, rec = (int)b->record;
  for (int r = 0; r < P; ++r) b->send_counts[r] = 0;
  for (size_t k = 0; k < b->pairs_size; k += 2u) b->send_counts[b->pairs[k]] += rec;
  MPI_TRY("MPI_Alltoall", MPI_Alltoall(b->send_counts, 1, MPI_INT, b->recv_counts, 1, MPI_INT, MPI_COMM_WORLD));
  size_t out = 0, in = 0;
  for (int r = 0; r < P; ++r) {
    b->send_displs[r] = (int)out, b->recv_displs[r] = (int)in;
    out += (size_t)b->send_counts[r], in += (size_t)b->recv_counts[r];
    b->stats.messages += b->send_counts[r] > 0;
  }
  herd_status s = reserve_floats(&b->send, &b->send_capacity, out, err);
  if (s == HERD_OK) s = reserve_floats(&b->recv, &b->recv_capacity, in, err);
  if (s != HERD_OK) return s;
  int *at = b->recv_counts + P; /* scratch: the next free place per rank (room for 2P ints) */
  for (int r = 0; r < P; ++r) at[r] = b->send_displs[r];
  for (size_t k = 0; k < b->pairs_size; k += 2u) {
    pack(b, b->pairs[k + 1u], &b->send[at[b->pairs[k]]]);
    at[b->pairs[k]] += rec;
  }
  MPI_TRY("MPI_Alltoallv", MPI_Alltoallv(b->send, b->send_counts, b->send_displs, MPI_FLOAT, b->recv, b->recv_counts,
                                         b->recv_displs, MPI_FLOAT, MPI_COMM_WORLD));
  *received = (uint32_t)(in / b->record);
  return HERD_OK;
}

/* ---- Halo and migration ------------------------------------------------------------------ */

/* The halo for the current width: every agent of the other ranks within it of this rank's
 * region, after the rank's own. */
static herd_status gather_halo(herd_backend *b, herd_error *err) {
  b->pairs_size = 0;
  uint32_t *ranks = b->halo_ranks;
  for (uint32_t i = 0; i < b->local; ++i) {
    float p[3];
    uint32_t n = herd_decomp_halo_ranks(&b->decomp, (uint32_t)b->rank, position(b, i, p), b->width, ranks);
    for (uint32_t k = 0; k < n; ++k) {
      herd_status s = add_pair(b, ranks[k], i, err);
      if (s != HERD_OK) return s;
    }
  }
  uint32_t received = 0;
  herd_status s = exchange(b, &received, err);
  if (s == HERD_OK) s = reserve_known(b, b->local + received, err);
  if (s != HERD_OK) return s;
  for (uint32_t k = 0; k < received; ++k) unpack(b, &b->recv[(size_t)k * b->record], b->local + k);
  b->known = b->local + received;
  b->stats.halo_agents += received;
  b->stats.halo_bytes += (uint64_t)received * b->record * sizeof(float);
  return HERD_OK;
}

/* The halo, widened until every agent's k nearest are among those the rank knows (the widest
 * any rank needs, so that all ranks widen alike); narrowed again when far wider than needed. */
static herd_status gather_halo_for_step(herd_backend *b, herd_error *err) {
  herd_status s = gather_halo(b, err);
  if (s != HERD_OK || b->reach.nearest == 0u || b->ranks == 1) return s;
  for (int grows = 0;; ++grows) {
    for (uint32_t i = 0; i < b->local; ++i) {
      float p[3];
      b->depth[i] = herd_decomp_depth(&b->decomp, (uint32_t)b->rank, position(b, i, p));
    }
    float need = herd_knn_halo_width(b->pos, b->known, b->local, b->stride, b->desc.dims, b->depth, b->reach.nearest,
                                     b->grid.base_cell_m, b->width);
    MPI_TRY("MPI_Allreduce(halo width)", MPI_Allreduce(MPI_IN_PLACE, &need, 1, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD));
    if (need <= b->width) {
      float narrow = need * GROW_FACTOR > b->base_width ? need * GROW_FACTOR : b->base_width;
      if (narrow < 0.5f * b->width) b->width = narrow; /* for the next step */
      return HERD_OK;
    }
    b->width = grows < MAX_GROWS && isfinite(need) ? need * GROW_FACTOR : INFINITY;
    b->stats.halo_grows += 1u;
    s = gather_halo(b, err);
    if (s != HERD_OK) return s;
  }
}

/* Sends each of the rank's agents whose owner is another rank there; takes in those sent here. */
static herd_status migrate(herd_backend *b, herd_error *err) {
  b->pairs_size = 0;
  uint32_t kept = 0;
  for (uint32_t i = 0; i < b->local; ++i) {
    float p[3];
    uint32_t owner = herd_decomp_owner(&b->decomp, position(b, i, p));
    if (owner != (uint32_t)b->rank) {
      herd_status s = add_pair(b, owner, i, err);
      if (s != HERD_OK) return s;
    }
  }
  uint32_t received = 0;
  herd_status s = exchange(b, &received, err); /* packs before the compaction below moves anyone */
  if (s != HERD_OK) return s;
  size_t next = 1; /* b->pairs lists the leavers' indices in increasing order (odd entries) */
  for (uint32_t i = 0; i < b->local; ++i) {
    if (next < b->pairs_size && b->pairs[next] == i) {
      b->mine[herd_agent_id(b->agent[i])] = 0;
      next += 2u;
      continue;
    }
    if (kept != i) {
      memcpy(&b->pos[(size_t)kept * b->stride], &b->pos[(size_t)i * b->stride], b->stride * sizeof(float));
      memcpy(&b->vel[(size_t)kept * b->stride], &b->vel[(size_t)i * b->stride], b->stride * sizeof(float));
      b->agent[kept] = b->agent[i];
    }
    ++kept;
  }
  s = reserve_known(b, kept + received, err);
  if (s != HERD_OK) return s;
  for (uint32_t k = 0; k < received; ++k) {
    unpack(b, &b->recv[(size_t)k * b->record], kept + k);
    b->mine[herd_agent_id(b->agent[kept + k])] = 1;
  }
  b->local = b->known = kept + received;
  b->stats.migrated += received;
  return HERD_OK;
}

/* ---- The ops ----------------------------------------------------------------------------- */

static herd_status mpi_create(const herd_backend_desc *desc, herd_backend **out, herd_error *err) {
  int ready = 0;
  MPI_Initialized(&ready);
  if (!ready) return herd_fail(err, HERD_E_INPUT, "--mpi: MPI is not initialised (call MPI_Init first)");
  if (!desc->inner) return herd_fail(err, HERD_E_INPUT, "--mpi: no backend to step each rank's agents on");
  herd_backend *b = calloc(1, sizeof *b);
  if (!b) return herd_fail(err, HERD_E_MEMORY, "out of memory creating the MPI backend");
  b->desc = *desc;
  memcpy(b->params, desc->params, desc->model->params_size);
  b->desc.params = b->params;
  b->inner_ops = desc->inner;
  MPI_Comm_rank(MPI_COMM_WORLD, &b->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &b->ranks);
  char why[300];
  if (desc->model->reach(b->params, desc->count, &b->reach, why, sizeof why)) {
    mpi_destroy(b);
    return herd_fail(err, HERD_E_INPUT, "--mpi: %s, which one rank does not hold (run without --mpi)", why);
  }
  b->base_width = b->reach.radius_m * WIDTH_MARGIN + WIDTH_SLACK_M;
  b->width = b->base_width;
  b->grid = herd_grid_for(&b->desc);
  b->stride = herd_state_stride(desc->dims);
  b->record = 2u * b->stride + 1u;
  b->stepped = UINT32_MAX;
  size_t P = (size_t)b->ranks;
  b->mine = calloc(desc->count ? desc->count : 1u, 1);
  b->steer = calloc((size_t)HERD_MAX_STEERING * HERD_STEER_FLOATS, sizeof(float));
  b->send_counts = calloc(P, sizeof(int)), b->send_displs = calloc(P, sizeof(int));
  b->recv_counts = calloc(2u * P, sizeof(int)), b->recv_displs = calloc(P, sizeof(int));
  b->halo_ranks = calloc(P, sizeof(uint32_t));
  herd_status s = HERD_OK;
  if (!b->mine || !b->steer || !b->send_counts || !b->send_displs || !b->recv_counts || !b->recv_displs ||
      !b->halo_ranks)
    s = herd_fail(err, HERD_E_MEMORY, "out of memory creating the MPI backend");
  if (s == HERD_OK) s = ensure_inner(b, desc->count / (uint32_t)P + 1u, err);
  if (s != HERD_OK) {
    mpi_destroy(b);
    return s;
  }
  snprintf(b->device, sizeof b->device, "MPI, %d rank%s, each on %s", b->ranks, b->ranks == 1 ? "" : "s",
           b->inner_ops->device_name(b->inner));
  *out = b;
  return HERD_OK;
}

/* The whole flock in id order, on every rank alike: the cuts from its extent, then this rank
 * keeps the agents of its region. */
static herd_status mpi_upload(herd_backend *b, const float *pos, const float *vel, herd_error *err) {
  uint32_t n = b->desc.count;
  herd_box_history_start(&b->boxes, pos, n, b->desc.dims);
  b->stepped = UINT32_MAX;
  char why[300];
  const char *layout = b->desc.mpi.layout ? b->desc.mpi.layout : "grid"; /* herd.h: grid where the ranks allow */
  if (herd_decomp_init(&b->decomp, (uint32_t)b->ranks, layout, b->desc.dims, b->desc.world_size_m, b->desc.world_wrap,
                       b->boxes.lo[0], b->boxes.hi[0], why, sizeof why) != 0)
    return herd_fail(err, HERD_E_INPUT, "--mpi: %s", why);
  /* Each rank offers a share of the flock to the histograms: together, all of it once. */
  uint32_t first = (uint32_t)((uint64_t)n * (uint32_t)b->rank / (uint32_t)b->ranks);
  uint32_t last = (uint32_t)((uint64_t)n * ((uint32_t)b->rank + 1u) / (uint32_t)b->ranks);
  if (herd_decomp_balance(&b->decomp, MPI_COMM_WORLD, pos + (size_t)first * b->stride, last - first, b->stride,
                          b->boxes.lo[0], b->boxes.hi[0]) != 0)
    return herd_fail(err, HERD_E_BACKEND, "MPI: balancing the first cuts failed");
  b->local = b->known = 0;
  for (uint32_t i = 0; i < n; ++i) {
    float p[3] = {pos[(size_t)i * b->stride], pos[(size_t)i * b->stride + 1u],
                  b->stride == 4u ? pos[(size_t)i * b->stride + 2u] : 0.0f};
    b->mine[i] = herd_decomp_owner(&b->decomp, p) == (uint32_t)b->rank;
    if (!b->mine[i]) continue;
    herd_status s = reserve_known(b, b->local + 1u, err);
    if (s != HERD_OK) return s;
    memcpy(&b->pos[(size_t)b->local * b->stride], &pos[(size_t)i * b->stride], b->stride * sizeof(float));
    memcpy(&b->vel[(size_t)b->local * b->stride], &vel[(size_t)i * b->stride], b->stride * sizeof(float));
    b->agent[b->local++] = herd_agent_start_word(&b->desc, pos, i);
  }
  b->known = b->local;
  return HERD_OK;
}

/* Moves the cuts to even the counts (every desc.mpi.rebalance_every steps), then migrates. */
static herd_status rebalance(herd_backend *b, herd_error *err) {
  const float *lo = b->boxes.lo[b->boxes.latest], *hi = b->boxes.hi[b->boxes.latest];
  if (herd_decomp_balance(&b->decomp, MPI_COMM_WORLD, b->pos, b->local, b->stride, lo, hi) != 0)
    return herd_fail(err, HERD_E_BACKEND, "MPI: rebalancing failed");
  b->stats.rebalances += 1u;
  return migrate(b, err);
}

/* The inner backend's step of everything the rank knows; keeps its own agents' new state. */
static herd_status step_known(herd_backend *b, herd_steering_input steer, const float centroid[3], uint32_t step,
                              herd_error *err) {
  herd_status s = ensure_inner(b, b->known, err);
  if (s == HERD_OK) s = b->inner_ops->restore(b->inner, b->known, b->pos, b->vel, b->agent, &b->boxes, step, err);
  if (s == HERD_OK) s = b->inner_ops->step(b->inner, steer, centroid, step, err);
  const float *pos, *vel;
  const uint32_t *agent;
  if (s == HERD_OK) s = b->inner_ops->map_state(b->inner, &pos, &vel, &agent, err);
  if (s != HERD_OK) return s;
  uint32_t kept = 0;
  for (uint32_t i = 0; i < b->known; ++i) {
    if (!b->mine[herd_agent_id(agent[i])]) continue;
    memcpy(&b->pos[(size_t)kept * b->stride], &pos[(size_t)i * b->stride], b->stride * sizeof(float));
    memcpy(&b->vel[(size_t)kept * b->stride], &vel[(size_t)i * b->stride], b->stride * sizeof(float));
    b->agent[kept++] = agent[i];
  }
  b->local = b->known = kept;
  return HERD_OK;
}

static herd_status mpi_step(herd_backend *b, herd_steering_input steer, const float centroid[3], uint32_t step,
                            herd_error *err) {
  if (!centroid) return herd_fail(err, HERD_E_BACKEND, "MPI: a step needs the centroid from the host");
  /* Every rank stops at the same step, or none does. */
  int stop = herd_stop_raised(b->desc.stop);
  MPI_TRY("MPI_Allreduce(stop)", MPI_Allreduce(MPI_IN_PLACE, &stop, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  if (stop) return herd_fail(err, HERD_E_INTERRUPTED, "interrupted");
  double t0 = herd_clock_s();
  uint32_t every = b->desc.mpi.rebalance_every ? b->desc.mpi.rebalance_every : DEFAULT_REBALANCE;
  herd_status s = HERD_OK;
  if (step > 0 && step % every == 0 && b->ranks > 1) s = rebalance(b, err);
  if (s == HERD_OK && b->ranks > 1) s = gather_halo_for_step(b, err);
  if (s != HERD_OK) return s;
  size_t floats = (size_t)steer.count * HERD_STEER_FLOATS;
  if (floats) memcpy(b->steer, steer.pos, floats * sizeof(float));
  if (floats && b->ranks > 1)
    MPI_TRY("MPI_Bcast(steering)", MPI_Bcast(b->steer, (int)floats, MPI_FLOAT, 0, MPI_COMM_WORLD));
  double t1 = herd_clock_s();
  s = step_known(b, (herd_steering_input){.pos = b->steer, .count = steer.count}, centroid, step, err);
  double t2 = herd_clock_s();
  if (s == HERD_OK && b->ranks > 1) s = migrate(b, err);
  b->stats.exchange_s += (t1 - t0) + (herd_clock_s() - t2);
  b->stats.step_s += t2 - t1;
  b->stats.steps += 1u;
  b->stepped = step;
  return s;
}

/* Every rank's partial, folded in rank order on every rank (integer sums: any order gives the
 * same bits). */
static herd_status fold_all(herd_backend *b, herd_flock_partial *p, bool far, uint32_t steer_count, herd_error *err) {
  herd_flock_partial *all = malloc((size_t)b->ranks * sizeof *all);
  if (!all) return herd_fail(err, HERD_E_MEMORY, "MPI: out of memory in the reduction");
  int code = MPI_Allgather(p, (int)sizeof *p, MPI_BYTE, all, (int)sizeof *p, MPI_BYTE, MPI_COMM_WORLD);
  if (code != MPI_SUCCESS) {
    free(all);
    return mpi_failed(err, "MPI_Allgather(observation)", code);
  }
  herd_flock_partial total = all[0];
  for (int r = 1; r < b->ranks; ++r)
    total = far ? herd_far_fold(total, all[r]) : herd_partial_fold(total, all[r], steer_count);
  *p = total;
  free(all);
  return HERD_OK;
}

static herd_status mpi_reduce(herd_backend *b, herd_steering_input steer, herd_observation *obs, herd_error *err) {
  double t0 = herd_clock_s();
  herd_flock_partial first =
      herd_partial_over(&b->desc, &b->grid, b->pos, b->vel, b->agent, 0, b->local, steer, b->unobserved);
  herd_status s = fold_all(b, &first, false, steer.count, err);
  if (s != HERD_OK) return s;
  if (HERD_SECOND_PASS(b->unobserved)) {
    herd_vec3 centroid = herd_partial_centroid(first, b->desc.count);
    herd_flock_partial far =
        herd_far_over(b->desc.dims, b->pos, b->vel, b->agent, 0, b->local, centroid, HERD_WANTS_SECTORS(b->unobserved));
    s = fold_all(b, &far, true, steer.count, err);
    if (s != HERD_OK) return s;
    first = herd_far_fold(first, far);
  }
  herd_observation_from_partial(&first, b->desc.count, b->desc.dims, steer.count, obs);
  herd_observation_leave_out(obs, HERD_OBSERVE_ALL & ~b->unobserved);
  herd_box_history_observe(&b->boxes, b->stepped, obs);
  b->stats.reduce_s += herd_clock_s() - t0;
  return HERD_OK;
}

static void mpi_set_observed(herd_backend *b, uint32_t parts) { b->unobserved = HERD_OBSERVE_ALL & ~parts; }

/* The whole flock in id order on every rank (a gather: for outputs, not for each step). */
static herd_status mpi_read_agents(herd_backend *b, float *pos, float *vel, herd_error *err) {
  int P = b->ranks, mine = (int)(b->local * b->record);
  int *counts = b->recv_counts, *displs = b->recv_displs;
  MPI_TRY("MPI_Allgather(counts)", MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD));
  size_t total = 0;
  for (int r = 0; r < P; ++r) displs[r] = (int)total, total += (size_t)counts[r];
  herd_status s = reserve_floats(&b->send, &b->send_capacity, (size_t)mine, err);
  if (s == HERD_OK) s = reserve_floats(&b->recv, &b->recv_capacity, total, err);
  if (s != HERD_OK) return s;
  for (uint32_t i = 0; i < b->local; ++i) pack(b, i, &b->send[(size_t)i * b->record]);
  MPI_TRY("MPI_Allgatherv(flock)",
          MPI_Allgatherv(b->send, mine, MPI_FLOAT, b->recv, counts, displs, MPI_FLOAT, MPI_COMM_WORLD));
  /* Every agent exactly once over the ranks, or the split lost or doubled one. */
  unsigned char *seen = calloc(b->desc.count ? b->desc.count : 1u, 1);
  if (!seen) return herd_fail(err, HERD_E_MEMORY, "MPI: out of memory reading the flock");
  size_t records = total / b->record;
  for (size_t k = 0; k < records; ++k) {
    const float *rec = &b->recv[k * b->record];
    uint32_t word, id;
    memcpy(&word, rec + 2u * b->stride, sizeof word);
    id = herd_agent_id(word);
    if (id >= b->desc.count || seen[id]++) {
      free(seen);
      return herd_fail(err, HERD_E_BACKEND, "MPI: agent %u is held by more than one rank", id);
    }
    if (pos) memcpy(&pos[(size_t)id * b->stride], rec, b->stride * sizeof(float));
    if (vel) memcpy(&vel[(size_t)id * b->stride], rec + b->stride, b->stride * sizeof(float));
  }
  free(seen);
  if (records != b->desc.count)
    return herd_fail(err, HERD_E_BACKEND, "MPI: the ranks hold %zu agents of %u", records, b->desc.count);
  return HERD_OK;
}

static herd_status mpi_map_state(herd_backend *b, const float **pos, const float **vel, const uint32_t **agent,
                                 herd_error *err) {
  (void)b, (void)pos, (void)vel, (void)agent;
  return herd_fail(err, HERD_E_INPUT,
                   "--mpi: the flock's state in backend order is split over the ranks "
                   "(read it in id order instead)");
}

static herd_status mpi_groups(herd_backend *b, const herd_groups_params *p, herd_observation *obs, herd_error *err) {
  (void)b, (void)p, (void)obs;
  return herd_fail(err, HERD_E_INPUT, "--mpi: the flock's groups (groups.observe) are not found over MPI ranks");
}

static herd_status mpi_map_groups(herd_backend *b, const uint32_t **slot, herd_error *err) {
  (void)b, (void)slot;
  return herd_fail(err, HERD_E_INPUT, "--mpi: the flock's groups are not found over MPI ranks");
}

static herd_status mpi_set_params(herd_backend *b, const void *params, herd_error *err) {
  memcpy(b->params, params, b->desc.model->params_size);
  char why[300];
  herd_model_reach reach;
  if (b->desc.model->reach(b->params, b->desc.count, &reach, why, sizeof why))
    return herd_fail(err, HERD_E_INPUT, "--mpi: %s", why);
  b->reach = reach;
  b->base_width = reach.radius_m * WIDTH_MARGIN + WIDTH_SLACK_M;
  b->width = b->width > b->base_width ? b->width : b->base_width;
  return b->inner_ops->set_params ? b->inner_ops->set_params(b->inner, params, err) : HERD_OK;
}

static bool mpi_shares_gl(const herd_backend *b) {
  (void)b;
  return false;
}

static size_t mpi_memory_bytes(const herd_backend *b) {
  size_t own = (size_t)b->capacity * (2u * b->stride * sizeof(float) + 2u * sizeof(uint32_t)) + b->desc.count +
               (b->send_capacity + b->recv_capacity) * sizeof(float);
  return own + b->inner_ops->memory_bytes(b->inner);
}

static herd_status mpi_profile(herd_backend *b, herd_profile *out, herd_error *err) {
  return b->inner_ops->profile(b->inner, out, err);
}

static const char *mpi_device_name(const herd_backend *b) { return b->device; }

static int mpi_threads(const herd_backend *b) { return b->inner_ops->threads ? b->inner_ops->threads(b->inner) : 0; }

static bool mpi_stats(herd_backend *b, herd_mpi_stats *out) {
  *out = b->stats;
  out->ranks = (uint32_t)b->ranks, out->px = b->decomp.px, out->py = b->decomp.py;
  out->layout = b->decomp.py > 1u ? "grid" : "slabs";
  out->halo_width_m = b->width;
  uint64_t sums[4] = {b->stats.halo_agents, b->stats.halo_bytes, b->stats.migrated, b->stats.messages};
  MPI_Allreduce(MPI_IN_PLACE, sums, 4, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  out->halo_agents = sums[0], out->halo_bytes = sums[1], out->migrated = sums[2], out->messages = sums[3];
  uint32_t most = b->local, fewest = b->local;
  MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_UINT32_T, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &fewest, 1, MPI_UINT32_T, MPI_MIN, MPI_COMM_WORLD);
  out->most_agents = most, out->fewest_agents = fewest;
  return true;
}

const herd_backend_ops herd_mpi_backend = {
    .name = "mpi",
    .create = mpi_create,
    .upload = mpi_upload,
    .step = mpi_step,
    .reduce = mpi_reduce,
    .set_observed = mpi_set_observed,
    .groups = mpi_groups,
    .map_groups = mpi_map_groups,
    .set_params = mpi_set_params,
    .read_agents = mpi_read_agents,
    .map_state = mpi_map_state,
    .shares_gl = mpi_shares_gl,
    .memory_bytes = mpi_memory_bytes,
    .profile = mpi_profile,
    .device_name = mpi_device_name,
    .threads = mpi_threads,
    .destroy = mpi_destroy,
    .mpi_stats = mpi_stats,
};
