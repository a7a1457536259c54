/* The time series of a trajectory file: the observation, the order parameters and the
 * steering agents' state, as the scenario's output section asks (docs/output.md). */
#include "layer.h"
#ifndef HERD_RECORD_H5_SERIES_H
#define HERD_RECORD_H5_SERIES_H
#include <hdf5.h>
#include <stdbool.h>

#include "herd/herd.h"

typedef struct h5_series h5_series;

/* Creates the groups /observation, /order, /steering (those with every_steps above 0; no
 * /steering without steering agents) in `file`. *ok false when HDF5 failed. */
h5_series *h5_series_create(hid_t file, const herd_sim *sim, bool *ok);

/* Appends this step's rows of the parts that are due; false when a write failed. */
bool h5_series_step(h5_series *s, const herd_sim *sim);

/* Closes the datasets and frees s (NULL: nothing). */
bool h5_series_close(h5_series *s);

#endif
