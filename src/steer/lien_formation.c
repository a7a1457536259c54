/* Where Lien's shepherds stand about one group (§4.1, §5) and how they get there (§3, fig. 4). */
#include <math.h>

#include "lien.h"

#define PI 3.14159265358979323846

/* unit(to - from); `fallback` when the two coincide (no direction to take). */
static void unit_between(const float from[2], const float to[2], const float fallback[2], float out[2]) {
  double dx = (double)to[0] - from[0], dy = (double)to[1] - from[1], len = sqrt(dx * dx + dy * dy);
  if (len < 1e-6) {
    out[0] = fallback[0], out[1] = fallback[1];
    return;
  }
  out[0] = (float)(dx / len), out[1] = (float)(dy / len);
}

void herd_lien_formation(uint32_t formation, const float centre[2], const float u[2], float radius_m, float margin_m,
                         uint32_t k, float out[][2]) {
  double R = (double)radius_m + margin_m, n[2] = {-u[1], u[0]};
  for (uint32_t i = 0; i < k; ++i) {
    double share = (2.0 * i + 1.0) / k - 1.0; /* in (-1, 1): the middle of the i-th of k equal parts */
    double back, side;                        /* along -u and along n */
    if (formation == HERD_FORMATION_LINE) {
      back = R, side = radius_m * share;
    } else {
      double phi = PI / 2.0 * share;
      back = R * cos(phi), side = R * sin(phi);
    }
    out[i][0] = (float)(centre[0] - back * u[0] + side * n[0]);
    out[i][1] = (float)(centre[1] - back * u[1] + side * n[1]);
  }
}

void herd_lien_rotate(const float c[2], float angle, float p[2]) {
  double x = (double)p[0] - c[0], y = (double)p[1] - c[1], cs = cos(angle), sn = sin(angle);
  p[0] = (float)(c[0] + cs * x - sn * y);
  p[1] = (float)(c[1] + sn * x + cs * y);
}

void herd_lien_mirror(const float c[2], const float h[2], float p[2]) {
  double along = ((double)p[0] - c[0]) * h[0] + ((double)p[1] - c[1]) * h[1];
  p[0] = (float)(p[0] - 2.0 * along * h[0]);
  p[1] = (float)(p[1] - 2.0 * along * h[1]);
}

/* The group's unit heading; false when it has none worth the name. */
static bool heading_of(const herd_lien_group *g, float h[2]) {
  double len = sqrt((double)g->heading[0] * g->heading[0] + (double)g->heading[1] * g->heading[1]);
  if (len < HERD_LIEN_MIN_POLARISATION) return false;
  h[0] = (float)(g->heading[0] / len), h[1] = (float)(g->heading[1] / len);
  return true;
}

static const float plus_x[2] = {1.0f, 0.0f};

float herd_lien_heading_error(const herd_lien_group *g, const float toward[2]) {
  float h[2], u[2];
  if (!heading_of(g, h)) return 0.0f;
  unit_between(g->centre, toward, h, u);
  return (float)atan2((double)h[0] * u[1] - (double)h[1] * u[0], (double)h[0] * u[0] + (double)h[1] * u[1]);
}

/* The stopping formation: behind g with respect to its heading h, mirrored about the line
 * through its centre perpendicular to h, so in front of it. */
static void stop_points(const herd_scenario *sc, const herd_lien_group *g, const float h[2], uint32_t k,
                        float out[][2]) {
  herd_lien_formation(sc->shepherds.formation, g->centre, h, g->radius_m, sc->shepherds.margin_m, k, out);
  for (uint32_t i = 0; i < k; ++i) herd_lien_mirror(g->centre, h, out[i]);
}

