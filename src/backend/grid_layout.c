/* What both backends derive alike from their description: the grid and a step's facts. */
#include <math.h>

#include "backend.h"

uint32_t herd_grid_table_size(uint32_t count) {
  uint32_t size = 1;
  while (size < count && size < (1u << 31)) size <<= 1;
  return size;
}

/* Cells of side cell_m, and along each wrapping axis a whole number of cells over the period,
 * each no smaller than cell_m. */
static void set_cells(herd_grid *g, float cell_m) {
  g->cell_m = cell_m;
  g->inv_cell_m = 1.0f / cell_m;
  for (uint32_t k = 0; k < 3; ++k) {
    g->wrap_cells[k] = 1;
    g->wrap_inv_cell_m[k] = 0.0f;
    if (!(g->wrap & (1u << k))) continue;
    float cells = g->size_m[k] / cell_m;
    g->wrap_cells[k] = cells >= 1.0f ? (herd_i32)cells : 1;
    if (g->wrap_cells[k] > (1 << 20)) g->wrap_cells[k] = 1 << 20;
    g->wrap_inv_cell_m[k] = (float)g->wrap_cells[k] / g->size_m[k];
  }
}

herd_grid herd_grid_for(const herd_backend_desc *desc) {
  herd_grid g;
  g.table_mask = herd_grid_table_size(desc->count) - 1u;
  g.count = desc->count;
  g.dims = desc->dims;
  g.wrap = 0u;
  for (uint32_t k = 0; k < 3; ++k) {
    g.size_m[k] = desc->world_size_m[k];
    if (k < desc->dims && desc->world_wrap[k]) g.wrap |= 1u << k;
  }
  set_cells(&g, desc->model->cell_m(desc->params));
  return g;
}

herd_grid herd_groups_grid(const herd_grid *model, float view_radius_m) {
  herd_grid g = *model;
  set_cells(&g, 0.98f * view_radius_m / sqrtf((float)model->dims));
  return g;
}

herd_step_info herd_step_info_for(const herd_backend_desc *desc, herd_steering_input steer, const float centroid[3],
                                  uint32_t step) {
  herd_step_info in;
  in.step = step;
  in.seed_lo = (herd_u32)desc->seed;
  in.seed_hi = (herd_u32)(desc->seed >> 32);
  in.steering_count = steer.count;
  for (int k = 0; k < 3; ++k) {
    in.centroid[k] = centroid[k];
    in.goal[k] = desc->goal_m[k];
  }
  in.goal_radius_m = desc->goal_radius_m;
  in.env = desc->env_info;
  return in;
}
