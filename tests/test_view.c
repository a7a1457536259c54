/* The viewer's pictures, rendered offscreen under Xvfb (Mesa llvmpipe): sheep, dog and
 * background where they should be, pictures that change as the flock moves, and the copy
 * path from an OpenCL device without buffer sharing; in 3D, lit agents inside the wireframe
 * box, perspective, depth, an orbiting camera, and the steering agent where the camera
 * projects it; among walls, water and pens the flock's waypoint, the dog's aim and the routing
 * field's arrows where the sim puts them. Skipped (exit 77) without a display. */
#include <math.h>
#include <stdlib.h>

#include "core/geometry.h"
#include "gl_test.h"
#include "render/render.h"
#include "sim_util.h"

#define TESTS(X)                                \
  X(sheep_pixels_are_in_proportion_to_n)        \
  X(the_dog_is_drawn_where_it_stands)           \
  X(empty_field_is_background)                  \
  X(pictures_at_two_steps_differ)               \
  X(opencl_copy_path_draws_the_same_start)      \
  X(walls_and_the_pen_are_drawn_but_the_gate)   \
  X(water_is_filled_and_bridges_cross_it)       \
  X(a_concave_lake_is_filled_as_it_is)          \
  X(the_waypoint_is_drawn_where_the_route_says) \
  X(the_dogs_aim_is_drawn_where_it_aims)        \
  X(route_arrows_follow_the_field_when_on)      \
  X(no_route_marks_without_geometry)            \
  X(a_flock_all_removed_still_shows_the_field)  \
  X(shepherds_have_a_colour_of_their_own)       \
  X(the_selected_agent_is_ringed)               \
  X(each_shepherds_assignment_is_drawn)         \
  X(agents_take_their_groups_colour)            \
  X(groups_circles_are_drawn)                   \
  X(opencl_copy_path_draws_the_same_groups)     \
  X(flock_3d_is_lit_agents_in_the_box)          \
  X(nearer_agents_are_drawn_larger)             \
  X(the_nearer_agent_hides_the_farther)         \
  X(the_picture_changes_as_the_camera_orbits)   \
  X(steering_agent_3d_is_drawn_where_projected) \
  X(opencl_copy_path_3d_reads_float4)           \
  X(geometry_3d_is_drawn_as_prisms)             \
  X(groups_3d_colour_the_agents)
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

/* The sim of `sc` after `steps` steps, rendered through `cam`, or as herd view --screenshot does
 * when cam is NULL. */
static picture render_scenario(const herd_scenario *sc, const char *backend, uint32_t steps, const herd_camera *cam) {
  herd_renderer_destroy(renderer);
  herd_error err;
  if (herd_renderer_create(sc->flock.count, sc->world.dims, &renderer, &err) != HERD_OK) {
    fprintf(stderr, "%s\n", err.message);
    exit(1);
  }
  herd_sim *sim;
  CHECK(herd_sim_create(&(herd_sim_desc){.scenario = sc, .backend = backend}, &sim, &err) == HERD_OK);
  for (uint32_t s = 0; s < steps; ++s) CHECK(herd_sim_step(sim, &err) == HERD_OK);
  picture p = {malloc((size_t)W * H * 4), cam ? *cam : herd_camera_for_sim(sim, W, H)};
  CHECK(herd_sim_shares_gl(sim) == false);
  CHECK(herd_renderer_update(renderer, sim, &err) == HERD_OK);
  CHECK(herd_renderer_snapshot(renderer, sim, &p.cam, W, H, NULL, p.rgba, &err) == HERD_OK);
  herd_sim_destroy(sim);
  return p;
}

static picture render_through(const char *const *sets, int set_count, const char *backend, uint32_t steps,
                              const herd_camera *cam) {
  herd_scenario sc = scenario_with(sets, set_count);
  return render_scenario(&sc, backend, steps, cam);
}

static picture render(const char *const *sets, int set_count, const char *backend, uint32_t steps) {
  return render_through(sets, set_count, backend, steps, NULL);
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
  float dog[3] = {0, 0, 0}; /* dogs.start of the default scenario */
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
  float lo[3] = {0.25f * 150, 0.2f * 150, 0}, hi[3] = {0.6f * 150, 0.6f * 150, 0};
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

/* ---- Walls, water, pens and bridges ------------------------------------------------------------ */

/* The pixel where world point (x, y, z) is drawn (clamped to the picture; a point off it fails). */
static const uint8_t *pixel_at(const picture *p, float x, float y, float z) {
  double at[2];
  bool seen = herd_camera_to_pixel(&p->cam, (const float[3]){x, y, z}, W, H, at);
  CHECK_MSG(seen && at[0] >= 0 && at[0] < W && at[1] >= 0 && at[1] < H, "(%g, %g, %g) m is not in the picture", x, y,
            z);
  int px = at[0] < 0 ? 0 : (at[0] >= W ? W - 1 : (int)at[0]), py = at[1] < 0 ? 0 : (at[1] >= H ? H - 1 : (int)at[1]);
  return p->rgba + 4 * ((size_t)py * W + px);
}

/* True when world point (x, y, z) is drawn in `rgb`; otherwise says what it shows. */
static bool shows(const picture *p, float x, float y, float z, const uint8_t rgb[3], const char *what) {
  const uint8_t *px = pixel_at(p, x, y, z);
  if (is(px, rgb)) return true;
  fprintf(stderr, "  (%g, %g, %g) m shows %u %u %u, not %s\n", x, y, z, px[0], px[1], px[2], what);
  return false;
}

/* Pixels in `rgb` within `reach` pixels (a square) of where world point (x, y, z) is drawn:
 * for lines, which land a pixel either side of the exact point. */
static long near(const picture *p, float x, float y, float z, int reach, const uint8_t rgb[3]) {
  const uint8_t *centre = pixel_at(p, x, y, z);
  long at = (centre - p->rgba) / 4, cx = at % W, cy = at / W, n = 0;
  for (long py = cy - reach; py <= cy + reach; ++py)
    for (long px = cx - reach; px <= cx + reach; ++px)
      n += px >= 0 && px < W && py >= 0 && py < H && is(p->rgba + 4 * ((size_t)py * W + (size_t)px), rgb);
  return n;
}

/* Pixels in `rgb` whose world point lies farther than `tol_px` pixels outside the sim's own
 * geometry (herd_geometry_distance: walls, fences, water less the bridges' strips), and not
 * within tol_px of a sphere's outline (rocks are drawn in the obstacle colour too). */
static long drawn_outside_geometry(const picture *p, const herd_scenario *sc, const uint8_t rgb[3], double tol_px) {
  double tol = tol_px * p->cam.metres_per_px;
  long stray = 0;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      if (!is(p->rgba + 4 * ((size_t)y * W + x), rgb)) continue;
      float w[3];
      herd_camera_to_world(&p->cam, x + 0.5, y + 0.5, W, H, w);
      bool rock = false;
      for (uint32_t k = 0; k < sc->obstacles.spheres.count; ++k) {
        const float *c = sc->obstacles.spheres.v[k];
        rock |= fabs(hypot(w[0] - c[0], w[1] - c[1]) - c[3]) <= tol;
      }
      stray += !rock && herd_geometry_distance(sc, w[0], w[1], NULL) > tol;
    }
  return stray;
}

/* Every wall drawn on its line midway along each segment (and not a pixel and a half beyond
 * its band). */
static void check_walls(const picture *p, const herd_scenario *sc) {
  float px_m = p->cam.metres_per_px;
  for (uint32_t i = 0; i < sc->obstacles.walls.count; ++i) {
    const herd_shape *s = &sc->obstacles.walls.s[i];
    float out = 0.5f * s->width_m + 1.5f * px_m;
    for (uint32_t k = 0; k + 1 < s->count; ++k) {
      float mx = 0.5f * (s->v[k][0] + s->v[k + 1][0]), my = 0.5f * (s->v[k][1] + s->v[k + 1][1]);
      float dx = s->v[k + 1][0] - s->v[k][0], dy = s->v[k + 1][1] - s->v[k][1], len = hypotf(dx, dy);
      float nx = -dy / len, ny = dx / len;
      CHECK_MSG(shows(p, mx, my, 0, herd_colors.obstacle, "the wall"), "walls[%u], segment %u", i, k);
      for (int side = -1; side <= 1; side += 2)
        CHECK_MSG(!is(pixel_at(p, mx + side * out * nx, my + side * out * ny, 0), herd_colors.obstacle),
                  "walls[%u], segment %u: drawn %g m off its line", i, k, side * out);
    }
  }
}

