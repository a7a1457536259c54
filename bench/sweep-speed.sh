#!/usr/bin/env bash
# Benchmark (not a test): how fast herd sweep runs many small Strömbom worlds.
#
# 1. 20 cells x 20 seeds of the default scenario (N = 100, n = 4, 9, ..., 99): a shell loop
#    around `herd run` (what a user did before herd sweep), one `herd sweep` on 1 thread (one
#    world at a time), on every core (worlds side by side, one thread each), and as batches of
#    64 worlds stepped together by the CPU backend over every core.
# 2. The herding part of it, n = 54 and 59 (40 runs, each herded in about 700 steps), on
#    OpenCL: one world at a time (--batch 1) and every world in one launch (--batch 64), with
#    the CPU's side-by-side sweep of the same runs beside them.
#
# The configurations take turns, A B C ... A B C ..., for --rounds rounds; each figure is the
# median wall time, with the runs per second it means. Every configuration's successes are
# counted: the same runs give the same count whatever the backend's batch.
#
# usage: bench/sweep-speed.sh [--rounds R] [--out FILE.md] [--no-build] [--no-opencl]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=3 out="" build=1 opencl=1
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --no-opencl) opencl=0; shift ;;
    *) echo "sweep-speed.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
source "$root/bench/lib.sh"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cores=$(nproc)

shell_loop() {
  for n in $(seq 4 5 99); do
    for seed in $(seq 1 20); do "$herd" run --set sheep.neighbours="$n" --seed "$seed" | grep '^result'; done
  done >"$scratch/loop.txt"
}
sweep() { # NAME VARY SWEEP-OPTIONS...: one herd sweep into $scratch/NAME
  local name=$1 vary=$2
  shift 2
  "$herd" sweep --vary sheep.neighbours="$vary" --seeds 1-20 --force --out "$scratch/$name" "$@" >/dev/null
}
seconds() { # COMMAND...: wall seconds
  local t0 t1
  t0=$(date +%s.%N)
  "$@"
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'
}
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
successes() { awk -F, '!/^#/ && $5 == "succeeded"' "$scratch/$1/runs.csv" | wc -l; }

# Each configuration: a label, its runs, and the command (after "sweep NAME VARY").
labels=() counts=() commands=() names=()
add() { labels+=("$1"); counts+=("$2"); names+=("$3"); commands+=("$4"); }
add "shell loop around herd run" 400 loop ""
add "herd sweep --threads 1 (one world at a time)" 400 one "4:99:5 --threads 1"
add "herd sweep --threads $cores (worlds side by side)" 400 side "4:99:5 --threads $cores"
add "herd sweep --threads $cores --batch 64 (CPU batch)" 400 cpubatch "4:99:5 --threads $cores --batch 64"
add "herd sweep --threads $cores, n = 54, 59" 40 herd-side "54,59 --threads $cores"
if [ "$opencl" = 1 ] && "$herd" devices >/dev/null 2>&1; then
  add "herd sweep --backend opencl --batch 1, n = 54, 59" 40 cl-one "54,59 --backend opencl --batch 1"
  add "herd sweep --backend opencl --batch 64, n = 54, 59" 40 cl-batch "54,59 --backend opencl --batch 64"
fi

declare -A times
for ((r = 1; r <= rounds; ++r)); do
  line="round $r:"
  for k in "${!labels[@]}"; do
    if [ "${names[$k]}" = loop ]; then
      t=$(seconds shell_loop)
    else
      # shellcheck disable=SC2086  # the options are words on purpose
      t=$(seconds sweep "${names[$k]}" ${commands[$k]})
    fi
    times[$k]+="$t "
    line+=" ${names[$k]} $t s,"
  done
  echo "${line%,}"
done
table="| how | runs | wall time (median of $rounds) | runs/s | successes |"$'\n'"|---|---:|---:|---:|---:|"
for k in "${!labels[@]}"; do
  m=$(median <<<"${times[$k]}")
  if [ "${names[$k]}" = loop ]; then ok=$(grep -c '^result: success' "$scratch/loop.txt"); else ok=$(successes "${names[$k]}"); fi
  table+=$'\n'"| ${labels[$k]} | ${counts[$k]} | $m s | $(awk -v m="$m" -v n="${counts[$k]}" 'BEGIN { printf "%.1f", n / m }') | $ok |"
done
echo "$table"
if [ -n "$out" ]; then
  {
    echo "# herd sweep: runs per second"
    echo
    echo "\`bench/sweep-speed.sh --rounds $rounds\`, $(date -u '+%Y-%m-%d %H:%M UTC'), herd $(git -C "$root" describe --always --dirty), on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $cores cores; OpenCL on PoCL (the CPU)."
    echo "The default Strömbom scenario with N = 100: 400 runs over n = 4, 9, ..., 99 and seeds 1-20 (small n fail, at 5000 steps); 40 runs over n = 54, 59 (each herded in about 700 steps)."
    echo
    echo "$table"
  } >"$out"
  echo "wrote $out"
fi
