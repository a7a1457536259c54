#!/usr/bin/env bash
# The model headers under kernels/ compile as OpenCL C 1.2 (clang's OpenCL front end), so the
# OpenCL backend can include the same math as the CPU backend. Exit 77 (skipped) without clang.
command -v clang >/dev/null || { echo "clang not installed: skipped"; exit 77; }
if clang -x cl -cl-std=CL1.2 -Xclang -finclude-default-header -fsyntax-only -Wall -Wextra -Werror \
  -Ikernels tests/opencl_syntax.cl; then
  echo "1 passed, 0 failed"
else
  echo "0 passed, 1 failed"
  exit 1
fi