/* The band drawn across a wall or fence at (x, y), whose line runs along (ux, uy): seen through
 * a camera 8 thicknesses wide, the obstacle-coloured pixels along the normal span its
 * thickness to within 3 pixels (of some 150). */
static void check_band_width(const herd_scenario *sc, float x, float y, float ux, float uy, float thickness) {
  float lo[2] = {x - 4 * thickness, y - 4 * thickness}, hi[2] = {x + 4 * thickness, y + 4 * thickness};
  herd_camera cam = herd_camera_fit(lo, hi, W, H);
  picture p = render_scenario(sc, "cpu", 0, &cam);
  float px_m = cam.metres_per_px, len = hypotf(ux, uy), nx = -uy / len, ny = ux / len;
  long drawn = 0;
  for (float t = -2 * thickness; t <= 2 * thickness; t += px_m)
    drawn += is(pixel_at(&p, x + t * nx, y + t * ny, 0), herd_colors.obstacle);
  double expected = thickness / px_m;
  CHECK_MSG(fabs(drawn - expected) <= 3, "a band %g m thick at (%g, %g) is drawn %ld pixels wide, not %.0f", thickness,
            x, y, drawn, expected);
  free(p.rgba);
}

/* scenarios/pen-with-gate.json (its walls and pens whatever they are): every wall on its
 * line; along each pen's boundary, the fence drawn wherever the sim has fence
 * (herd_geometry_distance < 0) and nothing in the obstacle colour across the gap the sim
 * leaves open (a strip 7 pixels wide), the gate's posts in the target's colour at its ends;
 * nothing in the obstacle colour off every obstacle. */
static void walls_and_the_pen_are_drawn_but_the_gate(void) {
  herd_scenario sc = shipped("pen-with-gate.json", NULL, 0);
  picture p = render_scenario(&sc, "cpu", 0, NULL);
  float px_m = p.cam.metres_per_px;
  check_walls(&p, &sc);
  CHECK(sc.obstacles.pens.count > 0);
  for (uint32_t i = 0; i < sc.obstacles.pens.count; ++i) {
    const herd_shape *pen = &sc.obstacles.pens.s[i];
    float r = 0.5f * pen->width_m, gate = hypotf(pen->gate[1][0] - pen->gate[0][0], pen->gate[1][1] - pen->gate[0][1]);
    long fence = 0, missing = 0, gap = 0, crossed = 0;
    for (uint32_t k = 0; k < pen->count; ++k) {
      const float *a = pen->v[k], *b = pen->v[(k + 1) % pen->count];
      float dx = b[0] - a[0], dy = b[1] - a[1], len = hypotf(dx, dy), nx = -dy / len, ny = dx / len;
      for (float t = 0; t <= len; t += px_m) {
        float x = a[0] + t * dx / len, y = a[1] + t * dy / len;
        bool post = false; /* the gate's ends: the fence's round end under a post */
        for (int e = 0; e < 2; ++e) post |= hypotf(x - pen->gate[e][0], y - pen->gate[e][1]) < r + 3 * px_m;
        if (post) continue;
        if (herd_geometry_distance(&sc, x, y, NULL) < 0) {
          ++fence;
          missing += !is(pixel_at(&p, x, y, 0), herd_colors.obstacle);
          continue;
        }
        ++gap;
        for (int across = -3; across <= 3; ++across)
          crossed += is(pixel_at(&p, x + across * px_m * nx, y + across * px_m * ny, 0), herd_colors.obstacle);
      }
    }
    printf("  pens[%u]: %ld fence samples, %ld in the gate's gap\n", i, fence, gap);
    CHECK(fence > 500);
    CHECK_MSG(missing == 0, "pens[%u]: %ld of %ld points of the fence not drawn", i, missing, fence);
    CHECK_MSG(gap >= 0.8 * (gate - pen->width_m) / px_m, "pens[%u]: only %ld points in the gate's gap", i, gap);
    CHECK_MSG(crossed == 0, "pens[%u]: %ld obstacle-coloured pixels across the gate's gap", i, crossed);
    for (int e = 0; e < 2; ++e)
      CHECK_MSG(near(&p, pen->gate[e][0], pen->gate[e][1], 0, 2, herd_colors.target) > 0, "pens[%u]: no gate post %d",
                i, e);
  }
  long stray = drawn_outside_geometry(&p, &sc, herd_colors.obstacle, 2.0);
  CHECK_MSG(stray == 0, "%ld obstacle-coloured pixels off every wall, fence and rock", stray);
  free(p.rgba);
  /* As thick as they are: the first wall and the first pen's first edge, midway. */
  if (sc.obstacles.walls.count) {
    const herd_shape *w = &sc.obstacles.walls.s[0];
    check_band_width(&sc, 0.5f * (w->v[0][0] + w->v[1][0]), 0.5f * (w->v[0][1] + w->v[1][1]), w->v[1][0] - w->v[0][0],
                     w->v[1][1] - w->v[0][1], w->width_m);
  }
  const herd_shape *pen = &sc.obstacles.pens.s[0];
  float mx = 0.5f * (pen->v[0][0] + pen->v[1][0]), my = 0.5f * (pen->v[0][1] + pen->v[1][1]);
  if (herd_geometry_distance(&sc, mx, my, NULL) < 0) /* not in the gate */
    check_band_width(&sc, mx, my, pen->v[1][0] - pen->v[0][0], pen->v[1][1] - pen->v[0][1], pen->width_m);
}

/* True when (x, y) lies more than `tol` inside the strip of bridge b. */
static bool on_bridge(const herd_shape *b, float x, float y, float tol) {
  float dx = b->v[1][0] - b->v[0][0], dy = b->v[1][1] - b->v[0][1], len = hypotf(dx, dy);
  float px = x - 0.5f * (b->v[0][0] + b->v[1][0]), py = y - 0.5f * (b->v[0][1] + b->v[1][1]);
  float along = (px * dx + py * dy) / len, across = (-px * dy + py * dx) / len;
  return fabsf(along) < 0.5f * len - tol && fabsf(across) < 0.5f * b->width_m - tol;
}

/* Water only where the sim has water (not on a bridge's strip, not on land) and every pixel
 * more than 2 pixels inside it filled (water, a wall over it, or the field's outline across
 * it); every pixel well inside a bridge's strip in the bridge colour (or a wall or the field's
 * outline). */
static void check_water(const picture *p, const herd_scenario *sc) {
  double tol = 2.0 * p->cam.metres_per_px;
  long stray = drawn_outside_geometry(p, sc, herd_colors.water, 2.0);
  CHECK_MSG(stray == 0, "%ld water-coloured pixels off the water", stray);
  long inside = 0, unfilled = 0, water = 0, bridge = 0, unbridged = 0;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      float w[3];
      herd_camera_to_world(&p->cam, x + 0.5, y + 0.5, W, H, w);
      const uint8_t *px = p->rgba + 4 * ((size_t)y * W + x);
      water += is(px, herd_colors.water);
      /* a dog's line to its aim and the flock's to its waypoint may cross water */
      bool other = is(px, herd_colors.obstacle) || is(px, herd_colors.field) || is(px, herd_colors.dog) ||
                   is(px, herd_colors.waypoint);
      for (uint32_t b = 0; b < sc->obstacles.bridges.count; ++b) {
        if (!on_bridge(&sc->obstacles.bridges.s[b], w[0], w[1], (float)tol)) continue;
        ++bridge;
        unbridged += !is(px, herd_colors.bridge) && !other;
      }
      if (herd_geometry_distance(sc, w[0], w[1], NULL) > -tol) continue;
      ++inside;
      unfilled += !is(px, herd_colors.water) && !other;
    }
  printf("  %ld water pixels, %ld inside the obstacles, %ld on bridges\n", water, inside, bridge);
  CHECK(water > 100000 && inside > 100000);
  CHECK(bridge > 10000 || sc->obstacles.bridges.count == 0);
  CHECK_MSG(unfilled == 0, "%ld of %ld pixels inside the water are not filled", unfilled, inside);
  CHECK_MSG(unbridged == 0, "%ld of %ld pixels on bridges are not in the bridge colour", unbridged, bridge);
}

