/* The viewer's pictures, rendered offscreen under Xvfb (Mesa llvmpipe): sheep, dog and
 * background where they should be, pictures that change as the flock moves, and the copy
 * path from an OpenCL device without buffer sharing. Skipped (exit 77) without a display. */
#include <math.h>
#include <stdlib.h>

#include "render/render.h"
#include "sim_util.h"

#define TESTS(X)                         \
  X(sheep_pixels_are_in_proportion_to_n) \
  X(the_dog_is_drawn_where_it_stands)    \
  X(empty_field_is_background)           \
  X(pictures_at_two_steps_differ)        \
  X(opencl_copy_path_draws_the_same_start)
TESTS(DECLARE_TEST)

enum { W = 1600, H = 1200 };

static herd_window *window;
static herd_renderer *renderer;

static bool is(const uint8_t *px, const uint8_t rgb[3]) {
  return px[0] == rgb[0] && px[1] == rgb[1] && px[2] == rgb[2];
}

static bool is_sheep(const uint8_t *px) {
  return is(px, herd_colors.grazing) || is(px, herd_colors.moved) || is(px, herd_colors.delivered) ||
         is(px, herd_colors.alert);
}

typedef struct picture {
  uint8_t *rgba;
  herd_camera cam;
} picture;

/* The sim after `steps` steps, rendered as herd view --screenshot does. */
static picture render(const char *const *sets, int set_count, const char *backend, uint32_t steps) {
  herd_scenario sc = scenario_with(sets, set_count);
  herd_renderer_destroy(renderer);
  herd_error err;
  if (herd_renderer_create(sc.flock.count, sc.world.dims, &renderer, &err) != HERD_OK) {
    fprintf(stderr, "%s\n", err.message);
    exit(1);
  }
  herd_sim *sim;
  CHECK(herd_sim_create(&(herd_sim_desc){.scenario = &sc, .backend = backend}, &sim, &err) == HERD_OK);
  for (uint32_t s = 0; s < steps; ++s) CHECK(herd_sim_step(sim, &err) == HERD_OK);
  picture p = {malloc((size_t)W * H * 4), herd_camera_for_sim(sim, W, H)};
  CHECK(herd_sim_shares_gl(sim) == false);
  CHECK(herd_renderer_update(renderer, sim, &err) == HERD_OK);
  CHECK(herd_renderer_snapshot(renderer, sim, &p.cam, W, H, NULL, p.rgba, &err) == HERD_OK);
  herd_sim_destroy(sim);
  return p;
}

static long count_sheep_pixels(const picture *p) {
  long n = 0;
  for (size_t i = 0; i < (size_t)W * H; ++i) n += is_sheep(p->rgba + 4 * i);
  return n;
}

static void sheep_pixels_are_in_proportion_to_n(void) {
  const char *small[] = {"sheep.count=100"}, *large[] = {"sheep.count=300"};
  picture a = render(small, 1, "cpu", 0), b = render(large, 1, "cpu", 0);
  long na = count_sheep_pixels(&a), nb = count_sheep_pixels(&b);
  /* A body is a triangle of 1.0 x 0.6 body lengths: 0.3 L^2 each, in pixels at this zoom. */
  double body_m = herd_model_body_m(HERD_MODEL_STROMBOM);
  double body_px = 0.3 * body_m * body_m / (a.cam.metres_per_px * a.cam.metres_per_px);
  printf("  %ld sheep pixels for 100 sheep, %ld for 300 (%.1f pixels per body)\n", na, nb, body_px);
  CHECK(a.cam.metres_per_px == b.cam.metres_per_px);
  CHECK_MSG(fabs(na / (100 * body_px) - 1) <= 0.25, "100 sheep: %ld pixels, expected %.0f", na, 100 * body_px);
  CHECK_MSG(fabs(nb / (300 * body_px) - 1) <= 0.25, "300 sheep: %ld pixels, expected %.0f", nb, 300 * body_px);
  free(a.rgba);
  free(b.rgba);
}

