#define _POSIX_C_SOURCE 200809L
#include "jsonfile.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "infile.h"

herd_status herd_read_json_file(const char *path, const char *what, char **out, herd_error *err) {
  char *text = NULL;
  size_t len = 0;
  herd_status s = herd_input_read(path, path, what, HERD_MAX_JSON_FILE_BYTES, &text, &len, err);
  if (s != HERD_OK) return s;
  if (strlen(text) != len) {
    free(text);
    return herd_fail(err, HERD_E_INPUT, "%s: contains a NUL byte; %s is JSON text", path, what);
  }
  *out = text;
  return HERD_OK;
}

/* The number token at s (JSON's grammar, loosely: what jansson would go on to read). */
static size_t number_length(const char *s) { return strspn(s, "+-0123456789.eE"); }

bool herd_number_underflows(const char *token, size_t len) {
  char copy[128];
  if (len >= sizeof copy) len = sizeof copy - 1;
  memcpy(copy, token, len);
  copy[len] = '\0';
  size_t mantissa = strcspn(copy, "eE");
  bool nonzero = strcspn(copy, "123456789") < mantissa;
  return nonzero && strtod(copy, NULL) == 0.0;
}

herd_status herd_check_json_numbers(const char *text, const char *origin, herd_error *err) {
  int line = 1, column = 1;
  bool in_string = false;
  for (const char *p = text; *p;) {
    if (in_string) {
      if (*p == '\\' && p[1])
        ++p, ++column;
      else if (*p == '"')
        in_string = false;
    } else if (*p == '"') {
      in_string = true;
    } else if (*p == '-' || (*p >= '0' && *p <= '9')) {
      size_t len = number_length(p);
      if (herd_number_underflows(p, len))
        return herd_fail(err, HERD_E_INPUT, "%s:%d:%d: %.*s is too small for a number here: it would read as 0", origin,
                         line, column, (int)(len < 40 ? len : 40), p);
      p += len, column += (int)len;
      continue;
    }
    if (*p == '\n') ++line, column = 0;
    ++p, ++column;
  }
  return HERD_OK;
}

const char *herd_skip_bom(const char *text) { return strncmp(text, "\xef\xbb\xbf", 3) == 0 ? text + 3 : text; }
