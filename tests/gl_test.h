/* The main of a test that draws (test_view, test_view_overlays, test_plot): skipped (77)
 * without a display (run it under tests/with_xvfb.sh); otherwise a hidden 64x64 window whose GL
 * context the tests draw in, `run` (the test list), and the renderer (if any) and window
 * closed. */
#ifndef HERD_TESTS_GL_TEST_H
#define HERD_TESTS_GL_TEST_H
#include <stdio.h>

#include "render/render.h"

static inline int gl_test_main(herd_window **window, herd_renderer **renderer, int (*run)(void)) {
  char why[300];
  if (!herd_display_available(why, sizeof why)) {
    printf("%s: skipped (run under xvfb-run)\n", why);
    return 77;
  }
  herd_error err;
  if (herd_window_open(&(herd_window_desc){.width = 64, .height = 64, .hidden = true}, window, &err) != HERD_OK) {
    printf("%s\n", err.message);
    return 1;
  }
  int status = run();
  if (renderer) herd_renderer_destroy(*renderer);
  herd_window_close(*window);
  return status;
}

#endif
