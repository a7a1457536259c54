/* The native CPU backend: the shared model headers run over OpenMP threads. Every result
 * is independent of the thread count: each sheep's update reads only the previous state,
 * the sort is a stable counting sort, and reductions combine fixed blocks in fixed order. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../../../kernels/agent.h"
#include "../../core/error.h"
#include "cpu_backend.h"

/* Below this many sheep a step runs on one thread: starting and joining threads costs more
 * than the work, and spinning threads on a busy machine cost far more. */
#define PARALLEL_MIN_AGENTS 2048u

/* Reductions sum blocks of this many sorted agents, then the blocks in order: a fixed tree. */
#define REDUCE_BLOCK 4096u

struct herd_backend {
  herd_backend_desc desc;
  herd_grid grid;
  /* Double-buffered state: the sort reads [cur] and writes [1-cur], the model reads
   * [1-cur] and writes back into [cur]. agent[] holds each agent's id and flags
   * (kernels/agent.h). */
  herd_vec2 *pos[2], *heading[2];
  uint32_t *agent[2];
  int cur;
  uint32_t *bucket;   /* per agent, from the bin pass */
  uint32_t *cell_end; /* per bucket: one past its last sorted agent */
  int threads;
};

static void cpu_destroy(herd_backend *b) {
  if (!b) return;
  for (int i = 0; i < 2; ++i) {
    free(b->pos[i]);
    free(b->heading[i]);
    free(b->agent[i]);
  }
  free(b->bucket);
  free(b->cell_end);
  free(b);
}

static herd_status cpu_create(const herd_backend_desc *desc, herd_backend **out, herd_error *err) {
  herd_backend *b = calloc(1, sizeof *b);
  if (!b) return herd_fail(err, HERD_E_MEMORY, "out of memory creating the CPU backend");
  b->desc = *desc;
  b->grid = herd_grid_for(&desc->model, desc->count);
  b->threads = desc->threads > 0 ? desc->threads : omp_get_max_threads();
  if (desc->count < PARALLEL_MIN_AGENTS) b->threads = 1;
  size_t n = desc->count;
  bool ok = true;
  for (int i = 0; i < 2; ++i) {
    ok = ok && (b->pos[i] = malloc(n * sizeof(herd_vec2)));
    ok = ok && (b->heading[i] = malloc(n * sizeof(herd_vec2)));
    ok = ok && (b->agent[i] = malloc(n * sizeof(uint32_t)));
  }
  ok = ok && (b->bucket = malloc(n * sizeof(uint32_t)));
  ok = ok && (b->cell_end = malloc(((size_t)b->grid.table_mask + 1) * sizeof(uint32_t)));
  if (!ok) {
    cpu_destroy(b);
    return herd_fail(err, HERD_E_MEMORY, "out of memory: %u sheep need about %zu MiB on the CPU backend", desc->count,
                     (n * 52) >> 20);
  }
  *out = b;
  return HERD_OK;
}

static herd_status cpu_upload(herd_backend *b, const herd_vec2 *pos, const herd_vec2 *heading, herd_error *err) {
  (void)err;
  size_t n = b->desc.count;
  b->cur = 0;
  memcpy(b->pos[0], pos, n * sizeof *pos);
  memcpy(b->heading[0], heading, n * sizeof *heading);
  herd_vec2 goal = herd_v2(b->desc.goal_m[0], b->desc.goal_m[1]);
  for (uint32_t i = 0; i < n; ++i)
    b->agent[0][i] = i | (herd_in_goal(pos[i], goal, b->desc.goal_radius_m) ? HERD_AGENT_DELIVERED : 0u);
  return HERD_OK;
}

/* Sets HERD_BUCKET_MIXED on each bucket whose sorted agents lie in more than one cell: a
 * bucket is mixed exactly when two neighbours in sorted order share it but not a cell. */
