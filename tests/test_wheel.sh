#!/usr/bin/env bash
# The Python wheel as a researcher installs it: cmake --build BUILD --target python-wheel, a
# fresh venv (with the system's numpy and cffi: no network), pip install --no-index of the
# wheel; from another folder and with no $HERD_LIB the package imports the libherd.so.1 it
# carries and herds as `herd run` does; pip uninstall removes it. A Python without numpy gets an
# ImportError that names it. Skipped (77) where python3's venv or pip is missing.
#
#   bash tests/test_wheel.sh BUILD_DIR      (from the repository root; ctest does this)
set -u
BUILD=${1:?usage: bash tests/test_wheel.sh BUILD_DIR}
HERD=$BUILD/herd
source "$(dirname "$0")/check.sh"
if ! /usr/bin/python3 -c 'import ensurepip, venv' 2>/dev/null || ! /usr/bin/python3 -m pip --version >/dev/null 2>&1; then
  echo "skipped: /usr/bin/python3 has no venv or pip (Debian: python3-venv python3-pip)"
  exit 77
fi

cmake --build "$BUILD" --target python-wheel >"$tmp/out" 2>"$tmp/err"
rc=$?
wheels=("$BUILD"/python-wheel/herd-*.whl)
check "the python-wheel target makes one wheel" eval '[ "$rc" -eq 0 ] && [ "${#wheels[@]}" -eq 1 ] && [ -f "${wheels[0]}" ]'
check "... tagged for this machine (it carries a compiled library), with libherd.so.1 in the package" eval \
  '[[ ${wheels[0]} == *-linux_x86_64.whl || ${wheels[0]} == *-linux_*.whl ]] &&
   /usr/bin/python3 -m zipfile -l "${wheels[0]}" | grep -q "^herd/libherd.so.1 "'

/usr/bin/python3 -m venv --system-site-packages "$tmp/venv" >"$tmp/out" 2>"$tmp/err" &&
  "$tmp/venv/bin/pip" install --quiet --no-index "${wheels[0]}" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "pip install --no-index of the wheel into a fresh venv succeeds" [ "$rc" -eq 0 ]
(cd "$tmp" && env -u HERD_LIB -u PYTHONPATH "$tmp/venv/bin/python" -c '
import herd
sim = herd.Sim(herd.Scenario.default().update({"sheep.count": 30, "sheep.neighbours": 20}))
print(herd.lib_path, sim.run(), sim.step_index)') >"$tmp/py" 2>"$tmp/err"
rc=$?
"$HERD" run --set sheep.count=30 --set sheep.neighbours=20 >"$tmp/cli" 2>&1
check "it imports from another folder with no HERD_LIB, loading the libherd.so.1 it carries" eval \
  '[ "$rc" -eq 0 ] && [[ $(cut -d" " -f1 "$tmp/py") == "$tmp/venv/"*/site-packages/herd/libherd.so.1 ]]'
check "... and herds as herd run does (the same steps)" eval \
  '[ "$(cut -d" " -f2 "$tmp/py")" = succeeded ] && [ "$(cut -d" " -f3 "$tmp/py")" = "$(awk "/^steps:/ { print \$2 }" "$tmp/cli")" ]'
"$tmp/venv/bin/pip" uninstall --quiet --yes herd >"$tmp/out" 2>"$tmp/err"
rc=$?
check "pip uninstall removes it, library included" eval \
  '[ "$rc" -eq 0 ] && ! (cd "$tmp" && "$tmp/venv/bin/python" -c "import herd" 2>/dev/null) &&
   [ -z "$(find "$tmp/venv" -name "libherd.so*")" ]'

# A Python without numpy (a venv without the system's packages): the ImportError says what is
# missing and which Python to use, before anything else fails.
/usr/bin/python3 -m venv "$tmp/bare" >"$tmp/out" 2>"$tmp/err"
(cd "$tmp" && PYTHONPATH="$OLDPWD/python" "$tmp/bare/bin/python" -c 'import herd') >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a Python without numpy and cffi gets an ImportError naming them and the Python to use" eval \
  '[ "$rc" -ne 0 ] && grep -q "ImportError: herd needs cffi and numpy" "$tmp/err" && grep -q "/usr/bin/python3" "$tmp/err"'
finish
