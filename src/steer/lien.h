/* Lien, Rodríguez, Malric, Amato (2004), "Shepherding Behaviors with Multiple Shepherds":
 * shepherds that share a flock's work without talking to each other. Each one reads the
 * observation's groups, lays out every steering point (formations, merging), picks its own
 * by the scenario's assignment method and walks there. docs/models/lien-shepherds.md. */
#ifndef HERD_STEER_LIEN_H
#define HERD_STEER_LIEN_H
#include "steer.h"

/* Moves shepherd `index` one step (the strategy table's HERD_STRATEGY_SHEPHERD). */
void herd_lien_shepherd_step(const herd_steer_context *ctx, uint32_t index, herd_steering_state *agent);

#endif
