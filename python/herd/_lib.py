"""libherd.so through cffi's ABI mode: the declarations below are herd.h's, as the package
uses them. herd_sizeof checks them against the library's own sizes when it is loaded, so a
header change that is not copied here fails at import instead of reading the wrong bytes."""

import ctypes.util
import os
import pathlib

import cffi

CDEF = """
typedef struct herd_error { int status; char message[1024]; } herd_error;

/* Opaque, as in herd.h: made by herd_scenario_load/_parse/_copy, freed by herd_scenario_free,
 * read through herd_scenario_describe and herd_scenario_get. */
typedef struct herd_scenario herd_scenario;
typedef struct herd_scenario_info {
  uint32_t model;
  uint32_t dims;
  float size_m[3];
  uint32_t wrap[3];
  uint64_t seed;
  uint32_t max_steps;
  uint32_t count;
  float target_m[3];
  float goal_radius_m;
  int32_t goal_pen;
  uint32_t dogs;
  uint32_t steering;
  uint32_t agent_entries;
  uint32_t food;
  uint32_t path_points;
  uint32_t spheres;
  uint32_t shapes;
  bool observes_groups;
  float grid_cell_m;
  uint32_t observation_every, order_every, steering_every, trajectories_every;
} herd_scenario_info;

typedef struct herd_group {
  uint32_t count;
  uint32_t first_id;
  double centroid[3];
  float radius_m;
  float compact_radius_m;
  uint32_t farthest_id;
  float farthest_pos[3];
  float heading[3];
} herd_group;

typedef struct herd_sector {
  uint32_t count;
  uint32_t farthest_id;
  float farthest_pos[3];
  float farthest_dist_m;
} herd_sector;

typedef struct herd_observation {
  uint32_t count;
  uint32_t in_goal;
  uint32_t delivered;
  double centroid[3];
  float extent_min[3];
  float extent_max[3];
  uint32_t farthest_id;
  float farthest_pos[3];
  float farthest_dist_m;
  float polarisation;
  float milling;
  float path_distance_m;
  uint32_t path_end;
  uint32_t group_count;
  uint32_t groups_tracked;
  herd_group group[32];
  uint32_t steering_count;
  struct { uint32_t id; float pos[3]; float dist_m; } nearest[64];
  uint32_t missing;
  herd_sector sector[8];
} herd_observation;

typedef struct herd_steering_state {
  int strategy;
  int mode;
  float pos[3];
  float heading[3];
  float velocity[3];
  float aim[3];
  int32_t group;
  uint32_t flock_state;
  float speed_m_per_step;
} herd_steering_state;

typedef struct herd_mpi_options {
  bool on;
  const char *layout;
  uint32_t rebalance_every;
} herd_mpi_options;

typedef struct herd_sim_desc {
  const herd_scenario *scenario;
  int threads;
  const char *backend;
  const char *device;
  bool profile;
  const void *gl_share;
  const volatile int *stop;
  bool lockstep;
  herd_mpi_options mpi;
} herd_sim_desc;

typedef struct herd_sim herd_sim;

const char *herd_version(void);
const char *herd_build_commit(void);
const char *herd_default_scenario_json(void);
const char *herd_model_name(uint32_t model);
const char *herd_strategy_name(int strategy);
const char *herd_steering_mode_name(int mode);
const char *herd_outcome_name(int outcome);
size_t herd_sizeof(const char *type);
void free(void *);

int herd_scenario_load(const char *path, const char *const *sets, int set_count, herd_scenario **out,
                       herd_error *err);
int herd_scenario_parse(const char *text, const char *origin, const char *const *sets, int set_count,
                        herd_scenario **out, herd_error *err);
int herd_scenario_copy(const herd_scenario *sc, herd_scenario **out, herd_error *err);
void herd_scenario_free(herd_scenario *sc);
int herd_scenario_set(herd_scenario *sc, const char *path, const char *value, herd_error *err);
char *herd_scenario_to_json(const herd_scenario *sc);
int herd_scenario_get(const herd_scenario *sc, const char *path, double *value, herd_error *err);
herd_scenario_info herd_scenario_describe(const herd_scenario *sc);
uint32_t herd_scenario_schedule_count(const herd_scenario *sc);
bool herd_scenario_schedule_entry(const herd_scenario *sc, uint32_t k, uint32_t *step, const char **path,
                                  double *value);

int herd_sim_create(const herd_sim_desc *desc, herd_sim **out, herd_error *err);
void herd_sim_destroy(herd_sim *sim);
int herd_sim_step(herd_sim *sim, herd_error *err);
int herd_sim_run(herd_sim *sim, uint32_t steps, uint32_t *done, herd_error *err);
uint32_t herd_sim_step_index(const herd_sim *sim);
int herd_sim_outcome(const herd_sim *sim);
const herd_observation *herd_sim_observation(const herd_sim *sim);
uint32_t herd_sim_steering_count(const herd_sim *sim);
const herd_steering_state *herd_sim_steering(const herd_sim *sim, uint32_t index);
int herd_sim_read_flock(herd_sim *sim, float *pos, float *vel, herd_error *err);
typedef struct herd_run_result {
  int outcome;
  uint32_t steps;
  double wall_s;
  herd_observation obs;
  uint32_t dims;
  uint32_t mode_changes;
  double drive_farthest_m;
  double late_polarisation, late_milling;
  double steering_nearest_m;
  double food_eaten;
} herd_run_result;
typedef struct herd_batch herd_batch;
int herd_batch_create(const herd_sim_desc *descs, uint32_t count, herd_batch **out, herd_error *err);
void herd_batch_destroy(herd_batch *batch);
int herd_batch_step(herd_batch *batch, herd_error *err);
uint32_t herd_batch_running(const herd_batch *batch);
const herd_sim *herd_batch_world(const herd_batch *batch, uint32_t w);
int herd_batch_restart(herd_batch *batch, const uint32_t *worlds, const herd_scenario *const *scenarios,
                       uint32_t count, herd_error *err);
int herd_batch_steer(herd_batch *batch, const uint32_t *agents, uint32_t agent_count, const float *aims,
                     herd_error *err);
void herd_batch_read_worlds(const herd_batch *batch, herd_observation *obs, herd_steering_state *steering,
                            uint32_t *steps, uint32_t *outcomes);
int herd_batch_run(const herd_sim_desc *descs, uint32_t count, herd_run_result *results, herd_error *err);
int herd_sim_read_headings(herd_sim *sim, float *headings, herd_error *err);
int herd_sim_read_flags(herd_sim *sim, uint8_t *flags, herd_error *err);
int herd_sim_steer(herd_sim *sim, uint32_t index, const float *aim, herd_error *err);
int herd_sim_release(herd_sim *sim, uint32_t index, herd_error *err);
int herd_sim_place_steering(herd_sim *sim, uint32_t index, const float *pos, herd_error *err);
const char *herd_sim_backend(const herd_sim *sim);
const char *herd_sim_device(const herd_sim *sim);
int herd_sim_set_param(herd_sim *sim, const char *path, double value, herd_error *err);
uint32_t herd_sim_schedule_made(const herd_sim *sim);

typedef struct herd_profile {
  double seconds[9];
  uint64_t calls[9];
  uint64_t kernels;
  uint64_t waits;
} herd_profile;
const char *herd_stage_name(int stage);
int herd_sim_profile(herd_sim *sim, herd_profile *out, herd_error *err);
int herd_sim_checkpoint(herd_sim *sim, const char *path, bool force, herd_error *err);
int herd_checkpoint_scenario(const char *path, herd_scenario **out, uint32_t *step, herd_error *err);
typedef struct herd_trajectories herd_trajectories;
int herd_trajectories_open(herd_sim *sim, const char *option, const char *path, bool force, const char *command,
                           herd_trajectories **out, herd_error *err);
int herd_trajectories_step(herd_trajectories *t, herd_sim *sim, herd_error *err);
int herd_trajectories_close(herd_trajectories *t, bool commit, herd_error *err);
typedef struct herd_update_terms {
  uint32_t id;
  uint32_t step;
  bool moved;
  uint32_t count;
  struct { const char *name; float weight; float dir[3]; } term[8];
} herd_update_terms;
int herd_sim_explain(herd_sim *sim, uint32_t id, herd_error *err);
bool herd_sim_update_terms(const herd_sim *sim, herd_update_terms *out);
int herd_sim_resume(const herd_sim_desc *desc, const char *path, herd_sim **out, herd_error *err);
"""

