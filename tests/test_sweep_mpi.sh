#!/usr/bin/env bash
# `herd sweep --mpi` (issue 17): the rows and summary of a sweep whose runs rank 0 hands out to
# 1 and 2 workers equal the single-process sweep's; errors are told once and end every rank
# with 2; a singleton (no mpirun) runs alone; Ctrl-C on mpirun keeps whole rows and --resume
# under MPI finishes the sweep as one uninterrupted run would.
#
#   bash tests/test_sweep_mpi.sh PATH_TO_HERD     (exit 77, skipped, without mpirun or MPI)
set -u
HERD=${1:?usage: bash tests/test_sweep_mpi.sh PATH_TO_HERD}
command -v mpirun >/dev/null || { echo "no mpirun (Debian: openmpi-bin): skipped"; exit 77; }
source "$(dirname "$0")/check.sh"
# mpirun refuses root without these (containers, CI); 2 cores: ranks beyond them oversubscribe.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpi() {
  local np=$1
  shift
  mpirun -np "$np" --oversubscribe "$HERD" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
}
if "$HERD" sweep --mpi --help 2>&1 | grep -q "built without MPI"; then
  echo "herd built without MPI (HERD_WITH_MPI=OFF): skipped"
  exit 77
fi

# Rows without the provenance lines and the wall time (column 8 with two varied fields): what
# must be equal whoever ran the runs.
rows_of() { grep -v '^#' "$1"; }
no_wall() { rows_of "$1" | cut -d, -f1-7,9-; }
told_once() { [ "$(grep -cF -- "$1" "$tmp/err")" -eq 1 ]; }

# Cells of different cost (30 and 60 sheep), so that workers finish out of run order.
grid=(--vary sheep.count=60,30 --vary sheep.neighbours=10,20 --seeds 1-5 --steps 1500)
run sweep "${grid[@]}" --out "$tmp/one" -q
check "the single-process sweep runs" [ "$rc" -eq 0 ]
check "... and gives 20 rows" [ "$(rows_of "$tmp/one/runs.csv" | wc -l)" -eq 21 ]

# ---- The same rows over ranks -----------------------------------------------------------------
for np in 3 2; do
  mpi "$np" sweep "${grid[@]}" --out "$tmp/np$np" --mpi
  check "mpirun -np $np herd sweep --mpi exits 0" [ "$rc" -eq 0 ]
  check "... its runs.csv rows equal the single-process sweep's (wall times aside)" \
    cmp -s <(no_wall "$tmp/one/runs.csv") <(no_wall "$tmp/np$np/runs.csv")
  check "... and so does summary.csv" cmp -s <(rows_of "$tmp/one/summary.csv") <(rows_of "$tmp/np$np/summary.csv")
  check "... and the files written are the same" is "$(ls "$tmp/one")" "$(ls "$tmp/np$np")"
  check "... sweep.json records the ranks" has "\"mpi_ranks\": $np," "$tmp/np$np/sweep.json"
  check "... as do runs.csv's provenance lines" has "# mpi_ranks: $np" "$tmp/np$np/runs.csv"
  check "... and rank 0 alone speaks" is "$(grep -c '^sweep: ' "$tmp/out")" 1
done
# Groups of 3 runs (a batch of worlds each) on two workers: rows still come back in run order.
mpi 3 sweep "${grid[@]}" --batch 3 --out "$tmp/batch3" --mpi -q
check "--batch 3 over 2 workers gives the same rows" eval \
  '[ "$rc" -eq 0 ] && cmp -s <(no_wall "$tmp/one/runs.csv") <(no_wall "$tmp/batch3/runs.csv")'
check "... recorded in sweep.json" has '"batch": 3' "$tmp/batch3/sweep.json"
check "a plain sweep records no ranks" eval '! grep -q mpi_ranks "$tmp/one/sweep.json" "$tmp/one/runs.csv"'

