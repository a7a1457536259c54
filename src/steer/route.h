/* The way home around obstacles (docs/models/env.md "Routing"): a distance-to-goal
 * field over a grid of the scenario's walls, water, pens and bridges (Dijkstra from the goal,
 * 8-connected, no corner cutting; a step costs its length times 1 + 3 (1 - d / room) within
 * `room` of an obstacle, so the way runs down the middle of a gate or a bridge), the waypoint a flock at a point heads
 * for, shortest paths for a dog to get around obstacles, and dog moves that never pass through one. Host side: the dogs
 * read it; the flock never does. */
#ifndef HERD_STEER_ROUTE_H
#define HERD_STEER_ROUTE_H
#include <stdbool.h>
#include <stdint.h>
#include "layer.h"

#include "../core/scenario.h"
#include "herd/herd.h"

#define HERD_ROUTE_CELL_M 1.0f      /* grid spacing (coarser when the world is large) */
#define HERD_ROUTE_CLEARANCE_M 2.0f /* a flock's way keeps at least this far from every obstacle */
#define HERD_ROUTE_ROOM_M 12.0f     /* ... and prefers this much room: closer cells cost more */
#define HERD_ROUTE_MAX_CELLS 250000 /* the grid's size limit: 500 x 500 cells */
#define HERD_DOG_CLEARANCE_M 0.75f  /* a dog keeps this far from every obstacle */

typedef struct herd_route herd_route;

/* The field toward the scenario's goal (the target's goal circle), or NULL when the scenario
 * has no walls, water or pens, no goal, or memory runs out. */
herd_route *herd_route_build(const herd_scenario *sc);
void herd_route_free(herd_route *route);

/* The waypoint of a flock at `from` (x, y): the point reached by following the field
 * downhill for `ahead_m` metres (the goal's point when it gets there first). False when
 * `from` is off the grid or cut off from the goal (then `out` is the target). */
bool herd_route_waypoint(const herd_route *route, const float from[2], float ahead_m, float out[2]);

/* The next point toward `to` for a dog at `from` that goes around obstacles: `to` itself when
 * the straight segment stays clear of every obstacle by `clear_m`, else the farthest corner
 * of the grid's shortest path (A*, 8-connected) still in sight. False when no path exists. */
bool herd_route_toward(const herd_route *route, const float from[2], const float to[2], float clear_m, float out[2]);

/* Moves `pos` by (dx, dy) in steps of at most a quarter metre, each kept `clear_m` out of
 * every obstacle (sliding along a surface instead of entering it). */
void herd_route_slide(const herd_scenario *sc, float pos[2], float dx, float dy, float clear_m);

/* Where a dog or shepherd at `from` heading for `to` steps next: `to` itself without a route,
 * else the way around obstacles (herd_route_toward, keeping HERD_DOG_CLEARANCE_M; `to` when no
 * way exists). */
void herd_route_next(const herd_route *route, const float from[2], const float to[2], float out[2]);

/* Moves a dog or shepherd at `pos` by (dx, dy): straight without a route, else never into an
 * obstacle, sliding along its surface (herd_route_slide, HERD_DOG_CLEARANCE_M). */
void herd_route_move(const herd_route *route, float pos[2], float dx, float dy);

/* The field's distance to the goal at (x, y) (INFINITY when blocked or cut off). */
float herd_route_distance(const herd_route *route, float x, float y);

#endif
