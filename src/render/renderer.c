/* Draws the simulation: the world's box, the target's goal circle, every agent as an
 * oriented triangle instanced straight from the agent buffers, the steering agents, and the
 * HUD text. No work per agent on the host: the buffers come from the backend by sharing or
 * one copy each. What is drawn comes from the scenario and the model table, never from a
 * model's name. */
#include <GL/glew.h>
#include <cglm/cglm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/error.h"
#include "render.h"

/* stb_easy_font's functions are all static: including it here is using it, not copying it. */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#include <stb/stb_easy_font.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

extern const char herd_shader_agents_vert[], herd_shader_shapes_vert[], herd_shader_hud_vert[],
    herd_shader_color_frag[];

#define HUD_MAX_QUADS 6000
#define CIRCLE_SEGMENTS 96
#define HUD_SCALE 2.0f

const herd_palette herd_colors = {
    .background = {28, 38, 30},
    .field = {96, 128, 84},
    .target = {80, 160, 255},
    .grazing = {236, 236, 224},
    .moved = {255, 205, 70},
    .delivered = {110, 225, 120},
    .dog = {232, 48, 40},
    .alert = {255, 120, 60},
    .hud = {255, 255, 255},
};

struct herd_renderer {
  uint32_t count, dims, stride; /* stride: floats per agent in the state buffers */
  GLuint agents_program, shapes_program, hud_program;
  GLuint corner_vbo, pos_vbo, vel_vbo, agent_vbo;
  GLuint steer_pos_vbo, steer_heading_vbo;
  GLuint shape_vbo, hud_vbo, hud_ebo;
  GLuint agents_vao, dogs_vao, shapes_vao, hud_vao;
  GLuint fbo, fbo_color;
  int fbo_w, fbo_h;
  float *hud_vertices;
};

/* ---- Shaders ---------------------------------------------------------------------------- */

static herd_status compile(GLenum kind, const char *source, const char *name, GLuint *out, herd_error *err) {
  GLuint s = glCreateShader(kind);
  glShaderSource(s, 1, &source, NULL);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[700] = "";
    glGetShaderInfoLog(s, sizeof log, NULL, log);
    glDeleteShader(s);
    return herd_fail(err, HERD_E_BACKEND, "shader %s failed to compile: %s", name, log);
  }
  *out = s;
  return HERD_OK;
}

static herd_status link_program(const char *vert, const char *vert_name, GLuint *out, herd_error *err) {
  GLuint vs, fs;
  herd_status st = compile(GL_VERTEX_SHADER, vert, vert_name, &vs, err);
  if (st != HERD_OK) return st;
  st = compile(GL_FRAGMENT_SHADER, herd_shader_color_frag, "color.frag", &fs, err);
  if (st != HERD_OK) {
    glDeleteShader(vs);
    return st;
  }
  GLuint p = glCreateProgram();
  glAttachShader(p, vs);
  glAttachShader(p, fs);
  glLinkProgram(p);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[700] = "";
    glGetProgramInfoLog(p, sizeof log, NULL, log);
    glDeleteProgram(p);
    return herd_fail(err, HERD_E_BACKEND, "shader program %s failed to link: %s", vert_name, log);
  }
  *out = p;
  return HERD_OK;
}

/* ---- Buffers ---------------------------------------------------------------------------- */

static GLuint make_buffer(GLenum target, size_t bytes, const void *data, GLenum usage) {
  GLuint b;
  glGenBuffers(1, &b);
  glBindBuffer(target, b);
  glBufferData(target, (GLsizeiptr)(bytes ? bytes : 4), data, usage);
  return b;
}

/* Attribute `index` from `size` floats every `stride` floats of vbo. */
static void float_attrib(GLuint index, GLuint vbo, GLint size, GLsizei stride, GLuint divisor) {
  glBindBuffer(GL_ARRAY_BUFFER, vbo);
  glEnableVertexAttribArray(index);
  glVertexAttribPointer(index, size, GL_FLOAT, GL_FALSE, stride * (GLsizei)sizeof(float), NULL);
  glVertexAttribDivisor(index, divisor);
}

