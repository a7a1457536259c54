#!/usr/bin/env bash
# Remakes what README.md and the pages under docs/ show of herd: every quoted output, picture
# and recording, each from the command written beside it, so that none can drift from what the
# program does.
#
#   scripts/docs.sh [--text | --pictures] [--only REGEX] [FILE.md...]   remake them (--only:
#                                                 the picture commands matching REGEX)
#   scripts/docs.sh --check [FILE.md...]                                 compare, write nothing
#
# The commands are marked in the Markdown with HTML comments (invisible on GitHub):
#
#   <!-- docs: COMMAND -->          one or more such lines directly above a ``` block: the
#                                   block becomes, for each COMMAND, the line "$ COMMAND" and
#                                   what it prints (standard output, then standard error)
#   <!-- docs-md: COMMAND -->       above a block that ends with the line <!-- docs-md: end -->:
#                                   the block becomes what COMMAND prints (standard output), as
#                                   Markdown (a table, say), not quoted
#   <!-- docs-picture: COMMAND -->  a command that writes a picture or a video (herd view
#                                   --screenshot, herd record, a plotting script): the first
#                                   word under docs/images/ is the file it writes, which the
#                                   same page must link
#
# COMMAND is a bash command line run from the repository root in which `herd` is the built
# program ($HERD, or build/herd; under `timeout 600`). Quoted commands run with LC_ALL=C.UTF-8
# and no OpenCL device chosen (HERD_CL_DEVICE unset). Pictures run under `xvfb-run -a` when
# there is no display, and need ffmpeg for videos; they take minutes (--only picks some).
#
# --check remakes every quoted block in memory and compares it with the page; it prints the
# difference and exits 1 when any block differs. Only what truly varies between two runs of the
# same command is normalised on both sides, nothing else: in a run's summary the `wall time:`
# and `speed:` lines (timings) and the peak memory of the `memory:` line (the process's peak
# resident size, which depends on the libraries loaded and on sanitizers; the agent and grid
# arrays' bytes per agent after it are compared), and the git commit in a version line
# (`herd 0.1.0 (commit 0123456789ab)`), which changes with every commit. Pictures are not
# compared (--check does not remake them: that needs a display and minutes); tests/test_docs.sh
# checks that each picture command names a file that exists and that its page links.
#
# With no FILE: README.md, docs/*.md, docs/*/*.md and python/README.md.
set -uo pipefail

docs_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
: "${HERD:=$docs_root/build/herd}"
: "${HERD_LIB:=$(dirname "$HERD")/libherd.so}" # for the Python examples
export HERD HERD_LIB

# docs_files: the pages docs.sh reads by default, relative to the repository root.
docs_files() {
  (cd "$docs_root" && ls README.md docs/*.md docs/*/*.md python/README.md 2>/dev/null)
}

# docs_run COMMAND: runs COMMAND from the repository root, `herd` being $HERD, in a subshell.
docs_run() {
  (
    cd "$docs_root" || exit 1
    unset HERD_CL_DEVICE
    export LC_ALL=C.UTF-8
    # shellcheck disable=SC2317 # called by the eval'ed command
    herd() { timeout 600 "$HERD" "$@"; }
    eval "$1"
  ) </dev/null
}

# docs_output COMMAND: docs_run COMMAND; prints its standard output then its standard error,
# each ending in a newline.
docs_output() {
  local out err
  out=$(mktemp) && err=$(mktemp) || return 1
  docs_run "$1" >"$out" 2>"$err"
  # shellcheck disable=SC1003 # sed's "append" command, not an escaped quote
  sed -s -e '$a\' "$out" "$err"
  rm -f "$out" "$err"
}

