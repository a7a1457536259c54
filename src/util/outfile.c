#define _GNU_SOURCE /* renameat2 */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"

void herd_folder_of(const char *path, char *out, size_t size) {
  const char *slash = strrchr(path, '/');
  if (!slash)
    snprintf(out, size, ".");
  else if (slash == path)
    snprintf(out, size, "/");
  else
    snprintf(out, size, "%.*s", (int)(slash - path), path);
}

static herd_status check_folder(const char *option, const char *path, const char *target, herd_error *err) {
  char dir[HERD_PATH_MAX];
  herd_folder_of(target, dir, sizeof dir);
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    return herd_fail(err, HERD_E_INPUT, "%s %s: folder %s does not exist", option, path, dir);
  if (access(dir, W_OK) != 0)
    return herd_fail(err, HERD_E_INPUT, "%s %s: folder %s is not writable", option, path, dir);
  return HERD_OK;
}

/* Fills o->target (a link to a regular file resolved to the file) and tells whether the
 * target is written in place (standard output, or an existing file that is not regular). */
static herd_status resolve(herd_outfile *o, const char *option, const char *path, bool force, bool *in_place,
                           herd_error *err) {
  memset(o, 0, sizeof *o);
  o->option = option;
  o->force = force;
  *in_place = false;
  if (!*path) return herd_fail(err, HERD_E_INPUT, "%s: empty file name", option);
  if (strlen(path) >= sizeof o->target)
    return herd_fail(err, HERD_E_INPUT, "%s %.80s...: file name too long", option, path);
  snprintf(o->target, sizeof o->target, "%s", path);
  if (strcmp(path, "-") == 0) {
    *in_place = true;
    return HERD_OK;
  }
  struct stat st, link;
  if (stat(path, &st) != 0) {
    if (errno != ENOENT) return herd_fail(err, HERD_E_INPUT, "%s %s: cannot write: %s", option, path, strerror(errno));
    if (lstat(path, &link) == 0)
      return herd_fail(err, HERD_E_INPUT, "%s %s: a symbolic link to nothing; not following it", option, path);
    return check_folder(option, path, path, err);
  }
  if (S_ISDIR(st.st_mode)) return herd_fail(err, HERD_E_INPUT, "%s %s: is a folder", option, path);
  if (!S_ISREG(st.st_mode)) {
    *in_place = true;
    if (access(path, W_OK) != 0)
      return herd_fail(err, HERD_E_INPUT, "%s %s: cannot write: %s", option, path, strerror(errno));
    return HERD_OK;
  }
  if (!force)
    return herd_fail(err, HERD_E_INPUT, "%s %s: file exists; not replacing it (use --force to replace)", option, path);
  if (lstat(path, &link) == 0 && S_ISLNK(link.st_mode) && !realpath(path, o->target))
    return herd_fail(err, HERD_E_INPUT, "%s %s: cannot follow the link: %s", option, path, strerror(errno));
  return check_folder(option, path, o->target, err);
}

herd_status herd_outfile_check(const char *option, const char *path, bool force, herd_error *err) {
  herd_outfile o;
  bool in_place;
  return resolve(&o, option, path, force, &in_place, err);
}

/* Creates the temporary file "TARGET.part-XXXXXX[suffix]" with the usual permissions into
 * *fd. Visible, not hidden: if herd is killed, what was written so far is there to find. */
static herd_status make_temp(herd_outfile *o, const char *suffix, int *fd, herd_error *err) {
  snprintf(o->temp, sizeof o->temp, "%s.part-XXXXXX%s", o->target, suffix);
  *fd = mkstemps(o->temp, (int)strlen(suffix));
  if (*fd < 0) {
    int e = errno;
    o->temp[0] = '\0';
    return herd_fail(err, HERD_E_IO, "%s %s: cannot create a file in its folder: %s", o->option, o->target,
                     strerror(e));
  }
  mode_t mask = umask(0);
  umask(mask);
  fchmod(*fd, 0666 & ~mask);
  return HERD_OK;
}

herd_status herd_outfile_open(herd_outfile *o, const char *option, const char *path, bool force, herd_error *err) {
  bool in_place;
  herd_status s = resolve(o, option, path, force, &in_place, err);
  if (s != HERD_OK) return s;
  if (in_place) {
    o->f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    return o->f ? HERD_OK : herd_fail(err, HERD_E_IO, "%s %s: cannot open: %s", option, path, strerror(errno));
  }
  int fd;
  s = make_temp(o, "", &fd, err);
  if (s != HERD_OK) return s;
  o->f = fdopen(fd, "w");
  if (o->f) return HERD_OK;
  close(fd);
  herd_outfile_abandon(o);
  return herd_fail(err, HERD_E_IO, "%s %s: %s", option, path, strerror(errno));
}

herd_status herd_outfile_reserve(herd_outfile *o, const char *option, const char *path, bool force, const char *suffix,
                                 herd_error *err) {
  bool in_place;
  herd_status s = resolve(o, option, path, force, &in_place, err);
  if (s != HERD_OK || in_place) return s;
  int fd;
  s = make_temp(o, suffix, &fd, err);
  if (s == HERD_OK) close(fd);
  return s;
}

const char *herd_outfile_writing_path(const herd_outfile *o) { return o->temp[0] ? o->temp : o->target; }

/* rename(from, to), failing with EEXIST rather than replacing `to` unless force. */
static int rename_carefully(const char *from, const char *to, bool force) {
  if (force) return rename(from, to);
#ifdef RENAME_NOREPLACE /* not in every C library (the web build's) */
  if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS) return -1;
#endif
  /* A file system without RENAME_NOREPLACE: link() refuses an existing name as well. */
  if (link(from, to) != 0) return -1;
  unlink(from);
  return 0;
}

herd_status herd_move_into_place(const char *option, const char *from, const char *to, bool force, herd_error *err) {
  if (rename_carefully(from, to, force) == 0) return HERD_OK;
  if (errno == EEXIST)
    return herd_fail(err, HERD_E_IO,
                     "%s %s: a file of that name appeared while herd ran; not replacing it; the output is in %s",
                     option, to, from);
  return herd_fail(err, HERD_E_IO, "%s %s: cannot rename %s to it: %s", option, to, from, strerror(errno));
}

herd_status herd_outfile_commit(herd_outfile *o, herd_error *err) {
  bool failed = false;
  if (o->f) {
    failed = fflush(o->f) != 0 || ferror(o->f);
    if (o->temp[0] && !failed) failed = fsync(fileno(o->f)) != 0; /* on disk before the rename */
    int saved = errno;
    if (o->f != stdout && fclose(o->f) != 0)
      failed = true;
    else
      errno = saved;
    o->f = NULL;
  }
  if (failed) {
    int e = errno;
    herd_outfile_abandon(o);
    return herd_fail(err, HERD_E_IO, "%s %s: write failed: %s", o->option, o->target, strerror(e));
  }
  if (!o->temp[0]) return HERD_OK;
  herd_status s = herd_move_into_place(o->option, o->temp, o->target, o->force, err);
  /* Kept when it could not be placed (a file appeared meanwhile): the message says where. */
  o->temp[0] = '\0';
  return s;
}

void herd_outfile_abandon(herd_outfile *o) {
  if (o->f && o->f != stdout) fclose(o->f);
  o->f = NULL;
  if (o->temp[0]) unlink(o->temp);
  o->temp[0] = '\0';
}
