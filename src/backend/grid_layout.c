/* What both backends derive alike from their description: the grid and a step's facts. */
#include <math.h>
#include <string.h>

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
  memset(&g, 0, sizeof g); /* hash mode until a box is chosen */
  /* Twice the agents: a compact flock's bounding box (one agent per cell at the default
   * density, a disc filling pi/4 of its box) then fits the dense mode. */
  uint32_t flock = desc->layout_count ? desc->layout_count : desc->count;
  g.table_mask = herd_grid_table_size(flock > (1u << 30) ? flock : 2u * flock) - 1u;
  g.count = desc->count;
  g.flock_count = flock;
  g.dims = desc->dims;
  g.wrap = 0u;
  for (uint32_t k = 0; k < 3; ++k) {
    g.size_m[k] = desc->world_size_m[k];
    if (k < desc->dims && desc->world_wrap[k]) g.wrap |= 1u << k;
  }
  set_cells(&g, desc->model->cell_m(desc->params));
  g.base_cell_m = g.cell_m;
  return g;
}

void herd_flock_extent(const float *pos, uint32_t count, uint32_t dims, float lo[3], float hi[3]) {
  for (uint32_t k = 0; k < 3; ++k) lo[k] = INFINITY, hi[k] = -INFINITY;
  for (uint32_t i = 0; i < count; ++i) {
    herd_vec3 p = herd_load_vec(pos, i, dims);
    float v[3] = {p.x, p.y, p.z};
    for (uint32_t k = 0; k < 3; ++k) {
      lo[k] = v[k] < lo[k] ? v[k] : lo[k]; /* NaN compares false: skipped */
      hi[k] = v[k] > hi[k] ? v[k] : hi[k];
    }
  }
}

/* The box of cells over [lo, hi] plus a margin, when it fits the table: sets dense mode. The
 * margin (two of the model's cells, however small the cells: a step's move in any model at its
 * defaults is less) covers the moves since the box was taken; an agent beyond is clamped in,
 * exact, only slower. */
static bool fit_box(herd_grid *g, const float lo[3], const float hi[3]) {
  float margin_m = 2.0f * (g->base_cell_m > 0.0f ? g->base_cell_m : g->cell_m);
  int64_t total = 1;
  herd_i32 first[3] = {0, 0, 0}, cells[3] = {1, 1, 1};
  g->dense = 0u;
  for (uint32_t k = 0; k < g->dims && k < 3; ++k) {
    if (herd_axis_wraps(g, k)) {
      cells[k] = g->wrap_cells[k];
    } else {
      if (!(lo[k] <= hi[k])) return false; /* NaN, or no agents */
      first[k] = herd_axis_cell_raw(g, k, lo[k] - margin_m);
      int64_t span = (int64_t)herd_axis_cell_raw(g, k, hi[k] + margin_m) - first[k] + 1;
      cells[k] = span < (1 << 30) ? (herd_i32)span : (1 << 30);
    }
    total *= cells[k];
    if (total > (int64_t)g->table_mask + 1) return false;
  }
  g->dense = 1u;
  for (uint32_t k = 0; k < 3; ++k) g->dense_lo[k] = first[k], g->dense_cells[k] = cells[k];
  return true;
}

/* Agents per cell of the flock's extent, on average, above which its cells shrink to about
 * this many: a crowded flock (10^6 sheep in the default 150 m field hold 6400 to a 4 m cell)
 * would otherwise scan thousands of candidates per query, most of them beyond its reach. */
#define HERD_DENSE_CROWDED 8.0

/* The cell side that puts HERD_DENSE_CROWDED agents to a cell of the extent [lo, hi] (the whole
 * period along a wrapping axis), or the model's when that is smaller already. */
static float crowded_cell_m(const herd_grid *g, const float lo[3], const float hi[3]) {
  double volume = 1.0;
  for (uint32_t k = 0; k < g->dims && k < 3; ++k) {
    double side = herd_axis_wraps(g, k) ? g->size_m[k] : (double)hi[k] - lo[k];
    volume *= side > g->base_cell_m ? side : g->base_cell_m;
  }
  double cell = pow(HERD_DENSE_CROWDED * volume / (g->flock_count ? g->flock_count : 1u), 1.0 / g->dims);
  return cell < g->base_cell_m ? (float)cell : g->base_cell_m;
}

bool herd_grid_dense_box(herd_grid *g, const float lo[3], const float hi[3]) {
  if (g->base_cell_m > 0.0f && g->cell_m != g->base_cell_m) set_cells(g, g->base_cell_m);
  if (!fit_box(g, lo, hi)) return false;
  if (!(g->base_cell_m > 0.0f)) return true;
  float cell_m = crowded_cell_m(g, lo, hi);
  if (cell_m >= g->base_cell_m) return true;
  set_cells(g, cell_m);
  if (fit_box(g, lo, hi)) return true;
  set_cells(g, g->base_cell_m); /* the smaller cells' box would not fit: keep the model's */
  return fit_box(g, lo, hi);
}

void herd_box_history_start(herd_box_history *h, const float *pos, uint32_t count, uint32_t dims) {
  herd_flock_extent(pos, count, dims, h->lo[0], h->hi[0]);
  memcpy(h->lo[1], h->lo[0], sizeof h->lo[1]);
  memcpy(h->hi[1], h->hi[0], sizeof h->hi[1]);
  h->latest = 0;
}

void herd_box_history_observe(herd_box_history *h, uint32_t after, const herd_observation *obs) {
  uint32_t slot = after & 1u;
  memcpy(h->lo[slot], obs->extent_min, sizeof h->lo[slot]);
  memcpy(h->hi[slot], obs->extent_max, sizeof h->hi[slot]);
  h->latest = slot;
}

bool herd_grid_box_for_step(herd_grid *g, const herd_box_history *h, uint32_t step) {
  return herd_grid_dense_box(g, h->lo[step & 1u], h->hi[step & 1u]);
}

herd_grid herd_groups_grid(const herd_grid *model, float view_radius_m) {
  herd_grid g = *model;
  g.dense = 0u; /* the model's box counts other cells: the caller chooses again */
  set_cells(&g, 0.98f * view_radius_m / sqrtf((float)model->dims));
  g.base_cell_m = 0.0f; /* its cells are sized for its links: never shrunk */
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
  in.unobserved = 0u; /* a reduction that leaves parts out says so */
  in.env = desc->env_info;
  return in;
}
