#!/usr/bin/env bash
# KIT/run: herd measured on this machine's GPU, from the kit bench/gpu-kit.sh made (this file
# is bench/gpu-kit-run.sh in the repository). Writes into $OUT (else KIT-results/) three files:
#   summary.md       the probe's line, then every step: what it ran, its figures, its time
#   kernels.md       for every step with --profile, its device time kernel by kernel (from
#                    HERD_CL_TRACE's "time" lines: docs/opencl.md, "What a step enqueues");
#                    and every kernel's registers, stack and spills as the driver compiled it
#                    (KIT/ptx: ptxas -v on the PTX it built)
#   results.tar.gz   every step's full output and trace
# First a probe (under 30 s) finds the vendor's OpenCL library wherever the driver put it,
# writes an ICD file of its own and points the ICD loader at it (OCL_ICD_VENDORS); then the
# measurements in order of value, each under its own timeout, the whole under 8 minutes.
#   HERD_KIT_DEVICE  nvidia (default: libnvidia-opencl.so.1) or pocl (libpocl.so.2: the
#                    self-test, bench/gpu-kit-selftest.sh, with PoCL standing in for the GPU)
#   HERD_KIT_QUICK   1: small flocks and few steps (the self-test)
#   HERD_KIT_LOADER  system or bundle: which glibc runs the binaries (default: the system's
#                    when it is as new as the kit's binaries need, else the kit's own)
#   HERD_KIT_BUDGET_S  the whole run's limit (default 460 s)
set -uo pipefail
kit=$(cd "$(dirname "$0")" && pwd)
kind=${HERD_KIT_DEVICE:-nvidia}
quick=${HERD_KIT_QUICK:-0}
budget=${HERD_KIT_BUDGET_S:-460}
out=${OUT:-$kit-results}
mkdir -p "$out" || { echo "run: cannot make $out" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/herd-kit-XXXXXX")
logs=$work/logs
mkdir -p "$logs"
summary=$work/summary.md
kernels=$work/kernels.md
started=$(date +%s)
export HOME=${HOME:-$work} POCL_CACHE_DIR=$work/pocl-cache HERD_CL_DEVICE=0
case "$kind" in
  nvidia) library=libnvidia-opencl.so.1 type=GPU ;;
  pocl) library=libpocl.so.2 type=CPU ;;
  *) echo "run: HERD_KIT_DEVICE must be nvidia or pocl, not $kind" >&2; exit 2 ;;
esac

note() { printf '%s\n' "$*" | tee -a "$summary"; }
elapsed() { echo $(($(date +%s) - started)); }

finish() {
  note ""
  note "Total: $(elapsed) s. Logs: results.tar.gz (logs/NN-step.txt)."
  tar -C "$work" -czf "$out/results.tar.gz.part" logs && mv "$out/results.tar.gz.part" "$out/results.tar.gz"
  cp "$summary" "$out/summary.md.part" && mv "$out/summary.md.part" "$out/summary.md"
  [ -e "$kernels" ] && cp "$kernels" "$out/kernels.md.part" && mv "$out/kernels.md.part" "$out/kernels.md"
  rm -rf "$work"
}

# ---- The probe --------------------------------------------------------------------------------

# Where a driver may have put its OpenCL library: the NVIDIA container mount, the usual
# folders, the loader's cache, the ICD files already there, then a bounded search.
find_library() {
  local d f
  for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu \
    /usr/lib64 /usr/lib /usr/local/cuda/lib64 /usr/local/cuda/compat /usr/lib/x86_64-linux-gnu/nvidia/current; do
    [ -e "$d/$library" ] && { echo "$d/$library"; return 0; }
  done
  f=$(ldconfig -p 2>/dev/null | awk -v n="$library" '$1 == n { print $NF; exit }')
  [ -n "$f" ] && [ -e "$f" ] && { echo "$f"; return 0; }
  for f in /etc/OpenCL/vendors/*.icd; do
    [ -e "$f" ] || continue
    d=$(head -n1 "$f")
    case "$d" in */"$library" | "$library") [ -e "$d" ] && { echo "$d"; return 0; } ;; esac
  done
  timeout 15 find / -xdev \( -path /proc -o -path /sys -o -path /dev \) -prune -o -name "$library" -print \
    2>/dev/null | head -n1
}

