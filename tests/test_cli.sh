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
MIN_BAD_FILES=110

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

# ---- Every bad scenario: exit 2, nothing on stdout, one safe line with what it must say -------
# Each .expected line is a fragment the message must contain (the file and JSON path, the
# value, the allowed range), written from what the message should say.

# True when stderr is exactly one line, "herd: ...", valid UTF-8 with no control character
# (C0, DEL, or C1 as UTF-8) in it.
one_clean_line() {
  [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ "$(head -c 6 "$tmp/err")" = "herd: " ] &&
    iconv -f UTF-8 -t UTF-8 <"$tmp/err" >/dev/null 2>&1 &&
    ! LC_ALL=C tr -d '\n' <"$tmp/err" | LC_ALL=C grep -qP '[\x00-\x1f\x7f]|\xc2[\x80-\x9f]'
}
# True when stderr holds every line of file $1 as a fixed string.
has_all_fragments() {
  local fragment
  while IFS= read -r fragment; do
    [ -z "$fragment" ] || grep -qF -- "$fragment" "$tmp/err" || { echo "  missing: $fragment"; return 1; }
  done <"$1"
}

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
  run run "$json" --quiet
  if status_is 2 && stdout_empty && one_clean_line && has_all_fragments "$expected"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAILED: herd run $json --quiet"
    echo "  exit status: $rc (want 2)"
    [ -s "$tmp/out" ] && echo "  stdout (want none): $(head -c 400 "$tmp/out")"
    echo "  stderr: $(head -c 600 "$tmp/err" | cat -v)"
    echo "  want every line of: $expected"
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
run run --steps 20 --csv "$csv"
check "--csv run exits 0" status_is 0
steps=$(sed -n 's/^steps: \([0-9][0-9]*\) .*/\1/p' "$tmp/out")
check "the summary reports 20 steps (got '$steps')" [ "$steps" = 20 ]
rows=$(($(grep -vc '^#' "$csv" 2>/dev/null || echo 0) - 1))
check "--csv writes steps + 1 rows, step 0 included (steps $steps, rows $rows)" [ "$rows" -eq $((${steps:-0} + 1)) ]
check "--csv starts with the provenance as # comments" eval '[ "$(head -c 8 "$csv")" = "# herd: " ] && grep -q "^# seed: 1$" "$csv" && grep -q "^# command: herd run --steps 20 --csv $csv$" "$csv"'
check "... whose scenario line is the resolved scenario as JSON" eval \
  '"$HERD" scenario --steps 20 | /usr/bin/python3 -c "import json, sys; sys.exit(json.loads(sys.argv[1]) != json.load(sys.stdin))" "$(sed -n "s/^# scenario: //p" "$csv")"'
check "--csv's header follows the comments" [ "$(grep -v '^#' "$csv" | head -c 5)" = "step," ]
check "--csv's first row is step 0" [ "$(grep -v '^#' "$csv" | sed -n '2s/,.*//p')" = 0 ]
check "--csv's last row is step $steps" [ "$(tail -n 1 "$csv" 2>/dev/null | cut -d, -f1)" = "$steps" ]
cp "$csv" "$tmp/first.csv" 2>/dev/null

run run --steps 20 --quiet --csv "$csv"
check "--csv to an existing file exits 2" status_is 2
check "--csv to an existing file says it exists" stderr_has "file exists"
check "--csv to an existing file prints no summary" stdout_empty
check "--csv leaves the existing file byte-identical" cmp -s "$csv" "$tmp/first.csv"

run run --steps 20 --quiet --csv "$csv" --force
check "--csv --force replaces the file and exits 0" status_is 0
check "--csv --force: the same run writes the same rows" cmp -s <(grep -v '^#' "$csv") <(grep -v '^#' "$tmp/first.csv")

