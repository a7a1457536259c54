#!/usr/bin/env bash
# Kernels per step, host waits per step and ms per stage of the OpenCL step, for two herd
# binaries side by side (issue 15 items 2 and 6): all-active at N = 10^4, 10^5, 10^6 (field as
# bench/all-active.sh sizes it), runs interleaved A B A B ... on a shared host.
#   bench/opencl-launches.sh BEFORE_HERD AFTER_HERD [ROUNDS]
# Prints each run's --profile table; the figures in bench/results/opencl-launches.md come
# from it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
before=$1 after=$2 rounds=${3:-2}
export POCL_CACHE_DIR=${POCL_CACHE_DIR:-$root/build/pocl-cache}
for spec in ${SIZES:-"10000:20 100000:4 1000000:2"}; do
  n=${spec%%:*} steps=${spec##*:}
  field=$(awk -v n="$n" 'BEGIN { printf "%.3f", 3 * sqrt(4 * n) }')
  for r in $(seq "$rounds"); do
    for which in before after; do
      herd=$before
      [ "$which" = after ] && herd=$after
      echo "== N=$n steps=$steps round=$r $which"
      "$herd" run "$root/bench/all-active.json" --backend opencl --quiet --steps "$steps" --profile \
        --set sheep.count="$n" --set field.size_m="$field" | sed -n '/^stage/,$p'
    done
  done
done
