#!/usr/bin/env bash
# The device benchmark, prepared to run once on a GPU machine (bench/results/README.md):
# builds Release, then measures the OpenCL backend on the first GPU (or $HERD_CL_DEVICE):
#   1. all-active, N = 10^3 ... 10^6: time per step (target: 10^6 in <= 1 ms)
#   2. herding, N = 10^4 with the dog and the per-step observation read-back (target:
#      >= 20,000 steps/s)
#   3. the per-stage profile at N = 10^6, with kernels and host waits per step (also for 2.);
#      with the Strömbom pre-pass off (HERD_CL_COOP=0) and at 8 and 32 lanes per sheep, and
#      herding 10^4 without it
#   4. the native CPU backend on all cores at 10^5 and 10^6, for comparison
#   5. the viewer's frames/s (under Xvfb, when it is installed)
#   6. herd bench (tables, plots, the scaling exponent) for the GPU and all CPU cores
#   7. boids: 3D at 10^6 on the GPU (goal: <= 0.2 ms/step), 2D and 3D herd bench --model boids
#   8. sweeps of small worlds: 400 runs of N = 100 herding as batches of 64 and of 400 worlds on
#      the GPU, one world at a time on it (40 runs), and side by side on all CPU cores
# Prints tables and writes CSV and text into $OUT (the device tool's folder) or, without it,
# bench/results/gpu/. Takes a few minutes; nothing here installs packages (the GPU machine
# has no network): it needs cmake, gcc, pkg-config, libjansson-dev and the OpenCL headers
# and ICD loader already present.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/bench/results/gpu}
sizes=${GPU_BENCH_SIZES:-"1000:2000 10000:2000 100000:500 1000000:200"}
herding_steps=${GPU_BENCH_HERDING_STEPS:-20000}
profile_steps=${GPU_BENCH_PROFILE_STEPS:-100}
mkdir -p "$out"
exec > >(tee "$out/gpu-bench.txt") 2>&1

echo "== machine"
date -u
uname -srm
lscpu | grep -E "Model name|^CPU\(s\)" || true
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || true

echo "== build"
"$root/scripts/build.sh" "$root/build" -DCMAKE_BUILD_TYPE=Release
herd=$root/build/herd
export POCL_CACHE_DIR=${POCL_CACHE_DIR:-$root/build/pocl-cache}
"$herd" devices | tee "$out/devices.txt"
device=${HERD_CL_DEVICE:-}
if [ -z "$device" ]; then
  device=$(awk '/^  \[[0-9]+\]/ { idx = substr($1, 2, length($1) - 2) } /type GPU/ { print idx; exit }' "$out/devices.txt")
fi
[ -n "$device" ] || { echo "no GPU among the OpenCL devices; set HERD_CL_DEVICE to choose one"; exit 1; }
echo "device: $device"

echo "== 1. all-active (OpenCL)"
"$root/bench/all-active.sh" --no-build --backends opencl --device "$device" --sizes "$sizes" \
  --out "$out/all-active-gpu.csv"

echo "== 2. herding, N = 10^4, dog + per-step observation read-back"
"$herd" run --backend opencl --device "$device" --set sheep.count=10000 --steps "$herding_steps" |
  tee "$out/herding-1e4.txt"
# The same with --profile (events on every command slow it): kernels and host waits per step.
"$herd" run --backend opencl --device "$device" --set sheep.count=10000 --steps 2000 --profile |
  sed -n '/^stage/,$p' | tee "$out/herding-1e4-profile.txt"

echo "== 3. per-stage profile, all-active N = 10^6"
"$herd" run "$root/bench/all-active.json" --backend opencl --device "$device" --steps "$profile_steps" --profile \
  --set sheep.count=1000000 --set field.size_m=6000 | tee "$out/profile-1e6.txt"
echo "   the same and herding 10^4 with the step kernel's own search (HERD_CL_COOP=0: no pre-pass)"
HERD_CL_COOP=0 "$herd" run "$root/bench/all-active.json" --backend opencl --device "$device" \
  --steps "$profile_steps" --profile --set sheep.count=1000000 --set field.size_m=6000 | tee "$out/profile-1e6-plain.txt"
HERD_CL_COOP=0 "$herd" run --backend opencl --device "$device" --set sheep.count=10000 --steps "$herding_steps" \
  | tee "$out/herding-1e4-plain.txt"
for lanes in 8 32; do
  echo "   the pre-pass with $lanes lanes per sheep (HERD_COOP_LANES; 16 by default)"
  HERD_COOP_LANES=$lanes "$herd" run "$root/bench/all-active.json" --backend opencl --device "$device" \
    --steps "$profile_steps" --profile --set sheep.count=1000000 --set field.size_m=6000 |
    tee "$out/profile-1e6-lanes$lanes.txt"
done

echo "== 4. native CPU backend, all cores"
"$root/bench/all-active.sh" --no-build --backends cpu --threads "$(nproc)" --sizes "100000:20 1000000:4" \
  --out "$out/all-active-cpu.csv"
echo "== 6. herd bench: the CPU backend on all cores and the GPU, 10^3 to 10^6"
"$herd" bench --backends "cpu,opencl:$device" --threads "$(nproc)" --budget 240 --out "$out/herd-bench" ||
  echo "herd bench failed"

echo "== 7. boids 3D, N = 10^6, 20 neighbours within the visual range at the start (goal <= 0.2 ms/step)"
"$herd" run --backend opencl --device "$device" --steps "$profile_steps" --profile --set model=boids \
  --set boids.count=1000000 --set "world.size_m=[2375,2375,2375]" --set "world.wrap=[true,true,true]" |
  tee "$out/boids3d-1e6.txt"
for dims in 2 3; do
  "$herd" bench --model boids --dims "$dims" --backends "cpu,opencl:$device" --threads "$(nproc)" --budget 120 \
    --out "$out/herd-bench-boids${dims}d" || echo "herd bench --model boids --dims $dims failed"
done

echo "== 8. sweeps: 400 runs of N = 100 (n = 54, 59 x seeds 1-200), batched on the GPU and side by side on the CPU"
sweep_time() { # NAME SEEDS OPTIONS...: the wall time herd sweep reports
  local name=$1 seeds=$2
  shift 2
  "$herd" sweep --vary sheep.neighbours=54,59 --seeds "$seeds" --force --out "$out/sweep-$name" "$@" |
    sed -n "s/^done: /$name: /p"
}
{
  sweep_time gpu-batch64 1-200 --backend opencl --device "$device" --batch 64
  sweep_time gpu-batch400 1-200 --backend opencl --device "$device" --batch 400
  sweep_time gpu-one-at-a-time 1-20 --backend opencl --device "$device" --batch 1
  sweep_time cpu-side-by-side 1-200 --threads "$(nproc)"
} | tee "$out/sweeps.txt"

echo "== 5. viewer frames/s, one step per frame (under Xvfb GL is Mesa's: the copy path)"
if command -v xvfb-run >/dev/null || [ -n "${DISPLAY:-}" ]; then
  "$root/bench/fps.sh" --no-build --backends opencl --sizes "10000:600 100000:200 1000000:40" \
    --out "$out/fps-gpu.csv" || echo "viewer benchmark failed"
else
  echo "no display and no xvfb-run: skipped"
fi
echo "results in $out"
