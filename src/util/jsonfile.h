/* Reading the small JSON files users write (scenarios, sweeps): the whole file as text, with
 * a size cap and one-line errors that name the file. */
#ifndef HERD_CORE_JSONFILE_H
#define HERD_CORE_JSONFILE_H
#include <stdbool.h>
#include <stddef.h>
#include "layer.h"

#include "herd/herd.h"

/* Anything larger than this is a mistake (a device, a log), not a file a user wrote. */
#define HERD_MAX_JSON_FILE_BYTES (64u << 20)

/* Reads `path` into a malloc'd NUL-terminated string. `what` names the kind of file in
 * messages ("a scenario"): a folder, a file over the cap, a NUL byte are refused. */
herd_status herd_read_json_file(const char *path, const char *what, char **out, herd_error *err);

/* Refuses a number that JSON can write but a double cannot hold other than as 0 ("1e-400"):
 * jansson reads it as 0.0, which would pass as a seed of 0 or a radius of 0. `origin` names
 * the text in the message, with the number's line and column. */
herd_status herd_check_json_numbers(const char *text, const char *origin, herd_error *err);

/* True when the number token (len bytes at token) has a non-zero digit but reads as 0. */
bool herd_number_underflows(const char *token, size_t len);

/* The text after a UTF-8 byte order mark, as some editors write (JSON lets a parser skip it). */
const char *herd_skip_bom(const char *text);

#endif
