#!/usr/bin/env bash
# The two OpenCL programs (kernels/herd.cl, kernels/sized.cl) and the model headers they
# include compile as OpenCL C 1.2 under clang's OpenCL front end with every warning an error
# (the runtime test uses PoCL's compiler; tests/gpu_compile.py compiles them for GPUs):
# catches constructs one compiler accepts and another rejects. Exit 77 (skipped) without clang.
clang=$(command -v clang-14 || command -v clang) || { echo "clang not installed: skipped"; exit 77; }
passed=0 failed=0
for program in kernels/herd.cl kernels/sized.cl; do
  if "$clang" -x cl -cl-std=CL1.2 -Xclang -finclude-default-header -fsyntax-only -Wall -Wextra -Werror \
    -Ikernels "$program"; then
    passed=$((passed + 1))
  else
    echo "$program: does not compile (above)"
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
