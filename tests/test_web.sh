#!/usr/bin/env bash
# test_web: the page scripts/web.sh builds, in headless Chromium (Debian's) driven by
# playwright-core (npm, pinned in tests/web/package-lock.json), served on 127.0.0.1: it loads
# with no console error and offers every shipped scenario; the default scenario ends at the
# step `herd run` ends it for the same seed, with the same centroid (the same bits); the canvas shows
# the field, the sheep and the dog in the renderer's colours; a bad scenario gets the one-line
# error the program gives. Skipped (77) where emscripten, Chromium or node is missing
# (scripts/deps.sh --web installs the first two).
#
#   bash tests/test_web.sh BUILD_DIR      (from the repository root; ctest does this)
set -u
BUILD=${1:?usage: bash tests/test_web.sh BUILD_DIR}
HERD=$(cd "$BUILD" && pwd)/herd
source "$(dirname "$0")/check.sh"
for tool in emcc chromium node npm; do
  command -v "$tool" >/dev/null || { echo "skipped: no $tool (scripts/deps.sh --web installs emscripten and chromium)"; exit 77; }
done

site=$BUILD/web
scripts/web.sh "$site" >"$tmp/web.log" 2>&1
rc=$?
check "scripts/web.sh builds the page" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || { cat "$tmp/web.log"; exit 1; }
check "... a static folder: index.html, herd.js, herd.wasm, the scenarios and their index" eval \
  '[ -f "$site/index.html" ] && [ -f "$site/herd.js" ] && [ -f "$site/herd.wasm" ] &&
   [ -f "$site/scenarios/index.json" ] && [ -f "$site/scenarios/strombom2014.json" ]'

# What the program gives for the same runs: "STEPS OUTCOME CENTROID_X CENTROID_Y" (herd's outcome
# names, the centroid to ten digits, as the summary and the page print it).
ends() {
  "$HERD" run -q --seed "$1" "${@:2}" --summary - | /usr/bin/python3 -c '
import json, sys
s = json.load(sys.stdin)
x, y = s["observation"]["centroid_m"][:2]
print(s["steps"], {"finished": "succeeded"}.get(s["exit_reason"], s["exit_reason"]), "%.10g" % x, "%.10g" % y)'
}
printf '{"model": "strombom", "sheep": {"count": -5}}' >"$tmp/page.json"
bad=$(cd "$tmp" && "$HERD" run page.json 2>&1 >/dev/null | sed -n '1s/^herd: //p')
# Other models, 200 steps of seed 1 (the web build's vector loops must not change a bit).
others=()
for name in boids2d boids3d netlogo-flocking couzin-torus; do
  others+=("$name $(ends 1 "scenarios/$name.json" --set max_steps=200)")
done
/usr/bin/python3 - "$tmp/expected.json" "$(ends 1)" "$(ends 2)" "$(ends 3)" "$bad" "$(ls scenarios/*.json | wc -l)" \
  "${others[@]}" <<'PY'
import json, sys
out, one, two, three, bad, count, *others = sys.argv[1:]
end = lambda e: {"steps": int(e.split()[0]), "outcome": e.split()[1], "centroid": " ".join(e.split()[2:4])}
runs = {seed: end(e) for seed, e in (("1", one), ("2", two), ("3", three))}
models = {o.split()[0]: end(" ".join(o.split()[1:])) for o in others}
json.dump({"runs": runs, "models": models, "bad_error": bad, "scenarios": int(count)}, open(out, "w"))
PY

# playwright-core from the lock file, beside the build.
mkdir -p "$BUILD/web-test"
cp tests/web/package.json tests/web/package-lock.json tests/web/test_web.mjs tests/web/browser.mjs "$BUILD/web-test/"
(cd "$BUILD/web-test" && npm ci --no-audit --no-fund --silent) >"$tmp/npm.log" 2>&1
check "npm ci installs playwright-core from the lock file" [ $? -eq 0 ] || cat "$tmp/npm.log"

source tests/web/serve.sh
serve_site "$site"
trap 'kill $server 2>/dev/null; rm -rf "$tmp"' EXIT

(cd "$BUILD/web-test" && timeout 900 node test_web.mjs "http://127.0.0.1:$port/" "$tmp/expected.json") >"$tmp/page.log" 2>&1
rc=$?
sed 's/^/  /' "$tmp/page.log"
check "the page's checks in Chromium" [ "$rc" -eq 0 ]
finish
