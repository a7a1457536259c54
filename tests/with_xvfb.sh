#!/usr/bin/env bash
# Runs a command with DISPLAY set to a private Xvfb server on a random display number
# (a server that is still shutting down keeps its number busy for a moment, so numbers are
# never reused back to back, as -displayfd or xvfb-run -a would). Started with SIGUSR1
# ignored, the server signals this script with SIGUSR1 once it takes connections (the X
# server's readiness handshake). -noreset: an X server whose last client leaves resets
# itself, and a client connecting during the reset fails. Exit 77 (skipped) without Xvfb.
#   bash tests/with_xvfb.sh COMMAND [ARG...]
command -v Xvfb >/dev/null || { echo "Xvfb not installed: skipped"; exit 77; }
ready=0
trap 'ready=1' USR1
for _ in 1 2 3 4 5 6 7 8; do
  number=$((1000 + RANDOM % 30000))
  [ -e "/tmp/.X$number-lock" ] && continue
  (trap '' USR1; exec Xvfb ":$number" -screen 0 1400x900x24 -nolisten tcp -noreset 2>/dev/null) &
  server=$!
  for _ in $(seq 1200); do # a minute: a loaded machine may take seconds to start it
    [ "$ready" = 1 ] && break
    kill -0 "$server" 2>/dev/null || break
    sleep 0.05
  done
  [ "$ready" = 1 ] && break
  kill "$server" 2>/dev/null
  wait "$server" 2>/dev/null
done
[ "$ready" = 1 ] || { echo "Xvfb did not start"; exit 1; }
DISPLAY=":$number" "$@"
status=$?
kill "$server" 2>/dev/null
wait "$server" 2>/dev/null
exit $status
