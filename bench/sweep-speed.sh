#!/usr/bin/env bash
# Benchmark (not a test): 20 cells x 20 seeds of the default Strömbom scenario (N = 100,
# n = 4, 9, ..., 99) as a shell loop around `herd run` (what a user did before herd sweep) and
# as one `herd sweep`, on 1 thread and on every core. They take turns, A B C A B C, for
# --rounds rounds; each figure is the median wall time, with the runs per second it means.
#
# usage: bench/sweep-speed.sh [--rounds R] [--out FILE.md] [--no-build]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=3 out="" build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    *) echo "sweep-speed.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
source "$root/bench/lib.sh"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cores=$(nproc)
runs=400

shell_loop() {
  for n in $(seq 4 5 99); do
    for seed in $(seq 1 20); do "$herd" run --quiet --set sheep.neighbours="$n" --seed "$seed" | grep '^result'; done
  done >"$scratch/loop.txt"
}
one_sweep() { # THREADS
  "$herd" sweep --vary sheep.neighbours=4:99:5 --seeds 1-20 --threads "$1" --quiet --force --out "$scratch/sweep" >/dev/null
}
seconds() { # COMMAND...: wall seconds
  local t0 t1
  t0=$(date +%s.%N)
  "$@"
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'
}
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

loop_times="" one_times="" all_times=""
for ((r = 1; r <= rounds; ++r)); do
  loop_times+="$(seconds shell_loop) "
  one_times+="$(seconds one_sweep 1) "
  all_times+="$(seconds one_sweep "$cores") "
  echo "round $r: shell loop ${loop_times##* }, sweep 1 thread ${one_times##* }, sweep $cores threads ${all_times##* }" | tr -s ' '
done
# The sweep's successes must be the loop's: the same runs.
loop_ok=$(grep -c '^result: success' "$scratch/loop.txt")
sweep_ok=$(awk -F, 'NR > 1 && $5 == "succeeded"' "$scratch/sweep/runs.csv" | wc -l)
table="| how | wall time (median of $rounds) | runs/s |"$'\n'"|---|---:|---:|"
for row in "shell loop around herd run:$loop_times" "herd sweep --threads 1:$one_times" "herd sweep --threads $cores:$all_times"; do
  m=$(median <<<"${row#*:}")
  table+=$'\n'"| ${row%%:*} | $m s | $(awk -v m="$m" -v n=$runs 'BEGIN { printf "%.1f", n / m }') |"
done
echo "$table"
echo "successful runs: shell loop $loop_ok, sweep $sweep_ok (of $runs)"
if [ -n "$out" ]; then
  {
    echo "# herd sweep against a shell loop"
    echo
    echo "\`bench/sweep-speed.sh --rounds $rounds\`, $(date -u '+%Y-%m-%d %H:%M UTC'), herd $(git -C "$root" describe --always --dirty), on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $cores cores."
    echo "400 runs: N = 100, n = 4, 9, ..., 99, seeds 1-20, the default scenario otherwise."
    echo
    echo "$table"
    echo
    echo "Successful runs: shell loop $loop_ok, sweep $sweep_ok of $runs (the same runs, so the same count)."
  } >"$out"
  echo "wrote $out"
fi
