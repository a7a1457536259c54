/* Checkpoints: a sim's whole state in one file, and a sim made from it (docs/checkpoint.md).
 *
 * The file, in the writer's byte order (checked by a known word; every length is in the
 * header, so a reader knows the size before it trusts anything):
 *   "HERDCKPT", u32 format version, u32 0x01020304
 *   u32 bytes of a herd_observation and of a herd_steering_state as this build lays them out
 *   u32 step, outcome, agents, floats per agent, steering agents, scenario bytes, about bytes
 *   char backend[16]; the box history (12 floats, u32 latest slot)
 *   the scenario (JSON, every field), "about" (JSON: herd version, commit, backend, device)
 *   the observation, the steering agents, the user's hold on them (u8 each, 3 floats each)
 *   positions, velocities (agents x floats per agent), agent words (agents x u32), all in
 *   the backend's own order
 *   u32 CRC-32 of every byte before it */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../kernels/agent.h"
#include "../util/error.h"
#include "../util/infile.h"
#include "../util/outfile.h"
#include "sim_state.h"

#define MAGIC "HERDCKPT"
/* 2: room for 64 steering agents (the observation's nearest entries, the holds and aims); the
 * 16 of version 1 are read by no herd since. */
#define FORMAT_VERSION 2u
#define BYTE_ORDER_WORD 0x01020304u
#define HEAD_WORDS 9u /* the u32 fields after the byte-order word */
#define BACKEND_BYTES 16u
#define BOX_BYTES (12u * sizeof(float) + sizeof(uint32_t))
/* ---- CRC-32 (IEEE 802.3, as zlib's crc32) --------------------------------------------- */

static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_fill(void) {
  for (uint32_t n = 0; n < 256; ++n) {
    uint32_t c = n;
    for (int k = 0; k < 8; ++k) c = c & 1u ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    crc_table[n] = c;
  }
}

/* Once per process, whichever thread writes or reads a checkpoint first. */
static void crc_init(void) { pthread_once(&crc_once, crc_fill); }

static uint32_t crc_add(uint32_t crc, const void *data, size_t size) {
  const unsigned char *p = data;
  crc = ~crc;
  for (size_t i = 0; i < size; ++i) crc = crc_table[(crc ^ p[i]) & 0xFFu] ^ (crc >> 8);
  return ~crc;
}

/* ---- Writing -------------------------------------------------------------------------- */

typedef struct writer {
  FILE *f;
  uint32_t crc;
  bool ok;
} writer;

static void put(writer *w, const void *data, size_t size) {
  if (!w->ok || size == 0) return;
  w->crc = crc_add(w->crc, data, size);
  w->ok = fwrite(data, 1, size, w->f) == size;
}

static void put_u32(writer *w, uint32_t v) { put(w, &v, sizeof v); }

static void put_boxes(writer *w, const herd_box_history *h) {
  put(w, h->lo, sizeof h->lo);
  put(w, h->hi, sizeof h->hi);
  put_u32(w, h->latest);
}

/* `text` as a JSON string's contents: quotes, backslashes and control characters left out, so
 * the about record stays valid JSON whatever a device calls itself. */
static void json_plain(char *out, size_t size, const char *text) {
  size_t n = 0;
  for (; *text && n + 1 < size; ++text)
    if (*text != '"' && *text != '\\' && (unsigned char)*text >= 0x20) out[n++] = *text;
  out[n] = '\0';
}

/* What wrote the file, for people and tools that look inside (the reader checks nothing here). */
static int about_json(const herd_sim *sim, char *out, size_t size) {
  char device[256];
  json_plain(device, sizeof device, herd_sim_device(sim));
  return snprintf(out, size,
                  "{\"format\": \"herd checkpoint\", \"format_version\": %u, \"herd\": \"%s\", \"commit\": \"%s\", "
                  "\"backend\": \"%s\", \"device\": \"%s\"}",
                  FORMAT_VERSION, herd_version(), herd_build_commit(), herd_sim_backend(sim), device);
}

