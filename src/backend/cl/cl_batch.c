/* The OpenCL backend's batches: many worlds laid end to end in one set of buffers, each kernel
 * launched once over all of them (cl_internal.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "cl_internal.h"

/* ---- Batches ------------------------------------------------------------------------------- */

/* Lays the worlds end to end: agents, buckets, steering slots and reduction blocks. */
static herd_status lay_out_worlds(herd_backend *b, const herd_backend_desc *descs, uint32_t count, herd_error *err) {
  uint32_t total = 0, buckets = 0, blocks = 0, env = 0;
  for (uint32_t w = 0; w < count; ++w) {
    if (descs[w].model != descs[0].model || descs[w].dims != descs[0].dims)
      return herd_fail(err, HERD_E_INPUT, "a batch runs one model in one dimension; world %u differs from world 0", w);
    b->world_desc[w] = descs[w];
    herd_world *x = &b->world[w];
    x->grid = herd_grid_for(&descs[w]);
    x->begin = total, x->bucket_base = buckets, x->block_base = blocks;
    x->steer_base = w * HERD_MAX_STEERING;
    x->blocks =
        descs[w].count ? (descs[w].count + BATCH_REDUCE_BLOCK - 1) / BATCH_REDUCE_BLOCK : 1u; /* one leaves its total */
    x->active = 1;
    x->env_base = env;
    env += descs[w].env_floats;
    if (total + (uint64_t)descs[w].count > UINT32_MAX / 2 ||
        buckets + (uint64_t)x->grid.table_mask + 1 > UINT32_MAX / 2)
      return herd_fail(err, HERD_E_INPUT, "a batch of %u worlds is too large for one device", count);
    total += descs[w].count, buckets += x->grid.table_mask + 1u, blocks += x->blocks;
    b->step_groups += (descs[w].count + SIMPLE_GROUP - 1) / SIMPLE_GROUP;
  }

  b->desc.count = total, b->buckets = buckets, b->total_blocks = blocks, b->desc.env_floats = env;
  return HERD_OK;
}

/* The step's work-groups, each of one world (kernels/model.h, herd_step_batch_*): per group, its
 * world and its first agent there. */
static void fill_spans(const herd_backend *b, uint32_t *spans) {
  uint32_t g = 0;
  for (uint32_t w = 0; w < b->world_count; ++w)
    for (uint32_t first = 0; first < b->world_desc[w].count; first += SIMPLE_GROUP, ++g)
      spans[2 * g] = w, spans[2 * g + 1] = first;
}

/* The batch's fixed tables: each agent's world, each block's world, the step's groups, each
 * world's parameters. */