run run --steps 5 --quiet --csv "$tmp/missing-dir/run.csv"
check "--csv into a folder that does not exist exits 2" status_is 2
check "--csv into a folder that does not exist names the file" stderr_has "--csv $tmp/missing-dir/run.csv: folder $tmp/missing-dir does not exist"
check "--csv into a folder that does not exist creates nothing" [ ! -e "$tmp/missing-dir" ]

# ---- herd scenario: the resolved scenario, accepted back as a file ----------------------------

run scenario
check "herd scenario exits 0" status_is 0
check "herd scenario prints every group" stdout_has '"dogs": {'
cp "$tmp/out" "$tmp/resolved.json"

run scenario "$tmp/resolved.json"
check "herd scenario reads its own output back unchanged" cmp -s "$tmp/out" "$tmp/resolved.json"

run run "$tmp/resolved.json" --steps 5
check "herd run accepts herd scenario's output" status_is 0
check "herd run on herd scenario's output prints a summary" stdout_has "steps: 5 (limit 5)"

# A description is kept (escapes and all), round-trips, and herd run shows its first line
# escaped, a long one cut at a whole character.
printf '{"description": "Two lines:\\tone \\"quoted\\"\\nand \\u00e9 the second"}\n' >"$tmp/described.json"
run scenario "$tmp/described.json"
check "herd scenario keeps the description" stdout_has '"description": "Two lines:\tone \"quoted\"\nand é the second",'
cp "$tmp/out" "$tmp/described-full.json"
run scenario "$tmp/described-full.json"
check "the description reads back unchanged" cmp -s "$tmp/out" "$tmp/described-full.json"
run run "$tmp/described.json" --steps 2
check "herd run shows the description's first line, the tab escaped" eval 'status_is 0 && grep -qxF "about: Two lines:\tone \"quoted\"" "$tmp/out"'
run run --set "description=\"$(printf 'é%.0s' $(seq 80))\"" --steps 2
check "a long description is cut at a whole character" eval 'grep -qxF "about: $(printf 'é%.0s' $(seq 50))..." "$tmp/out"'
run run --steps 2
check "no description, no about line" eval 'status_is 0 && ! stdout_has "about:"'

# ---- The schedule: --set-at, and the scenario's "schedule" ----------------------------------

run run --set-at 100:sheep.repulsion=0.5 --set-at 300:sheep.noise=1 --set-at 4000:sheep.noise=0.3 --csv "$tmp/at.csv"
check "--set-at runs" status_is 0
check "the summary says which changes were made" stdout_has "schedule: 2 of 3 changes made (the last at step 300: sheep.noise = 1)"
check "the CSV says each change between the rows of its step and the next" eval \
  '[ "$(grep -A1 -B1 "^# schedule\[0\]" "$tmp/at.csv" | cut -d, -f1 | tr "\n" " ")" = "100 # schedule[0]: at step 100 101 " ]'
check "... both, and no later one" eval '[ "$(grep -c "^# schedule" "$tmp/at.csv")" -eq 2 ]'
printf '{"schedule": [{"step": 100, "path": "sheep.repulsion", "value": 0.5}, {"step": 300, "path": "sheep.noise", "value": 1}]}\n' >"$tmp/scheduled.json"
run run "$tmp/scheduled.json" --csv "$tmp/file.csv"
check "a scenario's schedule runs as --set-at's" eval 'cmp -s <(grep -v "^# [a-z]*:" "$tmp/at.csv") <(grep -v "^# [a-z]*:" "$tmp/file.csv")'
run run --csv "$tmp/none.csv"
check "... and not as a run without it" eval '! cmp -s <(grep -v "^#" "$tmp/at.csv") <(grep -v "^#" "$tmp/none.csv")'
run scenario --set-at 300:sheep.noise=1 --set-at 100:sheep.repulsion=0.5
check "--set-at entries take their place by step in herd scenario" eval \
  'tr -d " \n" <"$tmp/out" | grep -qF "\"schedule\":[{\"step\":100,\"path\":\"sheep.repulsion\",\"value\":0.5},{\"step\":300,"'