static void put_state(writer *w, const herd_sim_saved *s, const char *scenario, const char *about) {
  put(w, MAGIC, 8);
  uint32_t head[2 + HEAD_WORDS] = {FORMAT_VERSION,
                                   BYTE_ORDER_WORD,
                                   (uint32_t)sizeof(herd_observation),
                                   (uint32_t)sizeof(herd_steering_state),
                                   s->step,
                                   s->outcome,
                                   s->agents,
                                   s->stride,
                                   s->steering_count,
                                   (uint32_t)strlen(scenario),
                                   (uint32_t)strlen(about)};
  put(w, head, sizeof head);
  char backend[BACKEND_BYTES] = {0};
  snprintf(backend, sizeof backend, "%s", s->backend);
  put(w, backend, sizeof backend);
  put_boxes(w, &s->boxes);
  put(w, scenario, strlen(scenario));
  put(w, about, strlen(about));
  put(w, &s->obs, sizeof s->obs);
  put(w, s->steering, s->steering_count * sizeof s->steering[0]);
  put(w, s->manual, sizeof s->manual);
  put(w, s->manual_aim, sizeof s->manual_aim);
  size_t floats = (size_t)s->agents * s->stride;
  put(w, s->pos, floats * sizeof(float));
  put(w, s->vel, floats * sizeof(float));
  put(w, s->agent, (size_t)s->agents * sizeof(uint32_t));
  uint32_t crc = w->crc;
  put(w, &crc, sizeof crc);
}

/* Flushes the temporary file to the disk, so the rename that follows never exposes a file
 * whose blocks a power cut could lose. */
static bool sync_file(FILE *f) { return fflush(f) == 0 && fsync(fileno(f)) == 0; }

herd_status herd_sim_checkpoint(herd_sim *sim, const char *path, bool force, herd_error *err) {
  crc_init();
  herd_sim_saved *saved = malloc(sizeof *saved);
  char *scenario = herd_scenario_to_json(herd_sim_scenario(sim));
  char about[512];
  about_json(sim, about, sizeof about);
  herd_status st = saved && scenario ? herd_sim_save_state(sim, saved, err)
                                     : herd_fail(err, HERD_E_MEMORY, "out of memory writing a checkpoint");
  herd_outfile out;
  if (st == HERD_OK) st = herd_outfile_open(&out, "checkpoint", path, force, err);
  if (st == HERD_OK) {
    writer w = {out.f, 0, true};
    put_state(&w, saved, scenario, about);
    if (!w.ok || !sync_file(out.f)) {
      char shown[512];
      st = herd_fail(err, HERD_E_IO, "checkpoint %s: cannot write: %s", herd_escape(path, shown, sizeof shown),
                     strerror(errno));
      herd_outfile_abandon(&out);
    } else {
      st = herd_outfile_commit(&out, err);
    }
  }
  free(scenario);
  free(saved);
  return st;
}

/* ---- Reading -------------------------------------------------------------------------- */

/* A checkpoint file read whole, and where its parts are. */
typedef struct loaded {
  unsigned char *bytes;
  size_t size;
  char shown[512]; /* the path as messages quote it */
  uint32_t head[2 + HEAD_WORDS];
  const unsigned char *backend, *boxes, *scenario, *obs, *steering, *manual, *aim, *pos, *vel, *agent;
} loaded;

enum {
  H_VERSION,
  H_ORDER,
  H_OBS,
  H_STEERING,
  H_STEP,
  H_OUTCOME,
  H_AGENTS,
  H_STRIDE,
  H_STEER_COUNT,
  H_SCENARIO,
  H_ABOUT
};

static herd_status bad(herd_error *err, const loaded *f, const char *what) {
  return herd_fail(err, HERD_E_INPUT, "checkpoint %s: %s", f->shown, what);
}

/* The parts' places from the header, once the header is known to be this format's. */
static uint64_t lay_out(loaded *f) {
  const uint32_t *h = f->head;
  uint64_t at = 8 + sizeof f->head;
  const unsigned char *b = f->bytes;
  uint64_t floats = (uint64_t)h[H_AGENTS] * h[H_STRIDE];
  const uint64_t sizes[] = {BACKEND_BYTES,
                            BOX_BYTES,
                            (uint64_t)h[H_SCENARIO] + h[H_ABOUT],
                            h[H_OBS],
                            (uint64_t)h[H_STEER_COUNT] * sizeof(herd_steering_state),
                            HERD_MAX_STEERING,
                            HERD_MAX_STEERING * 3 * sizeof(float),
                            floats * sizeof(float),
                            floats * sizeof(float),
                            (uint64_t)h[H_AGENTS] * sizeof(uint32_t)};
  const unsigned char **parts[] = {&f->backend, &f->boxes, &f->scenario, &f->obs, &f->steering,
                                   &f->manual,  &f->aim,   &f->pos,      &f->vel, &f->agent};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
    *parts[k] = at + sizes[k] <= f->size ? b + at : NULL;
    at += sizes[k];
  }
  return at + sizeof(uint32_t); /* the CRC */
}

