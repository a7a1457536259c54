/* Opening the files herd reads (scenarios, sweeps, checkpoints, a sweep's folder) so that no
 * input can hang it or make it read without end: the open does not block (a FIFO with no
 * writer, a terminal, a device), only a regular file is read, and never more than a cap
 * stated by the caller. Every refusal is one line naming the file, HERD_E_INPUT. */
#ifndef HERD_CORE_INFILE_H
#define HERD_CORE_INFILE_H
#include <stddef.h>
#include <stdint.h>
#include "layer.h"

#include "herd/herd.h"

/* Opens `path` read-only into *fd (blocking again once open) and its size into *size.
 * `label` begins every message ("checkpoint a.ckpt", "a.json"); `what` names what it should
 * be ("a checkpoint", "a scenario"). Refused: what cannot be opened, what is not a regular
 * file (its kind said), a file larger than max_bytes. */
herd_status herd_input_open(const char *path, const char *label, const char *what, uint64_t max_bytes, int *fd,
                            uint64_t *size, herd_error *err);

/* Opens as above and reads the whole file into a malloc'd buffer with a NUL after it. */
herd_status herd_input_read(const char *path, const char *label, const char *what, uint64_t max_bytes, char **out,
                            size_t *len, herd_error *err);

/* Checks, reading nothing, that `path` is a regular file herd_input_open would accept. */
herd_status herd_input_check(const char *path, const char *label, const char *what, uint64_t max_bytes,
                             herd_error *err);

#endif
