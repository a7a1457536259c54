#!/usr/bin/env bash
# bench/mpi-scaling.sh and bench/mpi_scaling_tables.py over a stand-in mpirun and herd: the
# stand-in herd writes a summary whose "mpi" numbers follow formulas this test knows, so the
# figures in scaling.csv are checked against those formulas, not against themselves. Also:
# the runs it starts (ranks, agents, --mpi, one thread), a failed run, a herd that reports no
# "mpi" object, the refusals (exit 2), and bench/mpi_model.py reading the result.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_mpi_scaling.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failures=0
check() { # check WHAT COMMAND...: counts a failure instead of stopping
  if "${@:2}"; then echo "ok: $1"; else echo "FAILED: $1"; failures=$((failures + 1)); fi
}

# mpirun -np P --oversubscribe PROGRAM ARGS...: runs PROGRAM once, telling it P.
cat >"$tmp/mpirun" <<'EOF'
#!/usr/bin/env bash
[ "${1:-}" = --version ] && { echo "fake mpirun 0"; exit 0; }
[ "$1" = -np ] && [ "$3" = --oversubscribe ] || { echo "fake mpirun: unexpected $*" >&2; exit 9; }
p=$2
shift 3
echo "np=$p $*" >>"$FAKE_LOG"
FAKE_RANKS=$p exec "$@"
EOF
# herd run --mpi ... --summary F: t/step = 1 ms per 10^4 agents per rank, times P/2 past 2
# ranks (cores shared); halo 100 (P - 1) agents of 24 bytes, 2 (P - 1) messages.
cat >"$tmp/herd" <<'EOF'
#!/usr/bin/python3
import json, os, sys
args = sys.argv[1:]
if args[:2] == ["run", "--help"]:
    print("  --mpi  (fake)" if not os.environ.get("FAKE_NO_MPI") else "no such option")
    sys.exit(0)
value = lambda opt: args[args.index(opt) + 1]
sets = dict(a.split("=", 1) for a in args if "=" in a and not a.startswith("-"))
n = int(sets.get("sheep.count") or sets["boids.count"])
model = "boids" if "boids.count" in sets else "strombom"
p, steps = int(os.environ["FAKE_RANKS"]), int(value("--steps"))
if os.environ.get("FAKE_FAIL") == "%s-%d" % (model, p):
    print("herd run: error: fake failure", file=sys.stderr)
    sys.exit(1)
per_step = 1e-3 * (n / p) / 1e4 * max(1.0, p / 2)
doc = {"steps": steps, "wall_time_s": per_step * steps,
       "provenance": {"herd": {"version": "9.9"}, "date": "2026-01-01T00:00:00Z", "command": "x",
                      "scenario": {"big": 1}, "host": {"cores": 2}}}
if not os.environ.get("FAKE_NO_MPI_OBJECT"):
    doc["mpi"] = {"ranks": p, "layout": "slabs", "px": p, "py": 1, "halo_width_m": 12.5,
                  "halo_agents_per_step": 100.0 * (p - 1), "halo_bytes_per_step": 2400.0 * (p - 1),
                  "messages_per_step": 2.0 * (p - 1), "migrated_per_step": 3.0 * (p - 1), "rebalances": 1,
                  "halo_grows": 0, "seconds": {"step": 0.5 * per_step * steps, "exchange": 0.002 * steps,
                                               "reduce": 0.001 * steps, "total": per_step * steps}}
with open(value("--summary"), "w") as f:
    json.dump(doc, f)
EOF
chmod +x "$tmp/mpirun" "$tmp/herd"
export MPIRUN=$tmp/mpirun FAKE_LOG=$tmp/calls
bench=$root/bench/mpi-scaling.sh

# csv_value FILE SCALING MODEL RANKS COLUMN: one cell of scaling.csv.
csv_value() {
  /usr/bin/python3 - "$@" <<'EOF'
import csv, sys
path, scaling, model, ranks, column = sys.argv[1:]
rows = csv.DictReader(l for l in open(path) if not l.startswith("#"))
print(*[r[column] for r in rows if (r["scaling"], r["model"], r["ranks"]) == (scaling, model, ranks)])
EOF
}
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= 1e-6 * (b < 0 ? -b : b) + 1e-12) }'; }

# 1. The whole bench: 2 models x (weak, strong) x P = 1..4, one boids run failing.
mkdir "$tmp/out"
rc=0
FAKE_FAIL=boids-3 bash "$bench" "$tmp/herd" "$tmp/out" --steps 5 --per-rank 1000 --total 6000 >"$tmp/stdout" 2>&1 || rc=$?
check "a failed run: exit 1, and the tables are still written" test "$rc" = 1 -a -f "$tmp/out/scaling.csv" -a -f "$tmp/out/scaling.md"
check "16 runs started" test "$(wc -l <"$tmp/calls")" = 16
check "each run: --mpi, the CPU backend, one thread, a summary" \
  test "$(grep -c -- 'run --mpi --backend cpu --threads 1 .*--summary' "$tmp/calls")" = 16
