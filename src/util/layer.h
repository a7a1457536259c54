/* Included first by every header of src/util/ (errors, safe input and output files, JSON files, spawning), a layer of
 * the build (docs/architecture.md) whose headers are for every layer and the program. The targets of those layers
 * define HERD_LAYER_UTIL; any other file that includes one of its headers stops here, at compile time
 * (tests/test_layers.sh plants such an include). No include guard: it defines nothing. */
#ifndef HERD_LAYER_UTIL
#error \
    "src/util/'s headers are for every layer and the program: this file's layer may not include them (docs/architecture.md)"
#endif
