/* Video through ffmpeg: raw RGBA frames, read back from GL through a ring of pixel buffer
 * objects, piped to an ffmpeg child that encodes by the file's extension. */
#define _POSIX_C_SOURCE 200809L
#include <GL/glew.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../util/error.h"
#include "../util/outfile.h"
#include "../util/spawn.h"
#include "render.h"

#define RING 3 /* frames in flight: the GPU copies one while the oldest goes to ffmpeg */

typedef struct container {
  const char *extension, *encoder, *name;
} container;

static const container containers[] = {
    {".mp4", "libx264", "H.264 in MP4"},
    {".webm", "libvpx-vp9", "VP9 in WebM"},
    {".gif", "gif", "GIF"},
};

struct herd_recorder {
  herd_recorder_desc desc;
  const container *kind;
  herd_outfile video; /* ffmpeg writes video.temp; renamed to the target when complete */
  pid_t ffmpeg;
  FILE *pipe;
  int log; /* ffmpeg's stderr, for its last message */
  GLuint pbo[RING];
  uint32_t queued, written;
  size_t frame_bytes;
};

static const container *container_of(const char *path) {
  const char *dot = strrchr(path, '.');
  for (size_t k = 0; dot && k < sizeof containers / sizeof containers[0]; ++k)
    if (strcmp(dot, containers[k].extension) == 0) return &containers[k];
  return NULL;
}

/* Runs `ffmpeg -hide_banner -encoders` (an argument vector, no shell) and looks for the
 * encoder's line. */
static herd_status check_encoder(const container *kind, herd_error *err) {
  int fds[2];
  if (pipe(fds) != 0) return herd_fail(err, HERD_E_BACKEND, "cannot run ffmpeg: %s", strerror(errno));
  static const char *const argv[] = {"ffmpeg", "-hide_banner", "-encoders", NULL};
  herd_spawn_desc d = {.argv = argv, .stdin_fd = -1, .stdout_fd = fds[1], .stderr_fd = -1};
  pid_t pid;
  herd_status s = herd_spawn(&d, &pid, err);
  close(fds[1]);
  FILE *p = s == HERD_OK ? fdopen(fds[0], "r") : NULL;
  if (!p) {
    close(fds[0]);
    if (s == HERD_OK) herd_spawn_wait(pid);
    return s == HERD_OK ? herd_fail(err, HERD_E_BACKEND, "cannot run ffmpeg: %s", strerror(errno)) : s;
  }
  char line[256];
  bool found = false, any = false;
  while (fgets(line, sizeof line, p)) {
    any = true;
    char flags[16], name[64];
    if (sscanf(line, " %15s %63s", flags, name) == 2 && strcmp(name, kind->encoder) == 0) found = true;
  }
  fclose(p);
  int status = herd_spawn_wait(pid);
  if (!any && status == 127)
    return herd_fail(err, HERD_E_BACKEND, "ffmpeg not found; recording needs it (Debian: apt install ffmpeg)");
  if (!found)
    return herd_fail(err, HERD_E_BACKEND, "ffmpeg has no %s encoder, needed for %s (%s); try another container",
                     kind->encoder, kind->extension, kind->name);
  return HERD_OK;
}

herd_status herd_recorder_check(const herd_recorder_desc *d, herd_error *err) {
  const container *kind = container_of(d->path);
  if (!kind) return herd_fail(err, HERD_E_INPUT, "-o %s: unknown video type (allowed: .mp4, .webm, .gif)", d->path);
  if (kind != &containers[2] && (d->width % 2 || d->height % 2))
    return herd_fail(err, HERD_E_INPUT, "--size %dx%d: %s needs an even width and height (yuv420p)", d->width,
                     d->height, kind->name);
  herd_status s = herd_outfile_check("-o", d->path, d->force, err);
  return s == HERD_OK ? check_encoder(kind, err) : s;
}

/* ---- The ffmpeg child -------------------------------------------------------------------- */

/* ffmpeg's command line. The output is given as "file:PATH" so that no file name (a leading
 * "-", "pipe:1.gif") is read as an option or a protocol. */