/* The triangle of one agent in its body frame, body length 1: nose ahead, tail wide. */
static const float body_corners[6] = {0.6f, 0.0f, -0.4f, 0.3f, -0.4f, -0.3f};

static void make_agent_arrays(herd_renderer *r) {
  size_t n = r->count;
  r->corner_vbo = make_buffer(GL_ARRAY_BUFFER, sizeof body_corners, body_corners, GL_STATIC_DRAW);
  r->pos_vbo = make_buffer(GL_ARRAY_BUFFER, n * r->stride * sizeof(float), NULL, GL_DYNAMIC_DRAW);
  r->vel_vbo = make_buffer(GL_ARRAY_BUFFER, n * r->stride * sizeof(float), NULL, GL_DYNAMIC_DRAW);
  r->agent_vbo = make_buffer(GL_ARRAY_BUFFER, n * sizeof(uint32_t), NULL, GL_DYNAMIC_DRAW);
  glGenVertexArrays(1, &r->agents_vao);
  glBindVertexArray(r->agents_vao);
  float_attrib(0, r->corner_vbo, 2, 0, 0);
  float_attrib(1, r->pos_vbo, 2, (GLsizei)r->stride, 1);
  float_attrib(2, r->vel_vbo, 2, (GLsizei)r->stride, 1);
  glBindBuffer(GL_ARRAY_BUFFER, r->agent_vbo);
  glEnableVertexAttribArray(3);
  glVertexAttribIPointer(3, 1, GL_UNSIGNED_INT, 0, NULL);
  glVertexAttribDivisor(3, 1);

  r->steer_pos_vbo = make_buffer(GL_ARRAY_BUFFER, HERD_MAX_STEERING * 2 * sizeof(float), NULL, GL_DYNAMIC_DRAW);
  r->steer_heading_vbo = make_buffer(GL_ARRAY_BUFFER, HERD_MAX_STEERING * 2 * sizeof(float), NULL, GL_DYNAMIC_DRAW);
  glGenVertexArrays(1, &r->dogs_vao);
  glBindVertexArray(r->dogs_vao);
  float_attrib(0, r->corner_vbo, 2, 0, 0);
  float_attrib(1, r->steer_pos_vbo, 2, 0, 1);
  float_attrib(2, r->steer_heading_vbo, 2, 0, 1);
  glVertexAttribI1ui(3, 0);
}

static void make_overlay_arrays(herd_renderer *r) {
  r->shape_vbo = make_buffer(GL_ARRAY_BUFFER, (CIRCLE_SEGMENTS + 8) * 2 * sizeof(float), NULL, GL_DYNAMIC_DRAW);
  glGenVertexArrays(1, &r->shapes_vao);
  glBindVertexArray(r->shapes_vao);
  float_attrib(0, r->shape_vbo, 2, 0, 0);

  /* stb_easy_font emits quads of 4 vertices (x, y, z, rgba bytes); draw each as 2 triangles. */
  r->hud_vbo = make_buffer(GL_ARRAY_BUFFER, HUD_MAX_QUADS * 4 * 16, NULL, GL_DYNAMIC_DRAW);
  glGenVertexArrays(1, &r->hud_vao);
  glBindVertexArray(r->hud_vao);
  glBindBuffer(GL_ARRAY_BUFFER, r->hud_vbo);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 16, NULL);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, 16, (const void *)12);
  uint32_t *indices = malloc(HUD_MAX_QUADS * 6 * sizeof *indices);
  for (uint32_t q = 0; indices && q < HUD_MAX_QUADS; ++q) {
    static const uint32_t pattern[6] = {0, 1, 2, 0, 2, 3};
    for (int k = 0; k < 6; ++k) indices[q * 6 + k] = q * 4 + pattern[k];
  }
  r->hud_ebo = make_buffer(GL_ELEMENT_ARRAY_BUFFER, HUD_MAX_QUADS * 6 * sizeof(uint32_t), indices, GL_STATIC_DRAW);
  free(indices);
  glBindVertexArray(0);
}

