#!/usr/bin/env bash
# herd against a hostile machine (issue 24): inputs that are not files (a FIFO, a device, a
# folder), a full disk, a file size limit, Ctrl-C and SIGTERM while a huge flock is set up, and
# outputs that collide. Each case is one reproduction from the issue.
#
#   bash tests/test_faults.sh PATH_TO_HERD      (from the repository root; ctest does this)
#
# The full-disk cases need a small tmpfs: made here where the test may mount (root), skipped
# with a message elsewhere. Ends with "N passed, N failed"; exits 1 when a check failed.
set -u
HERD=$(realpath "${1:?usage: bash tests/test_faults.sh PATH_TO_HERD}")
source "$(dirname "$0")/check.sh"

one_line() { [ "$(wc -l <"$tmp/err")" -eq 1 ]; }
no_part() { ! compgen -G "$1.part-*" >/dev/null; }
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }
have_opencl=false
"$HERD" devices >/dev/null 2>&1 && have_opencl=true

# ---- Inputs that are not regular files: refused at once, exit 2 ----------------------------
mkfifo "$tmp/f.json" "$tmp/f.ckpt"
for args in "run $tmp/f.json" "run --resume $tmp/f.ckpt" "sweep $tmp/f.json -o $tmp/fo"; do
  started=$(date +%s%N)
  # shellcheck disable=SC2086 # the words are the command line
  timeout 20 "$HERD" $args >"$tmp/out" 2>"$tmp/err"
  rc=$? waited=$(ms_since "$started")
  check "herd $args: a FIFO is refused at once (${waited} ms), not waited on" eval \
    'is "$rc" 2 && one_line && has "is a named pipe (FIFO)" "$tmp/err" && [ "$waited" -lt 5000 ]'
done
check "... and the sweep made no folder" absent "$tmp/fo"
started=$(date +%s%N)
run run --resume /dev/zero
waited=$(ms_since "$started")
check "--resume /dev/zero is refused without reading it (${waited} ms)" eval \
  'is "$rc" 2 && has "/dev/zero: is a character device" "$tmp/err" && [ "$waited" -lt 5000 ]'
run run --resume /
check "--resume / exits 2, like every other refusal of a checkpoint" eval 'is "$rc" 2 && has "is a folder" "$tmp/err"'
# A header that claims more than the file holds: refused before the rest is read.
run run -q --steps 3 --checkpoint "$tmp/ok.ckpt"
head -c 100 "$tmp/ok.ckpt" >"$tmp/head.ckpt"
truncate -s 2G "$tmp/head.ckpt" # sparse: a header and 2 GB of nothing
started=$(date +%s%N)
run run --resume "$tmp/head.ckpt"
waited=$(ms_since "$started")
check "a checkpoint whose size is not its header's is refused unread (${waited} ms)" eval \
  'is "$rc" 2 && has "its header says" "$tmp/err" && [ "$waited" -lt 5000 ]'

