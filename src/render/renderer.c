/* Draws the simulation: the world's box (a rectangle in 2D, a wireframe in 3D), the target's
 * goal circle, the obstacles (rocks; walls, fences, water and bridges), every agent
 * instanced straight from the agent buffers (an oriented triangle in 2D; in 3D a lit cone,
 * depth-tested), the steering agents, and the HUD text; among walls, water and pens also the
 * route: each dog's aim, the flock's next waypoint and (toggled) the routing field's arrows;
 * where groups are observed (toggled) each agent in its group's colour and the groups' circles;
 * shepherds' steering points; the selected steering agent. No work per agent on the host: the
 * buffers come from the backend by sharing or one copy each (the groups: always a copy). What is
 * drawn comes from the scenario and the model table, never from a model's name. */
#include <GL/glew.h>
#include <cglm/cglm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "draw.h"
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

extern const char herd_shader_agents_vert[], herd_shader_shapes_vert[], herd_shader_hud_vert[];

#define HUD_MAX_QUADS 16000 /* a line per steering agent: some 2500 characters */
#define CIRCLE_SEGMENTS 96
#define SHAPE_VERTICES (CIRCLE_SEGMENTS + 24) /* the goal circle, or the box's 12 edges */
#define CONE_SEGMENTS 8                       /* enough to read as round at a few pixels */
#define CONE_VERTICES (CONE_SEGMENTS * 3 + 1) /* tips, side ring, base ring, base centre */
#define CONE_INDICES (CONE_SEGMENTS * 6)      /* a side and a base triangle per segment */
#define CAP_SEGMENTS 12                       /* a wall's round ends and joints: a 12-gon */
#define GATE_POST 0.1f                        /* a gate post reaches this much of the gate's length */
#define MARK_WORLD 0.01f     /* the aim and waypoint marks in 3D: this much of the world's longer side */
#define ARROW_HEAD 0.3f      /* an arrow's head: this much of its length */
#define ARROW_HEAD_RAD 0.45f /* each side of the head off the shaft (26 degrees) */
#define ARROW_SAMPLE_M 0.25f /* an arrow is tested clear of obstacles this often */

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
    .obstacle = {170, 120, 80},
    .path = {150, 110, 220},
    .food = {120, 230, 255},
    .water = {40, 92, 170},
    .bridge = {200, 190, 160},
    .waypoint = {255, 60, 200},
    .route = {86, 106, 124},
    .shepherd = {30, 230, 230},
    .selected = {255, 255, 255},
    .untracked = {128, 128, 128},
};

/* Distinguishable on the dark background and from each other (after Kelly's and Okabe and
 * Ito's lists), none equal to a colour of herd_colors, so a picture tells them apart; the
 * first four far from the states' white, yellow, green and orange, so that a few groups never
 * read as agent states. */
static const uint8_t group_colors[HERD_GROUP_COLORS][3] = {
    {230, 143, 172}, {86, 180, 233},  {200, 120, 255}, {160, 255, 200}, {243, 195, 0},   {0, 158, 115},
    {243, 132, 0},   {180, 180, 255}, {141, 182, 0},   {90, 120, 255},  {249, 147, 121}, {179, 68, 108},
    {255, 255, 140}, {194, 178, 128}, {255, 90, 150},  {255, 200, 200},
};

const uint8_t *herd_group_color(uint32_t group) {
  return group == HERD_GROUP_UNTRACKED ? herd_colors.untracked : group_colors[group % HERD_GROUP_COLORS];
}

/* A growing array of vertices (x, y, z). */
typedef struct vertex_list {
  float *v;
  int count, cap;
  bool failed; /* out of memory: the list is not drawn */
} vertex_list;

/* The walls, fences, water and bridges of a scenario as vertex lists, built when the scenario
 * is first drawn and again only when its geometry changes (a new sim through the same
 * renderer), so that a frame only uploads and draws them. Fills lie at z = 0; outlines at
 * z = 0 in 2D, at the top of the world in 3D (the fill marks the bottom) with vertical edges
 * at the corners: each shape is a vertical prism there. */
enum { GEO_WATER, GEO_BRIDGE, GEO_WALL, GEO_GATE, GEO_PARTS };
typedef struct geometry_cache {
  bool built;
  uint32_t dims;
  float top;                                       /* the outlines' z */
  herd_shape_list walls, water, pens, bridges;     /* what the lists were built from */
  vertex_list fill[GEO_PARTS], outline[GEO_PARTS]; /* triangles; line segments */
} geometry_cache;

/* The routing field's arrows (line segments at z = 0), built the first time they are drawn
 * for a sim and again only for another sim or scenario: the field is static. */
typedef struct route_cache {
  bool shown, built;
  const herd_sim *sim;      /* what they were built for: the sim, its world and obstacles */
  herd_scenario_info world; /* (its dims, size_m, target_m, goal_radius_m and dogs) */
  herd_obstacles obstacles;
  vertex_list arrows;
} route_cache;

struct herd_renderer {
  uint32_t count, dims, stride; /* stride: floats per agent in the state buffers */
  GLsizei body_indices;         /* of the body mesh: a triangle (2D) or a cone (3D) */
  GLuint agents_program, shapes_program, hud_program;
  herd_plot *plot; /* the live plot (plot.c), or NULL */
  GLuint body_vbo, body_ebo, pos_vbo, vel_vbo, agent_vbo;
  GLuint group_vbo;  /* each agent's group, in the agent buffers' order */
  bool groups_shown; /* herd_renderer_show_groups */
  bool have_groups;  /* group_vbo holds this frame's groups (the sim observes them) */
  int selected;      /* herd_renderer_select */
  GLuint steer_pos_vbo, steer_heading_vbo;
  GLuint shape_vbo, hud_vbo, hud_ebo;
  int shape_capacity; /* vertices shape_vbo holds */
  GLuint agents_vao, dogs_vao, shapes_vao, hud_vao;
  GLuint fbo, fbo_color, fbo_depth;
  int fbo_w, fbo_h;
  float *hud_vertices;
  geometry_cache geometry;
  route_cache route;
  herd_obstacles obstacles;           /* the drawn scenario's, this frame */
  uint32_t overlays;                  /* herd_renderer_set_overlays (src/render/overlays.c draws them) */
  struct herd_inspect_marks *inspect; /* herd_renderer_inspect (overlays.c) */
};

/* ---- Buffers ---------------------------------------------------------------------------- */

static GLuint make_buffer(GLenum target, size_t bytes, const void *data, GLenum usage) {
  GLuint b;
  glGenBuffers(1, &b);
  glBindBuffer(target, b);
  glBufferData(target, (GLsizeiptr)(bytes ? bytes : 4), data, usage);
  return b;
}

/* Attribute `index`: `size` floats every `stride` floats of vbo, from float `offset` on. */
static void float_attrib(GLuint index, GLuint vbo, GLint size, GLsizei stride, size_t offset, GLuint divisor) {
  glBindBuffer(GL_ARRAY_BUFFER, vbo);
  glEnableVertexAttribArray(index);
  glVertexAttribPointer(index, size, GL_FLOAT, GL_FALSE, stride * (GLsizei)sizeof(float),
                        (const void *)(offset * sizeof(float)));
  glVertexAttribDivisor(index, divisor);
}

