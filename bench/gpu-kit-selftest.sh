#!/usr/bin/env bash
# The device kit tested here, with PoCL standing in for the GPU (CI runs it after the test
# suite): bench/gpu-kit.sh makes a kit, then KIT/run runs in a bare environment (env -i, the
# loader's path only the kit's own libraries) as on the GPU machine, and the results must be
# there: summary.md and results.tar.gz (at most 8 files), the probe's device line, and a
# figure from every step. Then the same with the kit's own glibc (its loader), and a kit with a
# library left out, which the check and the probe must both refuse.
#   bench/gpu-kit-selftest.sh [--build DIR]    (default build-kit/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-kit
[ "${1:-}" = --build ] && build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
check() { # WHAT CONDITION...
  local what=$1
  shift
  if "$@"; then passed=$((passed + 1)); else echo "FAILED: $what" >&2; failed=$((failed + 1)); fi
}
started=$(date +%s)
"$root/bench/gpu-kit.sh" --build "$build" "$tmp/kit"
kit_s=$(($(date +%s) - started))
bare() { # OUT [VAR=VALUE...]: KIT/run as the GPU machine would see it, with PoCL for the GPU
  local out=$1
  shift
  env -i PATH=/usr/bin:/bin HERD_KIT_DEVICE=pocl HERD_KIT_QUICK=1 OUT="$out" LD_LIBRARY_PATH="$tmp/kit/lib" "$@" \
    "$tmp/kit/run" >"$out.log" 2>&1
}

started=$(date +%s)
bare "$tmp/out" && status=0 || status=$?
run_s=$(($(date +%s) - started))
check "KIT/run exits 0 (exit $status; its output: $tmp/out.log)" [ "$status" -eq 0 ]
check "summary.md in \$OUT" test -s "$tmp/out/summary.md"
check "results.tar.gz in \$OUT" test -s "$tmp/out/results.tar.gz"
check "at most 8 files in \$OUT" [ "$(find "$tmp/out" -type f | wc -l)" -le 8 ]
check "the probe names the device" grep -q '^probe: device: .*type CPU' "$tmp/out/summary.md"
rows=$(grep -c '^| [0-9][0-9] |' "$tmp/out/summary.md" || true)
check "every step ran ($rows rows)" [ "$rows" -ge 12 ]
check "every step reported ok" [ "$(grep '^| [0-9][0-9] |' "$tmp/out/summary.md" | grep -vc '| ok |$' || true)" -eq 0 ]
check "every step gave a figure" [ "$(grep -c 'no figure' "$tmp/out/summary.md" || true)" -eq 0 ]
check "the default scenario was herded" grep -q 'herded | success' "$tmp/out/summary.md"
check "test_opencl passed" grep -Eq 'test_opencl\) \| [0-9]+ passed, 0 failed' "$tmp/out/summary.md"
check "--profile's stages and kernels per step are read" grep -q 'kernels, [0-9.]* host waits per step' "$tmp/out/summary.md"
check "kernels.md times a --profile step kernel by kernel" grep -q '^| herd_step_strombom | [0-9.]* | 1.00 |' "$tmp/out/kernels.md"
check "kernels.md has the driver's compile (here: no PTX)" grep -q '^no PTX: ' "$tmp/out/kernels.md"
check "every step's log is in the tarball" [ "$(tar -tzf "$tmp/out/results.tar.gz" | grep -c '^logs/[0-9][0-9]-')" -ge "$rows" ]

# The kit's own glibc and loader, as on a machine with an older one: the first steps.
bare "$tmp/bundle" HERD_KIT_LOADER=bundle HERD_KIT_BUDGET_S=40 || true
check "with the kit's glibc: the probe says so" grep -q "the bundle's" "$tmp/bundle/summary.md"
check "with the kit's glibc: the default scenario herded" grep -q 'herded | success' "$tmp/bundle/summary.md"

# A library left out: the check names it, and the probe stops there.
cp -r "$tmp/kit" "$tmp/broken"
rm "$tmp/broken/lib/libjansson.so.4"
if "$tmp/broken/check" "$tmp/broken" >"$tmp/check.log" 2>&1; then status=0; else status=$?; fi
check "the check refuses a kit without libjansson" [ "$status" -ne 0 ]
check "the check names it" grep -q 'libjansson.so.4' "$tmp/check.log"
env -i PATH=/usr/bin:/bin HERD_KIT_DEVICE=pocl OUT="$tmp/broken-out" LD_LIBRARY_PATH="$tmp/broken/lib" \
  "$tmp/broken/run" >"$tmp/broken.log" 2>&1 && status=0 || status=$?
check "the probe stops on it (exit $status)" [ "$status" -ne 0 ]
check "the probe's line names it" grep -q '^probe: missing: .*libjansson' "$tmp/broken-out/summary.md"

echo "kit: $(du -sh "$tmp/kit" | cut -f1) made in $kit_s s; its run (quick, PoCL): $run_s s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
