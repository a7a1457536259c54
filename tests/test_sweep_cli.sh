#!/usr/bin/env bash
# `herd sweep` as a user runs it: the folder's files, the summary against a count over
# runs.csv, a killed sweep resumed (also from half a row) against an uninterrupted one, the
# folder rules, and bad options.
#
#   bash tests/test_sweep_cli.sh PATH_TO_HERD      (from the repository root; ctest does this)
set -u
HERD=${1:?usage: bash tests/test_sweep_cli.sh PATH_TO_HERD}
source "$(dirname "$0")/check.sh"
stderr_has() { grep -qF -- "$1" "$tmp/err"; }
one_line() { [ "$(wc -l <"$tmp/err")" -eq 1 ]; }
# The CSV files start with the provenance as "# " comment lines; the checks read what follows.
rows_of() { grep -v '^#' "$1"; }

grid=(--vary sheep.count=30,60 --vary sheep.neighbours=10,20 --seeds 1-12 --steps 1500)

# ---- A whole sweep ------------------------------------------------------------------------
run sweep "${grid[@]}" --out "$tmp/a"
check "a sweep exits 0" [ "$rc" -eq 0 ]
for f in runs.csv summary.csv summary.md sweep.json success.png steps.png; do check "it writes $f" [ -s "$tmp/a/$f" ]; done
check "success.png is a PNG" is_png "$tmp/a/success.png"
check "runs.csv and summary.csv start with the provenance" eval \
  '(for f in runs summary; do head -n 1 "$tmp/a/$f.csv" | grep -q "^# herd: " && grep -q "^# command: herd sweep --vary" "$tmp/a/$f.csv" && grep -q "^# sweep: {" "$tmp/a/$f.csv" || exit 1; done)'
check "runs.csv has a header and 48 rows (4 cells x 12 seeds)" [ "$(rows_of "$tmp/a/runs.csv" | wc -l)" -eq 49 ]
check "runs are numbered 0..47 in order" awk -F, 'NR > 1 && $1 != NR - 2 { bad = 1 } END { exit bad }' <(rows_of "$tmp/a/runs.csv")
check "cells cross the lists, the last fastest" eval \
  'awk -F, '"'"'NR > 1 { print $2, $4, $5 }'"'"' <(rows_of "$tmp/a/runs.csv") | sort -u -n | tr "\n" ";" | grep -qx "0 30 10;1 30 20;2 60 10;3 60 20;"'
# The summary's successes are a count over runs.csv (outcome is column 6).
check "summary.csv's successes equal a count over runs.csv" eval '
  awk -F, '"'"'NR > 1 && $6 == "succeeded" { n[$2]++ } END { for (c in n) print c, n[c] }'"'"' <(rows_of "$tmp/a/runs.csv") | sort >"$tmp/count"
  awk -F, '"'"'NR > 1 && $5 > 0 { print $1, $5 }'"'"' <(rows_of "$tmp/a/summary.csv") | sort >"$tmp/summary"
  cmp -s "$tmp/count" "$tmp/summary" && [ -s "$tmp/count" ]'
check "summary.md has a row per cell" [ "$(grep -c '^| [0-9]' "$tmp/a/summary.md")" -eq 4 ]
check "sweep.json records herd's commit and the expanded sweep" eval \
  'grep -q "\"commit\"" "$tmp/a/sweep.json" && grep -q "\"sheep.neighbours\"" "$tmp/a/sweep.json" && grep -q "\"finished\": \"20" "$tmp/a/sweep.json"'

# --set-at in every run: the row of a run is herd run's with the same --set-at.
run sweep --set-at 100:sheep.repulsion=0.5 --seeds 1-2 --out "$tmp/at"
row=$(awk -F, 'NR == 3 { print $4, $5 }' <(rows_of "$tmp/at/runs.csv"))
run run --set-at 100:sheep.repulsion=0.5 --seed 2
check "a sweep's --set-at gives each run's row as herd run --set-at does" eval \
  '[ "$row" = "$(grep -q "^result: success" "$tmp/out" && echo succeeded || echo step_limit) $(awk "/^steps:/ { print \$2 }" "$tmp/out")" ]'