static herd_status write_world_tables(herd_backend *b, herd_error *err) {
  uint32_t count = b->world_count, *world_of = malloc(b->desc.count * sizeof *world_of);
  uint32_t *block_world = malloc(b->total_blocks * sizeof *block_world);
  uint32_t *spans = malloc((b->step_groups ? b->step_groups : 1) * 2 * sizeof *spans);
  size_t params_size = b->desc.model->params_size;
  unsigned char *params = malloc(count * params_size);
  herd_status s = world_of && block_world && spans && params ? HERD_OK : herd_fail(err, HERD_E_MEMORY, "out of memory");
  for (uint32_t w = 0; s == HERD_OK && w < count; ++w) {
    for (uint32_t i = 0; i < b->world_desc[w].count; ++i) world_of[b->world[w].begin + i] = w;
    for (uint32_t k = 0; k < b->world[w].blocks; ++k) block_world[b->world[w].block_base + k] = w;
    memcpy(params + w * params_size, b->world_desc[w].params, params_size);
  }
  if (s == HERD_OK) fill_spans(b, spans);
  if (s == HERD_OK) s = herd_cl_alloc(b, &b->worlds, count * sizeof(herd_world), err);
  if (s == HERD_OK) s = herd_cl_alloc(b, &b->world_of, b->desc.count * sizeof(cl_uint), err);
  if (s == HERD_OK) s = herd_cl_alloc(b, &b->block_world, b->total_blocks * sizeof(cl_uint), err);
  if (s == HERD_OK) s = herd_cl_alloc(b, &b->spans, (b->step_groups ? b->step_groups : 1) * 2 * sizeof(cl_uint), err);
  if (s == HERD_OK) s = herd_cl_alloc(b, &b->world_params, count * params_size, err);
  if (s == HERD_OK) s = herd_cl_alloc(b, &b->world_totals, count * sizeof(herd_flock_partial), err);
  cl_int rc = CL_SUCCESS;
  if (s == HERD_OK)
    rc = clEnqueueWriteBuffer(b->queue, b->world_of, BLOCKING, 0, b->desc.count * sizeof(cl_uint), world_of, 0, NULL,
                              NULL);
  if (s == HERD_OK && rc == CL_SUCCESS)
    rc = clEnqueueWriteBuffer(b->queue, b->block_world, BLOCKING, 0, b->total_blocks * sizeof(cl_uint), block_world, 0,
                              NULL, NULL);
  if (s == HERD_OK && rc == CL_SUCCESS && b->step_groups)
    rc = clEnqueueWriteBuffer(b->queue, b->spans, BLOCKING, 0, b->step_groups * 2 * sizeof(cl_uint), spans, 0, NULL,
                              NULL);
  if (s == HERD_OK && rc == CL_SUCCESS)
    rc = clEnqueueWriteBuffer(b->queue, b->world_params, BLOCKING, 0, count * params_size, params, 0, NULL, NULL);
  if (s == HERD_OK && rc != CL_SUCCESS) s = herd_cl_fail(b, err, "clEnqueueWriteBuffer(world tables)", rc);
  float *env = malloc((b->desc.env_floats ? b->desc.env_floats : 1) * sizeof *env);
  for (uint32_t w = 0; env && w < count; ++w)
    if (b->world_desc[w].env_floats)
      memcpy(env + b->world[w].env_base, b->world_desc[w].env, b->world_desc[w].env_floats * sizeof *env);
  if (s == HERD_OK)
    s = env ? herd_cl_write_env(b, env, b->desc.env_floats, err) : herd_fail(err, HERD_E_MEMORY, "out of memory");
  b->host_env = env, b->host_params = params;
  for (uint32_t w = 0; w < count; ++w) /* copied: the user's may be gone */
    b->world_desc[w].params = params ? params + w * params_size : NULL, b->world_desc[w].env = NULL;
  b->desc.env = NULL;
  free(world_of), free(block_world), free(spans);
  return s;
}

herd_status herd_cl_create_batch(const herd_backend_desc *descs, uint32_t count, herd_backend **out, herd_error *err) {
  herd_backend *b = calloc(1, sizeof *b);
  if (!b) return herd_fail(err, HERD_E_MEMORY, "out of memory creating the OpenCL backend");
  b->desc = descs[0];
  memcpy(b->params, descs[0].params, descs[0].model->params_size);
  b->desc.params = b->params;
  for (uint32_t w = 0; w < count; ++w) /* the guide pass if any world has a path its model follows */
    b->guided |= descs[w].model->reads_path && descs[w].env_info.has_path;
  snprintf(b->batch_kernel, sizeof b->batch_kernel, "%s", descs[0].model->kernel(descs[0].dims, 1));
  b->stride = herd_state_stride(descs[0].dims);
  b->world_count = count;
  for (uint32_t w = 1; w < count; ++w) /* one program for all: room for the most steering agents */
    if (descs[w].steering_count > b->desc.steering_count) b->desc.steering_count = descs[w].steering_count;
  b->world_desc = malloc(count * sizeof *b->world_desc);
  b->world = calloc(count, sizeof *b->world);
  b->world_boxes = malloc((size_t)count * sizeof *b->world_boxes);
  for (uint32_t w = 0; b->world_boxes && w < count; ++w) herd_box_history_start(&b->world_boxes[w], NULL, 0, 3);
  b->steer_all = calloc((size_t)count * HERD_MAX_STEERING * HERD_STEER_FLOATS, sizeof *b->steer_all);
  b->totals = malloc(count * sizeof *b->totals);
  herd_status s = b->world_desc && b->world && b->world_boxes && b->steer_all && b->totals
                      ? lay_out_worlds(b, descs, count, err)
                      : herd_fail(err, HERD_E_MEMORY, "out of memory creating a batch of %u worlds", count);
  if (s == HERD_OK) s = herd_cl_open_device(b, err);
  if (s == HERD_OK) s = write_world_tables(b, err);
  if (s != HERD_OK) {
    herd_cl_destroy(b);
    return s;
  }
  *out = b;
  return HERD_OK;
}

