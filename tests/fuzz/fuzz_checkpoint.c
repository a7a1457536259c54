/* libFuzzer harness for the checkpoint reader (src/sim/checkpoint.c): herd_checkpoint_scenario
 * and herd_sim_resume (CPU backend, one thread) on the input as a checkpoint file. Build and run
 * with scripts/fuzz.sh; see tests/fuzz/README.md.
 *
 * The input is the file's bytes; the reader takes a path, so they are written to a memfd and
 * read back as /proc/self/fd/N. Most mutations of a checkpoint break its CRC-32 or the sizes
 * in its header, and the reader stops there; so after the input as it is, a repaired copy is
 * read too, when it differs: the scenario's length in the header set so that the sizes add up
 * to the file's (most mutations fall in the scenario's JSON text), and the CRC-32 recomputed.
 * The repair knows format version 1 (docs/checkpoint.md); a later format only makes it miss.
 * A file whose scenario has walls, water, pens or bridges is read but not resumed: baking
 * them into the distance field takes seconds under the sanitizers.
 *
 * Asserted, beyond the sanitizers' own checks (each failure prints why, then aborts):
 *   1. every error message is one non-empty line of valid UTF-8 with no control characters
 *      (fuzz_common.h);
 *   2. a file whose last 4 bytes are not the CRC-32 of the others is refused;
 *   3. what herd_sim_resume takes, herd_checkpoint_scenario takes too, with the same step
 *      index and scenario; and herd_sim_resume takes it again with that scenario passed in,
 *      its step limit moved one past the checkpoint's step (as --resume F --steps N does);
 *   4. a resumed sim checkpoints, and that checkpoint resumes at the same step;
 *   5. the sim resumed with the later step limit steps once, if it is still running (the
 *      sanitizers watch the backend on the state the file gave it), its flock one a step could
 *      have left (flock_in_range).
 *
 * The environment: HERD_FUZZ_SEED_CHECK=1: every input must resume (scripts/fuzz.sh runs the
 * seeds so, to catch seeds of an older format); HERD_FUZZ_REPAIRED_OUT=FILE: write the repaired
 * copy to FILE. */
#define _GNU_SOURCE /* memfd_create */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define FUZZ_TARGET "fuzz_checkpoint"
#include "fuzz_common.h"
#include "herd/herd.h"

/* Format version 1's layout (src/sim/checkpoint.c): "HERDCKPT", 11 u32 (version, byte order,
 * observation bytes, steering agent bytes, step, outcome, agents, floats per agent, steering
 * agents, scenario bytes, about bytes), then the parts, then the CRC-32. */
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
#define HEAD_BYTES (8u + 11u * 4u)

static int memfd = -1;
static char memfd_path[64], again_path[300], again_dir[256];
static bool seed_check;

static void clean_up(void) {
  unlink(again_path);
  rmdir(again_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  memfd = memfd_create("herd-fuzz-checkpoint", MFD_CLOEXEC);
  if (memfd < 0) {
    perror("memfd_create");
    abort();
  }
  snprintf(memfd_path, sizeof memfd_path, "/proc/self/fd/%d", memfd);
  /* The checkpoint a resumed sim writes: a real folder, since the writer renames into it. */
  scratch_folder("checkpoint", again_dir, sizeof again_dir);
  snprintf(again_path, sizeof again_path, "%s/again.ckpt", again_dir);
  atexit(clean_up);
  const char *check = getenv("HERD_FUZZ_SEED_CHECK");
  seed_check = check && strcmp(check, "1") == 0;
  return 0;
}

static void set_file(const uint8_t *data, size_t size) {
  if (ftruncate(memfd, 0) != 0 || (size && pwrite(memfd, data, size, 0) != (ssize_t)size)) {
    perror(memfd_path);
    abort();
  }
}

/* CRC-32 (IEEE 802.3, as zlib's), written here again for the oracle. */
static uint32_t crc32_of(const uint8_t *p, size_t size) {
  static uint32_t table[256];
  if (!table[1])
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = c & 1u ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      table[n] = c;
    }
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) crc = table[(crc ^ p[i]) & 0xFFu] ^ (crc >> 8);
  return ~crc;
}

