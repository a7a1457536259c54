#!/usr/bin/env bash
# The device kit: everything a bare GPU machine lacks to measure herd, in one folder.
#
#   bench/gpu-kit.sh [--build DIR] OUTDIR
#
# Builds herd for the GPU machine (Release; OpenCL on; the viewer, MPI and HDF5 off: nothing
# the measurements need) into DIR (default build-kit/), and puts into OUTDIR:
#   bin/herd, bin/test_opencl       the program, and the test that steps every model on the GPU
#                                   against the CPU backend
#   lib/                            every shared library they need beside glibc (the OpenCL ICD
#                                   loader, jansson), as Debian's packages installed them here
#   lib/glibc/                      glibc itself with its loader, for a machine whose glibc is
#                                   older than the one the binaries were linked against
#   lib/MANIFEST                    each library, the Debian package and version it came from;
#                                   GLIBC_NEEDED, the newest glibc symbol version the binaries use
#   scenarios/, bench/all-active.json
#   run                             the measurements (bench/gpu-kit-run.sh): OUTDIR/run on the
#                                   GPU machine writes summary.md, kernels.md and results.tar.gz
#                                   into $OUT
#   ptx, gpu_static.py              ptxas -v on the programs as the driver compiled them
#                                   (bench/gpu-kit-ptx.py, tests/gpu_static.py)
# An ldd check fails the kit when a library resolves outside it (other than glibc's); the kit
# must stay under 48 MiB (what the device tool carries with the working tree). OUTDIR is made
# under a temporary name and renamed at the end; an OUTDIR that is not an earlier kit is refused.
# bench/gpu-kit-selftest.sh tests the kit here, with PoCL standing in for the GPU.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-kit
usage() { echo "usage: bench/gpu-kit.sh [--build DIR] OUTDIR" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --build) [ $# -ge 2 ] || usage; build=$2; shift 2 ;;
    -h | --help) sed -n '2,24p' "$0"; exit 0 ;;
    -*) echo "gpu-kit.sh: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
[ $# -eq 1 ] || usage
out=$1
if [ -e "$out" ] && [ ! -e "$out/.herd-gpu-kit" ]; then
  echo "gpu-kit.sh: $out exists and is not a kit this script made: choose another folder" >&2
  exit 2
fi
limit_bytes=$((48 * 1024 * 1024))

"$root/scripts/deps.sh"
echo "gpu-kit: building into $build (Release, OpenCL; no viewer, MPI or HDF5)"
"$root/scripts/build.sh" "$build" -DCMAKE_BUILD_TYPE=Release -DHERD_WERROR=ON -DHERD_WITH_GL=OFF \
  -DHERD_WITH_MPI=OFF -DHERD_WITH_HDF5=OFF

stage=$(mktemp -d "${out%/}.part-XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib/glibc" "$stage/scenarios" "$stage/bench"
cp "$build/herd" "$build/tests/test_opencl" "$stage/bin/"
cp "$root"/scenarios/*.json "$stage/scenarios/"
cp "$root/bench/all-active.json" "$stage/bench/"
cp "$root/bench/gpu-kit-run.sh" "$stage/run"
cp "$root/bench/gpu-kit-ptx.py" "$stage/ptx"
cp "$root/tests/gpu_static.py" "$stage/"
git -C "$root" describe --always --dirty 2>/dev/null >"$stage/COMMIT" || echo unknown >"$stage/COMMIT"
chmod +x "$stage/run"

# glibc's own libraries: the loader, libc, libm and the stubs an older driver may link.
glibc_names="ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2 librt.so.1"
is_glibc() { case " $glibc_names linux-vdso.so.1 " in *" $1 "*) return 0 ;; esac; return 1; }

manifest=$stage/lib/MANIFEST
: >"$manifest"
add_lib() { # NAME PATH DEST
  cp -L "$2" "$3/$1"
  local pkg
  pkg=$(dpkg -S "$(readlink -f "$2")" 2>/dev/null | head -n1 | cut -d: -f1 || true)
  [ -n "$pkg" ] || pkg=$(dpkg -S "$2" 2>/dev/null | head -n1 | cut -d: -f1 || true)
  local version
  version=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || echo "?")
  echo "$1 ${pkg:-?} $version" >>"$manifest"
}
for bin in "$stage"/bin/*; do
  ldd "$bin" | awk '/=>/ && $3 ~ /^\// { print $1, $3 } /^\t\/.*ld-linux/ { print "ld-linux-x86-64.so.2", $1 }'
done | sort -u | while read -r name path; do
  if is_glibc "$name"; then
    [ -e "$stage/lib/glibc/$name" ] || add_lib "$name" "$path" "$stage/lib/glibc"
  else
    [ -e "$stage/lib/$name" ] || add_lib "$name" "$path" "$stage/lib"
  fi
done
for name in $glibc_names; do # the stubs the binaries do not link, for the driver's sake
  [ -e "$stage/lib/glibc/$name" ] && continue
  path=$(ldconfig -p | awk -v n="$name" '$1 == n && /x86-64/ { print $NF }' | head -n1 || true)
  [ -n "$path" ] && add_lib "$name" "$path" "$stage/lib/glibc"
done
objdump -T "$stage"/bin/* | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n1 >"$stage/lib/GLIBC_NEEDED"

cp "$root/bench/gpu-kit-check.sh" "$stage/check"
"$stage/check" "$stage"

bytes=$(du -sb "$stage" | cut -f1)
if [ "$bytes" -gt "$limit_bytes" ]; then
  echo "gpu-kit: the kit is $bytes bytes, over the $limit_bytes the device tool carries" >&2
  exit 1
fi
touch "$stage/.herd-gpu-kit"
rm -rf "$out"
mv "$stage" "$out"
trap - EXIT
echo "gpu-kit: $out ($((bytes / 1024)) KiB: $(ls "$out/lib" | grep -c '\.so') libraries, glibc $(cat "$out/lib/GLIBC_NEEDED") needed)"
