#define _POSIX_C_SOURCE 200809L
#include "jsonfile.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"

herd_status herd_read_json_file(const char *path, const char *what, char **out, herd_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return herd_fail(err, HERD_E_INPUT, "%s: cannot open: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
    fclose(f);
    return herd_fail(err, HERD_E_INPUT, "%s: is a folder; %s is a JSON file", path, what);
  }
  char *text = NULL;
  size_t len = 0, cap = 0;
  bool too_big = false;
  for (;;) {
    if (len + 4096 + 1 > cap) {
      cap = cap ? cap * 2 : 8192;
      char *grown = realloc(text, cap);
      if (!grown) {
        free(text);
        fclose(f);
        return herd_fail(err, HERD_E_MEMORY, "%s: out of memory reading the file", path);
      }
      text = grown;
    }
    size_t got = fread(text + len, 1, 4096, f);
    len += got;
    if (len > HERD_MAX_JSON_FILE_BYTES) too_big = true;
    if (got < 4096 || too_big) break;
  }
  int read_errno = ferror(f) ? errno : 0;
  fclose(f);
  if (too_big || read_errno) {
    free(text);
    if (too_big)
      return herd_fail(err, HERD_E_INPUT, "%s: larger than %u MiB; %s is a small JSON file", path,
                       HERD_MAX_JSON_FILE_BYTES >> 20, what);
    return herd_fail(err, HERD_E_INPUT, "%s: cannot read: %s", path, strerror(read_errno));
  }
  text[len] = '\0';
  if (strlen(text) != len) {
    free(text);
    return herd_fail(err, HERD_E_INPUT, "%s: contains a NUL byte; %s is JSON text", path, what);
  }
  *out = text;
  return HERD_OK;
}

const char *herd_skip_bom(const char *text) { return strncmp(text, "\xef\xbb\xbf", 3) == 0 ? text + 3 : text; }