/* scenarios/river-with-bridge.json, whatever its water, bridges and walls are. */
static void water_is_filled_and_bridges_cross_it(void) {
  herd_scenario sc = shipped("river-with-bridge.json", NULL, 0);
  picture p = render_scenario(&sc, "cpu", 0, NULL);
  CHECK(sc.obstacles.water.count > 0 && sc.obstacles.bridges.count > 0);
  check_walls(&p, &sc);
  check_water(&p, &sc);
  free(p.rgba);
}

/* A U-shaped lake: filled as the polygon it is, its notch left dry (a triangle fan from one
 * corner would cover the notch or miss an arm). */
static void a_concave_lake_is_filled_as_it_is(void) {
  const char *sets[] = {
      "obstacles.water=[{\"points_m\": [[30, 30], [90, 30], [90, 90], [70, 90], [70, 50], [50, 50], "
      "[50, 90], [30, 90]]}]"};
  herd_scenario sc = scenario_with(sets, 1);
  picture p = render_scenario(&sc, "cpu", 0, NULL);
  CHECK(shows(&p, 60, 70, 0, herd_colors.background, "the lake's dry notch"));
  check_water(&p, &sc);
  free(p.rgba);
}

/* ---- The route: waypoint, aim, arrows --------------------------------------------------------------- */

static herd_sim *start_sim(const herd_scenario *sc, uint32_t steps) {
  herd_error err;
  herd_sim *sim;
  CHECK(herd_sim_create(&(herd_sim_desc){.scenario = sc, .backend = "cpu"}, &sim, &err) == HERD_OK);
  for (uint32_t s = 0; s < steps; ++s) CHECK(herd_sim_step(sim, &err) == HERD_OK);
  return sim;
}

/* What a picture shows besides what herd view --screenshot draws. */
typedef struct render_opts {
  bool arrows;    /* the routing field's arrows */
  bool no_groups; /* the groups hidden (key G) */
  int selected;   /* the steering agent ringed; -1 none */
} render_opts;

/* The sim as it stands, as herd view --screenshot draws it with `o`. */
static picture render_sim_with(const herd_sim *sim, render_opts o) {
  const herd_scenario *sc = herd_sim_scenario(sim);
  herd_renderer_destroy(renderer);
  herd_error err;
  if (herd_renderer_create(sc->flock.count, sc->world.dims, &renderer, &err) != HERD_OK) {
    fprintf(stderr, "%s\n", err.message);
    exit(1);
  }
  CHECK(!herd_renderer_route_shown(renderer)); /* off unless asked */
  CHECK(herd_renderer_groups_shown(renderer)); /* on unless hidden */
  herd_renderer_show_route(renderer, o.arrows);
  herd_renderer_show_groups(renderer, !o.no_groups);
  herd_renderer_select(renderer, o.selected);
  picture p = {malloc((size_t)W * H * 4), herd_camera_for_sim(sim, W, H)};
  CHECK(herd_renderer_update(renderer, (herd_sim *)sim, &err) == HERD_OK);
  CHECK(herd_renderer_snapshot(renderer, sim, &p.cam, W, H, NULL, p.rgba, &err) == HERD_OK);
  return p;
}

static picture render_sim(const herd_sim *sim, bool arrows) {
  return render_sim_with(sim, (render_opts){.arrows = arrows, .selected = -1});
}

static long count_color(const picture *p, const uint8_t rgb[3]) {
  long n = 0;
  for (size_t i = 0; i < (size_t)W * H; ++i) n += is(p->rgba + 4 * i, rgb);
  return n;
}

/* The distance in pixels from pixel (x, y) to the segment between pixels a and b. */
static double to_segment(double x, double y, const double *a, const double *b) {
  double dx = b[0] - a[0], dy = b[1] - a[1], len2 = dx * dx + dy * dy;
  double t = len2 > 0 ? ((x - a[0]) * dx + (y - a[1]) * dy) / len2 : 0;
  t = t < 0 ? 0 : (t > 1 ? 1 : t);
  return hypot(x - a[0] - t * dx, y - a[1] - t * dy);
}

/* The flock's waypoint as the dog takes it: r_a sqrt(N) ahead of G, N the sheep not yet
 * delivered (pen-with-gate removes them). */
static bool flock_waypoint(const herd_sim *sim, float g[2], float q[2]) {
  const herd_observation *o = herd_sim_observation(sim);
  double r_a;
  CHECK(herd_scenario_get(herd_sim_scenario(sim), "sheep.repulsion_radius_m", &r_a, NULL) == HERD_OK);
  g[0] = (float)o->centroid[0], g[1] = (float)o->centroid[1];
  return herd_sim_route_waypoint(sim, g, (float)(r_a * sqrt((double)(o->count - o->delivered))), q);
}

/* scenarios/pen-with-gate.json at step 200: the diamond in the waypoint colour about where
 * the camera projects the waypoint, the line from G to it, and that colour nowhere else. */
static void the_waypoint_is_drawn_where_the_route_says(void) {
  herd_scenario sc = shipped("pen-with-gate.json", NULL, 0);
  herd_sim *sim = start_sim(&sc, 200);
  float g[2], q[2];
  CHECK(flock_waypoint(sim, g, q));
  picture p = render_sim(sim, false);
  double at[2], from[2];
  CHECK(herd_camera_to_pixel(&p.cam, (const float[3]){q[0], q[1], 0}, W, H, at));
  CHECK(herd_camera_to_pixel(&p.cam, (const float[3]){g[0], g[1], 0}, W, H, from));
  double r = HERD_ROUTE_MARK_PX;
  long inside = 0, core = 0, stray = 0;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      if (!is(p.rgba + 4 * ((size_t)y * W + x), herd_colors.waypoint)) continue;
      double dx = fabs(x + 0.5 - at[0]), dy = fabs(y + 0.5 - at[1]);
      inside += dx + dy <= r + 1.5;
      core += dx + dy <= 0.5 * r;
      stray += dx + dy > r + 1.5 && to_segment(x + 0.5, y + 0.5, from, at) > 2;
    }
  double line_px = hypot(at[0] - from[0], at[1] - from[1]);
  printf("  waypoint (%.1f, %.1f) m, %.0f px from G: %ld pixels in its diamond, %ld elsewhere\n", q[0], q[1], line_px,
         inside, stray);
  /* The diamond covers 2 r^2 pixels; its inner half all of its r^2 / 2 (less what sheep cover). */
  CHECK_MSG(inside >= r * r, "%ld waypoint pixels about (%.0f, %.0f), expected about %.0f", inside, at[0], at[1],
            2 * r * r);
  CHECK_MSG(core >= 0.3 * r * r, "the waypoint's diamond is not filled (%ld pixels at its middle)", core);
  CHECK_MSG(stray == 0, "%ld waypoint-coloured pixels off the diamond and the line from G", stray);
  if (line_px > 4 * r)
    CHECK_MSG(near(&p, 0.5f * (g[0] + q[0]), 0.5f * (g[1] + q[1]), 0, 2, herd_colors.waypoint) > 0,
              "no line from G to the waypoint");
  free(p.rgba);
  herd_sim_destroy(sim);
}

/* Steps until the first dog aims somewhere (not NAN) more than `gap` metres from where it
 * stands, up to step 1000. */
static void step_until_aiming(herd_sim *sim, float gap) {
  herd_error err;
  const herd_steering_state *dog = herd_sim_steering(sim, 0);
  while (herd_sim_step_index(sim) < 1000 &&
         (!isfinite(dog->aim[0]) || hypotf(dog->aim[0] - dog->pos[0], dog->aim[1] - dog->pos[1]) < gap))
    CHECK(herd_sim_step(sim, &err) == HERD_OK);
  CHECK_MSG(isfinite(dog->aim[0]), "the dog never aims anywhere in 1000 steps");
}