static void mark_mixed_buckets(const herd_grid *g, const herd_vec2 *pos, uint32_t n, uint32_t *cell_end, int threads) {
#pragma omp parallel for num_threads(threads) schedule(static)
  for (uint32_t i = 1; i < n; ++i) {
    uint32_t bucket = herd_bucket_of(g, pos[i]);
    if (bucket != herd_bucket_of(g, pos[i - 1])) continue;
    herd_i32 cx = herd_cell_coord(pos[i].x, g->inv_cell_m), cy = herd_cell_coord(pos[i].y, g->inv_cell_m);
    if (herd_in_cell(g, pos[i - 1], cx, cy)) continue;
#pragma omp atomic
    cell_end[bucket] |= HERD_BUCKET_MIXED;
  }
}

/* Bin, then a stable counting sort by bucket from [cur] into [1-cur]; leaves cell_end. */
static void cpu_sort(herd_backend *b) {
  uint32_t n = b->desc.count, buckets = b->grid.table_mask + 1u;
  const herd_vec2 *pos = b->pos[b->cur];
  uint32_t *bucket = b->bucket, *cursor = b->cell_end;
#pragma omp parallel for num_threads(b->threads) schedule(static)
  for (uint32_t i = 0; i < n; ++i) bucket[i] = herd_bucket_of(&b->grid, pos[i]);
  /* Sequential from here: a few memory passes, small next to the model step. */
  memset(cursor, 0, buckets * sizeof *cursor);
  for (uint32_t i = 0; i < n; ++i) ++cursor[bucket[i]];
  uint32_t start = 0;
  for (uint32_t k = 0; k < buckets; ++k) {
    uint32_t c = cursor[k];
    cursor[k] = start;
    start += c;
  }
  int src = b->cur, dst = 1 - b->cur;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t to = cursor[bucket[i]]++;
    b->pos[dst][to] = b->pos[src][i];
    b->heading[dst][to] = b->heading[src][i];
    b->agent[dst][to] = b->agent[src][i];
  }
  /* Each cursor has advanced to the end of its bucket: exactly cell_end. */
  mark_mixed_buckets(&b->grid, b->pos[dst], n, cursor, b->threads);
}

herd_cpu_grid_view herd_cpu_build_grid(herd_backend *b) {
  cpu_sort(b);
  int sorted = 1 - b->cur;
  return (herd_cpu_grid_view){b->grid, b->pos[sorted], b->heading[sorted], b->agent[sorted], b->cell_end};
}

static herd_status cpu_step(herd_backend *b, const herd_vec2 *dogs, uint32_t dog_count, uint32_t step,
                            herd_error *err) {
  (void)err;
  cpu_sort(b);
  int src = 1 - b->cur, dst = b->cur;
  const herd_vec2 *pos = b->pos[src], *heading = b->heading[src];
  const uint32_t *agent = b->agent[src];
  herd_vec2 *out_pos = b->pos[dst], *out_heading = b->heading[dst];
  uint32_t *out_agent = b->agent[dst];
  herd_vec2 goal = herd_v2(b->desc.goal_m[0], b->desc.goal_m[1]);
  uint32_t n = b->desc.count;
#pragma omp parallel num_threads(b->threads)
  {
    herd_neighbour scratch[HERD_MAX_NEIGHBOURS];
#pragma omp for schedule(dynamic, 256)
    for (uint32_t i = 0; i < n; ++i) {
      herd_sheep_next next = herd_strombom_sheep(&b->desc.model, &b->grid, pos, heading, b->cell_end, dogs, dog_count,
                                                 i, herd_agent_id(agent[i]), b->desc.seed, step, scratch);
      out_pos[i] = next.pos;
      out_heading[i] = next.heading;
      out_agent[i] = herd_agent_after_step(agent[i], pos[i], next.pos, goal, b->desc.goal_radius_m);
    }
  }
  return HERD_OK;
}

/* ---- Reductions ---------------------------------------------------------------------- */