# The glibc the kit's binaries need against the machine's: the kit's own loader when older.
choose_loader() {
  local need have
  need=$(cat "$kit/lib/GLIBC_NEEDED")
  have=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{ print $2 }')
  loader=${HERD_KIT_LOADER:-}
  if [ -z "$loader" ]; then
    loader=system
    [ -z "$have" ] || [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -n1)" != "$need" ] && loader=bundle
  fi
  glibc_line="glibc ${have:-unknown} here, $need needed: the $loader's"
}

# Runs a kit binary (herd or test_opencl) with the chosen glibc.
kit_bin() {
  local bin=$kit/bin/$1
  shift
  if [ "$loader" = bundle ]; then
    "$kit/lib/glibc/ld-linux-x86-64.so.2" --library-path "$LD_LIBRARY_PATH:$kit/lib/glibc" "$bin" "$@"
  else
    "$bin" "$@"
  fi
}
herd() { kit_bin herd "$@"; }

probe() {
  local path
  path=$(find_library)
  if [ -z "$path" ]; then
    note "probe: missing: no $library on this machine (searched the driver's folders, ldconfig, /etc/OpenCL/vendors and /)"
    return 1
  fi
  mkdir -p "$work/vendors"
  echo "$path" >"$work/vendors/$kind.icd"
  export OCL_ICD_VENDORS=$work/vendors
  export LD_LIBRARY_PATH="$kit/lib:$(dirname "$path")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  choose_loader
  if [ "$loader" = system ] && command -v ldd >/dev/null && ! "$kit/check" "$kit" >"$logs/00-check.txt" 2>&1; then
    note "probe: missing: $(grep -m1 'needs' "$logs/00-check.txt")"
    return 1
  fi
  if ! timeout 20 "$SHELL_SELF" -c 'herd devices' >"$logs/01-devices.txt" 2>&1; then
    note "probe: missing: $library is at $path but herd sees no OpenCL device: $(tail -n1 "$logs/01-devices.txt")"
    return 1
  fi
  local device
  device=$(awk '/^  \[0\]/ { sub(/^  \[0\] /, ""); name = $0; next }
    name != "" { sub(/^ +/, ""); print name " (" $0 ")"; exit }' \
    "$logs/01-devices.txt")
  if ! grep -q "type $type" "$logs/01-devices.txt"; then
    note "probe: missing: the device found is not a $type: $device"
    return 1
  fi
  note "probe: device: $device, through $path; $glibc_line"
}

# ---- The steps --------------------------------------------------------------------------------

n_step=1
# step TITLE LIMIT_S FIGURES COMMAND...: runs COMMAND (a shell line, with herd and test_opencl
# defined) under LIMIT_S, its log in logs/NN-*.txt; FIGURES names the function that reads the
# log into one line of figures.
step() {
  local title=$1 limit=$2 figures=$3 line=$4
  n_step=$((n_step + 1))
  local id log t0 rc left
  id=$(printf '%02d' "$n_step")
  log=$logs/$id-$(echo "$title" | tr -cs 'A-Za-z0-9' '-' | sed 's/-$//').txt
  left=$((budget - $(elapsed)))
  if [ "$left" -lt 5 ]; then
    note "| $id | $title | not run: the run's $budget s were spent | 0 | skipped |"
    return
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  local trace=
  case "$line" in *--profile*) trace=${log%.txt}.trace ;; esac
  t0=$(date +%s)
  echo "\$ $line" >"$log"
  HERD_CL_TRACE=$trace timeout --kill-after=5 "$limit" "$SHELL_SELF" -c "$line" >>"$log" 2>&1
  rc=$?
  [ -s "$trace" ] && kernel_table "$id $title" "$trace" >>"$kernels"
  local status=ok
  [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && status="timed out after $limit s"
  [ "$status" = ok ] && [ "$rc" -ne 0 ] && status="failed (exit $rc): $(tail -n1 "$log" | cut -c1-120)"
  note "| $id | $title | $("$figures" "$log") | $(($(date +%s) - t0)) | $status |"
}

# Figures of a herd run's summary: ms per step and steps/s, then --profile's stages.
run_figures() {
  awk '
    /^speed:/ { sps = $2 }
    /^result:/ { sub(/^result: /, ""); result = $0 }
    /^stage/ { prof = 1; next }
    prof && NF == 4 && $1 != "all" && $3 + 0 > 0 { stages = stages sprintf("%s %.4f, ", $1, $3) }
    prof && $1 == "all" { all = $3 }
    /^kernels per step/ { gsub(/,/, ""); kernels = $4; waits = $9 }
    END {
      if (sps == "") { printf "no figure"; exit }
      printf "%.4f ms/step (%s steps/s)", 1000 / sps, sps
      if (all != "") printf "; profile ms/step: %sall %s; %s kernels, %s host waits per step", stages, all, kernels, waits
    }' "$1"
}
# A step's device time kernel by kernel, from its trace's "time NAME NS" lines, largest first.
kernel_table() { # TITLE TRACE
  printf '\n## %s\n\n' "$1"
  awk '$1 == "step" { steps++ } $1 == "time" { t[$2] += $3; n[$2]++; total += $3 }
    END {
      if (steps == 0 || total == 0) { print "no timed command"; exit }
      printf "%d steps, %.2f us of device time a step (the first step included)\n\n", steps, total / 1000 / steps
      print "| kernel | us per step | launches per step | us per launch | share |"
      print "|---|---:|---:|---:|---:|"
      fflush()
      sort = "sort -t \"|\" -k3,3 -gr"
      for (k in t)
        printf "| %s | %.2f | %.2f | %.2f | %.1f %% |\n", k, t[k] / 1000 / steps, n[k] / steps,
          t[k] / 1000 / n[k], 100 * t[k] / total | sort
      close(sort)
    }' "$2"
}
# The programs as the device's compiler built them (HERD_CL_DUMP_BINARIES), kernel by kernel
# (KIT/ptx: ptxas -v where they are PTX), into the log and kernels.md.
driver_table() { # DIR...
  local table=$work/driver-table.md rc
  python3 "$kit/ptx" "$@" >"$table"
  rc=$?
  cat "$table"
  { printf '\n## The kernels as the driver compiled them (ptxas -v on its PTX)\n\n'; cat "$table"; } >>"$kernels"
  return $rc
}
driver_figures() { grep -m1 -E '^(ptxas: |no )' "$1" | cut -c1-80 | tr '\n' ';'; grep -m1 -E '^[0-9]+ kernels' "$1" || echo "no figure"; }
herded_figures() { grep -m1 '^result:' "$1" | sed 's/^result: //' || echo "no figure"; }
test_figures() { grep -m1 -E '^[0-9]+ passed, [0-9]+ failed' "$1" || echo "no figure"; }
sweep_figures() { grep -m1 '^done:' "$1" | sed 's/^done: //; s/; .*//' || echo "no figure"; }
devices_figures() { awk '/^  \[/ { sub(/^  /, ""); printf "%s; ", $0 }' "$1"; }

# All-active Strömbom (every sheep takes its k = 50 nearest) at density fixed as bench/all-active.sh has it.
field_for() { awk -v n="$1" 'BEGIN { printf "%.3f", 3 * sqrt(4 * n) }'; }
all_active() { # N STEPS [herd run options...]
  local n=$1 steps=$2
  shift 2
  echo "herd run bench/all-active.json --backend opencl -s $steps --set sheep.count=$n --set field.size_m=$(field_for "$n") $*"
}
# Boids at about 20 neighbours within the visual range at the start (the world bench/gpu.sh used: 2375 m a side at 10^6 in 3D).
boids() { # DIMS N STEPS [options...]
  local dims=$1 n=$2 steps=$3 side
  shift 3
  if [ "$dims" = 3 ]; then
    side=$(awk -v n="$n" 'BEGIN { printf "%.0f", 2375 * (n / 1e6) ^ (1 / 3) }')
    echo "herd run --backend opencl -s $steps --set model=boids --set boids.count=$n --set 'world.size_m=[$side,$side,$side]' --set 'world.wrap=[true,true,true]' $*"
  else
    side=$(awk -v n="$n" 'BEGIN { printf "%.0f", 25000 * (n / 1e6) ^ (1 / 2) }')
    echo "herd run --backend opencl -s $steps --set model=boids --set boids.count=$n --set 'world.size_m=[$side,$side]' --set 'world.wrap=[true,true]' $*"
  fi
}

# ---- Main -------------------------------------------------------------------------------------

export -f herd kit_bin driver_table
export kit loader work kernels
SHELL_SELF=$(command -v bash)
export SHELL_SELF
test_opencl() { kit_bin test_opencl "$@"; }
export -f test_opencl
cd "$kit" || exit 2 # the scenarios are found from here

note "# herd on $(uname -n): the device kit's measurements"
note ""
note "$(date -u '+%Y-%m-%d %H:%M UTC'); kit made from commit $(cat "$kit/COMMIT" 2>/dev/null || echo '?'); HERD_KIT_DEVICE=$kind, quick=$quick"
probe_ok=1
probe || probe_ok=0
export LD_LIBRARY_PATH OCL_ICD_VENDORS loader
if [ "$probe_ok" -eq 0 ]; then
  finish
  exit 1
fi
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm \
  --format=csv,noheader >"$logs/01-nvidia-smi.txt" 2>&1 && note "nvidia-smi: $(cat "$logs/01-nvidia-smi.txt")"
note ""
note "| # | step | figures | s | status |"
note "|---|---|---|---:|---|"

test_agents=6000 # test_opencl's own flock
if [ "$quick" = 1 ]; then
  test_agents=300
  s_small="1000 3" s_mid="4000 2" s_big="" s_huge="" b_mid="2000 2" b_big="" herd_n=500 herd_steps=200 sweep_seeds=1-4
else
  s_small="10000 200" s_mid="100000 100" s_big="1000000 30" s_huge="10000000 5" b_mid="100000 100" b_big="1000000 30"
  herd_n=10000 herd_steps=20000 sweep_seeds=1-200
fi

step "devices" 20 devices_figures "herd devices"
step "correctness: the default scenario herded" 120 herded_figures "herd run --backend opencl"
step "correctness: every model's step against the CPU backend; two runs bit-identical (test_opencl)" 150 \
  test_figures "HERD_TEST_OPENCL_AGENTS=$test_agents HERD_TEST_ONLY=every_model_steps_as_the_cpu_backend,one_step_matches_the_cpu_backend,reductions_match_the_cpu_backend,two_runs_are_bit_identical,coop_neighbour_sums_equal_the_cpu_bit_for_bit test_opencl"
step "the driver's compile: registers, stack and spills per kernel (ptxas -v on its PTX)" 90 driver_figures \
  "mkdir -p '$work/bin/strombom' '$work/bin/boids' && HERD_CL_DUMP_BINARIES='$work/bin/strombom' $(all_active 2000 1 -q) && HERD_CL_DUMP_BINARIES='$work/bin/boids' $(boids 3 2000 1 -q) && driver_table '$work/bin/strombom' '$work/bin/boids'"
for size in "$s_small" "$s_mid" "$s_big"; do
  [ -n "$size" ] || continue
  set -- $size
  step "Strömbom all-active, N = $1" 60 run_figures "$(all_active "$1" "$2" --profile)"
done
step "herding, N = $herd_n with its dog: steps/s, observation read back every step" 60 run_figures \
  "herd run --backend opencl --set sheep.count=$herd_n -s $herd_steps"
step "herding, N = $herd_n, --profile" 60 run_figures \
  "herd run --backend opencl --set sheep.count=$herd_n -s $((herd_steps / 10)) --profile"
for dims in 2 3; do
  for size in "$b_mid" "$b_big"; do
    [ -n "$size" ] || continue
    set -- $size
    step "boids ${dims}D, N = $1" 60 run_figures "$(boids "$dims" "$1" "$2" --profile)"
  done
done
set -- ${s_big:-$s_mid}
step "Strömbom all-active, N = $1, without the pre-pass (HERD_CL_COOP=0)" 60 run_figures \
  "HERD_CL_COOP=0 $(all_active "$1" "$2" --profile)"
step "Strömbom all-active, N = $1, with the pre-pass (HERD_CL_COOP=1)" 60 run_figures \
  "HERD_CL_COOP=1 $(all_active "$1" "$2" --profile)"
set -- ${b_big:-$b_mid}
step "boids 3D, N = $1, without the register bound (HERD_CL_CAPPED=0)" 60 run_figures \
  "HERD_CL_CAPPED=0 $(boids 3 "$1" "$2" --profile)"
step "boids 3D, N = $1, with the register bound (HERD_CL_CAPPED=1)" 60 run_figures \
  "HERD_CL_CAPPED=1 $(boids 3 "$1" "$2" --profile)"
step "batched sweep: 2 x $sweep_seeds runs of N = 100 herding, batches of 64" 120 sweep_figures \
  "herd sweep --vary sheep.neighbours=54,59 --seeds $sweep_seeds --set sheep.count=100 --backend opencl --batch 64 --force --out '$work/sweep'"
if [ -n "$s_huge" ]; then
  set -- $s_huge
  step "Strömbom all-active, N = $1 (if the device's memory allows)" 90 run_figures "$(all_active "$1" "$2" --profile)"
fi
note ""
note "viewer frames/s (CL/GL sharing, copy path): not measured: the kit carries no X server, GLFW or GLEW (built with HERD_WITH_GL=OFF)."
finish
