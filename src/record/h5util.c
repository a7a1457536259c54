#include "h5util.h"

void h5u_attr_string(hid_t at, const char *name, const char *value) {
  hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate(H5S_SCALAR);
  H5Tset_size(type, H5T_VARIABLE);
  H5Tset_cset(type, H5T_CSET_UTF8);
  hid_t a = H5Acreate2(at, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, type, &value);
  H5Aclose(a);
  H5Sclose(space);
  H5Tclose(type);
}

void h5u_attr_number(hid_t at, const char *name, hid_t type, const void *value) {
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(at, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, type, value);
  H5Aclose(a);
  H5Sclose(space);
}

hid_t h5u_rows_dataset(hid_t at, const char *name, hid_t type, int rank, const hsize_t *shape, const hsize_t *chunk) {
  hsize_t start[3] = {0, rank > 1 ? shape[1] : 0, rank > 2 ? shape[2] : 0};
  hsize_t max[3] = {H5S_UNLIMITED, start[1], start[2]};
  hid_t space = H5Screate_simple(rank, start, max), plist = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(plist, rank, chunk);
  H5Pset_shuffle(plist);
  H5Pset_deflate(plist, H5U_DEFLATE);
  hid_t d = H5Dcreate2(at, name, type, space, H5P_DEFAULT, plist, H5P_DEFAULT);
  H5Pclose(plist);
  H5Sclose(space);
  return d;
}

bool h5u_append(hid_t d, int rank, const hsize_t *count, hsize_t row, hid_t memtype, const void *data) {
  hsize_t extent[3] = {row + 1, rank > 1 ? count[1] : 0, rank > 2 ? count[2] : 0}, start[3] = {row, 0, 0};
  if (H5Dset_extent(d, extent) < 0) return false;
  hid_t file_space = H5Dget_space(d), mem_space = H5Screate_simple(rank, count, NULL);
  bool ok = H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
            H5Dwrite(d, memtype, mem_space, file_space, H5P_DEFAULT, data) >= 0;
  H5Sclose(mem_space);
  H5Sclose(file_space);
  return ok;
}