herd_status herd_renderer_create(uint32_t count, uint32_t dims, herd_renderer **out, herd_error *err) {
  herd_renderer *r = calloc(1, sizeof *r);
  if (!r) return herd_fail(err, HERD_E_MEMORY, "out of memory creating the renderer");
  r->count = count;
  r->dims = dims;
  r->stride = dims == 3 ? 4 : 2;
  r->hud_vertices = malloc(HUD_MAX_QUADS * 4 * 16);
  herd_status st = r->hud_vertices ? HERD_OK : herd_fail(err, HERD_E_MEMORY, "out of memory for the HUD");
  if (st == HERD_OK) st = link_program(herd_shader_agents_vert, "agents.vert", &r->agents_program, err);
  if (st == HERD_OK) st = link_program(herd_shader_shapes_vert, "shapes.vert", &r->shapes_program, err);
  if (st == HERD_OK) st = link_program(herd_shader_hud_vert, "hud.vert", &r->hud_program, err);
  if (st != HERD_OK) {
    herd_renderer_destroy(r);
    return st;
  }
  make_agent_arrays(r);
  make_overlay_arrays(r);
  GLenum gl_err = glGetError();
  if (gl_err != GL_NO_ERROR) {
    herd_renderer_destroy(r);
    return herd_fail(err, HERD_E_BACKEND, "OpenGL error 0x%x creating buffers for %u agents (out of memory?)", gl_err,
                     count);
  }
  *out = r;
  return HERD_OK;
}

void herd_renderer_destroy(herd_renderer *r) {
  if (!r) return;
  GLuint buffers[] = {r->corner_vbo,        r->pos_vbo,   r->vel_vbo, r->agent_vbo, r->steer_pos_vbo,
                      r->steer_heading_vbo, r->shape_vbo, r->hud_vbo, r->hud_ebo};
  glDeleteBuffers(sizeof buffers / sizeof buffers[0], buffers);
  GLuint arrays[] = {r->agents_vao, r->dogs_vao, r->shapes_vao, r->hud_vao};
  glDeleteVertexArrays(4, arrays);
  glDeleteProgram(r->agents_program);
  glDeleteProgram(r->shapes_program);
  glDeleteProgram(r->hud_program);
  if (r->fbo) glDeleteFramebuffers(1, &r->fbo);
  if (r->fbo_color) glDeleteRenderbuffers(1, &r->fbo_color);
  free(r->hud_vertices);
  free(r);
}

herd_gl_share herd_renderer_share(herd_renderer *r, herd_window *w) {
  herd_gl_share s = herd_window_share_handles(w);
  s.pos_buffer = r->pos_vbo;
  s.vel_buffer = r->vel_vbo;
  s.agent_buffer = r->agent_vbo;
  return s;
}

herd_status herd_renderer_update(herd_renderer *r, herd_sim *sim, herd_error *err) {
  if (herd_sim_shares_gl(sim)) return HERD_OK; /* OpenCL wrote the buffers and finished */
  const float *pos, *vel;
  const uint32_t *agent;
  herd_status st = herd_sim_map_state(sim, &pos, &vel, &agent, err);
  if (st != HERD_OK) return st;
  size_t n = r->count;
  glBindBuffer(GL_ARRAY_BUFFER, r->pos_vbo);
  glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(n * r->stride * sizeof(float)), pos);
  glBindBuffer(GL_ARRAY_BUFFER, r->vel_vbo);
  glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(n * r->stride * sizeof(float)), vel);
  glBindBuffer(GL_ARRAY_BUFFER, r->agent_vbo);
  glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(n * sizeof(uint32_t)), agent);
  return HERD_OK;
}

/* ---- Drawing ---------------------------------------------------------------------------- */

static void set_color(GLuint program, const char *name, const uint8_t rgb[3]) {
  glUniform3f(glGetUniformLocation(program, name), rgb[0] / 255.0f, rgb[1] / 255.0f, rgb[2] / 255.0f);
}

/* The camera's world rectangle as an orthographic projection. */
static void view_matrix(const herd_camera *c, int w, int h, mat4 m) {
  float half_w = 0.5f * c->metres_per_px * (float)w, half_h = 0.5f * c->metres_per_px * (float)h;
  glm_ortho(c->center[0] - half_w, c->center[0] + half_w, c->center[1] - half_h, c->center[1] + half_h, -1.0f, 1.0f, m);
}

