#!/usr/bin/env bash
# Configures and builds herd into a build folder, quietly; shows the log on failure.
# usage: scripts/build.sh BUILD_DIR [CMAKE_OPTION...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$1
shift
mkdir -p "$build"
log="$build/build.log"
if ! { cmake -S "$root" -B "$build" "$@" && cmake --build "$build" -j"$(nproc)"; } >"$log" 2>&1; then
  tail -n 60 "$log" >&2
  echo "herd: build failed; full log: $log" >&2
  exit 1
fi
