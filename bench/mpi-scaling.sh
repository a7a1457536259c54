#!/usr/bin/env bash
# Benchmark (not a test): herd run --mpi under mpirun, weak and strong scaling (issue 17).
#
#   bench/mpi-scaling.sh HERD OUTDIR [--ranks "1 2 3 4"] [--per-rank 20000] [--total 80000]
#                        [--steps 20] [--models "strombom boids"] [--mpi-args "ARGS"] [--force]
#                        [--tables-only]
#
# Weak scaling: --per-rank agents on each of P ranks (N = P * per-rank). Strong scaling: N =
# --total on every P. Each run is `mpirun -np P --oversubscribe HERD run --mpi ...` with one
# thread per rank on the CPU backend, at a fixed density so that the work per agent is the
# same at every N:
#   strombom: the default scenario all active, as bench/all-active.sh (every sheep within the
#             dogs' r_s, the target out of reach): one sheep per 4 m^2, n = 50 nearest;
#   boids:    a radius model, 2D, about 20 boids within the visual range 40 of each (a world
#             of side 15.853 sqrt(N), as bench/boids-peers.sh, without the wrap).
# --mpi-args are added to every run (e.g. a layout option of herd run --mpi).
# Writes OUTDIR/runs/ (each run's summary JSON and log, runs.tsv), OUTDIR/scaling.csv
# (provenance as '#' lines, then one row per run) and OUTDIR/scaling.md (the tables, and what
# oversubscription means for them); bench/mpi_model.py --scaling OUTDIR/scaling.csv reads it.
# --tables-only: only rewrite the tables from OUTDIR/runs/. MPIRUN names another mpirun.
# Exit status: 0 every run ok, 1 a run failed (the tables still list it), 2 bad input.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "mpi-scaling.sh: $*" >&2; exit 2; }
[ $# -ge 2 ] || fail "usage: bench/mpi-scaling.sh HERD OUTDIR [options] (see the top of the script)"
herd=$1 outdir=$2
command_line="bench/mpi-scaling.sh$(printf " %q" "$@")" # as typed, re-runnable
shift 2
ranks="1 2 3 4" per_rank=20000 total=80000 steps=20 models="strombom boids" mpi_args="" force=0 tables_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --ranks | --per-rank | --total | --steps | --models | --mpi-args)
      [ $# -ge 2 ] || fail "$1: needs a value"
      case "$1" in
        --ranks) ranks=$2 ;; --per-rank) per_rank=$2 ;; --total) total=$2 ;;
        --steps) steps=$2 ;; --models) models=$2 ;; --mpi-args) mpi_args=$2 ;;
      esac
      shift 2 ;;
    --force) force=1; shift ;;
    --tables-only) tables_only=1; shift ;;
    *) fail "unknown option $1" ;;
  esac
done

positive() { [[ $2 =~ ^[1-9][0-9]*$ ]] || fail "$1: expected a whole number > 0, got '$2'"; }
positive --per-rank "$per_rank"
positive --total "$total"
positive --steps "$steps"
[ -n "$ranks" ] || fail "--ranks: expected rank counts, got nothing"
for p in $ranks; do positive --ranks "$p"; done
for m in $models; do
  case "$m" in strombom | boids) ;; *) fail "--models: expected strombom or boids, got '$m'" ;; esac
done
[ -d "$outdir" ] || fail "OUTDIR: $outdir is not a folder"
# The tables name the command that ran the runs (kept in runs/command), not --tables-only.
tables() {
  local ran
  ran=$(cat "$outdir/runs/command" 2>/dev/null || echo "$command_line")
  /usr/bin/python3 "$root/bench/mpi_scaling_tables.py" "$outdir" "$ran"
}
if [ "$tables_only" = 1 ]; then
  [ -f "$outdir/runs/runs.tsv" ] || fail "--tables-only: $outdir/runs/runs.tsv is missing (no runs to read)"
  tables
  exit
fi
for f in "$outdir/scaling.csv" "$outdir/scaling.md" "$outdir/runs"; do
  [ "$force" = 1 ] || [ ! -e "$f" ] || fail "$f exists (--force replaces it)"
done
[ -x "$herd" ] || fail "HERD: $herd is not a program"
mpirun=${MPIRUN:-mpirun}
command -v "$mpirun" >/dev/null || fail "mpirun not found (install openmpi-bin, or set MPIRUN)"
"$herd" run --help 2>&1 | grep -q -- '--mpi' || {
  echo "mpi-scaling.sh: $herd run has no --mpi option: build herd with HERD_WITH_MPI=ON" >&2
  exit 1
}

rm -rf "$outdir/runs"
mkdir -p "$outdir/runs"
echo "$command_line" >"$outdir/runs/command"
# Open MPI refuses root unless told; the development machine runs everything as root.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# scenario MODEL N: sets density (agents per m^2) and spec (herd run's arguments).
scenario() {
  local model=$1 n=$2 side
  if [ "$model" = strombom ]; then
    side=$(awk -v n="$n" 'BEGIN { printf "%.3f", 3 * sqrt(4 * n) }') # the spawn square is side/3
    density=0.25
    spec=(--set sheep.count="$n" --set field.size_m="$side" --set sheep.dog_radius_m=1e9
      --set "target.position_m=[-1e6,-1e6]")
  else
    side=$(awk -v n="$n" 'BEGIN { printf "%.3f", 15.853 * sqrt(n) }')
    density=$(awk -v n="$n" -v s="$side" 'BEGIN { printf "%.6g", n / (s * s) }')
    spec=(--set model=boids --set boids.count="$n" --set "world.size_m=[$side,$side]")
  fi
}

read -ra extra <<<"$mpi_args"
# one SCALING MODEL P N: one run; its summary and log under runs/, its line in runs.tsv.
one() {
  local scaling=$1 model=$2 p=$3 n=$4 name="$2-$1-P$3" rc=0
  scenario "$model" "$n"
  "$mpirun" -np "$p" --oversubscribe "$herd" run --mpi "${extra[@]}" --backend cpu --threads 1 --seed 1 \
    --steps "$steps" "${spec[@]}" --quiet --summary "$outdir/runs/$name.json" >"$outdir/runs/$name.log" 2>&1 || rc=$?
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$scaling" "$model" "$p" "$n" "$density" "$steps" "$rc" \
    >>"$outdir/runs/runs.tsv"
  if [ "$rc" = 0 ]; then
    echo "$name: N = $n, done"
  else
    echo "$name: N = $n, FAILED (exit $rc); the end of its log:" >&2
    tail -5 "$outdir/runs/$name.log" >&2
  fi
}

for model in $models; do
  for p in $ranks; do one weak "$model" "$p" $((per_rank * p)); done
  for p in $ranks; do one strong "$model" "$p" "$total"; done
done
status=0
tables || status=$?
echo "wrote $outdir/scaling.csv and $outdir/scaling.md"
exit "$status"