# What the fuzzers found (tests/fuzz/found): each checkpoint passes its CRC but holds a flock no
# step could have left; each is refused (the first step was undefined behaviour).
for ckpt in tests/fuzz/found/*.ckpt; do
  run run -q --resume "$ckpt" --steps 1000000
  check "found by the fuzzer, refused: $ckpt" eval 'is "$rc" 2 && one_line && has "corrupt" "$tmp/err"'
done
run sweep -q tests/fuzz/found/sweep-list-value-not-json.json -o "$tmp/found-sweep"
check "found by the fuzzer, refused where it is written: \"05\" in a sweep's list" eval \
  'is "$rc" 2 && one_line && has "\"05\" is not a number as JSON writes one" "$tmp/err" && absent "$tmp/found-sweep"'

# ---- A file size limit (ulimit -f): the write fails by name, exit 1, no temporary left -------
# A bash that exits with 153 was killed by SIGXFSZ; herd must not be.
limited() { (ulimit -f 16 && exec "$HERD" "$@") >"$tmp/out" 2>"$tmp/err"; rc=$?; }
cd "$tmp" || exit 1
printf 'keep\n' >kept.csv
limited run -q --steps 3000 --csv kept.csv --force
check "ulimit -f: --csv fails with its name and the reason" eval \
  'is "$rc" 1 && one_line && has "--csv kept.csv" err && has "File too large" err'
check "... the file that was there is kept, no temporary left" eval 'is "$(cat kept.csv)" keep && no_part kept.csv'
limited run -q --steps 3000 --set sheep.count=400 --trajectories t.h5
check "ulimit -f: --trajectories fails with its name and the reason" eval \
  'is "$rc" 1 && one_line && has "--trajectories t.h5" err && has "File too large" err && absent t.h5 && no_part t.h5'
limited run -q --steps 3 --set sheep.count=3000 --checkpoint c.ckpt
check "ulimit -f: --checkpoint fails with its name and the reason" eval \
  'is "$rc" 1 && one_line && has "c.ckpt" err && has "File too large" err && absent c.ckpt && no_part c.ckpt'
printf '{"scenario": {"sheep": {"count": 60}}, "vary": {"sheep.count": [60, 80]}, "seeds": "1-400", "max_steps": 20}\n' >sw.json
limited sweep -q sw.json -o swo
check "ulimit -f: herd sweep fails naming runs.csv" eval 'is "$rc" 1 && one_line && has "runs.csv" err && has "File too large" err'
cd - >/dev/null || exit 1

# ---- A full disk (a 64 KiB tmpfs) ------------------------------------------------------------
disk="$tmp/disk"
mkdir -p "$disk"
if mount -t tmpfs -o size=64k tmpfs "$disk" 2>/dev/null; then
  trap 'umount "$disk" 2>/dev/null; rm -rf "$tmp"' EXIT
  # fill BYTES: the disk holds that much besides kept.csv.
  fill() { rm -f "$disk/fill"; head -c "$1" /dev/zero >"$disk/fill" 2>/dev/null; }
  printf 'keep\n' >"$disk/kept.csv"
  fill 56000
  run run -q --steps 3000 --csv "$disk/kept.csv" --force
  check "full disk: --csv fails with its name and the reason" eval \
    'is "$rc" 1 && one_line && has "No space left on device" "$tmp/err"'
  check "... the file that was there is kept, no temporary left" eval \
    'is "$(cat "$disk/kept.csv")" keep && no_part "$disk/kept.csv"'
  fill 0
  run run -q --steps 300 --trajectories "$disk/a.h5"
  check "full disk: --trajectories fails in one line, no crash at exit" eval \
    'is "$rc" 1 && one_line && has "HDF5 could not" "$tmp/err" && has "No space left on device" "$tmp/err"'
  check "... no temporary left" eval 'absent "$disk/a.h5" && no_part "$disk/a.h5"'
  fill 0
  run run -q --steps 3 --set sheep.count=5000 --checkpoint "$disk/c.ckpt"
  check "full disk: --checkpoint fails with its name and the reason" eval \
    'is "$rc" 1 && one_line && has "c.ckpt" "$tmp/err" && has "No space left on device" "$tmp/err" && no_part "$disk/c.ckpt"'
  fill 60000
  run bench -q --sizes 100 --steps 5 --repeat 1 -o "$disk/b"
  check "full disk: herd bench -q still says what failed" eval \
    'is "$rc" 1 && one_line && has "write failed" "$tmp/err" && has "No space left on device" "$tmp/err"'
  umount "$disk"
else
  echo "test_faults: skipping the full-disk cases: cannot mount a tmpfs here (needs root)"
fi

# ---- Ctrl-C and SIGTERM while 10^7 agents are set up: answered within a second -------------
# Set-up ends at once; a step stops between its pieces. The check allows 2 s (a machine running
# other tests beside this one, and the teardown of 1 GB); the time measured is in its name.
backends=(cpu)
$have_opencl && backends+=(opencl)
for backend in "${backends[@]}"; do
  for after in 0.2 1 2.5; do
    for signal in INT TERM; do
      "$HERD" run -q --backend "$backend" --set sheep.count=10000000 --steps 1000 --csv "$tmp/big.csv" \
        >"$tmp/out" 2>"$tmp/err" &
      pid=$!
      sleep "$after"
      started=$(date +%s%N)
      kill -"$signal" "$pid"
      wait "$pid"
      rc=$? waited=$(ms_since "$started")
      want=$((128 + $(kill -l "$signal")))
      check "$backend: SIG$signal ${after} s into a 10^7-agent run ends it (after ${waited} ms)" eval \
        'is "$rc" "$want" && [ "$waited" -lt 2000 ]'
      rm -f "$tmp"/big.csv*
    done
  done
done

# ---- Outputs that collide: refused before any work, nothing written ------------------------
cd "$tmp" || exit 1
collides() {
  local name=$1
  shift
  rm -rf x x.h5 x.gif o
  run "$@"
  check "$name: refused (exit 2) before anything is written" eval \
    'is "$rc" 2 && one_line && absent x && absent x.h5 && absent x.gif && ! compgen -G "x*.part-*" >/dev/null'
}
collides "--csv x --trajectories x" run -q --steps 5 --csv x --trajectories x
collides "--csv x --checkpoint x" run -q --steps 5 --csv x --checkpoint x
collides "--csv x --summary x" run -q --steps 5 --csv x --summary x
collides "--trajectories x.h5 --summary ./x.h5" run -q --steps 5 --trajectories x.h5 --summary ./x.h5
mkdir -p d && ln -sf ../x d/link
collides "--csv x --summary d/link (a link to it)" run -q --steps 5 --csv x --summary d/link
collides "bench -o o --summary o/summary.md" bench -q --sizes 100 -o o --summary o/summary.md
collides "--trajectories x --checkpoint ./x" run -q --steps 5 --trajectories x --checkpoint ./x
printf '{}\n' >s.json
run run -q --steps 5 s.json --csv s.json
check "an output that is the scenario read is refused without --force" eval \
  'is "$rc" 2 && has "is the scenario this command reads" "$tmp/err" && is "$(cat s.json)" "{}"'
cd - >/dev/null || exit 1

finish
