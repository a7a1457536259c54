#!/usr/bin/env bash
# Runs a command with DISPLAY set to a private Xvfb server, which picks a free display
# number itself (-displayfd): unlike `xvfb-run -a`, two of these started at once never
# collide. Exit 77 (skipped) where Xvfb is not installed.
#   bash tests/with_xvfb.sh COMMAND [ARG...]
command -v Xvfb >/dev/null || { echo "Xvfb not installed: skipped"; exit 77; }
fifo=$(mktemp -u "${TMPDIR:-/tmp}/herd-xvfb.XXXXXX")
mkfifo "$fifo" || exit 1
Xvfb -displayfd 3 -screen 0 1400x900x24 -nolisten tcp 3>"$fifo" 2>/dev/null &
server=$!
read -r -t 20 number <"$fifo"
rm -f "$fifo"
if [ -z "${number:-}" ]; then
  kill "$server" 2>/dev/null
  echo "Xvfb did not start"
  exit 1
fi
DISPLAY=":$number" "$@"
status=$?
kill "$server" 2>/dev/null
wait "$server" 2>/dev/null
exit $status
