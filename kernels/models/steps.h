/* How the backends run every model of the table (kernels/models/models.h): each model's
 * update and entry points (kernels/models/<name>.h) and the optional parts some have. The
 * OpenCL program gets one kernel per row of the table (herd_step_<name>); the CPU backend's
 * table (src/backend/model_exec.c) is made from the same rows. */
#ifndef HERD_KERNELS_MODELS_STEPS_H
#define HERD_KERNELS_MODELS_STEPS_H
#include "boids.h"
#include "couzin.h"
#include "fish.h"
#include "models.h"
#include "netlogo.h"
#include "strombom.h"

/* Models whose step kernel may read a pre-pass's results (herd_flock_view.pre): X(name). Each
 * brings the kernel herd_pre_<name>_coop (kernels/knn_coop.cl),
 * herd_<name>_prepass(params, count), true when its step wants them, and
 * herd_<name>_prepass_reach_m(params): the pre-pass works for agents within that of a steering
 * agent only. */
#define HERD_PREPASS_MODELS(X) X(strombom)

/* Models whose step kernels (herd_step_<name>_2d, _3d and their batch variants) a GPU builds
 * with at most `registers` registers per work-item where its compiler takes a bound (NVIDIA's,
 * cl_nv_compiler_options): X(name, registers). Without one ptxas gives them 59-95 for sm_90
 * (fish 90, its batch kernel 132); at 64, half of an SM's warps are resident, and they spill
 * 0-112 B (fish at 96: 252 B; bench/results/gpu-static.md). Strömbom is built without one. */
#define HERD_CAPPED_MODELS(X) X(boids, 64) X(couzin, 64) X(netlogo, 64) X(fish, 96)

/* Models that give a viewer radii to draw (host only): X(name). Each brings
 * herd_<name>_marks(params, count, delivered, herd_model_marks_out *out); count and delivered
 * are the observation's. The others draw none. */
#define HERD_MARKS_MODELS(X) X(strombom) X(boids) X(couzin)

/* Models whose agents start with flags in their word (host only): X(name). Each brings
 * herd_<name>_start_flags(params), the HERD_AGENT_* bits every agent starts with. */
#define HERD_START_FLAGS_MODELS(X) X(fish)

/* Models that explain one agent's update (host only): X(name). Each brings
 * herd_<name>_explain(params, view, sorted index, scratch of HERD_MAX_NEIGHBOURS, out), which
 * evaluates the update's terms with the functions its step uses. The others: "n/a". */
#define HERD_EXPLAIN_MODELS(X) X(strombom)

#endif
