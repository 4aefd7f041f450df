#!/usr/bin/env bash
# Builds every fuzz harness the way OSS-Fuzz and ClusterFuzzLite expect, and
# stages what they run into $OUT. Called by .clusterfuzzlite/build.sh and
# ci/oss-fuzz/build.sh inside the base-builder image; runs locally too:
#
#   CXX=clang++-14 CXXFLAGS='-fsanitize=address,fuzzer-no-link -O1 -g' \
#   LIB_FUZZING_ENGINE=-fsanitize=fuzzer OUT=/tmp/out WORK=/tmp/work \
#     ci/fuzz-oss-build.sh
#
# Environment (as the base-builder image sets it):
#   CXX, CXXFLAGS        compiler and flags (sanitizer and coverage
#                        instrumentation, -stdlib=libc++ on OSS-Fuzz)
#   LIB_FUZZING_ENGINE   link argument for the engine (-fsanitize=fuzzer, or
#                        a driver library for AFL++ / honggfuzz)
#   OUT                  where binaries and their files go
#   WORK                 scratch space (default: a temporary directory)
#
# Stages into $OUT, per harness H: the binary H, H.options (from
# fuzz/H.options), H.dict (fuzz/stguard.dict, for harnesses whose options
# name it; stguard.dict itself too, as the options refer to it), and
# H_seed_corpus.zip (corpus/**/*.safetensors and fuzz/regressions/H/*).
# Only the parser and nlohmann/json (header-only) are linked, so every
# sanitizer, MemorySanitizer included, works with OSS-Fuzz's libc++.
# Exit status: 0 when everything was built and staged, 1 otherwise, 2 on a
# usage error.
set -euo pipefail
prog=fuzz-oss-build.sh
cd "$(dirname "$0")/.."
root="$(pwd)"
source ci/fuzz-common.sh

case "${1:-}" in
  -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  "") ;;
  *) echo "$prog: no arguments (it reads the environment); see --help" >&2; exit 2 ;;
esac
for var in CXX OUT LIB_FUZZING_ENGINE; do
  [ -n "${!var:-}" ] || stguard_die 2 "\$$var is not set (see --help)"
done
cxxflags="${CXXFLAGS:-}"
work="${WORK:-}"
if [ -z "$work" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$OUT" "$work"
build="$work/stguard-fuzz-build"

# The engine's link flags go to the fuzz targets only (STGUARD_FUZZ_LDFLAGS);
# the instrumentation comes with CXXFLAGS, for the parser and the harnesses.
# No CMAKE_BUILD_TYPE: the flags are the image's, not ours.
cmake -S "$root" -B "$build" \
  -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_CXX_FLAGS="$cxxflags" -DCMAKE_BUILD_TYPE= \
  -DSTGUARD_BUILD_FUZZERS=ON -DSTGUARD_FUZZ_LDFLAGS="$LIB_FUZZING_ENGINE" \
  -DSTGUARD_SANITIZERS= -DSTGUARD_WARNINGS_AS_ERRORS=OFF \
  -DSTGUARD_BUILD_TESTS=OFF -DSTGUARD_BUILD_CLI=OFF -DSTGUARD_INSTALL=OFF
cmake --build "$build" -j "$(nproc)" --target all_fuzzers

seeds="$work/seeds"
for h in "${stguard_harnesses[@]}"; do
  [ -x "$build/fuzz/$h" ] || stguard_die 1 "$build/fuzz/$h was not built"
  cp "$build/fuzz/$h" "$OUT/$h"
  cp "fuzz/$h.options" "$OUT/$h.options"
  dict=$(stguard_options "$h" dict)
  if [ -n "$dict" ]; then
    cp "fuzz/$dict" "$OUT/$dict"
    cp "fuzz/$dict" "$OUT/$h.dict"
  fi
  rm -rf "$seeds"
  stguard_seed "$h" "$seeds"
  rm -f "$OUT/${h}_seed_corpus.zip"
  if command -v zip >/dev/null; then
    (cd "$seeds" && zip -q -X "$OUT/${h}_seed_corpus.zip" ./*)
  else
    (cd "$seeds" && cmake -E tar cf "$OUT/${h}_seed_corpus.zip" --format=zip -- *)
  fi
  echo "$prog: $h -> $OUT ($(find "$seeds" -type f | wc -l) seeds)"
done
rm -rf "$seeds"
