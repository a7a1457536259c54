/* `herd run --trajectories FILE.h5`: per-agent positions and headings in HDF5, streamed
 * frame by frame (layout: docs/output.md). */
#ifndef HERD_CLI_TRAJECTORIES_H
#define HERD_CLI_TRAJECTORIES_H
#include <stdbool.h>
#include <stdio.h>

#include "herd/herd.h"

typedef struct traj_out traj_out;

/* Checks, creating nothing, that the file can be written (see herd_outfile_check). */
herd_status traj_check(const char *path, bool force, herd_error *err);

/* Creates the file under a temporary name: its datasets (empty, extendible along frames),
 * the ids written, and the run's provenance as attributes of the root group. */
herd_status traj_open(traj_out **out, const char *path, bool force, herd_sim *sim, const herd_scenario *sc, int argc,
                      char **argv, herd_error *err);

/* Appends a frame when output.trajectories.every_steps says the current step is due;
 * flushes to disk at least every second (`now_s`: a monotonic clock). */
herd_status traj_step(traj_out *t, herd_sim *sim, double now_s, herd_error *err);

/* With --profile: the frames written and the time writing took (wall and CPU). */
void traj_profile(FILE *out, const traj_out *t, uint32_t steps);

/* Closes the file and renames it into place (commit), or removes it (!commit); frees t. */
herd_status traj_close(traj_out *t, bool commit, herd_error *err);

#endif
