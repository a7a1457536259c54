/* Where a result came from: every output herd writes (run summaries, CSV headers, HDF5
 * attributes, sweep.json, bench reports) records the same facts, built here once. */
#ifndef HERD_CLI_PROVENANCE_H
#define HERD_CLI_PROVENANCE_H
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "herd/herd.h"

/* The machine: {"name", "cpu", "cores", "memory", "os", "kernel"} (host name, CPU model,
 * processors online, MemTotal, the OS's pretty name, uname's release and machine). */
json_t *cli_host_json(void);

/* The compiler herd was built with, in words. */
const char *cli_compiler(void);

/* The time now in UTC, ISO 8601 ("2026-11-30T19:25:02Z"). */
void cli_utc_now(char *out, size_t size);

/* One JSON object: {"herd": {"version", "commit"}, "command": argv joined by spaces (NULL
 * argv: omitted), "date", "host": cli_host_json(), "compiler", "seed", "scenario": the
 * resolved scenario, and, when sim is given, "backend": {"name", "device"}}. sc may be NULL
 * (a bench without one scenario): then no "seed" and no "scenario". NULL when out of memory. */
json_t *cli_provenance(const herd_scenario *sc, const herd_sim *sim, int argc, char **argv);

/* The provenance as "# key: value" comment lines heading a CSV file: one line per member of
 * cli_provenance(sc, sim, argc, argv), a text as it is (JSON-quoted only when it holds a
 * control character), anything else (host, backend, the scenario) as one-line JSON. CSV
 * readers skip them with a comment option (pandas: comment='#'). False when out of memory
 * (nothing written). */
bool cli_provenance_csv(FILE *f, const herd_scenario *sc, const herd_sim *sim, int argc, char **argv);

/* The same lines for any provenance object `p` (sweeps add their own members). */
void cli_csv_comments(FILE *f, json_t *p);

#endif
