/* Ban, Ning & Tu (2008)'s fish school: the parameters (scenario fields) and the checks between them: what the
 * scenario code reads of the model. Its update is kernels/models/fish.h. */
#ifndef HERD_KERNELS_MODELS_FISH_PARAMS_H
#define HERD_KERNELS_MODELS_FISH_PARAMS_H
#include "couzin_params.h"

#define HERD_FISH_ESCAPE_BAN2008 0u /* the document's escape turn and collision forces */
#define HERD_FISH_ESCAPE_NONE 1u    /* threats are ignored (the control for the escape test) */
#define HERD_CHOICES_fish_combine HERD_CHOICES_couzin_combine
#define HERD_CHOICES_fish_escape \
  { "ban2008", "none", NULL }

/* Couzin's fields (fish.repulsion_radius_m, ...; fear_radius_m is D0), then the fish's own. */
#define HERD_SECTION_fish "fish"
#define HERD_PARAMS_fish(X, M) HERD_PARAMS_couzin(X, M) HERD_PARAMS_fish_own(X, M)
#define HERD_PARAMS_fish_own(X, M)                                                                                     \
  X(M, float, min_speed_m_per_s, 1, 0, 1e6, HERD_FIELD_CLOSED, "m/s", "V_min: the slowest a fish swims")               \
  X(M, float, max_speed_m_per_s, 6, 0, 1e6, HERD_FIELD_MIN_OPEN, "m/s",                                                \
    "V_max: the fastest a fish swims, and its speed of escape v0")                                                     \
  X(M, float, relaxation_time_s, 0.2, 0, 1e6, HERD_FIELD_MIN_OPEN, "s",                                                \
    "T: how fast a fish takes on its desired speed (escape; back to s when schooling)")                                \
  X(M, herd_choice, escape, 0, 0, 1, HERD_FIELD_CLOSED, "",                                                            \
    "how fish meet a threat: ban2008 (the document's turn and collision forces) or none (ignored)")                    \
  X(M, float, fear_threshold, 1, 0, 1, HERD_FIELD_MIN_OPEN, "", "f0: a fish escapes when its fear F reaches it")       \
  X(M, float, alarm_radius_m, 5, 0, 1e6, HERD_FIELD_CLOSED, "m",                                                       \
    "a fish escapes too when one this close saw a threat last step (0: no alarm)")                                     \
  X(M, float, mass_kg, 1, 0, 1e6, HERD_FIELD_MIN_OPEN, "kg", "m: a fish's mass")                                       \
  X(M, float, body_radius_m, 0.25, 0, 1e6, HERD_FIELD_CLOSED, "m", "r_i: r_ij = r_i + r_j in the escape force")        \
  X(M, float, push_n, 10, 0, 1e6, HERD_FIELD_CLOSED, "N", "A: the collision force between escaping fish")              \
  X(M, float, push_range_m, 0.5, 0, 1e6, HERD_FIELD_MIN_OPEN, "m", "B: how fast that force decays")                    \
  X(M, float, hunger_threshold, 0.5, 0, 1, HERD_FIELD_CLOSED, "", "beta: a fish forages when its hunger H reaches it") \
  X(M, float, initial_hunger, 0, 0, 1, HERD_FIELD_CLOSED, "", "H0: every fish's hunger at the start")                  \
  X(M, float, digestion_per_step, 0.00067, 0, 1, HERD_FIELD_CLOSED, "1/step",                                          \
    "P0: hunger gained each step since the last meal (the document's value)")                                          \
  X(M, float, inertia, 0.729, 0, 10, HERD_FIELD_CLOSED, "", "w: the particle swarm's inertia")                         \
  X(M, float, cognitive, 1.49445, 0, 10, HERD_FIELD_CLOSED, "", "c1: the pull toward the fish's own best find")        \
  X(M, float, social, 1.49445, 0, 10, HERD_FIELD_CLOSED, "", "c2: the pull toward the school's best find")             \
  X(M, float, stall_speed_m_per_s, 0.3, 0, 1e6, HERD_FIELD_CLOSED, "m/s",                                              \
    "v_d: a forager whose particle-swarm step is slower than this restarts at r3 V_max toward the school's best")

HERD_PARAMS_STRUCT(herd_fish_params, HERD_PARAMS_fish)

/* Couzin's parameters, as the first fields of the fish's. */
HERD_INLINE herd_couzin_params herd_fish_zone_params(const herd_fish_params *m) {
  herd_couzin_params z;
#define HERD_FISH_COPY_FIELD(M, type, name, ...) z.name = m->name;
  HERD_PARAMS_couzin(HERD_FISH_COPY_FIELD, _)
#undef HERD_FISH_COPY_FIELD
      return z;
}

#ifndef HERD_OPENCL
#include <stdio.h>

/* Couzin's checks, and V_min <= s <= V_max. */
static inline int herd_fish_check(const void *params, herd_u32 count, char *why, size_t size) {
  const herd_fish_params *m = params;
  herd_couzin_params z = herd_fish_zone_params(m);
  (void)count;
  int n = herd_couzin_check_zones(HERD_SECTION_fish, &z, why, size);
  if (n) return n;
  if (m->min_speed_m_per_s > m->speed_m_per_s || m->speed_m_per_s > m->max_speed_m_per_s)
    return snprintf(why, size,
                    "fish.speed_m_per_s: %.9g must lie within [fish.min_speed_m_per_s, fish.max_speed_m_per_s] = "
                    "[%.9g, %.9g]",
                    (double)m->speed_m_per_s, (double)m->min_speed_m_per_s, (double)m->max_speed_m_per_s);
  return 0;
}

#endif
#endif