typedef struct block_sums {
  double sum[2];
  float lo[2], hi[2];
  uint32_t in_goal, delivered;
  float near_d2[HERD_MAX_DOGS];
  uint32_t near_id[HERD_MAX_DOGS], near_i[HERD_MAX_DOGS];
  float far_d2;
  uint32_t far_id, far_i;
} block_sums;

/* (d2, id) ordering for nearest and farthest: ties go to the lower id, on every backend. */
static bool closer(float d2, uint32_t id, float best_d2, uint32_t best_id) {
  return d2 < best_d2 || (d2 == best_d2 && id < best_id);
}

static void reduce_first_pass(const herd_backend *b, const herd_vec2 *dogs, uint32_t dog_count, uint32_t begin,
                              uint32_t end, block_sums *s) {
  const herd_vec2 *pos = b->pos[b->cur];
  const uint32_t *agent = b->agent[b->cur];
  herd_vec2 goal = herd_v2(b->desc.goal_m[0], b->desc.goal_m[1]);
  memset(s, 0, sizeof *s);
  s->lo[0] = s->lo[1] = INFINITY;
  s->hi[0] = s->hi[1] = -INFINITY;
  for (uint32_t d = 0; d < dog_count; ++d) s->near_d2[d] = INFINITY, s->near_id[d] = UINT32_MAX;
  for (uint32_t i = begin; i < end; ++i) {
    herd_vec2 p = pos[i];
    s->sum[0] += p.x;
    s->sum[1] += p.y;
    s->lo[0] = fminf(s->lo[0], p.x), s->lo[1] = fminf(s->lo[1], p.y);
    s->hi[0] = fmaxf(s->hi[0], p.x), s->hi[1] = fmaxf(s->hi[1], p.y);
    s->in_goal += (uint32_t)herd_in_goal(p, goal, b->desc.goal_radius_m);
    s->delivered += (agent[i] & HERD_AGENT_DELIVERED) != 0;
    uint32_t id = herd_agent_id(agent[i]);
    for (uint32_t d = 0; d < dog_count; ++d) {
      float d2 = herd_v2_len2(herd_v2_sub(p, dogs[d]));
      if (closer(d2, id, s->near_d2[d], s->near_id[d])) s->near_d2[d] = d2, s->near_id[d] = id, s->near_i[d] = i;
    }
  }
}

static void reduce_second_pass(const herd_backend *b, herd_vec2 g, uint32_t begin, uint32_t end, block_sums *s) {
  const herd_vec2 *pos = b->pos[b->cur];
  const uint32_t *agent = b->agent[b->cur];
  s->far_d2 = -1.0f;
  s->far_id = UINT32_MAX;
  for (uint32_t i = begin; i < end; ++i) {
    float d2 = herd_v2_len2(herd_v2_sub(pos[i], g));
    uint32_t id = herd_agent_id(agent[i]);
    if (d2 > s->far_d2 || (d2 == s->far_d2 && id < s->far_id)) s->far_d2 = d2, s->far_id = id, s->far_i = i;
  }
}

static void fold_first(block_sums *all, const block_sums *s, uint32_t dog_count) {
  all->sum[0] += s->sum[0], all->sum[1] += s->sum[1];
  for (int a = 0; a < 2; ++a) all->lo[a] = fminf(all->lo[a], s->lo[a]), all->hi[a] = fmaxf(all->hi[a], s->hi[a]);
  all->in_goal += s->in_goal;
  all->delivered += s->delivered;
  for (uint32_t d = 0; d < dog_count; ++d)
    if (closer(s->near_d2[d], s->near_id[d], all->near_d2[d], all->near_id[d]))
      all->near_d2[d] = s->near_d2[d], all->near_id[d] = s->near_id[d], all->near_i[d] = s->near_i[d];
}

static void fold_second(block_sums *all, const block_sums *s) {
  if (s->far_d2 > all->far_d2 || (s->far_d2 == all->far_d2 && s->far_id < all->far_id))
    all->far_d2 = s->far_d2, all->far_id = s->far_id, all->far_i = s->far_i;
}

