#!/usr/bin/env bash
# A tiny herd bench as a smoke test: every output file is produced and well formed.
#   bash tests/test_bench.sh PATH_TO_HERD     (exit 77, skipped, without gnuplot)
set -u
HERD=${1:?usage: bash tests/test_bench.sh PATH_TO_HERD}
command -v gnuplot >/dev/null || { echo "no gnuplot: skipped"; exit 77; }
source "$(dirname "$0")/check.sh"

"$HERD" bench --backends cpu --threads 1,2 --sizes 300,600,1200 --steps 2 --repeat 2 --out "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
check "herd bench exits 0" [ "$rc" -eq 0 ]
for f in results.csv summary.md machine.md time_per_step.png stages.png speedup.png; do
  check "$f is written" [ -s "$tmp/out/$f" ]
done
for f in time_per_step.png stages.png speedup.png; do check "$f is a PNG" is_png "$tmp/out/$f"; done
# results.csv starts with the provenance as "# " comment lines; the checks read what follows.
check "results.csv starts with the provenance" eval 'head -n 1 "$tmp/out/results.csv" | grep -q "^# herd: " && grep -q "^# command: herd bench --backends cpu --threads 1,2" "$tmp/out/results.csv"'
grep -v '^#' "$tmp/out/results.csv" >"$tmp/rows.csv"
csv=$tmp/rows.csv
check "results.csv names its units" grep -q "seconds_per_step,agent_steps_per_second" "$csv"
# 2 thread counts x 3 sizes x 2 repeats
check "results.csv has a row per configuration and repeat" [ "$(tail -n +2 "$csv" | wc -l)" -eq 12 ]
check "every time is a positive number" awk -F, 'NR > 1 && !($7 + 0 > 0) { bad = 1 } END { exit bad }' "$csv"
check "agent-steps/s is N / time" awk -F, 'NR > 1 { r = $4 / $7 / $8; if (r < 0.999 || r > 1.001) bad = 1 } END { exit bad }' "$csv"
check "summary.md has the table" grep -q "| cpu, 1 thread | 300 |" "$tmp/out/summary.md"
check "summary.md gives alpha" grep -qE "α = -?[0-9.]+ over N = 300 to 1200" "$tmp/out/summary.md"
check "stdout prints alpha" grep -qE "^alpha = -?[0-9.]+ for cpu, 1 thread" "$tmp/stdout"
# What really ran: the CPU backend runs small flocks on one thread whatever --threads says.
# column NAME: the column number of NAME in $csv's header.
column() { head -n 1 "$csv" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
used=$(column threads_used) lo=$(column seconds_per_step_min) mid=$(column seconds_per_step_median) hi=$(column seconds_per_step_max)
check "results.csv has threads_used and the repeats' min, median and max" eval '[ -n "$used" ] && [ -n "$lo" ] && [ -n "$mid" ] && [ -n "$hi" ]'
check "at N = 300 the 2-thread rows ran 1 thread, and are labelled so" awk -F, -v u="${used:-1}" \
  'NR > 1 && $3 == 2 { rows++; if ($(u) != 1 || $2 != "cpu; 2 threads (ran 1 thread)") bad = 1 } END { exit bad || rows != 6 }' "$csv"
check "summary.md labels them too" grep -q "| cpu, 2 threads (ran 1 thread) | 300 |" "$tmp/out/summary.md"
check "no alpha for a configuration that never ran its thread count" eval '! grep -q "for cpu, 2 threads" "$tmp/stdout"'
check "min <= median <= max, and every repeat within [min, max]" awk -F, -v l="${lo:-1}" -v m="${mid:-1}" -v h="${hi:-1}" \
  'NR > 1 { if (!($(l) <= $(m) && $(m) <= $(h) && $(l) <= $7 && $7 <= $(h) && $(l) > 0)) bad = 1 } END { exit bad }' "$csv"
check "the plots draw error bars and keep the key off the data" eval \
  'grep -q "yerrorlines" "$tmp/out/plots.gp" && grep -q "set key outside" "$tmp/out/plots.gp"'
check "the speed-up plot leaves out the rows that ran the base's thread count" eval \
  '[ "$(awk "/^set output .speedup/ { on = 1 } /^set output .stages/ { on = 0 } on && /^[0-9]/" "$tmp/out/plots.gp" | wc -l)" -eq 3 ]'

# ---- --summary / --json: the bench as JSON, against docs/schema/bench-summary.schema.json --
if /usr/bin/python3 -c "import jsonschema" 2>/dev/null; then
  schema=$(cd "$(dirname "$0")/../docs/schema" && pwd)/bench-summary.schema.json
  validate=$(cd "$(dirname "$0")/../scripts" && pwd)/validate-json.py
  "$HERD" bench --backends cpu --threads 1,2 --sizes 300,3000 --steps 1 --repeat 3 --out "$tmp/js" --json --summary "$tmp/bench.json" >"$tmp/stdout" 2>"$tmp/stderr"
  rc=$?
  check "--json --summary exits 0" [ "$rc" -eq 0 ]
  check "... both validate against the schema" /usr/bin/python3 "$validate" "$schema" "$tmp/bench.json" "$tmp/stdout"
  check "... the progress table went to standard error" grep -q "^configuration" "$tmp/stderr"
  check "... its rows agree with results.csv (medians, threads_used)" /usr/bin/python3 -c '
import csv, json, sys
d = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(l for l in open(sys.argv[2]) if not l.startswith("#")))
# The CSV keeps 7 significant digits (%.6e), the JSON 10: equal within the CSV rounding.
want = {(r["threads"], r["n"], r["threads_used"]): float(r["seconds_per_step_median"]) for r in rows}
got = {(str(r["threads"]), str(r["n"]), str(r["threads_used"])): r["seconds_per_step"]["median"] for r in d["rows"]}
close = got.keys() == want.keys() and all(abs(got[k] - want[k]) <= 1e-6 * abs(want[k]) for k in want)
sys.exit(len(d["rows"]) != 4 or not close or len(d["rows"][0]["seconds_per_step"]["repeats"]) != 3)' "$tmp/bench.json" "$tmp/js/results.csv"
  /usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); del d["rows"][0]["threads_used"]; json.dump(d, open(sys.argv[2], "w"))' "$tmp/bench.json" "$tmp/bad.json"
  check "... and a row without threads_used fails validation" eval '! /usr/bin/python3 "$validate" "$schema" "$tmp/bad.json" 2>/dev/null'
