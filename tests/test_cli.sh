#!/usr/bin/env bash
# The herd program as a user runs it: exit statuses, the exact message for every bad scenario in
# tests/data/bad, option errors, and --csv never replacing a file without --force.
#
#   bash tests/test_cli.sh PATH_TO_HERD        (from the repository root; ctest does this)
#
# Ends with the line "N passed, N failed"; exits 1 when any check failed.
set -u

HERD=${1:?usage: bash tests/test_cli.sh PATH_TO_HERD}
BAD_DIR=tests/data/bad
MIN_BAD_FILES=30

if [ ! -x "$HERD" ]; then
  echo "test_cli.sh: $HERD is not an executable" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
if [ ! -d "$BAD_DIR" ]; then
  echo "test_cli.sh: no $BAD_DIR here; run from the repository root" >&2
  echo "0 passed, 1 failed"
  exit 1
fi

source "$(dirname "$0")/check.sh"

# True when stderr is exactly one line equal to $1.
stderr_is() { printf '%s\n' "$1" | cmp -s - "$tmp/err"; }
stderr_has() { grep -qF -- "$1" "$tmp/err"; }
stdout_has() { grep -qF -- "$1" "$tmp/out"; }
stdout_empty() { [ ! -s "$tmp/out" ]; }
status_is() { [ "$rc" -eq "$1" ]; }

# ---- Every bad scenario: exit 2, nothing on stdout, exactly "herd: <expected>" ------------

count=0
for json in "$BAD_DIR"/*.json; do
  [ -e "$json" ] || continue
  count=$((count + 1))
  expected=${json%.json}.expected
  if [ ! -f "$expected" ]; then
    failed=$((failed + 1))
    echo "FAILED: $json has no $expected"
    continue
  fi
  want="herd: $(cat "$expected")"
  run run "$json" --quiet
  if status_is 2 && stdout_empty && stderr_is "$want"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAILED: herd run $json --quiet"
    echo "  exit status: $rc (want 2)"
    [ -s "$tmp/out" ] && echo "  stdout (want none): $(head -c 400 "$tmp/out")"
    echo "  stderr: $(cat "$tmp/err")"
    echo "  want:   $want"
  fi
done
check "at least $MIN_BAD_FILES bad scenarios in $BAD_DIR (found $count)" [ "$count" -ge "$MIN_BAD_FILES" ]

# ---- Help, commands, options ----------------------------------------------------------------

run --help
check "herd --help exits 0" status_is 0
check "herd --help mentions --set" stdout_has --set

run run --help
check "herd run --help exits 0" status_is 0
check "herd run --help mentions --set" stdout_has --set

run scenario --help
check "herd scenario --help exits 0" status_is 0

run frobnicate
check "an unknown command exits 2" status_is 2
check "an unknown command is named" stderr_has "frobnicate: unknown command"

run run --frobnicate
check "an unknown option exits 2" status_is 2
check "an unknown option is named" stderr_has "unknown option --frobnicate"

run scenario --frobnicate
check "herd scenario: an unknown option exits 2" status_is 2

for value in 0 x -3 1.5; do
  run run --threads "$value" --steps 1 --quiet
  check "--threads $value exits 2" status_is 2
  check "--threads $value: the message names --threads" stderr_has --threads
  check "--threads $value: nothing on stdout" stdout_empty
done

run run --steps 1 --quiet --threads
check "--threads with no value exits 2" status_is 2
check "--threads with no value says so" stderr_is "herd: --threads: needs a value"

run run "$tmp/no-such-file.json" --quiet
check "a missing scenario file exits 2" status_is 2
check "a missing scenario file is named" stderr_has "$tmp/no-such-file.json: cannot open"

run run "$BAD_DIR/range_count_zero.json" "$BAD_DIR/range_speed_zero.json"
check "two scenario files exit 2" status_is 2
check "two scenario files: says only one" stderr_has "only one scenario file"

run run --set sheep.count=0 --quiet
check "--set sheep.count=0 exits 2" status_is 2
check "--set sheep.count=0: the message quotes the option" stderr_has "--set sheep.count=0"
check "--set sheep.count=0: nothing on stdout" stdout_empty

run run --seed -1 --quiet
check "--seed -1 exits 2" status_is 2
check "--seed -1: the message names the seed" stderr_has "seed: -1 is out of range"

# ---- --csv: one row per step, never replacing a file without --force ------------------------

csv=$tmp/run.csv
run run --steps 20 --quiet --csv "$csv"
check "--csv run exits 0" status_is 0
steps=$(sed -n 's/^steps: \([0-9][0-9]*\) .*/\1/p' "$tmp/out")
check "the summary reports 20 steps (got '$steps')" [ "$steps" = 20 ]
rows=$(($(wc -l <"$csv" 2>/dev/null || echo 0) - 1))
check "--csv writes steps + 1 rows, step 0 included (steps $steps, rows $rows)" [ "$rows" -eq $((${steps:-0} + 1)) ]
check "--csv starts with a header" [ "$(head -c 5 "$csv" 2>/dev/null)" = "step," ]
check "--csv's first row is step 0" [ "$(sed -n '2s/,.*//p' "$csv" 2>/dev/null)" = 0 ]
check "--csv's last row is step $steps" [ "$(tail -n 1 "$csv" 2>/dev/null | cut -d, -f1)" = "$steps" ]
cp "$csv" "$tmp/first.csv" 2>/dev/null