run run --set-at 10:sheep.count=5
check "--set-at of a field set up for the run: exit 2 naming those that can change" eval \
  'status_is 2 && one_clean_line && stderr_has "--set-at 10:sheep.count=5: sheep.count is not a field of model strombom that can change during a run (allowed: sheep.neighbours,"'
run run --set-at 10:sheep.repulsion=-1
check "--set-at out of range: exit 2 with the entry, step and range" eval \
  'status_is 2 && stderr_has "schedule[0] (at step 10): sheep.repulsion=-1: sheep.repulsion: -1 is out of range"'
run run --set-at 9000:sheep.noise=1
check "--set-at past the step limit: exit 2" eval 'status_is 2 && stderr_has "is not before max_steps (5000)"'
for bad in "abc" "10" "10:sheep.noise" "10:sheep.noise=x" "-1:sheep.noise=1"; do
  run run --set-at "$bad"
  check "--set-at $bad: exit 2, one line" eval 'status_is 2 && one_clean_line && stderr_has "--set-at"'
done

run scenario --set sheep.count=200 --seed 42
check "herd scenario --set exits 0" status_is 0
check "herd scenario --set shows the override" stdout_has '"count": 200,'
check "herd scenario --seed shows the seed" stdout_has '"seed": 42,'

# ---- No display ------------------------------------------------------------------------------

# A build without the viewer (HERD_WITH_GL=OFF) says that instead of "no display".
no_display="no display"
run view --help
grep -qF "this build has no viewer" "$tmp/err" && no_display="this build has no viewer"
DISPLAY= run
check "herd with no command and no display runs headless" eval 'status_is 0 && stdout_has "result: success"'
check "... saying why in one line" eval 'stderr_has "$no_display" && stderr_has "running headless" && [ "$(wc -l <"$tmp/err")" -eq 1 ]'
DISPLAY= run view
check "herd view without a display exits 1 saying so" eval 'status_is 1 && stderr_has "$no_display"'

# ---- Hardening: outputs, odd input, signals --------------------------------------------------

echo data >"$tmp/k.csv"
run run --csv "$tmp/k.csv" --force --backend gpu
check "bad input leaves --csv --force's file untouched" eval 'status_is 2 && [ "$(cat "$tmp/k.csv")" = data ]'
run run --csv "$tmp/new.csv" --backend gpu
check "bad input creates no --csv file" eval 'status_is 2 && absent "$tmp/new.csv"'
run run --csv "$tmp/new.csv" --set sheep.count=0
check "a bad scenario creates no --csv file" eval 'status_is 2 && absent "$tmp/new.csv"'
run run --csv "$tmp/new.csv" --steps 3 --quiet
check "... so the corrected run is not refused" eval 'status_is 0 && [ "$(grep -vc "^#" "$tmp/new.csv")" -eq 5 ]'
check "... and leaves no temporary file" eval '! compgen -G "$tmp/new.csv.part-*" >/dev/null'
run run --csv - --steps 2 --quiet
check "--csv - writes the rows to standard output" eval 'status_is 0 && [ "$(grep -c "^[0-9]" "$tmp/out")" -eq 3 ]'
ln -s "$tmp/k.csv" "$tmp/link.csv"
run run --csv "$tmp/link.csv" --force --steps 2 --quiet
check "--csv through a symbolic link replaces the file it names, keeping the link" eval '[ -L "$tmp/link.csv" ] && [ "$(grep -vc "^#" "$tmp/k.csv")" -eq 4 ]'

