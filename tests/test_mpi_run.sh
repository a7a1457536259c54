#!/usr/bin/env bash
# One flock over MPI ranks is the one-process flock, bit for bit (issue 17): tests/test_mpi_run.c
# under mpirun for P = 1 to 4 ranks, slabs and a 2D grid, for Strömbom (the k nearest: the
# halo grows) and for radius models (boids; NetLogo on a torus; Couzin in 3D); then `herd run
# --mpi`'s CSV against `herd run`'s, and its refusals. Exit 77 (skipped) where mpirun is missing
# (scripts/deps.sh installs openmpi-bin).
#   test_mpi_run.sh TEST_PROGRAM HERD
set -uo pipefail
program=$1 herd=$2
command -v mpirun >/dev/null || { echo "mpirun not installed: skipped"; exit 77; }
# Tests run as root on 2 cores here: Open MPI refuses both unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

split() { # NP LAYOUT STEPS REBALANCE SETS...
  local np=$1
  shift
  if ! timeout 600 mpirun -np "$np" --oversubscribe "$program" "$@"; then
    echo "FAIL: $np ranks, $*"
    failures=$((failures + 1))
  fi
}

# Strömbom, 100 sheep: the k = 50 nearest reach across every cut; rebalanced every 7 steps.
for np in 1 2 3 4; do split "$np" slabs 120 7; done
split 4 grid 120 7
# A larger, spread flock: many migrations.
split 3 slabs 60 5 sheep.count=600 field.size_m=300
# Radius models: boids (2D), NetLogo (a torus), Couzin (3D).
split 2 slabs 80 9 model=boids
split 4 grid 80 9 model=boids
split 3 slabs 80 9 model=netlogo
split 4 grid 60 9 model=couzin

# herd run --mpi writes the CSV herd run writes (rank 0 alone writes it).
"$herd" run --steps 150 --threads 1 --csv "$work/one.csv" -q || { echo "FAIL: herd run"; failures=$((failures + 1)); }
for np in 2 3; do
  timeout 600 mpirun -np "$np" --oversubscribe "$herd" run --mpi --mpi-rebalance 10 --steps 150 --threads 1 \
    --csv "$work/split$np.csv" --summary "$work/split$np.json" > "$work/out$np.txt" 2>&1
  if ! cmp -s <(grep -v '^#' "$work/one.csv") <(grep -v '^#' "$work/split$np.csv"); then
    echo "FAIL: herd run --mpi on $np ranks wrote another CSV"
    failures=$((failures + 1))
  fi
  if ! grep -q "^mpi: $np ranks" "$work/out$np.txt" || [ "$(grep -c '^steps:' "$work/out$np.txt")" != 1 ]; then
    echo "FAIL: the summary of $np ranks is not rank 0's alone, with its mpi line:"
    cat "$work/out$np.txt"
    failures=$((failures + 1))
  fi
  if ! /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["mpi"]["ranks"] != int(sys.argv[2]))' \
    "$work/split$np.json" "$np"; then
    echo "FAIL: the summary JSON of $np ranks has no mpi object for them"
    failures=$((failures + 1))
  fi
done

# Each rank on the OpenCL backend (PoCL here): the CSV of one OpenCL process.
if "$herd" devices 2>/dev/null | grep -q "^platform:"; then
  for model in strombom boids; do
    "$herd" run --backend opencl --set model=$model --steps 80 --csv "$work/cl1.csv" --force -q
    timeout 600 mpirun -np 3 --oversubscribe "$herd" run --mpi --backend opencl --set model=$model --steps 80 \
      --mpi-rebalance 9 --csv "$work/cl3.csv" --force -q
    if ! cmp -s <(grep -v '^#' "$work/cl1.csv") <(grep -v '^#' "$work/cl3.csv"); then
      echo "FAIL: $model over 3 ranks on OpenCL wrote another CSV than one OpenCL process"
      failures=$((failures + 1))
    fi
  done
else
  echo "no OpenCL device: the ranks on OpenCL are not compared"
fi

# Refusals: told once (by rank 0), exit 2 on every rank.
refuse() { # EXPECTED-TEXT ARGS...
  local want=$1
  shift
  timeout 120 mpirun -np 2 --oversubscribe "$herd" run "$@" > "$work/refused.txt" 2>&1
  local rc=$?
  if [ "$rc" != 2 ] || ! grep -q -- "$want" "$work/refused.txt" || [ "$(grep -c -- "$want" "$work/refused.txt")" != 1 ]; then
    echo "FAIL: herd run $* gave exit $rc (wanted 2 and \"$want\" once):"
    cat "$work/refused.txt"
    failures=$((failures + 1))
  fi
}
refuse 'is not a layout (allowed: slabs, grid)' --mpi --mpi-layout rows --steps 5
"$herd" run --mpi-layout grid --steps 5 > "$work/alone.txt" 2>&1
[ $? = 2 ] && grep -q -- '--mpi-layout and --mpi-rebalance need --mpi' "$work/alone.txt" ||
  { echo "FAIL: --mpi-layout without --mpi was not refused"; failures=$((failures + 1)); }
refuse '--checkpoint with --mpi' --mpi --checkpoint "$work/t.ckpt" --steps 5
refuse 'sheep.neighbours_from = reacting' --mpi --set sheep.neighbours_from=reacting --steps 5
refuse '--mpi-rebalance' --mpi --mpi-rebalance 0 --steps 5
[ -e "$work/t.ckpt" ] && { echo "FAIL: a refused run created its output"; failures=$((failures + 1)); }

# Trajectories: rank 0 writes the frames every rank gathers; the same datasets as one process.
if /usr/bin/python3 -c 'import h5py, numpy' 2>/dev/null; then
  "$herd" run --steps 40 --threads 1 -q --trajectories "$work/one.h5" &&
    timeout 600 mpirun -np 3 --oversubscribe "$herd" run --mpi --steps 40 --threads 1 -q --trajectories "$work/three.h5"
  if ! /usr/bin/python3 - "$work/one.h5" "$work/three.h5" <<'PY'; then
import sys, h5py, numpy as np
one, three = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
for name in ("positions", "headings", "steps", "ids"):
    if one[name].shape != three[name].shape or not np.array_equal(one[name][()], three[name][()]):
        sys.exit(f"/{name} differs over 3 ranks")
if one["positions"].shape[0] != 41:
    sys.exit(f"{one['positions'].shape[0]} frames, not 41")
PY
    echo "FAIL: herd run --mpi --trajectories wrote other frames than herd run"
    failures=$((failures + 1))
  fi
else
  echo "h5py missing: the trajectories over ranks are not compared"
fi

[ "$failures" = 0 ] && echo "all MPI runs equal the one-process runs" && exit 0
echo "$failures failures"
exit 1
