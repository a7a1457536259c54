# Sourced by test_web.sh, scripts/web-shot.sh and bench/web-fps.sh: serve_site FOLDER serves it
# on 127.0.0.1 at a free port, sets $port and $server (the server's pid, for the caller's trap
# to kill) and returns once the page answers (5 s at most).
serve_site() {
  port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  /usr/bin/python3 -m http.server -d "$1" -b 127.0.0.1 "$port" >/dev/null 2>&1 &
  server=$!
  for _ in $(seq 50); do
    /usr/bin/python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/')" 2>/dev/null && return 0
    sleep 0.1
  done
}