static void the_dog_is_drawn_where_it_stands(void) {
  picture p = render(NULL, 0, "cpu", 0);
  float dog[2] = {0, 0}; /* dogs.start of the default scenario */
  double at[2];
  herd_camera_to_pixel(&p.cam, dog, W, H, at);
  double dog_m = HERD_STEERING_BODY_SCALE * herd_model_body_m(HERD_MODEL_STROMBOM);
  double reach = dog_m / p.cam.metres_per_px + 2;
  long near = 0, far = 0;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      if (!is(p.rgba + 4 * ((size_t)y * W + x), herd_colors.dog)) continue;
      hypot(x - at[0], y - at[1]) <= reach ? ++near : ++far;
    }
  double body_px = 0.3 * dog_m * dog_m / (p.cam.metres_per_px * p.cam.metres_per_px);
  CHECK_MSG(near >= 0.5 * body_px, "%ld dog pixels near (%.0f, %.0f), expected about %.0f", near, at[0], at[1],
            body_px);
  CHECK_MSG(far == 0, "%ld dog-coloured pixels away from the dog", far);
  free(p.rgba);
}

static void empty_field_is_background(void) {
  picture p = render(NULL, 0, "cpu", 0);
  /* At the start the middle of the field holds nothing: the sheep are in the far corner,
   * the dog and the target at the origin. */
  float lo[2] = {0.25f * 150, 0.2f * 150}, hi[2] = {0.6f * 150, 0.6f * 150};
  double a[2], b[2];
  herd_camera_to_pixel(&p.cam, lo, W, H, a);
  herd_camera_to_pixel(&p.cam, hi, W, H, b);
  long other = 0, total = 0;
  for (int y = (int)b[1]; y <= (int)a[1]; ++y)
    for (int x = (int)a[0]; x <= (int)b[0]; ++x, ++total)
      other += !is(p.rgba + 4 * ((size_t)y * W + x), herd_colors.background);
  CHECK(total > 10000);
  CHECK_MSG(other == 0, "%ld of %ld pixels in the empty middle are not background", other, total);
  free(p.rgba);
}

static void pictures_at_two_steps_differ(void) {
  picture a = render(NULL, 0, "cpu", 0), b = render(NULL, 0, "cpu", 60);
  size_t differ = 0;
  for (size_t i = 0; i < (size_t)W * H * 4; ++i) differ += a.rgba[i] != b.rgba[i];
  CHECK_MSG(differ > 1000, "only %zu bytes differ between step 0 and step 60", differ);
  free(a.rgba);
  free(b.rgba);
}

/* PoCL has no cl_khr_gl_sharing: the flock is read back and copied; the start is the same
 * flock as on the CPU backend, so the same picture. */
static void opencl_copy_path_draws_the_same_start(void) {
  herd_device_info info[4];
  int count;
  herd_error err;
  if (herd_devices(info, 4, &count, &err) != HERD_OK) {
    printf("  no OpenCL device: copy path not exercised\n");
    return;
  }
  picture a = render(NULL, 0, "cpu", 0), b = render(NULL, 0, "opencl", 0);
  CHECK(memcmp(a.rgba, b.rgba, (size_t)W * H * 4) == 0);
  CHECK(count_sheep_pixels(&b) > 0);
  free(a.rgba);
  free(b.rgba);
}

static int test_run_list(void) { TEST_MAIN(TESTS); }

int main(void) {
  char why[300];
  if (!herd_display_available(why, sizeof why)) {
    printf("%s: skipped (run under xvfb-run)\n", why);
    return 77;
  }
  herd_error err;
  if (herd_window_open(&(herd_window_desc){.width = 64, .height = 64, .hidden = true}, &window, &err) != HERD_OK) {
    printf("%s\n", err.message);
    return 1;
  }
  int status = test_run_list();
  herd_renderer_destroy(renderer);
  herd_window_close(window);
  return status;
}
