#!/usr/bin/env bash
# Benchmark (not a test): the cost of recording. Steps/s of the same run with and without
# `herd record` (1280x720, one frame per step, H.264), N = 10^4, for two workloads: the
# all-active flock (every sheep does the full update) and the default herding scenario
# scaled to 10^4 sheep (most sheep grazing: cheap steps, so encoding weighs most).
# Without a display it runs under xvfb-run.
#   bench/record.sh [--steps S] [--out FILE.csv] [--no-build]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
steps=300 out="$root/bench/results/record-overhead.csv" build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --steps) steps=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    *) echo "record.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
source "$root/bench/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
field=$(awk 'BEGIN { printf "%.3f", 3 * sqrt(4 * 10000) }')

# Each command's own timing of its step loop ("wall time: S s"), so start-up (the display,
# the window, ffmpeg) is left out of both sides; record's includes ffmpeg finishing the file.
wall() { "$@" | sed -n 's/^wall time: \([0-9.]*\) s.*/\1/p'; }

echo "workload,steps,run_s,record_s,run_steps_per_s,record_steps_per_s,slowdown_percent" >"$out"
printf "%-12s %6s %9s %9s %12s %12s %9s\n" workload steps run_s record_s run_steps/s rec_steps/s slowdown
for workload in all-active herding; do
  if [ "$workload" = all-active ]; then
    args=("$root/bench/all-active.json" --set sheep.count=10000 --set field.size_m="$field")
  else
    args=(--set sheep.count=10000 --set sheep.neighbours=50 --set "target.position_m=[-1e6,-1e6]")
  fi
  "$herd" run "${args[@]}" --steps 5 >/dev/null # warm caches
  run_s=$(wall "$herd" run "${args[@]}" --steps "$steps")
  rec_s=$(wall "${wrap[@]}" "$herd" record "${args[@]}" --steps "$steps" --size 1280x720 -o "$tmp/$workload.mp4")
  awk -v w="$workload" -v s="$steps" -v a="$run_s" -v b="$rec_s" -v out="$out" 'BEGIN {
    printf "%-12s %6d %9.2f %9.2f %12.1f %12.1f %8.0f%%\n", w, s, a, b, s / a, s / b, 100 * (b - a) / a
    printf "%s,%d,%.3f,%.3f,%.2f,%.2f,%.1f\n", w, s, a, b, s / a, s / b, 100 * (b - a) / a >> out
  }'
done
echo "wrote $out"
