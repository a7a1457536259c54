/* herd's outputs for a program that steps its own simulation: the HDF5 trajectory file `herd
 * run --trajectories` writes (layout: docs/output.md), frame by frame as the run goes. Where
 * herd was built without HDF5 (-DHERD_WITH_HDF5=OFF) every call refuses with HERD_E_INPUT,
 * saying so.
 *
 *   herd_trajectories *t;
 *   if (herd_trajectories_open(sim, "trajectories", "run.h5", false, "myprog --seed 3", &t, &err) != HERD_OK) ...
 *   herd_trajectories_step(t, sim, &err);      the start
 *   while (herd_sim_outcome(sim) == HERD_RUNNING && herd_sim_step(sim, &err) == HERD_OK)
 *     herd_trajectories_step(t, sim, &err);
 *   herd_trajectories_close(t, true, &err);     the file appears under its name only now */
#ifndef HERD_HERD_RECORD_H
#define HERD_HERD_RECORD_H

#include "herd.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct herd_trajectories herd_trajectories;

/* Checks, creating nothing, that `path` can be written: a new file in a folder that exists, or
 * (force) one that may be replaced; not "-" (HDF5 seeks in its file). `option` names the
 * output in messages ("--trajectories"). */
herd_status herd_trajectories_check(const char *option, const char *path, bool force, herd_error *err);

/* Creates the file for sim's run under a temporary name beside `path`: /positions and
 * /headings of the agents the scenario's output.trajectories picks (/ids), /steps, the time
 * series its output section asks for, and the run's provenance as attributes of the root
 * group (herd, command: the command line that made the run, as text (NULL: none), date, host,
 * compiler, seed, scenario, backend). Nothing of the run is written yet: call
 * herd_trajectories_step for the step sim is at (the start: step 0), then after every step.
 * (It reads the flock, which under --mpi every rank must do at the same point.) */
herd_status herd_trajectories_open(herd_sim *sim, const char *option, const char *path, bool force, const char *command,
                                   herd_trajectories **out, herd_error *err);

/* At the start and after each step: appends the frame and series rows due at sim's step; flushes the
 * file to disk at least every second, so a killed run leaves its frames behind. */
herd_status herd_trajectories_step(herd_trajectories *t, herd_sim *sim, herd_error *err);

/* Frames written, agents per frame, and the wall and this thread's CPU seconds writing took. */
void herd_trajectories_cost(const herd_trajectories *t, uint64_t *frames, uint32_t *agents, double *wall_s,
                            double *cpu_s);

/* Closes the file and renames it to its path (commit), or removes it (!commit: nothing of it
 * is left); frees t (NULL: nothing to do). */
herd_status herd_trajectories_close(herd_trajectories *t, bool commit, herd_error *err);

#ifdef __cplusplus
}
#endif
#endif
