#!/usr/bin/env bash
# What --trajectories costs: the same run without (A) and with (B) a trajectory file of every
# agent every 10 steps, interleaved A B A B so that load on the machine falls on both alike.
# Prints one line per run and then the mean added ms per step, bytes per frame on disk and the
# compression ratio (raw float32 positions + headings over the file's size).
#
#   bash bench/h5-cost.sh [HERD [PAIRS [AGENTS [STEPS]]]]     (from the repository root)
set -eu
HERD=${1:-build/herd}
PAIRS=${2:-3}
AGENTS=${3:-100000}
STEPS=${4:-50}
EVERY=10
SIDE=$(awk -v n="$AGENTS" 'BEGIN { printf "%d", sqrt(n * 4) }') # 4 m^2 per sheep, as 10^5 in 632 m
out=$(mktemp -d "${TMPDIR:-/tmp}/h5-cost.XXXXXX")
trap 'rm -rf "$out"' EXIT
args=(run bench/all-active.json --set sheep.count="$AGENTS" --set field.size_m="$SIDE" --steps "$STEPS" --quiet
  --set output.trajectories.every_steps=$EVERY)

wall() { awk '/^wall time:/ { print $3 }'; }
a_sum=0 b_sum=0
for pair in $(seq "$PAIRS"); do
  t0=$(date +%s.%N)
  a=$("$HERD" "${args[@]}" | wall)
  t1=$(date +%s.%N)
  rm -f "$out/t.h5"
  b=$("$HERD" "${args[@]}" --trajectories "$out/t.h5" | wall)
  t2=$(date +%s.%N)
  # The process's whole time also counts closing the file, which the summary's wall time does not.
  echo "pair $pair: without ${a} s, with ${b} s (whole process: $(awk -v a="$t0" -v b="$t1" -v c="$t2" \
    'BEGIN { printf "%.3f s, %.3f s", b - a, c - b }'))"
  a_sum=$(awk -v s="$a_sum" -v x="$a" 'BEGIN { print s + x }')
  b_sum=$(awk -v s="$b_sum" -v x="$b" 'BEGIN { print s + x }')
done
bytes=$(stat -c %s "$out/t.h5")
frames=$((STEPS / EVERY + 1))
awk -v a="$a_sum" -v b="$b_sum" -v p="$PAIRS" -v s="$STEPS" -v bytes="$bytes" -v f="$frames" -v n="$AGENTS" 'BEGIN {
  raw = f * (2 * n * 2 * 4 + 4) + n * 4
  printf "agents %d, steps %d, a frame every %d steps (%d frames)\n", n, s, '"$EVERY"', f
  printf "without: %.1f ms/step; with: %.1f ms/step; added %.2f ms/step (%.1f ms per frame written)\n",
         1e3 * a / p / s, 1e3 * b / p / s, 1e3 * (b - a) / p / s, 1e3 * (b - a) / p / f
  printf "file %d bytes: %.0f bytes per frame (raw %d); compression ratio %.2f\n", bytes, bytes / f,
         2 * n * 2 * 4, raw / bytes
}'
