#!/usr/bin/env bash
# Fuzzes the scenario parser (herd_scenario_parse with --set) with libFuzzer for SECONDS
# (default 60). Builds build-fuzz/fuzz_scenario with clang, keeps a working corpus in
# build-fuzz/corpus and exits 1 when the fuzzer finds a failure, saying where the input is.
# Needs clang and libFuzzer (Debian: clang libclang-rt-14-dev). See tests/fuzz/README.md.
#   scripts/fuzz.sh          60 s, as CI runs it
#   scripts/fuzz.sh 3600     a longer run; the corpus it grows is kept for the next run
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "usage: scripts/fuzz.sh [SECONDS]" >&2; exit 2; }
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

# Only what the parser needs: src/core (the scenario code) and the embedded default scenario.
# version.c is left out: its version text and commit come from the CMake build.
core_sources=()
# explain.c is left out too: it explains a sim's step (herd_sim_*), which the parser never calls.
for f in "$root"/src/core/*.c; do
  case "$(basename "$f")" in version.c | explain.c) ;; *) core_sources+=("$f") ;; esac
done
start=$(date +%s%N)
cmake -DINPUT="$root/scenarios/strombom2014.json" -DOUTPUT="$build/herd_embedded_default_scenario.c" \
  -DNAME=herd_embedded_default_scenario -P "$root/cmake/embed.cmake"
log="$build/build.log"
# shellcheck disable=SC2046  # pkg-config prints several words on purpose
if ! "$cc" -std=c11 -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
  -fno-sanitize-recover=undefined -Wall -Wextra -Wshadow -Wstrict-prototypes \
  -I"$root/include" -I"$root/src" -I"$root/kernels" $(pkg-config --cflags jansson) \
  "$root/tests/fuzz/fuzz_scenario.c" "${core_sources[@]}" "$build/herd_embedded_default_scenario.c" \
  $(pkg-config --libs jansson) -lm -o "$build/fuzz_scenario" >"$log" 2>&1; then
  cat "$log" >&2
  echo "herd fuzz: build failed" >&2
  exit 1
fi
if [ -s "$log" ]; then cat "$log" >&2; fi # warnings
ms=$((($(date +%s%N) - start) / 1000000))
printf 'herd fuzz: built build-fuzz/fuzz_scenario in %d.%d s\n' $((ms / 1000)) $((ms % 1000 / 100))

# The working corpus keeps what earlier runs found; the seeds are copied in every run.
corpus="$build/corpus"
mkdir -p "$corpus"
cp "$root"/tests/fuzz/seeds/* "$corpus/"
for f in "$root"/tests/data/bad/*.json; do cp "$f" "$corpus/bad-$(basename "$f")"; done
for f in "$root"/scenarios/*.json; do cp "$f" "$corpus/scenario-$(basename "$f")"; done

# Each run saves its failing inputs in a folder of its own, so none is ever overwritten.
artifacts="$build/crashes/$(date +%Y%m%d-%H%M%S)-$$"
mkdir -p "$artifacts"
fuzz_log="$build/fuzz.log"
echo "herd fuzz: fuzzing for $seconds s; progress in build-fuzz/fuzz.log"
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
rc=0
"$build/fuzz_scenario" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
  -dict="$root/tests/fuzz/scenario.dict" -artifact_prefix="$artifacts/" -print_final_stats=1 \
  "$corpus" >"$fuzz_log" 2>&1 || rc=$?

found=$(find "$artifacts" -type f | wc -l)
if [ "$rc" -eq 0 ] && [ "$found" -eq 0 ]; then
  rmdir "$artifacts"
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$fuzz_log" || true
  echo "herd fuzz: corpus: $(find "$corpus" -type f | wc -l) inputs in build-fuzz/corpus"
  echo "herd fuzz: no failure in $seconds s"
  exit 0
fi
tail -n 40 "$fuzz_log" >&2 # the report: which check failed, the stack, the input escaped
echo "herd fuzz: FAILED (fuzzer exit status $rc); full log: build-fuzz/fuzz.log" >&2
if [ "$found" -eq 0 ]; then echo "herd fuzz: no failing input was saved (see the log)" >&2; fi
while IFS= read -r f; do
  echo "herd fuzz: failing input saved in ${f#"$root"/}; reproduce: build-fuzz/fuzz_scenario ${f#"$root"/}" >&2
done < <(find "$artifacts" -type f | sort)
exit 1