#define HEADER_BYTES (8 + sizeof(((loaded *)0)->head))

/* Checks what the header says the file is, against its size on disk, before anything
 * else in it is read or trusted. */
static herd_status check_header(loaded *f, const unsigned char *first, uint64_t file_size, herd_error *err) {
  char why[256];
  if (file_size < HEADER_BYTES || memcmp(first, MAGIC, 8) != 0)
    return bad(err, f, "not a herd checkpoint (it does not start with HERDCKPT and a complete header)");
  memcpy(f->head, first + 8, sizeof f->head);
  const uint32_t *h = f->head;
  if (h[H_ORDER] != BYTE_ORDER_WORD)
    return bad(err, f, "written on a machine of the other byte order (resume it on one like the one that wrote it)");
  if (h[H_VERSION] != FORMAT_VERSION) {
    snprintf(why, sizeof why, "format version %u; this herd reads version %u", h[H_VERSION], FORMAT_VERSION);
    return bad(err, f, why);
  }
  if (h[H_OBS] != sizeof(herd_observation) || h[H_STEERING] != sizeof(herd_steering_state)) {
    snprintf(why, sizeof why,
             "written by a herd whose state records differ (observation %u bytes, steering agent %u; here %zu and "
             "%zu): resume it with the herd that wrote it",
             h[H_OBS], h[H_STEERING], sizeof(herd_observation), sizeof(herd_steering_state));
    return bad(err, f, why);
  }
  if (h[H_STEER_COUNT] > HERD_MAX_STEERING || (h[H_STRIDE] != 2 && h[H_STRIDE] != 4))
    return bad(err, f, "corrupt: its header holds impossible counts");
  uint64_t size = lay_out(f); /* nothing read yet: the places only */
  if (size != file_size) {
    snprintf(why, sizeof why, "%s: %llu bytes, its header says %llu", size > file_size ? "truncated" : "corrupt",
             (unsigned long long)file_size, (unsigned long long)size);
    return bad(err, f, why);
  }
  return HERD_OK;
}

/* Reads exactly `size` bytes at the file's current place. */
static bool read_exactly(int fd, unsigned char *to, size_t size) {
  errno = 0; /* 0 after: it ended early */
  while (size) {
    ssize_t got = read(fd, to, size);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    to += got, size -= (size_t)got;
  }
  return true;
}

/* The header first, checked against the file's size; only then the rest, and its CRC. */
static herd_status read_checked(const char *path, loaded *f, herd_error *err) {
  char label[600];
  snprintf(label, sizeof label, "checkpoint %s", f->shown);
  int fd;
  uint64_t size;
  herd_status st = herd_input_open(path, label, "a checkpoint", UINT64_MAX, &fd, &size, err);
  if (st != HERD_OK) return st;
  unsigned char first[HEADER_BYTES] = {0};
  bool got_head = size < HEADER_BYTES || read_exactly(fd, first, HEADER_BYTES);
  st = got_head ? check_header(f, first, size, err)
                : herd_fail(err, HERD_E_IO, "%s: cannot read: %s", label, errno ? strerror(errno) : "ended early");
  if (st == HERD_OK && !(f->bytes = malloc(size)))
    st = herd_fail(err, HERD_E_MEMORY, "%s: out of memory reading it (%llu bytes)", label, (unsigned long long)size);
  if (st == HERD_OK) {
    memcpy(f->bytes, first, HEADER_BYTES);
    if (!read_exactly(fd, f->bytes + HEADER_BYTES, size - HEADER_BYTES))
      st = herd_fail(err, HERD_E_IO, "%s: cannot read: %s", label, errno ? strerror(errno) : "it shrank meanwhile");
  }
  close(fd);
  if (st != HERD_OK) return st;
  f->size = size;
  lay_out(f);
  uint32_t stored, computed = crc_add(0, f->bytes, f->size - sizeof stored);
  memcpy(&stored, f->bytes + f->size - sizeof stored, sizeof stored);
  if (stored != computed) {
    char why[128];
    snprintf(why, sizeof why, "corrupt: its CRC-32 is %08x, its contents give %08x", stored, computed);
    return bad(err, f, why);
  }
  return HERD_OK;
}