static bool crc_holds(const uint8_t *data, size_t size) {
  if (size < 4) return false;
  uint32_t stored;
  memcpy(&stored, data + size - 4, 4);
  return stored == crc32_of(data, size - 4);
}

static uint32_t head(const uint8_t *data, int word) {
  uint32_t v;
  memcpy(&v, data + 8 + 4 * word, 4);
  return v;
}

/* The file's size as version 1 lays it out, but for the scenario's bytes. */
static uint64_t size_but_scenario(const uint8_t *data) {
  uint64_t floats = (uint64_t)head(data, H_AGENTS) * head(data, H_STRIDE);
  return HEAD_BYTES + 16 + (12 * sizeof(float) + 4) + head(data, H_ABOUT) + sizeof(herd_observation) +
         (uint64_t)head(data, H_STEER_COUNT) * sizeof(herd_steering_state) + HERD_MAX_STEERING +
         HERD_MAX_STEERING * 3 * sizeof(float) + 2 * floats * sizeof(float) + (uint64_t)head(data, H_AGENTS) * 4 + 4;
}

/* The repaired copy (see the top), or NULL when there is nothing to repair. */
static uint8_t *repaired(const uint8_t *data, size_t size) {
  if (size < HEAD_BYTES + 4 || memcmp(data, "HERDCKPT", 8) != 0) return NULL;
  uint8_t *copy = malloc(size);
  if (!copy) abort();
  memcpy(copy, data, size);
  uint64_t rest = size_but_scenario(copy);
  if (rest <= size && size - rest <= UINT32_MAX) {
    uint32_t scenario = (uint32_t)(size - rest);
    memcpy(copy + 8 + 4 * H_SCENARIO, &scenario, 4);
  }
  uint32_t crc = crc32_of(copy, size - 4);
  memcpy(copy + size - 4, &crc, 4);
  if (memcmp(copy, data, size) == 0) {
    free(copy);
    return NULL;
  }
  return copy;
}

static herd_sim *resume(const char *path, const herd_scenario *sc, herd_status *st) {
  herd_sim *sim = NULL;
  herd_sim_desc desc = {.scenario = sc, .threads = 1, .backend = "cpu"};
  herd_error err = no_error();
  *st = herd_sim_resume(&desc, path, &sim, &err);
  if (*st != HERD_OK) {
    check_message(&err);
    if (sim) fail("herd_sim_resume failed but gave a sim", NULL);
    return NULL;
  }
  if (!sim) fail("herd_sim_resume succeeded without a sim", NULL);
  return sim;
}

static bool same_scenario(const herd_scenario *a, const herd_scenario *b) {
  char *x = herd_scenario_to_json(a), *y = herd_scenario_to_json(b);
  if (!x || !y) fail("herd_scenario_to_json returned NULL", NULL);
  bool same = strcmp(x, y) == 0;
  free(x), free(y);
  return same;
}

/* Found by this harness (tests/fuzz/found/README.md): herd_sim_resume took a flock whose floats
 * were not finite, lay far beyond any field (1e30 m) or held memory no step could have left (a
 * fish's found particle, pos.w in 3D, at -1.7e38), and the first step converted them to
 * integers (undefined behaviour). The reader now refuses them; a resumed sim whose file holds
 * one is a failure. Read from the file's bytes (format version 1), every float of the positions
 * and velocities: finite and under 2^24 m, the memory slots (the fourth float of each, in 3D)
 * not negative. */
static bool flock_in_range(const uint8_t *data, size_t size) {
  uint32_t agents = head(data, H_AGENTS), stride = head(data, H_STRIDE);
  uint64_t floats = (uint64_t)agents * stride;
  uint64_t at = size - 4 - (uint64_t)agents * 4 - 2 * floats * sizeof(float); /* pos, vel, words, CRC */
  if (at > size) return false;
  for (uint64_t i = 0; i < 2 * floats; ++i) {
    float x;
    memcpy(&x, data + at + 4 * i, sizeof x);
    if (!(fabsf(x) < 16777216.0f) || (stride == 4 && i % 4 == 3 && x < 0.0f)) return false;
  }
  return true;
}