/* scenarios/pen-with-gate.json at the first step from 100 on where the dog aims somewhere (not
 * NAN) well away from where it stands: a ring in the dog's colour round the aim and a line to
 * it from the dog. */
static void the_dogs_aim_is_drawn_where_it_aims(void) {
  herd_scenario sc = shipped("pen-with-gate.json", NULL, 0);
  herd_sim *sim = start_sim(&sc, 100);
  const herd_steering_state *dog = herd_sim_steering(sim, 0);
  CHECK(dog->strategy == HERD_STRATEGY_DOG);
  double body_m = HERD_STEERING_BODY_SCALE * herd_model_body_m(sc.model);
  herd_camera cam = herd_camera_for_sim(sim, W, H);
  float gap = (float)(body_m + 4 * HERD_ROUTE_MARK_PX * cam.metres_per_px);
  step_until_aiming(sim, gap);
  float aim[2] = {dog->aim[0], dog->aim[1]}, pos[2] = {dog->pos[0], dog->pos[1]};
  picture p = render_sim(sim, false);
  double r_m = HERD_ROUTE_MARK_PX * p.cam.metres_per_px;
  int on_ring = 0;
  for (int k = 0; k < 8; ++k) {
    float a = 6.2831853f * k / 8;
    on_ring += near(&p, aim[0] + (float)r_m * cosf(a), aim[1] + (float)r_m * sinf(a), 0, 1, herd_colors.dog) > 0;
  }
  long middle = near(&p, aim[0], aim[1], 0, 1, herd_colors.dog);
  printf("  step %u: the dog at (%.1f, %.1f) aims at (%.1f, %.1f): %d of 8 ring points drawn\n",
         herd_sim_step_index(sim), pos[0], pos[1], aim[0], aim[1], on_ring);
  CHECK_MSG(on_ring >= 6, "only %d of 8 points of the aim's ring are in the dog's colour", on_ring);
  CHECK_MSG(middle == 0 || on_ring == 8, "the aim's ring is not a ring");
  CHECK_MSG(near(&p, 0.5f * (aim[0] + pos[0]), 0.5f * (aim[1] + pos[1]), 0, 2, herd_colors.dog) > 0,
            "no line from the dog to its aim");
  free(p.rgba);
  herd_sim_destroy(sim);
}

/* Pixels in `rgb` whose world point lies more than tol_px pixels inside a wall, fence or water. */
static long drawn_inside_geometry(const picture *p, const herd_scenario *sc, const uint8_t rgb[3], double tol_px) {
  long inside = 0;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      if (!is(p->rgba + 4 * ((size_t)y * W + x), rgb)) continue;
      float w[3];
      herd_camera_to_world(&p->cam, x + 0.5, y + 0.5, W, H, w);
      inside += herd_geometry_distance(sc, w[0], w[1], NULL) < -tol_px * p->cam.metres_per_px;
    }
  return inside;
}

/* With the arrows on: at every lattice point (render.h) where the route gives a way and the
 * arrow certainly clears every obstacle, the route colour at the point and a third of the way
 * along the arrow, toward herd_sim_route_waypoint's point (up to a few points under a sheep
 * or another mark); none inside the water, walls or fences; none with the arrows off. */
static void check_arrows(const char *file, uint32_t steps) {
  herd_scenario sc = shipped(file, NULL, 0);
  herd_sim *sim = start_sim(&sc, steps);
  picture on = render_sim(sim, true), off = render_sim(sim, false);
  float spacing = fmaxf(HERD_ROUTE_SPACING_M, fmaxf(sc.world.size_m[0], sc.world.size_m[1]) / HERD_ROUTE_ARROWS_MAX);
  long expected = 0, missing = 0, wrong_way = 0, cut_off = 0;
  for (float y = 0.5f * spacing; y < sc.world.size_m[1]; y += spacing)
    for (float x = 0.5f * spacing; x < sc.world.size_m[0]; x += spacing) {
      float q[2];
      if (!herd_sim_route_waypoint(sim, (const float[2]){x, y}, HERD_ROUTE_AHEAD_M, q)) {
        ++cut_off;
        continue;
      }
      float dx = q[0] - x, dy = q[1] - y, len = hypotf(dx, dy);
      if (len < HERD_ROUTE_HOME_M || herd_geometry_distance(&sc, x, y, NULL) < 0.5 * spacing + 1) continue;
      ++expected;
      missing += near(&on, x, y, 0, 2, herd_colors.route) == 0;
      float t = spacing / 6;
      wrong_way += near(&on, x + t * dx / len, y + t * dy / len, 0, 2, herd_colors.route) == 0;
    }
  long total = count_color(&on, herd_colors.route), inside = drawn_inside_geometry(&on, &sc, herd_colors.route, 2.0);
  printf("  %s: %ld arrows expected (%ld points cut off), %ld missing, %ld not toward the waypoint, %ld route pixels\n",
         file, expected, cut_off, missing, wrong_way, total);
  CHECK(expected >= 200);
  CHECK_MSG(missing <= expected / 50, "%s: %ld of %ld arrows missing", file, missing, expected);
  CHECK_MSG(wrong_way <= expected / 50, "%s: %ld of %ld arrows not toward the waypoint", file, wrong_way, expected);
  CHECK_MSG(inside == 0, "%s: %ld route-coloured pixels inside water, a wall or a fence", file, inside);
  CHECK_MSG(count_color(&off, herd_colors.route) == 0, "%s: arrows drawn with the toggle off", file);
  free(on.rgba);
  free(off.rgba);
  herd_sim_destroy(sim);
}

static void route_arrows_follow_the_field_when_on(void) {
  check_arrows("pen-with-gate.json", 100);
  check_arrows("river-with-bridge.json", 0);
}

/* The default scenario (no walls, water or pens) with the arrows on, once the dog aims well
 * away from itself: no waypoint, no arrows, and the dog's colour only on the dog. */
static void no_route_marks_without_geometry(void) {
  herd_scenario sc = scenario_with(NULL, 0);
  herd_sim *sim = start_sim(&sc, 100);
  const herd_steering_state *dog = herd_sim_steering(sim, 0);
  step_until_aiming(sim, 20.0f);
  picture p = render_sim(sim, true);
  double at[2];
  CHECK(herd_camera_to_pixel(&p.cam, dog->pos, W, H, at));
  double reach = HERD_STEERING_BODY_SCALE * herd_model_body_m(sc.model) / p.cam.metres_per_px + 2;
  long far = 0;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      far += is(p.rgba + 4 * ((size_t)y * W + x), herd_colors.dog) && hypot(x - at[0], y - at[1]) > reach;
  CHECK_MSG(count_color(&p, herd_colors.waypoint) == 0, "a waypoint drawn without geometry");
  CHECK_MSG(count_color(&p, herd_colors.route) == 0, "route arrows drawn without geometry");
  CHECK_MSG(far == 0, "%ld dog-coloured pixels away from the dog (an aim?) without geometry", far);
  free(p.rgba);
  herd_sim_destroy(sim);
}

/* Every sheep removed on delivery leaves no flock extent: the picture still shows the field
 * (it was blank, the camera infinitely far out), and F fits the scene. */
static void a_flock_all_removed_still_shows_the_field(void) {
  const char *sets[] = {"sheep.success=remove_delivered"};
  herd_scenario sc = scenario_with(sets, 1);
  herd_sim *sim = start_sim(&sc, 0);
  herd_error err;
  while (herd_sim_outcome(sim) == HERD_RUNNING) CHECK(herd_sim_step(sim, &err) == HERD_OK);
  CHECK(herd_sim_outcome(sim) == HERD_SUCCEEDED);
  picture p = render_sim(sim, false);
  herd_camera fitted = p.cam;
  herd_camera_fit_flock(&fitted, sim, W, H);
  printf("  step %u, all removed: %g m per pixel, F: %g\n", herd_sim_step_index(sim), p.cam.metres_per_px,
         fitted.metres_per_px);
  CHECK(isfinite(p.cam.metres_per_px) && p.cam.metres_per_px < 1 && fitted.metres_per_px == p.cam.metres_per_px);
  CHECK_MSG(count_color(&p, herd_colors.field) > W, "the field's outline is not drawn");
  free(p.rgba);
  herd_sim_destroy(sim);
}

