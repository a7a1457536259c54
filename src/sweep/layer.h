/* Included first by every header of src/sweep/ (sweep plans and statistics), a layer of the build
 * (docs/architecture.md) whose headers are for sweep and the program. The targets of
 * those layers define HERD_LAYER_SWEEP; any other file that includes one of its headers stops
 * here, at compile time (tests/test_layers.sh plants such an include). No include guard: it
 * defines nothing. */
#ifndef HERD_LAYER_SWEEP
#error \
    "src/sweep/'s headers are for sweep and the program: this file's layer may not include them (docs/architecture.md)"
#endif
