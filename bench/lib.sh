# Sourced by the bench scripts after they parse their options: builds Release (unless
# build=0), and sets herd (the program), POCL_CACHE_DIR, and wrap (xvfb-run when there is
# no display, for the scripts that draw).
root=${root:?}
if [ "${build:-1}" = 1 ]; then
  "$root/scripts/deps.sh"
  "$root/scripts/build.sh" "$root/build" -DCMAKE_BUILD_TYPE=Release
fi
herd=$root/build/herd
export POCL_CACHE_DIR=${POCL_CACHE_DIR:-$root/build/pocl-cache}
wrap=()
[ -n "${DISPLAY:-}" ] || wrap=(xvfb-run -a -s "-screen 0 1400x900x24 -noreset")