/* ---- Shepherds, groups, the selected steering agent ---------------------------------------------- */

/* A cruiser (agent 0) and a shepherd (agent 1) far apart, at step 0 (no aims yet). */
static const char *const two_steering[] = {"dogs.count=0", "agents[0].strategy=cruiser",
                                           "agents[0].position_m=[40,100]", "agents[1].strategy=shepherd",
                                           "agents[1].position_m=[100,40]"};

/* The steering agents' body length in pixels through p's camera. */
static double steering_px(const picture *p, const herd_scenario *sc) {
  return HERD_STEERING_BODY_SCALE * herd_model_body_m(sc->model) / p->cam.metres_per_px;
}

/* The shepherd in the shepherd's colour, the cruiser in the dog's, neither in the other's. */
static void shepherds_have_a_colour_of_their_own(void) {
  herd_scenario sc = scenario_with(two_steering, 5);
  herd_sim *sim = start_sim(&sc, 0);
  picture p = render_sim(sim, false);
  double body_px = steering_px(&p, &sc), area = 0.3 * body_px * body_px;
  int reach = (int)body_px + 2;
  long shepherd = near(&p, 100, 40, 0, reach, herd_colors.shepherd),
       cruiser = near(&p, 40, 100, 0, reach, herd_colors.dog);
  printf("  shepherd %ld pixels, cruiser %ld (a body: %.0f)\n", shepherd, cruiser, area);
  CHECK_MSG(shepherd >= 0.5 * area, "%ld shepherd-coloured pixels at the shepherd", shepherd);
  CHECK_MSG(cruiser >= 0.5 * area, "%ld dog-coloured pixels at the cruiser", cruiser);
  CHECK(count_color(&p, herd_colors.shepherd) == shepherd && count_color(&p, herd_colors.dog) == cruiser);
  free(p.rgba);
  herd_sim_destroy(sim);
}

/* Selecting agent 1 rings it (a circle a little wider than its body) in the selected colour,
 * and nothing else; selecting none draws no ring; selecting 0 rings the other. A line one pixel
 * wide round a circle of radius R covers about 4 sqrt(2) R pixels (one a row or a column). */
static void the_selected_agent_is_ringed(void) {
  herd_scenario sc = scenario_with(two_steering, 5);
  herd_sim *sim = start_sim(&sc, 0);
  picture none = render_sim_with(sim, (render_opts){.selected = -1});
  picture one = render_sim_with(sim, (render_opts){.selected = 1}),
          zero = render_sim_with(sim, (render_opts){.selected = 0});
  double body_px = steering_px(&one, &sc), radius_px = fmax(0.9 * body_px, 2 * HERD_ROUTE_MARK_PX);
  int reach = (int)radius_px + 3;
  long ring = near(&one, 100, 40, 0, reach, herd_colors.selected),
       other = near(&zero, 40, 100, 0, reach, herd_colors.selected);
  printf("  ring of %.0f pixels: %ld pixels\n", radius_px, ring);
  CHECK_MSG(ring >= 5 * radius_px, "%ld selected-coloured pixels round agent 1", ring);
  CHECK_MSG(near(&one, 100, 40, 0, (int)(0.5 * radius_px), herd_colors.selected) == 0, "the ring is not hollow");
  CHECK_MSG(count_color(&one, herd_colors.selected) == ring, "selected-coloured pixels away from agent 1");
  CHECK_MSG(other >= 5 * radius_px && count_color(&zero, herd_colors.selected) == other,
            "agent 0 selected: %ld pixels round it", other);
  CHECK_MSG(count_color(&none, herd_colors.selected) == 0, "a ring with nothing selected");
  free(none.rgba);
  free(one.rgba);
  free(zero.rgba);
  herd_sim_destroy(sim);
}

/* Steps until every shepherd aims somewhere (not NAN) more than `gap` metres from where it
 * stands, up to step 1000. */
static void step_until_shepherds_aim(herd_sim *sim, float gap) {
  herd_error err;
  for (bool all = false; !all && herd_sim_step_index(sim) < 1000;) {
    all = true;
    for (uint32_t d = 0; d < herd_sim_steering_count(sim); ++d) {
      const herd_steering_state *a = herd_sim_steering(sim, d);
      all &= isfinite(a->aim[0]) && hypotf(a->aim[0] - a->pos[0], a->aim[1] - a->pos[1]) >= gap;
    }
    if (!all) CHECK(herd_sim_step(sim, &err) == HERD_OK);
  }
}

/* True when pixel (x, y) lies on a shepherd's body, its aim's ring or the line to it. */
static bool on_shepherd_marks(const picture *p, const herd_sim *sim, double x, double y, double body_px) {
  double r = HERD_ROUTE_MARK_PX;
  for (uint32_t d = 0; d < herd_sim_steering_count(sim); ++d) {
    const herd_steering_state *a = herd_sim_steering(sim, d);
    double at[2], aim[2];
    CHECK(herd_camera_to_pixel(&p->cam, a->pos, W, H, at));
    if (hypot(x - at[0], y - at[1]) <= body_px + 2) return true;
    if (!isfinite(a->aim[0])) continue;
    CHECK(herd_camera_to_pixel(&p->cam, (const float[3]){a->aim[0], a->aim[1], 0}, W, H, aim));
    if (fabs(hypot(x - aim[0], y - aim[1]) - r) <= 2 || to_segment(x, y, at, aim) <= 2) return true;
  }
  return false;
}

/* scenarios/lien-empty.json once every shepherd aims well away from itself: for each, a ring in
 * the shepherd colour round its steering point and the line to it from the shepherd (its
 * assignment); that colour nowhere else. */
static void each_shepherds_assignment_is_drawn(void) {
  herd_scenario sc = shipped("lien-empty.json", NULL, 0);
  herd_sim *sim = start_sim(&sc, 0);
  double body_m = HERD_STEERING_BODY_SCALE * herd_model_body_m(sc.model);
  herd_camera cam = herd_camera_for_sim(sim, W, H);
  step_until_shepherds_aim(sim, (float)(body_m + 4 * HERD_ROUTE_MARK_PX * cam.metres_per_px));
  picture p = render_sim(sim, false);
  double r_m = HERD_ROUTE_MARK_PX * p.cam.metres_per_px;
  uint32_t n = herd_sim_steering_count(sim);
  for (uint32_t d = 0; d < n; ++d) {
    const herd_steering_state *a = herd_sim_steering(sim, d);
    CHECK_MSG(isfinite(a->aim[0]), "shepherd %u aims nowhere by step %u", d, herd_sim_step_index(sim));
    if (!isfinite(a->aim[0])) continue;
    int on_ring = 0;
    for (int k = 0; k < 8; ++k) {
      float t = 6.2831853f * k / 8, x = a->aim[0] + (float)r_m * cosf(t), y = a->aim[1] + (float)r_m * sinf(t);
      on_ring += near(&p, x, y, 0, 1, herd_colors.shepherd) > 0;
    }
    float mx = 0.5f * (a->aim[0] + a->pos[0]), my = 0.5f * (a->aim[1] + a->pos[1]);
    printf("  step %u: shepherd %u (%s) at (%.1f, %.1f) aims at (%.1f, %.1f): %d of 8 ring points\n",
           herd_sim_step_index(sim), d, herd_steering_mode_name(a->mode), a->pos[0], a->pos[1], a->aim[0], a->aim[1],
           on_ring);
    CHECK_MSG(on_ring >= 6, "shepherd %u: %d of 8 points of its aim's ring drawn", d, on_ring);
    CHECK_MSG(near(&p, mx, my, 0, 2, herd_colors.shepherd) > 0, "shepherd %u: no line to its aim", d);
  }
  long stray = 0;
  double body_px = body_m / p.cam.metres_per_px;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      stray += is(p.rgba + 4 * ((size_t)y * W + x), herd_colors.shepherd) &&
               !on_shepherd_marks(&p, sim, x + 0.5, y + 0.5, body_px);
  CHECK_MSG(stray == 0, "%ld shepherd-coloured pixels off the shepherds, their rings and lines", stray);
  free(p.rgba);
  herd_sim_destroy(sim);
}