static void draw_shape(herd_renderer *r, const float *points, int count, GLenum mode, const uint8_t rgb[3]) {
  glBindBuffer(GL_ARRAY_BUFFER, r->shape_vbo);
  glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(count * 2 * sizeof(float)), points);
  set_color(r->shapes_program, "shape_color", rgb);
  glDrawArrays(mode, 0, count);
}

static void draw_overlays(herd_renderer *r, const herd_sim *sim, mat4 view) {
  const herd_scenario *sc = herd_sim_scenario(sim);
  glUseProgram(r->shapes_program);
  glUniformMatrix4fv(glGetUniformLocation(r->shapes_program, "view"), 1, GL_FALSE, (const float *)view);
  glBindVertexArray(r->shapes_vao);
  float lx = sc->world.size_m[0], ly = sc->world.size_m[1];
  float field[8] = {0, 0, lx, 0, lx, ly, 0, ly};
  draw_shape(r, field, 4, GL_LINE_LOOP, herd_colors.field);
  if (sc->target.goal_radius_m < 0.0f) return; /* no goal in this scenario */
  float circle[2 * CIRCLE_SEGMENTS];
  for (int k = 0; k < CIRCLE_SEGMENTS; ++k) {
    float a = 6.2831853f * (float)k / CIRCLE_SEGMENTS;
    circle[2 * k] = sc->target.position_m[0] + sc->target.goal_radius_m * cosf(a);
    circle[2 * k + 1] = sc->target.position_m[1] + sc->target.goal_radius_m * sinf(a);
  }
  draw_shape(r, circle, CIRCLE_SEGMENTS, GL_LINE_LOOP, herd_colors.target);
  float cross = sc->target.goal_radius_m * 0.15f, tx = sc->target.position_m[0], ty = sc->target.position_m[1];
  float mark[8] = {tx - cross, ty, tx + cross, ty, tx, ty - cross, tx, ty + cross};
  draw_shape(r, mark, 4, GL_LINES, herd_colors.target);
}

static void draw_agents(herd_renderer *r, const herd_sim *sim, mat4 view) {
  GLuint p = r->agents_program;
  glUseProgram(p);
  glUniformMatrix4fv(glGetUniformLocation(p, "view"), 1, GL_FALSE, (const float *)view);
  float colors[12];
  const uint8_t *states[4] = {herd_colors.grazing, herd_colors.moved, herd_colors.delivered, herd_colors.alert};
  for (int s = 0; s < 4; ++s)
    for (int c = 0; c < 3; ++c) colors[3 * s + c] = states[s][c] / 255.0f;
  glUniform3fv(glGetUniformLocation(p, "state_color"), 4, colors);
  float body_m = herd_model_body_m(herd_sim_scenario(sim)->model);
  glUniform1f(glGetUniformLocation(p, "body_m"), body_m);
  glUniform1i(glGetUniformLocation(p, "use_fixed"), 0);
  glBindVertexArray(r->agents_vao);
  glDrawArraysInstanced(GL_TRIANGLES, 0, 3, (GLsizei)r->count);

  uint32_t dogs = herd_sim_steering_count(sim);
  float pos[2 * HERD_MAX_STEERING], heading[2 * HERD_MAX_STEERING];
  for (uint32_t d = 0; d < dogs; ++d) {
    const herd_steering_state *dog = herd_sim_steering(sim, d);
    pos[2 * d] = dog->pos[0], pos[2 * d + 1] = dog->pos[1];
    heading[2 * d] = dog->heading[0], heading[2 * d + 1] = dog->heading[1];
  }
  glBindBuffer(GL_ARRAY_BUFFER, r->steer_pos_vbo);
  glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(dogs * 2 * sizeof(float)), pos);
  glBindBuffer(GL_ARRAY_BUFFER, r->steer_heading_vbo);
  glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(dogs * 2 * sizeof(float)), heading);
  glUniform1f(glGetUniformLocation(p, "body_m"), HERD_STEERING_BODY_SCALE * body_m);
  glUniform1i(glGetUniformLocation(p, "use_fixed"), 1);
  set_color(p, "fixed_color", herd_colors.dog);
  glBindVertexArray(r->dogs_vao);
  glDrawArraysInstanced(GL_TRIANGLES, 0, 3, (GLsizei)dogs);
}