check "... recorded in sweep.json" grep -q '"@100:sheep.repulsion=0.5"' "$tmp/at/sweep.json"

# polarisation_late and milling_late: the means over the second half of the last stretch of fixed
# parameters (from the last scheduled change, step 100, to max_steps = 200: steps 151-200),
# against the same run's per-step CSV.
run sweep --scenario scenarios/couzin-swarm.json --set-at 100:couzin.orientation_band_m=2 --seeds 3 --steps 200 \
  --out "$tmp/late"
late=$(awk -F, 'NR == 2 { print $(NF - 3), $(NF - 2) }' <(rows_of "$tmp/late/runs.csv")) # then steering_nearest_m, food_eaten
run run scenarios/couzin-swarm.json --set-at 100:couzin.orientation_band_m=2 --seed 3 --steps 200 --csv "$tmp/late.csv"
check "runs.csv's late means are the run's order parameters averaged over steps 151-200" eval '
  awk -F, -v late="$late" '"'"'
    $1 == "step" { for (k = 1; k <= NF; ++k) col[$k] = k; next }
    $1 > 150 { p += $col["polarisation"]; m += $col["milling"]; ++n }
    END { split(late, got, " "); d1 = p / n - got[1]; d2 = m / n - got[2]
          exit !(n == 50 && d1 * d1 < 1e-10 && d2 * d2 < 1e-10) }'"'"' <(rows_of "$tmp/late.csv")'
check "... and their header names them" eval 'rows_of "$tmp/late/runs.csv" | head -n 1 | grep -q ",polarisation_late,milling_late,steering_nearest_m,food_eaten$"'

# The same runs as `herd run` gives them, one by one.
read -r seed count neighbours < <(awk -F, 'NR == 20 { print $3, $4, $5 }' <(rows_of "$tmp/a/runs.csv"))
row=$(awk -F, 'NR == 20 { print $4, $5, $6, $7 }' <(rows_of "$tmp/a/runs.csv"))
run run --set sheep.count="$count" --set sheep.neighbours="$neighbours" --seed "$seed" --steps 1500
steps=$(awk '/^steps:/ { print $2 }' "$tmp/out")
check "a row equals herd run with its cell and seed" eval '[ "$row" = "$count $neighbours $(grep -q "^result: success" "$tmp/out" && echo succeeded || echo step_limit) $steps" ]'

# ---- Killed and resumed ---------------------------------------------------------------------
"$HERD" sweep "${grid[@]}" --threads 2 --out "$tmp/b" >"$tmp/out" 2>"$tmp/err" &
pid=$!
# Stopped once 9 of the 48 runs are in runs.csv (past set-up: the folder is written only after
# it); the other 39 take seconds, not the moment between seeing the rows and the signal.
wait_for "$pid" "9 rows in b/runs.csv" eval '[ -f "$tmp/b/runs.csv" ] && [ "$(grep -vc "^#" "$tmp/b/runs.csv")" -ge 10 ]' &&
  kill -INT "$pid"
wait "$pid"
rc=$?
check "Ctrl-C stops a sweep with 130" [ "$rc" -eq 130 ]
check "... saying how to go on" stderr_has "go on with --resume"
check "... with whole rows only, and no summary yet" eval '[ "$(tail -c 1 "$tmp/b/runs.csv" | od -An -c | tr -d " ")" = "\n" ] && absent "$tmp/b/summary.csv"'
# Half a row, as a kill -9 in the middle of a write would leave.
printf '99999,3,7,60' >>"$tmp/b/runs.csv"
run sweep "${grid[@]}" --threads 2 --out "$tmp/b" --resume
check "--resume exits 0" [ "$rc" -eq 0 ]
check "... redoing nothing already written" eval 'grep -q "runs already in runs.csv" "$tmp/out"'
no_wall() { rows_of "$1" | cut -d, -f1-7,9-; }
check "the resumed runs.csv equals the uninterrupted one (wall times aside)" eval \
  'cmp -s <(no_wall "$tmp/a/runs.csv") <(no_wall "$tmp/b/runs.csv")'