/* Into the buffers the next step reads (b->cur), whether the batch has stepped or not: the
 * other worlds' agents there stay as they are. */
herd_status herd_cl_upload_world(herd_backend *b, uint32_t world, uint64_t seed, const float *pos, const float *vel,
                                 herd_error *err) {
  b->world_desc[world].seed = seed;
  const herd_backend_desc *d = &b->world_desc[world];
  size_t n = d->count, floats = n * b->stride, at = (size_t)b->world[world].begin;
  uint32_t *agent = malloc(n * sizeof *agent);
  if (!agent) return herd_fail(err, HERD_E_MEMORY, "out of memory uploading a world");
  herd_backend_desc with_env = *d;
  with_env.env = b->host_env + b->world[world].env_base; /* the user's may be gone */
  for (uint32_t i = 0; i < n; ++i) agent[i] = herd_agent_start_word(&with_env, pos, i);
  herd_box_history_start(&b->world_boxes[world], pos, d->count, d->dims);
  size_t fbytes = sizeof(float), ubytes = sizeof(uint32_t);
  cl_int rc = clEnqueueWriteBuffer(b->queue, b->pos[b->cur], BLOCKING, at * b->stride * fbytes, floats * fbytes, pos, 0,
                                   NULL, NULL);
  if (rc == CL_SUCCESS)
    rc = clEnqueueWriteBuffer(b->queue, b->vel[b->cur], BLOCKING, at * b->stride * fbytes, floats * fbytes, vel, 0,
                              NULL, NULL);
  if (rc == CL_SUCCESS)
    rc = clEnqueueWriteBuffer(b->queue, b->agent[b->cur], BLOCKING, at * ubytes, n * ubytes, agent, 0, NULL, NULL);
  free(agent);
  return rc == CL_SUCCESS ? HERD_OK : herd_cl_fail(b, err, "clEnqueueWriteBuffer(world)", rc);
}

herd_status herd_cl_read_world(herd_backend *b, uint32_t world, float *pos, float *vel, herd_error *err) {
  size_t n = b->world_desc[world].count, stride = b->stride, at = b->world[world].begin;
  float *p = malloc(n * stride * sizeof *p), *v = malloc(n * stride * sizeof *v);
  uint32_t *a = malloc(n * sizeof *a);
  cl_int rc = p && v && a ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
  if (rc == CL_SUCCESS)
    rc = clEnqueueReadBuffer(b->queue, b->pos[b->cur], BLOCKING, at * stride * sizeof(float),
                             n * stride * sizeof(float), p, 0, NULL, NULL);
  if (rc == CL_SUCCESS)
    rc = clEnqueueReadBuffer(b->queue, b->vel[b->cur], BLOCKING, at * stride * sizeof(float),
                             n * stride * sizeof(float), v, 0, NULL, NULL);
  if (rc == CL_SUCCESS)
    rc = clEnqueueReadBuffer(b->queue, b->agent[b->cur], BLOCKING, at * sizeof(uint32_t), n * sizeof(uint32_t), a, 0,
                             NULL, NULL);
  for (size_t i = 0; rc == CL_SUCCESS && i < n; ++i) {
    size_t id = herd_agent_id(a[i]);
    if (pos) memcpy(&pos[id * stride], &p[i * stride], stride * sizeof *p);
    if (vel) memcpy(&vel[id * stride], &v[i * stride], stride * sizeof *v);
  }
  free(p), free(v), free(a);
  return rc == CL_SUCCESS ? HERD_OK : herd_cl_fail(b, err, "clEnqueueReadBuffer(world)", rc);
}

