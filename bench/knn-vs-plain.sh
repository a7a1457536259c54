#!/usr/bin/env bash
# Benchmark (not a test): herd's exact k = 50 search on the CPU backend against the plain C
# reference (bench/knn_plain.c, built -O3 here), one thread each, the same density (one sheep
# per 4 m^2: herd's all-active workload, bench/all-active.sh). Runs alternate, herd then
# plain, REPS times per size; prints each run and the medians. herd's step does more than the
# k nearest (repulsion, the dog term, noise, the reduction): both its whole step ("all") and
# its model stage ("step", from --profile) are given.
#
# usage: bench/knn-vs-plain.sh [--sizes "10000:30 100000:4"] [--reps 3] [--herd BIN] [--no-build]
#   --herd  another herd binary to time (e.g. a build of an older commit)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sizes="10000:30 100000:4" reps=3 build=1 herd_bin=""
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) sizes=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --herd) herd_bin=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    *) echo "knn-vs-plain.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
source "$root/bench/lib.sh"
[ -n "$herd_bin" ] && herd=$herd_bin
plain=$root/build/knn_plain
cc -O3 -std=c11 -o "$plain" "$root/bench/knn_plain.c" -lm

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf "%-8s %3s %12s %12s %12s\n" N rep herd_all_ms herd_step_ms plain_ms
for pair in $sizes; do
  n=${pair%%:*} steps=${pair##*:}
  field=$(awk -v n="$n" 'BEGIN { printf "%.3f", 3 * sqrt(4 * n) }') # the spawn square is field/3
  all=() step=() ref=()
  for r in $(seq "$reps"); do
    out=$("$herd" run "$root/bench/all-active.json" --quiet --threads 1 --steps "$steps" --profile \
      --set sheep.count="$n" --set field.size_m="$field" 2>&1)
    a=$(awk '$1 == "all" { print $3 }' <<<"$out") s=$(awk '$1 == "step" { print $3 }' <<<"$out")
    p=$("$plain" "$n" "$steps" | sed 's/.*ms_per_step=\([0-9.]*\).*/\1/')
    all+=("$a") step+=("$s") ref+=("$p")
    printf "%-8s %3s %12s %12s %12s\n" "$n" "$r" "$a" "$s" "$p"
  done
  ma=$(printf "%s\n" "${all[@]}" | median) ms=$(printf "%s\n" "${step[@]}" | median)
  mp=$(printf "%s\n" "${ref[@]}" | median)
  printf "%-8s %3s %12s %12s %12s   plain/herd: all %.2fx, step %.2fx\n" "$n" med "$ma" "$ms" "$mp" \
    "$(awk -v p="$mp" -v a="$ma" 'BEGIN { print p / a }')" "$(awk -v p="$mp" -v s="$ms" 'BEGIN { print p / s }')"
done
