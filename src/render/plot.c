/* The viewer's live plot: the flock's order parameters and delivered fraction over
 * the last HERD_PLOT_STEPS steps, as GL lines in a box at the bottom right of the frame, with
 * a legend. The renderer draws it through one hook (herd_renderer_set_plot); its GL objects
 * are its own, made on first draw in the renderer's context. */
#include <GL/glew.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "render.h"

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wconversion"
#endif
#include <stb/stb_easy_font.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

extern const char herd_shader_shapes_vert[], herd_shader_hud_vert[];

#define PLOT_TEXT_QUADS 400

const uint8_t herd_plot_colors[HERD_PLOT_SERIES][3] = {{255, 200, 40}, {90, 200, 255}, {120, 235, 120}};
const uint8_t herd_plot_frame[3] = {160, 160, 160};
static const uint8_t plot_fill[3] = {16, 16, 16};
static const char *const series_names[HERD_PLOT_SERIES] = {"polarisation", "milling", "delivered"};

struct herd_plot {
  float value[HERD_PLOT_SERIES][HERD_PLOT_STEPS]; /* a ring: sample k at (first + k) % HERD_PLOT_STEPS */
  uint32_t first, count;
  uint32_t last_step; /* the step index of the newest sample (herd_plot_observe) */
  bool any;
  GLuint line_program, text_program, vao, vbo, text_vao, text_vbo;
};

herd_plot *herd_plot_create(void) { return calloc(1, sizeof(herd_plot)); }

void herd_plot_destroy(herd_plot *p) {
  if (!p) return;
  if (p->line_program) {
    GLuint buffers[] = {p->vbo, p->text_vbo}, arrays[] = {p->vao, p->text_vao};
    glDeleteBuffers(2, buffers);
    glDeleteVertexArrays(2, arrays);
    glDeleteProgram(p->line_program);
    glDeleteProgram(p->text_program);
  }
  free(p);
}

void herd_plot_clear(herd_plot *p) { p->first = p->count = 0, p->any = false; }

void herd_plot_add(herd_plot *p, const float values[HERD_PLOT_SERIES]) {
  uint32_t at = (p->first + p->count) % HERD_PLOT_STEPS;
  for (int s = 0; s < HERD_PLOT_SERIES; ++s) p->value[s][at] = values[s];
  if (p->count < HERD_PLOT_STEPS)
    ++p->count;
  else
    p->first = (p->first + 1) % HERD_PLOT_STEPS;
}

void herd_plot_observe(herd_plot *p, const herd_sim *sim) {
  uint32_t step = herd_sim_step_index(sim);
  if (p->any && step == p->last_step) return;
  if (p->any && step < p->last_step) herd_plot_clear(p); /* a restart */
  float values[HERD_PLOT_SERIES];
  herd_plot_values(sim, values);
  herd_plot_add(p, values);
  p->any = true, p->last_step = step;
}

void herd_plot_values(const herd_sim *sim, float out[HERD_PLOT_SERIES]) {
  const herd_observation *o = herd_sim_observation(sim);
  out[0] = o->polarisation, out[1] = o->milling, out[2] = o->count ? (float)o->delivered / o->count : 0.0f;
}

uint32_t herd_plot_count(const herd_plot *p) { return p->count; }

void herd_plot_box(int w, int h, float box[4]) {
  float width = fminf(fmaxf(0.28f * (float)w, 160.0f), 420.0f), height = 0.45f * width, margin = 12.0f;
  box[2] = (float)w - margin, box[3] = (float)h - margin;
  box[0] = box[2] - width, box[1] = box[3] - height;
}

void herd_plot_point(const float box[4], uint32_t k, float value, float out[2]) {
  float v = value < 0.0f ? 0.0f : value > 1.0f ? 1.0f : value;
  out[0] = box[0] + (box[2] - box[0]) * (float)k / (float)(HERD_PLOT_STEPS - 1);
  out[1] = box[3] - (box[3] - box[1]) * v;
}

/* ---- Drawing --------------------------------------------------------------------------------- */

static herd_status make_gl(herd_plot *p, herd_error *err) {
  herd_status st = herd_render_link(herd_shader_shapes_vert, "shapes.vert", &p->line_program, err);
  if (st == HERD_OK) st = herd_render_link(herd_shader_hud_vert, "hud.vert", &p->text_program, err);
  if (st != HERD_OK) return st;
  glGenVertexArrays(1, &p->vao);
  glGenBuffers(1, &p->vbo);
  glBindVertexArray(p->vao);
  glBindBuffer(GL_ARRAY_BUFFER, p->vbo);
  glBufferData(GL_ARRAY_BUFFER, HERD_PLOT_STEPS * 3 * sizeof(float), NULL, GL_DYNAMIC_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, NULL);
  glGenVertexArrays(1, &p->text_vao);
  glGenBuffers(1, &p->text_vbo);
  glBindVertexArray(p->text_vao);
  glBindBuffer(GL_ARRAY_BUFFER, p->text_vbo);
  glBufferData(GL_ARRAY_BUFFER, PLOT_TEXT_QUADS * 6 * 16, NULL, GL_DYNAMIC_DRAW); /* 2 triangles a quad */
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 16, NULL);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, 16, (const void *)12);
  glBindVertexArray(0);
  return HERD_OK;
}