/* 30 sheep spread over the field, no dog, groups observed with a view radius of 10 m (not the
 * model's default, which may change): many groups, some of one sheep. */
#define SPREAD_GROUPS                                                                                \
  "sheep.count=30", "sheep.neighbours=10", "sheep.spawn.from=[0.1,0.1]", "sheep.spawn.to=[0.9,0.9]", \
      "groups.observe=always", "groups.view_radius_m=10", "groups.member_radius_m=2", "dogs.count=0"

/* Each agent (by herd_sim_map_state's positions) drawn in its group's colour from
 * herd_sim_map_groups, the tracked groups' colours all seen and no state colour; with the groups
 * hidden, no group colour and the states' colours back. */
static void agents_take_their_groups_colour(void) {
  const char *sets[] = {SPREAD_GROUPS};
  herd_scenario sc = scenario_with(sets, (int)(sizeof sets / sizeof *sets));
  herd_sim *sim = start_sim(&sc, 1);
  picture on = render_sim_with(sim, (render_opts){.selected = -1});
  picture off = render_sim_with(sim, (render_opts){.no_groups = true, .selected = -1});
  const herd_observation *o = herd_sim_observation(sim);
  const float *pos, *vel;
  const uint32_t *agent, *group;
  herd_error err;
  CHECK(herd_sim_map_state(sim, &pos, &vel, &agent, &err) == HERD_OK);
  CHECK(herd_sim_map_groups(sim, &group, &err) == HERD_OK);
  CHECK_MSG(group && o->groups_tracked >= 2, "groups %p, %u tracked", (const void *)group, o->groups_tracked);
  if (!group) return;
  int reach = (int)(0.5 * herd_model_body_m(sc.model) / on.cam.metres_per_px) + 1;
  long right = 0, shown = 0, hidden = 0;
  for (uint32_t i = 0; i < sc.flock.count; ++i)
    right += near(&on, pos[2 * i], pos[2 * i + 1], 0, reach, herd_group_color(group[i])) > 0;
  for (uint32_t g = 0; g < HERD_GROUP_COLORS; ++g) {
    long n = count_color(&on, herd_group_color(g));
    CHECK_MSG(n > 0 || g >= o->groups_tracked, "group %u's colour not seen", g);
    shown += n, hidden += count_color(&off, herd_group_color(g));
  }
  printf("  %u groups, %u tracked: %ld of %u agents in their group's colour\n", o->group_count, o->groups_tracked,
         right, sc.flock.count);
  CHECK_MSG(right >= 0.9 * sc.flock.count, "%ld of %u agents in their group's colour", right, sc.flock.count);
  CHECK_MSG(count_sheep_pixels(&on) == 0, "%ld pixels in the states' colours", count_sheep_pixels(&on));
  CHECK(o->group_count == o->groups_tracked || count_color(&on, herd_colors.untracked) > 0);
  CHECK_MSG(hidden == 0 && count_sheep_pixels(&off) > 0, "groups hidden: %ld group-coloured pixels", hidden);
  free(on.rgba);
  free(off.rgba);
  herd_sim_destroy(sim);
}

/* On OpenCL (PoCL: no sharing, so the copy path) the groups are the CPU backend's, so is the
 * picture. */
static void opencl_copy_path_draws_the_same_groups(void) {
  if (!have_opencl()) {
    printf("  no OpenCL device: groups on the copy path not exercised\n");
    return;
  }
  const char *sets[] = {SPREAD_GROUPS};
  herd_scenario sc = scenario_with(sets, (int)(sizeof sets / sizeof *sets));
  picture a = render_scenario(&sc, "cpu", 5, NULL), b = render_scenario(&sc, "opencl", 5, NULL);
  CHECK(memcmp(a.rgba, b.rgba, (size_t)W * H * 4) == 0);
  CHECK(count_color(&b, herd_group_color(0)) > 0 && count_color(&b, herd_group_color(1)) > 0);
  free(a.rgba);
  free(b.rgba);
}

/* Drawn points of the level circle of radius r about c in rgb (within a pixel) among `n` points
 * at angles 2 pi (k + phase) / n. */
static int points_on_circle(const picture *p, const double *c, double r, int n, double phase, const uint8_t rgb[3]) {
  int drawn = 0;
  for (int k = 0; k < n; ++k) {
    double a = 6.283185307 * (k + phase) / n;
    drawn += near(p, (float)(c[0] + r * cos(a)), (float)(c[1] + r * sin(a)), 0, 1, rgb) > 0;
  }
  return drawn;
}

/* Each tracked group's enclosing circle solid and its compact area dashed (every other of 96
 * segments: their middles drawn, on a circle large enough the gaps' middles not), in its colour. */
static void groups_circles_are_drawn(void) {
  /* R_f 8 m: a compact area of one sheep is 11 m across, its dashes and gaps several pixels. */
  const char *sets[] = {SPREAD_GROUPS, "sheep.count=60", "groups.member_radius_m=8"};
  herd_scenario sc = scenario_with(sets, (int)(sizeof sets / sizeof *sets));
  herd_sim *sim = start_sim(&sc, 1);
  picture p = render_sim_with(sim, (render_opts){.selected = -1});
  const herd_observation *o = herd_sim_observation(sim);
  CHECK(o->groups_tracked >= 2);
  int circles = 0, dashed = 0;
  for (uint32_t g = 0; g < o->groups_tracked && g < HERD_GROUP_COLORS; ++g) {
    const herd_group *grp = &o->group[g];
    const uint8_t *rgb = herd_group_color(g);
    double px = p.cam.metres_per_px, c[2] = {grp->centroid[0], grp->centroid[1]};
    if (grp->radius_m / px >= 10) {
      int drawn = points_on_circle(&p, c, grp->radius_m, 24, 0.5, rgb);
      CHECK_MSG(drawn >= 18, "group %u: %d of 24 points of its %.1f m circle", g, drawn, grp->radius_m);
      ++circles;
    }
    if (grp->compact_radius_m / px < 10) continue;
    int dashes = points_on_circle(&p, c, grp->compact_radius_m, 48, 0.25, rgb);
    CHECK_MSG(dashes >= 36, "group %u: %d of 48 dashes of its %.1f m compact area", g, dashes, grp->compact_radius_m);
    if (2 * 3.14159 * grp->compact_radius_m / px / 96 >= 6) {
      int gaps = points_on_circle(&p, c, grp->compact_radius_m, 48, 0.75, rgb);
      CHECK_MSG(gaps <= 12, "group %u: the compact area is not dashed (%d of 48 gaps drawn)", g, gaps);
      ++dashed;
    }
    ++circles;
  }
  printf("  %u groups tracked: %d circles checked, %d of them for gaps\n", o->groups_tracked, circles, dashed);
  CHECK(circles >= 2 && dashed >= 1);
  free(p.rgba);
  herd_sim_destroy(sim);
}

/* ---- 3D --------------------------------------------------------------------------------------- */

/* In 3D a surface shows its palette colour scaled by its lighting, HERD_AMBIENT to 1: the
 * factor by which px is rgb so scaled, or 0 when it is not. */
static double shade_of(const uint8_t *px, const uint8_t rgb[3]) {
  int top = rgb[1] > rgb[0] ? 1 : 0;
  top = rgb[2] > rgb[top] ? 2 : top;
  double k = px[top] / (double)rgb[top];
  if (k < HERD_AMBIENT - 0.02 || k > 1.0) return 0;
  for (int c = 0; c < 3; ++c)
    if (fabs(px[c] - k * rgb[c]) > 2.5) return 0;
  return k;
}

static bool is_shade_of(const uint8_t *px, const uint8_t rgb[3]) { return shade_of(px, rgb) > 0; }

static bool is_agent_3d(const uint8_t *px) {
  return is_shade_of(px, herd_colors.grazing) || is_shade_of(px, herd_colors.moved) ||
         is_shade_of(px, herd_colors.delivered) || is_shade_of(px, herd_colors.alert);
}

static long count_3d(const picture *p, bool (*match)(const uint8_t *)) {
  long n = 0;
  for (size_t i = 0; i < (size_t)W * H; ++i) n += match(p->rgba + 4 * i);
  return n;
}

