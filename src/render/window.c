/* A GLFW window with a GL 3.3 core context, loaded by GLEW; in the web build (emscripten) a
 * WebGL2 canvas through emscripten's GLFW, its OpenGL ES 3.0 context. */
#define _POSIX_C_SOURCE 200809L
#include <GL/glew.h>
/* glew.h first: it must come before any other GL header. */
#ifndef __EMSCRIPTEN__
#include <GL/glx.h>
#endif
#include <GLFW/glfw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "render.h"

struct herd_window {
  GLFWwindow *glfw;
};

static char glfw_last_error[256];

static void on_glfw_error(int code, const char *text) {
  snprintf(glfw_last_error, sizeof glfw_last_error, "%s (GLFW error 0x%x)", text, code);
}

bool herd_display_available(char *why, size_t why_size) {
#ifdef __EMSCRIPTEN__
  (void)why, (void)why_size;
  return glfwInit() == GLFW_TRUE; /* the page's canvas */
#endif
  const char *display = getenv("DISPLAY");
  if (!display || !*display) {
    snprintf(why, why_size, "no display (DISPLAY is not set)");
    return false;
  }
  glfwSetErrorCallback(on_glfw_error);
  if (!glfwInit()) {
    snprintf(why, why_size, "cannot open display %s: %s", display, glfw_last_error);
    return false;
  }
  /* GLFW stays initialised (herd_window_close ends it): closing the display connection here
   * would let an X server with no other client reset itself, and a window opened a moment
   * later would find no display. */
  return true;
}

/* What a plain context offers, to say why 3.3 core failed. */
static void probe_gl_version(char *out, size_t size) {
  glfwDefaultWindowHints();
  glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
  GLFWwindow *w = glfwCreateWindow(64, 64, "probe", NULL, NULL);
  if (!w) {
    snprintf(out, size, "no OpenGL context at all (%s)", glfw_last_error);
    return;
  }
  glfwMakeContextCurrent(w);
  const char *version = (const char *)glGetString(GL_VERSION); /* GL 1.0: exported by libGL */
  const char *renderer = (const char *)glGetString(GL_RENDERER);
  snprintf(out, size, "OpenGL %s on %s", version ? version : "?", renderer ? renderer : "?");
  glfwDestroyWindow(w);
}

herd_status herd_window_open(const herd_window_desc *desc, herd_window **out, herd_error *err) {
  char why[300];
  if (!herd_display_available(why, sizeof why)) return herd_fail(err, HERD_E_BACKEND, "%s", why);
  glfwSetErrorCallback(on_glfw_error);
  if (!glfwInit()) return herd_fail(err, HERD_E_BACKEND, "GLFW: %s", glfw_last_error);
#ifdef __EMSCRIPTEN__
  glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API); /* WebGL2 (linked with -sMAX_WEBGL_VERSION=2) */
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
#else
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
#endif
  glfwWindowHint(GLFW_VISIBLE, desc->hidden ? GLFW_FALSE : GLFW_TRUE);
  glfwWindowHint(GLFW_SAMPLES, 0);
  int w = desc->width > 0 ? desc->width : 1280, h = desc->height > 0 ? desc->height : 800;
  GLFWwindow *glfw = glfwCreateWindow(w, h, desc->title ? desc->title : "herd", NULL, NULL);
  if (!glfw) {
    char found[300];
    probe_gl_version(found, sizeof found);
    glfwTerminate();
    return herd_fail(err, HERD_E_BACKEND, "herd needs OpenGL 3.3 core; found %s", found);
  }
  glfwMakeContextCurrent(glfw);
  glewExperimental = GL_TRUE;
  GLenum glew = glewInit();
  /* Debian's GLEW reports GLEW_ERROR_NO_GLX_DISPLAY (4) with EGL though it loaded everything. */
  if (glew != GLEW_OK && glew != 4) {
    glfwDestroyWindow(glfw);
    glfwTerminate();
    return herd_fail(err, HERD_E_BACKEND, "GLEW: %s", (const char *)glewGetErrorString(glew));
  }
  glGetError(); /* glewInit leaves a stale GL_INVALID_ENUM on core profiles */
  herd_window *win = calloc(1, sizeof *win);
  if (!win) {
    glfwDestroyWindow(glfw);
    glfwTerminate();
    return herd_fail(err, HERD_E_MEMORY, "out of memory opening a window");
  }
  win->glfw = glfw;
  glfwSwapInterval(0); /* the simulation paces itself; the HUD shows real frame rates */
  *out = win;
  return HERD_OK;
}

void herd_window_close(herd_window *w) {
  if (!w) return;
  glfwDestroyWindow(w->glfw);
  glfwTerminate();
  free(w);
}

GLFWwindow *herd_window_glfw(herd_window *w) { return w->glfw; }

herd_gl_share herd_window_share_handles(herd_window *w) {
  herd_gl_share s = {0};
  glfwMakeContextCurrent(w->glfw);
#ifndef __EMSCRIPTEN__ /* the web build has no OpenCL to share with */
  s.gl_context = (void *)glXGetCurrentContext();
  s.display = (void *)glXGetCurrentDisplay();
#endif
  return s;
}