check "weak scaling: P = 3 runs 3 x per-rank sheep" grep -q 'np=3 .*sheep.count=3000 ' "$tmp/calls"
check "strong scaling: P = 4 runs --total sheep" grep -q 'np=4 .*sheep.count=6000 ' "$tmp/calls"
check "boids runs set the model" grep -q 'np=2 .*model=boids .*boids.count=2000 ' "$tmp/calls"
csv=$tmp/out/scaling.csv
check "provenance lines first, with the bench command and herd's version" \
  bash -c "head -1 '$csv' | grep -q '^# bench: bench/mpi-scaling.sh ' && grep -q '^# herd: {\"version\":\"9.9\"}' '$csv'"
check "no per-run scenario in the provenance" bash -c "! grep -q '^# scenario' '$csv'"
check "16 rows" test "$(grep -vc '^#' "$csv")" = 17
# The stand-in's formulas: weak P = 4: 1000 agents per rank -> 0.1 ms x 2 = 0.2 ms per step.
check "weak P=4 ms_per_step" near "$(csv_value "$csv" weak strombom 4 ms_per_step)" 0.2
check "weak P=4 efficiency t1/t4 = 0.1/0.2" near "$(csv_value "$csv" weak strombom 4 efficiency)" 0.5
# strong P = 4: 1500 per rank -> 0.15 x 2 = 0.3 ms; t1 = 0.6 ms; 0.6 / (4 x 0.3).
check "strong P=4 efficiency t1/(P t4)" near "$(csv_value "$csv" strong strombom 4 efficiency)" 0.5
check "strong P=2 ns per agent-step (0.3 ms / 3000 agents)" near "$(csv_value "$csv" strong strombom 2 ns_per_agent_step)" 100
check "exchange ms per step from mpi.seconds" near "$(csv_value "$csv" weak strombom 3 exchange_ms)" 2
check "bytes per message = halo bytes / messages" near "$(csv_value "$csv" weak strombom 3 bytes_per_message)" 1200
check "halo agents copied" near "$(csv_value "$csv" strong boids 4 halo_agents_per_step)" 300
check "the failed run is listed as failed" test "$(csv_value "$csv" weak boids 3 status)" = "failed (exit 1)"
md=$tmp/out/scaling.md
check "md: a table per model and scaling" test "$(grep -c '^## .* scaling' "$md")" = 4
check "md: says what oversubscription means" grep -q 'ranks share cores' "$md"
check "md: the failed run" grep -q 'failed (exit 1)' "$md"

# 2. The model reads the result.
mkdir "$tmp/model"
check "mpi_model.py reads scaling.csv" /usr/bin/python3 "$root/bench/mpi_model.py" --scaling "$csv" --out "$tmp/model"
check "mpi_model.py takes the measured halo width and bytes per agent" \
  bash -c "grep -q '| w | 12.50 m | measured' '$tmp/model/mpi-model.md' && grep -q '| b | 24 bytes per halo agent | measured' '$tmp/model/mpi-model.md'"
# The stand-in sends 2 (P - 1) messages over slabs: one per neighbour.
check "mpi_model.py takes the measured messages per neighbour" \
  grep -q '| m | 1 messages per neighbour per step | measured' "$tmp/model/mpi-model.md"

# 3. A herd that reports no "mpi" object: the tables come out, the mpi cells empty.
mkdir "$tmp/plain"
check "no mpi object: exit 0" env FAKE_NO_MPI_OBJECT=1 bash "$bench" "$tmp/herd" "$tmp/plain" --steps 2 --ranks "1 2" --models strombom
check "no mpi object: times present, halo empty" \
  test "$(csv_value "$tmp/plain/scaling.csv" weak strombom 2 halo_agents_per_step)" = "" -a \
  -n "$(csv_value "$tmp/plain/scaling.csv" weak strombom 2 ms_per_step)"
rm "$tmp/plain/scaling.csv"
tables_only() {
  bash "$bench" "$tmp/herd" "$tmp/plain" --tables-only &&
    grep -qF -- '--ranks 1\ 2 --models strombom' <(grep '^# bench: ' "$tmp/plain/scaling.csv")
}
check "--tables-only rewrites from the runs, naming the command that ran them" tables_only

# 4. Refusals.
refuses() { # refuses STATUS TEXT ARGS...: the bench exits STATUS and says TEXT
  local want=$1 text=$2 got=0
  shift 2
  bash "$bench" "$@" >"$tmp/err" 2>&1 || got=$?
  [ "$got" = "$want" ] && grep -q -- "$text" "$tmp/err"
}
check "existing scaling.csv without --force" refuses 2 'exists (--force replaces it)' "$tmp/herd" "$tmp/plain"
check "bad --steps" refuses 2 "\-\-steps: expected a whole number > 0, got 'x'" "$tmp/herd" "$tmp/new" --steps x
mkdir "$tmp/new"
check "bad --ranks" refuses 2 "\-\-ranks: expected a whole number > 0, got '0'" "$tmp/herd" "$tmp/new" --ranks "1 0"
check "bad --models" refuses 2 "\-\-models: expected strombom or boids" "$tmp/herd" "$tmp/new" --models fish
check "missing OUTDIR" refuses 2 "is not a folder" "$tmp/herd" "$tmp/none"
check "unknown option" refuses 2 "unknown option --bogus" "$tmp/herd" "$tmp/new" --bogus
check "a herd without --mpi" env FAKE_NO_MPI=1 bash -c "! bash '$bench' '$tmp/herd' '$tmp/new' 2>'$tmp/err'; grep -q 'has no --mpi option' '$tmp/err'"

echo "$failures failed"
[ "$failures" = 0 ]
