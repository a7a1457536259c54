#!/usr/bin/env bash
# Benchmark (not a test): the "all active" workload, where the dogs' radius r_s covers
# everything so every sheep does the full n = 50 update every step. Sheep start uniformly at
# one per 4 m^2 (2 m apart on average, r_a = 2 m), so the work per sheep is the same at every
# N. The target is out of reach, so each run lasts exactly its step count.
#
# usage: bench/all-active.sh [--backends "cpu opencl"] [--threads "1 2"] [--device D]
#                            [--sizes "1000:3000 10000:300 ..."] [--out FILE.csv] [--no-build]
#   --sizes   N:STEPS pairs (default: 1e3 to 1e6, about 3 s each on 2 cores)
#   --threads thread counts for the cpu backend (default "1 2"); OpenCL runs once per size
# Prints a table; writes one CSV row per run (default: bench/results/all-active.csv).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
backends="cpu opencl" threads="1 2" device="" out="$root/bench/results/all-active.csv" build=1
sizes="1000:3000 10000:300 50000:60 100000:30 1000000:6"
while [ $# -gt 0 ]; do
  case "$1" in
    --backends) backends=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --device) device=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    *) echo "all-active.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
source "$root/bench/lib.sh"

mkdir -p "$(dirname "$out")"
echo "backend,device,threads,n,steps,wall_s,ms_per_step,steps_per_s,agent_steps_per_s,peak_mib,peak_bytes_per_sheep,array_bytes_per_sheep" >"$out"
printf "%-8s %-34s %7s %9s %6s %10s %9s %14s %12s\n" backend device threads N steps ms/step steps/s agent-steps/s bytes/sheep

# one BACKEND THREADS N STEPS: runs once and prints/writes its row.
one() {
  local backend=$1 t=$2 n=$3 steps=$4 field
  field=$(awk -v n="$n" 'BEGIN { printf "%.3f", 3 * sqrt(4 * n) }') # the spawn square is field/3
  local args=(run "$root/bench/all-active.json" --backend "$backend" --steps "$steps"
    --set sheep.count="$n" --set field.size_m="$field")
  [ "$backend" = cpu ] && args+=(--threads "$t")
  [ "$backend" = opencl ] && [ -n "$device" ] && args+=(--device "$device")
  # The run's JSON summary (docs/schema/run-summary.schema.json), read by field name; the
  # text summary (standard error under --json) is shown only when the run fails.
  local err
  err=$(mktemp)
  if ! "$herd" "${args[@]}" --json 2>"$err" | /usr/bin/python3 -c '
import json, sys
backend, t, n, out = sys.argv[1:]
d = json.load(sys.stdin)
dev, steps, wall = d["provenance"]["backend"]["device"], d["steps"], d["wall_time_s"]
m = d["memory"]
print("%-8s %-34.34s %7s %9d %6d %10.2f %9.1f %14.3g %12.1f" % (backend, dev, t, int(n), steps, 1000 * wall / steps,
      steps / wall, int(n) * steps / wall, m["peak_rss_bytes_per_agent"]))
with open(out, "a") as f:
    f.write("%s,\"%s\",%s,%d,%d,%.4f,%.4f,%.3f,%.6g,%.1f,%.1f,%.1f\n" % (backend, dev, t, int(n), steps, wall,
            1000 * wall / steps, steps / wall, int(n) * steps / wall, m["peak_rss_mib"], m["peak_rss_bytes_per_agent"],
            m["agent_grid_bytes_per_agent"]))' "$backend" "$t" "$n" "$out"; then
    cat "$err" >&2
    rm -f "$err"
    exit 1
  fi
  rm -f "$err"
}

for entry in $sizes; do
  n=${entry%%:*} steps=${entry##*:}
  for backend in $backends; do
    if [ "$backend" = cpu ]; then
      for t in $threads; do one cpu "$t" "$n" "$steps"; done
    else
      one "$backend" - "$n" "$steps"
    fi
  done
done
echo "wrote $out"
