/* herd built without HDF5 (cmake -DHERD_WITH_HDF5=OFF, as the GPU device kit builds it):
 * --trajectories is refused before anything runs, saying why. */
#include "trajectories.h"

#include "../util/error.h"

herd_status traj_check(const char *path, bool force, herd_error *err) {
  (void)path, (void)force;
  return herd_fail(err, HERD_E_INPUT,
                   "--trajectories: this herd was built without HDF5 (configure with -DHERD_WITH_HDF5=ON)");
}

herd_status traj_open(traj_out **out, const char *path, bool force, herd_sim *sim, const herd_scenario *sc, int argc,
                      char **argv, herd_error *err) {
  (void)sim, (void)sc, (void)argc, (void)argv;
  *out = NULL;
  return traj_check(path, force, err);
}

herd_status traj_step(traj_out *t, herd_sim *sim, double now_s, herd_error *err) {
  (void)t, (void)sim, (void)now_s, (void)err;
  return HERD_OK;
}

void traj_profile(FILE *out, const traj_out *t, uint32_t steps) { (void)out, (void)t, (void)steps; }

herd_status traj_close(traj_out *t, bool commit, herd_error *err) {
  (void)t, (void)commit, (void)err;
  return HERD_OK;
}
