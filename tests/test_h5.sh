#!/usr/bin/env bash
# herd run --trajectories: the HDF5 file read back with h5py (tests/h5_check.py) on both
# backends (layout, chunking and compression, provenance attributes, positions against the
# same run's CSV centroids), the sample drawn from the seed, an existing file never replaced
# without --force, bad input exiting 2 with nothing written, Ctrl-C keeping the frames so far.
#
#   bash tests/test_h5.sh PATH_TO_HERD        (from the repository root; ctest does this)
#
# Exits 77 (skipped) when /usr/bin/python3 has no h5py (Debian: python3-h5py).
set -u

HERD=$(readlink -f "${1:?usage: bash tests/test_h5.sh PATH_TO_HERD}")
PY=/usr/bin/python3
CHECK="$(dirname "$0")/h5_check.py"
if ! "$PY" -c 'import h5py, numpy' 2>/dev/null; then
  echo "test_h5.sh: skipped: $PY has no h5py (apt-get install python3-h5py)"
  exit 77
fi

source "$(dirname "$0")/check.sh"

status_is() { [ "$rc" -eq "$1" ]; }
stderr_has() { grep -qF -- "$1" "$tmp/err"; }
h5() { "$PY" "$CHECK" "$@" 2>"$tmp/h5err" || { cat "$tmp/h5err"; return 1; }; }

# ---- Layout and agreement with the CSV, on each backend ----------------------------------
STEPS=40 EVERY=10 SEED=7
for backend in cpu opencl; do
  [ "$backend" = opencl ] && ! "$HERD" devices >/dev/null 2>&1 && continue
  run run --backend "$backend" --steps $STEPS --seed $SEED --set output.trajectories.every_steps=$EVERY \
    --trajectories "$tmp/$backend.h5" --csv "$tmp/$backend.csv" --quiet
  check "$backend: --trajectories runs" status_is 0
  check "$backend: the file reads back as written, its mean positions the CSV's centroids" \
    h5 layout "$tmp/$backend.h5" "$tmp/$backend.csv" $STEPS $EVERY 100 2 $SEED steering
done
# 3D: a third axis in every dataset.
run run scenarios/boids3d.json --steps 20 --seed 3 --set boids.count=300 --set output.trajectories.every_steps=5 \
  --trajectories "$tmp/3d.h5" --csv "$tmp/3d.csv" --quiet
check "3D: --trajectories runs" status_is 0
check "3D: the file reads back as written" h5 layout "$tmp/3d.h5" "$tmp/3d.csv" 20 5 300 3 3 no-steering

# The output section's intervals: /order every 3 steps, no /observation, in the file and the CSV.
run run --steps 12 --set output.order.every_steps=3 --set output.observation.every_steps=0 \
  --trajectories "$tmp/order.h5" --csv "$tmp/order.csv" --quiet
check "output section: exit 0" status_is 0
check "output section: /order every 3 steps, no /observation" "$PY" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
assert list(f["order/steps"][:]) == [0, 3, 6, 9, 12], list(f["order/steps"][:])
assert "observation" not in f and list(f["steering/steps"][:]) == list(range(13))' "$tmp/order.h5"
check "output section: the CSV has no observation columns and empty order cells off the interval" \
  eval '! grep -q centroid "$tmp/order.csv" && grep -q "^1,,," "$tmp/order.csv" && grep -q "^3,0\.[0-9]*,0\." "$tmp/order.csv"'

# ---- A sample of ids drawn from the seed ---------------------------------------------------
sampled() { run run --steps 20 --seed "$1" --set output.trajectories.every_steps=5 $2 --trajectories "$3" --quiet; }
sampled 11 "" "$tmp/full.h5"
sampled 11 "--set output.trajectories.sample=10" "$tmp/s1.h5"
sampled 11 "--set output.trajectories.sample=10" "$tmp/s2.h5"
sampled 12 "--set output.trajectories.sample=10" "$tmp/s3.h5"
check "sample: the same seed the same ids, another seed others, rows those of the full file" \
  h5 sample "$tmp/full.h5" "$tmp/s1.h5" "$tmp/s2.h5" "$tmp/s3.h5" 10
