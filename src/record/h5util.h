/* Small HDF5 helpers shared by the trajectory file's datasets (trajectories.c, h5_series.c). */
#include "layer.h"
#ifndef HERD_RECORD_H5UTIL_H
#define HERD_RECORD_H5UTIL_H
#include <hdf5.h>
#include <stdbool.h>

/* Deflate level: 1 gains nearly all that floats compress at a fraction of level 6's time. */
#define H5U_DEFLATE 1

/* A scalar attribute: a UTF-8 string, or a number of `type` (H5T_NATIVE_...). */
void h5u_attr_string(hid_t at, const char *name, const char *value);
void h5u_attr_number(hid_t at, const char *name, hid_t type, const void *value);

/* An empty dataset of `rank` (1 to 3) dimensions, unlimited along the first (rows or frames),
 * the others `shape[1..]`; chunked `chunk`, shuffled and deflated. Negative on failure. */
hid_t h5u_rows_dataset(hid_t at, const char *name, hid_t type, int rank, const hsize_t *shape, const hsize_t *chunk);

/* Writes row `row` of dataset d (rank as made; count: `rank` numbers, {1, shape[1], ...}),
 * growing it. */
bool h5u_append(hid_t d, int rank, const hsize_t *count, hsize_t row, hid_t memtype, const void *data);

#endif