/* Pixel points (top-left origin, pixel centres) as clip-space vertices, drawn in one colour. */
static void draw_pixels(herd_plot *p, const float *xy, uint32_t n, GLenum mode, const uint8_t rgb[3], int w, int h) {
  float v[HERD_PLOT_STEPS * 3];
  for (uint32_t i = 0; i < n; ++i) {
    v[3 * i] = 2.0f * (xy[2 * i] + 0.5f) / (float)w - 1.0f;
    v[3 * i + 1] = 1.0f - 2.0f * (xy[2 * i + 1] + 0.5f) / (float)h;
    v[3 * i + 2] = 0.0f;
  }
  glUniform3f(glGetUniformLocation(p->line_program, "shape_color"), rgb[0] / 255.0f, rgb[1] / 255.0f, rgb[2] / 255.0f);
  glBindBuffer(GL_ARRAY_BUFFER, p->vbo);
  glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(n * 3 * sizeof(float)), v);
  glDrawArrays(mode, 0, (GLsizei)n);
}

/* Text at pixel (x, y): stb_easy_font's quads of 4 vertices, each drawn as 2 triangles. */
static void draw_text(herd_plot *p, float x, float y, const char *text, const uint8_t rgb[3], int w, int h) {
  static float quads[PLOT_TEXT_QUADS * 4 * 4];
  float tri[PLOT_TEXT_QUADS * 6 * 4];
  unsigned char color[4] = {rgb[0], rgb[1], rgb[2], 255};
  int n = stb_easy_font_print(x, y, (char *)text, color, quads, sizeof quads);
  for (int q = 0; q < n; ++q) {
    static const int pattern[6] = {0, 1, 2, 0, 2, 3};
    for (int k = 0; k < 6; ++k) memcpy(&tri[(q * 6 + k) * 4], &quads[(q * 4 + pattern[k]) * 4], 4 * sizeof(float));
  }
  glUseProgram(p->text_program);
  glUniform2f(glGetUniformLocation(p->text_program, "screen"), (float)w, (float)h);
  glUniform1f(glGetUniformLocation(p->text_program, "scale"), 1.0f);
  glBindVertexArray(p->text_vao);
  glBindBuffer(GL_ARRAY_BUFFER, p->text_vbo);
  glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)n * 6 * 16, tri);
  glDrawArrays(GL_TRIANGLES, 0, n * 6);
}

void herd_plot_draw(herd_plot *p, int w, int h) {
  herd_error err;
  if (!p->line_program && make_gl(p, &err) != HERD_OK) {
    fprintf(stderr, "herd: the live plot cannot be drawn: %s\n", err.message);
    return;
  }
  float box[4], xy[HERD_PLOT_STEPS * 2];
  herd_plot_box(w, h, box);
  glUseProgram(p->line_program);
  static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  glUniformMatrix4fv(glGetUniformLocation(p->line_program, "view"), 1, GL_FALSE, identity);
  glBindVertexArray(p->vao);
  float corners[8] = {box[0], box[1], box[2], box[1], box[2], box[3], box[0], box[3]};
  draw_pixels(p, corners, 4, GL_TRIANGLE_FAN, plot_fill, w, h);
  draw_pixels(p, corners, 4, GL_LINE_LOOP, herd_plot_frame, w, h);
  for (int s = 0; s < HERD_PLOT_SERIES && p->count > 1; ++s) {
    for (uint32_t k = 0; k < p->count; ++k)
      herd_plot_point(box, k, p->value[s][(p->first + k) % HERD_PLOT_STEPS], &xy[2 * k]);
    draw_pixels(p, xy, p->count, GL_LINE_STRIP, herd_plot_colors[s], w, h);
  }
  char steps[40];
  snprintf(steps, sizeof steps, "last %u steps", HERD_PLOT_STEPS);
  draw_text(p, box[0] - 10.0f, box[1] - 4.0f, "1", herd_plot_frame, w, h);
  draw_text(p, box[0] - 10.0f, box[3] - 7.0f, "0", herd_plot_frame, w, h);
  float x = box[0];
  for (int s = 0; s < HERD_PLOT_SERIES; ++s) {
    draw_text(p, x, box[1] - 14.0f, series_names[s], herd_plot_colors[s], w, h);
    x += (float)stb_easy_font_width((char *)series_names[s]) + 10.0f;
  }
  draw_text(p, x, box[1] - 14.0f, steps, herd_plot_frame, w, h);
}