/* The triangle of one agent in its body frame, body length 1: nose ahead, tail wide. */
static const float body_corners[6] = {0.6f, 0.0f, -0.4f, 0.3f, -0.4f, -0.3f};
static const GLushort triangle_indices[3] = {0, 1, 2};

/* One vertex of the cone: position and unit normal, interleaved. */
static void cone_vertex(float *out, float x, float y, float z, float nx, float ny, float nz) {
  float len = sqrtf(nx * nx + ny * ny + nz * nz);
  float v[6] = {x, y, z, nx / len, ny / len, nz / len};
  memcpy(out, v, sizeof v);
}

/* The cone of one agent in its body frame, body length 1 as the 2D triangle: tip 0.6 ahead,
 * base 0.4 behind, radius 0.25. Indexed, so that neighbouring triangles share transformed
 * vertices: software GL (llvmpipe) is bound by vertex work at 10^4 agents. Sides get the
 * cone's smooth normal (radius, cos a, sin a up to scale: the gradient of its surface), each
 * side's tip the normal at its middle, the base the flat one. */
static void make_cone(float vertices[CONE_VERTICES * 6], GLushort indices[CONE_INDICES]) {
  const float tip = 0.6f, tail = -0.4f, radius = 0.25f;
  const int n = CONE_SEGMENTS, centre = 3 * CONE_SEGMENTS;
  for (int k = 0; k < n; ++k) {
    float a = 6.2831853f * (float)k / n, mid = 6.2831853f * (k + 0.5f) / n, y = cosf(a), z = sinf(a);
    cone_vertex(vertices + 6 * k, tip, 0, 0, radius, cosf(mid), sinf(mid));
    cone_vertex(vertices + 6 * (n + k), tail, radius * y, radius * z, radius, y, z);
    cone_vertex(vertices + 6 * (2 * n + k), tail, radius * y, radius * z, -1, 0, 0);
    int next = (k + 1) % n;
    GLushort side[6] = {k, n + k, n + next, centre, 2 * n + next, 2 * n + k};
    memcpy(indices + 6 * k, side, sizeof side);
  }
  cone_vertex(vertices + 6 * centre, tail, 0, 0, -1, 0, 0);
}

/* The body mesh (location 0 corner, and 4 normal in 3D), shared by every agent. */
static void make_body(herd_renderer *r) {
  if (r->dims != 3) {
    r->body_vbo = make_buffer(GL_ARRAY_BUFFER, sizeof body_corners, body_corners, GL_STATIC_DRAW);
    r->body_ebo = make_buffer(GL_ELEMENT_ARRAY_BUFFER, sizeof triangle_indices, triangle_indices, GL_STATIC_DRAW);
    r->body_indices = 3;
    return;
  }
  float cone[CONE_VERTICES * 6];
  GLushort indices[CONE_INDICES];
  make_cone(cone, indices);
  r->body_vbo = make_buffer(GL_ARRAY_BUFFER, sizeof cone, cone, GL_STATIC_DRAW);
  r->body_ebo = make_buffer(GL_ELEMENT_ARRAY_BUFFER, sizeof indices, indices, GL_STATIC_DRAW);
  r->body_indices = CONE_INDICES;
}

/* A vertex array drawing the body once per agent whose position and heading are `dims`
 * floats every `stride` in pos_vbo and heading_vbo (the flock's float2 or float4 layout). */
static GLuint make_agents_vao(const herd_renderer *r, GLuint pos_vbo, GLuint heading_vbo) {
  GLuint vao;
  glGenVertexArrays(1, &vao);
  glBindVertexArray(vao);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, r->body_ebo);
  if (r->dims == 3) {
    float_attrib(0, r->body_vbo, 3, 6, 0, 0);
    float_attrib(4, r->body_vbo, 3, 6, 3, 0);
  } else {
    float_attrib(0, r->body_vbo, 2, 0, 0, 0);
  }
  float_attrib(1, pos_vbo, (GLint)r->dims, (GLsizei)r->stride, 0, 1);
  float_attrib(2, heading_vbo, (GLint)r->dims, (GLsizei)r->stride, 0, 1);
  return vao;
}

static void make_agent_arrays(herd_renderer *r) {
  size_t n = r->count;
  make_body(r);
  r->pos_vbo = make_buffer(GL_ARRAY_BUFFER, n * r->stride * sizeof(float), NULL, GL_DYNAMIC_DRAW);
  r->vel_vbo = make_buffer(GL_ARRAY_BUFFER, n * r->stride * sizeof(float), NULL, GL_DYNAMIC_DRAW);
  r->agent_vbo = make_buffer(GL_ARRAY_BUFFER, n * sizeof(uint32_t), NULL, GL_DYNAMIC_DRAW);
  r->agents_vao = make_agents_vao(r, r->pos_vbo, r->vel_vbo);
  glBindBuffer(GL_ARRAY_BUFFER, r->agent_vbo);
  glEnableVertexAttribArray(3);
  glVertexAttribIPointer(3, 1, GL_UNSIGNED_INT, 0, NULL);
  glVertexAttribDivisor(3, 1);
  r->group_vbo = make_buffer(GL_ARRAY_BUFFER, n * sizeof(uint32_t), NULL, GL_DYNAMIC_DRAW);
  glEnableVertexAttribArray(5);
  glVertexAttribIPointer(5, 1, GL_UNSIGNED_INT, 0, NULL);
  glVertexAttribDivisor(5, 1);

  /* Steering agents in the flock's layout, so the same vertex array set-up draws them. */
  size_t steer_bytes = HERD_MAX_STEERING * r->stride * sizeof(float);
  r->steer_pos_vbo = make_buffer(GL_ARRAY_BUFFER, steer_bytes, NULL, GL_DYNAMIC_DRAW);
  r->steer_heading_vbo = make_buffer(GL_ARRAY_BUFFER, steer_bytes, NULL, GL_DYNAMIC_DRAW);
  r->dogs_vao = make_agents_vao(r, r->steer_pos_vbo, r->steer_heading_vbo);
  /* Their word 0 and no group: the generic values of the two integer inputs the dogs' array does
   * not feed (GL ES 3.0 has only the I4 form, and WebGL refuses a draw whose disabled integer
   * input holds the default float value). */
  glVertexAttribI4ui(3, 0, 0, 0, 0);
  glVertexAttribI4ui(5, HERD_GROUP_UNTRACKED, 0, 0, 0);
}

