#define _POSIX_C_SOURCE 200809L
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"

/* In the child: fd onto `target`, or /dev/null for -1. */
static void redirect(int fd, int target) {
  if (fd < 0) fd = open("/dev/null", O_RDWR);
  if (fd >= 0 && fd != target) dup2(fd, target);
}

herd_status herd_spawn(const herd_spawn_desc *d, pid_t *pid, herd_error *err) {
  fflush(NULL); /* nothing buffered may be written twice */
  *pid = fork();
  if (*pid < 0) return herd_fail(err, HERD_E_IO, "cannot start %s: %s", d->argv[0], strerror(errno));
  if (*pid > 0) return HERD_OK;
  setpgid(0, 0);
  redirect(d->stdin_fd, STDIN_FILENO);
  redirect(d->stdout_fd, STDOUT_FILENO);
  redirect(d->stderr_fd, STDERR_FILENO);
  if (d->dir && chdir(d->dir) != 0) _exit(127);
  execvp(d->argv[0], (char *const *)d->argv);
  dprintf(STDERR_FILENO, "cannot run %s: %s\n", d->argv[0], strerror(errno));
  _exit(127);
}

int herd_spawn_wait(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 127;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 127;
}

int herd_scratch_fd(void) {
  const char *dir = getenv("TMPDIR");
  char path[512];
  snprintf(path, sizeof path, "%s/herd-XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkstemp(path);
  if (fd >= 0) unlink(path);
  return fd;
}

void herd_scratch_last_line(int fd, char *out, size_t size) {
  snprintf(out, size, "no message");
  char buf[4096];
  off_t end = lseek(fd, 0, SEEK_END);
  off_t from = end > (off_t)sizeof buf - 1 ? end - (off_t)sizeof buf + 1 : 0;
  ssize_t got = end > 0 ? pread(fd, buf, (size_t)(end - from), from) : 0;
  if (got <= 0) return;
  buf[got] = '\0';
  while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == '\r')) buf[--got] = '\0';
  char *line = strrchr(buf, '\n');
  snprintf(out, size, "%s", line ? line + 1 : buf);
}
