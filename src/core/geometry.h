/* A scenario's 2D obstacle geometry (obstacles.walls, .water, .pens, .bridges): its exact
 * signed distance, the checks a scenario must pass, and the field of kernels/sdf.h baked from
 * it. docs/models/env.md gives the shapes, the field's resolution and its error bound. */
#ifndef HERD_CORE_GEOMETRY_H
#define HERD_CORE_GEOMETRY_H
#include <stdbool.h>
#include <stdint.h>
#include "layer.h"

#include "herd/herd.h"
#include "herd/herd_view.h"

/* True when the scenario has walls, water or pens (bridges only carve water). */
bool herd_geometry_any(const herd_scenario *sc);

/* The signed distance in metres from (x, y) to the geometry, negative inside: the union of
 * the walls (every point within thickness_m / 2 of a wall's polyline), the pens' fences (the
 * same along each pen's boundary, open over its gate) and the water polygons less the
 * bridges' strips. Exact for each shape; a union is exact outside and keeps its sign inside.
 * grad (NULL: not wanted) gets its unit gradient. Without geometry: a large positive number. */
double herd_geometry_distance(const herd_scenario *sc, double x, double y, double grad[2]);

/* The edge of pen s (from corner k to k + 1) that holds its gate, and the gate's ends on it as
 * parameters t0 <= t1 along the edge; -1 when no edge does. */
int herd_geometry_gate_edge(const herd_shape *s, double *t0, double *t1);

/* True when p (world.dims coordinates) lies inside an obstacle: a sphere or the geometry. */
bool herd_geometry_blocks(const herd_scenario *sc, const float *p);

/* The rules a scenario's geometry follows: simple polygons, gates on their pen's boundary,
 * bridges across their water, and the target, the flock's spawn box and the steering agents
 * placed at a position not inside an obstacle. `where` starts the message. */
herd_status herd_geometry_check(const herd_scenario *sc, const char *where, herd_error *err);

/* The field array of kernels/sdf.h for the scenario's geometry (malloc'd; *floats its
 * length), or NULL when out of memory. Only for a scenario where herd_geometry_any holds. */
float *herd_geometry_bake(const herd_scenario *sc, uint32_t *floats);

#endif
