#define _POSIX_C_SOURCE 200809L
#include "infile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"

static const char *kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a named pipe (FIFO)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

herd_status herd_input_open(const char *path, const char *label, const char *what, uint64_t max_bytes, int *fd,
                            uint64_t *size, herd_error *err) {
  *fd = -1;
  /* O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever, and a signal
   * handler installed with SA_RESTART would not end the wait. */
  int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (f < 0) return herd_fail(err, HERD_E_INPUT, "%s: cannot open: %s", label, strerror(errno));
  struct stat st;
  if (fstat(f, &st) != 0) {
    int e = errno;
    close(f);
    return herd_fail(err, HERD_E_INPUT, "%s: cannot read: %s", label, strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    close(f);
    return herd_fail(err, HERD_E_INPUT, "%s: is %s; %s must be a regular file", label, kind_of(st.st_mode), what);
  }
  if ((uint64_t)st.st_size > max_bytes) {
    close(f);
    char cap[48];
    if (max_bytes % (1u << 20) == 0)
      snprintf(cap, sizeof cap, "%llu MiB", (unsigned long long)(max_bytes >> 20));
    else
      snprintf(cap, sizeof cap, "%llu bytes", (unsigned long long)max_bytes);
    return herd_fail(err, HERD_E_INPUT, "%s: larger than %s (%lld bytes); %s is at most that", label, cap,
                     (long long)st.st_size, what);
  }
  int flags = fcntl(f, F_GETFL);
  if (flags >= 0) fcntl(f, F_SETFL, flags & ~O_NONBLOCK);
  *fd = f;
  *size = (uint64_t)st.st_size;
  return HERD_OK;
}

herd_status herd_input_check(const char *path, const char *label, const char *what, uint64_t max_bytes,
                             herd_error *err) {
  int fd;
  uint64_t size;
  herd_status s = herd_input_open(path, label, what, max_bytes, &fd, &size, err);
  if (s == HERD_OK) close(fd);
  return s;
}

herd_status herd_input_read(const char *path, const char *label, const char *what, uint64_t max_bytes, char **out,
                            size_t *len, herd_error *err) {
  int fd;
  uint64_t size;
  herd_status s = herd_input_open(path, label, what, max_bytes, &fd, &size, err);
  if (s != HERD_OK) return s;
  /* One byte more than fstat said, to see a file that grows while it is read (up to the cap). */
  size_t room = (size_t)size + 1;
  char *text = malloc(room + 1);
  size_t got = 0;
  ssize_t n = 0;
  while (text && got < room && (n = read(fd, text + got, room - got)) != 0) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    got += (size_t)n;
  }
  int e = errno;
  close(fd);
  if (!text)
    return herd_fail(err, HERD_E_MEMORY, "%s: out of memory reading it (%llu bytes)", label, (unsigned long long)size);
  if (n < 0 || got > max_bytes || got == room) {
    free(text);
    if (n < 0) return herd_fail(err, HERD_E_IO, "%s: cannot read: %s", label, strerror(e));
    return herd_fail(err, HERD_E_INPUT, "%s: grew while herd read it; %s should not change meanwhile", label, what);
  }
  text[got] = '\0';
  *out = text;
  *len = got;
  return HERD_OK;
}
