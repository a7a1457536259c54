#!/usr/bin/env bash
# Benchmark (not a test): herd's boids against what a user would run instead, side by side on
# one machine: bench/peers/boids_grid.c (a plain C grid boids loop, the same rules, serial and
# OpenMP) and, when MASON_RUN names it, MASON's Flocking from the JuliaDynamics
# ABMFrameworksComparison (bench/peers/README.md says how to set it up; it is not shipped).
#
# Every program runs the same N, world (a torus of side 15.853 sqrt(N): 20 boids within the
# visual range 40 of each at the start) and step count, from its own random start; the
# programs take turns, A B C A B C ..., so that a change in the machine's load falls on all of
# them. Each figure is the program's own step-loop time (setup and start-up excluded), the
# median of the rounds.
#
# usage: bench/boids-peers.sh [--sizes "1000:2000 10000:300 50000:100"] [--rounds R]
#                             [--threads "1 2"] [--out FILE.md] [--no-build]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sizes="1000:2000 10000:300 50000:100" rounds=3 threads="1 2" out="" build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) sizes=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    *) echo "boids-peers.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
source "$root/bench/lib.sh"

peers=$root/build/peers
mkdir -p "$peers"
cc=${CC:-gcc}
# The same optimisation as herd's Release build.
"$cc" -O3 -std=c11 -Wall -Wextra -Wno-unknown-pragmas -o "$peers/boids_grid" "$root/bench/peers/boids_grid.c" -lm
"$cc" -O3 -std=c11 -Wall -Wextra -fopenmp -o "$peers/boids_grid_omp" "$root/bench/peers/boids_grid.c" -lm

# ms per step of one run of each program, from its own output.
herd_ms() { # N STEPS WORLD THREADS
  local out
  out=$("$herd" run --threads "$4" --steps "$2" --set model=boids --set boids.count="$1" \
    --set "world.size_m=[$3,$3]" --set "world.wrap=[true,true]")
  awk -v s="$2" '/^wall time:/ { printf "%.3f", 1000 * $3 / s }' <<<"$out"
}
grid_ms() { # N STEPS WORLD THREADS
  local program=$peers/boids_grid
  [ "$4" -gt 1 ] && program=$peers/boids_grid_omp
  OMP_NUM_THREADS=$4 "$program" "$1" "$2" "$3" | awk -F'[= ]' '/ms_per_step=/ { for (k = 1; k < NF; ++k) if ($k == "ms_per_step") printf "%.3f", $(k + 1) }'
}
mason_ms() { # N STEPS WORLD
  WORLD=$3 RADIUS=40 "$MASON_RUN" "$1" "$2" | awk '/ms_per_step=/ { for (k = 1; k <= NF; ++k) if ($k ~ /^ms_per_step=/) { sub(/ms_per_step=/, "", $k); printf "%.3f", $k } }'
}
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

table="| N | steps | program | threads | ms/step (median of $rounds) | steps/s | rounds |"$'\n'"|---:|---:|---|---:|---:|---:|---|"
for size in $sizes; do
  n=${size%%:*} steps=${size##*:}
  world=$(awk -v n="$n" 'BEGIN { printf "%.3f", sqrt(n * 3.14159265358979 * 1600 / 20) }')
  declare -A times=()
  for ((r = 1; r <= rounds; ++r)); do
    for t in $threads; do
      times["herd $t"]+="$(herd_ms "$n" "$steps" "$world" "$t") "
      times["boids_grid $t"]+="$(grid_ms "$n" "$steps" "$world" "$t") "
    done
    [ -n "${MASON_RUN:-}" ] && times["MASON 1"]+="$(mason_ms "$n" "$steps" "$world") "
  done
  for t in $threads; do
    for program in herd boids_grid; do
      m=$(median <<<"${times["$program $t"]}")
      line="| $n | $steps | $program | $t | $m | $(awk -v m="$m" 'BEGIN { printf "%.1f", 1000 / m }') | ${times["$program $t"]}|"
      table+=$'\n'"$line"
      echo "$line"
    done
  done
  if [ -n "${MASON_RUN:-}" ]; then
    m=$(median <<<"${times["MASON 1"]}")
    line="| $n | $steps | MASON Flocking (radius 40) | 1 | $m | $(awk -v m="$m" 'BEGIN { printf "%.1f", 1000 / m }') | ${times["MASON 1"]}|"
    table+=$'\n'"$line"
    echo "$line"
  fi
  unset times
done
if [ -n "$out" ]; then
  {
    echo "# herd's boids against the peers"
    echo
    echo "\`bench/boids-peers.sh --sizes \"$sizes\" --rounds $rounds --threads \"$threads\"\`$([ -n "${MASON_RUN:-}" ] && echo " with MASON_RUN set"), $(date -u '+%Y-%m-%d %H:%M UTC'), herd at $(git -C "$root" rev-parse --short HEAD)."
    echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores online."
    echo
    echo "$table"
  } >"$out"
  echo "wrote $out"
fi
