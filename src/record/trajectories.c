/* Trajectories in HDF5: /positions and /headings [frames, agents, dims] float32, /steps
 * [frames], /ids [agents], chunked a frame at a time and compressed (shuffle + deflate),
 * extendible along frames so a run of any length streams to disk. */
#define _POSIX_C_SOURCE 200809L
#include "herd/herd_record.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../util/error.h"
#include "../util/outfile.h"
#include "h5_series.h"
#include "h5util.h"
#include "provenance.h"

/* The most bytes of one chunk: a frame of a very large flock is split along agents. */
#define TRAJ_CHUNK_BYTES (512u * 1024u)
/* The file reaches the disk at least this often, so a killed run leaves its frames behind. */
#define TRAJ_FLUSH_S 1.0

struct herd_trajectories {
  char option[64];   /* names the file in messages ("--trajectories") */
  herd_outfile file; /* the temporary name and the target */
  hid_t h5, positions, headings, steps;
  h5_series *series;        /* /observation, /order, /steering */
  uint32_t n, dims, agents; /* flock size, axes, agents written */
  uint32_t every;
  uint32_t *ids;           /* the agents written, ascending */
  float *pos, *vel, *pick; /* the whole flock, and one frame's picked rows */
  hsize_t frames;
  double flushed_s;
  double spent_s, spent_cpu_s; /* in herd_trajectories_step: wall and this thread's CPU time, for --profile */
};

