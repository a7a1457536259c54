#!/usr/bin/env bash
# Benchmark (not a test): frames per second of herd view with one simulation step per frame,
# for N = 10^3 ... 10^6, per backend and buffer path. The workload is the all-active flock
# of bench/all-active.sh (every sheep does the full update every frame), drawn in a
# 1280x800 window. Without a display it runs under xvfb-run (Mesa llvmpipe).
#
# usage: bench/fps.sh [--backends "cpu opencl"] [--sizes "1000:300 ..."] [--out FILE.csv]
#                     [--extra "--no-share"] [--no-build]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
backends="cpu opencl" sizes="1000:300 10000:120 100000:20 1000000:4" out="$root/bench/results/fps.csv"
extra="" build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --backends) backends=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --extra) extra=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    *) echo "fps.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
source "$root/bench/lib.sh"

mkdir -p "$(dirname "$out")"
echo "backend,n,frames,seconds,frames_per_s,path" >"$out"
printf "%-8s %9s %7s %9s %11s  %s\n" backend N frames seconds frames/s path
for entry in $sizes; do
  n=${entry%%:*} frames=${entry##*:}
  field=$(awk -v n="$n" 'BEGIN { printf "%.3f", 3 * sqrt(4 * n) }')
  for backend in $backends; do
    # shellcheck disable=SC2086
    line=$("${wrap[@]}" "$herd" view "$root/bench/all-active.json" --backend "$backend" --frames "$frames" \
      --size 1280x800 --set sheep.count="$n" --set field.size_m="$field" $extra | grep '^frames:')
    awk -v backend="$backend" -v n="$n" -v out="$out" '{
      path = $0; sub(/^.*sheep, /, "", path); sub(/\)$/, "", path)
      printf "%-8s %9d %7d %9.3f %11.1f  %s\n", backend, n, $2, $4, $6, path
      printf "%s,%d,%d,%.4f,%.2f,\"%s\"\n", backend, n, $2, $4, $6, path >> out
    }' <<<"$line"
  done
done
echo "wrote $out"
