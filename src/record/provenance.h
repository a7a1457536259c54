/* Where a result came from: every output herd writes (run summaries, CSV headers, HDF5
 * attributes, sweep.json, bench reports) records the same facts, built here once. */
#include "layer.h"
#ifndef HERD_RECORD_PROVENANCE_H
#define HERD_RECORD_PROVENANCE_H
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "herd/herd.h"

/* The value of the first line of `path` that starts with `key` ("model name", "MemTotal:",
 * "PRETTY_NAME="), trimmed; "" when there is none. */
void herd_read_key(const char *path, const char *key, char *out, size_t size);

/* argv joined by spaces, for the "command" member; a command's own argv ("run", "--seed", "3")
 * gets "herd " in front so the line reads as typed. Free with free(); NULL: out of memory. */
char *herd_command_line(int argc, char **argv);

/* The machine: {"name", "cpu", "cores", "memory", "os", "kernel"} (host name, CPU model,
 * processors online, MemTotal, the OS's pretty name, uname's release and machine). */
json_t *herd_host_json(void);

/* The compiler herd was built with, in words. */
const char *herd_compiler_text(void);

/* The time now in UTC, ISO 8601 ("2026-11-30T19:25:02Z"). */
void herd_utc_now(char *out, size_t size);

/* One JSON object: {"herd": {"version", "commit"}, "command": argv joined by spaces (NULL
 * argv: omitted), "date", "host": herd_host_json(), "compiler", "seed", "scenario": the
 * resolved scenario, and, when sim is given, "backend": {"name", "device"}}. sc may be NULL
 * (a bench without one scenario): then no "seed" and no "scenario". NULL when out of memory. */
json_t *herd_provenance(const herd_scenario *sc, const herd_sim *sim, int argc, char **argv);

/* The provenance as "# key: value" comment lines heading a CSV file: one line per member of
 * herd_provenance(sc, sim, argc, argv), a text as it is (JSON-quoted only when it holds a
 * control character), anything else (host, backend, the scenario) as one-line JSON. CSV
 * readers skip them with a comment option (pandas: comment='#'). False when out of memory
 * (nothing written). */
bool herd_provenance_csv(FILE *f, const herd_scenario *sc, const herd_sim *sim, int argc, char **argv);

/* The same lines for any provenance object `p` (sweeps add their own members). */
void herd_csv_comments(FILE *f, json_t *p);

#endif