static void make_overlay_arrays(herd_renderer *r) {
  r->shape_vbo = make_buffer(GL_ARRAY_BUFFER, SHAPE_VERTICES * 3 * sizeof(float), NULL, GL_DYNAMIC_DRAW);
  r->shape_capacity = SHAPE_VERTICES;
  glGenVertexArrays(1, &r->shapes_vao);
  glBindVertexArray(r->shapes_vao);
  float_attrib(0, r->shape_vbo, 3, 0, 0, 0);

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
  while (glGetError() != GL_NO_ERROR) continue; /* an earlier frame's: not this renderer's */
  herd_renderer *r = calloc(1, sizeof *r);
  if (!r) return herd_fail(err, HERD_E_MEMORY, "out of memory creating the renderer");
  r->count = count;
  r->dims = dims;
  r->stride = dims == 3 ? 4 : 2;
  r->groups_shown = true;
  r->selected = -1;
  r->hud_vertices = malloc(HUD_MAX_QUADS * 4 * 16);
  herd_status st = r->hud_vertices ? HERD_OK : herd_fail(err, HERD_E_MEMORY, "out of memory for the HUD");
  if (st == HERD_OK) st = herd_render_link(herd_shader_agents_vert, "agents.vert", &r->agents_program, err);
  if (st == HERD_OK) st = herd_render_link(herd_shader_shapes_vert, "shapes.vert", &r->shapes_program, err);
  if (st == HERD_OK) st = herd_render_link(herd_shader_hud_vert, "hud.vert", &r->hud_program, err);
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
  herd_overlays_free(r);
  GLuint buffers[] = {r->body_vbo,      r->body_ebo,          r->pos_vbo,   r->vel_vbo, r->agent_vbo, r->group_vbo,
                      r->steer_pos_vbo, r->steer_heading_vbo, r->shape_vbo, r->hud_vbo, r->hud_ebo};
  glDeleteBuffers(sizeof buffers / sizeof buffers[0], buffers);
  GLuint arrays[] = {r->agents_vao, r->dogs_vao, r->shapes_vao, r->hud_vao};
  glDeleteVertexArrays(4, arrays);
  glDeleteProgram(r->agents_program);
  glDeleteProgram(r->shapes_program);
  glDeleteProgram(r->hud_program);
  if (r->fbo) glDeleteFramebuffers(1, &r->fbo);
  if (r->fbo_color) glDeleteRenderbuffers(1, &r->fbo_color);
  if (r->fbo_depth) glDeleteRenderbuffers(1, &r->fbo_depth);
  free(r->hud_vertices);
  for (int k = 0; k < GEO_PARTS; ++k) free(r->geometry.fill[k].v), free(r->geometry.outline[k].v);
  free(r->route.arrows.v);
  free(r);
}

herd_gl_share herd_renderer_share(herd_renderer *r, herd_window *w) {
  herd_gl_share s = herd_window_share_handles(w);
  s.pos_buffer = r->pos_vbo;
  s.vel_buffer = r->vel_vbo;
  s.agent_buffer = r->agent_vbo;
  return s;
}

void herd_renderer_show_groups(herd_renderer *r, bool on) { r->groups_shown = on; }

bool herd_renderer_groups_shown(const herd_renderer *r) { return r->groups_shown; }

void herd_renderer_select(herd_renderer *r, int index) { r->selected = index; }

/* Each agent's group into group_vbo while groups are shown and observed. A host array even
 * when the flock is shared with OpenCL (the backend keeps the groups apart from the agent
 * buffers): one 4-byte copy per agent, the simplest thing that stays in the agents' order. */
static herd_status upload_groups(herd_renderer *r, herd_sim *sim, herd_error *err) {
  const uint32_t *group = NULL;
  r->have_groups = false;
  if (!r->groups_shown) return HERD_OK;
  herd_status st = herd_sim_map_groups(sim, &group, err);
  if (st != HERD_OK || !group) return st;
  glBindBuffer(GL_ARRAY_BUFFER, r->group_vbo);
  glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(r->count * sizeof(uint32_t)), group);
  r->have_groups = true;
  return HERD_OK;
}

herd_status herd_renderer_update(herd_renderer *r, herd_sim *sim, herd_error *err) {
  herd_status st = upload_groups(r, sim, err);
  if (st != HERD_OK || herd_sim_shares_gl(sim)) return st; /* shared: OpenCL wrote the buffers and finished */
  const float *pos, *vel;
  const uint32_t *agent;
  st = herd_sim_map_state(sim, &pos, &vel, &agent, err);
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

void herd_renderer_set_overlays(herd_renderer *r, uint32_t mask) { r->overlays = mask; }
uint32_t herd_renderer_overlays(const herd_renderer *r) { return r->overlays; }
struct herd_inspect_marks **herd_draw_inspect_slot(herd_renderer *r) {
  return &r->inspect;
}

static void set_color(GLuint program, const char *name, const uint8_t rgb[3]) {
  glUniform3f(glGetUniformLocation(program, name), rgb[0] / 255.0f, rgb[1] / 255.0f, rgb[2] / 255.0f);
}

void herd_draw_shape(herd_renderer *r, const float *points, int count, unsigned mode, const uint8_t rgb[3]) {
  glBindBuffer(GL_ARRAY_BUFFER, r->shape_vbo);
  if (count > r->shape_capacity) { /* the scenario's geometry can need more than a circle */
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(count * 3 * sizeof(float)), NULL, GL_DYNAMIC_DRAW);
    r->shape_capacity = count;
  }
  glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(count * 3 * sizeof(float)), points);
  set_color(r->shapes_program, "shape_color", rgb);
  glDrawArrays(mode, 0, count);
}

static void draw_shape(herd_renderer *r, const float *points, int count, GLenum mode, const uint8_t rgb[3]) {
  herd_draw_shape(r, points, count, mode, rgb);
}

void herd_draw_use_shapes(herd_renderer *r, const float *view) {
  glUseProgram(r->shapes_program);
  glUniformMatrix4fv(glGetUniformLocation(r->shapes_program, "view"), 1, GL_FALSE, view);
  glBindVertexArray(r->shapes_vao);
}

uint32_t herd_draw_dims(const herd_renderer *r) { return r->dims; }

/* The world box: its outline in 2D, its 12 edges in 3D (each from a corner to the corner one
 * axis further). */
static void draw_world(herd_renderer *r, const herd_scenario_info *sc) {
  const float *size = sc->size_m;
  if (r->dims != 3) {
    float field[12] = {0, 0, 0, size[0], 0, 0, size[0], size[1], 0, 0, size[1], 0};
    draw_shape(r, field, 4, GL_LINE_LOOP, herd_colors.field);
    return;
  }
  float edges[24 * 3];
  int n = 0;
  for (int corner = 0; corner < 8; ++corner)
    for (int axis = 0; axis < 3; ++axis) {
      if ((corner >> axis) & 1) continue;
      for (int end = 0; end < 2; ++end, ++n) {
        int c = end ? corner | 1 << axis : corner;
        for (int k = 0; k < 3; ++k) edges[3 * n + k] = (c >> k) & 1 ? size[k] : 0.0f;
      }
    }
  draw_shape(r, edges, n, GL_LINES, herd_colors.field);
}

/* World point v (3 floats) as drawn: z is 0 in 2D. */
static void drawn_point(const herd_renderer *r, const float *v, float out[3]) {
  out[0] = v[0], out[1] = v[1], out[2] = r->dims == 3 ? v[2] : 0.0f;
}

