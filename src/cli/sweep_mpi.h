/* `herd sweep --mpi`: the runs of a sweep handed out over MPI ranks. Rank 0 is the master: it
 * reads nothing that the other ranks do not also read, hands groups of runs (a batch each) to
 * whichever worker asks, and writes every file, rows in run order, exactly as the
 * single-process sweep does. Workers run groups and send back their rows; they open no file. */
#ifndef HERD_CLI_SWEEP_MPI_H
#define HERD_CLI_SWEEP_MPI_H
#include <stdbool.h>

#include "cli.h"
#include "mpi_cli.h"
#include "sweep_out.h"

typedef cli_mpi sweep_mpi; /* rank 0: the master */

#ifdef HERD_WITH_MPI
/* cli_mpi_start (before the options are parsed, so that only rank 0 speaks about them), and
 * the master's count of workers. */
int sweep_mpi_start(sweep_mpi *m);

/* cli_mpi_agree, every rank speaking again; no worker will ask when the ranks do not go on. */
int sweep_mpi_agree(sweep_mpi *m, int mine);

/* The master's loop (rank 0 of more than one): hands runs [first, total) to the workers and
 * writes their rows into w in run order; 0 or an exit status (128 + signal after Ctrl-C). */
int sweep_mpi_master(const herd_sweep *sw, const sweep_run_opts *o, sweep_writer *w, size_t first);

/* A worker's loop: asks for groups of runs until told to stop; 0 (the status every rank ends
 * with is the master's, given out by sweep_mpi_end). */
int sweep_mpi_worker(const herd_sweep *sw, const sweep_run_opts *o);

/* The master's status, given to every worker that has not yet stopped (before the master
 * wrote anything: it failed to open its folder) -- then MPI ends. Returns `status`. */
int sweep_mpi_end(sweep_mpi *m, int status);
#else
/* Built without MPI: --mpi is refused, and nothing else here is reached. */
static inline int sweep_mpi_start(sweep_mpi *m) { return cli_mpi_start(m); }
static inline int sweep_mpi_agree(sweep_mpi *m, int mine) { return (void)m, mine; }
static inline int sweep_mpi_master(const herd_sweep *sw, const sweep_run_opts *o, sweep_writer *w, size_t first) {
  return (void)sw, (void)o, (void)w, (void)first, 1;
}
static inline int sweep_mpi_worker(const herd_sweep *sw, const sweep_run_opts *o) { return (void)sw, (void)o, 1; }
static inline int sweep_mpi_end(sweep_mpi *m, int status) { return (void)m, status; }
#endif

#endif