/* World w's parameters from the next step on: its slot of the table the step kernel reads
 * (blocking, so the caller's copy may go at once; the queue is in order, so the next step sees it). */
herd_status herd_cl_set_world_params(herd_backend *b, uint32_t world, const void *params, herd_error *err) {
  size_t size = b->desc.model->params_size;
  CL_TRY("clEnqueueWriteBuffer(world parameters)",
         clEnqueueWriteBuffer(b->queue, b->world_params, BLOCKING, world * size, size, params, 0, NULL, NULL));
  return HERD_OK;
}

/* Each world's facts for this step (as the world alone would have them) and its steering
 * agents, sent down; the host copies stay untouched until the step's blocking read. */
static herd_status send_worlds(herd_backend *b, const herd_world_input *in, herd_error *err) {
  for (uint32_t w = 0; w < b->world_count; ++w) {
    b->world[w].info = herd_step_info_for(&b->world_desc[w], in[w].steer, in[w].centroid, in[w].step);
    b->world[w].active = in[w].active ? 1u : 0u;
    herd_grid_box_for_step(&b->world[w].grid, &b->world_boxes[w], in[w].step);
    if (in[w].steer.count) /* none may come as {NULL, 0} */
      memcpy(&b->steer_all[(size_t)w * HERD_MAX_STEERING * HERD_STEER_FLOATS], in[w].steer.pos,
             in[w].steer.count * HERD_STEER_FLOATS * sizeof(float));
  }
  /* Blocking: the next call rewrites b->world and b->steer_all (a step's steering agents
   * and the reduction's can differ), and a pending write would read them then. */
  CL_TRY("clEnqueueWriteBuffer(worlds)",
         clEnqueueWriteBuffer(b->queue, b->worlds, BLOCKING, 0, b->world_count * sizeof(herd_world), b->world, 0, NULL,
                              herd_cl_event_for(b, HERD_STAGE_READBACK)));
  CL_TRY("clEnqueueWriteBuffer(steering)",
         clEnqueueWriteBuffer(b->queue, b->steer, BLOCKING, 0,
                              (size_t)b->world_count * HERD_MAX_STEERING * HERD_STEER_FLOATS * sizeof(float),
                              b->steer_all, 0, NULL, herd_cl_event_for(b, HERD_STAGE_READBACK)));
  return HERD_OK;
}

/* herd_cl_build_grid over every world at once: each in its own range of buckets. */
static herd_status build_grid_batch(herd_backend *b, herd_error *err) {
  uint32_t n = b->desc.count, count = b->world_count;
  int src = b->cur, dst = 1 - b->cur;
  herd_status s =
      herd_cl_run_kernel(b, K_BIN_BATCH, radix_items(n), RADIX_GROUP, HERD_STAGE_BIN, err, 6, MEM(b->pos[src]),
                         MEM(b->worlds), MEM(b->world_of), VAL(n), MEM(b->key), MEM(b->hist[0]));
  if (s == HERD_OK) s = herd_cl_sort_binned(b, b->buckets, src, dst, err);
  if (s == HERD_OK) {
    herd_grid all = b->world[0].grid; /* only its count matters: no flags (each world's cells differ) */
    all.count = n;
    /* table-sized: every world's whole table, end to end (2 to 4 buckets an agent, one
     * work-item a bucket or a few), so that each world's first bucket starts at its own agents */
    s = herd_cl_find_ranges(b, &all, b->buckets, 0u, err);
  }
  if (s == HERD_OK) /* table-sized: as the ranges, one work-item a bucket */
    s = herd_cl_run_kernel(b, K_RELATIVE_ENDS, b->buckets, SIMPLE_GROUP, HERD_STAGE_RANGES, err, 4, MEM(b->cell_end),
                           MEM(b->worlds), VAL(count), VAL(b->buckets));
  if (s == HERD_OK)
    s = herd_cl_run_kernel(b, K_MARK_MIXED_BATCH, n, SIMPLE_GROUP, HERD_STAGE_RANGES, err, 5, MEM(b->pos[dst]),
                           MEM(b->worlds), MEM(b->world_of), VAL(n), MEM(b->cell_end));
  return s;
}

