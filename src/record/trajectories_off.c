/* herd built without HDF5 (cmake -DHERD_WITH_HDF5=OFF, as the GPU device kit builds it): the
 * trajectory writer refuses before anything is made, saying why. */
#include "../util/error.h"
#include "herd/herd_record.h"

herd_status herd_trajectories_check(const char *option, const char *path, bool force, herd_error *err) {
  (void)path, (void)force;
  return herd_fail(err, HERD_E_INPUT, "%s: this herd was built without HDF5 (configure with -DHERD_WITH_HDF5=ON)",
                   option);
}

herd_status herd_trajectories_open(herd_sim *sim, const char *option, const char *path, bool force, const char *command,
                                   herd_trajectories **out, herd_error *err) {
  (void)sim, (void)command;
  *out = NULL;
  return herd_trajectories_check(option, path, force, err);
}

herd_status herd_trajectories_step(herd_trajectories *t, herd_sim *sim, herd_error *err) {
  (void)t, (void)sim, (void)err;
  return HERD_OK;
}

void herd_trajectories_cost(const herd_trajectories *t, uint64_t *frames, uint32_t *agents, double *wall_s,
                            double *cpu_s) {
  (void)t;
  *frames = 0, *agents = 0, *wall_s = 0.0, *cpu_s = 0.0;
}

herd_status herd_trajectories_close(herd_trajectories *t, bool commit, herd_error *err) {
  (void)t, (void)commit, (void)err;
  return HERD_OK;
}