static void draw_hud(herd_renderer *r, const char *text, int w, int h) {
  if (!text || !*text) return;
  unsigned char white[4] = {herd_colors.hud[0], herd_colors.hud[1], herd_colors.hud[2], 255};
  int quads = stb_easy_font_print(6, 6, (char *)text, white, r->hud_vertices, HUD_MAX_QUADS * 4 * 16);
  if (quads <= 0) return;
  glUseProgram(r->hud_program);
  glUniform2f(glGetUniformLocation(r->hud_program, "screen"), (float)w, (float)h);
  /* Large text on large frames, small on small ones (a short GIF, say). */
  glUniform1f(glGetUniformLocation(r->hud_program, "scale"), h >= 600 ? HUD_SCALE : 1.0f);
  glBindVertexArray(r->hud_vao);
  glBindBuffer(GL_ARRAY_BUFFER, r->hud_vbo);
  glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)quads * 4 * 16, r->hud_vertices);
  glDrawElements(GL_TRIANGLES, quads * 6, GL_UNSIGNED_INT, NULL);
}

void herd_renderer_draw(herd_renderer *r, const herd_sim *sim, const herd_camera *cam, int w, int h, const char *hud) {
  glViewport(0, 0, w, h);
  glClearColor(herd_colors.background[0] / 255.0f, herd_colors.background[1] / 255.0f,
               herd_colors.background[2] / 255.0f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_BLEND);
  mat4 view;
  view_matrix(cam, w, h, view);
  draw_overlays(r, sim, view);
  draw_agents(r, sim, view);
  draw_hud(r, hud, w, h);
  glBindVertexArray(0);
}

static herd_status ensure_fbo(herd_renderer *r, int w, int h, herd_error *err) {
  if (r->fbo && r->fbo_w == w && r->fbo_h == h) return HERD_OK;
  if (!r->fbo) glGenFramebuffers(1, &r->fbo);
  if (!r->fbo_color) glGenRenderbuffers(1, &r->fbo_color);
  glBindRenderbuffer(GL_RENDERBUFFER, r->fbo_color);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
  glBindFramebuffer(GL_FRAMEBUFFER, r->fbo);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, r->fbo_color);
  GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  if (status != GL_FRAMEBUFFER_COMPLETE)
    return herd_fail(err, HERD_E_BACKEND, "offscreen framebuffer of %d x %d incomplete (0x%x)", w, h, status);
  r->fbo_w = w, r->fbo_h = h;
  return HERD_OK;
}

herd_status herd_renderer_render_offscreen(herd_renderer *r, const herd_sim *sim, const herd_camera *cam, int w, int h,
                                           const char *hud, herd_error *err) {
  herd_status st = ensure_fbo(r, w, h, err);
  if (st != HERD_OK) return st;
  glBindFramebuffer(GL_FRAMEBUFFER, r->fbo);
  herd_renderer_draw(r, sim, cam, w, h, hud);
  return HERD_OK;
}

herd_status herd_renderer_snapshot(herd_renderer *r, const herd_sim *sim, const herd_camera *cam, int w, int h,
                                   const char *hud, uint8_t *rgba, herd_error *err) {
  herd_status st = herd_renderer_render_offscreen(r, sim, cam, w, h, hud, err);
  if (st != HERD_OK) return st;
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  /* GL's rows run bottom-up; images run top-down. */
  size_t row = (size_t)w * 4;
  uint8_t *tmp = malloc(row);
  if (!tmp) return herd_fail(err, HERD_E_MEMORY, "out of memory flipping the picture");
  for (int y = 0; y < h / 2; ++y) {
    memcpy(tmp, rgba + (size_t)y * row, row);
    memcpy(rgba + (size_t)y * row, rgba + (size_t)(h - 1 - y) * row, row);
    memcpy(rgba + (size_t)(h - 1 - y) * row, tmp, row);
  }
  free(tmp);
  return HERD_OK;
}
