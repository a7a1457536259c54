#include "backend.h"

uint32_t herd_grid_table_size(uint32_t count) {
  uint32_t size = 1;
  while (size < count && size < (1u << 31)) size <<= 1;
  return size;
}

herd_grid herd_grid_for(const herd_strombom_params *m, uint32_t count) {
  herd_grid g;
  /* Two r_a: a packed flock (sheep about r_a apart) puts a few sheep in each cell, so an
   * n = 50 query visits tens of cells rather than hundreds (bench/README.md). */
  g.cell_m = 2.0f * m->repulsion_radius_m;
  g.inv_cell_m = 1.0f / g.cell_m;
  g.table_mask = herd_grid_table_size(count) - 1u;
  g.count = count;
  return g;
}
