/* `herd sweep --mpi`: master/worker over MPI. A worker's message is a rows_head and the rows
 * of the group it ran (none in its first message, which only asks for work); the master
 * answers each with the next group (TAG_WORK) or TAG_STOP. Rows travel as bytes: every rank
 * runs this same herd on the same kind of machine (a homogeneous cluster). */
#define _POSIX_C_SOURCE 200809L
#include "sweep_mpi.h"

#include "../util/clock.h"
#include "../util/error.h"

#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { TAG_ROWS = 1, TAG_WORK = 2, TAG_STOP = 3 };

/* What a worker says about the group it ran. */
typedef struct rows_head {
  uint64_t first;
  uint32_t count;   /* rows that follow (0 when status is not HERD_OK) */
  int32_t status;   /* herd_status of the group */
  herd_error error; /* when status is not HERD_OK */
} rows_head;

/* A worker reads its rows in place after the head. */
_Static_assert(sizeof(rows_head) % _Alignof(sweep_result) == 0, "rows after the head stay aligned");

/* Workers that have not been told to stop; only the master counts them. */
static int workers_left;

int sweep_mpi_start(sweep_mpi *m) {
  int status = cli_mpi_start(m);
  workers_left = status == 0 && m->rank == 0 ? m->ranks - 1 : 0;
  return status;
}

int sweep_mpi_agree(sweep_mpi *m, int mine) {
  int worst = cli_mpi_agree(m, mine, true);
  if (worst != -1) workers_left = 0; /* no rank goes on: no worker will ask */
  return worst;
}

/* ---- The master ------------------------------------------------------------------------- */

static void sleep_ms(long ms) {
  struct timespec t = {.tv_sec = 0, .tv_nsec = ms * 1000000L};
  nanosleep(&t, NULL);
}

/* Where the master stands: the runs handed out, the rows back, the first failure. */
typedef struct master {
  const sweep_run_opts *o;
  size_t first, total, next;
  sweep_result *results; /* indexed by run - first */
  bool *done;
  bool stopping, interrupted, failed;
  herd_error failure;
  size_t failed_run;
} master;

/* Takes a worker's rows (or its failure) from buf. */
static void take_rows(master *ma, const char *buf) {
  rows_head head;
  memcpy(&head, buf, sizeof head);
  if (head.status == HERD_OK) {
    memcpy(ma->results + (head.first - ma->first), buf + sizeof head, head.count * sizeof *ma->results);
    for (uint32_t k = 0; k < head.count; ++k) ma->done[head.first - ma->first + k] = true;
    return;
  }
  ma->stopping = true;
  if (head.status == HERD_E_INTERRUPTED) {
    ma->interrupted = true;
  } else if (!ma->failed) {
    ma->failed = true;
    ma->failure = head.error;
    ma->failed_run = head.first;
  }
}

static void stop(int worker) {
  MPI_Send(NULL, 0, MPI_UINT64_T, worker, TAG_STOP, MPI_COMM_WORLD);
  --workers_left;
}

/* The answer to a worker that sent rows: the next group, or stop. */
static void answer(master *ma, int worker) {
  if (ma->stopping || ma->next >= ma->total) {
    stop(worker);
    return;
  }
  uint64_t left = ma->total - ma->next, group[2] = {ma->next, left < ma->o->batch ? left : ma->o->batch};
  MPI_Send(group, 2, MPI_UINT64_T, worker, TAG_WORK, MPI_COMM_WORLD);
  ma->next += group[1];
}