/* n points round the level circle of `radius` about c (x, y, z). */
void herd_draw_circle_points(float *out, int n, const float *c, float radius) {
  for (int k = 0; k < n; ++k) {
    float a = 6.2831853f * (float)k / (float)n;
    out[3 * k] = c[0] + radius * cosf(a), out[3 * k + 1] = c[1] + radius * sinf(a), out[3 * k + 2] = c[2];
  }
}

static void circle_points(float *out, int n, const float *c, float radius) {
  herd_draw_circle_points(out, n, c, radius);
}

/* The goal circle and a cross at the target, level at the target's height in 3D. */
static void draw_goal(herd_renderer *r, const herd_scenario_info *sc) {
  float radius = sc->goal_radius_m, tx = sc->target_m[0], ty = sc->target_m[1];
  float tz = r->dims == 3 ? sc->target_m[2] : 0.0f;
  if (radius < 0.0f) return; /* no goal in this scenario */
  float circle[3 * CIRCLE_SEGMENTS];
  circle_points(circle, CIRCLE_SEGMENTS, (const float[3]){tx, ty, tz}, radius);
  draw_shape(r, circle, CIRCLE_SEGMENTS, GL_LINE_LOOP, herd_colors.target);
  float cross = radius * 0.15f;
  float mark[12] = {tx - cross, ty, tz, tx + cross, ty, tz, tx, ty - cross, tz, tx, ty + cross, tz};
  draw_shape(r, mark, 4, GL_LINES, herd_colors.target);
}

/* Each sphere obstacle as its outline: a circle in 2D, three great circles in 3D. */
static void draw_obstacles(herd_renderer *r, const herd_obstacles *obstacles) {
  const herd_point_list *spheres = &obstacles->spheres;
  for (uint32_t s = 0; s < spheres->count; ++s) {
    const float *c = spheres->v[s];
    for (int plane = 0; plane < (r->dims == 3 ? 3 : 1); ++plane) {
      int u = plane == 2 ? 1 : 0, v = plane == 0 ? 1 : 2; /* xy, xz, yz */
      float circle[3 * CIRCLE_SEGMENTS];
      for (int k = 0; k < CIRCLE_SEGMENTS; ++k) {
        float a = 6.2831853f * (float)k / CIRCLE_SEGMENTS;
        for (int i = 0; i < 3; ++i) circle[3 * k + i] = r->dims == 3 || i < 2 ? c[i] : 0.0f;
        circle[3 * k + u] += c[3] * cosf(a);
        circle[3 * k + v] += c[3] * sinf(a);
      }
      draw_shape(r, circle, CIRCLE_SEGMENTS, GL_LINE_LOOP, herd_colors.obstacle);
    }
  }
}

/* The guiding path, as a line through points along it. */
static void draw_path(herd_renderer *r, const herd_scenario *sc) {
  float line[3 * CIRCLE_SEGMENTS];
  if (herd_scenario_path_points(sc, CIRCLE_SEGMENTS, line))
    draw_shape(r, line, CIRCLE_SEGMENTS, GL_LINE_STRIP, herd_colors.path);
}

/* ---- Walls, fences, water and bridges ------------------------------------------------------ */

static void add_vertex(vertex_list *l, float x, float y, float z) {
  if (l->failed) return;
  if (l->count == l->cap) {
    int cap = l->cap ? 2 * l->cap : 256;
    float *v = realloc(l->v, (size_t)cap * 3 * sizeof *v);
    if (!v) {
      l->failed = true;
      return;
    }
    l->v = v, l->cap = cap;
  }
  float *p = l->v + 3 * l->count++;
  p[0] = x, p[1] = y, p[2] = z;
}

static void add_triangle(vertex_list *l, const float *a, const float *b, const float *c) {
  add_vertex(l, a[0], a[1], 0.0f);
  add_vertex(l, b[0], b[1], 0.0f);
  add_vertex(l, c[0], c[1], 0.0f);
}

/* An edge of a part's outline, at the outlines' height. */
static void add_edge(geometry_cache *g, int part, const float *a, const float *b) {
  add_vertex(&g->outline[part], a[0], a[1], g->top);
  add_vertex(&g->outline[part], b[0], b[1], g->top);
}

/* In 3D, the vertical edge of a prism at corner p, from the floor to the top. */
static void add_post(geometry_cache *g, int part, const float *p) {
  if (g->dims != 3) return;
  add_vertex(&g->outline[part], p[0], p[1], 0.0f);
  add_vertex(&g->outline[part], p[0], p[1], g->top);
}

/* In 3D, the top edges and the vertical edges of the prism over polygon p (in 2D its fill
 * alone shows it, and an outline over a bridge would close the passage). */
static void add_prism(geometry_cache *g, int part, const float (*p)[2], uint32_t n) {
  if (g->dims != 3) return;
  for (uint32_t k = 0; k < n; ++k) {
    add_edge(g, part, p[k], p[(k + 1) % n]);
    add_post(g, part, p[k]);
  }
}

/* Twice the signed area of triangle abc: positive when it turns counter-clockwise. */
static double turn(const float *a, const float *b, const float *c) {
  return ((double)b[0] - a[0]) * ((double)c[1] - a[1]) - ((double)b[1] - a[1]) * ((double)c[0] - a[0]);
}

/* Triangles filling the simple polygon p of either winding, by ear clipping: cut off a convex
 * corner whose triangle holds no other corner, until three are left. (A triangle fan fills
 * only convex polygons right, and a river or a lake need not be convex.) */
static void add_polygon_fill(vertex_list *out, const float (*p)[2], uint32_t n) {
  uint32_t idx[HERD_MAX_SHAPE_POINTS], m = n < HERD_MAX_SHAPE_POINTS ? n : HERD_MAX_SHAPE_POINTS;
  double area = 0.0;
  for (uint32_t i = 0; i < m; ++i) idx[i] = i, area += turn(p[0], p[i], p[(i + 1) % m]);
  double sense = area < 0.0 ? -1.0 : 1.0;
  while (m >= 3) {
    uint32_t ear = 0; /* when rounding leaves no clean ear, cutting any corner still ends */
    for (uint32_t i = 0; i < m; ++i) {
      const float *a = p[idx[(i + m - 1) % m]], *b = p[idx[i]], *c = p[idx[(i + 1) % m]];
      double t = sense * turn(a, b, c);
      bool empty = t >= 0.0; /* a straight corner (t = 0) is dropped, adding no triangle */
      for (uint32_t j = 0; j < m && empty && t > 0.0; ++j) {
        const float *q = p[idx[j]];
        if (q != a && q != b && q != c)
          empty = !(sense * turn(a, b, q) >= 0.0 && sense * turn(b, c, q) >= 0.0 && sense * turn(c, a, q) >= 0.0);
      }
      if (empty) {
        ear = i;
        break;
      }
    }
    const float *a = p[idx[(ear + m - 1) % m]], *b = p[idx[ear]], *c = p[idx[(ear + 1) % m]];
    if (turn(a, b, c) != 0.0) add_triangle(out, a, b, c);
    memmove(idx + ear, idx + ear + 1, (m - ear - 1) * sizeof idx[0]);
    --m;
  }
}

