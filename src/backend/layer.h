/* Included first by every header of src/backend/ (the backends and the models' execution), a layer of the build
 * (docs/architecture.md) whose headers are for backend and sim. The targets of
 * those layers define HERD_LAYER_BACKEND; any other file that includes one of its headers stops
 * here, at compile time (tests/test_layers.sh plants such an include). No include guard: it
 * defines nothing. */
#ifndef HERD_LAYER_BACKEND
#error "src/backend/'s headers are for backend and sim: this file's layer may not include them (docs/architecture.md)"
#endif
