#!/usr/bin/env bash
# Option parsing of every herd command, table-driven: each form an option can take (--x=v,
# --x v, -x v, -xv, a unique abbreviation, options after the scenario, --) checked by its
# effect, and each error (exit 2, one line, naming the option as typed, nothing written).
#
#   bash tests/test_options.sh PATH_TO_HERD     (from the repository root; ctest does this)
set -u
HERD=${1:?usage: bash tests/test_options.sh PATH_TO_HERD}
HERD=$(cd "$(dirname "$HERD")" && pwd)/$(basename "$HERD")
source "$(dirname "$0")/check.sh"
mkdir -p "$tmp/made"

one_line() { [ "$(wc -l <"$tmp/err")" -eq 1 ]; }
nothing_made() { [ -z "$(ls -A "$tmp/made")" ]; }

# effect DESCRIPTION TEXT ARGS...: herd ARGS exits 0 with TEXT on stdout.
effect() {
  local what=$1 want=$2
  shift 2
  run "$@"
  check "$what" eval '[ "$rc" -eq 0 ] && grep -qF -- "$want" "$tmp/out"'
}

# silent DESCRIPTION ARGS...: herd ARGS exits 0 with nothing on stdout or stderr.
silent() {
  local what=$1
  shift
  run "$@"
  check "$what" eval '[ "$rc" -eq 0 ] && [ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ]'
}

# bad DESCRIPTION MESSAGE ARGS...: herd ARGS exits 2 with MESSAGE as its one line on stderr,
# nothing on stdout and nothing made in $tmp/made.
bad() {
  local what=$1 want=$2
  shift 2
  run "$@"
  check "$what" eval '[ "$rc" -eq 2 ] && one_line && grep -qF -- "herd: $want" "$tmp/err" && [ ! -s "$tmp/out" ] && nothing_made'
}

# ---- The scenario group (herd scenario prints what it resolved) -----------------------------
effect "--seed=V" '"seed": 7,' scenario --seed=7
effect "--seed V" '"seed": 7,' scenario --seed 7
effect "-r V" '"seed": 7,' scenario -r 7
effect "-rV" '"seed": 7,' scenario -r7
effect "--see V (a unique abbreviation)" '"seed": 7,' scenario --see 7
effect "--steps=V" '"max_steps": 9,' scenario --steps=9
effect "-s V" '"max_steps": 9,' scenario -s 9
effect "-sV" '"max_steps": 9,' scenario -s9
effect "--ste V" '"max_steps": 9,' scenario --ste 9
effect "flags and a value in one cluster (-qr5)" '"seed": 5,' scenario -qr5
effect "--set P=V" '"count": 80,' scenario --set sheep.count=80
effect "--set=P=V" '"count": 80,' scenario --set=sheep.count=80
effect "options after the scenario" '"seed": 5,' scenario scenarios/farm.json -r 5
effect "... the scenario is read" '"pens"' scenario -r 5 scenarios/farm.json
effect "the last --seed wins" '"seed": 2,' scenario -r 1 --seed=2
cp scenarios/farm.json "$tmp/-x.json"
(cd "$tmp" && "$HERD" scenario -r 3 -- -x.json >"$tmp/out" 2>"$tmp/err")
rc=$?
check "-- ends the options: a scenario named -x.json" eval '[ "$rc" -eq 0 ] && grep -qF "\"seed\": 3," "$tmp/out"'
effect "-q: herd scenario still prints its JSON" '"seed": 4,' scenario -q -r 4

# ---- run, its own options and the backend group -----------------------------------------------
effect "run -s" "steps: 2 (limit 2)" run -s 2
effect "run -r and -t" "seed 4)" run -r 4 -s 2 -t 1
effect "run --backend=cpu" "backend: cpu" run -s 1 --backend=cpu -t1
effect "options without a command are run's" "seed 6)" -s 1 -r 6
effect "run --prof (abbreviation) prints the stages" "kernels per step" run -s 1 --prof
silent "run -q prints nothing" run -q -s 2
silent "run --quiet prints nothing" run --quiet -s 2
run run -q -s 3 --csv="$tmp/c.csv"
check "run -q still writes the --csv (header and steps 0 to 3)" eval '[ "$rc" -eq 0 ] && [ "$(grep -vc "^#" "$tmp/c.csv")" -eq 5 ]'

# ---- --version and --help ----------------------------------------------------------------------
version_line() { grep -qE '^herd [0-9]+\.[0-9]+\.[0-9]+ \(commit [0-9a-f]{7,}(-dirty)?\)$' "$tmp/out"; }
for form in "--version" "-V" "run --version" "scenario -V" "bench --version" "sweep -V" "devices --version"; do
  # shellcheck disable=SC2086
  run $form
  check "herd $form prints the version and commit" eval '[ "$rc" -eq 0 ] && version_line && [ "$(wc -l <"$tmp/out")" -eq 1 ]'
