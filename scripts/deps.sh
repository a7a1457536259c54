#!/usr/bin/env bash
# Installs the Debian packages herd needs to build and test, only when one is missing.
# Idempotent and silent when everything is present. Used by scripts/herd, scripts/test (with
# --web: the browser build and its test), scripts/web.sh (--web) and scripts/fuzz.sh (--fuzz).
set -euo pipefail

packages=(
  build-essential   # gcc, make
  cmake             # >= 3.25 (Debian 12 ships 3.25.1)
  pkg-config        # finds jansson
  libjansson-dev    # scenario files (JSON, with line/column errors)
  clang-format      # style check in the test suite
  ocl-icd-opencl-dev  # OpenCL ICD loader (libOpenCL) and its CMake/pkg-config files
  opencl-headers    # OpenCL C headers
  pocl-opencl-icd   # an OpenCL runtime on the CPU, so the OpenCL backend runs and is tested anywhere
  clinfo            # lists OpenCL platforms, for users checking their drivers
  libglfw3-dev      # the viewer's window (GLFW 3.3, X11)
  libglew-dev       # OpenGL function loading
  libcglm-dev       # the viewer's camera matrices
  libstb-dev        # stb_easy_font for the HUD text
  libpng-dev        # screenshots
  libgl1-mesa-dri   # Mesa's llvmpipe: OpenGL 4.5 without a GPU
  xvfb              # a virtual display: the viewer's tests run under xvfb-run
  xauth             # needed by xvfb-run
  ffmpeg            # herd record: video encoding (H.264, VP9, GIF)
  gnuplot-nox       # herd bench: the plots
  libhdf5-dev       # trajectories in HDF5 (herd run --trajectories)
  python3-h5py      # the tests read the HDF5 trajectories back as a user's script would
  python3-jsonschema  # the tests validate run summaries against docs/schema/
  python3-cffi      # the Python package (python/): cffi over libherd.so
  python3-numpy     # its arrays
  python3-pytest    # its tests
  python3-matplotlib  # its example figure
  python3-pandas    # herd.sweep returns a data frame where pandas is installed
  python3-venv      # the wheel's test installs it into a fresh venv (test_wheel)
  python3-pip       # pip wheel / pip install --no-index of the package
  python3-setuptools  # builds the wheel without network (--no-build-isolation)
  python3-wheel     # the same
  libopenmpi-dev    # herd run --mpi, herd sweep --mpi: one flock or a sweep over MPI ranks
  openmpi-bin       # mpirun, which the MPI tests start
  clang-14          # the OpenCL programs compiled for GPUs (test_gpu_compile: nvptx64, amdgcn)
  lld-14            # links the amdgcn code object (an undefined function fails there)
  libclc-14         # OpenCL's builtins for those targets
  oclgrind          # an OpenCL device simulator: races and uninitialised reads (test_oclgrind)
)

web=0
for option in "$@"; do
  case "$option" in
    # --fuzz: also what scripts/fuzz.sh needs (clang and its libFuzzer runtime).
    --fuzz) packages+=(clang libclang-rt-14-dev) ;;
    # --web: what scripts/web.sh and test_web need: emscripten (the module), dpkg-dev (apt-get
    # source unpacks jansson's source package with it), Chromium (the page's test, headless).
    --web) packages+=(emscripten dpkg-dev chromium) web=1 ;;
    *) echo "deps.sh: unknown option $option (allowed: --fuzz, --web)" >&2; exit 2 ;;
  esac
done

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi

# --web: Debian's source packages (jansson's, which web.sh builds for the browser) through the
# same archive as the binary ones: a deb-src entry beside Debian's own, once.
src_list=/etc/apt/sources.list.d/herd-deb-src.sources
if [ "$web" = 1 ] && [ ! -e "$src_list" ] && ! apt-cache showsrc jansson >/dev/null 2>&1; then
  if [ -e /etc/apt/sources.list.d/debian.sources ]; then
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources | $sudo tee "$src_list" >/dev/null
  else
    grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' | $sudo tee "${src_list%.sources}.list" >/dev/null
  fi
  $sudo apt-get update -qq
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "herd: installing Debian packages: ${missing[*]}" >&2
if [ -n "$sudo" ]; then
  command -v sudo >/dev/null || { echo "herd: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
fi
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
  cat "$log" >&2
  echo "herd: could not install: ${missing[*]}" >&2
  exit 1
fi
