/* What `herd run --mpi` and `herd sweep --mpi` share: MPI started only when --mpi is
 * given (a plain run never needs mpirun), the ranks other than 0 silent while every rank parses
 * and checks the same options and files (so a mistake is told once, by rank 0), and one exit
 * status agreed by all. */
#ifndef HERD_CLI_MPI_CLI_H
#define HERD_CLI_MPI_CLI_H
#include <stdbool.h>

#include "cli.h"

typedef struct cli_mpi {
  bool on;      /* --mpi was given and MPI is initialised */
  int rank;     /* 0: the one that speaks and writes */
  int ranks;    /* every rank */
  int muted[2]; /* stdout and stderr saved while a rank other than 0 is silent (-1: not muted) */
} cli_mpi;

#define CLI_MPI_OFF                                         \
  {                                                         \
    .on = false, .rank = 0, .ranks = 1, .muted = { -1, -1 } \
  }

/* True when argv (before any "--") holds --mpi. */
bool cli_mpi_wanted(int argc, char **argv);

#ifdef HERD_WITH_MPI
/* Starts MPI and silences the ranks other than 0 until cli_mpi_agree; 0, or an exit status. */
int cli_mpi_start(cli_mpi *m);

/* Every rank's status so far (-1: go on, 0: done, e.g. --help, else an exit status) made one:
 * the worst. Rank 0 says so when only another rank failed. With `speak`, every rank speaks
 * again from here (else the others stay silent until a later call with it). */
int cli_mpi_agree(cli_mpi *m, int mine, bool speak);

/* Every rank speaks again (after cli_mpi_agree without `speak`). */
void cli_mpi_speak(cli_mpi *m);

/* Ends MPI; a rank that fails on its own (status 1: a run error) aborts the job, so that no
 * other rank waits for it forever. Returns `status`. */
int cli_mpi_end(cli_mpi *m, int status);
#else
/* Built without MPI: --mpi is refused, and nothing else here is reached. */
static inline int cli_mpi_start(cli_mpi *m) {
  (void)m;
  return cli_fail(EXIT_BAD_INPUT, "--mpi: this herd was built without MPI (cmake -DHERD_WITH_MPI=ON)");
}
static inline int cli_mpi_agree(cli_mpi *m, int mine, bool speak) { return (void)m, (void)speak, mine; }
static inline void cli_mpi_speak(cli_mpi *m) { (void)m; }
static inline int cli_mpi_end(cli_mpi *m, int status) { return (void)m, status; }
#endif

#endif
