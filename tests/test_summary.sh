#!/usr/bin/env bash
# herd run --summary FILE.json / --json: the documents follow docs/schema/run-summary.schema.json
# (which is strict: a missing or misspelt field fails), agree with the run's CSV, and carry a
# scenario that herd scenario reads back unchanged; on both backends.
#   bash tests/test_summary.sh PATH_TO_HERD     (exit 77, skipped, without python3-jsonschema)
set -u
HERD=${1:?usage: bash tests/test_summary.sh PATH_TO_HERD}
PY=/usr/bin/python3
"$PY" -c 'import jsonschema' 2>/dev/null || { echo "no python3-jsonschema: skipped"; exit 77; }
source "$(dirname "$0")/check.sh"
SCHEMAS=$(cd "$(dirname "$0")/../docs/schema" && pwd)
VALIDATE=$(cd "$(dirname "$0")/../scripts" && pwd)/validate-json.py

valid() { "$PY" "$VALIDATE" "$SCHEMAS/$1" "$2" 2>>"$tmp/err"; }
invalid() { ! "$PY" "$VALIDATE" "$SCHEMAS/$1" "$2" 2>/dev/null; }
# jget FILE EXPR: a value of the JSON document in FILE (d), printed by Python.
jget() { "$PY" -c "import json, sys; d = json.load(open(sys.argv[1])); print($2)" "$1"; }
# The CSV's last row, comment lines (the provenance header) and the column names skipped.
csv_last() { grep -v '^#' "$1" | tail -n 1; }
csv_column() { grep -v '^#' "$1" | head -n 1 | tr ',' '\n' | grep -nx "$2" | cut -d: -f1; }
# mutate FILE OUT CODE: OUT is FILE's document after the Python statement CODE changed d.
mutate() { "$PY" -c "import json, sys; d = json.load(open(sys.argv[1])); $3; json.dump(d, open(sys.argv[2], 'w'))" "$1" "$2"; }

backends=(cpu)
"$HERD" devices >/dev/null 2>&1 && backends+=(opencl)
for b in "${backends[@]}"; do
  s=$tmp/$b.json csv=$tmp/$b.csv
  run run --backend "$b" --steps 300 --csv "$csv" --summary "$s" --json
  check "$b: --summary and --json exit 0" [ "$rc" -eq 0 ]
  cp "$tmp/out" "$tmp/$b.stdout.json"
  check "$b: the --summary file validates against the schema" valid run-summary.schema.json "$s"
  check "$b: --json's standard output validates too" valid run-summary.schema.json "$tmp/$b.stdout.json"
  check "$b: --json carries the same document as --summary" cmp -s "$s" "$tmp/$b.stdout.json"
  check "$b: the text summary went to standard error" grep -q "^steps: 300 (limit 300)" "$tmp/err"
  check "$b: the backend is named" is "$(jget "$s" "d['provenance']['backend']['name']")" "$b"
  last=$(csv_last "$csv")
  check "$b: steps equal the CSV's last step" is "$(jget "$s" "d['steps']")" "$(echo "$last" | cut -d, -f1)"
  check "$b: delivered equals the CSV's" is "$(jget "$s" "d['observation']['delivered']")" \
    "$(echo "$last" | cut -d, -f"$(csv_column "$csv" delivered)")"
  check "$b: polarisation equals the CSV's (to its 6 decimals)" is "$(jget "$s" "'%.6f' % d['observation']['polarisation']")" \
    "$(echo "$last" | cut -d, -f"$(csv_column "$csv" polarisation)")"
  check "$b: 300 steps at the limit: exit_reason step_limit, outcome not_herded" \
    is "$(jget "$s" "d['exit_reason'] + ' ' + d['outcome']")" "step_limit not_herded"
  # The scenario in the summary is the resolved scenario: herd scenario reads it back unchanged.
  jget "$s" "json.dumps(d['provenance']['scenario'])" >"$tmp/$b.scenario.json"
  "$HERD" scenario "$tmp/$b.scenario.json" >"$tmp/$b.back.json" 2>>"$tmp/err"
  check "$b: the summary's scenario parses back to the same JSON" "$PY" -c '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
