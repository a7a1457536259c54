/* `herd run`'s checkpoints (docs/checkpoint.md): --checkpoint FILE, --checkpoint-every K,
 * --checkpoint-on-stop and --resume FILE. run.c stores the options' text; the work is here. */
#ifndef HERD_CLI_CHECKPOINT_CLI_H
#define HERD_CLI_CHECKPOINT_CLI_H
#include "cli.h"
#include "herd/herd.h"

typedef struct checkpoint_opts {
  const char *path;       /* --checkpoint FILE: where (NULL: no checkpoints) */
  const char *every_text; /* --checkpoint-every K, as typed */
  bool on_stop;           /* --checkpoint-on-stop: also when Ctrl-C stops the run */
  const char *resume;     /* --resume FILE */
  bool force;             /* --force: the first write may replace a file that was there */
  /* Set by checkpoint_check: */
  uint32_t every; /* 0: no periodic checkpoints */
  bool written;   /* this run has written FILE: later writes replace its own file */
} checkpoint_opts;

/* Checks the options together (before anything is made or written): 0, or the exit status
 * after saying what is wrong. */
int checkpoint_check(checkpoint_opts *c, const scenario_args *scenario);

/* With --resume: the checkpoint's scenario with --steps applied (a new one in *sc, for
 * herd_scenario_free). 0, or the exit status after saying why not. */
int checkpoint_scenario_of(const checkpoint_opts *c, const scenario_args *scenario, herd_scenario **sc);

/* Then the sim resumed from the checkpoint with that scenario, on desc's backend. */
int checkpoint_resume(const checkpoint_opts *c, herd_scenario *sc, const herd_sim_desc *desc, herd_sim **sim);

/* After each whole step: a checkpoint every K steps. 0, or the exit status of a failure. */
int checkpoint_after_step(checkpoint_opts *c, herd_sim *sim);

/* When the run ends: a checkpoint of its last whole step (when interrupted only with
 * --checkpoint-on-stop). 0, or the exit status of a failure. */
int checkpoint_at_end(checkpoint_opts *c, herd_sim *sim, bool interrupted);

#endif
