#!/usr/bin/env bash
# What walls, water and a pen (the signed-distance field, docs/models/env.md) cost a run:
# 10^5 Strömbom sheep in bench/env-sdf.json against the very same scenario with its geometry
# lists emptied (the open field), everything else equal. The two runs of each round go one after
# the other, their order alternating round by round, so that a busy machine weighs on both;
# each prints herd's own step-loop wall time (the bake at load is not in it). Two workloads:
# grazing (the dog far away: each sheep moves with p = 0.05) and fleeing (r_s = 10^6 m: every
# sheep reacts to the dog and moves every step). Prints one row per run and the ratios.
#
#   bench/env-sdf.sh HERD [ROUNDS] [GRAZE_STEPS] [FLEE_STEPS] [THREADS]
set -euo pipefail
herd=${1:?usage: bench/env-sdf.sh path/to/herd [rounds] [graze_steps] [flee_steps] [threads]}
rounds=${2:-5} graze_steps=${3:-400} flee_steps=${4:-20} threads=${5:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
scenario="$root/bench/env-sdf.json"
open=(--set 'obstacles.walls=[]' --set 'obstacles.water=[]' --set 'obstacles.pens=[]')

# One run: prints its step-loop wall time in seconds.
one() {
  local steps=$1
  shift
  "$herd" run "$scenario" --backend cpu --threads "$threads" --steps "$steps" --quiet "$@" |
    awk '/^wall time:/ { print $3 }'
}

echo "workload,round,field,steps,wall_s"
for workload in graze flee; do
  if [ "$workload" = graze ]; then steps=$graze_steps extra=(); else steps=$flee_steps extra=(--set sheep.dog_radius_m=1e6); fi
  for round in $(seq 1 "$rounds"); do
    if [ $((round % 2)) -eq 1 ]; then order="env open"; else order="open env"; fi
    for field in $order; do
      if [ "$field" = env ]; then t=$(one "$steps" "${extra[@]}"); else t=$(one "$steps" "${extra[@]}" "${open[@]}"); fi
      echo "$workload,$round,$field,$steps,$t"
    done
  done
done | tee /dev/stderr | awk -F, '
  $1 != "workload" { t[$1 "," $2 "," $3] = $5; w[$1] = 1; if ($2 > n) n = $2 }
  END {
    for (k in w) {
      m = 0
      for (r = 1; r <= n; ++r) { q[++m] = t[k "," r ",env"] / t[k "," r ",open"]; printf "%s round %d: env/open %.3f\n", k, r, q[m] }
      for (i = 1; i <= m; ++i) for (j = i + 1; j <= m; ++j) if (q[j] < q[i]) { x = q[i]; q[i] = q[j]; q[j] = x }
      printf "%s: median env/open %.3f (min %.3f, max %.3f over %d rounds)\n", k, q[int((m + 1) / 2)], q[1], q[m], m
    }
  }'
