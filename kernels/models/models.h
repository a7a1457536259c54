/* The model table: every flock model herd runs, as what it is (the scenario code's view: its
 * parameters, world, flock and drawing; kernels/models/<name>_params.h). How the backends run
 * each (its update, kernel, pre-pass, marks, explanation) is kernels/models/steps.h. A model is
 * its two headers here (kernels/model.h), its docs/models/<name>.md, and one row below. */
#ifndef HERD_KERNELS_MODELS_MODELS_H
#define HERD_KERNELS_MODELS_MODELS_H
#include "boids_params.h"
#include "couzin_params.h"
#include "fish_params.h"
#include "netlogo_params.h"
#include "strombom_params.h"

#define HERD_DIMS_2 4u /* bit 2: runs in 2D */
#define HERD_DIMS_3 8u /* bit 3: runs in 3D */

/* Steering agents move first in a step. The flock then reacts to them where they are now
 * (Strömbom: the sheep see the dog's new position) or where they were when the step began
 * (NetLogo's enemies act before anything moves; boids update synchronously). */
#define HERD_SEES_MOVED 1u
#define HERD_SEES_UNMOVED 0u

/* X(name, dimensions it runs in, its default world: dims, size x, y, z (m), wrap x, y, z,
 *   its flock: default and least size, the spawn box's first corner (fraction of the world,
 *   each axis; the box ends at 1), an agent's drawn length (m), where the flock sees the
 *   steering agents during a step (HERD_SEES_*), what it is) */
#define HERD_MODELS(X)                                                                                \
  X(strombom, HERD_DIMS_2, 2, 150, 150, 0, 0, 0, 0, 100, 2, 2.0 / 3.0, 1.6, HERD_SEES_MOVED,          \
    "Strömbom et al. (2014): sheep herded by sheepdogs")                                              \
  X(boids, HERD_DIMS_2 | HERD_DIMS_3, 2, 640, 480, 480, 0, 0, 0, 500, 1, 0.0, 7.0, HERD_SEES_UNMOVED, \
    "Reynolds boids in the Cornell ECE 4760 form, 2D and 3D")                                         \
  X(netlogo, HERD_DIMS_2, 2, 71, 71, 0, 1, 1, 0, 300, 1, 0.0, 1.5, HERD_SEES_UNMOVED,                 \
    "NetLogo Flocking (Wilensky 1998) with enemies")                                                  \
  X(couzin, HERD_DIMS_2 | HERD_DIMS_3, 3, 20, 20, 20, 0, 0, 0, 100, 1, 0.0, 1.0, HERD_SEES_UNMOVED,   \
    "Couzin et al. (2002): zones of repulsion, orientation and attraction (fish schools), 3D and 2D") \
  X(fish, HERD_DIMS_3, 3, 60, 60, 30, 0, 0, 0, 100, 1, 0.6, 1.0, HERD_SEES_UNMOVED,                   \
    "Ban, Ning & Tu (2008): a fish school on Couzin's zones that forages food and escapes sharks, 3D")

/* Models whose scenario chooses when a run with a goal succeeds: X(name). Each brings
 * herd_<name>_goal(params), a HERD_GOAL_* rule; the others: HERD_GOAL_ALL_DELIVERED. */
#define HERD_GOAL_MODELS(X) X(strombom)

#endif
