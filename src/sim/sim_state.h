/* What a checkpoint holds of a simulation (src/sim/checkpoint.c): everything the next step
 * depends on, taken out of a sim and put back into a new one. Internal to the library. */
#ifndef HERD_SIM_SIM_STATE_H
#define HERD_SIM_SIM_STATE_H
#include "../backend/backend.h"
#include "layer.h"

typedef struct herd_sim_saved {
  char backend[16]; /* the backend's name: the flock's order and its sums are that backend's */
  uint32_t step;
  uint32_t outcome; /* herd_outcome */
  herd_observation obs;
  uint32_t steering_count;
  herd_steering_state steering[HERD_MAX_STEERING];
  uint8_t manual[HERD_MAX_STEERING]; /* steered by the user (herd_sim_steer) */
  float manual_aim[HERD_MAX_STEERING][3];
  herd_box_history boxes;
  /* The flock in the backend's own order (herd_sim_map_state): agents x stride floats each,
   * agents words. Saving points them into the backend's copy (valid until the next step). */
  uint32_t agents, stride;
  const float *pos, *vel;
  const uint32_t *agent;
} herd_sim_saved;

/* The sim's state now (a step run ahead is abandoned first, as for any read). */
herd_status herd_sim_save_state(herd_sim *sim, herd_sim_saved *out, herd_error *err);

/* A sim of desc's scenario in the saved state instead of a new flock. The backend desc names
 * must be the one that saved it (HERD_E_INPUT otherwise); the counts must be the scenario's. */
herd_status herd_sim_create_saved(const herd_sim_desc *desc, const herd_sim_saved *saved, herd_sim **out,
                                  herd_error *err);

#endif