CHECKED_STRUCTS = ("herd_scenario_info", "herd_observation", "herd_steering_state", "herd_sim_desc", "herd_error",
                   "herd_profile", "herd_run_result", "herd_update_terms")
STAGE_COUNT = 9  # herd_stage's HERD_STAGE_COUNT: herd_profile's size is checked at import

ffi = cffi.FFI()
ffi.cdef(CDEF)


def _candidates():
    """Where libherd.so may be: $HERD_LIB, next to the package (a wheel carries it there), where
    cmake --install put it (_installed.py, written by the install), then the system's search."""
    if os.environ.get("HERD_LIB"):
        yield os.environ["HERD_LIB"]
        return
    here = pathlib.Path(__file__).resolve().parent
    for name in ("libherd.so", "libherd.so.1"):
        if (here / name).exists():
            yield str(here / name)
    try:
        from ._installed import LIBRARY
    except ImportError:
        LIBRARY = None
    if LIBRARY:
        yield LIBRARY
    found = ctypes.util.find_library("herd")
    yield found or "libherd.so.1"


def _load():
    errors = []
    for path in _candidates():
        try:
            lib = ffi.dlopen(path)
        except OSError as e:
            errors.append(f"{path}: {e}")
            continue
        for name in CHECKED_STRUCTS:
            if ffi.sizeof(name) != lib.herd_sizeof(name.encode()):
                raise ImportError(
                    f"herd: {path}: {name} is {lib.herd_sizeof(name.encode())} bytes in the library but "
                    f"{ffi.sizeof(name)} in python/herd/_lib.py: copy herd.h's declaration there"
                )
        return lib, path
    raise ImportError(
        "herd: libherd.so not found (set HERD_LIB to its path, put it next to the package, or "
        "install herd with cmake --install): " + "; ".join(errors)
    )


lib, lib_path = _load()
