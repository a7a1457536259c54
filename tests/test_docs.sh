#!/usr/bin/env bash
# The docs cannot drift from the program: every quoted block in README.md, docs/ and
# python/README.md (a `<!-- docs: COMMAND -->` marker above a ``` block) is what its commands
# print now (scripts/docs.sh --check: only timings, the peak memory and the commit in version
# lines are normalised, as that script's header says); a planted difference is caught; every
# picture command names a file that exists and that its page links; the hand-written synopsis
# of every command names only options that exist, and every model; the README is one page with
# the two commands; no page names an issue by number; every relative link resolves.
# Pictures are not remade here (that needs a display and minutes): scripts/docs.sh does it.
#
#   bash tests/test_docs.sh PATH_TO_HERD        (from the repository root; ctest does this)
#
# Ends with the line "N passed, N failed"; exits 1 when any check failed.
set -u

HERD=${1:?usage: bash tests/test_docs.sh PATH_TO_HERD}
if [ ! -x "$HERD" ] || [ ! -f scripts/docs.sh ]; then
  echo "test_docs.sh: $HERD is not an executable, or no scripts/docs.sh here (run from the repository root)" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
HERD=$(cd "$(dirname "$HERD")" && pwd)/$(basename "$HERD")
export HERD

# shellcheck source=tests/check.sh
source "$(dirname "$0")/check.sh"
# shellcheck source=scripts/docs.sh
source scripts/docs.sh

# fails OUT COMMAND...: true when COMMAND fails; what it printed in OUT.
fails() {
  local out=$1
  shift
  ! "$@" >"$out" 2>&1
}

mapfile -t pages < <(docs_files)

# ---- Every quoted block is what its commands print ---------------------------------------
blocks=0
for page in "${pages[@]}"; do
  n=$(grep -cE '^ *<!-- docs(-md)?: ' "$page")
  [ "$n" -gt 0 ] || continue
  blocks=$((blocks + n))
  check "$page: every quoted block is what its command prints" docs_check_file "$page"
done
# The README's default run and the --help and error examples at least.
check "at least 8 quoted commands ($blocks found)" test "$blocks" -ge 8
# A Markdown block (docs-md) is remade too: one whose table was edited by hand differs.
sed 's/| reproduced |/| not reproduced |/' docs/experiments.md >"$tmp/experiments.md"
check "a docs-md block edited by hand is caught" fails "$tmp/out" docs_check_file "$tmp/experiments.md"
# A marker that is not exactly `<!-- docs: COMMAND -->`, `<!-- docs-picture: COMMAND -->` or
# `<!-- docs-md: COMMAND -->` would be skipped silently.
malformed() { grep -nE '^ *<!-- *docs' "${pages[@]}" | grep -vE ':[0-9]+: *<!-- docs(-picture|-md)?: .+ -->$'; }
well_formed() { ! malformed; }
check "every docs marker is well formed" well_formed

# ---- A planted difference fails ------------------------------------------------------------
# The README with one character added to the first line of output under its first quoted
# command, and with a line of a --help block removed: each must be caught.
awk 'done == 0 && prev ~ /^ *\$ herd / { $0 = $0 "x"; done = 1 } { prev = $0; print }' README.md >"$tmp/planted.md"
check "the planted copy differs from the README" differs README.md "$tmp/planted.md"
check "a changed line of output is caught" fails "$tmp/planted.diff" docs_check_file "$tmp/planted.md"
check "the difference is shown" grep -q -- '^-[^-].*x$' "$tmp/planted.diff"
page=docs/guide/bench.md
awk '/^  --model M/ { next } { print }' "$page" >"$tmp/dropped.md"
check "the planted bench page lacks its --model line" differs "$page" "$tmp/dropped.md"
check "a missing line of --help is caught" fails /dev/null docs_check_file "$tmp/dropped.md"
printf '<!-- docs: herd run -->\nno block\n' >"$tmp/no_block.md"
check "a marker without a block is refused" fails "$tmp/no_block.out" docs_check_file "$tmp/no_block.md"
check "which marker is said" grep -qF "no_block.md:2: a <!-- docs: --> marker must stand" "$tmp/no_block.out"

