/* Included first by every header of src/core/ (the scenario and the models' descriptions), a layer of the build
 * (docs/architecture.md) whose headers are for core and the layers on it (backend, steer, sim). The targets of
 * those layers define HERD_LAYER_CORE; any other file that includes one of its headers stops
 * here, at compile time (tests/test_layers.sh plants such an include). No include guard: it
 * defines nothing. */
#ifndef HERD_LAYER_CORE
#error \
    "src/core/'s headers are for core and the layers on it (backend, steer, sim): this file's layer may not include them (docs/architecture.md)"
#endif
