# Sourced by the shell tests: a scratch folder, `run` to call herd, `check` to count a check,
# `finish` for the closing "N passed, N failed" line. Needs HERD set by the test.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/herd-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0 rc=0

# run ARGS...: runs herd; the exit status in $rc, stdout in $tmp/out, stderr in $tmp/err.
run() {
  "$HERD" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
}

# check NAME CONDITION...: counts one check; on failure prints the name, the last run's exit
# status and the start of its output.
check() {
  local name=$1
  shift
  if "$@"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAILED: $name (exit $rc)"
    echo "  stdout: $(head -c 300 "$tmp/out" 2>/dev/null)"
    echo "  stderr: $(head -c 300 "$tmp/err" 2>/dev/null)"
  fi
}

is() { [ "$1" = "$2" ]; }
differs() { ! cmp -s "$1" "$2"; }
has() { grep -qF -- "$1" "$2"; }
absent() { [ ! -e "$1" ]; }
is_png() { [ "$(od -An -tx1 -N8 "$1" 2>/dev/null | tr -d ' \n')" = 89504e470d0a1a0a ]; }

# wait_for PID WHAT CONDITION...: for a run in the background (PID), polls CONDITION (a command,
# as check takes it: `eval '...'` re-reads globs each time) every 0.1 s until it holds. What a run
# shows (a file, a row, a line) is waited for, never a time: set-up alone (placing a flock,
# building kernels) takes seconds on a slow machine. Counts one failed check and kills PID when
# the run ends first or after WAIT_TRIES tries (1200: two minutes); returns 1 then.
wait_for() {
  local pid=$1 what=$2 try
  shift 2
  for ((try = 0; try < ${WAIT_TRIES:-1200}; ++try)); do
    "$@" && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  "$@" && return 0
  failed=$((failed + 1))
  if kill -0 "$pid" 2>/dev/null; then
    echo "FAILED: waited $((${WAIT_TRIES:-1200} / 10)) s for $what; killed the run"
    kill -KILL "$pid" 2>/dev/null
  else
    echo "FAILED: the run ended before $what"
  fi
  return 1
}

finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
