#!/usr/bin/env bash
# Benchmark (not a test): herd's CPU backend against plain C loops of the same model, one
# thread, whole-process CPU time, the two programs in turn A B A B (farm-bench, the tool of the
# development machine; any A B A B timer does), same world, density and step count:
#   boids 2D   bench/peers/boids_grid.c (ours, untuned, double) and boids_plain.c (independent,
#              tuned), at 200 and at 20 neighbours within the visual range;
#   NetLogo    bench/peers/netlogo_plain.c, herd's default density of its scenario;
#   Couzin 3D  bench/peers/couzin_plain.c, open world, herd's scenario density;
#   Strömbom   bench/peers/strombom_plain.c, all-active (bench/all-active.json: k = 50 nearest).
# Each tuned peer is built twice: as written (its `#pragma GCC optimize("associative-math",
# ...)` lets GCC reorder and vectorise its float sums) and "strict" (the pragma deleted: IEEE
# order, as herd keeps it so that every thread count and backend gives the same bits).
# usage: bench/peers-cpu.sh [HERD [ROUNDS]]   (HERD: default build/herd)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
herd=${1:-$root/build/herd} rounds=${2:-3}
peers=$root/build/peers
mkdir -p "$peers"
cc=${CC:-gcc}
"$cc" -O3 -std=c11 -o "$peers/boids_grid" "$root/bench/peers/boids_grid.c" -lm
"$cc" -O3 -march=native -std=c11 -o "$peers/strombom_plain" "$root/bench/peers/strombom_plain.c" -lm # IEEE order as written
for p in boids netlogo couzin; do
  "$cc" -O3 -march=native -std=c11 -o "$peers/${p}_plain" "$root/bench/peers/${p}_plain.c" -lm
  sed '/#pragma GCC optimize/d' "$root/bench/peers/${p}_plain.c" >"$peers/${p}_strict.c"
  "$cc" -O3 -march=native -std=c11 -o "$peers/${p}_strict" "$peers/${p}_strict.c" -lm
done
pair() { # label, herd's options, the peer's command line
  echo "== $1"
  echo "A: herd run -q --threads 1 $2"
  echo "B: $3"
  # shellcheck disable=SC2086 # the options are words
  farm-bench -n "$rounds" --timeout 900 --vs "$3" -- "$herd" run -q --threads 1 $2 2>&1 | grep -E "A cpu|B cpu|A/B cpu"
}
boids() { # N STEPS SIDE
  echo "--set model=boids --set boids.count=$1 --set world.size_m=[$3,$3] --set world.wrap=[true,true] --steps $2"
}
for case in "10000 300 501.3" "10000 300 1585.331" "100000 60 5013.256"; do
  read -r n steps side <<<"$case"
  for peer in boids_grid boids_plain boids_strict; do
    pair "boids $n, side $side m, vs $peer" "$(boids "$n" "$steps" "$side")" "$peers/$peer $n $steps $side"
  done
done
netlogo="--set model=netlogo --set netlogo.count=10000 --set world.size_m=[409.919,409.919] --set world.wrap=[true,true] --steps 300"
for peer in netlogo_plain netlogo_strict; do pair "netlogo 10000 vs $peer" "$netlogo" "$peers/$peer 10000 300 409.919"; done
couzin="--set model=couzin --set couzin.combine=unit_vectors --set couzin.count=10000 --set world.size_m=[92.832,92.832,92.832] --set world.wrap=[false,false,false] --steps 30"
for peer in couzin_plain couzin_strict; do pair "couzin 3D 10000 vs $peer" "$couzin" "$peers/$peer 10000 30 92.832"; done
for case in "10000 100 600.000" "100000 20 1897.367"; do
  read -r n steps side <<<"$case"
  pair "strombom all-active $n vs strombom_plain" "$root/bench/all-active.json --set sheep.count=$n --set field.size_m=$side --steps $steps" "$peers/strombom_plain $n $steps $side"
done