run run --device ''
check "--device '' exits 2 saying it is empty" eval 'status_is 2 && stderr_has "--device: empty"'
run run --seed 18446744073709551615
check "a seed past 64 bits is out of range, shown as typed" eval 'status_is 2 && stderr_has "18446744073709551615 is out of range"'
run run --seed 9007199254740993
check "a seed near 2^53 is shown as typed, not rounded" eval 'status_is 2 && stderr_has "9007199254740993 is out of range"'
run run /dev/zero
check "an endless device is refused as not a file" eval 'status_is 2 && stderr_has "/dev/zero: is a character device"'
truncate -s 65M "$tmp/huge.json"
run run "$tmp/huge.json"
check "a file over the size cap is refused before it is read" eval 'status_is 2 && stderr_has "larger than 64 MiB"'
run run tests
check "a folder as scenario says so" eval 'status_is 2 && stderr_has "tests: is a folder"'
# Issue 24's reproductions of bad input that ran or said the wrong thing.
run run --steps 5 --set "$(printf 'model=\xc0\xaf\xff')"
check "a --set value that is not UTF-8 says so (it said out of memory)" eval 'status_is 2 && one_clean_line && stderr_has "not valid UTF-8"'
printf '{"seed": 1e-400}\n' >"$tmp/underflow.json"
run run --steps 5 "$tmp/underflow.json"
check "\"seed\": 1e-400 is refused with its place, not taken as seed 0" eval 'status_is 2 && stderr_has "underflow.json:1:10: 1e-400 is too small"'
run run --steps 5 --set seed=1e-400
check "--set seed=1e-400 is refused, not taken as seed 0" eval 'status_is 2 && stderr_has "1e-400 is too small"'
run experiment --list --seeds x
check "experiment --list still checks the options after it" eval 'status_is 2 && stderr_has "--seeds: \"x\" is not a list of seeds" && stdout_empty'
run bench -t 0
check "bench -t 0 names the option (it printed a dead stack buffer)" eval 'status_is 2 && stderr_is "herd: -t: \"0\" is not allowed (allowed: up to 8 integers from 1 to 1024)"'
run sweep -o "$tmp/nothing-here" --resume
check "sweep --resume with nothing to resume makes no folder" eval 'status_is 2 && stderr_has "no sweep to resume" && absent "$tmp/nothing-here"'
printf '{"scenario": {"sheep": {"count": 20}}, "seeds": "1-200000"}\n' >"$tmp/many-seeds.json"
started=$(date +%s%N)
run sweep "$tmp/many-seeds.json" -o "$tmp/many"
waited_ms=$((($(date +%s%N) - started) / 1000000))
check "200,000 seeds: the run limit is said before anything is expanded (${waited_ms} ms)" eval 'status_is 2 && stderr_has "200000 runs" && absent "$tmp/many"'
run scenario --set field.size_m=1e-50
check "a number that a float cannot keep is refused by herd scenario" eval 'status_is 2 && stderr_has "too small"'
run run "$tmp/$(printf 'a\nherd: forged\033[2J')"
check "a file name with a newline and an escape stays one clean line" eval 'status_is 2 && one_clean_line && stderr_has "a\nherd: forged\x1b[2J"'
run run --set "model=$(printf 'x\033]0;owned\007')"
check "a --set value with terminal controls is shown escaped" eval 'status_is 2 && one_clean_line && stderr_has "x\x1b]0;owned\x07"'

# Ctrl-C in the middle of a step that takes minutes: answered at once, summary and CSV written.
for backend in cpu opencl; do
  [ "$backend" = opencl ] && ! "$HERD" devices >/dev/null 2>&1 && continue
  "$HERD" run --set sheep.count=2000000 --backend "$backend" --csv "$tmp/int-$backend.csv" >"$tmp/out" 2>"$tmp/err" &
  pid=$!
  # Into the first step: step 0's row is flushed just before it (placing 2·10^6 sheep and
  # building the kernels take seconds, longer under the sanitizers, and are not the step).
  for _ in $(seq 600); do
    [ "$(cat "$tmp/int-$backend.csv".part-* 2>/dev/null | wc -l)" -ge 2 ] && break
    sleep 0.1
  done
  sleep 1
  started=$(date +%s%N)
  kill -INT "$pid"
  wait "$pid"
  rc=$?
  waited_ms=$((($(date +%s%N) - started) / 1000000))
  check "$backend: Ctrl-C inside a long step exits 130 (after ${waited_ms} ms)" eval 'status_is 130 && [ "$waited_ms" -lt 3000 ]'
  check "$backend: ... printing the summary" stdout_has "result: interrupted"
  # At least the header and step 0: on a fast machine a step or two may have finished.
  check "$backend: ... and writing the CSV (header and step 0)" eval '[ "$(grep -vc "^#" "$tmp/int-$backend.csv")" -ge 2 ]'
