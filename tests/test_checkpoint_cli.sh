#!/usr/bin/env bash
# herd run's checkpoints as a user runs them: a run stopped by Ctrl-C with --checkpoint-on-stop
# (likely inside a step: 10^5 sheep) and resumed ends in the very state of the run never
# stopped (their final checkpoints are the same bytes); --resume refuses a changed scenario
# and damaged files (exit 2, one line, nothing written); --checkpoint never replaces a file
# that was there without --force.
#
#   bash tests/test_checkpoint_cli.sh PATH_TO_HERD        (from the repository root; ctest does this)
set -u
HERD=${1:?usage: bash tests/test_checkpoint_cli.sh PATH_TO_HERD}
source "$(dirname "$0")/check.sh"

big=(--set sheep.count=100000 --set "target.position_m=[-1e6,-1e6]" --threads 2 --quiet)

# ---- Ctrl-C, checkpoint, resume: the same end as a run never stopped ----------------------
stop_and_resume() {
  local backend=$1 at end
  "$HERD" run "${big[@]}" --backend "$backend" --steps 100000 --csv "$tmp/stopped.csv" \
    --checkpoint "$tmp/stop.ckpt" --checkpoint-on-stop >"$tmp/out" 2>"$tmp/err" &
  pid=$!
  # Until a few steps are in the CSV (flushed every second): past set-up, where Ctrl-C would end
  # herd at once with nothing written, and past step 2.
  wait_for "$pid" "$backend: 4 lines in the CSV" \
    eval '[ "$(cat "$tmp/stopped.csv".part-* 2>/dev/null | grep -vc "^#")" -ge 4 ]' && kill -INT "$pid"
  wait "$pid"
  rc=$?
  check "$backend: Ctrl-C with --checkpoint-on-stop exits 130" is "$rc" 130
  check "$backend: ... and says where it checkpointed" has "herd: checkpoint $tmp/stop.ckpt: step " "$tmp/err"
  at=$(sed -n 's/.*checkpoint .*: step \([0-9]*\)$/\1/p' "$tmp/err")
  check "$backend: ... a step past the start ($at)" eval '[ "${at:-0}" -ge 2 ]'
  end=$((${at:-0} + 3))
  run run --resume "$tmp/stop.ckpt" --steps "$end" --threads 2 --checkpoint "$tmp/resumed.ckpt"
  check "$backend: the resumed run finishes" is "$rc" 0
  check "$backend: ... from the step it was stopped at" has "steps: $end (limit $end)" "$tmp/out"
  run run "${big[@]}" --backend "$backend" --steps "$end" --checkpoint "$tmp/straight.ckpt"
  check "$backend: the run never stopped finishes" is "$rc" 0
  check "$backend: the resumed run ends in the very state of the run never stopped" \
    cmp -s "$tmp/resumed.ckpt" "$tmp/straight.ckpt"
  rm -f "$tmp"/*.ckpt "$tmp"/stopped.csv*
}
stop_and_resume cpu
if "$HERD" devices >/dev/null 2>&1; then stop_and_resume opencl; fi

# ---- Refusals: exit 2, one line, nothing written -----------------------------------------
small=(--set sheep.count=60 --steps 40 --quiet)
run run "${small[@]}" --checkpoint "$tmp/small.ckpt"
check "a finished run writes its checkpoint" eval 'is "$rc" 0 && [ -s "$tmp/small.ckpt" ]'
run run --resume "$tmp/small.ckpt" --set sheep.count=61 --csv "$tmp/no.csv"
check "--resume refuses --set of the scenario" eval 'is "$rc" 2 && has "sheep.count=61" "$tmp/err" && [ ! -e "$tmp/no.csv" ]'
run run --resume "$tmp/small.ckpt" --set-at 50:sheep.noise=0.5 --csv "$tmp/no.csv"
check "--resume refuses --set-at, naming it" eval 'is "$rc" 2 && has "--resume: --set-at 50:sheep.noise=0.5 would change" "$tmp/err" && [ ! -e "$tmp/no.csv" ]'
head -c 300 "$tmp/small.ckpt" >"$tmp/cut.ckpt"
run run --resume "$tmp/cut.ckpt" --csv "$tmp/no.csv"
check "--resume refuses a truncated file" eval 'is "$rc" 2 && has "truncated" "$tmp/err" && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -e "$tmp/no.csv" ]'
run run --resume scenarios/farm.json
check "--resume refuses a file that is no checkpoint" eval 'is "$rc" 2 && has "not a herd checkpoint" "$tmp/err"'
printf 'mine\n' >"$tmp/mine"
run run "${small[@]}" --checkpoint "$tmp/mine" --checkpoint-every 10
check "--checkpoint refuses to replace a file that was there" eval 'is "$rc" 2 && [ "$(cat "$tmp/mine")" = mine ]'
run run "${small[@]}" --checkpoint "$tmp/mine" --checkpoint-every 10 --force
check "... unless --force" eval 'is "$rc" 0 && has HERDCKPT "$tmp/mine"'
run run --resume "$tmp/small.ckpt" --steps 80 --checkpoint "$tmp/small.ckpt" --checkpoint-every 20
check "a resumed run may go on writing its own checkpoint" eval 'is "$rc" 0 && has "steps: 80 (limit 80)" "$tmp/out"'

finish
