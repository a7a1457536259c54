#!/usr/bin/env bash
# What finding the flock's groups (kernels/groups.h) costs a step: the default Strömbom scenario
# at 10^4 and 10^5 sheep ("default": spawned in its 50 m square, one dense group), and the same
# spread over a 3 km field ("scattered": 10^5 at 0.011 per m², some 20000 groups), with
# groups.observe never against always, A/B in turn (the order swapped every round), on each
# backend, from `herd run --profile` (its "all" row: the stages' time per step; "groups": the
# groups' own sort, kernels and reads). Prints one CSV row per run.
# Results: bench/results/groups-cost.md.
#
#   bench/groups-cost.sh BUILD_DIR [ROUNDS] [BACKENDS]   (BACKENDS: "cpu opencl" by default)
set -euo pipefail
build=${1:?usage: bench/groups-cost.sh BUILD_DIR [rounds] [backends]}
rounds=${2:-3} backends=${3:-cpu opencl}
export POCL_CACHE_DIR=${POCL_CACHE_DIR:-$build/pocl-cache}
# ms per step of a profile row: "stage total_ms ms_per_step share"
per_step() { awk -v stage="$1" '$1 == stage { print $3 }'; }
scattered=(--set field.size_m=3000 --set "sheep.spawn.from=[0,0]" --set "sheep.spawn.to=[1,1]")
echo "backend,workload,sheep,steps,round,groups.observe,all_ms_per_step,groups_ms_per_step,groups_found"
for backend in $backends; do
  for case in default:10000 default:100000 scattered:100000; do
    workload=${case%%:*} sheep=${case##*:}
    steps=$((sheep == 10000 ? 200 : 40))
    extra=()
    [ "$workload" = scattered ] && extra=("${scattered[@]}")
    for round in $(seq "$rounds"); do
      order="never always"
      [ $((round % 2)) -eq 0 ] && order="always never"
      for observe in $order; do
        out=$("$build/herd" run --profile --backend "$backend" --steps "$steps" \
          --set sheep.count=$sheep --set groups.observe=$observe "${extra[@]}")
        found=$(awk '/^groups: / { print $2 }' <<<"$out")
        echo "$backend,$workload,$sheep,$steps,$round,$observe,$(per_step all <<<"$out"),$(per_step groups <<<"$out"),${found:-}"
      done
    done
  done
done
