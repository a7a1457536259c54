/* `herd run`'s checkpoint options (checkpoint_cli.h). */
#include "checkpoint_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/outfile.h"
#include "claims.h"
#include "options.h"

/* --resume takes the checkpoint's scenario whole: only the step limit may change. */
static int resume_args_check(const scenario_args *scenario) {
  if (scenario->path)
    return cli_fail(EXIT_BAD_INPUT,
                    "--resume: a scenario file (%s) cannot be given: a resumed run takes the checkpoint's scenario "
                    "(allowed with --resume: --steps)",
                    cli_shown(scenario->path));
  for (int k = 0; k < scenario->set_count; ++k)
    if (strncmp(scenario->sets[k], "max_steps=", 10) != 0)
      return cli_fail(EXIT_BAD_INPUT,
                      "--resume: %s %s would change the checkpoint's scenario, which a resumed run continues as it "
                      "was (allowed with --resume: --steps, or --set max_steps=N)",
                      scenario->sets[k][0] == '@' ? "--set-at" : "--set",
                      cli_shown(scenario->sets[k] + (scenario->sets[k][0] == '@')));
  return 0;
}

static int every_parse(checkpoint_opts *c) {
  unsigned long long k;
  if (cli_parse_integer("--checkpoint-every", c->every_text, 1, UINT32_MAX, &k)) return EXIT_BAD_INPUT;
  c->every = (uint32_t)k;
  return 0;
}

int checkpoint_check(checkpoint_opts *c, const scenario_args *scenario) {
  int status = c->resume ? resume_args_check(scenario) : 0;
  if (status == 0 && c->every_text) status = every_parse(c);
  if (status == 0 && !c->path && (c->every_text || c->on_stop))
    status = cli_fail(EXIT_BAD_INPUT, "%s: needs --checkpoint FILE (where to write)",
                      c->every_text ? "--checkpoint-every" : "--checkpoint-on-stop");
  /* A run resumed from FILE may go on writing FILE: it is the same run's. */
  bool own = c->path && c->resume && cli_same_file(c->path, c->resume);
  herd_error err;
  if (status == 0 && c->path && herd_outfile_check("--checkpoint", c->path, c->force || own, &err) != HERD_OK)
    status = cli_error(&err);
  c->written = own;
  return status;
}

int checkpoint_scenario_of(const checkpoint_opts *c, const scenario_args *scenario, herd_scenario **sc) {
  herd_error err;
  herd_scenario *saved;
  if (herd_checkpoint_scenario(c->resume, &saved, NULL, &err) != HERD_OK) return cli_error(&err);
  /* --steps through the scenario's own checks, as for a scenario file. */
  char *json = herd_scenario_to_json(saved);
  herd_scenario_free(saved);
  if (!json) return cli_fail(1, "out of memory");
  herd_status st = herd_scenario_parse(json, c->resume, scenario->sets, scenario->set_count, sc, &err);
  free(json);
  return st == HERD_OK ? 0 : cli_error(&err);
}

int checkpoint_resume(const checkpoint_opts *c, herd_scenario *sc, const herd_sim_desc *desc, herd_sim **sim) {
  herd_error err;
  herd_sim_desc d = *desc;
  d.scenario = sc;
  return herd_sim_resume(&d, c->resume, sim, &err) == HERD_OK ? 0 : cli_error(&err);
}

static int write_now(checkpoint_opts *c, herd_sim *sim) {
  herd_error err;
  if (herd_sim_checkpoint(sim, c->path, c->force || c->written, &err) != HERD_OK) return cli_error(&err);
  c->written = true;
  return 0;
}

int checkpoint_after_step(checkpoint_opts *c, herd_sim *sim) {
  if (!c->path || !c->every || herd_sim_step_index(sim) % c->every != 0) return 0;
  return write_now(c, sim);
}

int checkpoint_at_end(checkpoint_opts *c, herd_sim *sim, bool interrupted) {
  if (!c->path || (interrupted && !c->on_stop)) return 0;
  int status = write_now(c, sim);
  if (status == 0) /* even with --quiet: where the run can go on from is part of its result */
    fprintf(stderr, "herd: checkpoint %s: step %u\n", cli_shown(c->path), herd_sim_step_index(sim));
  return status;
}
