/* Batches of worlds (herd_backend_ops.create_batch): each world of a batch runs bit for bit as
 * it does alone on the same backend, on the CPU and on OpenCL, for worlds of different sizes
 * (one over a reduction block), parameters, seeds and steering agents, and a world that
 * finishes early keeps its state. */
#include <stdlib.h>
#include <string.h>

#include "backend_util.h"
#include "test.h"

#define TESTS(X)                        \
  X(cpu_batch_worlds_run_as_alone)      \
  X(opencl_batch_worlds_run_as_alone)   \
  X(strombom_batch_worlds_run_as_alone) \
  X(a_batch_refuses_mixed_models)
TESTS(DECLARE_TEST)

enum { WORLDS = 3, STEPS = 6, FINISHED_AFTER = 3 };

typedef struct world_case {
  herd_scenario sc;
  herd_backend_desc desc;
  float *pos, *vel;
  float steer[4 * 2];
  uint32_t steer_count;
} world_case;

/* World w's scenario, flock and steering agents: sizes 60, 700 and 5000 (over one block). */
static world_case make_world(const char *model, uint32_t w) {
  static const char *const sizes[][WORLDS] = {{"boids.count=60", "boids.count=700", "boids.count=5000"},
                                              {"sheep.count=60", "sheep.count=700", "sheep.count=5000"}};
  static const char *const extra[][WORLDS] = {
      {"boids.visual_range_m=30", "boids.view_angle_deg=270", "world.wrap=[true,true]"},
      {"sheep.neighbours=20", "sheep.neighbours=50", "sheep.dog_radius_m=1e9"}};
  int m = strcmp(model, "boids") == 0 ? 0 : 1;
  char seed[32], model_set[32];
  snprintf(seed, sizeof seed, "seed=%u", 11 + 7 * w);
  snprintf(model_set, sizeof model_set, "model=%s", model);
  const char *sets[] = {model_set, sizes[m][w], extra[m][w], seed};
  world_case c;
  memset(&c, 0, sizeof c);
  c.sc = scenario_with(sets, 4);
  c.desc = backend_desc_for(&c.sc, c.sc.flock.count, 1);
  uint32_t n = c.sc.flock.count, stride = c.sc.world.dims == 3 ? 4 : 2;
  c.pos = calloc((size_t)n * stride, sizeof *c.pos);
  c.vel = calloc((size_t)n * stride, sizeof *c.vel);
  uint64_t x = 0x9e3779b97f4a7c15ull * (w + 1);
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t k = 0; k < c.sc.world.dims; ++k) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      c.pos[i * stride + k] = (float)((x >> 11) * 0x1.0p-53) * c.sc.world.size_m[k] * (m ? 0.3f : 1.0f);
      c.vel[i * stride + k] = k == 0 ? 4.0f : 1.0f;
    }
  c.steer_count = 1 + w % 2;
  for (uint32_t d = 0; d < c.steer_count; ++d)
    c.steer[4 * d] = 10.0f + 40.0f * d, c.steer[4 * d + 1] = 20.0f, c.steer[4 * d + 2] = c.steer[4 * d + 3] = 0;
  return c;
}

static void free_world(world_case *c) {
  free(c->pos);
  free(c->vel);
}

static bool same_obs(const herd_observation *a, const herd_observation *b) {
  return a->count == b->count && a->delivered == b->delivered && a->in_goal == b->in_goal &&
         memcmp(a->centroid, b->centroid, sizeof a->centroid) == 0 && a->farthest_id == b->farthest_id &&
         a->farthest_dist_m == b->farthest_dist_m && a->polarisation == b->polarisation && a->milling == b->milling &&
         memcmp(a->nearest, b->nearest, sizeof a->nearest) == 0;
}

