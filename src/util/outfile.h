/* Writing an output file so that nothing a user has is lost: the file is written under a
 * temporary name in the target's folder and renamed over the target only once complete;
 * an existing file is replaced only when the user said --force, and never by a failed or
 * interrupted write. Every output herd writes (CSV, PNG, bench results, video) goes
 * through here.
 *
 * A target that exists and is not a regular file (a FIFO, a terminal, /dev/stdout on a
 * pipe, a device) is written in place: there is nothing to replace. "-" is standard
 * output. A symbolic link to a regular file is followed: the file it names is replaced,
 * not the link. */
#ifndef HERD_CORE_OUTFILE_H
#define HERD_CORE_OUTFILE_H
#include <stdbool.h>
#include <stdio.h>
#include "layer.h"

#include "herd/herd.h"

/* Longest path handled (Linux's PATH_MAX, which ISO C headers do not promise). */
#define HERD_PATH_MAX 4096

typedef struct herd_outfile {
  const char *option; /* how the user named it in messages: "--csv", "-o" */
  char target[HERD_PATH_MAX];
  char temp[HERD_PATH_MAX + 32]; /* "" when written in place */
  FILE *f;                       /* NULL for herd_outfile_reserve */
  bool force;
} herd_outfile;

/* The folder part of path into out: "." for a bare name, "/" for a name in the root. */
void herd_folder_of(const char *path, char *out, size_t size);

/* Checks, creating nothing, that `path` can be written: its folder exists and is writable,
 * it is not a folder, and it does not exist unless `force` (or is not a regular file).
 * Errors are HERD_E_INPUT and read "OPTION PATH: what is wrong". */
herd_status herd_outfile_check(const char *option, const char *path, bool force, herd_error *err);

/* Checks as above, then opens the temporary file for writing through o->f. */
herd_status herd_outfile_open(herd_outfile *o, const char *option, const char *path, bool force, herd_error *err);

/* The same, but only creates the temporary file (named with `suffix`, e.g. ".mp4", so a
 * program that writes it can tell the format) and leaves it closed in o->temp, for a child
 * program to write. */
herd_status herd_outfile_reserve(herd_outfile *o, const char *option, const char *path, bool force, const char *suffix,
                                 herd_error *err);

/* The path to write while the file is being made: o->temp, or the target when in place. */
const char *herd_outfile_writing_path(const herd_outfile *o);

/* Finishes: flushes and closes, then renames the temporary file over the target (never
 * over an existing file unless force). On failure the temporary file is removed, the
 * target is untouched, and the error says why. */
herd_status herd_outfile_commit(herd_outfile *o, herd_error *err);

/* Gives up: closes and removes the temporary file; the target is untouched. */
void herd_outfile_abandon(herd_outfile *o);

/* Moves a finished file `from` to `to` without replacing an existing `to` unless force
 * (for outputs made in a staging folder). */
herd_status herd_move_into_place(const char *option, const char *from, const char *to, bool force, herd_error *err);

#endif
