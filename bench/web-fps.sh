#!/usr/bin/env bash
# Benchmark (not a test): frames per second of herd's page (scripts/web.sh) in headless
# Chromium against the native viewer (herd view) on the same machine, one simulation step a
# frame on a 1280 x 800 canvas, for 10^3, 10^4 and 10^5 agents of Strömbom's model (the
# all-active flock of bench/all-active.json: every sheep does the full update every step) and
# of boids (scenarios/boids2d.json, the world widened to keep its density). The page runs
# WebGL2 on SwiftShader (Chromium's CPU renderer), herd view OpenGL on Mesa's llvmpipe under
# xvfb-run: both draw on the CPU here. The page as it is (stepping on its own thread until a
# frame's steps take more than 8 ms, then in its Web Worker while the page draws at its own
# rate) and stepping on its own thread alone (?worker=0: one step, then one frame), with the
# milliseconds of a step alone.
#
# usage: bench/web-fps.sh [--seconds S] [--out FILE.md] [--no-build]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=6 out="" build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    *) echo "web-fps.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
source "$root/bench/lib.sh"
site=$root/build-web
[ "$build" = 0 ] && [ -f "$site/index.html" ] || "$root/scripts/web.sh" "$site" >/dev/null
(cd "$root/tests/web" && [ -d node_modules/playwright-core ] || npm ci --no-audit --no-fund --silent)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"; [ -n "${server:-}" ] && kill "$server" 2>/dev/null' EXIT

# The cases: "model N file sets" (sets as --set arguments, also the page's lines).
cases=()
for n in 1000 10000 100000; do
  field=$(awk -v n="$n" 'BEGIN { printf "%.3f", 3 * sqrt(4 * n) }')
  cases+=("strombom $n all-active.json sheep.count=$n field.size_m=$field")
  scale=$(awk -v n="$n" 'BEGIN { printf "%.3f", sqrt(n / 100) }') # boids2d: 100 boids in 640 x 480
  cases+=("boids $n boids2d.json boids.count=$n world.size_m=[$(awk -v s="$scale" 'BEGIN { printf "%.1f,%.1f", 640 * s, 480 * s }')]")
done

# The page: every case in one browser.
cp "$root/bench/all-active.json" "$site/scenarios/all-active.json"
source "$root/tests/web/serve.sh"
serve_site "$site"
/usr/bin/python3 - "$scratch/cases.json" "$seconds" "${cases[@]}" <<'PY'
import json, sys
out, seconds, *cases = sys.argv[1:]
rows = [{"name": f"{c.split()[0]} {c.split()[1]}", "file": c.split()[2], "sets": "\n".join(c.split()[3:]),
         "seconds": float(seconds)} for c in cases]
json.dump(rows, open(out, "w"))
PY
(cd "$root/tests/web" && node fps.mjs "http://127.0.0.1:$port/" "$scratch/cases.json") >"$scratch/page.jsonl"

# herd view: the same cases, frames fixed to what the page drew in the same time or 20 at least.
table="| workload | agents | page: frames/s | page: steps/s | page: stepped in | page, stepping on its own thread: frames/s | ms a step | herd view: frames/s |"$'\n'"|---|---:|---:|---:|---|---:|---:|---:|"
while IFS= read -r line; do
  read -r name n file wf ws wt where of _ ot step_ms <<<"$(/usr/bin/python3 -c '
import json, sys
r = json.loads(sys.argv[1])
model, n = r["name"].split()
w, o = r["worker"], r["own"]
where = {"stepping": "worker", "off": "page"}.get(w["stepping"], w["stepping"])
print(model, n, r["file"], w["frames"], w["steps"], w["seconds"], where, o["frames"], o["steps"], o["seconds"], o["step_ms"])' "$line")"
  frames=$of
  sets=()
  for c in "${cases[@]}"; do
    [[ "$c" == "$name $n "* ]] || continue
    for s in $(cut -d' ' -f4- <<<"$c"); do sets+=(--set "$s"); done
  done
  scenario=$root/scenarios/$file
  [ "$file" = all-active.json ] && scenario=$root/bench/all-active.json
  want=$(( frames > 20 ? frames : 20 ))
  native=$("${wrap[@]}" "$herd" view "$scenario" --frames "$want" --size 1280x800 "${sets[@]}" | grep '^frames:' |
    awk '{ print $6 }')
  table+=$'\n'"$(awk -v m="$name" -v n="$n" -v wf="$wf" -v ws="$ws" -v wt="$wt" -v at="$where" -v of="$of" -v ot="$ot" \
    -v sm="$step_ms" -v nat="$native" \
    'BEGIN { printf "| %s | %d | %.1f | %.1f | %s | %.1f | %.1f | %s |", m, n, wf / wt, ws / wt, at, of / ot, sm, nat }')"
done <"$scratch/page.jsonl"
rm -f "$site/scenarios/all-active.json"

text="\`bench/web-fps.sh --seconds $seconds\` on $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')); herd $("$herd" --version | head -1 | cut -d' ' -f2-)"$'\n\n'"$table"
echo "$text"
if [ -n "$out" ]; then
  printf '%s\n' "$text" >"$out.tmp" && mv "$out.tmp" "$out"
fi