herd_status herd_cl_step_batch(herd_backend *b, const herd_world_input *in, herd_error *err) {
  b->step_started_s = herd_clock_s();
  uint32_t n = b->desc.count;
  herd_status s = send_worlds(b, in, err);
  if (s == HERD_OK) s = build_grid_batch(b, err);
  if (s != HERD_OK) return s;
  int src = 1 - b->cur, dst = b->cur;
  if (b->guided)
    s = herd_cl_set_args(b, K_GUIDE_BATCH, err, 6, MEM(b->pos[src]), MEM(b->env), MEM(b->worlds), MEM(b->world_of),
                         VAL(n), MEM(b->guide));
  if (s == HERD_OK && b->guided) s = herd_cl_launch_slices(b, K_GUIDE_BATCH, n, SIMPLE_GROUP, 1, -1, err);
  if (s == HERD_OK)
    s = herd_cl_set_args(b, K_STEP_BATCH, err, 13, MEM(b->pos[src]), MEM(b->vel[src]), MEM(b->agent[src]),
                         MEM(b->cell_end), MEM(b->steer), MEM(b->env), MEM(b->world_params), MEM(b->worlds),
                         MEM(b->spans), MEM(b->guide), MEM(b->pos[dst]), MEM(b->vel[dst]), MEM(b->agent[dst]));
  if (s == HERD_OK)
    s = herd_cl_launch_slices(b, K_STEP_BATCH, (size_t)b->step_groups * SIMPLE_GROUP, SIMPLE_GROUP, 1, 13, err);
  if (s == HERD_E_INTERRUPTED) s = herd_cl_restore_sorted_state(b, err);
  return s;
}

herd_status herd_cl_reduce_batch(herd_backend *b, const herd_world_input *in, herd_observation *obs, herd_error *err) {
  cl_mem pos = b->pos[b->cur], vel = b->vel[b->cur], agent = b->agent[b->cur];
  size_t groups = (size_t)b->total_blocks * REDUCE_GROUP;
  for (uint32_t w = 0; w < b->world_count; ++w)
    if (in[w].steer.count > reduce_steering(&b->desc)) return herd_cl_too_many_steering(b, in[w].steer.count, err);
  herd_status s = send_worlds(b, in, err);
  if (s == HERD_OK)
    s = herd_cl_run_kernel(b, K_REDUCE_FIRST_BATCH, groups, REDUCE_GROUP, HERD_STAGE_REDUCE, err, 10, MEM(pos),
                           MEM(vel), MEM(agent), MEM(b->worlds), MEM(b->block_world), MEM(b->steer), MEM(b->env),
                           MEM(b->partials), MEM(b->ticket), MEM(b->world_totals));
  if (s == HERD_OK)
    s = herd_cl_run_kernel(b, K_REDUCE_FAR_BATCH, groups, REDUCE_GROUP, HERD_STAGE_REDUCE, err, 8, MEM(pos), MEM(vel),
                           MEM(agent), MEM(b->worlds), MEM(b->block_world), MEM(b->world_totals), MEM(b->partials),
                           MEM(b->ticket));
  if (s == HERD_OK) s = herd_cl_read_totals(b, b->world_totals, b->totals, b->world_count, err);
  if (s != HERD_OK) return s;
  if (b->desc.profile) herd_cl_collect_profile(b);
  if (b->step_started_s > 0) b->last_step_s = herd_clock_s() - b->step_started_s;
  b->step_started_s = 0;
  for (uint32_t w = 0; w < b->world_count; ++w) {
    herd_observation_from_partial(&b->totals[w], b->world_desc[w].count, b->desc.dims, in[w].steer.count, &obs[w]);
    herd_box_history_observe(&b->world_boxes[w], in[w].step, &obs[w]);
  }
  return HERD_OK;
}
