#!/usr/bin/env bash
# kernels/herd.cl and the model headers it includes compile as OpenCL C 1.2 under clang's
# OpenCL front end too (the runtime test uses PoCL's compiler): catches constructs one
# compiler accepts and another rejects. Exit 77 (skipped) without clang.
command -v clang >/dev/null || { echo "clang not installed: skipped"; exit 77; }
if clang -x cl -cl-std=CL1.2 -Xclang -finclude-default-header -fsyntax-only -Wall -Wextra -Werror \
  -Ikernels kernels/herd.cl; then
  echo "1 passed, 0 failed"
else
  echo "0 passed, 1 failed"
  exit 1
fi
