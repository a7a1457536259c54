/* Reading the small JSON files users write (scenarios, sweeps): the whole file as text, with
 * a size cap and one-line errors that name the file. */
#ifndef HERD_CORE_JSONFILE_H
#define HERD_CORE_JSONFILE_H
#include "herd/herd.h"

/* Anything larger than this is a mistake (a device, a log), not a file a user wrote. */
#define HERD_MAX_JSON_FILE_BYTES (64u << 20)

/* Reads `path` into a malloc'd NUL-terminated string. `what` names the kind of file in
 * messages ("a scenario"): a folder, a file over the cap, a NUL byte are refused. */
herd_status herd_read_json_file(const char *path, const char *what, char **out, herd_error *err);

/* The text after a UTF-8 byte order mark, as some editors write (JSON lets a parser skip it). */
const char *herd_skip_bom(const char *text);

#endif
