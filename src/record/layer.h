/* Included first by every header of src/record/ (provenance and the HDF5 trajectory writer
 * behind include/herd/herd_record.h), a layer of the build (docs/architecture.md) whose
 * headers are for record and the program. The targets of those layers define
 * HERD_LAYER_RECORD; any other file that includes one of its headers stops here, at compile
 * time (tests/test_layers.sh plants such an include). No include guard: it defines nothing. */
#ifndef HERD_LAYER_RECORD
#error \
    "src/record/'s headers are for record and the program: this file's layer may not include them (docs/architecture.md)"
#endif