done
run --help
check "herd --help shows the version and commit" eval '[ "$rc" -eq 0 ] && head -n 1 "$tmp/out" >"$tmp/first" && grep -qE "^herd [0-9.]+ \(commit " "$tmp/first"'
for command in run scenario bench sweep experiment devices; do
  effect "herd $command -h shows its usage" "usage: herd $command" "$command" -h
done
effect "herd run --help shows the short forms" "-r, --seed S" run --help
effect "herd bench --help shows -o" "-o, --out DIR" bench --help

# ---- bench, sweep, experiment ------------------------------------------------------------------
if command -v gnuplot >/dev/null; then # bench draws its plots with it
  silent "bench -q with -t, -s, -o" bench -q -t1 -s 1 --repeat=1 --sizes 300 --backends cpu -o "$tmp/bench"
  check "... wrote its results into -o" eval '[ -s "$tmp/bench/results.csv" ]'
fi
silent "sweep -q with -s, -t, -o" sweep -q --vary sheep.count=60 --seeds 1 -s 30 -t 1 -o "$tmp/sweep"
check "... wrote its runs into -o, each within -s steps" eval \
  '[ "$(grep -vc "^#" "$tmp/sweep/runs.csv")" -eq 2 ] && grep -v "^#" "$tmp/sweep/runs.csv" | awk -F, '"'"'NR == 2 { exit !($7 <= 30) }'"'"''
effect "experiment --lis (abbreviation) lists" "strombom-grid" experiment --lis

# ---- Errors ---------------------------------------------------------------------------------------
allowed_seed="(allowed: an integer from 0 to 9007199254740991)"
bad "--seed abc names --seed" "--seed: \"abc\" is not an integer $allowed_seed" run --seed abc --csv "$tmp/made/a.csv"
bad "-r abc names -r" "-r: \"abc\" is not an integer $allowed_seed" run -r abc --csv "$tmp/made/a.csv"
bad "--see=abc names --see" "--see: \"abc\" is not an integer" scenario --see=abc
bad "--seed -1 is out of range" "--seed: -1 is out of range $allowed_seed" scenario --seed -1
bad "--steps 0" "--steps: 0 is out of range (allowed: an integer from 1 to 1000000000)" run --steps 0
bad "-s x" "-s: \"x\" is not an integer" run -s x --csv "$tmp/made/a.csv"
bad "an unknown option with a suggestion" "run: unknown option --forse (did you mean --force?)" run --forse
bad "an unknown option far from any" "run: unknown option --zzzzzzzz (see herd run --help)" run --zzzzzzzz
bad "an unknown short option" "run: unknown option -x (see herd run --help)" run -x
bad "an unknown short option in a cluster" "run: unknown option -x" run --profile -qx
bad "a value given to a flag" "--quiet: takes no value (given \"1\")" run --quiet=1
bad "an ambiguous abbreviation" "run: --s is ambiguous (could be --seed, --steps, --set, --set-at, --summary)" run --s 5
bad "a missing value (long)" "--threads: needs a value" run -s 1 --threads
bad "a missing value (short)" "-t: needs a value" run -s 1 -t
bad "-t 0" "-t: 0 is out of range (allowed: an integer from 1 to 1024)" run -t 0
bad "--device= is empty" "--device: empty" run --device=
bad "an option after -- is a file" "--seed: cannot open" run -- --seed
bad "herd scenario: unknown option" "scenario: unknown option --frobnicate" scenario --frobnicate
bad "herd devices takes no operands" "devices: extra: takes no operands" devices extra
bad "bench --sizes names the option" "--sizes: \"1\" is not allowed" bench --sizes 1 -o "$tmp/made/b"
bad "bench -o without a value" "-o: needs a value" bench -o
bad "bench -s as typed" "-s: \"0\" is not allowed" bench -s 0 -o "$tmp/made/b"
bad "sweep -s 0 as typed" "-s: 0 is out of range" sweep --seeds 1 -s 0 -o "$tmp/made/s"
bad "sweep --vray suggests --vary" "sweep: unknown option --vray (did you mean --vary?)" sweep --vray x=1 -o "$tmp/made/s"
bad "experiment --bath suggests --batch" "experiment: unknown option --bath (did you mean --batch?)" experiment --bath 2
run run "--fo$(printf '\033')[2Jo"
check "an unknown option with a terminal escape stays one escaped line" eval \
  '[ "$rc" -eq 2 ] && one_line && ! grep -q "$(printf "\033")" "$tmp/err"'

# ---- The viewer's commands (builds with the viewer only; no display needed for errors) ---------
if "$HERD" view --help >/dev/null 2>&1; then
  bad "view --steps 0 without --screenshot" "--steps: 0 is allowed only with --screenshot" view --steps 0
  bad "view -s 0 names -s" "-s: 0 is allowed only with --screenshot" view -s 0
  bad "view --frames=0" "--frames: 0 is out of range" view --frames=0
  bad "record --fps abc" "--fps: \"abc\" is not an integer" record -o "$tmp/made/v.mp4" --fps abc
  bad "record --output= missing file" "record: -o FILE is required" record
  effect "record -h shows -o, --output" "-o, --output FILE" record -h
fi

finish