static double clock_s(clockid_t id) {
  struct timespec t;
  clock_gettime(id, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* H5Ewalk2's visitor: the errno a file driver reported ("..., errno = 28, error message = ..."). */
static herr_t find_errno(unsigned n, const H5E_error2_t *e, void *found) {
  (void)n;
  const char *at = e->desc ? strstr(e->desc, "errno = ") : NULL;
  if (at && !*(int *)found) *(int *)found = atoi(at + 8);
  return 0;
}

/* One line for a failed HDF5 call, with the system's reason where a driver gave one (a full
 * disk, a file size limit); HDF5's own error stack is cleared, never printed. */
static herd_status h5_fail(const herd_trajectories *t, const char *what, herd_error *err) {
  int found = 0;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, find_errno, &found);
  H5Eclear2(H5E_DEFAULT);
  return herd_fail(err, HERD_E_IO, "%s %s: HDF5 could not %s%s%s", t->option, t->file.target, what, found ? ": " : "",
                   found ? strerror(found) : "");
}

herd_status herd_trajectories_check(const char *option, const char *path, bool force, herd_error *err) {
  if (!path) return herd_fail(err, HERD_E_INPUT, "%s: no file given (NULL)", option);
  if (strcmp(path, "-") == 0) /* HDF5 seeks back into the file: a pipe cannot hold it */
    return herd_fail(err, HERD_E_INPUT, "%s -: an HDF5 file cannot go to standard output (allowed: a file name)",
                     option);
  return herd_outfile_check(option, path, force, err);
}

/* ---- Attributes ---------------------------------------------------------------------- */

/* One provenance member as an attribute: strings as strings, numbers as numbers, objects
 * and arrays (the scenario, the host) as compact JSON text. */
static void attr_json(hid_t at, const char *name, json_t *v) {
  if (json_is_string(v)) {
    h5u_attr_string(at, name, json_string_value(v));
  } else if (json_is_integer(v)) {
    long long x = json_integer_value(v);
    h5u_attr_number(at, name, H5T_NATIVE_LLONG, &x);
  } else if (json_is_real(v)) {
    double x = json_real_value(v);
    h5u_attr_number(at, name, H5T_NATIVE_DOUBLE, &x);
  } else if (json_is_boolean(v)) {
    unsigned char x = json_is_true(v);
    h5u_attr_number(at, name, H5T_NATIVE_UCHAR, &x);
  } else {
    char *text = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
    if (text) h5u_attr_string(at, name, text);
    free(text);
  }
}

static herd_status write_provenance(herd_trajectories *t, const herd_scenario *sc, const herd_sim *sim,
                                    const char *command, herd_error *err) {
  json_t *p = herd_provenance(sc, sim, 0, NULL);
  if (!p) return herd_fail(err, HERD_E_IO, "out of memory");
  if (command) json_object_set_new(p, "command", json_string(command)); /* NULL (left out) unless UTF-8 */
  const char *key;
  json_t *value;
  json_object_foreach(p, key, value) attr_json(t->h5, key, value);
  json_decref(p);
  h5u_attr_number(t->h5, "every_steps", H5T_NATIVE_UINT32, &t->every);
  h5u_attr_number(t->h5, "flock_count", H5T_NATIVE_UINT32, &t->n);
  h5u_attr_number(t->h5, "dims", H5T_NATIVE_UINT32, &t->dims);
  return HERD_OK;
}

/* ---- Datasets ------------------------------------------------------------------------ */

static herd_status write_ids(herd_trajectories *t) {
  hsize_t shape[1] = {t->agents};
  hid_t space = H5Screate_simple(1, shape, NULL);
  hid_t d = H5Dcreate2(t->h5, "ids", H5T_STD_U32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  herd_status s =
      d >= 0 && H5Dwrite(d, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, t->ids) >= 0 ? HERD_OK : HERD_E_IO;
  if (d >= 0) H5Dclose(d);
  H5Sclose(space);
  return s;
}

static herd_status make_datasets(herd_trajectories *t, herd_error *err) {
  hsize_t shape[3] = {0, t->agents, t->dims};
  uint32_t per_chunk = TRAJ_CHUNK_BYTES / (t->dims * (uint32_t)sizeof(float));
  hsize_t chunk[3] = {1, t->agents < per_chunk ? t->agents : per_chunk, t->dims};
  t->positions = h5u_rows_dataset(t->h5, "positions", H5T_IEEE_F32LE, 3, shape, chunk);
  t->headings = h5u_rows_dataset(t->h5, "headings", H5T_IEEE_F32LE, 3, shape, chunk);
  hsize_t step_shape[3] = {0, 0, 0}, step_chunk[1] = {1024};
  t->steps = h5u_rows_dataset(t->h5, "steps", H5T_STD_U32LE, 1, step_shape, step_chunk);
  if (t->positions < 0 || t->headings < 0 || t->steps < 0 || write_ids(t) != HERD_OK)
    return h5_fail(t, "create its datasets", err);
  h5u_attr_string(t->positions, "units", "m");
  h5u_attr_string(t->headings, "units", "unit vectors (velocity / |velocity|; 0 where an agent stands still)");
  return HERD_OK;
}

/* Everything herd_trajectories_open makes; on failure the caller closes t. */
static herd_status start(herd_trajectories *t, herd_sim *sim, const char *path, bool force, const char *command,
                         herd_error *err) {
  const herd_scenario *sc = herd_sim_scenario(sim);
  herd_scenario_info info = herd_scenario_describe(sc);
  t->n = info.count;
  t->dims = info.dims;
  t->every = info.trajectories_every;
  t->ids = malloc(sizeof *t->ids * t->n);
  t->pos = malloc(sizeof(float) * t->n * t->dims);
  t->vel = malloc(sizeof(float) * t->n * t->dims);
  t->pick = malloc(sizeof(float) * t->n * t->dims);
  if (!t->ids || !t->pos || !t->vel || !t->pick) return herd_fail(err, HERD_E_IO, "out of memory");
  t->agents = herd_scenario_trajectory_ids(sc, t->ids);
  herd_status s = herd_outfile_reserve(&t->file, t->option, path, force, ".h5", err);
  if (s != HERD_OK) return s;
  /* HDF5's exit handler closes the ids still open, and crashes on a file whose close failed
   * (a full disk): herd closes its own, on every path, and the process's end does the rest. */
  H5dont_atexit();
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* errors come back as values, said once by us */
  t->h5 = H5Fcreate(herd_outfile_writing_path(&t->file), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (t->h5 < 0) return h5_fail(t, "create the file", err);
  s = make_datasets(t, err);
  if (s != HERD_OK) return s;
  bool ok;
  t->series = h5_series_create(t->h5, sim, &ok);
  return ok ? write_provenance(t, sc, sim, command, err) : h5_fail(t, "create its time series", err);
}

herd_status herd_trajectories_open(herd_sim *sim, const char *option, const char *path, bool force, const char *command,
                                   herd_trajectories **out, herd_error *err) {
  *out = NULL;
  herd_status s = herd_trajectories_check(option, path, force, err);
  if (s != HERD_OK) return s;
  herd_trajectories *t = calloc(1, sizeof *t);
  if (!t) return herd_fail(err, HERD_E_MEMORY, "out of memory");
  snprintf(t->option, sizeof t->option, "%s", option);
  t->h5 = t->positions = t->headings = t->steps = H5I_INVALID_HID;
  s = start(t, sim, path, force, command, err);
  if (s != HERD_OK) {
    herd_trajectories_close(t, false, NULL);
    return s;
  }
  *out = t;
  return HERD_OK;
}

/* ---- Frames -------------------------------------------------------------------------- */

/* The picked agents' rows of `all` into t->pick. */
static const float *pick_rows(herd_trajectories *t, const float *all) {
  for (uint32_t a = 0; a < t->agents; ++a)
    memcpy(t->pick + (size_t)a * t->dims, all + (size_t)t->ids[a] * t->dims, t->dims * sizeof *all);
  return t->pick;
}

/* Appends a frame of the picked agents' positions and unit headings. */
static herd_status write_frame(herd_trajectories *t, herd_sim *sim, uint32_t step, herd_error *err) {
  herd_status s = herd_sim_read_flock(sim, t->pos, t->vel, err); /* one read: under MPI, a gather */
  if (s != HERD_OK) return s;
  herd_headings_of_velocities(t->vel, t->n, t->dims);
  hsize_t count[3] = {1, t->agents, t->dims}, one[1] = {1};
  if (!h5u_append(t->positions, 3, count, t->frames, H5T_NATIVE_FLOAT, pick_rows(t, t->pos)) ||
      !h5u_append(t->headings, 3, count, t->frames, H5T_NATIVE_FLOAT, pick_rows(t, t->vel)) ||
      !h5u_append(t->steps, 1, one, t->frames, H5T_NATIVE_UINT32, &step))
    return h5_fail(t, "write a frame", err);
  ++t->frames;
  return HERD_OK;
}

/* Writes what is due at this step and flushes when a second has passed. */
static herd_status write_due(herd_trajectories *t, herd_sim *sim, double now_s, herd_error *err) {
  uint32_t step = herd_sim_step_index(sim);
  if (!h5_series_step(t->series, sim)) return h5_fail(t, "write the observation", err);
  if (herd_output_due(t->every, step)) {
    herd_status s = write_frame(t, sim, step, err);
    if (s != HERD_OK) return s;
  }
  if (now_s - t->flushed_s >= TRAJ_FLUSH_S) {
    if (H5Fflush(t->h5, H5F_SCOPE_LOCAL) < 0) return h5_fail(t, "flush the file", err);
    t->flushed_s = now_s;
  }
  return HERD_OK;
}

herd_status herd_trajectories_step(herd_trajectories *t, herd_sim *sim, herd_error *err) {
  double wall = clock_s(CLOCK_MONOTONIC), cpu = clock_s(CLOCK_THREAD_CPUTIME_ID);
  herd_status s = write_due(t, sim, wall, err);
  t->spent_s += clock_s(CLOCK_MONOTONIC) - wall;
  t->spent_cpu_s += clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu;
  return s;
}

void herd_trajectories_cost(const herd_trajectories *t, uint64_t *frames, uint32_t *agents, double *wall_s,
                            double *cpu_s) {
  *frames = t->frames, *agents = t->agents, *wall_s = t->spent_s, *cpu_s = t->spent_cpu_s;
}

herd_status herd_trajectories_close(herd_trajectories *t, bool commit, herd_error *err) {
  if (!t) return HERD_OK;
  hid_t open[4] = {t->positions, t->headings, t->steps, t->h5};
  bool closed = h5_series_close(t->series);
  for (int k = 0; k < 3; ++k)
    if (open[k] >= 0) closed = H5Dclose(open[k]) >= 0 && closed;
  if (open[3] >= 0) closed = H5Fclose(open[3]) >= 0 && closed;
  herd_status s = HERD_OK;
  if (commit && !closed)
    s = h5_fail(t, "close the file", err);
  else if (commit)
    s = herd_outfile_commit(&t->file, err);
  if (!commit || s != HERD_OK) herd_outfile_abandon(&t->file);
  free(t->ids);
  free(t->pos);
  free(t->vel);
  free(t->pick);
  free(t);
  return s;
}
