#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (1 to 4), or 0 when s does not start one. Rejects
 * overlong forms, surrogates and code points above U+10FFFF; *cp gets the code point. */
static size_t utf8_sequence(const unsigned char *s, unsigned *cp) {
  unsigned c = s[0];
  size_t len;
  unsigned min;
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  if (c >= 0xc2 && c <= 0xdf)
    len = 2, min = 0x80, c &= 0x1f;
  else if (c >= 0xe0 && c <= 0xef)
    len = 3, min = 0x800, c &= 0x0f;
  else if (c >= 0xf0 && c <= 0xf4)
    len = 4, min = 0x10000, c &= 0x07;
  else
    return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((s[k] & 0xc0) != 0x80) return 0; /* also stops at the terminating NUL */
    c = (c << 6) | (s[k] & 0x3fu);
  }
  if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) return 0;
  *cp = c;
  return len;
}

bool herd_utf8_valid(const char *text) {
  const unsigned char *s = (const unsigned char *)text;
  unsigned cp;
  for (size_t len; *s; s += len)
    if (!(len = utf8_sequence(s, &cp))) return false;
  return true;
}

/* The escape for code point cp, or "" when it may be shown as it is. Control characters
 * (C0, DEL, C1) could end the line or drive the terminal; U+FEFF is invisible. */
static void escape_for(unsigned cp, char *esc, size_t size) {
  esc[0] = '\0';
  if (cp == '\n')
    snprintf(esc, size, "\\n");
  else if (cp == '\r')
    snprintf(esc, size, "\\r");
  else if (cp == '\t')
    snprintf(esc, size, "\\t");
  else if (cp < 0x20 || cp == 0x7f)
    snprintf(esc, size, "\\x%02x", cp);
  else if ((cp >= 0x80 && cp <= 0x9f) || cp == 0xfeff || cp == 0x2028 || cp == 0x2029)
    snprintf(esc, size, "\\u%04x", cp);
}

char *herd_escape(const char *text, char *out, size_t size) {
  if (size == 0) return out;
  const unsigned char *s = (const unsigned char *)(text ? text : "");
  size_t used = 0;
  while (*s) {
    unsigned cp;
    size_t len = utf8_sequence(s, &cp);
    char esc[12];
    const char *piece = (const char *)s;
    size_t piece_len = len;
    if (len == 0) { /* not UTF-8: show the byte */
      snprintf(esc, sizeof esc, "\\x%02x", s[0]);
      piece = esc, piece_len = strlen(esc), len = 1;
    } else {
      escape_for(cp, esc, sizeof esc);
      if (esc[0]) piece = esc, piece_len = strlen(esc);
    }
    if (used + piece_len >= size) break; /* never cut an escape or a character in half */
    memcpy(out + used, piece, piece_len);
    used += piece_len;
    s += len;
  }
  out[used] = '\0';
  return out;
}

herd_status herd_fail(herd_error *err, herd_status status, const char *fmt, ...) {
  if (err) {
    char raw[HERD_ERROR_MAX];
    err->status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    /* Messages quote user text (file names, JSON strings, build logs): one line, always. */
    herd_escape(raw, err->message, sizeof err->message);
  }
  return status;
}
