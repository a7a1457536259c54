/* Running a helper program (ffmpeg, gnuplot) with an argument vector, never through a
 * shell, so no user text is ever parsed as a command. */
#ifndef HERD_CORE_SPAWN_H
#define HERD_CORE_SPAWN_H
#include <sys/types.h>
#include "layer.h"

#include "herd/herd.h"

typedef struct herd_spawn_desc {
  const char *const *argv; /* argv[0] is looked up in PATH; NULL-terminated */
  const char *dir;         /* working folder of the child; NULL = ours */
  int stdin_fd;            /* -1: /dev/null */
  int stdout_fd;           /* -1: /dev/null */
  int stderr_fd;           /* -1: /dev/null */
} herd_spawn_desc;

/* Starts the program in a process group of its own (a Ctrl-C meant for herd reaches herd
 * alone, which then finishes its work with the child in order). The child exits 127 when
 * the program cannot be run. */
herd_status herd_spawn(const herd_spawn_desc *desc, pid_t *pid, herd_error *err);

/* Waits for the child; returns its exit status, 128 + the signal that killed it. */
int herd_spawn_wait(pid_t pid);

/* An unnamed temporary file (already unlinked) for a child's messages; -1 on failure. */
int herd_scratch_fd(void);

/* The last non-empty line written to scratch file fd, into out ("no message" if none). */
void herd_scratch_last_line(int fd, char *out, size_t size);

#endif