static void fill_observation(const herd_backend *b, const block_sums *all, uint32_t dog_count, herd_observation *obs) {
  const herd_vec2 *pos = b->pos[b->cur];
  uint32_t n = b->desc.count;
  memset(obs, 0, sizeof *obs);
  obs->count = n;
  obs->in_goal = all->in_goal;
  obs->delivered = all->delivered;
  obs->centroid[0] = all->sum[0] / n;
  obs->centroid[1] = all->sum[1] / n;
  for (int a = 0; a < 2; ++a) obs->extent_min[a] = all->lo[a], obs->extent_max[a] = all->hi[a];
  obs->farthest_id = all->far_id;
  obs->farthest_pos[0] = pos[all->far_i].x;
  obs->farthest_pos[1] = pos[all->far_i].y;
  obs->farthest_dist_m = sqrtf(all->far_d2);
  obs->dog_count = dog_count;
  for (uint32_t d = 0; d < dog_count; ++d) {
    obs->nearest[d].id = all->near_id[d];
    obs->nearest[d].pos[0] = pos[all->near_i[d]].x;
    obs->nearest[d].pos[1] = pos[all->near_i[d]].y;
    obs->nearest[d].dist_m = sqrtf(all->near_d2[d]);
  }
}

static herd_status cpu_reduce(herd_backend *b, const herd_vec2 *dogs, uint32_t dog_count, herd_observation *obs,
                              herd_error *err) {
  uint32_t n = b->desc.count, blocks = (n + REDUCE_BLOCK - 1) / REDUCE_BLOCK;
  block_sums *s = malloc(blocks * sizeof *s);
  if (!s) return herd_fail(err, HERD_E_MEMORY, "out of memory in the reduction");
#pragma omp parallel for num_threads(b->threads) schedule(static)
  for (uint32_t k = 0; k < blocks; ++k)
    reduce_first_pass(b, dogs, dog_count, k * REDUCE_BLOCK, k + 1 == blocks ? n : (k + 1) * REDUCE_BLOCK, &s[k]);
  block_sums all = s[0];
  for (uint32_t k = 1; k < blocks; ++k) fold_first(&all, &s[k], dog_count);
  herd_vec2 g = herd_v2((float)(all.sum[0] / n), (float)(all.sum[1] / n));
#pragma omp parallel for num_threads(b->threads) schedule(static)
  for (uint32_t k = 0; k < blocks; ++k)
    reduce_second_pass(b, g, k * REDUCE_BLOCK, k + 1 == blocks ? n : (k + 1) * REDUCE_BLOCK, &s[k]);
  all.far_d2 = -1.0f, all.far_id = UINT32_MAX;
  for (uint32_t k = 0; k < blocks; ++k) fold_second(&all, &s[k]);
  free(s);
  fill_observation(b, &all, dog_count, obs);
  return HERD_OK;
}

static herd_status cpu_read_agents(herd_backend *b, herd_vec2 *pos, herd_vec2 *heading, herd_error *err) {
  (void)err;
  for (uint32_t i = 0; i < b->desc.count; ++i) {
    uint32_t id = herd_agent_id(b->agent[b->cur][i]);
    if (pos) pos[id] = b->pos[b->cur][i];
    if (heading) heading[id] = b->heading[b->cur][i];
  }
  return HERD_OK;
}

static size_t cpu_memory_bytes(const herd_backend *b) {
  size_t n = b->desc.count;
  return n * (2 * 2 * sizeof(herd_vec2) + 3 * sizeof(uint32_t)) + ((size_t)b->grid.table_mask + 1) * sizeof(uint32_t);
}

const herd_backend_ops herd_cpu_backend = {
    .name = "cpu",
    .create = cpu_create,
    .upload = cpu_upload,
    .step = cpu_step,
    .reduce = cpu_reduce,
    .read_agents = cpu_read_agents,
    .memory_bytes = cpu_memory_bytes,
    .destroy = cpu_destroy,
};