static void build_args(const herd_recorder *r, char *size, char *rate, char *output, size_t output_size,
                       const char **argv) {
  snprintf(size, 32, "%dx%d", r->desc.width, r->desc.height);
  snprintf(rate, 16, "%d", r->desc.fps > 0 ? r->desc.fps : 30);
  int a = 0;
  /* -y: the temporary file exists already (it was reserved); the target is never touched. */
  const char *head[] = {"ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt",
                        "rgba",   "-s",           size,        "-r",    rate, "-i", "-"};
  for (size_t k = 0; k < sizeof head / sizeof head[0]; ++k) argv[a++] = head[k];
  /* GL rows run bottom-up: ffmpeg flips them. */
  if (r->kind == &containers[0]) {
    const char *mp4[] = {"-vf", "vflip", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"};
    for (size_t k = 0; k < sizeof mp4 / sizeof mp4[0]; ++k) argv[a++] = mp4[k];
  } else if (r->kind == &containers[1]) {
    const char *webm[] = {"-vf",      "vflip",     "-c:v", "libvpx-vp9", "-pix_fmt", "yuv420p", "-deadline",
                          "realtime", "-cpu-used", "8",    "-b:v",       "0",        "-crf",    "35"};
    for (size_t k = 0; k < sizeof webm / sizeof webm[0]; ++k) argv[a++] = webm[k];
  } else {
    const char *gif[] = {"-vf", "vflip,split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse", "-loop", "0"};
    for (size_t k = 0; k < sizeof gif / sizeof gif[0]; ++k) argv[a++] = gif[k];
  }
  snprintf(output, output_size, "file:%s", herd_outfile_writing_path(&r->video));
  argv[a++] = output;
  argv[a] = NULL;
}

static herd_status spawn(herd_recorder *r, herd_error *err) {
  const char *ext = strrchr(r->desc.path, '.');
  herd_status s = herd_outfile_reserve(&r->video, "-o", r->desc.path, r->desc.force, ext, err);
  if (s != HERD_OK) return s;
  int fds[2];
  r->log = herd_scratch_fd();
  if (r->log < 0 || pipe(fds) != 0) {
    if (r->log >= 0) close(r->log);
    herd_outfile_abandon(&r->video);
    return herd_fail(err, HERD_E_IO, "cannot start ffmpeg: %s", strerror(errno));
  }
  char size[32], rate[16], output[HERD_PATH_MAX + 64];
  const char *argv[48];
  build_args(r, size, rate, output, sizeof output, argv);
  /* Its own process group (herd_spawn): a Ctrl-C meant for herd must not stop ffmpeg before
   * herd has flushed the frames in flight and closed the pipe. */
  fcntl(fds[1], F_SETFD, FD_CLOEXEC);
  herd_spawn_desc d = {.argv = argv, .stdin_fd = fds[0], .stdout_fd = -1, .stderr_fd = r->log};
  s = herd_spawn(&d, &r->ffmpeg, err);
  close(fds[0]);
  r->pipe = s == HERD_OK ? fdopen(fds[1], "w") : NULL;
  if (r->pipe) return HERD_OK;
  close(fds[1]);
  close(r->log);
  herd_outfile_abandon(&r->video);
  return s != HERD_OK ? s : herd_fail(err, HERD_E_IO, "cannot start ffmpeg: %s", strerror(errno));
}

herd_status herd_recorder_open(const herd_recorder_desc *desc, herd_recorder **out, herd_error *err) {
  herd_recorder *r = calloc(1, sizeof *r);
  if (!r) return herd_fail(err, HERD_E_MEMORY, "out of memory starting a recording");
  r->desc = *desc;
  r->kind = container_of(desc->path);
  r->frame_bytes = (size_t)desc->width * (size_t)desc->height * 4;
  /* A dead ffmpeg must show as a failed write, not kill herd with SIGPIPE. */
  signal(SIGPIPE, SIG_IGN);
  herd_status s = r->kind ? spawn(r, err) : herd_fail(err, HERD_E_INPUT, "-o %s: unknown video type", desc->path);
  if (s != HERD_OK) {
    free(r);
    return s;
  }
  glGenBuffers(RING, r->pbo);
  for (int k = 0; k < RING; ++k) {
    glBindBuffer(GL_PIXEL_PACK_BUFFER, r->pbo[k]);
    glBufferData(GL_PIXEL_PACK_BUFFER, (GLsizeiptr)r->frame_bytes, NULL, GL_STREAM_READ);
  }
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  *out = r;
  return HERD_OK;
}

/* Sends the oldest frame in flight to ffmpeg. */
static herd_status write_oldest(herd_recorder *r, herd_error *err) {
  glBindBuffer(GL_PIXEL_PACK_BUFFER, r->pbo[r->written % RING]);
  const void *pixels = glMapBuffer(GL_PIXEL_PACK_BUFFER, GL_READ_ONLY);
  bool ok = pixels && fwrite(pixels, 1, r->frame_bytes, r->pipe) == r->frame_bytes;
  if (pixels) glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  if (!pixels) return herd_fail(err, HERD_E_BACKEND, "reading a frame back from OpenGL failed");
  if (!ok) {
    char msg[400];
    herd_scratch_last_line(r->log, msg, sizeof msg);
    return herd_fail(err, HERD_E_IO, "ffmpeg stopped taking frames (%s); the partial video is left at %s", msg,
                     herd_outfile_writing_path(&r->video));
  }
  ++r->written;
  return HERD_OK;
}

herd_status herd_recorder_capture(herd_recorder *r, herd_error *err) {
  if (r->queued - r->written == RING) {
    herd_status s = write_oldest(r, err);
    if (s != HERD_OK) return s;
  }
  glBindBuffer(GL_PIXEL_PACK_BUFFER, r->pbo[r->queued % RING]);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, r->desc.width, r->desc.height, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  ++r->queued;
  return HERD_OK;
}

herd_status herd_recorder_close(herd_recorder *r, uint32_t *frames, herd_error *err) {
  herd_status s = HERD_OK;
  while (s == HERD_OK && r->written < r->queued) s = write_oldest(r, err);
  bool flushed = fclose(r->pipe) == 0;
  bool finished = herd_spawn_wait(r->ffmpeg) == 0;
  if (s == HERD_OK && (!flushed || !finished)) {
    char msg[400];
    herd_scratch_last_line(r->log, msg, sizeof msg);
    s = herd_fail(err, HERD_E_IO, "ffmpeg failed (%s); the partial video is left at %s", msg,
                  herd_outfile_writing_path(&r->video));
  }
  /* A failed video stays at its temporary name (the message says where); a whole one
   * takes the name asked for. */
  if (s == HERD_OK) s = herd_outfile_commit(&r->video, err);
  *frames = r->written;
  glDeleteBuffers(RING, r->pbo);
  close(r->log);
  free(r);
  return s;
}
