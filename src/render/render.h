/* Drawing a herd_sim with OpenGL 3.3 core: a GLFW window (visible, or hidden for offscreen
 * work), a renderer that draws the flock instanced from its buffers, a 2D or 3D camera, the HUD,
 * PNG output, and the decision whether the OpenCL device may share buffers with GL.
 * Uses only the public API of the simulation (herd.h). */
#ifndef HERD_RENDER_RENDER_H
#define HERD_RENDER_RENDER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "layer.h"

#include "herd/herd_view.h"

/* ---- Window and context -------------------------------------------------------------- */

typedef struct herd_window herd_window;

typedef struct herd_window_desc {
  int width, height; /* 0 = 1280 x 800 */
  bool hidden;       /* offscreen work: screenshots, recording */
  const char *title;
} herd_window_desc;

/* Opens a window with a current GL 3.3 core context. Fails with a message that says why: no
 * display, a GL below 3.3 (naming what was found), GLEW failing. */
herd_status herd_window_open(const herd_window_desc *desc, herd_window **out, herd_error *err);
void herd_window_close(herd_window *w);
struct GLFWwindow *herd_window_glfw(herd_window *w);

/* The GLX context and X display of the current context, for OpenCL sharing. */
herd_gl_share herd_window_share_handles(herd_window *w);

/* True when a display can be opened; otherwise `why` says what is missing. */
bool herd_display_available(char *why, size_t why_size);

/* ---- Buffer sharing ------------------------------------------------------------------- */

/* Whether to share the flock's buffers between OpenCL and GL, decided from the device's
 * extension string alone (PoCL ends the process inside clCreateFromGLBuffer, so nothing
 * else may be tried). `why` gets the reason in a few words. */
bool herd_share_decide(const char *backend, const char *device_extensions, bool no_share, char *why, size_t why_size);

/* True when `list` (space-separated names) holds exactly the name `ext`. */
bool herd_has_extension(const char *list, const char *ext);

/* ---- Camera -------------------------------------------------------------------------- */

/* A 2D world is seen from above through an orthographic camera (a centre and a zoom); a 3D
 * world through a perspective camera orbiting a look-at point, world z up. Pixels count from
 * the top-left corner. */
typedef struct herd_camera {
  float center[2];     /* 2D: world metres at the middle of the view */
  float metres_per_px; /* 2D: zoom */
  bool orbit;          /* true: the 3D orbit camera below; false: the 2D camera above */
  float target[3];     /* 3D: the look-at point, world metres */
  float yaw_deg;       /* 3D: the eye's bearing about the target, counter-clockwise from +x */
  float pitch_deg;     /* 3D: the eye's height above the target's horizontal plane, -89 to 89 */
  float distance_m;    /* 3D: from the target to the eye */
} herd_camera;

/* The 3D camera's vertical field of view, and the orbit angles a 3D picture starts from
 * (screenshots and recordings use them always, so a picture depends only on the sim): the
 * eye 60 degrees round from the -y side toward +x, 25 degrees up. */
#define HERD_CAMERA_FOV_Y_DEG 40.0f
#define HERD_CAMERA_YAW_DEG (-60.0f)
#define HERD_CAMERA_PITCH_DEG 25.0f

/* The 2D camera that shows the rectangle [lo, hi] whole in a w x h view, with a margin. */
herd_camera herd_camera_fit(const float lo[2], const float hi[2], int w, int h);

/* The 3D camera at these orbit angles that looks at the middle of the box [lo, hi] from
 * just far enough to show all of it in a w x h view, with a margin. */
herd_camera herd_camera_fit_orbit(const float lo[3], const float hi[3], float yaw_deg, float pitch_deg, int w, int h);

/* The view to start from: the world box, the target's goal circle, the flock and the steering
 * agents; in 3D from the default orbit angles. */
herd_camera herd_camera_for_sim(const herd_sim *sim, int w, int h);

/* F: 2D: fits the view to the flock's extent; 3D: to the flock's extent and the world box,
 * from the camera's present orbit angles. */