done

# A run stuck writing to a reader that never reads: the first Ctrl-C cannot finish the
# output, the second must end herd at once.
# The reader takes the first bytes (herd is past set-up: a Ctrl-C then asks for a clean stop),
# then reads no more.
mkfifo "$tmp/stuck"
{ head -c 1 >"$tmp/first-byte"; sleep 60; } <"$tmp/stuck" &
reader=$!
"$HERD" run --set "target.position_m=[-1e6,-1e6]" --steps 100000000 --csv - >"$tmp/stuck" 2>"$tmp/err" &
pid=$!
for _ in $(seq 600); do [ -s "$tmp/first-byte" ] && break; sleep 0.1; done
# Until the pipe is full and herd waits in a write (its main thread's kernel wait channel).
for _ in $(seq 600); do grep -q pipe_write "/proc/$pid/wchan" 2>/dev/null && break; sleep 0.1; done
kill -INT "$pid"
sleep 0.5 # the first stop seen, herd is still stuck in its write: nothing can finish the output
started=$(date +%s%N)
kill -INT "$pid"
wait "$pid"
rc=$?
waited_ms=$((($(date +%s%N) - started) / 1000000))
pkill -P "$reader" sleep 2>/dev/null
kill "$reader" 2>/dev/null
check "a second Ctrl-C exits at once (after ${waited_ms} ms)" eval 'status_is 130 && stderr_has "interrupted again" && [ "$waited_ms" -lt 2000 ]'

"$HERD" run --set sheep.count=10000 --set field.size_m=1500 --steps 1000000000 --csv "$tmp/k9.csv" --quiet >/dev/null 2>&1 &
pid=$!
# Until three rows are flushed (the CSV is flushed every second), whatever the set-up takes.
for _ in $(seq 900); do
  part=$(compgen -G "$tmp/k9.csv.part-*" | head -1)
  [ -n "$part" ] && [ "$(wc -l <"$part")" -ge 3 ] && break
  sleep 0.1
done
kill -KILL "$pid"
wait "$pid" 2>/dev/null
part=$(compgen -G "$tmp/k9.csv.part-*" | head -1)
check "after kill -9 the rows flushed so far are in the temporary CSV" eval '[ -n "$part" ] && [ "$(wc -l <"$part")" -ge 3 ] && absent "$tmp/k9.csv"'

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
# (Not under AddressSanitizer, which cannot start with a small address space.)
if (ulimit -v 100000 && exec "$HERD" --help) >/dev/null 2>&1; then
  (ulimit -v 100000 && exec "$HERD" run --backend opencl --steps 2) >"$tmp/out" 2>"$tmp/err"
  rc=$?
  check "under a low ulimit -v the message says the limit may be why" eval 'status_is 1 && stderr_has "ulimit -v"'
fi

