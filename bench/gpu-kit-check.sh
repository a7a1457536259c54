#!/usr/bin/env bash
# The kit's library check: every library bin/* needs resolves inside KIT/lib, or is glibc's.
#   bench/gpu-kit-check.sh KIT     (also run by KIT/run on the GPU machine, as KIT/check)
# Exit 1 naming each library that resolves outside the kit or not at all.
set -uo pipefail
kit=$(cd "$1" && pwd)
glibc_names=" ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2 librt.so.1 linux-vdso.so.1 "
bad=0
for bin in "$kit"/bin/*; do
  while read -r name arrow path _; do
    [ "$arrow" = "=>" ] || continue
    case "$glibc_names" in *" $name "*) continue ;; esac
    case "$path" in
      "$kit"/lib/*) ;;
      not) echo "gpu-kit-check: $(basename "$bin") needs $name: not found in the kit" >&2; bad=1 ;;
      *) echo "gpu-kit-check: $(basename "$bin") needs $name, found outside the kit ($path)" >&2; bad=1 ;;
    esac
  done < <(LD_LIBRARY_PATH="$kit/lib" ldd "$bin")
done
[ "$bad" -eq 0 ] && echo "gpu-kit-check: every library of $(ls "$kit/bin" | tr '\n' ' ')is in the kit or glibc's"
exit "$bad"