# docs_render FILE: FILE with every quoted block remade from its commands, on standard output.
# Returns 1 (after saying where) when a marker is not followed by a ``` block.
docs_render() {
  local file=$1 line n=0 skipping=0 markdown=0 indent='' cmd
  local -a cmds=()
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    if ((markdown)); then
      [[ $line == '<!-- docs-md: end -->' ]] && { markdown=0; printf '%s\n' "$line"; }
      continue
    fi
    if [[ $line =~ ^'<!-- docs-md: '(.*)' -->'$ && ${BASH_REMATCH[1]} != end ]]; then
      printf '%s\n' "$line"
      docs_run "${BASH_REMATCH[1]}" || {
        echo "docs.sh: $file:$n: the command failed" >&2
        return 1
      }
      markdown=1
      continue
    fi
    if ((skipping)); then
      [[ $line == "$indent"'```' ]] && { skipping=0; printf '%s\n' "$line"; }
      continue
    fi
    if [[ $line =~ ^(\ *)'<!-- docs: '(.*)' -->'$ ]]; then
      indent=${BASH_REMATCH[1]}
      cmds+=("${BASH_REMATCH[2]}")
      printf '%s\n' "$line"
      continue
    fi
    if ((${#cmds[@]})); then
      if [[ $line != "$indent"'```'* ]]; then
        echo "docs.sh: $file:$n: a <!-- docs: --> marker must stand directly above a \`\`\` block" >&2
        return 1
      fi
      printf '%s\n' "$line"
      for cmd in "${cmds[@]}"; do
        printf '%s$ %s\n' "$indent" "$cmd"
        docs_output "$cmd" | sed -e "s/^/$indent/"
      done
      cmds=()
      skipping=1
      continue
    fi
    printf '%s\n' "$line"
  done <"$file"
  if ((skipping)) || ((${#cmds[@]})) || ((markdown)); then
    echo "docs.sh: $file: a quoted block (or a docs-md block) is not closed" >&2
    return 1
  fi
}

# docs_normalise: what varies between two runs of one command, made equal (see the top).
docs_normalise() {
  sed -E -e 's/^( *)wall time: .*/\1wall time: (varies)/' \
    -e 's/^( *)speed: .*/\1speed: (varies)/' \
    -e 's/^( *)memory: [0-9.]+ [KMG]iB peak \([0-9.]+ bytes per agent\)/\1memory: (varies) peak ((varies) bytes per agent)/' \
    -e 's/\(commit [^)]*\)/(commit (varies))/g'
}

# docs_check_file FILE: true when every quoted block of FILE is what its commands print now;
# otherwise prints the difference (- the page, + the program).
docs_check_file() {
  local file=$1 now
  now=$(mktemp) || return 1
  if ! docs_render "$file" >"$now"; then
    rm -f "$now"
    return 1
  fi
  if ! diff -u --label "$file (the page)" --label "$file (what herd prints now)" \
    <(docs_normalise <"$file") <(docs_normalise <"$now"); then
    rm -f "$now"
    return 1
  fi
  rm -f "$now"
}

# docs_markers KIND FILE: the commands of FILE's markers of KIND (docs or docs-picture), one a
# line, as "LINE<TAB>COMMAND".
docs_markers() {
  local kind=$1 file=$2
  awk -v kind="$kind" '{
    line = $0; sub(/^ */, "", line)
    prefix = "<!-- " kind ": "
    if (index(line, prefix) == 1 && substr(line, length(line) - 3) == " -->")
      printf "%d\t%s\n", NR, substr(line, length(prefix) + 1, length(line) - length(prefix) - 4)
  }' "$file"
}

# docs_picture_target COMMAND: the file a picture command writes: its first word under
# docs/images/ (a command that makes a file in steps keeps its scratch files elsewhere).
docs_picture_target() {
  local -a words
  local word
  read -r -a words <<<"$1"
  for word in "${words[@]}"; do
    [[ $word == docs/images/* ]] && echo "$word" && return 0
  done
  return 1
}

# docs_pictures FILE REGEX: runs FILE's picture commands that match REGEX.
docs_pictures() {
  local file=$1 only=$2 n cmd
  while IFS=$'\t' read -r n cmd; do
    [[ $cmd =~ $only ]] || continue
    echo "docs.sh: $file:$n: $cmd"
    if ! (
      cd "$docs_root" || exit 1
      # shellcheck disable=SC2317 # called by the eval'ed command
      herd() {
        if [ -n "${DISPLAY:-}" ]; then "$HERD" "$@"; else xvfb-run -a "$HERD" "$@"; fi
      }
      eval "$cmd"
    ) </dev/null; then
      echo "docs.sh: $file:$n: the command failed" >&2
      return 1
    fi
  done < <(docs_markers docs-picture "$file")
}

docs_main() {
  local text=1 pictures=1 check=0 only='' file now status=0
  local -a files=()
  while (($#)); do
    case $1 in
      --text) pictures=0 ;;
      --pictures) text=0 ;;
      --check) check=1 pictures=0 ;;
      --only)
        only=${2:?docs.sh: --only needs a regular expression}
        shift
        ;;
      -h | --help)
        sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'
        return 0
        ;;
      -*)
        echo "docs.sh: unknown option $1 (see --help)" >&2
        return 2
        ;;
      *) files+=("$1") ;;
    esac
    shift
  done
  if [ ! -x "$HERD" ]; then
    echo "docs.sh: no herd program at $HERD (build it: scripts/build.sh build, or set HERD)" >&2
    return 2
  fi
  ((${#files[@]})) || mapfile -t files < <(docs_files)
  cd "$docs_root" || return 1
  for file in "${files[@]}"; do
    if ((check)); then
      docs_check_file "$file" || status=1
      continue
    fi
    if ((text)) && grep -qE '<!-- docs(-md)?: ' "$file"; then
      now=$(mktemp "$file.part-XXXXXX") || return 1
      if docs_render "$file" >"$now"; then
        # Only what varies between runs differs: the page stays as it is.
        if cmp -s <(docs_normalise <"$now") <(docs_normalise <"$file"); then
          rm -f "$now"
        else
          chmod --reference="$file" "$now" && mv "$now" "$file" && echo "docs.sh: $file: quoted output remade"
        fi
      else
        rm -f "$now"
        status=1
      fi
    fi
    if ((pictures)); then docs_pictures "$file" "$only" || status=1; fi
  done
  return "$status"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  docs_main "$@"
  exit $?
fi
