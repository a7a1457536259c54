/* PNG output through libpng. */
#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <string.h>

#include "../core/error.h"
#include "render.h"

herd_status herd_write_png(const char *path, const uint8_t *rgba, int w, int h, bool force, herd_error *err) {
  /* "x": fail rather than replace an existing file (C11). */
  FILE *f = fopen(path, force ? "wb" : "wbx");
  if (!f) {
    if (errno == EEXIST)
      return herd_fail(err, HERD_E_INPUT, "%s: file exists; not replacing it (use --force to replace)", path);
    return herd_fail(err, HERD_E_INPUT, "%s: cannot create: %s", path, strerror(errno));
  }
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  png_infop info = png ? png_create_info_struct(png) : NULL;
  if (!png || !info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    fclose(f);
    remove(path);
    return herd_fail(err, HERD_E_IO, "%s: writing the PNG failed", path);
  }
  png_init_io(png, f);
  png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < h; ++y) png_write_row(png, (png_const_bytep)(rgba + (size_t)y * (size_t)w * 4));
  png_write_end(png, NULL);
  png_destroy_write_struct(&png, &info);
  if (fclose(f) != 0) {
    remove(path);
    return herd_fail(err, HERD_E_IO, "%s: write failed (disk full?)", path);
  }
  return HERD_OK;
}