check "... and so does the summary" cmp -s <(rows_of "$tmp/a/summary.csv") <(rows_of "$tmp/b/summary.csv")

# ---- Batches of worlds: the same rows whatever the batch, on each backend ------------------------
run sweep "${grid[@]}" --batch 5 --threads 2 --out "$tmp/batched"
check "--batch 5 on the CPU gives the rows of runs side by side (wall times aside)" eval \
  '[ "$rc" -eq 0 ] && cmp -s <(no_wall "$tmp/a/runs.csv") <(no_wall "$tmp/batched/runs.csv")'
check "... and sweep.json records the backend and the batch" eval \
  'grep -q "\"name\": \"cpu\"" "$tmp/batched/sweep.json" && grep -q "\"batch\": 5" "$tmp/batched/sweep.json"'
if "$HERD" devices >/dev/null 2>&1; then
  small=(--vary sheep.count=20,45 --vary sheep.neighbours=5,19 --seeds 1-2 --steps 400)
  run sweep "${small[@]}" --backend opencl --out "$tmp/cl-batch"
  check "--backend opencl runs the sweep in batches of 64" eval '[ "$rc" -eq 0 ] && grep -q "\"batch\": 64" "$tmp/cl-batch/sweep.json"'
  run sweep "${small[@]}" --backend opencl --batch 1 --out "$tmp/cl-alone"
  check "... giving each run's row as the run alone on the device gives it" eval \
    '[ "$rc" -eq 0 ] && cmp -s <(no_wall "$tmp/cl-batch/runs.csv") <(no_wall "$tmp/cl-alone/runs.csv")'
  read -r seed count neighbours < <(awk -F, 'NR == 6 { print $3, $4, $5 }' <(rows_of "$tmp/cl-batch/runs.csv"))
  row=$(awk -F, 'NR == 6 { print $6, $7 }' <(rows_of "$tmp/cl-batch/runs.csv"))
  run run --backend opencl --set sheep.count="$count" --set sheep.neighbours="$neighbours" --seed "$seed" --steps 400
  check "... and as herd run --backend opencl gives it" eval \
    '[ "$row" = "$(grep -q "^result: success" "$tmp/out" && echo succeeded || echo step_limit) $(awk "/^steps:/ { print \$2 }" "$tmp/out")" ]'
  # --set-at in every run: each world of a batch changes its parameter at the step, as a run alone
  run sweep "${small[@]}" --set-at 120:sheep.repulsion=0.5 --backend opencl --out "$tmp/cl-at"
  run sweep "${small[@]}" --set-at 120:sheep.repulsion=0.5 --backend opencl --batch 1 --out "$tmp/cl-at-alone"
  check "--set-at in an OpenCL batch gives the rows of the runs alone" eval \
    '[ "$rc" -eq 0 ] && cmp -s <(no_wall "$tmp/cl-at/runs.csv") <(no_wall "$tmp/cl-at-alone/runs.csv")'
  check "... which differ from those without it" eval '! cmp -s <(no_wall "$tmp/cl-at/runs.csv") <(no_wall "$tmp/cl-batch/runs.csv")'
else
  echo "# no OpenCL device: the OpenCL batches are not tested"
fi