void herd_camera_fit_flock(herd_camera *c, const herd_sim *sim, int w, int h);

/* The wheel: zooms by `factor` (< 1 zooms in); 2D keeps the world point under pixel (px, py)
 * where it is, 3D moves the eye toward or away from the look-at point. */
void herd_camera_zoom_at(herd_camera *c, double px, double py, int w, int h, float factor);

/* Dragging the mouse by (dx, dy) pixels: 2D pans, 3D orbits (yaw and pitch about the target). */
void herd_camera_drag(herd_camera *c, double dx_px, double dy_px);

/* World metres to clip space, as the renderer draws (column-major 4 x 4). */
void herd_camera_matrix(const herd_camera *c, int w, int h, float out[16]);

/* Where world point `world` (x, y, z; z is ignored in 2D) is drawn, in pixels from the top
 * left, through herd_camera_matrix. False when it lies behind the 3D eye. */
bool herd_camera_to_pixel(const herd_camera *c, const float world[3], int w, int h, double out[2]);

/* The world point under pixel (px, py): 2D on the plane, 3D on the plane through the target
 * that faces the eye (where the manual steering agent is sent). */
void herd_camera_to_world(const herd_camera *c, double px, double py, int w, int h, float out[3]);

/* ---- Renderer ------------------------------------------------------------------------- */

typedef struct herd_renderer herd_renderer;

/* Creates the GL objects for a flock of `count` agents in `dims` dimensions (needs a current
 * GL context). */
herd_status herd_renderer_create(uint32_t count, uint32_t dims, herd_renderer **out, herd_error *err);
void herd_renderer_destroy(herd_renderer *r);

/* The renderer's agent buffers, for herd_sim_desc.gl_share. */
herd_gl_share herd_renderer_share(herd_renderer *r, herd_window *w);

/* Brings the flock into the agent buffers: a copy unless the sim shares them; and, while
 * groups are shown, each agent's group (a copy either way). */
herd_status herd_renderer_update(herd_renderer *r, herd_sim *sim, herd_error *err);

/* Draws the world box, the target, the obstacles (rocks, walls, fences, water, bridges), the
 * flock, the steering agents and `hud` text into the bound framebuffer (which needs a depth
 * buffer in 3D), through `cam`: a 2D camera for a 2D world, an orbit camera for a 3D one.
 * Where the scenario has walls, water or pens: each dog's aim point (a ring in the dog's
 * colour, with a line from the dog; none while it waits), the flock's waypoint (a diamond in
 * the `waypoint` colour, with a line from the flock's centre G: herd_sim_flock_waypoint, where
 * the dogs drive it), and, when
 * herd_renderer_show_route is on, the routing field as arrows. Lien's shepherds in the
 * `shepherd` colour, each with its steering point (a ring) and a line to it from the shepherd:
 * its assignment (none while it has no aim or is steered by hand). The groups and the selected
 * steering agent as herd_renderer_show_groups and herd_renderer_select say. */
void herd_renderer_draw(herd_renderer *r, const herd_sim *sim, const herd_camera *cam, int w, int h, const char *hud);

/* The aim's ring and the waypoint's diamond: their radius in pixels in a 2D picture. */
#define HERD_ROUTE_MARK_PX 6.0f

/* The routing field as arrows in the `route` colour (default off): from each point p of a
 * lattice over the world, ((i + 1/2) s, (j + 1/2) s) with s = max(HERD_ROUTE_SPACING_M, the
 * world's longer side / HERD_ROUTE_ARROWS_MAX), an arrow 0.5 s long toward
 * herd_sim_route_waypoint(sim, p, HERD_ROUTE_AHEAD_M); none where that is false, where the
 * waypoint lies within HERD_ROUTE_HOME_M of p (home: the goal), or where the arrow would touch
 * a wall, fence or water. Computed once per sim and scenario, drawn when on. */
#define HERD_ROUTE_SPACING_M 6.0f
#define HERD_ROUTE_ARROWS_MAX 40
#define HERD_ROUTE_AHEAD_M 3.0f
#define HERD_ROUTE_HOME_M 0.5f
void herd_renderer_show_route(herd_renderer *r, bool on);
bool herd_renderer_route_shown(const herd_renderer *r);

