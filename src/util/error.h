/* Filling a herd_error: the one way the library reports what went wrong. */
#ifndef HERD_CORE_ERROR_H
#define HERD_CORE_ERROR_H
#include "herd/herd.h"
#include "layer.h"

#if defined(__GNUC__)
#define HERD_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define HERD_PRINTF(fmt, args)
#endif

/* Sets err (when not NULL) and returns `status`, so callers can `return herd_fail(...)`. */
herd_status herd_fail(herd_error *err, herd_status status, const char *fmt, ...) HERD_PRINTF(3, 4);

/* True when text is UTF-8 throughout (no overlong forms, surrogates or code points past
 * U+10FFFF), as every string a scenario holds must be. */
bool herd_utf8_valid(const char *text);

#endif