/* Steps each world alone and all together in a batch; world 1 stops after FINISHED_AFTER. */
static void check_batch(const herd_backend_ops *ops, const char *model) {
  world_case c[WORLDS];
  herd_backend *alone[WORLDS], *batch = NULL;
  herd_backend_desc descs[WORLDS];
  herd_error err;
  for (uint32_t w = 0; w < WORLDS; ++w) {
    c[w] = make_world(model, w);
    c[w].desc.params = c[w].sc.params.bytes; /* make_world's copy of the scenario is gone */
    descs[w] = c[w].desc;
    CHECK_MSG(ops->create(&c[w].desc, &alone[w], &err) == HERD_OK, "%s", err.message);
    CHECK(ops->upload(alone[w], c[w].pos, c[w].vel, &err) == HERD_OK);
  }
  CHECK_MSG(ops->create_batch(descs, WORLDS, &batch, &err) == HERD_OK, "%s", err.message);
  for (uint32_t w = 0; w < WORLDS; ++w) CHECK(ops->upload_world(batch, w, c[w].pos, c[w].vel, &err) == HERD_OK);
  herd_observation one[WORLDS], all[WORLDS], frozen;
  herd_world_input in[WORLDS];
  for (uint32_t w = 0; w < WORLDS; ++w) {
    in[w] = (herd_world_input){.steer = {c[w].steer, c[w].steer_count}, .active = true};
    CHECK(ops->reduce(alone[w], in[w].steer, &one[w], &err) == HERD_OK);
  }
  CHECK(ops->reduce_batch(batch, in, all, &err) == HERD_OK);
  for (uint32_t s = 0; s < STEPS; ++s) {
    for (uint32_t w = 0; w < WORLDS; ++w) {
      CHECK_MSG(same_obs(&one[w], &all[w]), "%s %s: world %u differs at step %u", ops->name, model, w, s);
      for (int k = 0; k < 3; ++k) in[w].centroid[k] = (float)one[w].centroid[k];
      in[w].step = s;
      in[w].active = !(w == 1 && s >= FINISHED_AFTER);
      if (in[w].active) c[w].steer[0] += 1.5f; /* the steering agents move */
      if (in[w].active) CHECK(ops->step(alone[w], in[w].steer, in[w].centroid, s, &err) == HERD_OK);
      if (in[w].active) CHECK(ops->reduce(alone[w], in[w].steer, &one[w], &err) == HERD_OK);
    }
    if (s == FINISHED_AFTER) frozen = all[1];
    CHECK(ops->step_batch(batch, in, &err) == HERD_OK);
    CHECK(ops->reduce_batch(batch, in, all, &err) == HERD_OK);
  }
  for (uint32_t w = 0; w < WORLDS; ++w) {
    uint32_t n = c[w].sc.flock.count, stride = c[w].sc.world.dims == 3 ? 4 : 2;
    float *p1 = malloc(n * stride * sizeof *p1), *p2 = malloc(n * stride * sizeof *p2);
    float *v1 = malloc(n * stride * sizeof *v1), *v2 = malloc(n * stride * sizeof *v2);
    CHECK(ops->read_agents(alone[w], p1, v1, &err) == HERD_OK);
    CHECK(ops->read_world(batch, w, p2, v2, &err) == HERD_OK);
    CHECK_MSG(memcmp(p1, p2, n * stride * sizeof *p1) == 0 && memcmp(v1, v2, n * stride * sizeof *v1) == 0,
              "%s %s: world %u's flock differs from the world alone", ops->name, model, w);
    CHECK_MSG(w != 1 || same_obs(&frozen, &all[1]), "%s: the finished world moved", ops->name);
    free(p1), free(p2), free(v1), free(v2);
    ops->destroy(alone[w]);
    free_world(&c[w]);
  }
  ops->destroy(batch);
}

static void cpu_batch_worlds_run_as_alone(void) { check_batch(&herd_cpu_backend, "boids"); }

static void opencl_batch_worlds_run_as_alone(void) {
#ifdef HERD_WITH_OPENCL
  herd_device_info info[4];
  int count = 0;
  herd_error err;
  if (herd_devices(info, 4, &count, &err) != HERD_OK || count == 0) {
    printf("  no OpenCL device: skipped\n");
    return;
  }
  check_batch(&herd_cl_backend, "boids");
#endif
}

static void strombom_batch_worlds_run_as_alone(void) {
  check_batch(&herd_cpu_backend, "strombom");
#ifdef HERD_WITH_OPENCL
  herd_device_info info[4];
  int count = 0;
  herd_error err;
  if (herd_devices(info, 4, &count, &err) == HERD_OK && count > 0) check_batch(&herd_cl_backend, "strombom");
#endif
}

static void a_batch_refuses_mixed_models(void) {
#ifdef HERD_WITH_OPENCL
  herd_device_info info[4];
  int count = 0;
  herd_error err;
  if (herd_devices(info, 4, &count, &err) != HERD_OK || count == 0) return;
  world_case a = make_world("boids", 0), b = make_world("strombom", 0);
  a.desc.params = a.sc.params.bytes, b.desc.params = b.sc.params.bytes;
  herd_backend_desc descs[2] = {a.desc, b.desc};
  herd_backend *batch = NULL;
  CHECK(herd_cl_backend.create_batch(descs, 2, &batch, &err) == HERD_E_INPUT);
  CHECK_MSG(strstr(err.message, "a batch runs one model in one dimension; world 1 differs from world 0"), "%s",
            err.message);
  free_world(&a), free_world(&b);
#endif
}

int main(void) { TEST_MAIN(TESTS); }