/* A worker's message into buf if one is waiting: its rank, else -1. */
static int receive(char *buf, int size) {
  int waiting = 0;
  MPI_Status st;
  MPI_Iprobe(MPI_ANY_SOURCE, TAG_ROWS, MPI_COMM_WORLD, &waiting, &st);
  if (!waiting) return -1;
  MPI_Recv(buf, size, MPI_BYTE, st.MPI_SOURCE, TAG_ROWS, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return st.MPI_SOURCE;
}

static int message_size(unsigned batch) { return (int)(sizeof(rows_head) + batch * sizeof(sweep_result)); }

int sweep_mpi_master(const herd_sweep *sw, const sweep_run_opts *o, sweep_writer *w, size_t first) {
  size_t total = herd_sweep_run_count(sw), todo = total - first;
  master ma = {.o = o, .first = first, .total = total, .next = first};
  ma.results = calloc(todo ? todo : 1, sizeof *ma.results);
  ma.done = calloc(todo ? todo : 1, sizeof *ma.done);
  char *buf = malloc((size_t)message_size(o->batch));
  int status = ma.results && ma.done && buf ? 0 : cli_fail(1, "out of memory for %zu runs", todo);
  bool tty = !o->quiet && isatty(STDERR_FILENO);
  double begun = herd_clock_s(), shown = 0;
  size_t written = first;
  ma.stopping = status != 0;
  /* Polled, not a blocking receive: Open MPI spins in one, taking a core from the workers,
   * and Ctrl-C must be seen within a second. */
  while (workers_left > 0) {
    ma.stopping |= cli_stop != 0;
    int worker = buf ? receive(buf, message_size(o->batch)) : -1;
    if (worker >= 0) take_rows(&ma, buf), answer(&ma, worker);
    for (; status == 0 && written < total && ma.done[written - first]; ++written)
      status = sweep_write_run(w, written, &ma.results[written - first]);
    ma.stopping |= status != 0; /* a write failed: no more runs */
    if (tty && herd_clock_s() - shown > 0.2)
      sweep_show_progress(written, total, first, begun, false), shown = herd_clock_s();
    if (worker < 0) sleep_ms(1);
  }
  if (tty) sweep_show_progress(written, total, first, begun, true);
  /* A worker stopped by a signal that the master did not get (mpirun sends SIGTERM). */
  if (status == 0 && !ma.failed && ma.interrupted && !cli_stop) cli_stop = SIGTERM;
  status = sweep_ended(w, written, begun, status, ma.failed ? &ma.failure : NULL, ma.failed_run);
  free(ma.results), free(ma.done), free(buf);
  return status;
}

/* ---- A worker ----------------------------------------------------------------------------- */

int sweep_mpi_worker(const herd_sweep *sw, const sweep_run_opts *o) {
  sweep_runner runner = {.sw = sw, .backend = o->backend, .device = o->device, .batch_threads = o->threads};
  char *buf = malloc((size_t)message_size(o->batch));
  rows_head head = {.status = buf ? HERD_OK : HERD_E_MEMORY};
  if (!buf) herd_fail(&head.error, HERD_E_MEMORY, "out of memory for a batch of %u runs", o->batch);
  for (;;) {
    int size = head.status == HERD_OK ? message_size(head.count) : (int)sizeof head;
    if (buf) memcpy(buf, &head, sizeof head);
    MPI_Send(buf ? buf : (char *)&head, size, MPI_BYTE, 0, TAG_ROWS, MPI_COMM_WORLD);
    uint64_t group[2];
    MPI_Status st;
    MPI_Recv(group, 2, MPI_UINT64_T, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    if (st.MPI_TAG == TAG_STOP) break;
    head = (rows_head){.first = group[0], .count = (uint32_t)group[1]};
    sweep_result *rows = (sweep_result *)(void *)(buf + sizeof head);
    head.status = sweep_run_group(&runner, head.first, head.count, rows, &head.error);
  }
  free(buf);
  return 0;
}

/* Every worker not yet stopped is waiting for an answer (the master failed before its loop). */
static void stop_the_rest(void) {
  char *buf = malloc((size_t)message_size(SWEEP_MAX_BATCH));
  while (buf && workers_left > 0) {
    int worker = receive(buf, message_size(SWEEP_MAX_BATCH));
    if (worker >= 0)
      stop(worker);
    else
      sleep_ms(1);
  }
  free(buf);
}

int sweep_mpi_end(sweep_mpi *m, int status) {
  if (!m->on) return status;
  cli_mpi_speak(m);
  if (m->rank == 0) stop_the_rest();
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD); /* every rank ends as the master */
  MPI_Finalize();
  return status;
}
