/* Included first by every header of src/steer/ (the steering strategies), a layer of the build
 * (docs/architecture.md) whose headers are for steer and sim. The targets of
 * those layers define HERD_LAYER_STEER; any other file that includes one of its headers stops
 * here, at compile time (tests/test_layers.sh plants such an include). No include guard: it
 * defines nothing. */
#ifndef HERD_LAYER_STEER
#error "src/steer/'s headers are for steer and sim: this file's layer may not include them (docs/architecture.md)"
#endif
