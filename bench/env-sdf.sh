#!/usr/bin/env bash
# What walls, water and a pen (the signed-distance field, docs/models/env.md) cost a run:
# 10^5 Strömbom sheep in bench/env-sdf.json against the very same scenario with its geometry
# lists emptied (the open field), everything else equal, A/B in turn (bench/env_cost.c: CPU
# time of the step loop on one thread; the bake at load is not in it). Two workloads: grazing
# (the dog far away: each sheep moves with p = 0.05) and fleeing (r_s = 10^6 m: every sheep
# reacts to the dog and moves every step). Results: bench/results/env-sdf.md.
#
#   bench/env-sdf.sh BUILD_DIR [ROUNDS] [GRAZE_STEPS] [FLEE_STEPS]
#   (BUILD_DIR: a Release build with the env_cost target built)
set -euo pipefail
build=${1:?usage: bench/env-sdf.sh BUILD_DIR [rounds] [graze_steps] [flee_steps]}
rounds=${2:-7} graze_steps=${3:-300} flee_steps=${4:-15}
root=$(cd "$(dirname "$0")/.." && pwd)
echo "## grazing: $graze_steps steps a run"
"$build/env_cost" "$root/bench/env-sdf.json" "$rounds" "$graze_steps"
echo "## fleeing: $flee_steps steps a run (sheep.dog_radius_m=1e6)"
"$build/env_cost" "$root/bench/env-sdf.json" "$rounds" "$flee_steps" --set sheep.dog_radius_m=1e6
