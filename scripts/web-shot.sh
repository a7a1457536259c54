#!/usr/bin/env bash
# A screenshot of herd's page (the README's): scripts/web-shot.sh OUT.png. Builds the page
# with scripts/web.sh into build-web/ when it is not there, serves it on 127.0.0.1 and has
# headless Chromium (playwright-core from tests/web/package-lock.json) take the picture:
# the default scenario after 40 steps.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: scripts/web-shot.sh OUT.png}
case "$out" in /*) ;; *) out=$PWD/$out ;; esac
site=$root/build-web
[ -f "$site/index.html" ] || "$root/scripts/web.sh" "$site" >/dev/null
(cd "$root/tests/web" && [ -d node_modules/playwright-core ] || npm ci --no-audit --no-fund --silent)
source "$root/tests/web/serve.sh"
serve_site "$site"
trap 'kill $server 2>/dev/null' EXIT
tmp=$(mktemp "${out%.png}.part-XXXXXX.png")
(cd "$root/tests/web" && timeout 120 node screenshot.mjs "http://127.0.0.1:$port/" "$tmp")
mv "$tmp" "$out"
