/* MPI for the command line (mpi_cli.h). */
#define _POSIX_C_SOURCE 200809L
#include "mpi_cli.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

bool cli_mpi_wanted(int argc, char **argv) {
  for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; ++i)
    if (strcmp(argv[i], "--mpi") == 0) return true;
  return false;
}

#ifdef HERD_WITH_MPI
#include <mpi.h>

static void mute(cli_mpi *m) {
  fflush(stdout), fflush(stderr);
  int null = open("/dev/null", O_WRONLY);
  for (int k = 0; k < 2; ++k) {
    m->muted[k] = null < 0 ? -1 : dup(k + 1);
    if (m->muted[k] >= 0) dup2(null, k + 1);
  }
  if (null >= 0) close(null);
}

void cli_mpi_speak(cli_mpi *m) {
  fflush(stdout), fflush(stderr);
  for (int k = 0; k < 2; ++k) {
    if (m->muted[k] >= 0) dup2(m->muted[k], k + 1), close(m->muted[k]);
    m->muted[k] = -1;
  }
}

int cli_mpi_start(cli_mpi *m) {
  m->muted[0] = m->muted[1] = -1;
  int provided = 0;
  /* Only the thread that started MPI calls it; the CPU backend's own threads never do. */
  if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    return cli_fail(1, "--mpi: MPI_Init failed");
  MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &m->ranks);
  m->on = true;
  if (m->rank != 0) mute(m);
  return 0;
}

int cli_mpi_agree(cli_mpi *m, int mine, bool speak) {
  int worst = mine;
  MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (speak) cli_mpi_speak(m);
  if (m->rank == 0 && mine == -1 && worst > 0)
    cli_fail(worst, "--mpi: another rank could not start (is every file there on every node?)");
  return worst;
}

int cli_mpi_end(cli_mpi *m, int status) {
  if (!m->on) return status;
  cli_mpi_speak(m);
  if (status == 1) MPI_Abort(MPI_COMM_WORLD, 1); /* the others may wait for this rank in a step */
  MPI_Finalize();
  return status;
}
#endif
