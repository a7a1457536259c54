#!/usr/bin/env bash
# Soak (not a test): long runs that must stay finite and deterministic.
#
#   default   the default scenario (100 sheep, one dog) with the target out of reach, so the
#             dog drives the flock for the whole run (it ends about 10^6 m from the origin:
#             also a test of precision far from the origin)
#   active    an all-active flock of 10^4 (r_s covers everything, n = 50, one sheep per 4 m^2)
#
# Each runs twice on each backend: the native backend on 1 and on 2 threads (the runs must be
# bit-identical whatever the thread count), OpenCL twice on the same device. Every step's
# observation goes to the CSV (streamed, not stored), which is checked for NaN and inf and
# hashed; the two hashes of a pair must be equal.
#
# usage: bench/soak.sh [--steps-default N] [--steps-active N] [--backends "cpu opencl"]
#                      [--out FILE.md] [--no-build]
#   defaults: 10^6 steps for default, 10^6 for active (hours on 2 cores: see the report for
#   what was run). Writes a Markdown report (default bench/results/soak.md). Exit 1 when a
#   check fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
steps_default=1000000 steps_active=1000000 backends="cpu opencl" build=1
out="$root/bench/results/soak.md"
while [ $# -gt 0 ]; do
  case "$1" in
    --steps-default) steps_default=$2; shift 2 ;;
    --steps-active) steps_active=$2; shift 2 ;;
    --backends) backends=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    *) echo "soak.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
source "$root/bench/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A soak takes hours: run a copy of the program, and name the commit it was built from.
commit=$(git -C "$root" rev-parse --short HEAD)
git -C "$root" diff --quiet HEAD -- src kernels include || commit="$commit + uncommitted changes"
cp "$herd" "$tmp/herd"
herd=$tmp/herd
far='target.position_m=[-1e7,-1e7]'
declare -A sets=(
  [default]="--set $far"
  [active]="--set sheep.count=10000 --set field.size_m=600 --set sheep.dog_radius_m=1e9 --set $far"
)
declare -A steps=([default]=$steps_default [active]=$steps_active)
failed=0
rows=()

# run NAME BACKEND THREADS: one run; prints "hash bad_values rows seconds" for it.
run() {
  local name=$1 backend=$2 t=$3 start end
  # shellcheck disable=SC2206
  local args=(run --quiet --backend "$backend" --steps "${steps[$name]}" ${sets[$name]} --csv -)
  [ "$backend" = cpu ] && args+=(--threads "$t")
  start=$(date +%s.%N)
  # The hash skips the provenance comments (the command line and date differ between runs).
  "$herd" "${args[@]}" 2>"$tmp/err" | tee >(grep -v "^#" | sha256sum | cut -c1-16 >"$tmp/hash") |
    awk -F, 'NR > 1 && /^[0-9]/ { n++; if (tolower($0) ~ /nan|inf/) bad++ } END { print bad + 0, n + 0 }' >"$tmp/check"
  local rc=${PIPESTATUS[0]}
  end=$(date +%s.%N)
  if [ "$rc" -ne 0 ]; then echo "soak.sh: herd exited $rc: $(head -c 300 "$tmp/err")" >&2; fi
  sleep 0.1 # the hash is written by a process substitution
  echo "$(cat "$tmp/hash") $(cat "$tmp/check") $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", b - a }')"
}

for name in default active; do
  for backend in $backends; do
    if [ "$backend" = cpu ]; then pair=(1 2); else pair=(- -); fi
    read -r h1 bad1 n1 s1 <<<"$(run "$name" "$backend" "${pair[0]}")"
    read -r h2 bad2 n2 s2 <<<"$(run "$name" "$backend" "${pair[1]}")"
    want=$((${steps[$name]} + 1))
    verdict=ok
    [ "$h1" = "$h2" ] || verdict="runs differ"
    [ "$bad1" -eq 0 ] && [ "$bad2" -eq 0 ] || verdict="NaN or inf in $bad1 + $bad2 rows"
    [ "$n1" -eq "$want" ] && [ "$n2" -eq "$want" ] || verdict="rows $n1, $n2 (want $want)"
    [ "$verdict" = ok ] || failed=1
    label=$backend
    [ "$backend" = cpu ] && label="cpu, 1 vs 2 threads"
    rows+=("| $name | $label | ${steps[$name]} | $s1 s, $s2 s | \`$h1\` | \`$h2\` | $((bad1 + bad2)) | $verdict |")
    echo "$name $label: ${steps[$name]} steps, $s1 s and $s2 s, hashes $h1 $h2, $verdict"
  done
done

{
  echo "# Soak"
  echo
  echo "\`bench/soak.sh --steps-default $steps_default --steps-active $steps_active --backends \"$backends\"\`"
  echo "at commit \`$commit\`, finished $(date -u '+%Y-%m-%d %H:%M UTC'), on"
  echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') ($(nproc) cores)."
  echo
  echo "Every step's observation (centroid, extent, farthest sheep, the dog) is written as CSV,"
  echo "checked for NaN and inf, and hashed (SHA-256, first 16 hex digits); a pair of runs must"
  echo "hash alike: the native backend on 1 and 2 threads, OpenCL twice on the same device."
  echo
  echo "| workload | backend | steps | wall time | hash, run 1 | hash, run 2 | NaN/inf rows | verdict |"
  echo "|---|---|---:|---:|---|---|---:|---|"
  printf '%s\n' "${rows[@]}"
} >"$out.part"
mv "$out.part" "$out"
echo "wrote $out"
exit "$failed"
