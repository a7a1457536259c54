/* The trajectory file's time series: /observation, /order and /steering, each a group of
 * datasets with one row per written step and its own /steps, at the intervals of the
 * scenario's output section (the same quantities as the CSV, in numbers). */
#include "h5_series.h"

#include <stdlib.h>
#include <string.h>

#include "h5util.h"

#define SERIES_COLUMNS 12
#define SERIES_CHUNK_ROWS 256

typedef struct series_part {
  hid_t group, column[SERIES_COLUMNS];
  hsize_t width[SERIES_COLUMNS][2]; /* the row's shape after the first axis (0: none) */
  int rank[SERIES_COLUMNS], columns, next;
  uint32_t every;
  hsize_t rows;
} series_part;

struct h5_series {
  series_part observation, order, steering;
  uint32_t dims, agents; /* axes; steering agents */
  bool path, groups;
  float *buf; /* one row of a steering column */
};

/* Adds a column of rows shaped [width0] or [width0, width1] (0: a scalar a row). */
static void add_column(series_part *p, const char *name, hid_t type, hsize_t width0, hsize_t width1) {
  int k = p->columns++;
  p->rank[k] = 1 + (width0 > 0) + (width1 > 0);
  p->width[k][0] = width0;
  p->width[k][1] = width1;
  hsize_t shape[3] = {0, width0, width1}, chunk[3] = {SERIES_CHUNK_ROWS, width0, width1};
  p->column[k] = h5u_rows_dataset(p->group, name, type, p->rank[k], shape, chunk);
}

/* The next column's value for this row (columns are written in the order they were added). */
static bool put(series_part *p, hid_t memtype, const void *data) {
  int k = p->next++;
  hsize_t count[3] = {1, p->width[k][0], p->width[k][1]};
  return h5u_append(p->column[k], p->rank[k], count, p->rows, memtype, data);
}

static bool open_part(series_part *p, hid_t file, const char *name, uint32_t every) {
  p->every = every;
  p->group = H5Gcreate2(file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (p->group < 0) return false;
  h5u_attr_number(p->group, "every_steps", H5T_NATIVE_UINT32, &every);
  add_column(p, "steps", H5T_STD_U32LE, 0, 0);
  return true;
}

static bool part_ok(const series_part *p) {
  for (int k = 0; k < p->columns; ++k)
    if (p->column[k] < 0) return false;
  return true;
}

h5_series *h5_series_create(hid_t file, const herd_sim *sim, bool *ok) {
  herd_scenario_info sc = herd_scenario_describe(herd_sim_scenario(sim)), *out = &sc;
  h5_series *s = calloc(1, sizeof *s);
  *ok = s != NULL;
  if (!s) return NULL;
  s->dims = sc.dims;
  s->agents = herd_sim_steering_count(sim);
  s->path = sc.path_points > 0;
  s->groups = sc.observes_groups;
  s->buf = malloc(sizeof(float) * (s->agents ? s->agents : 1) * 3);
  hid_t u32 = H5T_STD_U32LE, f32 = H5T_IEEE_F32LE;
  if (out->observation_every &&
      (*ok = *ok && open_part(&s->observation, file, "observation", out->observation_every))) {
    series_part *p = &s->observation;
    add_column(p, "delivered", u32, 0, 0);
    add_column(p, "in_goal", u32, 0, 0);
    add_column(p, "centroid", H5T_IEEE_F64LE, s->dims, 0);
    add_column(p, "extent_min", f32, s->dims, 0);
    add_column(p, "extent_max", f32, s->dims, 0);
    add_column(p, "farthest_id", u32, 0, 0);
    add_column(p, "farthest", f32, s->dims, 0);
    add_column(p, "farthest_dist_m", f32, 0, 0);
    if (s->path) add_column(p, "path_distance_m", f32, 0, 0);
    if (s->path) add_column(p, "path_end", u32, 0, 0);
    if (s->groups) add_column(p, "groups", u32, 0, 0);
    if (s->groups) add_column(p, "groups_tracked", u32, 0, 0);
    *ok = *ok && part_ok(p);
  }
  if (out->order_every && (*ok = *ok && open_part(&s->order, file, "order", out->order_every))) {
    add_column(&s->order, "polarisation", f32, 0, 0);
    add_column(&s->order, "milling", f32, 0, 0);
    *ok = *ok && part_ok(&s->order);
  }
  if (out->steering_every && s->agents &&
      (*ok = *ok && open_part(&s->steering, file, "steering", out->steering_every))) {
    series_part *p = &s->steering;
    add_column(p, "positions", f32, s->agents, s->dims);
    add_column(p, "mode", u32, s->agents, 0);
    add_column(p, "nearest_id", u32, s->agents, 0);
    add_column(p, "nearest_dist_m", f32, s->agents, 0);
    /* The names of the modes, by number, for a reader of /steering/mode. */
    char names[1024] = "[";
    for (int m = 0; m <= HERD_MODE_HOLD; ++m)
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s\"%s\"", m ? ", " : "",
               herd_steering_mode_name((herd_steering_mode)m));
    strncat(names, "]", sizeof names - strlen(names) - 1);
    h5u_attr_string(p->column[2], "names", names);
    *ok = *ok && part_ok(p);
  }
  return s;
}