# ---- The folder's rules ------------------------------------------------------------------------
cp "$tmp/a/runs.csv" "$tmp/runs.before"
run sweep "${grid[@]}" --out "$tmp/a"
check "a folder holding a sweep is refused (exit 2)" eval '[ "$rc" -eq 2 ] && stderr_has "holds a sweep already" && one_line'
check "... and left as it was" cmp -s "$tmp/a/runs.csv" "$tmp/runs.before"
run sweep --vary sheep.count=30,60 --vary sheep.neighbours=10,25 --seeds 1-12 --steps 1500 --quiet --out "$tmp/a" --resume
check "--resume of a different sweep is refused" eval '[ "$rc" -eq 2 ] && stderr_has "the sweep differs"'
run sweep "${grid[@]}" --out "$tmp/nothing" --resume
check "--resume where there is no sweep is refused" eval '[ "$rc" -eq 2 ] && stderr_has "no sweep to resume"'
run sweep --vary sheep.count=60 --seeds 1-2 --steps 300 --quiet --out "$tmp/a" --force
check "--force starts afresh" eval '[ "$rc" -eq 0 ] && [ "$(rows_of "$tmp/a/runs.csv" | wc -l)" -eq 3 ]'
# An older herd's runs.csv: the same sweep without the last four columns (it ended at
# drive_farthest_m). Finished, it is summarised again; with a run missing, it is refused.
cut -d, -f1-18 "$tmp/a/runs.csv" >"$tmp/older" && mv "$tmp/older" "$tmp/a/runs.csv"
rm "$tmp/a/summary.csv"
run sweep --vary sheep.count=60 --seeds 1-2 --steps 300 --quiet --out "$tmp/a" --resume
check "--resume of an older herd's finished sweep summarises it again" eval \
  '[ "$rc" -eq 0 ] && [ -s "$tmp/a/summary.csv" ] && [ "$(rows_of "$tmp/a/runs.csv" | head -1 | tr -cd , | wc -c)" -eq 17 ]'
sed -i '$d' "$tmp/a/runs.csv"
run sweep --vary sheep.count=60 --seeds 1-2 --steps 300 --quiet --out "$tmp/a" --resume
check "... and of an unfinished one is refused" eval \
  '[ "$rc" -eq 2 ] && stderr_has "written by an older herd, without the last columns this one writes; its 1 of 2 runs"'
touch "$tmp/file"
run sweep --seeds 1 --out "$tmp/file"
check "--out naming a file is refused" eval '[ "$rc" -eq 2 ] && stderr_has "not a folder"'

# ---- Bad options: one line, exit 2, nothing written ---------------------------------------------
bad() { # DESCRIPTION MESSAGE ARGS...
  local what=$1 want=$2
  shift 2
  run sweep "$@" --out "$tmp/bad"
  check "$what" eval '[ "$rc" -eq 2 ] && stderr_has "$want" && one_line && absent "$tmp/bad"'
}
bad "an empty range" '--vary: sheep.count: "50:10" is an empty range' --vary sheep.count=50:10
bad "a zero step" 'the step must be > 0' --vary sheep.count=10:50:0
bad "--vary without =" '--vary sheep.count: expected PATH=VALUES' --vary sheep.count
bad "an unknown field" 'sheep.cont: unknown field (did you mean sheep.count?)' --vary sheep.cont=10,20
bad "a refused cell" 'cell 1 (sheep.count=10, sheep.neighbours=50): sheep.neighbours: 50 must be less than sheep.count (10)' \
  --vary sheep.count=100,10 --vary sheep.neighbours=50
bad "bad seeds" '--seeds: "1-x" is not a list of seeds' --seeds 1-x
bad "--steps 0" '--steps: 0 is out of range (allowed: an integer from 1 to 1000000000)' --steps 0
bad "zip of unequal lists" 'needs lists of one length' --vary sheep.count=10,20 --vary sheep.neighbours=5 --zip
bad "too many runs without --force" 'over 100000 needs --force' --vary sheep.dog_radius_m=1:1000 --seeds 1-200
bad "a missing sweep file" 'no-such.json: cannot open' no-such.json
bad "two sweep files" 'only one sweep file may be given' tests/data/sweeps/small.json other.json
bad "--force with --resume" '--force and --resume: choose one' --force --resume
bad "an unknown option" 'sweep: unknown option --vray' --vray sheep.count=5
bad "--batch 0" '--batch: "0" is not allowed (allowed: an integer from 1 to 4096)' --batch 0
bad "an unknown backend" '--backend gpu: unknown backend (allowed: cpu, opencl, auto)' --backend gpu

