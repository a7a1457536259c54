#!/usr/bin/env bash
# Builds herd for the browser: the library's CPU backend and the viewer's renderer compiled by
# Debian's emscripten into one WebAssembly module, with the page that drives it, into a static
# folder that any static file server serves:
#
#   scripts/web.sh [OUT]            (default build-web/; the build trees go to OUT.work/)
#   python3 -m http.server -d build-web -b 127.0.0.1 8000     then open http://127.0.0.1:8000/
#
# OUT gets index.html, page.js, page.css, herd.js, herd.wasm, scenarios/ (every shipped
# scenario and index.json listing them) and pictures/ (each scenario's, the one the README's
# table shows). jansson, which the scenario parser needs, is built for the web from Debian's
# own source package (apt-get source: scripts/deps.sh --web enables the deb-src lines); cglm
# and stb are Debian's headers. Nothing third-party is copied into the repository. OpenCL, MPI,
# HDF5 and ffmpeg are off: the page says what the program adds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build-web}
case "$out" in /*) ;; *) out=$PWD/$out ;; esac
work=${out%/}.work

"$root/scripts/deps.sh" --web
# Debian's emscripten runs its JavaScript tools with the node on the PATH, which need not look
# where Debian keeps node modules (acorn).
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
mkdir -p "$work"

# ---- jansson from Debian's source package, built for the web -------------------------------
jansson_version=$(dpkg-query -W -f='${Version}' libjansson-dev)
deps=$work/deps
if [ ! -e "$deps/.built-$jansson_version" ]; then
  rm -rf "$deps"
  mkdir -p "$deps/src"
  echo "web.sh: jansson $jansson_version from Debian's source package"
  (cd "$deps/src" && apt-get source -qq "jansson=$jansson_version" >/dev/null 2>"$deps/source.log") || {
    cat "$deps/source.log" >&2
    echo "web.sh: apt-get source jansson failed (scripts/deps.sh --web enables Debian's deb-src lines)" >&2
    exit 1
  }
  src=$(find "$deps/src" -maxdepth 1 -type d -name 'jansson-*' | head -1)
  emcmake cmake -S "$src" -B "$deps/build" -DCMAKE_BUILD_TYPE=Release -DJANSSON_BUILD_DOCS=OFF \
    -DJANSSON_EXAMPLES=OFF -DJANSSON_WITHOUT_TESTS=ON -DCMAKE_INSTALL_PREFIX="$deps/prefix" >"$deps/build.log" 2>&1 &&
    cmake --build "$deps/build" -j "$(nproc)" >>"$deps/build.log" 2>&1 &&
    cmake --install "$deps/build" >>"$deps/build.log" 2>&1 || {
    cat "$deps/build.log" >&2
    echo "web.sh: building jansson for the web failed" >&2
    exit 1
  }
  touch "$deps/.built-$jansson_version"
fi

# ---- cglm and stb: Debian's header-only packages, seen through links ------------------------
mkdir -p "$work/include"
ln -sfn /usr/include/cglm "$work/include/cglm"
ln -sfn /usr/include/stb "$work/include/stb"

# ---- the module --------------------------------------------------------------------------------
echo "web.sh: building the module (emscripten $(emcc --version | head -1 | grep -o '[0-9][0-9.]*' | head -1))"
PKG_CONFIG_LIBDIR="$deps/prefix/lib/pkgconfig" emcmake cmake -S "$root" -B "$work/herd" -DCMAKE_BUILD_TYPE=Release \
  -DHERD_WERROR=ON -DHERD_WITH_OPENCL=OFF -DHERD_WITH_GL=OFF -DHERD_WITH_MPI=OFF -DHERD_WITH_HDF5=OFF \
  -DBUILD_TESTING=OFF -DHERD_WEB_INCLUDE="$work/include" -DCMAKE_FIND_ROOT_PATH="$deps/prefix" >"$work/configure.log" 2>&1 || {
  cat "$work/configure.log" >&2
  exit 1
}
cmake --build "$work/herd" -j "$(nproc)" --target herd_web >"$work/build.log" 2>&1 || {
  grep -E "error|warning" "$work/build.log" >&2 || cat "$work/build.log" >&2
  exit 1
}

# ---- the static folder, made beside and moved into place ----------------------------------
stage=$(mktemp -d "${out%/}.part-XXXXXX")
chmod 755 "$stage" # a static server may run as another user
trap 'rm -rf "$stage"' EXIT
cp "$root/web/index.html" "$root/web/page.js" "$root/web/worker.js" "$root/web/page.css" "$stage/"
cp "$work/herd/herd.js" "$work/herd/herd.wasm" "$stage/"
mkdir "$stage/scenarios"
cp "$root"/scenarios/*.json "$stage/scenarios/"
# Each scenario's picture and a line on what it is: the README's scenario table's (the picture
# made by scripts/docs.sh); its description is the scenario's own where it has one.
mkdir "$stage/pictures"
/usr/bin/python3 - "$root" "$stage" <<'PY'
import json, pathlib, re, shutil, sys
root, stage = map(pathlib.Path, sys.argv[1:])
row = re.compile(r'^\| \[([\w-]+)\.json\]\(scenarios/[^)]*\) \| [^|]* \| (.*) \| \[<img src="docs/images/([\w.-]+\.png)"', re.M)
table = {name: (what, picture) for name, what, picture in row.findall((root / "README.md").read_text())}
plain = lambda md: re.sub(r"\[([^]]*)\]\([^)]*\)", r"\1", md).replace("`", "")
rows = []
for path in sorted((root / "scenarios").glob("*.json")):
    scenario = json.loads(path.read_text())
    if path.stem not in table:
        sys.exit(f"web.sh: scenarios/{path.name} has no row with a picture in README.md's scenario table")
    what, picture = table[path.stem]
    shutil.copy(root / "docs/images" / picture, stage / "pictures" / picture)
    rows.append({"name": path.stem, "file": path.name, "model": scenario.get("model", "strombom"),
                 "what": plain(what), "description": scenario.get("description", plain(what)),
                 "picture": f"pictures/{picture}"})
(stage / "scenarios/index.json").write_text(json.dumps(rows, indent=1) + "\n")
PY
rm -rf "$out"
mv "$stage" "$out"
trap - EXIT
echo "web.sh: $out: $(du -sh "$out" | cut -f1) ($(du -k "$out/herd.wasm" | cut -f1) KiB wasm); serve it with"
echo "  python3 -m http.server -d $out -b 127.0.0.1 8000"
