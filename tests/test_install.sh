#!/usr/bin/env bash
# The installed library as a program's author meets it: `cmake --install` into a scratch
# prefix, its headers alone (the scenario opaque to a program), examples/herd_basic.c built against the installed files three ways (CMake's
# find_package with herd::herd and herd::herd_static, and pkg-config on a plain cc line), each
# run and its outcome compared with the installed `herd run` of the same scenario and seed.
#
#   bash tests/test_install.sh BUILD_DIR      (from the repository root; ctest does this)
set -u
BUILD=${1:?usage: bash tests/test_install.sh BUILD_DIR}
source "$(dirname "$0")/check.sh"
prefix=$tmp/prefix
HERD=$prefix/bin/herd

cmake --install "$BUILD" --prefix "$prefix" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "cmake --install succeeds" [ "$rc" -eq 0 ]
for f in include/herd/herd.h include/herd/herd_view.h lib/libherd.a lib/libherd.so lib/libherd.so.1 lib/libherd.so.1.0.0 \
  lib/pkgconfig/herd.pc lib/cmake/herd/herdConfig.cmake lib/cmake/herd/herdConfigVersion.cmake bin/herd; do
  check "it installs $f" [ -e "$prefix/$f" ]
done
check "libherd.so is libherd.so.1 is libherd.so.1.0.0" \
  [ "$(readlink -f "$prefix/lib/libherd.so")" = "$(readlink -f "$prefix/lib/libherd.so.1.0.0")" ]
check "the shared library's soname is libherd.so.1" eval \
  'objdump -p "$prefix/lib/libherd.so" | grep -q "SONAME *libherd.so.1\$"'
check "its functions are of version node HERD_1" eval \
  'nm -D --defined-only "$prefix/lib/libherd.so" | grep -q " herd_sim_create@@HERD_1\$"'
# Exported: functions of the public headers, and only they (the library's internal herd_* are not).
nm -D --defined-only "$prefix/lib/libherd.so" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' | sort >"$tmp/exported"
check "libherd.so exports herd_sim_create and herd_sim_place_steering" eval \
  'grep -qx herd_sim_create "$tmp/exported" && grep -qx herd_sim_place_steering "$tmp/exported"'
check "every exported function is declared in a public header" eval \
  '(while read -r f; do cat "$prefix"/include/herd/*.h | grep -q "\\b$f *(" || { echo "  not in include/herd: $f"; exit 1; }; done <"$tmp/exported")'
# And the other way: every function the public headers declare is in libherd.so (a source added
# to the static library alone would leave it out).
cat "$prefix"/include/herd/*.h | grep -o 'herd_[a-z0-9_]*[[:space:]]*(' | sed 's/[[:space:]]*($//' | sort -u >"$tmp/declared"
check "every function the public headers declare is exported" eval \
  '[ -s "$tmp/declared" ] && [ -z "$(comm -23 "$tmp/declared" "$tmp/exported" | tee /dev/stderr)" ]'
check "internal functions stay hidden (herd_fail, herd_sweep_expand)" eval \
  '! grep -qx -e herd_fail -e herd_sweep_expand "$tmp/exported"'
check "no other symbol is exported" eval \
  '[ -z "$(nm -D --defined-only "$prefix/lib/libherd.so" | awk "\$2 != \"A\" && \$3 !~ /^herd_/")" ]'

# The scenario is opaque to programs: the installed headers alone compile (herd_view.h too, and
# as C++), and a program that reaches into a scenario does not.
printf '#include <herd/herd_view.h>\nint main(void) { herd_scenario *sc = 0; return (int)herd_scenario_describe(sc).dims; }\n' >"$tmp/opaque_ok.c"
check "a program on herd_view.h compiles against the installed headers" \
  cc -std=c11 -Wall -Werror -I"$prefix/include" -c "$tmp/opaque_ok.c" -o "$tmp/opaque_ok.o"
if command -v c++ >/dev/null; then
  check "herd.h and herd_view.h compile as C++" \
    c++ -x c++ -Wall -Werror -I"$prefix/include" -c "$tmp/opaque_ok.c" -o "$tmp/opaque_cxx.o"
fi
printf '#include <herd/herd.h>\nunsigned long n = sizeof(herd_scenario);\n' >"$tmp/opaque_size.c"
check "sizeof(herd_scenario) does not compile in a program" eval \
  '! cc -std=c11 -I"$prefix/include" -c "$tmp/opaque_size.c" -o "$tmp/opaque_size.o" 2>/dev/null'
printf '#include <herd/herd.h>\nunsigned f(const herd_scenario *sc) { return sc->flock.count; }\n' >"$tmp/opaque_field.c"
check "a scenario's fields cannot be read in a program (sc->flock.count)" eval \
  '! cc -std=c11 -I"$prefix/include" -c "$tmp/opaque_field.c" -o "$tmp/opaque_field.o" 2>/dev/null'
check "the public headers say nothing of issues" eval '! grep -qi "issue [0-9]" "$prefix"/include/herd/*.h'

# The reference: the installed program's run of the same scenario (not the example's output).
n=60
sets=(seed=11 sheep.count=$n)
"$HERD" run --threads 1 --set "${sets[0]}" --set "${sets[1]}" >"$tmp/herd_run" 2>&1
want_steps=$(sed -n 's/^steps: \([0-9]*\) .*/\1/p' "$tmp/herd_run")
check "herd run reports its steps" [ -n "$want_steps" ]
want_delivered=$(grep -q '^result: success' "$tmp/herd_run" && echo $n ||
  sed -n "s/.* with \([0-9]*\) of $n agents delivered.*/\1/p" "$tmp/herd_run")