static herd_status load(const char *path, loaded *f, herd_error *err) {
  crc_init();
  memset(f, 0, sizeof *f);
  herd_escape(path, f->shown, sizeof f->shown);
  return read_checked(path, f, err);
}

/* The scenario the file holds, validated like any scenario (its messages name the file). */
static herd_status loaded_scenario(const loaded *f, herd_scenario *out, herd_error *err) {
  char *text = malloc((size_t)f->head[H_SCENARIO] + 1);
  if (!text) return herd_fail(err, HERD_E_MEMORY, "out of memory reading a checkpoint");
  memcpy(text, f->scenario, f->head[H_SCENARIO]);
  text[f->head[H_SCENARIO]] = '\0';
  char origin[600];
  snprintf(origin, sizeof origin, "checkpoint %s", f->shown);
  herd_status st = scenario_parse(text, origin, NULL, 0, out, err);
  free(text);
  return st;
}

herd_status herd_checkpoint_scenario(const char *path, herd_scenario **out, uint32_t *step, herd_error *err) {
  *out = NULL;
  herd_scenario *sc = malloc(sizeof *sc);
  if (!sc) return herd_fail(err, HERD_E_MEMORY, "out of memory for a scenario");
  loaded f;
  herd_status st = load(path, &f, err);
  if (st == HERD_OK) st = loaded_scenario(&f, sc, err);
  if (st == HERD_OK && step) *step = f.head[H_STEP];
  free(f.bytes);
  if (st == HERD_OK)
    *out = sc;
  else
    free(sc);
  return st;
}

/* The sim's state as the file holds it (the flock pointing into the file's bytes). */
static void loaded_state(const loaded *f, herd_sim_saved *s) {
  memset(s, 0, sizeof *s);
  memcpy(s->backend, f->backend, BACKEND_BYTES);
  s->backend[BACKEND_BYTES - 1] = '\0';
  s->step = f->head[H_STEP];
  s->outcome = f->head[H_OUTCOME];
  s->agents = f->head[H_AGENTS];
  s->stride = f->head[H_STRIDE];
  s->steering_count = f->head[H_STEER_COUNT];
  memcpy(s->boxes.lo, f->boxes, sizeof s->boxes.lo);
  memcpy(s->boxes.hi, f->boxes + sizeof s->boxes.lo, sizeof s->boxes.hi);
  memcpy(&s->boxes.latest, f->boxes + sizeof s->boxes.lo + sizeof s->boxes.hi, sizeof s->boxes.latest);
  memcpy(&s->obs, f->obs, sizeof s->obs);
  memcpy(s->steering, f->steering, s->steering_count * sizeof s->steering[0]);
  memcpy(s->manual, f->manual, sizeof s->manual);
  memcpy(s->manual_aim, f->aim, sizeof s->manual_aim);
  /* Aligned copies are the caller's: the file's bytes hold them at any offset. */
  s->pos = (const float *)f->pos, s->vel = (const float *)f->vel, s->agent = (const uint32_t *)f->agent;
}

/* The caller's scenario against the checkpoint's: the same but for max_steps. */
static herd_status same_but_steps(const loaded *f, const herd_scenario *ours, const herd_scenario *given,
                                  herd_error *err) {
  herd_scenario a = *ours;
  a.max_steps = given->max_steps;
  char *x = herd_scenario_to_json(&a), *y = herd_scenario_to_json(given);
  bool same = x && y && strcmp(x, y) == 0;
  free(x), free(y);
  if (same) return HERD_OK;
  return bad(err, f,
             "the scenario given differs from the one the checkpoint holds; a resumed run takes the checkpoint's "
             "(only max_steps, --steps, may change)");
}

/* The flock's arrays copied out of the file's bytes, where they may lie unaligned. */
static herd_status aligned_flock(herd_sim_saved *s, void **block, herd_error *err) {
  size_t floats = (size_t)s->agents * s->stride, bytes = 2 * floats * sizeof(float) + s->agents * sizeof(uint32_t);
  unsigned char *p = *block = malloc(bytes ? bytes : 1);
  if (!p) return herd_fail(err, HERD_E_MEMORY, "out of memory for %u agents from a checkpoint", s->agents);
  memcpy(p, s->pos, floats * sizeof(float));
  memcpy(p + floats * sizeof(float), s->vel, floats * sizeof(float));
  memcpy(p + 2 * floats * sizeof(float), s->agent, s->agents * sizeof(uint32_t));
  s->pos = (const float *)p;
  s->vel = (const float *)(p + floats * sizeof(float));
  s->agent = (const uint32_t *)(p + 2 * floats * sizeof(float));
  return HERD_OK;
}

