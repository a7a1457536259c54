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

finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