/* The band within r of the polyline p (a wall, a fence): a rectangle along each segment and a
 * CAP_SEGMENTS-gon at each point (the round ends and joints), filled and outlined. The
 * pieces' outlines cross inside the band, where its fill hides them in 2D; in 3D they are a
 * few short lines at the top. */
static void add_band(geometry_cache *g, const float (*p)[2], uint32_t n, float r) {
  vertex_list *fill = &g->fill[GEO_WALL];
  for (uint32_t k = 0; k < n; ++k) {
    float ring[CAP_SEGMENTS + 1][2];
    for (int i = 0; i <= CAP_SEGMENTS; ++i) {
      float a = 6.2831853f * (float)i / CAP_SEGMENTS;
      ring[i][0] = p[k][0] + r * cosf(a), ring[i][1] = p[k][1] + r * sinf(a);
    }
    for (int i = 0; i < CAP_SEGMENTS; ++i) {
      add_triangle(fill, p[k], ring[i], ring[i + 1]);
      add_edge(g, GEO_WALL, ring[i], ring[i + 1]);
    }
  }
  for (uint32_t k = 0; k + 1 < n; ++k) {
    float dx = p[k + 1][0] - p[k][0], dy = p[k + 1][1] - p[k][1], len = hypotf(dx, dy);
    if (len <= 0.0f) continue;
    float nx = -dy / len * r, ny = dx / len * r;
    float c[4][2] = {{p[k][0] + nx, p[k][1] + ny},
                     {p[k + 1][0] + nx, p[k + 1][1] + ny},
                     {p[k + 1][0] - nx, p[k + 1][1] - ny},
                     {p[k][0] - nx, p[k][1] - ny}};
    add_triangle(fill, c[0], c[1], c[2]);
    add_triangle(fill, c[0], c[2], c[3]);
    add_edge(g, GEO_WALL, c[0], c[1]);
    add_edge(g, GEO_WALL, c[3], c[2]);
    for (int i = 0; i < 4; ++i) add_post(g, GEO_WALL, c[i]);
  }
}

/* The rectangle of width w along segment ab (a bridge's strip), counter-clockwise. */
static void strip_corners(const float *a, const float *b, float w, float out[4][2]) {
  float dx = b[0] - a[0], dy = b[1] - a[1], len = hypotf(dx, dy);
  float nx = len > 0.0f ? -dy / len * 0.5f * w : 0.0f, ny = len > 0.0f ? dx / len * 0.5f * w : 0.0f;
  float c[4][2] = {{a[0] - nx, a[1] - ny}, {b[0] - nx, b[1] - ny}, {b[0] + nx, b[1] + ny}, {a[0] + nx, a[1] + ny}};
  memcpy(out, c, sizeof c);
}

/* The edge of pen s that holds its gate (herd_shape_gate_edge) and the gate's ends on it,
 * ends[0] the nearer to the edge's first corner; -1 when no edge does. */
static int pen_gate(const herd_shape *s, float ends[2][2]) {
  double t[2];
  int k = herd_shape_gate_edge(s, &t[0], &t[1]);
  if (k < 0) return -1;
  const float *a = s->v[k], *b = s->v[((uint32_t)k + 1) % s->count];
  for (int e = 0; e < 2; ++e)
    for (int i = 0; i < 2; ++i) ends[e][i] = (float)(a[i] + t[e] * ((double)b[i] - a[i]));
  return k;
}

/* A pen's fence: the polyline round its boundary from one end of the gate to the other, so
 * that nothing is drawn across the gap; the gate's ends marked by short posts across the
 * fence (vertical ones too in 3D). A pen whose gate lies on no edge is fenced all round. */
static void add_pen(geometry_cache *g, const herd_shape *s) {
  uint32_t n = s->count;
  float fence[HERD_MAX_SHAPE_POINTS + 2][2];
  float ends[2][2];
  int edge = pen_gate(s, ends);
  if (edge < 0) {
    memcpy(fence, s->v, n * sizeof fence[0]);
    memcpy(fence[n], s->v[0], sizeof fence[0]);
    add_band(g, (const float(*)[2])fence, n + 1, 0.5f * s->width_m);
    return;
  }
  /* From the gate's end toward the edge's last corner, round the pen, to its other end. */
  memcpy(fence[0], ends[1], sizeof fence[0]);
  for (uint32_t k = 1; k <= n; ++k) memcpy(fence[k], s->v[((uint32_t)edge + k) % n], sizeof fence[0]);
  memcpy(fence[n + 1], ends[0], sizeof fence[0]);
  add_band(g, (const float(*)[2])fence, n + 2, 0.5f * s->width_m);
  float dx = ends[1][0] - ends[0][0], dy = ends[1][1] - ends[0][1], half = GATE_POST;
  for (int e = 0; e < 2; ++e) {
    float a[2] = {ends[e][0] + half * dy, ends[e][1] - half * dx},
          b[2] = {ends[e][0] - half * dy, ends[e][1] + half * dx};
    add_edge(g, GEO_GATE, a, b);
    add_post(g, GEO_GATE, ends[e]);
  }
}

static void build_geometry(geometry_cache *g, const herd_scenario_info *sc, const herd_obstacles *obstacles) {
  for (int k = 0; k < GEO_PARTS; ++k) {
    g->fill[k].count = g->outline[k].count = 0;
    g->fill[k].failed = g->outline[k].failed = false;
  }
  g->dims = sc->dims;
  g->top = g->dims == 3 ? sc->size_m[2] : 0.0f;
  g->walls = obstacles->walls, g->water = obstacles->water;
  g->pens = obstacles->pens, g->bridges = obstacles->bridges;
  for (uint32_t i = 0; i < g->water.count; ++i) {
    const herd_shape *s = &g->water.s[i];
    add_polygon_fill(&g->fill[GEO_WATER], (const float(*)[2])s->v, s->count);
    add_prism(g, GEO_WATER, (const float(*)[2])s->v, s->count);
  }
  for (uint32_t i = 0; i < g->bridges.count; ++i) {
    const herd_shape *s = &g->bridges.s[i];
    float c[4][2];
    strip_corners(s->v[0], s->v[1], s->width_m, c);
    add_triangle(&g->fill[GEO_BRIDGE], c[0], c[1], c[2]);
    add_triangle(&g->fill[GEO_BRIDGE], c[0], c[2], c[3]);
    add_prism(g, GEO_BRIDGE, (const float(*)[2])c, 4);
  }
  for (uint32_t i = 0; i < g->walls.count; ++i) {
    const herd_shape *s = &g->walls.s[i];
    add_band(g, (const float(*)[2])s->v, s->count, 0.5f * s->width_m);
  }
  for (uint32_t i = 0; i < g->pens.count; ++i) add_pen(g, &g->pens.s[i]);
  g->built = true;
}

/* True when the cached lists were built from this scenario's geometry and world. */
static bool geometry_current(const geometry_cache *g, const herd_scenario_info *sc, const herd_obstacles *obstacles) {
  const herd_shape_list *now[4] = {&obstacles->walls, &obstacles->water, &obstacles->pens, &obstacles->bridges};
  const herd_shape_list *was[4] = {&g->walls, &g->water, &g->pens, &g->bridges};
  bool same = g->built && g->dims == sc->dims && g->top == (g->dims == 3 ? sc->size_m[2] : 0.0f);
  for (int k = 0; k < 4 && same; ++k) same = memcmp(now[k], was[k], sizeof *now[k]) == 0;
  return same;
}