static bool is_field(const uint8_t *px) { return is(px, herd_colors.field); }
static bool is_steering_3d(const uint8_t *px) { return is_shade_of(px, herd_colors.dog); }

/* A small 3D boids world, so that agents are many pixels each. */
#define BOIDS_3D "model=boids", "world.size_m=[160,120,120]"
static const float box_3d[3] = {160, 120, 120};

/* The pixel rectangle the 3D world box projects into. */
static void box_on_screen(const herd_camera *cam, double lo[2], double hi[2]) {
  lo[0] = lo[1] = 1e9, hi[0] = hi[1] = -1e9;
  for (int corner = 0; corner < 8; ++corner) {
    float p[3];
    for (int k = 0; k < 3; ++k) p[k] = (corner >> k) & 1 ? box_3d[k] : 0.0f;
    double at[2];
    CHECK(herd_camera_to_pixel(cam, p, W, H, at));
    for (int k = 0; k < 2; ++k) lo[k] = fmin(lo[k], at[k]), hi[k] = fmax(hi[k], at[k]);
  }
}

static void flock_3d_is_lit_agents_in_the_box(void) {
  const char *small[] = {BOIDS_3D, "boids.count=100"}, *large[] = {BOIDS_3D, "boids.count=300"};
  picture a = render(small, 3, "cpu", 0), b = render(large, 3, "cpu", 0);
  CHECK(a.cam.orbit && a.cam.yaw_deg == HERD_CAMERA_YAW_DEG && a.cam.pitch_deg == HERD_CAMERA_PITCH_DEG);
  long na = count_3d(&a, is_agent_3d), nb = count_3d(&b, is_agent_3d);
  printf("  3D: %ld agent pixels for 100 boids, %ld for 300, %ld box pixels\n", na, nb, count_3d(&a, is_field));
  CHECK_MSG(na > 100 * 20, "100 boids: only %ld agent pixels", na);
  CHECK_MSG(fabs(nb / (3.0 * na) - 1) <= 0.25, "300 boids: %ld agent pixels, 100 boids: %ld", nb, na);
  CHECK_MSG(count_3d(&a, is_field) > 2 * (W + H), "the wireframe box is missing");
  /* Lit: the cones' sides turn from the light, so many of their pixels are darker. At step 0
   * no boid has moved yet: all are still. */
  long shaded = 0;
  for (size_t i = 0; i < (size_t)W * H; ++i) {
    double k = shade_of(a.rgba + 4 * i, herd_colors.grazing);
    shaded += k > 0 && k < 0.9;
  }
  CHECK_MSG(shaded > na / 5 && shaded < na, "%ld of %ld agent pixels are in shade", shaded, na);
  /* Everything is background, box, or an agent's colour in some light; outside the box's
   * projection (where the flock starts) only background. */
  double lo[2], hi[2];
  box_on_screen(&a.cam, lo, hi);
  long stray = 0, outside = 0;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const uint8_t *px = a.rgba + 4 * ((size_t)y * W + x);
      bool background = is(px, herd_colors.background);
      stray += !background && !is_field(px) && !is_agent_3d(px);
      bool beyond = x < lo[0] - 1 || x > hi[0] + 1 || y < lo[1] - 1 || y > hi[1] + 1;
      outside += beyond && !background;
    }
  CHECK_MSG(stray == 0, "%ld pixels in no colour of the palette", stray);
  CHECK_MSG(outside == 0, "%ld pixels drawn outside the box's projection", outside);
  free(a.rgba);
  free(b.rgba);
}

/* The camera of the 3D tests: the default angles, fitted to the small world box. */
static herd_camera camera_3d(void) {
  return herd_camera_fit_orbit((const float[3]){0, 0, 0}, box_3d, HERD_CAMERA_YAW_DEG, HERD_CAMERA_PITCH_DEG, W, H);
}

/* The point `along` metres from the camera's target toward its eye (negative: beyond it). */
static void on_view_axis(const herd_camera *cam, float along, float out[3]) {
  float yaw = cam->yaw_deg * 3.14159265f / 180, pitch = cam->pitch_deg * 3.14159265f / 180;
  float back[3] = {cosf(pitch) * cosf(yaw), cosf(pitch) * sinf(yaw), sinf(pitch)};
  for (int k = 0; k < 3; ++k) out[k] = cam->target[k] + along * back[k];
}

/* --set values that start one boid exactly at p (spawn fractions of the world box). */
static void one_boid_at(const float p[3], char *spawn_from, char *spawn_to, size_t size) {
  snprintf(spawn_from, size, "boids.spawn.from=[%.6f,%.6f,%.6f]", p[0] / box_3d[0], p[1] / box_3d[1], p[2] / box_3d[2]);
  snprintf(spawn_to, size, "boids.spawn.to=[%.6f,%.6f,%.6f]", p[0] / box_3d[0], p[1] / box_3d[1], p[2] / box_3d[2]);
}

/* One boid on the view axis a third of the distance before the target, then one as far
 * beyond it: the same body seen at depths d/3*2 and d/3*4, so the near one covers about
 * (4/2)^2 = 4 times the pixels. (Same seed, same id: the same velocity, seen the same way.) */
static void nearer_agents_are_drawn_larger(void) {
  herd_camera cam = camera_3d();
  long area[2];
  for (int far = 0; far < 2; ++far) {
    float p[3];
    on_view_axis(&cam, (far ? -1.0f : 1.0f) * cam.distance_m / 3, p);
    char from[96], to[96];
    one_boid_at(p, from, to, sizeof from);
    const char *sets[] = {BOIDS_3D, "boids.count=1", from, to};
    picture pic = render_through(sets, 5, "cpu", 0, &cam);
    area[far] = count_3d(&pic, is_agent_3d);
    free(pic.rgba);
  }
  double ratio = area[0] / (double)(area[1] ? area[1] : 1);
  printf("  one boid near: %ld pixels, far: %ld pixels (ratio %.2f, perspective says 4)\n", area[0], area[1], ratio);
  CHECK_MSG(area[1] >= 20, "the far boid covers only %ld pixels", area[1]);
  CHECK_MSG(ratio >= 3.0 && ratio <= 5.0, "near/far pixel ratio %.2f, expected about 4", ratio);
}

/* A boid on the view axis in front of a (larger, red) steering agent behind it: with the
 * depth buffer the boid is seen where both project, although the steering agent is drawn
 * after the flock. */
static void the_nearer_agent_hides_the_farther(void) {
  herd_camera cam = camera_3d();
  float near[3], far[3];
  on_view_axis(&cam, cam.distance_m / 3, near);
  on_view_axis(&cam, -cam.distance_m / 3, far);
  char from[96], to[96], at[128];
  one_boid_at(near, from, to, sizeof from);
  snprintf(at, sizeof at, "agents[0].position_m=[%.4f,%.4f,%.4f]", far[0], far[1], far[2]);
  const char *sets[] = {BOIDS_3D, "boids.count=1", from, to, "agents[0].strategy=cruiser", at};
  picture pic = render_through(sets, 7, "cpu", 0, &cam);
  double px[2];
  CHECK(herd_camera_to_pixel(&cam, near, W, H, px));
  const uint8_t *middle = pic.rgba + 4 * ((size_t)px[1] * W + (size_t)px[0]);
  CHECK_MSG(is_agent_3d(middle), "pixel (%.0f, %.0f) is %u %u %u, not the near boid", px[0], px[1], middle[0],
            middle[1], middle[2]);
  CHECK_MSG(count_3d(&pic, is_steering_3d) > 20, "the steering agent behind is not seen round the boid");
  free(pic.rgba);
}

