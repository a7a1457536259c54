/* The scenario's output section, checked against the rest of the scenario. */
#ifndef HERD_CORE_OUTPUT_H
#define HERD_CORE_OUTPUT_H
#include "herd/herd.h"
#include "layer.h"
#include "scenario.h"

/* Checks what the field table cannot: a sample no larger than the flock. `where` is the
 * scenario's name for messages. */
herd_status output_check(const herd_scenario *sc, const char *where, herd_error *err);

#endif