# ---- The synopsis of every command in docs/guide/README.md, written by hand ----------------
# synopsis: the lines of its block.
synopsis() { awk '/^## Every command/ { on = 1 } on && /^```/ { if (++fence == 2) exit; next } fence == 1' docs/guide/README.md; }
# Every --option it names is in that command's --help.
synopsis_options_exist() {
  local line cmd='' opt bad=0
  while IFS= read -r line; do
    [[ $line =~ ^herd\ ([a-z]+) ]] && cmd=${BASH_REMATCH[1]}
    [ -n "$cmd" ] || continue
    while IFS= read -r opt; do
      "$HERD" "$cmd" --help 2>&1 | grep -qE -- "$opt([^a-z-]|\$)" || { echo "  herd $cmd --help has no $opt"; bad=1; }
    done < <(grep -oE -- '--[a-z][a-z-]*' <<<"$line")
  done < <(synopsis)
  return "$bad"
}
check "the synopsis has lines" test "$(synopsis | wc -l)" -ge 10
check "every option in the synopsis is in its command's --help" synopsis_options_exist
# Its --model list names every model herd bench --help names.
models_listed() {
  local listed model bad=0
  listed=$(synopsis | grep -oE -- '--model [a-z0-9|]+' | cut -d' ' -f2 | tr '|' ' ')
  for model in $("$HERD" bench --help | grep -- '--model M' | sed -E 's/.*: //; s/ \(default\)//; s/,//g'); do
    [[ " $listed " == *" $model "* ]] || { echo "  the synopsis's herd bench --model lacks $model"; bad=1; }
  done
  return "$bad"
}
check "the synopsis's --model list names every model" models_listed

# ---- Pictures: each command's file exists and its page links it --------------------------
pictures=0
for page in "${pages[@]}"; do
  while IFS=$'\t' read -r line cmd; do
    pictures=$((pictures + 1))
    target=$(docs_picture_target "$cmd")
    check "$page:$line: the picture command names a file under docs/images/" test -n "$target"
    [ -n "$target" ] || continue
    check "$page:$line: $target exists" test -s "$target"
    check "$page:$line: the page links $(basename "$target")" grep -qE "(\]\(|src=\")[^)\"]*$(basename "$target")[)\"]" "$page"
  done < <(docs_markers docs-picture "$page")
done
check "at least 20 picture commands ($pictures found)" test "$pictures" -ge 20

# ---- One page of README, with the two commands ----------------------------------------------
check "README.md is at most 150 lines ($(wc -l <README.md))" test "$(wc -l <README.md)" -le 150
check "README.md gives ./scripts/herd" grep -qx './scripts/herd' README.md
check "README.md gives ./scripts/test" grep -qx './scripts/test' README.md

# ---- No issue numbers --------------------------------------------------------------------------
no_issue_numbers() { ! grep -nE "[Ii]ssues? #?[0-9]+" "${pages[@]}"; }
check "no page names an issue by number" no_issue_numbers

# ---- Every relative link resolves -----------------------------------------------------------------
# links PAGE: the relative targets of PAGE's Markdown links and <img src>, without anchors.
links() {
  grep -oE '\]\([^) ]+\)|src="[^"]+"' "$1" | sed -E 's/^\]\(//; s/\)$//; s/^src="//; s/"$//' |
    grep -vE '^(https?:|mailto:|#)' | sed -E 's/#.*//'
}
broken() {
  local page target bad=0
  for page in "${pages[@]}"; do
    while IFS= read -r target; do
      [ -e "$(dirname "$page")/$target" ] || { echo "  $page: $target"; bad=1; }
    done < <(links "$page")
  done
  return "$bad"
}
check "every relative link resolves" broken

finish
