#!/usr/bin/env bash
# Fuzzes herd's three readers with libFuzzer for SECONDS in all (default 60), a third each:
# fuzz_scenario (the scenario parser with --set), fuzz_sweep (sweep files) and fuzz_checkpoint
# (checkpoint files). Builds them in build-fuzz with clang (tests/fuzz/CMakeLists.txt: herd's
# own library targets, instrumented), keeps a working corpus per target in
# build-fuzz/corpus/TARGET and exits 1 when the fuzzer finds a failure, naming the target and
# where the input is. Needs clang and libFuzzer (Debian: clang libclang-rt-14-dev). See
# tests/fuzz/README.md.
#   scripts/fuzz.sh              60 s (20 s a target), as CI runs it
#   scripts/fuzz.sh 3600         a longer run; the corpora it grows are kept for the next run
#   scripts/fuzz.sh 600 fuzz_sweep   one target alone, for all of SECONDS
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
all_targets=(fuzz_scenario fuzz_sweep fuzz_checkpoint)
usage() {
  echo "usage: scripts/fuzz.sh [SECONDS [TARGET...]]  (targets: ${all_targets[*]})" >&2
  exit 2
}
[[ $seconds =~ ^[1-9][0-9]*$ ]] || usage
shift $(($# > 0 ? 1 : 0))
targets=("${all_targets[@]}")
if [ $# -gt 0 ]; then
  targets=("$@")
  for t in "${targets[@]}"; do [[ " ${all_targets[*]} " == *" $t "* ]] || usage; done
fi
"$root/scripts/deps.sh" --fuzz
cc=${CLANG:-clang}
command -v "$cc" >/dev/null || {
  echo "herd fuzz: clang not found; install it (Debian: apt-get install clang libclang-rt-14-dev)" >&2
  exit 1
}
for tool in cmake pkg-config; do
  command -v "$tool" >/dev/null || { echo "herd fuzz: $tool not found (run scripts/deps.sh)" >&2; exit 1; }
done

build="$root/build-fuzz"
mkdir -p "$build"
# A probe first, so a missing libFuzzer runtime gets a clear message rather than a link error.
probe="$build/probe.c"
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return (int)(d && n && 0); }' >"$probe"
if ! "$cc" -fsanitize=fuzzer "$probe" -o "$build/probe" >/dev/null 2>&1; then
  echo "herd fuzz: $cc cannot link libFuzzer (-fsanitize=fuzzer); install its runtime" \
    "(Debian: apt-get install libclang-rt-14-dev)" >&2
  exit 1
fi
rm -f "$probe" "$build/probe"

# The library is herd's own CMake target (no list of sources here), built with coverage and
# ASan + UBSan; GL, OpenCL, MPI and HDF5 off. Rebuilt incrementally: a few seconds when only
# a harness changed, 15 to 25 s on two cores from nothing.
start=$(date +%s%N)
log="$build/build.log"
if ! { CC=$cc cmake -S "$root/tests/fuzz" -B "$build" -DCMAKE_C_COMPILER="$(command -v "$cc")" &&
  cmake --build "$build" -j"$(nproc)" --target "${all_targets[@]}"; } >"$log" 2>&1; then
  cat "$log" >&2
  echo "herd fuzz: build failed" >&2
  exit 1
fi
grep -E 'warning:' "$log" >&2 || true
ms=$((($(date +%s%N) - start) / 1000000))
printf 'herd fuzz: built %s in %d.%d s\n' "${all_targets[*]}" $((ms / 1000)) $((ms % 1000 / 100))

# Seeds of an older checkpoint format would all be refused at the version: the fuzzer would
# never get past the header. Each must resume.
if ! HERD_FUZZ_SEED_CHECK=1 "$build/fuzz_checkpoint" "$root"/tests/fuzz/seeds-checkpoint/*.ckpt \
  >"$build/seed-check.log" 2>&1; then
  tail -n 20 "$build/seed-check.log" >&2
  echo "herd fuzz: a seed in tests/fuzz/seeds-checkpoint/ does not resume (the checkpoint format changed?);" \
    "regenerate them: tests/fuzz/make_checkpoint_seeds.sh" >&2
  exit 1
fi

# Dictionaries: scenario.dict, and for the other two their own with it; a sweep's vary keys
# are the --set paths of scenario.dict ("sheep.count=" gives "\"sheep.count\"").
cp "$root/tests/fuzz/scenario.dict" "$build/fuzz_scenario.dict"
{
  cat "$root/tests/fuzz/sweep.dict" "$root/tests/fuzz/scenario.dict"
  sed -n 's/^"\([]a-z_.0-9[]*\)="$/"\\"\1\\""/p' "$root/tests/fuzz/scenario.dict"
} >"$build/fuzz_sweep.dict"
cat "$root/tests/fuzz/checkpoint.dict" "$root/tests/fuzz/scenario.dict" >"$build/fuzz_checkpoint.dict"

# The working corpora keep what earlier runs found; the seeds are copied in every run.
# (Before there were three targets the scenario's corpus was build-fuzz/corpus itself.)
find "$build/corpus" -maxdepth 1 -type f -exec sh -c 'mkdir -p "$0" && mv "$@" "$0"' \
  "$build/corpus/fuzz_scenario" {} + 2>/dev/null || true
seed_corpus() { # TARGET DIR
  case $1 in
  fuzz_scenario)
    cp "$root"/tests/fuzz/seeds/* "$2/"
    for f in "$root"/tests/data/bad/*.json; do cp "$f" "$2/bad-$(basename "$f")"; done
    for f in "$root"/scenarios/*.json; do cp "$f" "$2/scenario-$(basename "$f")"; done
    ;;
  fuzz_sweep)
    for f in "$root"/tests/data/sweeps/*.json; do cp "$f" "$2/sweep-$(basename "$f")"; done
    for f in "$root"/tests/data/bad_sweeps/*.json; do cp "$f" "$2/bad-$(basename "$f")"; done
    cp "$root"/tests/fuzz/seeds-sweep/* "$2/"
    ;;
  fuzz_checkpoint) cp "$root"/tests/fuzz/seeds-checkpoint/*.ckpt "$2/" ;;
  esac
}
max_len() {
  case $1 in
  fuzz_scenario) echo 65536 ;;
  *) echo 16384 ;; # the sweeps are small; the checkpoint seeds about 5 KB
  esac
}

# SECONDS split over the targets, the remainder to the first; at least 1 s each.
n=${#targets[@]}
share=$((seconds / n))
extra=$((seconds % n))
run="$(date +%Y%m%d-%H%M%S)-$$"
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
failed=0
for i in "${!targets[@]}"; do
  t=${targets[$i]}
  s=$((share + (i < extra ? 1 : 0)))
  [ "$s" -ge 1 ] || s=1
  corpus="$build/corpus/$t"
  mkdir -p "$corpus"
  seed_corpus "$t" "$corpus"
  # Each run saves its failing inputs in a folder of its own, so none is ever overwritten.
  artifacts="$build/crashes/$run/$t"
  mkdir -p "$artifacts"
  fuzz_log="$build/$t.log"
  echo "herd fuzz: $t for $s s; progress in build-fuzz/$t.log"
  rc=0
  "$build/$t" -max_total_time="$s" -timeout=10 -rss_limit_mb=2048 -max_len="$(max_len "$t")" \
    -dict="$build/$t.dict" -artifact_prefix="$artifacts/" -print_final_stats=1 \
    "$corpus" >"$fuzz_log" 2>&1 || rc=$?
  found=$(find "$artifacts" -type f | wc -l)
  if [ "$rc" -eq 0 ] && [ "$found" -eq 0 ]; then
    rmdir "$artifacts"
    grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$fuzz_log" |
      sed "s/^/herd fuzz: $t: /" || true
    echo "herd fuzz: $t: corpus: $(find "$corpus" -type f | wc -l) inputs in build-fuzz/corpus/$t"
    continue
  fi
  failed=1
  tail -n 40 "$fuzz_log" >&2 # the report: which check failed, the stack, the input escaped
  echo "herd fuzz: $t FAILED (fuzzer exit status $rc); full log: build-fuzz/$t.log" >&2
  if [ "$found" -eq 0 ]; then echo "herd fuzz: $t: no failing input was saved (see the log)" >&2; fi
  while IFS= read -r f; do
    echo "herd fuzz: $t: failing input saved in ${f#"$root"/}; reproduce: build-fuzz/$t ${f#"$root"/}" >&2
  done < <(find "$artifacts" -type f | sort)
done
rmdir "$build/crashes/$run" 2>/dev/null || true
if [ "$failed" -ne 0 ]; then
  echo "herd fuzz: FAILED (see above: the target, the input and how to reproduce it)" >&2
  exit 1
fi
echo "herd fuzz: no failure in $seconds s (${targets[*]})"