static void the_picture_changes_as_the_camera_orbits(void) {
  const char *sets[] = {BOIDS_3D, "boids.count=200"};
  herd_camera cam = camera_3d(), turned = cam;
  herd_camera_drag(&turned, 240, -80); /* 60 degrees round, 20 down */
  CHECK(fabsf(turned.yaw_deg - (cam.yaw_deg - 60)) < 1e-3f && fabsf(turned.pitch_deg - (cam.pitch_deg - 20)) < 1e-3f);
  picture a = render_through(sets, 3, "cpu", 0, &cam), b = render_through(sets, 3, "cpu", 0, &turned);
  size_t differ = 0;
  for (size_t i = 0; i < (size_t)W * H * 4; ++i) differ += a.rgba[i] != b.rgba[i];
  CHECK_MSG(differ > 10000, "only %zu bytes differ after orbiting", differ);
  CHECK(count_3d(&b, is_agent_3d) > 200 * 20);
  /* The box's corner at the origin moves on the screen as the eye goes round. */
  double before[2], after[2];
  CHECK(herd_camera_to_pixel(&cam, (const float[3]){0, 0, 0}, W, H, before));
  CHECK(herd_camera_to_pixel(&turned, (const float[3]){0, 0, 0}, W, H, after));
  CHECK(hypot(after[0] - before[0], after[1] - before[1]) > 100);
  free(a.rgba);
  free(b.rgba);
}

static void steering_agent_3d_is_drawn_where_projected(void) {
  const float at[3] = {30, 100, 95};
  const char *sets[] = {BOIDS_3D, "boids.count=100", "agents[0].strategy=cruiser", "agents[0].position_m=[30,100,95]",
                        "agents[0].direction=[1,0,0]"};
  picture p = render(sets, 5, "cpu", 0);
  double centre[2], reach = 0;
  CHECK(herd_camera_to_pixel(&p.cam, at, W, H, centre));
  /* The body lies within a body length of its position: as far as that length projects. */
  double body_m = HERD_STEERING_BODY_SCALE * herd_model_body_m(scenario_with(sets, 5).model);
  for (int k = 0; k < 3; ++k) {
    float end[3] = {at[0], at[1], at[2]};
    end[k] += (float)body_m;
    double px[2];
    CHECK(herd_camera_to_pixel(&p.cam, end, W, H, px));
    reach = fmax(reach, hypot(px[0] - centre[0], px[1] - centre[1]));
  }
  long near = 0, far = 0;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      if (!is_steering_3d(p.rgba + 4 * ((size_t)y * W + x))) continue;
      hypot(x - centre[0], y - centre[1]) <= reach + 2 ? ++near : ++far;
    }
  printf("  3D steering agent: %ld red pixels within %.0f of (%.0f, %.0f)\n", near, reach, centre[0], centre[1]);
  CHECK_MSG(near >= 0.1 * reach * reach, "%ld red pixels near (%.0f, %.0f)", near, centre[0], centre[1]);
  CHECK_MSG(far == 0, "%ld red pixels away from the steering agent", far);
  free(p.rgba);
}

/* In 3D the OpenCL backend hands over float4 positions and velocities: the start it draws is
 * the native backend's. */
static void opencl_copy_path_3d_reads_float4(void) {
  herd_device_info info[4];
  int count;
  herd_error err;
  if (herd_devices(info, 4, &count, &err) != HERD_OK) {
    printf("  no OpenCL device: 3D copy path not exercised\n");
    return;
  }
  const char *sets[] = {BOIDS_3D, "boids.count=200"};
  picture a = render(sets, 3, "cpu", 0), b = render(sets, 3, "opencl", 0);
  CHECK(memcmp(a.rgba, b.rgba, (size_t)W * H * 4) == 0);
  CHECK(count_3d(&b, is_agent_3d) > 200 * 20);
  free(a.rgba);
  free(b.rgba);
}

/* Groups in 3D: the boids lit in their groups' colours (each pixel of an agent a shade of a
 * group colour or the untracked grey), several groups seen, no state colour. */
static void groups_3d_colour_the_agents(void) {
  const char *sets[] = {BOIDS_3D, "boids.count=200", "groups.observe=always", "groups.view_radius_m=15"};
  herd_scenario sc = scenario_with(sets, 5);
  herd_sim *sim = start_sim(&sc, 1);
  const herd_observation *o = herd_sim_observation(sim);
  herd_camera cam = camera_3d();
  picture p = render_scenario(&sc, "cpu", 1, &cam);
  long grouped = 0, seen = 0;
  for (uint32_t g = 0; g <= HERD_GROUP_COLORS; ++g) {
    const uint8_t *rgb = herd_group_color(g == HERD_GROUP_COLORS ? HERD_GROUP_UNTRACKED : g);
    long n = 0;
    for (size_t i = 0; i < (size_t)W * H; ++i) n += is_shade_of(p.rgba + 4 * i, rgb);
    grouped += n, seen += n > 0 && g < HERD_GROUP_COLORS;
  }
  printf("  3D: %u groups, %u tracked: %ld pixels in group colours, %ld colours seen\n", o->group_count,
         o->groups_tracked, grouped, seen);
  CHECK_MSG(o->groups_tracked >= 2 && seen >= 2, "%u groups tracked, %ld colours seen", o->groups_tracked, seen);
  CHECK_MSG(grouped > 200 * 20, "only %ld pixels in group colours", grouped);
  CHECK_MSG(count_3d(&p, is_agent_3d) == 0, "%ld pixels in the states' colours", count_3d(&p, is_agent_3d));
  free(p.rgba);
  herd_sim_destroy(sim);
}

/* A 3D world with water, a bridge, a wall and a pen: each a vertical prism, its floor filled
 * (unlit, so in its exact colour) and its top and vertical edges drawn; the pen open at its
 * gate, whose posts stand in the target's colour. */
static void geometry_3d_is_drawn_as_prisms(void) {
  const float boid[3] = {130, 40, 60};
  char from[96], to[96];
  one_boid_at(boid, from, to, sizeof from);
  const char *sets[] = {BOIDS_3D,
                        "boids.count=1",
                        from,
                        to,
                        "obstacles.water=[{\"points_m\": [[20, 20], [70, 20], [70, 100], [20, 100]]}]",
                        "obstacles.bridges=[{\"points_m\": [[10, 60], [80, 60]], \"width_m\": 10, \"water\": 0}]",
                        "obstacles.walls=[{\"points_m\": [[100, 20], [140, 20]], \"thickness_m\": 4}]",
                        "obstacles.pens=[{\"points_m\": [[100, 60], [150, 60], [150, 110], [100, 110]], \"gate_m\": "
                        "[[150, 70], [150, 100]], \"fence_m\": 2}]"};
  herd_scenario sc = scenario_with(sets, 9);
  herd_camera cam = camera_3d();
  picture p = render_scenario(&sc, "cpu", 0, &cam);
  const float top = box_3d[2], half = box_3d[2] / 2;
  CHECK(shows(&p, 30, 40, 0, herd_colors.water, "the water's floor"));
  CHECK(shows(&p, 45, 60, 0, herd_colors.bridge, "the bridge's floor"));
  CHECK(shows(&p, 120, 20, 0, herd_colors.obstacle, "the wall's floor"));
  CHECK_MSG(near(&p, 20, 20, half, 2, herd_colors.water) > 0, "no vertical edge at the water's corner");
  CHECK_MSG(near(&p, 45, 20, top, 2, herd_colors.water) > 0, "no top edge over the water");
  CHECK_MSG(near(&p, 45, 55, top, 2, herd_colors.bridge) > 0, "no top edge over the bridge");
  CHECK_MSG(near(&p, 100, 22, half, 2, herd_colors.obstacle) > 0, "no vertical edge at the wall's corner");
  CHECK_MSG(near(&p, 120, 22, top, 2, herd_colors.obstacle) > 0, "no top edge over the wall");
  CHECK_MSG(near(&p, 150, 70, half, 2, herd_colors.target) > 0 && near(&p, 150, 100, half, 2, herd_colors.target) > 0,
            "the gate's posts are missing");
  CHECK_MSG(near(&p, 100, 60, half, 2, herd_colors.obstacle) > 0, "no vertical edge at the pen's corner");
  /* The gate's middle, on the floor and at the top: no fence. */
  CHECK_MSG(near(&p, 150, 85, 0, 2, herd_colors.obstacle) == 0, "the fence's floor runs across the gate");
  CHECK_MSG(near(&p, 150, 85, top, 2, herd_colors.obstacle) == 0, "the fence's top runs across the gate");
  free(p.rgba);
}

static int test_run_list(void) { TEST_MAIN(TESTS); }

int main(void) { return gl_test_main(&window, &renderer, test_run_list); }
