/* Couzin et al. (2002)'s zones: the parameters (scenario fields) and the checks between them: what the
 * scenario code reads of the model. Its update is kernels/models/couzin.h. */
#ifndef HERD_KERNELS_MODELS_COUZIN_PARAMS_H
#define HERD_KERNELS_MODELS_COUZIN_PARAMS_H
#include "../params.h"

/* couzin.combine: how d_o and d_a make d when both zones hold neighbours. */
#define HERD_COUZIN_COMBINE_UNIT 0u /* 1/2 (unit(d_o) + unit(d_a)): the two tendencies weigh alike */
#define HERD_COUZIN_COMBINE_SUMS 1u /* 1/2 (d_o + d_a) of the raw sums: the fuller zone weighs more */
#define HERD_CHOICES_couzin_combine \
  { "unit_vectors", "sums", NULL }
/* Its default by model (M in the field list): Couzin's fish sum as the paper's equation reads
 * (docs/models/couzin.md, step 3); the fish school of Ban, Ning & Tu weighs the two tendencies
 * alike (docs/models/fish.md). `_` is the struct's and the copy's expansion, which read no
 * default. */
#define HERD_COUZIN_COMBINE_DEFAULT(M) HERD_COUZIN_COMBINE_DEFAULT_##M
#define HERD_COUZIN_COMBINE_DEFAULT_couzin HERD_COUZIN_COMBINE_SUMS
#define HERD_COUZIN_COMBINE_DEFAULT_fish HERD_COUZIN_COMBINE_UNIT
#define HERD_COUZIN_COMBINE_DEFAULT__ HERD_COUZIN_COMBINE_SUMS

#define HERD_SECTION_couzin "couzin"
#define HERD_PARAMS_couzin(X, M)                                                                                   \
  X(M, float, repulsion_radius_m, 1, 0, 1e6, HERD_FIELD_MIN_OPEN, "m", "r_r: fish closer than this are avoided")   \
  X(M, float, orientation_band_m, 10, 0, 1e6, HERD_FIELD_CLOSED, "m",                                              \
    "Delta r_o: the zone of orientation reaches r_o = r_r + Delta r_o (0: none, the paper's first value)")         \
  X(M, float, attraction_band_m, 15, 0, 1e6, HERD_FIELD_MIN_OPEN, "m",                                             \
    "Delta r_a: the zone of attraction reaches r_a = r_o + Delta r_a")                                             \
  X(M, float, field_of_perception_deg, 270, 0, 360, HERD_FIELD_MIN_OPEN, "deg",                                    \
    "alpha: the field of perception; the rest is a blind cone behind")                                             \
  X(M, float, speed_m_per_s, 3, 0, 1e6, HERD_FIELD_MIN_OPEN, "m/s",                                                \
    "s: every fish's constant speed (the fish model's cruising speed)")                                            \
  X(M, float, turning_rate_deg_per_s, 40, 0, 1e6, HERD_FIELD_MIN_OPEN, "deg/s", "theta: the largest turning rate") \
  X(M, float, time_step_s, 0.1, 0, 1000, HERD_FIELD_MIN_OPEN, "s", "tau: the time one step stands for")            \
  X(M, float, noise_rad, 0.05, 0, 100, HERD_FIELD_CLOSED, "rad",                                                   \
    "sigma: standard deviation of the wrapped Gaussian turn of the desired direction")                             \
  X(M, herd_choice, combine, HERD_COUZIN_COMBINE_DEFAULT(M), 0, 1, HERD_FIELD_CLOSED, "",                          \
    "d from both zones: unit_vectors (the mean of unit(d_o) and unit(d_a)) or sums (of the raw sums)")             \
  X(M, float, fear_radius_m, 10, 0, 1e6, HERD_FIELD_CLOSED, "m",                                                   \
    "R_f: steering agents closer than this are fled (the fish model's D0 in its fear min(D0 / d, 1))")

HERD_PARAMS_STRUCT(herd_couzin_params, HERD_PARAMS_couzin)

#ifndef HERD_OPENCL
#include <stdio.h>

/* The zone of attraction is also the grid's cell: r_a as a whole is bounded like every radius.
 * `section` names the fields in the message (the fish model has them too). */
static inline int herd_couzin_check_zones(const char *section, const herd_couzin_params *m, char *why, size_t size) {
  double r_a = (double)m->repulsion_radius_m + (double)m->orientation_band_m + (double)m->attraction_band_m;
  if (r_a > 1e6)
    return snprintf(why, size,
                    "%s.attraction_band_m: %.9g makes r_a = %s.repulsion_radius_m + %s.orientation_band_m + "
                    "%s.attraction_band_m = %.9g, out of range (allowed: r_a <= 1000000)",
                    section, (double)m->attraction_band_m, section, section, section, r_a);
  return 0;
}

static inline int herd_couzin_check(const void *params, herd_u32 count, char *why, size_t size) {
  (void)count;
  return herd_couzin_check_zones(HERD_SECTION_couzin, params, why, size);
}

#endif
#endif
