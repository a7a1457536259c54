#!/usr/bin/env bash
# herd view as a user runs it, under a (virtual) display: --screenshot writes a PNG of the
# size asked, never replaces a file without --force, and option errors exit 2.
#   bash tests/test_view_cli.sh PATH_TO_HERD   (ctest runs it under xvfb-run)
set -u
HERD=${1:?usage: bash tests/test_view_cli.sh PATH_TO_HERD}
[ -n "${DISPLAY:-}" ] || { echo "no display: skipped"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/herd-test-view.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0 rc=0
run() { "$HERD" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
check() {
  local name=$1
  shift
  if "$@"; then passed=$((passed + 1)); else
    failed=$((failed + 1))
    echo "FAILED: $name (exit $rc)"
    echo "  stdout: $(head -c 300 "$tmp/out")"
    echo "  stderr: $(head -c 300 "$tmp/err")"
  fi
}
differs() { ! cmp -s "$1" "$2"; }
# WxH from a PNG's header (signature, then the IHDR chunk's big-endian width and height).
png_size() {
  [ "$(od -An -tx1 -N8 "$1" 2>/dev/null | tr -d ' \n')" = 89504e470d0a1a0a ] || { echo not-png; return; }
  od -An -tu1 -j16 -N8 "$1" | awk '{ printf "%dx%d\n", (($1 * 256 + $2) * 256 + $3) * 256 + $4, (($5 * 256 + $6) * 256 + $7) * 256 + $8 }'
}

run view --screenshot "$tmp/a.png" --size 320x200 --steps 10
check "--screenshot exits 0" [ "$rc" -eq 0 ]
check "--screenshot writes a PNG of the size asked" [ "$(png_size "$tmp/a.png")" = 320x200 ]
check "--screenshot says what it wrote" grep -q "step 10" "$tmp/out"
cp "$tmp/a.png" "$tmp/a.copy"
run view --screenshot "$tmp/a.png" --size 320x200 --steps 20
check "--screenshot refuses to replace a file" [ "$rc" -eq 2 ]
check "... and leaves it as it was" cmp -s "$tmp/a.png" "$tmp/a.copy"
run view --screenshot "$tmp/a.png" --size 320x200 --steps 20 --force
check "--force replaces it" [ "$rc" -eq 0 ]
check "... with another picture" differs "$tmp/a.png" "$tmp/a.copy"
run view --screenshot "$tmp/b.png" --steps 5 --hud
check "--hud draws the HUD into the picture" [ "$rc" -eq 0 ]
run view --size 10x10 --screenshot "$tmp/c.png"
check "--size too small exits 2" [ "$rc" -eq 2 ]
run view --screenshot "$tmp/no/such/dir/d.png"
check "an unwritable --screenshot exits 2" [ "$rc" -eq 2 ]
run view --bogus
check "an unknown view option exits 2" [ "$rc" -eq 2 ]
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