if "$HERD" devices >/dev/null 2>&1; then
  run devices
  check "herd devices lists a device with its index" stdout_has "[0]"
  check "herd devices reports fp64 and GL sharing" eval 'stdout_has cl_khr_fp64 && stdout_has cl_khr_gl_sharing'

  # auto takes a GPU, else the native backend: an OpenCL CPU device (PoCL) only when named.
  if ! "$HERD" devices | grep -q "GPU"; then
    run run --backend auto --steps 5
    check "--backend auto with only an OpenCL CPU device runs on the native backend, saying why" \
      eval 'status_is 0 && stdout_has "backend: cpu" && stderr_has "auto: no OpenCL GPU" && stderr_has "--backend opencl --device"'
    run run --backend auto --device 0 --steps 5
    check "--backend auto --device 0 takes that OpenCL CPU device" eval 'status_is 0 && stdout_has "backend: opencl"'
  fi

  run run --backend opencl --steps 20 --profile
  check "--backend opencl runs" status_is 0
  check "--profile prints the stage table" eval 'stdout_has "read-back" && stdout_has "ms per step"'

  run run --backend opencl --device no-such-device --steps 5
  check "--device with no match exits 2 listing the devices" eval 'status_is 2 && stderr_has "no such OpenCL device"'
  HERD_CL_DEVICE=99 run run --backend opencl --steps 5
  check "HERD_CL_DEVICE is used like --device" eval 'status_is 2 && stderr_has "--device 99"'

  # The device's limit is set for the test (a machine's free memory must not decide it).
  HERD_CL_MEMORY_LIMIT_MIB=16 run run --backend opencl --set sheep.count=1000000 --steps 1
  check "a flock too large for the device exits 2 before allocating" eval 'status_is 2 && stderr_has "MiB of device memory" && stderr_has "has 16 MiB"'

  echo data >"$tmp/kept.csv"
  run run --backend opencl --device 99 --csv "$tmp/kept.csv" --force --steps 5
  check "a missing device leaves --csv --force's file as it was" eval 'status_is 2 && [ "$(cat "$tmp/kept.csv")" = data ]'
  run run --backend opencl --device 99 --csv "$tmp/never.csv" --steps 5
  check "a missing device creates no --csv file" eval 'status_is 2 && absent "$tmp/never.csv" && ! compgen -G "$tmp/never.csv*" >/dev/null'

  # PoCL with a kernel cache folder it cannot write (only testable as another user than root).
  if [ "$(id -u)" -eq 0 ] && command -v runuser >/dev/null && [ "$(stat -c %a "$tmp")" ]; then
    mkdir -p "$tmp/nobody/cache"
    cp "$HERD" "$tmp/nobody/herd"
    chmod 755 "$tmp" "$tmp/nobody" "$tmp/nobody/cache" "$tmp/nobody/herd"
    runuser -u nobody -- env POCL_CACHE_DIR="$tmp/nobody/cache" HOME="$tmp/nobody" "$tmp/nobody/herd" run --backend opencl --steps 2 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    check "an unwritable PoCL cache: exit 1 naming the folder" eval 'status_is 1 && stderr_has "cannot write its kernel cache folder $tmp/nobody/cache"'
    runuser -u nobody -- env POCL_CACHE_DIR="$tmp/nobody/cache" HOME="$tmp/nobody" "$tmp/nobody/herd" run --backend auto --steps 2 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    check "an unwritable PoCL cache: --backend auto runs on the native backend" eval 'status_is 0 && stdout_has "backend: cpu" && stderr_has "auto:"'
  fi

  mkdir -p "$tmp/kernels"
  cp -r kernels/. "$tmp/kernels/"
  sed 's/uint k = herd_bucket_at(&grid, herd_load_vec(pos, first + r, grid.dims));/uint k = no_such_function(pos[0]);/' \
    kernels/herd.cl >"$tmp/kernels/herd.cl"
  HERD_KERNEL_DIR="$tmp/kernels" run run --backend opencl --steps 5
  check "a kernel build failure exits 1 with the build log" eval 'status_is 1 && stderr_has "building the kernels (kernels/herd.cl) failed" && stderr_has no_such_function'
else
  echo "no OpenCL device: OpenCL checks skipped"
fi

finish
