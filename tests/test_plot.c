/* The viewer's live plot (src/render/plot.c), rendered offscreen under Xvfb: a constant series
 * is a horizontal line at its value's height in the plot's box, one line per series in its
 * colour; the ring keeps the last HERD_PLOT_STEPS steps. Skipped (exit 77) without a display. */
#include <math.h>
#include <stdlib.h>

#include "gl_test.h"
#include "render/render.h"
#include "sim_util.h"

#define TESTS(X)                               \
  X(constant_series_are_lines_at_their_values) \
  X(an_empty_plot_draws_no_series)             \
  X(the_plot_keeps_the_last_steps_of_the_sim)
TESTS(DECLARE_TEST)

enum { W = 1280, H = 800 };

static herd_window *window;

static bool is(const uint8_t *px, const uint8_t rgb[3]) {
  return px[0] == rgb[0] && px[1] == rgb[1] && px[2] == rgb[2];
}

/* The default scenario's first frame with `plot` drawn over it. */
static uint8_t *render_with(herd_plot *plot) {
  herd_scenario sc = scenario_with(NULL, 0);
  herd_renderer *r;
  herd_sim *sim;
  herd_error err;
  if (herd_renderer_create(sc.flock.count, sc.world.dims, &r, &err) != HERD_OK ||
      herd_sim_create(&(herd_sim_desc){.scenario = &sc}, &sim, &err) != HERD_OK) {
    fprintf(stderr, "%s\n", err.message);
    exit(1);
  }
  uint8_t *rgba = malloc((size_t)W * H * 4);
  herd_camera cam = herd_camera_for_sim(sim, W, H);
  herd_renderer_set_plot(r, plot);
  CHECK(herd_renderer_update(r, sim, &err) == HERD_OK);
  CHECK(herd_renderer_snapshot(r, sim, &cam, W, H, NULL, rgba, &err) == HERD_OK);
  herd_sim_destroy(sim);
  herd_renderer_destroy(r);
  return rgba;
}

/* Rows of the plot's box (inside its outline) holding a pixel of colour rgb: lowest and highest. */
static int rows_with(const uint8_t *rgba, const float box[4], const uint8_t rgb[3], int *lo, int *hi) {
  int found = 0;
  *lo = H, *hi = -1;
  for (int y = (int)box[1] + 2; y < (int)box[3] - 1; ++y)
    for (int x = (int)box[0] + 2; x < (int)box[2] - 1; ++x)
      if (is(&rgba[((size_t)y * W + x) * 4], rgb)) {
        ++found;
        *lo = y < *lo ? y : *lo, *hi = y > *hi ? y : *hi;
      }
  return found;
}

static void constant_series_are_lines_at_their_values(void) {
  const float values[HERD_PLOT_SERIES] = {0.5f, 0.25f, 0.8f};
  herd_plot *plot = herd_plot_create();
  for (int k = 0; k < HERD_PLOT_STEPS; ++k) herd_plot_add(plot, values);
  uint8_t *rgba = render_with(plot);
  float box[4];
  herd_plot_box(W, H, box);
  for (int s = 0; s < HERD_PLOT_SERIES; ++s) {
    /* Expected from the box alone: v of the way up from its bottom edge. */
    double want = box[3] - values[s] * (box[3] - box[1]);
    int lo, hi, n = rows_with(rgba, box, herd_plot_colors[s], &lo, &hi);
    CHECK_MSG(n > 0.9 * (box[2] - box[0] - 4), "series %d: %d pixels of its colour across the box", s, n);
    CHECK_MSG(lo >= want - 1.5 && hi <= want + 1.5, "series %d (%.2f): rows %d to %d, want %.1f", s, values[s], lo, hi,
              want);
  }
  /* The middle of the box holds the 0.5 line: half way between its top and bottom edges. */
  int lo, hi;
  rows_with(rgba, box, herd_plot_colors[0], &lo, &hi);
  CHECK(fabs((lo + hi) / 2.0 - (box[1] + box[3]) / 2.0) <= 1.5);
  free(rgba);
  herd_plot_destroy(plot);
}

static void an_empty_plot_draws_no_series(void) {
  herd_plot *plot = herd_plot_create();
  uint8_t *rgba = render_with(plot);
  float box[4];
  herd_plot_box(W, H, box);
  int lo, hi;
  for (int s = 0; s < HERD_PLOT_SERIES; ++s) CHECK(rows_with(rgba, box, herd_plot_colors[s], &lo, &hi) == 0);
  /* Its outline is drawn: the box's left edge, half way down. */
  size_t row = (size_t)((box[1] + box[3]) / 2) * W;
  bool edge = false;
  for (int x = (int)box[0] - 1; x <= (int)box[0] + 1; ++x)
    edge = edge || is(&rgba[(row + (size_t)x) * 4], herd_plot_frame);
  CHECK(edge);
  free(rgba);
  herd_plot_destroy(plot);
}

static void the_plot_keeps_the_last_steps_of_the_sim(void) {
  const char *sets[] = {"sheep.count=80"};
  herd_scenario sc = scenario_with(sets, 1);
  herd_sim *sim = sim_start(&sc, 1);
  herd_plot *plot = herd_plot_create();
  herd_error err;
  herd_plot_observe(plot, sim);
  herd_plot_observe(plot, sim); /* the same step again: not a new sample */
  CHECK(herd_plot_count(plot) == 1);
  for (int k = 0; k < HERD_PLOT_STEPS + 20 && herd_sim_outcome(sim) == HERD_RUNNING; ++k) {
    CHECK(herd_sim_step(sim, &err) == HERD_OK);
    herd_plot_observe(plot, sim);
  }
  CHECK(herd_plot_count(plot) == HERD_PLOT_STEPS);
  herd_plot_destroy(plot);
  herd_sim_destroy(sim);
}

static int test_run_list(void) { TEST_MAIN(TESTS); }

int main(void) { return gl_test_main(&window, NULL, test_run_list); }