/* Everything on the file now in the memfd, which holds `data`. */
static void read_checkpoint(const uint8_t *data, size_t size) {
  herd_scenario *sc = NULL;
  uint32_t step = 0;
  herd_error err = no_error();
  herd_status read = herd_checkpoint_scenario(memfd_path, &sc, &step, &err);
  if (read != HERD_OK) check_message(&err);
  if ((read == HERD_OK) != (sc != NULL)) fail("herd_checkpoint_scenario's scenario and its status disagree", NULL);
  /* Walls, water, pens and bridges are baked into a distance field when a sim is made: seconds
   * under the sanitizers, so such files are read but not resumed (bridges only span water). */
  if (read == HERD_OK && !seed_check && herd_scenario_describe(sc).shapes) {
    herd_scenario_free(sc);
    return;
  }
  herd_status st;
  herd_sim *sim = resume(memfd_path, NULL, &st);
  if (!sim) {
    if (seed_check) fail("a seed does not resume (regenerate them: tests/fuzz/make_checkpoint_seeds.sh):", NULL);
    herd_scenario_free(sc);
    return;
  }
  if (read != HERD_OK) fail("herd_sim_resume takes a file that herd_checkpoint_scenario refuses:", err.message);
  if (herd_sim_step_index(sim) != step) fail("the resumed sim is not at the checkpoint's step", NULL);
  if (!same_scenario(herd_sim_scenario(sim), sc)) fail("the resumed sim's scenario is not the checkpoint's", NULL);

  /* The checkpoint's scenario with a step limit past its step, as `herd run --resume F --steps
   * N` gives it (when the scenario's range allows one: a refused set leaves it as it was): the
   * sim then goes on. */
  char later[32];
  snprintf(later, sizeof later, "%llu", (unsigned long long)step + 1);
  err = no_error();
  if (herd_scenario_set(sc, "max_steps", later, &err) != HERD_OK) check_message(&err);
  herd_sim *given = resume(memfd_path, sc, &st);
  herd_scenario_free(sc);
  if (!given) fail("herd_sim_resume refuses the checkpoint's own scenario passed in (a later step limit)", NULL);

  err = no_error();
  if (herd_sim_checkpoint(sim, again_path, true, &err) != HERD_OK) {
    check_message(&err);
    fail("a resumed sim does not checkpoint:", err.message);
  }
  herd_sim *again = resume(again_path, NULL, &st);
  if (!again) fail("the checkpoint of a resumed sim does not resume", NULL);
  if (herd_sim_step_index(again) != step) fail("the checkpoint of a resumed sim resumes at another step", NULL);
  herd_sim_destroy(again);

  if (!flock_in_range(data, size)) fail("herd_sim_resume takes a flock no step could have left", NULL);
  if (herd_sim_outcome(given) == HERD_RUNNING) {
    err = no_error();
    if (herd_sim_step(given, &err) != HERD_OK) check_message(&err);
  }
  herd_sim_destroy(given);
  herd_sim_destroy(sim);
}

/* HERD_FUZZ_REPAIRED_OUT=FILE: the repaired copy of the (one) input is written to FILE, a
 * checkpoint `herd run --resume FILE` reads as the harness did, for a report. */
static void keep_repaired(const uint8_t *data, size_t size) {
  const char *out = getenv("HERD_FUZZ_REPAIRED_OUT");
  if (!out || !*out) return;
  FILE *f = fopen(out, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) perror(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  set_file(data, size);
  bool crc_ok = crc_holds(data, size);
  if (!crc_ok) {
    herd_scenario *sc = NULL;
    herd_error err = no_error();
    if (herd_checkpoint_scenario(memfd_path, &sc, NULL, &err) == HERD_OK)
      fail("a checkpoint whose CRC-32 does not match its contents was read", NULL);
    check_message(&err);
  }
  if (crc_ok || seed_check) read_checkpoint(data, size);
  uint8_t *fixed = seed_check ? NULL : repaired(data, size);
  if (fixed) {
    keep_repaired(fixed, size);
    set_file(fixed, size);
    read_checkpoint(fixed, size);
    free(fixed);
  }
  return 0;
}
