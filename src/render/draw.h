/* The renderer's drawing primitives, for the drawing kept in files of its own
 * (src/render/overlays.c). Internal to src/render. */
#ifndef HERD_RENDER_DRAW_H
#define HERD_RENDER_DRAW_H
#include "layer.h"
#include "render.h"

/* Binds the shapes program with the column-major 4 x 4 `view` (world or pixel to clip). */
void herd_draw_use_shapes(herd_renderer *r, const float *view);

/* `count` points (x, y, z) drawn as GL primitive `mode` in rgb, through the bound shapes program. */
void herd_draw_shape(herd_renderer *r, const float *points, int count, unsigned mode, const uint8_t rgb[3]);

/* n points round the level circle of `radius` about c (x, y, z). */
void herd_draw_circle_points(float *out, int n, const float *c, float radius);

/* Text with its top-left corner at pixel (x, y) of a w x h frame, at herd_hud_scale(h). */
void herd_draw_text(herd_renderer *r, float x, float y, const char *text, int w, int h, const uint8_t rgb[3]);

/* 2 or 3. */
uint32_t herd_draw_dims(const herd_renderer *r);

/* Where the renderer keeps the inspector's marks (overlays.c owns them; freed with the renderer). */
struct herd_inspect_marks **herd_draw_inspect_slot(herd_renderer *r);
void herd_overlays_free(herd_renderer *r);

/* The overlays herd_renderer_set_overlays turned on, over the agents (overlays.c). */
void herd_overlays_draw(herd_renderer *r, const herd_sim *sim, const herd_camera *cam, int w, int h);

#endif