fi
check "machine.md names the CPU and memory" eval 'grep -q "^- CPU: " "$tmp/out/machine.md" && grep -q "^- memory: " "$tmp/out/machine.md"'

# Without --steps a repeat is about 5e5 / N steps, at most 50 (a small flock run for long
# compacts): 50 at N = 300 (not 1667), 25 at N = 20000.
"$HERD" bench --backends cpu --threads 1 --sizes 300,20000 --repeat 1 --out "$tmp/window" >"$tmp/stdout" 2>"$tmp/stderr"
steps=$(grep -v '^#' "$tmp/window/results.csv" | awk -F, 'NR > 1 { printf "%s:%s ", $4, $6 }')
check "the default steps of a repeat are capped for small flocks (got $steps)" [ "$steps" = "300:50 20000:25 " ]

"$HERD" bench --backends cpu --threads 1 --sizes 300,100000 --steps 20 --repeat 2 --budget 1 --out "$tmp/budget" >"$tmp/stdout" 2>&1
check "a size past the budget is dropped, saying so" eval 'grep -q "dropped" "$tmp/stdout" && grep -q "Dropped for the 1 s budget" "$tmp/budget/summary.md"'

# ---- Everything is checked before the first run; nothing is replaced without --force ------

tiny=(--threads 1 --sizes 300 --steps 1 --repeat 1)
cp "$tmp/out/results.csv" "$tmp/results.before"
"$HERD" bench --backends cpu "${tiny[@]}" --out "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
check "results already in --out are not replaced (exit 2)" eval '[ "$rc" -eq 2 ] && grep -q "use --force" "$tmp/stderr"'
check "... and stay as they were" cmp -s "$tmp/out/results.csv" "$tmp/results.before"
"$HERD" bench --backends '' "${tiny[@]}" --out "$tmp/out" --force >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
check "--backends '' exits 2 and leaves the results" eval '[ "$rc" -eq 2 ] && cmp -s "$tmp/out/results.csv" "$tmp/results.before"'
"$HERD" bench --backends cpu "${tiny[@]}" --out "$tmp/out" --force >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
check "--force replaces them" eval '[ "$rc" -eq 0 ] && ! cmp -s "$tmp/out/results.csv" "$tmp/results.before"'
check "no staging folder is left" eval '! compgen -G "$tmp/out/.herd-bench-*" >/dev/null'
touch "$tmp/a-file"
"$HERD" bench --backends cpu "${tiny[@]}" --out "$tmp/a-file" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
check "--out naming a file exits 2 before running" eval '[ "$rc" -eq 2 ] && grep -q "not a folder" "$tmp/stderr" && ! grep -q "cpu, 1 thread" "$tmp/stdout"'
if "$HERD" devices >/dev/null 2>&1; then
  "$HERD" bench --backends cpu,opencl:99 "${tiny[@]}" --out "$tmp/dev99" >"$tmp/stdout" 2>"$tmp/stderr"
  rc=$?
  check "a missing OpenCL device exits 2 before any run" eval '[ "$rc" -eq 2 ] && grep -q "no such OpenCL device" "$tmp/stderr" && ! grep -q "cpu, 1 thread" "$tmp/stdout" && absent "$tmp/dev99"'
