#include "error.h"

#include <stdarg.h>
#include <stdio.h>

herd_status herd_fail(herd_error *err, herd_status status, const char *fmt, ...) {
  if (err) {
    err->status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return status;
}
