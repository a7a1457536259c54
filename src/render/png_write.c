/* PNG output through libpng, written the safe way (util/outfile.h). */
#include <png.h>
#include <stdio.h>

#include "../util/error.h"
#include "../util/outfile.h"
#include "render.h"

/* libpng reports errors by longjmp: the rows go out in a function of their own so that no
 * local of the caller is changed between setjmp and longjmp. */
static bool write_rows(FILE *f, const uint8_t *rgba, int w, int h) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  png_infop info = png ? png_create_info_struct(png) : NULL;
  if (!png || !info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_init_io(png, f);
  png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < h; ++y) png_write_row(png, (png_const_bytep)(rgba + (size_t)y * (size_t)w * 4));
  png_write_end(png, NULL);
  png_destroy_write_struct(&png, &info);
  return true;
}

herd_status herd_write_png(const char *option, const char *path, const uint8_t *rgba, int w, int h, bool force,
                           herd_error *err) {
  herd_outfile out;
  herd_status s = herd_outfile_open(&out, option, path, force, err);
  if (s != HERD_OK) return s;
  if (!write_rows(out.f, rgba, w, h)) {
    herd_outfile_abandon(&out);
    return herd_fail(err, HERD_E_IO, "%s %s: writing the PNG failed", option, path);
  }
  return herd_outfile_commit(&out, err);
}