fi

# --out is a folder name, never shell text (gnuplot runs with an argument vector).
odd="$tmp/q'; touch PWNED; echo '"
(cd "$tmp" && "$HERD" bench --backends cpu "${tiny[@]}" --out "$odd" >"$tmp/stdout" 2>"$tmp/stderr")
rc=$?
check "an --out with quotes and ; works and runs no command" eval '[ "$rc" -eq 0 ] && [ -s "$odd/time_per_step.png" ] && absent "$tmp/PWNED"'
"$HERD" bench --backends cpu "${tiny[@]}" --out "$tmp/it's" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
check "an --out with an apostrophe gets its plots" eval '[ "$rc" -eq 0 ] && is_png "$tmp/it'"'"'s/speedup.png"'

# Ctrl-C in the middle: exit 130, the folder as it was (no results, no staging folder). The
# staging folder shows the bench past set-up (Ctrl-C before it ends herd at once); 2000 steps of
# 10^6 sheep, far more than any machine does between seeing it and the signal, keep it unfinished.
"$HERD" bench --backends cpu --threads 1 --sizes 1000000 --steps 400 --repeat 5 --out "$tmp/int" >"$tmp/stdout" 2>"$tmp/stderr" &
pid=$!
wait_for "$pid" "staging folder int/.herd-bench-*" eval 'compgen -G "$tmp/int/.herd-bench-*" >/dev/null' &&
  kill -INT "$pid"
wait "$pid"
rc=$?
check "Ctrl-C during a bench exits 130" [ "$rc" -eq 130 ]
check "... saying the folder is as it was" grep -q "herd: interrupted; .* is as it was" "$tmp/stderr"
check "... leaving no results and no staging folder" eval '[ -z "$(ls -A "$tmp/int" 2>/dev/null)" ]'

# ---- Other models ------------------------------------------------------------------------

"$HERD" bench --model boids --dims 3 --backends cpu --threads 1 --sizes 300,600 --steps 2 --repeat 2 --out "$tmp/boids" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
check "--model boids --dims 3 runs" [ "$rc" -eq 0 ]
grep -v '^#' "$tmp/boids/results.csv" >"$tmp/boids.csv"
check "its CSV says boids, 3D, on every row" awk -F, 'NR == 1 { for (k = 1; k <= NF; ++k) { if ($k == "model") m = k; if ($k == "dims") d = k } }
  NR > 1 { rows++; if ($m != "boids" || $d != 3) bad = 1 } END { exit bad || rows != 4 || !m || !d }' "$tmp/boids.csv"
check "its summary names the workload and the neighbour density" grep -q "boids 3D, uniform.*each has 20 others within r = 40 m" "$tmp/boids/summary.md"
check "its speed-up plot has a base (one thread count only)" is_png "$tmp/boids/speedup.png"
bad_option() { # DESCRIPTION MESSAGE ARGS...
  local what=$1 want=$2
  shift 2
  "$HERD" bench "$@" --out "$tmp/bad" >"$tmp/stdout" 2>"$tmp/stderr"
  local rc=$?
  check "$what exits 2 before running, saying so" eval '[ "$rc" -eq 2 ] && grep -qF -e "$want" "$tmp/stderr" && absent "$tmp/bad"'
}
bad_option "an unknown model" '--model: "boid" is not a model (allowed: strombom, boids, netlogo, couzin, fish)' --model boid
bad_option "a dimension the model lacks" "--dims 3: model netlogo does not run in 3D" --model netlogo --dims 3
bad_option "--dims 4" "--dims" --model boids --dims 4
bad_option "--workload for boids" "--workload: for --model strombom only" --model boids --workload herding
bad_option "--neighbours for Strömbom" "--neighbours: not for --model strombom" --neighbours 20
bad_option "--neighbours 0" "--neighbours" --model boids --neighbours 0

"$HERD" bench --backends gpu --out "$tmp/x" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
check "an unknown backend exits 2" [ "$rc" -eq 2 ]
"$HERD" bench --sizes 1e3,abc --out "$tmp/x" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
check "a bad size exits 2 naming it" eval '[ "$rc" -eq 2 ] && grep -q "abc" "$tmp/stderr"'
finish
