#!/usr/bin/env bash
# Benchmark (not a test): the CPU backend on the "all active" workload, where the dog's
# radius r_s covers everything so every sheep does the full n = 50 update every step.
# Sheep start uniformly at one per 4 m^2 (2 m apart on average, r_a = 2 m), so the work per
# sheep is the same at every N. The target is out of reach, so runs last --steps steps.
#
# usage: bench/cpu.sh [OUT.csv]     (default: bench/results/cpu-2core-all-active.csv)
# Prints a table; writes one CSV row per (N, threads).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/bench/results/cpu-2core-all-active.csv}
"$root/scripts/deps.sh"
"$root/scripts/build.sh" "$root/build" -DCMAKE_BUILD_TYPE=Release
herd=$root/build/herd

# N and the number of steps timed (about 3 s each on 2 threads here).
sizes=(1000:3000 10000:300 50000:60 100000:30 1000000:6)

mkdir -p "$(dirname "$out")"
echo "n,threads,steps,wall_s,ms_per_step,steps_per_s,agent_steps_per_s,peak_mib,peak_bytes_per_sheep,array_bytes_per_sheep" >"$out"
printf "%9s %7s %6s %9s %11s %10s %16s %10s %12s\n" N threads steps wall_s ms/step steps/s agent-steps/s peak_MiB bytes/sheep
for entry in "${sizes[@]}"; do
  n=${entry%%:*} steps=${entry##*:}
  field=$(awk -v n="$n" 'BEGIN { printf "%.3f", 3 * sqrt(4 * n) }') # spawn square = field/3
  for threads in 1 2; do
    summary=$("$herd" run "$root/bench/all-active.json" --quiet --threads "$threads" --steps "$steps" \
      --set sheep.count="$n" --set field.size_m="$field")
    wall=$(sed -n 's/^wall time: \([0-9.]*\) s$/\1/p' <<<"$summary")
    done_steps=$(sed -n 's/^steps: \([0-9]*\) .*/\1/p' <<<"$summary")
    read -r peak per_sheep arrays < <(sed -n \
      's/^memory: \([0-9.]*\) MiB peak (\([0-9.]*\) bytes per sheep); agent and grid arrays \([0-9.]*\) bytes per sheep$/\1 \2 \3/p' \
      <<<"$summary")
    awk -v n="$n" -v t="$threads" -v s="$done_steps" -v w="$wall" -v p="$peak" -v b="$per_sheep" -v a="$arrays" -v out="$out" 'BEGIN {
      printf "%9d %7d %6d %9.3f %11.2f %10.1f %16.3g %10.1f %12.1f\n", n, t, s, w, 1000 * w / s, s / w, n * s / w, p, b
      printf "%d,%d,%d,%.4f,%.4f,%.3f,%.6g,%.1f,%.1f,%.1f\n", n, t, s, w, 1000 * w / s, s / w, n * s / w, p, b, a >> out
    }'
  done
done
echo "wrote $out"