/* Each agent's id once: a file whose CRC holds but whose contents do not (made by hand) must
 * not send a backend writing outside its arrays. */
static bool ids_are_a_permutation(const uint32_t *agent, uint32_t n) {
  unsigned char *seen = calloc(n ? n : 1, 1);
  bool ok = seen != NULL;
  for (uint32_t i = 0; ok && i < n; ++i) {
    uint32_t id = herd_agent_id(agent[i]);
    ok = id < n && !seen[id];
    if (ok) seen[id] = 1;
  }
  free(seen);
  return ok;
}

/* Far beyond any field; the observation's fixed-point sums (kernels/reduce.h) hold positions
 * under 2^56 units of 2^-32 m. */
#define FLOCK_LIMIT_M 16777216.0f

/* Every float of the flock one a step could have left: positions and velocities finite and
 * under FLOCK_LIMIT_M, memory (the fourth float in 3D: a fish's found particle and what it
 * digested) finite and not negative. A file made by hand with NaN or 1e30 passed the CRC, and
 * the first step converted them to integers (undefined behaviour, garbage order parameters). */
static bool flock_in_range(const herd_sim_saved *s) {
  for (size_t i = 0; i < (size_t)s->agents * s->stride; ++i) {
    bool memory = s->stride == 4 && i % 4 == 3;
    float p = s->pos[i], v = s->vel[i];
    if (!isfinite(p) || !isfinite(v) || fabsf(p) >= FLOCK_LIMIT_M || fabsf(v) >= FLOCK_LIMIT_M) return false;
    if (memory && (p < 0.0f || v < 0.0f)) return false;
  }
  return true;
}

/* The state's enumerations and counts within their ranges, the agents' ids each once. */
static herd_status check_state(const loaded *f, const herd_sim_saved *s, herd_error *err) {
  bool ok = s->outcome <= HERD_STEP_LIMIT && s->obs.groups_tracked <= HERD_MAX_GROUPS &&
            s->obs.steering_count <= HERD_MAX_STEERING;
  for (uint32_t d = 0; ok && d < s->steering_count; ++d)
    ok = (uint32_t)s->steering[d].strategy < HERD_STRATEGY_COUNT && (uint32_t)s->steering[d].mode <= HERD_MODE_HOLD;
  if (ok && !ids_are_a_permutation(s->agent, s->agents))
    return bad(err, f, "corrupt: its agents' ids are not each agent's once");
  if (ok && !flock_in_range(s))
    return bad(err, f, "corrupt: its flock holds numbers no step gives (not finite, or beyond 2^24 m)");
  return ok ? HERD_OK : bad(err, f, "corrupt: its state holds values out of range");
}

herd_status herd_sim_resume(const herd_sim_desc *desc, const char *path, herd_sim **out, herd_error *err) {
  loaded f = {0};
  herd_scenario sc;
  herd_sim_saved *saved = malloc(sizeof *saved);
  void *flock = NULL;
  herd_status st = saved ? load(path, &f, err) : herd_fail(err, HERD_E_MEMORY, "out of memory reading a checkpoint");
  if (st == HERD_OK) st = loaded_scenario(&f, &sc, err);
  if (st == HERD_OK && desc->scenario) st = same_but_steps(&f, &sc, desc->scenario, err);
  if (st == HERD_OK) {
    if (desc->scenario) sc.max_steps = desc->scenario->max_steps;
    loaded_state(&f, saved);
    st = aligned_flock(saved, &flock, err);
  }
  if (st == HERD_OK) st = check_state(&f, saved, err);
  if (st == HERD_OK) {
    /* The step limit may have moved: the outcome is what a run with this limit would have now. */
    if (saved->outcome != HERD_SUCCEEDED) saved->outcome = saved->step >= sc.max_steps ? HERD_STEP_LIMIT : HERD_RUNNING;
    herd_sim_desc d = *desc;
    d.scenario = &sc;
    if (!d.backend) d.backend = saved->backend;
    st = herd_sim_create_saved(&d, saved, out, err);
    if (st == HERD_E_INPUT) { /* name the file */
      char why[HERD_ERROR_MAX];
      memcpy(why, err->message, sizeof why);
      st = bad(err, &f, why);
    }
  }
  free(flock);
  free(f.bytes);
  free(saved);
  return st;
}