/* The flock's groups (default on; only where the sim observes groups: herd_sim_map_groups is
 * not NULL): each agent in its group's colour (herd_group_color) instead of its state's, and
 * for each tracked group its enclosing circle (radius_m, solid) and its compact area
 * (compact_radius_m, dashed) about its centroid, in the group's colour (in 3D level at the
 * centroid's height). Each frame herd_renderer_update copies the per-agent group array into a
 * GL buffer of its own, on the shared path too (4 bytes per agent). */
void herd_renderer_show_groups(herd_renderer *r, bool on);
bool herd_renderer_groups_shown(const herd_renderer *r);

/* Steering agent `index` (-1: none) is ringed in the `selected` colour: the one the viewer's
 * keys act on. */
void herd_renderer_select(herd_renderer *r, int index);

/* Renders one frame into the renderer's offscreen w x h framebuffer and leaves it bound
 * (for herd_recorder_capture). */
herd_status herd_renderer_render_offscreen(herd_renderer *r, const herd_sim *sim, const herd_camera *cam, int w, int h,
                                           const char *hud, herd_error *err);

/* Renders one frame into an offscreen w x h framebuffer and reads it back as RGBA, top row
 * first, into `rgba` (w * h * 4 bytes). */
herd_status herd_renderer_snapshot(herd_renderer *r, const herd_sim *sim, const herd_camera *cam, int w, int h,
                                   const char *hud, uint8_t *rgba, herd_error *err);

/* The colours the renderer uses, so tests and docs can find things in a picture. */
typedef struct herd_palette {
  uint8_t background[3], field[3], target[3], grazing[3], moved[3], delivered[3], dog[3], alert[3], hud[3];
  uint8_t obstacle[3], path[3], food[3];
  uint8_t water[3], bridge[3]; /* water polygons (filled); the passable strips of bridges over them */
  uint8_t waypoint[3];         /* the flock's next waypoint on the route home, and the line to it */
  uint8_t route[3];            /* the routing field's arrows (dim) */
  uint8_t shepherd[3];         /* Lien's shepherds, their steering points and the lines to them */
  uint8_t selected[3];         /* the ring round the selected steering agent */
  uint8_t untracked[3];        /* a flock agent in no tracked group, while groups are shown */
} herd_palette;
extern const herd_palette herd_colors;

/* Group g's colour: one of HERD_GROUP_COLORS fixed colours, cycled (g mod HERD_GROUP_COLORS),
 * none of them another colour of the palette; `untracked` for HERD_GROUP_UNTRACKED. */
#define HERD_GROUP_COLORS 16
const uint8_t *herd_group_color(uint32_t group);

/* A steering agent is drawn this many times as long as a flock agent (herd_model_body_m). */
#define HERD_STEERING_BODY_SCALE 2.5f

/* In 3D agents are cones lit by one directional light fixed in the world: a surface shows its
 * palette colour times HERD_AMBIENT + (1 - HERD_AMBIENT) max(0, normal . light), so its
 * pixels are that colour scaled by a factor from HERD_AMBIENT to 1. */
#define HERD_AMBIENT 0.4f

/* ---- Live plot ------------------------------------------------------------------------- */

/* The flock's polarisation, milling and delivered fraction (each 0 to 1) over the last
 * HERD_PLOT_STEPS steps, drawn as lines in a box at the bottom right of the frame (newest at
 * the right edge once full), labelled, when handed to herd_renderer_set_plot. */
#define HERD_PLOT_STEPS 300
#define HERD_PLOT_SERIES 3
typedef struct herd_plot herd_plot;
extern const uint8_t herd_plot_colors[HERD_PLOT_SERIES][3]; /* polarisation, milling, delivered */
extern const uint8_t herd_plot_frame[3];                    /* the box's outline and its labels */