# check_example NAME PROGRAM: runs it on the same scenario and compares the outcome.
check_example() {
  local name=$1 program=$2
  "$program" - "${sets[@]}" >"$tmp/example" 2>&1
  rc=$?
  check "$name: runs (exit 0)" [ "$rc" -eq 0 ]
  local last
  last=$(tail -n 1 "$tmp/example")
  check "$name: ends after herd run's $want_steps steps with its $want_delivered delivered" \
    [ "$last" = "outcome: $(grep -q '^result: success' "$tmp/herd_run" && echo succeeded || echo step_limit) after $want_steps steps, $want_delivered of $n delivered" ]
  check "$name: prints the observation every 100 steps" eval \
    '[ "$(grep -c "^step [0-9]*00: delivered" "$tmp/example")" -eq $((want_steps / 100)) ]'
}

for kind in shared static; do
  static=OFF
  [ "$kind" = static ] && static=ON
  cmake -S examples -B "$tmp/cmake-$kind" -DCMAKE_PREFIX_PATH="$prefix" -DHERD_STATIC=$static \
    -DCMAKE_BUILD_TYPE=Release >"$tmp/out" 2>"$tmp/err" &&
    cmake --build "$tmp/cmake-$kind" >>"$tmp/out" 2>>"$tmp/err"
  rc=$?
  check "find_package(herd) builds the example ($kind)" [ "$rc" -eq 0 ]
  check_example "find_package, $kind" "$tmp/cmake-$kind/herd_basic"
done
check "the shared build links libherd.so.1" eval 'objdump -p "$tmp/cmake-shared/herd_basic" | grep -q "NEEDED *libherd.so.1"'
check "the static build does not" eval '! objdump -p "$tmp/cmake-static/herd_basic" | grep -q "NEEDED *libherd"'

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
# shellcheck disable=SC2046 # pkg-config's words are separate arguments
cc -std=c11 examples/herd_basic.c $(pkg-config --cflags --libs herd) -o "$tmp/pc_basic" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "cc \$(pkg-config --cflags --libs herd) builds the example" [ "$rc" -eq 0 ]
LD_LIBRARY_PATH=$prefix/lib check_example "pkg-config" "$tmp/pc_basic"
check "pkg-config --static names herd's own dependencies" eval \
  'pkg-config --static --libs herd | grep -q -- -ljansson'

# The Python package installed with it: imported from the prefix with no $HERD_LIB, it loads the
# installed libherd.so.1 (named by the _installed.py the install wrote) and runs as herd run does.
site=$prefix/lib/python$(/usr/bin/python3 -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')/dist-packages
check "cmake --install puts the Python package under lib/python3.X/dist-packages" eval \
  '[ -f "$site/herd/__init__.py" ] && grep -qF "$prefix/lib/libherd.so.1" "$site/herd/_installed.py"'
(cd "$tmp" && env -u HERD_LIB PYTHONPATH="$site" /usr/bin/python3 -c '
import herd
sim = herd.Sim(herd.Scenario.default().update({"sheep.count": 30, "sheep.neighbours": 20}))
print(herd.lib_path, sim.run(), sim.step_index)') >"$tmp/out" 2>"$tmp/err"
rc=$?
"$HERD" run --set sheep.count=30 --set sheep.neighbours=20 >"$tmp/cli" 2>&1
check "... which imports with no HERD_LIB, loads the installed library and herds as herd run does" eval \
  '[ "$rc" -eq 0 ] && [ "$(cut -d" " -f1 "$tmp/out")" = "$prefix/lib/libherd.so.1" ] &&
   [ "$(cut -d" " -f3 "$tmp/out")" = "$(awk "/^steps:/ { print \$2 }" "$tmp/cli")" ]'

finish