sampled 11 "--set output.trajectories.ids=[5,17,42,99]" "$tmp/ids.h5"
sampled 11 "--set output.trajectories.ids=[5,17,42,99] --set output.trajectories.sample=2" "$tmp/ids2.h5"
check "ids: exactly the listed agents, their rows those of the full file; a sample draws from them" "$PY" -c '
import h5py, numpy as np, sys
full, ids, two = (h5py.File(p, "r") for p in sys.argv[1:4])
assert list(ids["ids"][:]) == [5, 17, 42, 99], list(ids["ids"][:])
assert np.array_equal(ids["positions"][:], full["positions"][:, [5, 17, 42, 99], :])
picked = list(two["ids"][:])
assert len(picked) == 2 and set(picked) <= {5, 17, 42, 99} and picked == sorted(picked), picked' \
  "$tmp/full.h5" "$tmp/ids.h5" "$tmp/ids2.h5"
run run --steps 5 --set "output.trajectories.ids=[5,100]" --trajectories "$tmp/bad4.h5"
check "an id beyond the flock: exit 2, named, nothing written" \
  eval 'status_is 2 && stderr_has "output.trajectories.ids[1]" && absent "$tmp/bad4.h5"'

# ---- Never replacing a file without --force; bad input writes nothing ----------------------
cp "$tmp/full.h5" "$tmp/before.h5"
run run --steps 5 --trajectories "$tmp/full.h5" --quiet
check "an existing file: exit 2" status_is 2
check "an existing file: the message names the option and --force" \
  eval 'stderr_has "--trajectories $tmp/full.h5" && stderr_has "--force"'
check "an existing file is unchanged" cmp -s "$tmp/full.h5" "$tmp/before.h5"
run run --steps 5 --trajectories "$tmp/full.h5" --force --quiet
check "--force replaces it" eval 'status_is 0 && differs "$tmp/full.h5" "$tmp/before.h5"'
check "no temporary file is left behind" eval '[ -z "$(ls "$tmp" | grep part)" ]'

run run --steps 5 --trajectories
check "--trajectories without a file: exit 2" eval 'status_is 2 && stderr_has "--trajectories"'
run run --steps 5 --set output.trajectories.sample=101 --trajectories "$tmp/bad1.h5"
check "a sample beyond the flock: exit 2, nothing written" \
  eval 'status_is 2 && stderr_has "output.trajectories.sample" && absent "$tmp/bad1.h5"'
run run --steps 5 --set output.trajectories.every_steps=0 --trajectories "$tmp/bad2.h5"
check "every_steps 0: exit 2, nothing written" eval 'status_is 2 && absent "$tmp/bad2.h5"'
(cd "$tmp" && "$HERD" run --steps 5 --trajectories - >out 2>err)
rc=$?
check "--trajectories -: exit 2, no file named -" eval 'status_is 2 && absent "$tmp/-"'
run run --steps 5 --trajectories "$tmp/no/such/folder/x.h5"
check "a missing folder: exit 2" eval 'status_is 2 && stderr_has "--trajectories"'
run run --steps 5 --seed abc --trajectories "$tmp/bad3.h5"
check "a bad --seed with --trajectories: exit 2, nothing written" eval 'status_is 2 && absent "$tmp/bad3.h5"'
check "bad input leaves no temporary file" eval '[ -z "$(ls "$tmp" | grep part)" ]'

# ---- Ctrl-C finishes the file with the frames so far --------------------------------------
"$HERD" run --steps 100000000 --set sheep.count=2000 --trajectories "$tmp/stopped.h5" --quiet >/dev/null 2>&1 &
pid=$!
# The temporary file is opened past set-up (where Ctrl-C would end herd with nothing written),
# and the run writes step 0's frame before it looks at the flag: one frame at least, however soon.
wait_for "$pid" "temporary file stopped.h5.part-*" eval 'compgen -G "$tmp/stopped.h5.part-*" >/dev/null' &&
  kill -INT $pid
wait $pid
rc=$?
check "Ctrl-C: exit 130" status_is 130
check "Ctrl-C: the file is in place and holds frames" \
  eval '[ "$("$PY" "$CHECK" frames "$tmp/stopped.h5")" -ge 1 ]'

finish
