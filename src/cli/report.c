/* What the reporting commands (bench, sweep) share: plots through gnuplot, machine facts. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../util/spawn.h"
#include "cli.h"

int cli_gnuplot(const char *dir, const char *script, const char *who) {
  const char *argv[] = {"gnuplot", script, NULL};
  int log = herd_scratch_fd();
  herd_spawn_desc d = {.argv = argv, .dir = dir, .stdin_fd = -1, .stdout_fd = -1, .stderr_fd = log};
  herd_error err;
  pid_t pid;
  if (herd_spawn(&d, &pid, &err) != HERD_OK) {
    if (log >= 0) close(log);
    return cli_error(&err);
  }
  int rc = herd_spawn_wait(pid);
  char msg[400];
  herd_scratch_last_line(log, msg, sizeof msg);
  if (log >= 0) close(log);
  if (rc == 127) return cli_fail(1, "gnuplot not found; %s draws its plots with it (apt install gnuplot-nox)", who);
  if (rc != 0) return cli_fail(1, "gnuplot failed (exit %d): %s", rc, msg);
  return 0;
}
