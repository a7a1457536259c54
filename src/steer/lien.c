/* Lien et al.'s shepherds: see lien.h. */
#include "lien.h"

void herd_lien_shepherd_step(const herd_steer_context *ctx, uint32_t index, herd_steering_state *agent) {
  (void)ctx, (void)index;
  agent->mode = HERD_MODE_IDLE; /* [placeholder until the strategy lands] */
  agent->group = -1;
}