/* Starts this step's row when the part is written and due. */
static bool due(series_part *p, uint32_t step) {
  p->next = 0;
  return p->group > 0 && herd_output_due(p->every, step) && put(p, H5T_NATIVE_UINT32, &step);
}

static bool observation_row(h5_series *s, const herd_observation *o) {
  series_part *p = &s->observation;
  hid_t u32 = H5T_NATIVE_UINT32, f32 = H5T_NATIVE_FLOAT;
  bool ok = put(p, u32, &o->delivered) && put(p, u32, &o->in_goal) && put(p, H5T_NATIVE_DOUBLE, o->centroid) &&
            put(p, f32, o->extent_min) && put(p, f32, o->extent_max) && put(p, u32, &o->farthest_id) &&
            put(p, f32, o->farthest_pos) && put(p, f32, &o->farthest_dist_m);
  if (ok && s->path) ok = put(p, f32, &o->path_distance_m) && put(p, u32, &o->path_end);
  if (ok && s->groups) ok = put(p, u32, &o->group_count) && put(p, u32, &o->groups_tracked);
  return ok;
}

/* The steering agents' row: each column gathered over the agents into one buffer. */
static bool steering_row(h5_series *s, const herd_sim *sim) {
  series_part *p = &s->steering;
  const herd_observation *o = herd_sim_observation(sim);
  float *pos = s->buf;
  uint32_t *u = (uint32_t *)s->buf;
  for (uint32_t d = 0; d < s->agents; ++d) memcpy(pos + d * s->dims, herd_sim_steering(sim, d)->pos, s->dims * 4);
  if (!put(p, H5T_NATIVE_FLOAT, pos)) return false;
  for (uint32_t d = 0; d < s->agents; ++d) u[d] = (uint32_t)herd_sim_steering(sim, d)->mode;
  if (!put(p, H5T_NATIVE_UINT32, u)) return false;
  for (uint32_t d = 0; d < s->agents; ++d) u[d] = o->nearest[d].id;
  if (!put(p, H5T_NATIVE_UINT32, u)) return false;
  for (uint32_t d = 0; d < s->agents; ++d) pos[d] = o->nearest[d].dist_m;
  return put(p, H5T_NATIVE_FLOAT, pos);
}

static bool order_row(h5_series *s, const herd_observation *o) {
  return put(&s->order, H5T_NATIVE_FLOAT, &o->polarisation) && put(&s->order, H5T_NATIVE_FLOAT, &o->milling);
}

/* Ends a row: counts it when it was written whole. */
static bool end_row(series_part *p, bool written) {
  p->rows += written;
  return written;
}

bool h5_series_step(h5_series *s, const herd_sim *sim) {
  uint32_t step = herd_sim_step_index(sim);
  const herd_observation *o = herd_sim_observation(sim);
  bool ok = true;
  if (due(&s->observation, step)) ok = end_row(&s->observation, observation_row(s, o));
  if (ok && due(&s->order, step)) ok = end_row(&s->order, order_row(s, o));
  if (ok && due(&s->steering, step)) ok = end_row(&s->steering, steering_row(s, sim));
  return ok;
}

static bool close_part(series_part *p) {
  bool ok = true;
  for (int k = 0; k < p->columns; ++k)
    if (p->column[k] >= 0) ok = H5Dclose(p->column[k]) >= 0 && ok;
  if (p->group > 0) ok = H5Gclose(p->group) >= 0 && ok;
  return ok;
}

bool h5_series_close(h5_series *s) {
  if (!s) return true;
  bool ok = close_part(&s->observation);
  ok = close_part(&s->order) && ok;
  ok = close_part(&s->steering) && ok;
  free(s->buf);
  free(s);
  return ok;
}