# ---- Errors: told once, by rank 0; every rank ends with 2 -------------------------------------------
mpi 3 sweep "${grid[@]}" --vary sheep.colour=1,2 --out "$tmp/bad" --mpi
check "an unknown field under MPI exits 2" [ "$rc" -eq 2 ]
check "... told once" told_once "sheep.colour: unknown field"
check "... and writes nothing" absent "$tmp/bad"
mpi 3 sweep "${grid[@]}" --batch 0 --out "$tmp/bad" --mpi
check "a bad option under MPI exits 2, told once" eval '[ "$rc" -eq 2 ] && told_once "--batch: \"0\" is not allowed"'
# Only rank 0 opens the folder: the workers learn its failure from it.
cp "$tmp/np3/runs.csv" "$tmp/np3-before.csv"
mpi 3 sweep "${grid[@]}" --out "$tmp/np3" --mpi
check "a folder holding a sweep exits 2 on every rank" eval '[ "$rc" -eq 2 ] && told_once "holds a sweep already"'
check "... leaving the sweep there as it was" cmp -s "$tmp/np3/runs.csv" "$tmp/np3-before.csv"

# ---- No mpirun: a singleton MPI job runs the sweep alone -------------------------------------------
run sweep "${grid[@]}" --out "$tmp/alone" --mpi -q
check "herd sweep --mpi without mpirun runs alone" eval \
  '[ "$rc" -eq 0 ] && cmp -s <(no_wall "$tmp/one/runs.csv") <(no_wall "$tmp/alone/runs.csv")'
check "... recording one rank" has '"mpi_ranks": 1,' "$tmp/alone/sweep.json"

# ---- Ctrl-C on mpirun, then --resume over ranks --------------------------------------------------
# 240 runs, some 4 s here: longer than the second mpirun waits before it signals the ranks (48
# runs, 0.9 s, were done before it did).
long=(--vary sheep.count=60,30 --vary sheep.neighbours=10,20 --seeds 1-60 --steps 1500)
mpirun -np 3 --oversubscribe "$HERD" sweep "${long[@]}" --out "$tmp/cut" --mpi >"$tmp/out" 2>"$tmp/err" &
pid=$!
# Stopped once 5 of the 240 runs are in runs.csv (rows of runs the ranks did: all past set-up);
# the other 235 take seconds, not the moment between seeing the rows and the signal.
wait_for "$pid" "5 rows in cut/runs.csv" eval '[ -f "$tmp/cut/runs.csv" ] && [ "$(grep -vc "^#" "$tmp/cut/runs.csv")" -ge 6 ]' &&
  kill -INT "$pid"
sent=$(date +%s%N)
wait "$pid"
rc=$?
took_ms=$((($(date +%s%N) - sent) / 1000000))
# mpirun waits about 1 s before it signals the ranks; the bound only catches a hang, on any
# machine (that they stop before the sweep is done is the check on runs still to do below).
check "Ctrl-C on mpirun stops the sweep (in ${took_ms} ms)" [ "$rc" -ne 0 -a "$took_ms" -lt 60000 ]
check "... rank 0 says how to go on" has "go on with --resume" "$tmp/err"
check "... keeping whole rows, in order, and no summary yet" eval \
  '[ "$(tail -c 1 "$tmp/cut/runs.csv" | od -An -c | tr -d " ")" = "\n" ] && absent "$tmp/cut/summary.csv" &&
   awk -F, "NR > 1 && \$1 != NR - 2 { bad = 1 } END { exit bad }" <(rows_of "$tmp/cut/runs.csv")'
check "... with runs still to do" [ "$(rows_of "$tmp/cut/runs.csv" | wc -l)" -lt 241 ]
mpi 2 sweep "${long[@]}" --out "$tmp/cut" --mpi --resume
check "--resume under MPI finishes it" [ "$rc" -eq 0 ]
run sweep "${long[@]}" --out "$tmp/whole" -q
check "... with the rows of an uninterrupted single-process sweep" cmp -s <(no_wall "$tmp/whole/runs.csv") <(no_wall "$tmp/cut/runs.csv")
finish
