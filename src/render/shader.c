/* The renderer's shader programs: a vertex shader's source linked with colour.frag. Its own
 * file, below the renderer and the live plot that both link programs with it. */
#include <GL/glew.h>
#include <string.h>

#include "../util/error.h"
#include "render.h"

extern const char herd_shader_color_frag[];

/* The version line the shaders are compiled with: the files' own (GLSL 3.30 core) on the
 * desktop; GLSL ES 3.00 with its precisions in the web build (WebGL2). The rest of each source
 * is the same text. */
#ifdef __EMSCRIPTEN__
static const char version_line[] = "#version 300 es\nprecision highp float;\nprecision highp int;\n";
#else
static const char version_line[] = "";
#endif

static herd_status compile(GLenum kind, const char *source, const char *name, GLuint *out, herd_error *err) {
  GLuint s = glCreateShader(kind);
  const char *body = source;
  if (version_line[0] && strncmp(source, "#version", 8) == 0 && strchr(source, '\n')) body = strchr(source, '\n') + 1;
  const char *parts[2] = {version_line, body};
  glShaderSource(s, 2, parts, NULL);
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

herd_status herd_render_link(const char *vert, const char *vert_name, unsigned *out, herd_error *err) {
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