sys.exit(a != b)' "$tmp/$b.scenario.json" "$tmp/$b.back.json"
  check "$b: provenance names the seed and the command" eval \
    '[ "$(jget "$s" "d[\"provenance\"][\"seed\"]")" = 1 ] && jget "$s" "d[\"provenance\"][\"command\"]" | grep -q "^herd run --backend $b"'
done

# ---- The schema is strict ----------------------------------------------------------------
s=$tmp/cpu.json
mutate "$s" "$tmp/m1.json" "del d['steps']"
check "a document without steps fails validation" invalid run-summary.schema.json "$tmp/m1.json"
mutate "$s" "$tmp/m2.json" "d['observation']['miling'] = d['observation'].pop('milling')"
check "a misspelt observation field fails validation" invalid run-summary.schema.json "$tmp/m2.json"
mutate "$s" "$tmp/m3.json" "del d['provenance']['herd']['commit']"
check "a provenance without the commit fails validation" invalid run-summary.schema.json "$tmp/m3.json"
mutate "$s" "$tmp/m4.json" "d['steering'][0]['mode'] = None"
check "a steering mode that is not a string fails validation" invalid run-summary.schema.json "$tmp/m4.json"
mutate "$s" "$tmp/m5.json" "d['wall_time_s'] = None"
check "... while a null number (a non-finite value) passes" valid run-summary.schema.json "$tmp/m5.json"

# ---- Outcomes ----------------------------------------------------------------------------
run run --summary "$tmp/herded.json"
check "a herded run: outcome success, exit_reason finished, all delivered" is \
  "$(jget "$tmp/herded.json" "d['outcome'], d['exit_reason'], d['observation']['delivered'] == d['observation']['agents']")" \
  "success finished True"
check "... and its text summary is still on standard output" grep -q "^result: success" "$tmp/out"
# The CSV's temporary file shows the run past set-up, where Ctrl-C would end herd at once with
# nothing written; from then on Ctrl-C stops it cleanly, the summary written.
"$HERD" run --set sheep.count=20000 --steps 100000000 --quiet --threads 1 --summary "$tmp/int.json" \
  --csv "$tmp/int.csv" >"$tmp/out" 2>"$tmp/err" &
pid=$!
wait_for "$pid" "temporary file int.csv.part-*" eval 'compgen -G "$tmp/int.csv.part-*" >/dev/null' &&
  kill -INT "$pid"
wait "$pid"
rc=$?
check "Ctrl-C: exit 130 with the summary written" eval '[ "$rc" -eq 130 ] && valid run-summary.schema.json "$tmp/int.json"'
check "... saying interrupted" is "$(jget "$tmp/int.json" "d['exit_reason'] + ' ' + d['outcome']")" "interrupted interrupted"

# ---- Never replaced without --force; checked before the run ------------------------------
echo keep >"$tmp/kept.json"
run run --steps 5 --quiet --summary "$tmp/kept.json" --csv "$tmp/none.csv"
check "an existing --summary file: exit 2 before the run, nothing written" eval \
  '[ "$rc" -eq 2 ] && grep -q -- "--summary" "$tmp/err" && [ "$(cat "$tmp/kept.json")" = keep ] && absent "$tmp/none.csv"'
run run --steps 5 --quiet --summary "$tmp/kept.json" --force
check "--force replaces it" eval '[ "$rc" -eq 0 ] && valid run-summary.schema.json "$tmp/kept.json"'
run run --steps 5 --quiet --json --csv -
check "--json with --csv - (both on standard output) exits 2" eval '[ "$rc" -eq 2 ] && grep -q -- "--json" "$tmp/err"'
run run --steps 5 --quiet --summary
check "--summary without a file exits 2" eval '[ "$rc" -eq 2 ] && grep -q -- "--summary: needs a value" "$tmp/err"'
run run --steps 5 --quiet --summary "$tmp/no-such-folder/s.json"
check "--summary into a missing folder exits 2" [ "$rc" -eq 2 ]
finish
