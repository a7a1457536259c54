/* Ctrl-C and SIGTERM for every command: at once while it sets up, then a flag the command
 * stops on (cli_stop), then at once again (cli.h). */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

volatile sig_atomic_t cli_stop = 0;
static volatile sig_atomic_t setting_up = 1;

void cli_begin_output(void) { setting_up = 0; }

static void say_and_exit(const char *msg, size_t len, int sig) {
  ssize_t ignored = write(STDERR_FILENO, msg, len);
  (void)ignored;
  _exit(128 + sig);
}

/* While a command sets up (reads its inputs, places and uploads the flock, builds kernels,
 * bakes fields), Ctrl-C or SIGTERM ends herd at once: nothing is written yet, and those steps
 * may not look at the flag for seconds. Afterwards the first asks the command to stop cleanly
 * (finish the summary, the CSV, the video); a second leaves at once. */
static void on_stop_signal(int sig) {
  static const char early[] = "herd: interrupted while setting up; nothing was written\n";
  static const char again[] = "\nherd: interrupted again; exiting at once\n";
  if (setting_up) say_and_exit(early, sizeof early - 1, sig);
  if (cli_stop) say_and_exit(again, sizeof again - 1, sig);
  cli_stop = sig;
}

void cli_catch_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sa.sa_flags = SA_RESTART; /* a write in progress goes on: the loop sees the flag */
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}