# A sweep file, with options added.
run sweep tests/data/sweeps/small.json --seeds 1-2 --quiet --out "$tmp/file-sweep"
check "a sweep file runs, with --seeds replacing its seeds" eval \
  '[ "$rc" -eq 0 ] && [ "$(rows_of "$tmp/file-sweep/runs.csv" | wc -l)" -eq 13 ] && grep -q "\"sheep.dog_radius_m=80\"" "$tmp/file-sweep/sweep.json"'

# ---- Experiments ---------------------------------------------------------------------------
run experiment --list
check "experiment --list names both Strömbom experiments" eval 'grep -q "^strombom-grid " "$tmp/out" && grep -q "^strombom-cohesion " "$tmp/out"'
run experiment strombom-cohesion --quick --seeds 1-2 --quiet --out "$tmp/cohesion"
check "a quick experiment runs" [ "$rc" -eq 0 ]
check "... into its sweep folders and a report" eval \
  '[ -s "$tmp/cohesion/driving/runs.csv" ] && [ -s "$tmp/cohesion/grazing/runs.csv" ] && [ -s "$tmp/cohesion/report.md" ]'
check "... whose report says it is a quick one and judges the fitted exponents" eval \
  'grep -q "Quick version" "$tmp/cohesion/report.md" &&
   grep -qE "^\| its fitted exponent .*\| grazing: -?[0-9]+\.[0-9]+ ± [0-9.]+ \| (reproduced|partly|not reproduced) \|" "$tmp/cohesion/report.md" &&
   grep -qE "^\| the same while the dog drives .*\| while driving: -?[0-9]+\.[0-9]+ ± [0-9.]+ \| (reproduced|partly|not reproduced) \|" "$tmp/cohesion/report.md"'
# The grazing verdict's count against runs.csv: runs whose farthest_m / (2 N^(2/3)) is in [0.5, 0.8].
check "... and counts the grazing runs within 0.5-0.8 f(N) from runs.csv" eval '
  want=$(awk -F, '"'"'NR > 1 { r = $15 / (2 * $4 ^ (2 / 3)); n++; k += r >= 0.5 && r <= 0.8 } END { print k " of " n " runs" }'"'"' <(rows_of "$tmp/cohesion/grazing/runs.csv"))
  grep -q "^| a grazing flock.*| $want end with" "$tmp/cohesion/report.md"'
check "... and a D / f(N) row per N (3), grazing and driving" [ "$(grep -cE '^\| [0-9]+ \| [0-9]+ \| [0-9]+ \| [0-9]' "$tmp/cohesion/report.md")" -eq 6 ]
run experiment strombom-grid --quick --seeds 1 --quiet --out "$tmp/grid"
check "the quick grid runs, with a sweep per variant" eval '[ "$rc" -eq 0 ] && [ -s "$tmp/grid/grid.png" ] &&
  [ "$(ls "$tmp/grid/variants" | tr "\n" " ")" = "centroid default dog-radius-80 reacting removal stop-near-centre " ]'
check "... each variant's sweep sets its one field" eval \
  'grep -q "\"sheep.success=remove_delivered\"" "$tmp/grid/variants/removal/sweep.json" &&
   grep -q "\"dogs.stop=near_sheep_or_centre\"" "$tmp/grid/variants/stop-near-centre/sweep.json" &&
   ! grep -q "sheep.success=" "$tmp/grid/variants/default/sweep.json"'