herd_plot *herd_plot_create(void); /* NULL when out of memory */
void herd_plot_destroy(herd_plot *p);
void herd_plot_clear(herd_plot *p);
/* One step's values; the oldest goes once HERD_PLOT_STEPS are held. */
void herd_plot_add(herd_plot *p, const float values[HERD_PLOT_SERIES]);
/* The sim's last observation, once per step index (a lower index, a restart, clears first). */
void herd_plot_observe(herd_plot *p, const herd_sim *sim);
/* The values herd_plot_observe adds for the sim's last observation. */
void herd_plot_values(const herd_sim *sim, float out[HERD_PLOT_SERIES]);
uint32_t herd_plot_count(const herd_plot *p);
/* The box in a w x h frame, in pixels from the top left: x0, y0, x1, y1. */
void herd_plot_box(int w, int h, float box[4]);
/* Where sample k (0: the oldest held) of value v lies: v = 0 on the box's bottom edge, 1 on
 * its top (clamped), k = 0 on its left edge, HERD_PLOT_STEPS - 1 on its right. */
void herd_plot_point(const float box[4], uint32_t k, float value, float out[2]);
/* Draws it into the bound framebuffer (the renderer calls this; needs a current context). */
void herd_plot_draw(herd_plot *p, int w, int h);
/* Drawn by herd_renderer_draw over the scene, under the HUD text; NULL: none. */
void herd_renderer_set_plot(herd_renderer *r, herd_plot *plot);
/* A shader program from a vertex shader's source and the renderer's colour.frag. */
herd_status herd_render_link(const char *vert, const char *vert_name, unsigned *out, herd_error *err);

/* ---- Video ------------------------------------------------------------------------------ */

typedef struct herd_recorder herd_recorder;

typedef struct herd_recorder_desc {
  const char *path; /* .mp4 (H.264, yuv420p), .webm (VP9) or .gif (generated palette) */
  int width, height;
  int fps;    /* frames per second of the video; 0 = 30 */
  bool force; /* replace an existing file */
} herd_recorder_desc;

/* Everything that can be checked before anything starts: the container, ffmpeg and its
 * encoder, the output folder, an existing file. Creates nothing. */
herd_status herd_recorder_check(const herd_recorder_desc *desc, herd_error *err);

/* Starts ffmpeg reading raw frames from a pipe (needs a current GL context). */
herd_status herd_recorder_open(const herd_recorder_desc *desc, herd_recorder **out, herd_error *err);

/* Queues the bound read framebuffer's lower-left width x height pixels as the next frame.
 * Reads back asynchronously through a ring of pixel buffer objects: the frame reaches ffmpeg
 * a few captures later, or at close. */
herd_status herd_recorder_capture(herd_recorder *rec, herd_error *err);

/* Writes the frames in flight, closes ffmpeg's input and waits for it to finish the file.
 * Frees the recorder whatever happens; *frames gets the frames written. */
herd_status herd_recorder_close(herd_recorder *rec, uint32_t *frames, herd_error *err);

/* ---- PNG ------------------------------------------------------------------------------ */

/* Writes RGBA pixels (top row first) as a PNG; never replaces a file unless `force`, and
 * never touches it when writing fails. `option` names the file in messages ("--screenshot"). */
herd_status herd_write_png(const char *option, const char *path, const uint8_t *rgba, int w, int h, bool force,
                           herd_error *err);

/* ---- Overlays, scale bar, camera option (src/render/overlays.c) -------- */

/* What the overlays mark, each a bit of herd_renderer_set_overlays's mask and a name of
 * --overlays: each dog's aim point (a ring and a line from the dog) and mode (its name by the
 * dog), the flock's centroid G (a cross), the cohesion circle about G and the reaction
 * circle about each steering agent (their radii from the model table: herd_sim_model_marks)
 * and the agent farthest from G (a square). */
enum {
  HERD_OVERLAY_AIM = 1u << 0,
  HERD_OVERLAY_CENTROID = 1u << 1,
  HERD_OVERLAY_COHESION = 1u << 2,
  HERD_OVERLAY_REACTION = 1u << 3,
  HERD_OVERLAY_FARTHEST = 1u << 4,
  HERD_OVERLAY_SCALE = 1u << 5, /* the scale bar (2D) */
  HERD_OVERLAY_COUNT = 6
};
#define HERD_OVERLAY_NAMES "aim, centroid, cohesion, reaction, farthest, scale, all, none"

