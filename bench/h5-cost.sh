#!/usr/bin/env bash
# What --trajectories costs: the same run without (A) and with (B) a trajectory file of every
# agent every 10 steps, interleaved A B A B so that load on the machine falls on both alike.
# Prints each pair (the summary's wall time, and the process's CPU time, user + system, which
# other programs' load disturbs less), then the median over pairs of the time B adds, per step
# and per frame written, the bytes per frame on disk and the compression ratio (raw float32
# positions and headings over the file's size).
#
#   bash bench/h5-cost.sh [HERD [PAIRS [AGENTS [STEPS [THREADS]]]]]     (from the repository root)
set -eu
HERD=${1:-build/herd}
PAIRS=${2:-3}
AGENTS=${3:-100000}
STEPS=${4:-50}
THREADS=${5:-1}
EVERY=10
SIDE=$(awk -v n="$AGENTS" 'BEGIN { printf "%d", sqrt(n * 4) }') # 4 m^2 per sheep: 632 m for 10^5
out=$(mktemp -d "${TMPDIR:-/tmp}/h5-cost.XXXXXX")
trap 'rm -rf "$out"' EXIT
[ -n "${H5_COST_KEEP:-}" ] && trap - EXIT
args=(run bench/all-active.json --set sheep.count="$AGENTS" --set field.size_m="$SIDE" --steps "$STEPS"
  --threads "$THREADS" --set output.trajectories.every_steps=$EVERY)

# one [ARGS...]: runs herd with --profile; prints "wall_s cpu_s write_ms write_cpu_ms" (the
# last two: the time inside the trajectory writer, from --profile's "trajectories:" line; 0 0
# without a file).
one() {
  TIMEFORMAT='%U %S'
  { time "$HERD" "${args[@]}" --profile "$@" >"$out/summary"; } 2>"$out/time"
  local wall write
  wall=$(awk '/^wall time:/ { print $3 }' "$out/summary")
  write=$(awk '/^trajectories:/ { for (i = 1; i <= NF; ++i) { if ($i == "took") w = $(i + 1); if ($i == "CPU") c = $(i + 1) }
    print w, c }' "$out/summary")
  awk -v w="$wall" -v t="${write:-0 0}" '{ print w, $1 + $2, t }' "$out/time"
}
: >"$out/pairs"
for pair in $(seq "$PAIRS"); do
  a=$(one)
  rm -f "$out/t.h5"
  b=$(one --trajectories "$out/t.h5")
  read -r aw ac _ _ <<<"$a"
  read -r bw bc bt btc <<<"$b"
  echo "pair $pair: without: wall $aw s, cpu $ac s; with: wall $bw s, cpu $bc s; in the writer $bt ms (cpu $btc ms)"
  echo "$a $b" >>"$out/pairs"
done
bytes=$(stat -c %s "$out/t.h5")
frames=$((STEPS / EVERY + 1))
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
wall_added=$(awk '{ print $5 - $1 }' "$out/pairs" | median)
cpu_added=$(awk '{ print $6 - $2 }' "$out/pairs" | median)
writer_ms=$(awk '{ print $7 }' "$out/pairs" | median)
writer_cpu_ms=$(awk '{ print $8 }' "$out/pairs" | median)
wall_a=$(awk '{ print $1 }' "$out/pairs" | median)
awk -v wa="$wall_a" -v w="$wall_added" -v c="$cpu_added" -v s="$STEPS" -v bytes="$bytes" -v f="$frames" \
  -v n="$AGENTS" -v e="$EVERY" -v t="$THREADS" -v wm="$writer_ms" -v wc="$writer_cpu_ms" 'BEGIN {
  raw = 2 * n * 2 * 4
  printf "agents %d, steps %d, %d thread(s), a frame of every agent every %d steps (%d frames)\n", n, s, t, e, f
  printf "without: %.1f ms/step (median wall)\n", 1e3 * wa / s
  printf "added (median of pairs): wall %.2f ms/step, %.1f ms per frame; cpu %.2f ms/step, %.1f ms per frame\n",
         1e3 * w / s, 1e3 * w / f, 1e3 * c / s, 1e3 * c / f
  printf "inside the writer (median, --profile): %.1f ms (%.2f ms/step, %.1f ms per frame), cpu %.1f ms per frame\n",
         wm, wm / s, wm / f, wc / f
  printf "file %d bytes: %.0f bytes per frame on disk, raw %d (positions + headings); compression ratio %.2f\n",
         bytes, bytes / f, raw, f * raw / bytes
}'