static void draw_list(herd_renderer *r, const vertex_list *l, GLenum mode, const uint8_t rgb[3]) {
  if (l->count && !l->failed) draw_shape(r, l->v, l->count, mode, rgb);
}

/* ---- The route: the routing field's arrows, the flock's waypoint, each dog's aim -------------- */

void herd_renderer_show_route(herd_renderer *r, bool on) { r->route.shown = on; }

bool herd_renderer_route_shown(const herd_renderer *r) { return r->route.shown; }

/* True when segment ab keeps out of every wall, fence and water (each sample on it outside). */
static bool segment_clear(const herd_scenario *sc, const float *a, const float *b) {
  float dx = b[0] - a[0], dy = b[1] - a[1];
  int n = 1 + (int)(hypotf(dx, dy) / ARROW_SAMPLE_M);
  for (int k = 0; k <= n; ++k) {
    float t = (float)k / (float)n;
    if (herd_scenario_obstacle_distance(sc, a[0] + t * dx, a[1] + t * dy) < 0.0) return false;
  }
  return true;
}

/* The end of a side of an arrow's head at tip, `side` (+1 or -1) of the shaft along u. */
static void head_end(const float *tip, float ux, float uy, float back, float side, float out[2]) {
  float c = cosf(ARROW_HEAD_RAD), s = side * sinf(ARROW_HEAD_RAD);
  out[0] = tip[0] - back * (ux * c - uy * s);
  out[1] = tip[1] - back * (uy * c + ux * s);
}

/* The arrows of herd_renderer_show_route (render.h says where they are and are not). */
static void build_route(route_cache *c, const herd_sim *sim, const herd_scenario_info *world,
                        const herd_obstacles *obstacles) {
  const herd_scenario *sc = herd_sim_scenario(sim);
  vertex_list *l = &c->arrows;
  l->count = 0, l->failed = false;
  c->sim = sim, c->built = true;
  c->world = *world;
  memcpy(&c->obstacles, obstacles, sizeof c->obstacles); /* for the memcmp that finds a change */
  if (!world->shapes) return;
  float spacing = fmaxf(HERD_ROUTE_SPACING_M, fmaxf(world->size_m[0], world->size_m[1]) / HERD_ROUTE_ARROWS_MAX);
  float length = 0.5f * spacing, back = ARROW_HEAD * length;
  for (float y = 0.5f * spacing; y < world->size_m[1]; y += spacing)
    for (float x = 0.5f * spacing; x < world->size_m[0]; x += spacing) {
      float p[2] = {x, y}, q[2];
      if (!herd_sim_route_waypoint(sim, p, HERD_ROUTE_AHEAD_M, q)) continue;
      float dx = q[0] - x, dy = q[1] - y, len = hypotf(dx, dy);
      if (len < HERD_ROUTE_HOME_M) continue; /* home */
      float ux = dx / len, uy = dy / len, tip[2] = {x + length * ux, y + length * uy}, left[2], right[2];
      head_end(tip, ux, uy, back, 1.0f, left);
      head_end(tip, ux, uy, back, -1.0f, right);
      if (!segment_clear(sc, p, tip) || !segment_clear(sc, tip, left) || !segment_clear(sc, tip, right)) continue;
      const float *ends[6] = {p, tip, tip, left, tip, right};
      for (int k = 0; k < 6; ++k) add_vertex(l, ends[k][0], ends[k][1], 0.0f);
    }
}

/* True when the route's arrows were built for this world (the route follows from the world,
 * its target and obstacles, and the dogs that drive a flock along it). */
static bool route_current(const route_cache *c, const herd_sim *sim, const herd_scenario_info *world,
                          const herd_obstacles *obstacles) {
  const herd_scenario_info *was = &c->world;
  bool same = c->built && c->sim == sim && was->dims == world->dims && was->dogs == world->dogs &&
              was->goal_radius_m == world->goal_radius_m;
  for (int k = 0; k < 3 && same; ++k)
    same = was->size_m[k] == world->size_m[k] && was->target_m[k] == world->target_m[k];
  return same && memcmp(&c->obstacles, obstacles, sizeof *obstacles) == 0;
}

static void draw_route_arrows(herd_renderer *r, const herd_sim *sim, const herd_scenario_info *world) {
  route_cache *c = &r->route;
  if (!c->shown) return;
  if (!route_current(c, sim, world, &r->obstacles)) build_route(c, sim, world, &r->obstacles);
  draw_list(r, &c->arrows, GL_LINES, herd_colors.route);
}

/* A ring of radius `size` about p with a line to it from `from` (both 3 floats; z is 0 in 2D),
 * in rgb: a dog's aim, a shepherd's steering point. */
static void draw_ring(herd_renderer *r, const float *from, const float *p, float size, const uint8_t rgb[3]) {
  float line[6], ring[3 * 24];
  drawn_point(r, from, line);
  drawn_point(r, p, line + 3);
  circle_points(ring, 24, line + 3, size);
  draw_shape(r, line, 2, GL_LINES, rgb);
  draw_shape(r, ring, 24, GL_LINE_LOOP, rgb);
}

/* The aim's ring and the waypoint's diamond: HERD_ROUTE_MARK_PX in 2D, in 3D a small part of
 * the world. */
static float mark_size(const herd_scenario_info *sc, const herd_camera *cam) {
  return cam->orbit ? MARK_WORLD * fmaxf(sc->size_m[0], sc->size_m[1]) : HERD_ROUTE_MARK_PX * cam->metres_per_px;
}

/* A filled diamond of radius `size` at p with a line to it from `from`, in rgb (the waypoint). */
static void draw_diamond(herd_renderer *r, const float *from, const float *p, float size, const uint8_t rgb[3]) {
  float line[6] = {from[0], from[1], 0, p[0], p[1], 0};
  float x = p[0], y = p[1],
        d[18] = {x + size, y, 0, x, y + size, 0, x - size, y, 0, x - size, y, 0, x, y - size, 0, x + size, y, 0};
  draw_shape(r, line, 2, GL_LINES, rgb);
  draw_shape(r, d, 6, GL_TRIANGLES, rgb);
}

/* The flock's waypoint (herd_sim_flock_waypoint: where the dogs drive it) and each dog's aim,
 * where the scenario has walls, water or pens. */
static void draw_route_marks(herd_renderer *r, const herd_sim *sim, const herd_scenario_info *sc,
                             const herd_camera *cam) {
  if (!sc->shapes) return;
  float size = mark_size(sc, cam);
  const herd_observation *o = herd_sim_observation(sim);
  float g[2] = {(float)o->centroid[0], (float)o->centroid[1]}, q[2];
  if (herd_sim_flock_waypoint(sim, q)) draw_diamond(r, g, q, size, herd_colors.waypoint);
  for (uint32_t d = 0; d < herd_sim_steering_count(sim); ++d) {
    const herd_steering_state *a = herd_sim_steering(sim, d);
    bool aiming = a->mode == HERD_MODE_COLLECT || a->mode == HERD_MODE_DRIVE;
    if (a->strategy == HERD_STRATEGY_DOG && aiming && isfinite(a->aim[0]) && isfinite(a->aim[1]))
      draw_ring(r, a->pos, a->aim, size, herd_colors.dog);
  }
}