/* The overlay's name ("aim", ...), for bit k. */
const char *herd_overlay_name(int k);

/* Parses --overlays: a comma-separated list of HERD_OVERLAY_NAMES into a mask. False, with
 * the offending name and what is allowed in `why`, on a bad name or an empty item. */
bool herd_overlays_parse(const char *list, uint32_t *mask, char *why, size_t why_size);

void herd_renderer_set_overlays(herd_renderer *r, uint32_t mask);
uint32_t herd_renderer_overlays(const herd_renderer *r);

/* The overlays' colours: the centroid and its cohesion circle; the reaction circles; the
 * farthest agent's square. Aims are in the dog's colour. */
extern const uint8_t herd_overlay_centroid_rgb[3], herd_overlay_reaction_rgb[3], herd_overlay_farthest_rgb[3],
    herd_scale_bar_rgb[3];

/* Click to inspect: the inspected flock agent at `at` (x, y, z) ringed in
 * herd_inspect_rgb, and its `count` neighbours (3 floats each) ringed in
 * herd_inspect_neighbour_rgb, HERD_INSPECT_RING_PX about each (2D; in 3D a small part of the
 * world). `at` NULL: none. The points are copied; drawn whatever the overlays. */
void herd_renderer_inspect(herd_renderer *r, const float *at, const float *neighbours, uint32_t count);
extern const uint8_t herd_inspect_rgb[3], herd_inspect_neighbour_rgb[3];
#define HERD_INSPECT_RING_PX 7.0f

/* The centroid's cross and the farthest agent's square: half their size in pixels (2D). */
#define HERD_OVERLAY_MARK_PX 8.0f

/* The scale bar: the largest round length (1, 2 or 5 times a power of ten metres) no longer
 * than HERD_SCALE_BAR_MAX_PX pixels at `metres_per_px`; *px gets its length in pixels. It is
 * drawn from (HERD_SCALE_BAR_MARGIN_PX, h - HERD_SCALE_BAR_MARGIN_PX) rightward, labelled
 * above. */
#define HERD_SCALE_BAR_MAX_PX 200.0f
#define HERD_SCALE_BAR_MARGIN_PX 20.0f
float herd_scale_bar_m(float metres_per_px, float *px);

/* The HUD's text size: stb_easy_font's pixels times this, from the framebuffer's height: 1
 * below 600 rows, else floor(h / 400), at least 2 (2 at 800, 3 at 1200, 4 at 1600). */
float herd_hud_scale(int h);

/* How far down the HUD's `text` reaches in a frame h rows high: its lines at herd_hud_scale(h)
 * below the margin it is drawn at (0 for no text). */
float herd_hud_height_px(const char *text, int h);

/* A 2D camera zoomed out and moved so that what `c` showed in the whole w x h view lies in the
 * rows below `top_px` (where the HUD is), centred there: the default view never under the HUD.
 * Unchanged in 3D or when the band would take more than half the view. */
herd_camera herd_camera_below(herd_camera c, int h, float top_px);

/* --camera: "x,y,width_m" (a 2D view centred on world (x, y) m, width_m metres across the
 * picture), or "fit-field" (the world's box whole, 2D or 3D from the default orbit angles).
 * False with what is wrong and what is allowed in `why`. */
typedef struct herd_camera_spec {
  bool given, fit_field;
  float x, y, width_m;
} herd_camera_spec;
bool herd_camera_spec_parse(const char *text, herd_camera_spec *out, char *why, size_t why_size);

/* The camera `spec` gives for scenario `sc` in a w x h picture; false (with why) where it
 * cannot apply (x,y,width_m in a 3D world). */
bool herd_camera_from_spec(const herd_camera_spec *spec, const herd_scenario *sc, int w, int h, herd_camera *out,
                           char *why, size_t why_size);

#endif