# The variant table's removal column against a count over that sweep's runs.csv: 8 cells, 1 seed.
check "... and the report's variant table counts each variant's runs" eval '
  awk -F, '"'"'NR > 1 { print $4, $5, ($6 == "succeeded") }'"'"' <(rows_of "$tmp/grid/variants/removal/runs.csv") >"$tmp/count"
  sed -n "/^## The rules/,/^## Beyond/p" "$tmp/grid/report.md" | grep -E "^\| [0-9]+ \| [0-9]+ \| [0-9]/1" | awk -F"|" '"'"'{ split($6, c, "/"); print $2 + 0, $3 + 0, c[1] + 0 }'"'"' >"$tmp/table"
  [ "$(wc -l <"$tmp/count")" -eq 8 ] && cmp -s "$tmp/count" "$tmp/table"'
check "... and a beyond pair: the paper's dog and dogs.gathered = within_reach" eval \
  '[ "$(ls "$tmp/grid/beyond" | tr "\n" " ")" = "default within-reach " ] &&
   grep -q "\"dogs.gathered=within_reach\"" "$tmp/grid/beyond/within-reach/sweep.json" &&
   [ "$(sed -n "/^## Beyond/,/^## Every/p" "$tmp/grid/report.md" | grep -cE "^\| [0-9]+ \| [0-9]+ \| [0-9]/1")" -eq 4 ]'
# The band table's default row against band/default/runs.csv (N = 50; one seed: each cell herds
# or not): n / N up to which every cell fails, and from which every cell herds.
check "... and a band sweep per parameter, its edges counted from runs.csv" eval '
  [ "$(ls "$tmp/grid/band" | wc -l)" -eq 8 ] &&
  want=$(awk -F, '"'"'NR > 1 { f = sprintf("%.2f", $5 / $4); ok = $6 == "succeeded"
      if (!ok && !herding_broken) fails = f; if (ok) herding_broken = 1
      if (ok && herds == "") herds = f; if (!ok) herds = "" }
    END { print (fails == "" ? "–" : fails) " | " (herds == "" ? "–" : herds) }'"'"' <(rows_of "$tmp/grid/band/default/runs.csv")) &&
  sed -n "/^## What moves the band/,/^## Every/p" "$tmp/grid/report.md" | grep -q "^| default | $want | – | – |$"'
run experiment strombom-grid --quick --seeds 1 --quiet --out "$tmp/grid" --resume
check "an experiment resumed runs nothing again" eval '[ "$rc" -eq 0 ] && grep -q "earlier_rows_by" "$tmp/grid/beyond/default/sweep.json"'
rm -rf "$tmp/grid/beyond"
run experiment strombom-grid --quick --seeds 1 --quiet --out "$tmp/grid" --resume
check "... and one stopped before a sweep began starts that sweep afresh" eval \
  '[ "$rc" -eq 0 ] && [ -s "$tmp/grid/beyond/within-reach/runs.csv" ] && ! grep -q "earlier_rows_by" "$tmp/grid/beyond/default/sweep.json"'

run experiment massive-herding --quick --seeds 1 --sheep 100 --quiet --out "$tmp/massive"
check "massive-herding runs a sweep per strategy and flock size" eval '[ "$rc" -eq 0 ] && [ -s "$tmp/massive/success.png" ] &&
  [ "$(cd "$tmp/massive" && ls -d */100 | tr "\n" " ")" = "arc/100 lien/100 ring/100 sectors/100 strombom/100 within-reach/100 " ]'
check "... each with its own steering agents" eval \
  'grep -q "team.*arc" "$tmp/massive/arc/100/sweep.json" && grep -q "team.*ring" "$tmp/massive/ring/100/sweep.json" && grep -q "gathered.*within_reach" "$tmp/massive/within-reach/100/sweep.json" &&
   grep -q "strategy.*shepherd" "$tmp/massive/lien/100/sweep.json" && grep -q "\"agents\[0\].count\"" "$tmp/massive/lien/100/sweep.json"'
# The report's rows for the team by sectors (2 and 4 dogs, 1 seed) against that sweep's runs.csv.
check "... and its table counts each sweep's runs" eval '
  awk -F, '"'"'NR > 1 { print $4, ($5 == "succeeded") }'"'"' <(rows_of "$tmp/massive/sectors/100/runs.csv") >"$tmp/count"
  grep -E "^\| a team by sectors .*\| 100 \| [0-9]/1 " "$tmp/massive/report.md" | awk -F"|" '"'"'{ split($5, c, "/"); print $3 + 0, c[1] + 0 }'"'"' >"$tmp/table"
  [ "$(wc -l <"$tmp/count")" -eq 2 ] && cmp -s "$tmp/count" "$tmp/table"'
# couzin-states: the verdicts come from runs.csv. Quick: Δr_o = 0, 2.5, 10 at Δr_a = 15 and a ramp
# over 2, 3, 4 with 2 seeds. Rewriting the late means of the states sweep to a torus's
# (p 0.1, m 0.9) and resuming (which runs nothing) must turn the swarm's verdict round.
run experiment couzin-states --quick --seeds 1-2 --quiet --out "$tmp/couzin"
check "couzin-states runs its states, both ramps and the variants" eval '[ "$rc" -eq 0 ] &&
  for f in states.png hysteresis.png variants.png states/runs.csv hysteresis/up/3/runs.csv hysteresis/down/3/runs.csv \
    variants/unit-vectors/runs.csv; do [ -s "$tmp/couzin/$f" ] || exit 1; done'
flat() { tr -d ' \n' <"$tmp/couzin/hysteresis/$1/sweep.json"; }
check "... the way up to 4 starts at 2 and changes Δr_o at steps 1000 and 2000, the way down to 3 once" eval \
  'flat up/4 | grep -q "\"orientation_band_m\":2},\"schedule\":\[{\"step\":1000,\"path\":\"couzin.orientation_band_m\",\"value\":3},{\"step\":2000,\"path\":\"couzin.orientation_band_m\",\"value\":4}\]" &&
   flat down/3 | grep -q "\"max_steps\":2000,.*\"orientation_band_m\":4},\"schedule\":\[{\"step\":1000,\"path\":\"couzin.orientation_band_m\",\"value\":3}\]"'
swarm_verdict() { grep "^| a swarm" "$tmp/couzin/report.md" | awk -F"|" '{ gsub(/ /, "", $4); print $4 }'; }
check "... and, with both runs at Δr_o = 0 a swarm, says so" eval '[ "$(swarm_verdict)" = reproduced ] && grep -q "^| a swarm .*| 2 of 2 runs end as a swarm" "$tmp/couzin/report.md"'
awk -F, 'BEGIN { OFS = "," } /^#/ || $1 == "run" { print; next } { $(NF - 3) = 0.1; $(NF - 2) = 0.9; print }' \
  "$tmp/couzin/states/runs.csv" >"$tmp/edited" && mv "$tmp/edited" "$tmp/couzin/states/runs.csv"
run experiment couzin-states --quick --seeds 1-2 --quiet --out "$tmp/couzin" --resume
check "... and a runs.csv that says torus turns the swarm's verdict to not reproduced" eval \
  '[ "$rc" -eq 0 ] && [ "$(swarm_verdict)" = notreproduced ] && grep -q "^| a swarm .*| 0 of 2 runs end as a swarm" "$tmp/couzin/report.md"'
# fish-school and netlogo-flocking: each verdict from runs.csv. Rewriting the sated runs' food_eaten
# to 6 (every particle) and resuming turns "a sated fish does not forage" round.
mkdir -p "$tmp/exps"
run experiment fish-school --quick --seeds 1-2 --quiet --out "$tmp/exps/fish-school"
sated_verdict() { grep "^| a sated fish" "$tmp/exps/fish-school/report.md" | awk -F"|" '{ gsub(/ /, "", $4); print $4 }'; }
check "fish-school runs its escape and foraging sweeps, a control each" eval '[ "$rc" -eq 0 ] &&
  grep -q "\"fish.escape\"" "$tmp/exps/fish-school/escape/sweep.json" && grep -q "max_steps=700" "$tmp/exps/fish-school/foraging/sweep.json"'
check "... and finds the sated school eating less in both seeds" eval '[ "$(sated_verdict)" = reproduced ] &&
  grep -q "^| a sated fish .*| 2 of 2 seeds have the hungry school eat more" "$tmp/exps/fish-school/report.md"'
awk -F, 'BEGIN { OFS = "," } /^#/ || $1 == "run" { print; next } $2 == 1 { $NF = 6 } { print }' \
  "$tmp/exps/fish-school/foraging/runs.csv" >"$tmp/edited" && mv "$tmp/edited" "$tmp/exps/fish-school/foraging/runs.csv"
run experiment fish-school --quick --seeds 1-2 --quiet --out "$tmp/exps/fish-school" --resume
check "... and a runs.csv where the sated school ate everything turns that verdict to not reproduced" eval \
  '[ "$rc" -eq 0 ] && [ "$(sated_verdict)" = notreproduced ] && grep -q "^| a sated fish .*| 0 of 2 seeds" "$tmp/exps/fish-school/report.md"'
run experiment netlogo-flocking --quick --seeds 1-2 --quiet --out "$tmp/exps/netlogo-flocking"
check "netlogo-flocking judges its claims, one it cannot check" eval '[ "$rc" -eq 0 ] &&
  grep -qE "^\| flocks form without a leader.*\| [0-2] of 2 runs align" "$tmp/exps/netlogo-flocking/report.md" &&
  grep -qE "^\| the enemy repels the birds.*\| [0-2] of 2 seeds keep" "$tmp/exps/netlogo-flocking/report.md" &&
  grep -q "^| a flock, once together, .*| — | cannot be checked |" "$tmp/exps/netlogo-flocking/report.md"'
run experiment --verdicts "$tmp/exps"
check "--verdicts collects the reports' verdicts into one table, each row named" eval '[ "$rc" -eq 0 ] &&
  [ "$(grep -c "^| \`netlogo-flocking\` (--quick) |" "$tmp/out")" -eq 3 ] && [ "$(grep -c "^| \`fish-school\` (--quick) |" "$tmp/out")" -eq 3 ] &&
  head -1 "$tmp/out" | grep -qx "| experiment | claim (source) | herd | verdict | why |"'
run experiment --verdicts "$tmp/nothing-here"
check "--verdicts where there is no report is refused, printing nothing" eval '[ "$rc" -eq 2 ] && [ ! -s "$tmp/out" ] &&
  stderr_has "no experiment'"'"'s report there"'
run experiment fish-school --verdicts "$tmp/exps"
check "--verdicts with an experiment is refused" eval '[ "$rc" -eq 2 ] && stderr_has "--verdicts: reads the reports of every experiment"'
run experiment massive-herding --sheep 20
check "--sheep below the sheep's 50 neighbours is refused" eval '[ "$rc" -eq 2 ] && stderr_has "--sheep 20: 20 sheep is out of range (allowed: 51 to 10000000"'
run experiment massive-herding --sheep 1000,100
check "--sheep must rise" eval '[ "$rc" -eq 2 ] && stderr_has "--sheep 1000,100: the sizes must rise (100 after 1000)"'
run experiment massive-herding --sheep 100,
check "--sheep with nothing after a comma is refused" eval '[ "$rc" -eq 2 ] && stderr_has "a size is missing after the last comma"'
run experiment massive-herding --sheep 1e3
check "--sheep takes integers" eval '[ "$rc" -eq 2 ] && stderr_has "--sheep 1e3: expected flock sizes separated by commas"'
run experiment strombom-grid --sheep 100
check "--sheep belongs to massive-herding" eval '[ "$rc" -eq 2 ] && stderr_has "--sheep: only massive-herding takes flock sizes (not strombom-grid)"'
run experiment strombom-gird
check "an unknown experiment is refused, naming the known ones" eval '[ "$rc" -eq 2 ] && stderr_has "\"strombom-gird\" is not an experiment (known: strombom-grid, strombom-cohesion, lien-shepherds, massive-herding, couzin-states, netlogo-flocking, fish-school)"'
finish