/* ---- Groups, shepherds' steering points, the selected steering agent ------------------------ */

/* Each tracked group's enclosing circle (solid) and compact area (dashed: every other
 * segment), in its colour, where groups are shown and observed. */
static void draw_groups(herd_renderer *r, const herd_sim *sim) {
  if (!r->have_groups) return;
  const herd_observation *o = herd_sim_observation(sim);
  for (uint32_t g = 0; g < o->groups_tracked && g < HERD_MAX_GROUPS; ++g) {
    const herd_group *grp = &o->group[g];
    float c[3] = {(float)grp->centroid[0], (float)grp->centroid[1], r->dims == 3 ? (float)grp->centroid[2] : 0.0f};
    float circle[3 * CIRCLE_SEGMENTS];
    circle_points(circle, CIRCLE_SEGMENTS, c, grp->radius_m);
    draw_shape(r, circle, CIRCLE_SEGMENTS, GL_LINE_LOOP, herd_group_color(g));
    if (grp->compact_radius_m <= 0.0f) continue;
    circle_points(circle, CIRCLE_SEGMENTS, c, grp->compact_radius_m);
    draw_shape(r, circle, CIRCLE_SEGMENTS, GL_LINES, herd_group_color(g));
  }
}

/* Each shepherd's steering point and its assignment: a line from the shepherd to that point
 * (none while it aims nowhere or the user steers it). */
static void draw_shepherd_aims(herd_renderer *r, const herd_sim *sim, float size) {
  for (uint32_t d = 0; d < herd_sim_steering_count(sim); ++d) {
    const herd_steering_state *a = herd_sim_steering(sim, d);
    bool aiming = a->mode != HERD_MODE_MANUAL && isfinite(a->aim[0]) && isfinite(a->aim[1]) &&
                  (r->dims != 3 || isfinite(a->aim[2]));
    if (a->strategy == HERD_STRATEGY_SHEPHERD && aiming) draw_ring(r, a->pos, a->aim, size, herd_colors.shepherd);
  }
}

/* A ring round the selected steering agent, a little wider than its body (and than an aim's
 * ring, however far the view is zoomed out). */
static void draw_selection(herd_renderer *r, const herd_sim *sim, float size) {
  const herd_steering_state *a = r->selected >= 0 ? herd_sim_steering(sim, (uint32_t)r->selected) : NULL;
  if (!a) return;
  float body = HERD_STEERING_BODY_SCALE * herd_model_body_m(herd_scenario_describe(herd_sim_scenario(sim)).model);
  float c[3], ring[3 * CIRCLE_SEGMENTS];
  drawn_point(r, a->pos, c);
  circle_points(ring, CIRCLE_SEGMENTS, c, fmaxf(0.9f * body, 2.0f * size));
  draw_shape(r, ring, CIRCLE_SEGMENTS, GL_LINE_LOOP, herd_colors.selected);
}

static void draw_overlays(herd_renderer *r, const herd_sim *sim, const herd_camera *cam, const float *view) {
  const herd_scenario *scenario = herd_sim_scenario(sim);
  herd_scenario_info info = herd_scenario_describe(scenario), *sc = &info;
  herd_scenario_obstacles(scenario, &r->obstacles);
  herd_draw_use_shapes(r, view);
  geometry_cache *g = &r->geometry;
  if (!geometry_current(g, sc, &r->obstacles)) build_geometry(g, sc, &r->obstacles);
  const uint8_t *colors[GEO_PARTS] = {herd_colors.water, herd_colors.bridge, herd_colors.obstacle, herd_colors.target};
  /* The fills first, as paint on the floor under every line and agent: in 3D without the
   * depth test (which also leaves the depth buffer alone), since water and the bridges over
   * it lie in one plane and would fight for it, and without culling, since the floor is seen
   * from either side and a fill's triangles wind either way. Bridges over water, walls over
   * both. */
  if (r->dims == 3) glDisable(GL_DEPTH_TEST), glDisable(GL_CULL_FACE);
  for (int k = 0; k < GEO_PARTS; ++k) draw_list(r, &g->fill[k], GL_TRIANGLES, colors[k]);
  if (r->dims == 3) glEnable(GL_DEPTH_TEST), glEnable(GL_CULL_FACE);
  draw_route_arrows(r, sim, sc); /* dim, under everything but the floor */
  draw_world(r, sc);
  draw_goal(r, sc);
  draw_obstacles(r, &r->obstacles);
  for (int k = 0; k < GEO_PARTS; ++k) draw_list(r, &g->outline[k], GL_LINES, colors[k]);
  draw_path(r, scenario);
  draw_groups(r, sim);
  draw_route_marks(r, sim, sc, cam);
  draw_shepherd_aims(r, sim, mark_size(sc, cam));
  draw_selection(r, sim, mark_size(sc, cam));
}

/* The uniforms every agent shares: camera, colours by state, and the 3D light. */
static void agent_uniforms(const herd_renderer *r, const float *view) {
  GLuint p = r->agents_program;
  glUseProgram(p);
  glUniformMatrix4fv(glGetUniformLocation(p, "view"), 1, GL_FALSE, view);
  float colors[12];
  const uint8_t *states[4] = {herd_colors.grazing, herd_colors.moved, herd_colors.delivered, herd_colors.alert};
  for (int s = 0; s < 4; ++s)
    for (int c = 0; c < 3; ++c) colors[3 * s + c] = states[s][c] / 255.0f;
  glUniform3fv(glGetUniformLocation(p, "state_color"), 4, colors);
  float groups[3 * HERD_GROUP_COLORS];
  for (uint32_t g = 0; g < HERD_GROUP_COLORS; ++g)
    for (int c = 0; c < 3; ++c) groups[3 * g + c] = herd_group_color(g)[c] / 255.0f;
  glUniform3fv(glGetUniformLocation(p, "group_color"), HERD_GROUP_COLORS, groups);
  set_color(p, "untracked_color", herd_colors.untracked);
  glUniform1i(glGetUniformLocation(p, "by_group"), r->have_groups);
  /* The 3D light comes from above, a little toward the side the default camera looks from;
   * fixed in the world, so what faces up stays bright as the camera orbits. */
  vec3 light = {-0.10f, -0.50f, 0.86f};
  glm_vec3_normalize(light);
  glUniform3fv(glGetUniformLocation(p, "light"), 1, light);
  glUniform1f(glGetUniformLocation(p, "ambient"), HERD_AMBIENT);
  glUniform1i(glGetUniformLocation(p, "lit"), r->dims == 3);
}

/* How a steering agent is drawn: in the dog's colour (dogs, cruisers, pursuers, the manual
 * agent), the shepherd's, or as a food particle (as large as a flock agent); eaten food not. */
