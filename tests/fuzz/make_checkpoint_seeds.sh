#!/usr/bin/env bash
# Writes the seeds of fuzz_checkpoint, tests/fuzz/seeds-checkpoint/*.ckpt: small real
# checkpoints (about 5 KB each, a few models and steering strategies; none with walls, water,
# pens or bridges, which fuzz_checkpoint does not resume) made by the herd of this tree, built in build-fuzz like the fuzz
# targets (scripts/fuzz.sh configures it). Run it again when the checkpoint format changes:
# scripts/fuzz.sh refuses seeds that no longer resume.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build="$root/build-fuzz"
[ -f "$build/CMakeCache.txt" ] || CC=${CLANG:-clang} cmake -S "$root/tests/fuzz" -B "$build" >/dev/null
cmake --build "$build" --target herd_cli -j"$(nproc)" >/dev/null
herd="$build/herd/herd"
out="$root/tests/fuzz/seeds-checkpoint"
mkdir -p "$out"
rm -f "$out"/*.ckpt

seed() { # NAME SCENARIO STEPS SETS...
  local name=$1 scenario=$2 steps=$3
  shift 3
  local sets=()
  for s in "$@"; do sets+=(--set "$s"); done
  "$herd" run ${scenario:+"$root/scenarios/$scenario"} -q -s "$steps" --backend cpu --threads 1 \
    "${sets[@]}" --checkpoint "$out/$name.ckpt"
}
# The default scenario (Strömbom's, one dog), at its step limit.
seed strombom-20 "" 5 sheep.count=20 sheep.neighbours=10
# Lien et al.'s shepherds: several steering agents, the flock's groups observed.
seed lien-empty-20 lien-empty.json 5 sheep.count=20 sheep.neighbours=10
# Couzin's zones on a torus; NetLogo's flocking with enemies; a guiding path.
seed couzin-torus-12 couzin-torus.json 3 couzin.count=12
seed netlogo-enemies-12 netlogo-enemies.json 3 netlogo.count=12
seed path2d-12 path2d.json 3 boids.count=12
# Boids in 3D: four floats per agent.
seed boids3d-16 boids3d.json 3 boids.count=16
# Fish and a shark: a steering agent of another strategy.
seed fish-shark-12 fish-shark.json 3 fish.count=12
ls -l "$out"
