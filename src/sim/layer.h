/* Included first by every header of src/sim/ (the run loop behind herd.h), a layer of the build
 * (docs/architecture.md) whose headers are for sim alone (programs use herd.h). The targets of
 * those layers define HERD_LAYER_SIM; any other file that includes one of its headers stops
 * here, at compile time (tests/test_layers.sh plants such an include). No include guard: it
 * defines nothing. */
#ifndef HERD_LAYER_SIM
#error \
    "src/sim/'s headers are for sim alone (programs use herd.h): this file's layer may not include them (docs/architecture.md)"
#endif