herd_steering_mode herd_lien_push(const herd_scenario *sc, const herd_lien_group *g, const float toward[2], uint32_t k,
                                  uint32_t step, float out[][2]) {
  float u[2], h[2];
  unit_between(g->centre, toward, plus_x, u);
  float theta = herd_lien_heading_error(g, toward), theta_fm = fabsf(theta);
  double theta_t = sc->shepherds.turn_angle_deg * PI / 180.0;
  if (theta_fm >= PI / 2.0 && heading_of(g, h)) {
    stop_points(sc, g, h, k, out);
    return HERD_MODE_STOP;
  }
  herd_lien_formation(sc->shepherds.formation, g->centre, u, g->radius_m, sc->shepherds.margin_m, k, out);
  if (theta_fm >= theta_t && theta_fm > 0.0f) {
    for (uint32_t i = 0; i < k; ++i) herd_lien_rotate(g->centre, theta, out[i]);
    return HERD_MODE_TURN;
  }
  if (k != 1) return HERD_MODE_STEER;
  /* Alone: side to side across the line behind the group (fig. 3b). */
  double period = sc->shepherds.side_period_steps, phase = fmod((double)step, period) / period;
  double offset = sc->shepherds.side_amplitude_m * sin(2.0 * PI * phase);
  out[0][0] = (float)(out[0][0] - offset * u[1]);
  out[0][1] = (float)(out[0][1] + offset * u[0]);
  return HERD_MODE_SIDE;
}

void herd_lien_hold(const herd_scenario *sc, const herd_lien_group *g, const float others[2], uint32_t k,
                    float out[][2]) {
  float h[2], u[2];
  if (sc->shepherds.hold == HERD_HOLD_STOP && heading_of(g, h)) {
    stop_points(sc, g, h, k, out);
    return;
  }
  unit_between(g->centre, others, plus_x, u);
  herd_lien_formation(sc->shepherds.formation, g->centre, u, g->radius_m, sc->shepherds.margin_m, k, out);
}

/* ---- Approaching -------------------------------------------------------------------------- */

/* The distance from c to the segment a -> b. */
static double segment_distance(const float a[2], const float b[2], const float c[2]) {
  double dx = (double)b[0] - a[0], dy = (double)b[1] - a[1], len2 = dx * dx + dy * dy;
  double t = len2 > 0.0 ? (((double)c[0] - a[0]) * dx + ((double)c[1] - a[1]) * dy) / len2 : 0.0;
  t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
  return hypot(a[0] + t * dx - c[0], a[1] + t * dy - c[1]);
}

void herd_lien_approach(uint32_t approach, const float pos[2], const float point[2], const float centre[2],
                        float zone_m, float step_m, float out[2]) {
  out[0] = point[0], out[1] = point[1];
  if (approach != HERD_APPROACH_SAFE_ZONE) return;
  double to_point = hypot((double)point[0] - centre[0], (double)point[1] - centre[1]);
  double to_pos = hypot((double)pos[0] - centre[0], (double)pos[1] - centre[1]);
  double rho = fmin(zone_m, fmin(to_point, to_pos));
  /* Clear, or a step from the point: straight. The tolerance lets a shepherd on Z itself count
   * as outside it. */
  if (rho <= 0.0 || segment_distance(pos, point, centre) >= rho * (1.0 - 1e-3) ||
      hypot((double)point[0] - pos[0], (double)point[1] - pos[1]) <= step_m)
    return;
  double a_pos = atan2((double)pos[1] - centre[1], (double)pos[0] - centre[0]);
  double gap = remainder(atan2((double)point[1] - centre[1], (double)point[0] - centre[0]) - a_pos, 2.0 * PI);
  double side = gap >= 0.0 ? 1.0 : -1.0; /* the shorter way round */
  /* The tangent point T from pos, and on past it along the same tangent line (which never enters
   * Z) for what is left of the step: a shepherd on Z moves along it, at most sqrt(rho^2 + step^2)
   * from the centre. */
  double a_t = a_pos + side * acos(fmin(1.0, rho / to_pos));
  double t[2] = {centre[0] + rho * cos(a_t), centre[1] + rho * sin(a_t)};
  double past = fmax(0.0, step_m - hypot(t[0] - pos[0], t[1] - pos[1]));
  out[0] = (float)(t[0] - side * past * sin(a_t));
  out[1] = (float)(t[1] + side * past * cos(a_t));
}