typedef enum steering_look { LOOK_PLAIN, LOOK_SHEPHERD, LOOK_FOOD, LOOK_COUNT, LOOK_NONE = LOOK_COUNT } steering_look;

static steering_look look_of(const herd_steering_state *a) {
  if (a->strategy == HERD_STRATEGY_FOOD) return a->mode == HERD_MODE_EATEN ? LOOK_NONE : LOOK_FOOD;
  return a->strategy == HERD_STRATEGY_SHEPHERD ? LOOK_SHEPHERD : LOOK_PLAIN;
}

/* The positions and headings of the steering agents drawn with `look` into their buffers, in
 * the flock's layout; returns how many. */
static uint32_t upload_steering(herd_renderer *r, const herd_sim *sim, steering_look look) {
  uint32_t count = 0, dims = r->dims, stride = r->stride;
  bool food = look == LOOK_FOOD;
  float pos[4 * HERD_MAX_STEERING] = {0}, heading[4 * HERD_MAX_STEERING] = {0};
  for (uint32_t d = 0; d < herd_sim_steering_count(sim); ++d) {
    const herd_steering_state *a = herd_sim_steering(sim, d);
    if (look_of(a) != look) continue;
    for (uint32_t k = 0; k < dims; ++k) pos[stride * count + k] = a->pos[k];
    heading[stride * count] = 1.0f; /* food has no heading: any will do */
    for (uint32_t k = 0; !food && k < dims; ++k) heading[stride * count + k] = a->heading[k];
    ++count;
  }
  if (count == 0) return 0; /* nothing to send: WebGL reads a length of 0 as "all the rest" */
  glBindBuffer(GL_ARRAY_BUFFER, r->steer_pos_vbo);
  glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(count * stride * sizeof(float)), pos);
  glBindBuffer(GL_ARRAY_BUFFER, r->steer_heading_vbo);
  glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(count * stride * sizeof(float)), heading);
  return count;
}

static void draw_agents(herd_renderer *r, const herd_sim *sim, const float *view) {
  GLuint p = r->agents_program;
  agent_uniforms(r, view);
  float body_m = herd_model_body_m(herd_scenario_describe(herd_sim_scenario(sim)).model);
  glUniform1f(glGetUniformLocation(p, "body_m"), body_m);
  glUniform1i(glGetUniformLocation(p, "use_fixed"), 0);
  glBindVertexArray(r->agents_vao);
  glDrawElementsInstanced(GL_TRIANGLES, r->body_indices, GL_UNSIGNED_SHORT, NULL, (GLsizei)r->count);

  glUniform1i(glGetUniformLocation(p, "use_fixed"), 1);
  glBindVertexArray(r->dogs_vao);
  const uint8_t *colors[LOOK_COUNT] = {herd_colors.dog, herd_colors.shepherd, herd_colors.food};
  for (int look = 0; look < LOOK_COUNT; ++look) {
    uint32_t count = upload_steering(r, sim, (steering_look)look);
    glUniform1f(glGetUniformLocation(p, "body_m"), look == LOOK_FOOD ? body_m : HERD_STEERING_BODY_SCALE * body_m);
    set_color(p, "fixed_color", colors[look]);
    glDrawElementsInstanced(GL_TRIANGLES, r->body_indices, GL_UNSIGNED_SHORT, NULL, (GLsizei)count);
  }
}

void herd_draw_text(herd_renderer *r, float x, float y, const char *text, int w, int h, const uint8_t rgb[3]) {
  if (!text || !*text) return;
  unsigned char color[4] = {rgb[0], rgb[1], rgb[2], 255};
  float scale = herd_hud_scale(h);
  int quads = stb_easy_font_print(x / scale, y / scale, (char *)text, color, r->hud_vertices, HUD_MAX_QUADS * 4 * 16);
  if (quads <= 0) return;
  glUseProgram(r->hud_program);
  glUniform2f(glGetUniformLocation(r->hud_program, "screen"), (float)w, (float)h);
  /* Large text on large frames, small on small ones (a short GIF, say). */
  glUniform1f(glGetUniformLocation(r->hud_program, "scale"), scale);
  glBindVertexArray(r->hud_vao);
  glBindBuffer(GL_ARRAY_BUFFER, r->hud_vbo);
  glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)quads * 4 * 16, r->hud_vertices);
  glDrawElements(GL_TRIANGLES, quads * 6, GL_UNSIGNED_INT, NULL);
}

float herd_hud_height_px(const char *text, int h) {
  if (!text || !*text) return 0.0f;
  return herd_hud_scale(h) * (6.0f + (float)stb_easy_font_height((char *)text));
}

static void draw_hud(herd_renderer *r, const char *text, int w, int h) {
  herd_draw_text(r, 6.0f * herd_hud_scale(h), 6.0f * herd_hud_scale(h), text, w, h, herd_colors.hud);
}

void herd_renderer_draw(herd_renderer *r, const herd_sim *sim, const herd_camera *cam, int w, int h, const char *hud) {
  glViewport(0, 0, w, h);
  glClearColor(herd_colors.background[0] / 255.0f, herd_colors.background[1] / 255.0f,
               herd_colors.background[2] / 255.0f, 1.0f);
  glClearDepth(1.0);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  /* 3D needs the nearest surface in front; 2D draws in order, agents over the field. The
   * cones are closed and wound counter-clockwise seen from outside, so their far sides can be
   * culled (half the rasterising); lines are never culled. */
  if (r->dims == 3) {
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glEnable(GL_CULL_FACE);
    glCullFace(GL_BACK);
    glFrontFace(GL_CCW);
  } else {
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
  }
  glDisable(GL_BLEND);
  float view[16];
  herd_camera_matrix(cam, w, h, view);
  draw_overlays(r, sim, cam, view);
  draw_agents(r, sim, view);
  glDisable(GL_DEPTH_TEST); /* the overlays and the HUD lie over everything */
  glDisable(GL_CULL_FACE);
  herd_overlays_draw(r, sim, cam, w, h);
  if (r->plot) herd_plot_draw(r->plot, w, h);
  draw_hud(r, hud, w, h);
  glBindVertexArray(0);
}

static herd_status ensure_fbo(herd_renderer *r, int w, int h, herd_error *err) {
  if (r->fbo && r->fbo_w == w && r->fbo_h == h) return HERD_OK;
  if (!r->fbo) glGenFramebuffers(1, &r->fbo);
  if (!r->fbo_color) glGenRenderbuffers(1, &r->fbo_color);
  if (!r->fbo_depth) glGenRenderbuffers(1, &r->fbo_depth);
  glBindRenderbuffer(GL_RENDERBUFFER, r->fbo_color);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
  glBindRenderbuffer(GL_RENDERBUFFER, r->fbo_depth);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, w, h);
  glBindFramebuffer(GL_FRAMEBUFFER, r->fbo);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, r->fbo_color);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, r->fbo_depth);
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

/* ---- For the live plot (plot.c) ---------------------------------------------------------- */

void herd_renderer_set_plot(herd_renderer *r, herd_plot *plot) { r->plot = plot; }