run run --steps 20 --quiet --csv "$csv"
check "--csv to an existing file exits 2" status_is 2
check "--csv to an existing file says it exists" stderr_has "file exists"
check "--csv to an existing file prints no summary" stdout_empty
check "--csv leaves the existing file byte-identical" cmp -s "$csv" "$tmp/first.csv"

run run --steps 20 --quiet --csv "$csv" --force
check "--csv --force replaces the file and exits 0" status_is 0
check "--csv --force: the same run writes the same file" cmp -s "$csv" "$tmp/first.csv"

run run --steps 5 --quiet --csv "$tmp/missing-dir/run.csv"
check "--csv into a folder that does not exist exits 2" status_is 2
check "--csv into a folder that does not exist names the file" stderr_has "--csv $tmp/missing-dir/run.csv: cannot create"
check "--csv into a folder that does not exist creates nothing" [ ! -e "$tmp/missing-dir" ]

# ---- herd scenario: the resolved scenario, accepted back as a file ----------------------------

run scenario
check "herd scenario exits 0" status_is 0
check "herd scenario prints every group" stdout_has '"dogs": {'
cp "$tmp/out" "$tmp/resolved.json"

run scenario "$tmp/resolved.json"
check "herd scenario reads its own output back unchanged" cmp -s "$tmp/out" "$tmp/resolved.json"

run run "$tmp/resolved.json" --steps 5 --quiet
check "herd run accepts herd scenario's output" status_is 0
check "herd run on herd scenario's output prints a summary" stdout_has "steps: 5 (limit 5)"

run scenario --set sheep.count=200 --seed 42
check "herd scenario --set exits 0" status_is 0
check "herd scenario --set shows the override" stdout_has '"count": 200,'
check "herd scenario --seed shows the seed" stdout_has '"seed": 42,'

# ---- No display ------------------------------------------------------------------------------

DISPLAY= run
check "herd with no command and no display runs headless" eval 'status_is 0 && stdout_has "result: success"'
check "... saying why in one line" eval 'stderr_has "no display" && stderr_has "running headless" && [ "$(wc -l <"$tmp/err")" -eq 1 ]'
DISPLAY= run view
check "herd view without a display exits 1 saying so" eval 'status_is 1 && stderr_has "no display"'

# ---- Backends and devices -------------------------------------------------------------------

run run --backend gpu --steps 5
check "--backend with an unknown name exits 2" status_is 2
check "--backend error lists the backends" stderr_has "allowed: cpu, opencl, auto"

# No OpenCL platform at all: the ICD loader finds none when its vendor folder is empty.
mkdir -p "$tmp/no-vendors"
OCL_ICD_VENDORS="$tmp/no-vendors" run run --backend opencl --steps 5
check "--backend opencl without a platform exits 1" status_is 1
check "no platform: the message names the Debian package" stderr_has "pocl-opencl-icd"
OCL_ICD_VENDORS="$tmp/no-vendors" run run --backend auto --steps 5
check "--backend auto without a platform still runs" status_is 0
check "--backend auto says it fell back" stderr_has "auto:"
check "--backend auto ran on the native backend" stdout_has "backend: cpu"
OCL_ICD_VENDORS="$tmp/no-vendors" run devices
check "herd devices without a platform exits 1 naming the package" eval 'status_is 1 && stderr_has pocl-opencl-icd'

if "$HERD" devices >/dev/null 2>&1; then
  run devices
  check "herd devices lists a device with its index" stdout_has "[0]"
  check "herd devices reports fp64 and GL sharing" eval 'stdout_has cl_khr_fp64 && stdout_has cl_khr_gl_sharing'

  run run --backend opencl --steps 20 --profile
  check "--backend opencl runs" status_is 0
  check "--profile prints the stage table" eval 'stdout_has "read-back" && stdout_has "ms per step"'

  run run --backend opencl --device no-such-device --steps 5
  check "--device with no match exits 2 listing the devices" eval 'status_is 2 && stderr_has "no such OpenCL device"'
  HERD_CL_DEVICE=99 run run --backend opencl --steps 5
  check "HERD_CL_DEVICE is used like --device" eval 'status_is 2 && stderr_has "--device 99"'

  run run --backend opencl --set sheep.count=100000000 --set sheep.neighbours=5 --steps 1
  check "a flock too large for the device exits 2 before allocating" eval 'status_is 2 && stderr_has "MiB of device memory"'

  mkdir -p "$tmp/kernels"
  cp kernels/*.h "$tmp/kernels/"
  sed 's/uint b = herd_bucket_of(&grid, pos\[i\]);/uint b = no_such_function(pos[i]);/' kernels/herd.cl >"$tmp/kernels/herd.cl"
  HERD_KERNEL_DIR="$tmp/kernels" run run --backend opencl --steps 5
  check "a kernel build failure exits 1 with the build log" eval 'status_is 1 && stderr_has "building the kernels failed" && stderr_has no_such_function'
else
  echo "no OpenCL device: OpenCL checks skipped"
fi

finish
