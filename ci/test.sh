#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer:
# clang-14 (preset asan-ubsan), then g++-12 (preset gcc-asan-ubsan) as the
# second compiler. Installs missing packages first. Exit status is ctest's.
#   ci/test.sh            both compilers
#   ci/test.sh clang      clang only (faster local loop)
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== set-up"
ci/install-deps.sh build
# The bundled JavaScript readers, for the conform.bundled test (which checks
# conformance/RESULTS.md against a fresh run) and hunt.bundled (a short seeded
# hunt against safetensors-npm); with this variable both fail instead of
# skipping when a reader is not installed.
ci/setup-readers.sh
export STGUARD_REQUIRE_READERS=1
echo "== set-up: $SECONDS s"
jobs="$(nproc)"
compilers="${1:-all}"

# Each phase says how long it took, so that the log shows where CI's time
# goes (the budget: well inside 90 minutes on 2 cores, aiming at 20).
phase_started=$SECONDS
phase() {
  if [ -n "${phase_name:-}" ]; then
    echo "== $phase_name: $((SECONDS - phase_started)) s"
  fi
  phase_name="$1"
  phase_started=$SECONDS
  [ -z "$phase_name" ] || echo "== $phase_name"
}

run_preset() {
  local preset="$1"
  shift
  phase "$preset: configure"
  cmake --preset "$preset" >/dev/null
  phase "$preset: build"
  cmake --build --preset "$preset" -j "$jobs"
  phase "$preset: test"
  local status=0
  ctest --preset "$preset" -j "$jobs" "$@" || status=$?
  phase ""
  return "$status"
}

if [ "$compilers" = all ] || [ "$compilers" = clang ]; then run_preset asan-ubsan; fi
# The second compiler runs everything that a compiler can change. Left to
# the first: conform.bundled (label conform), which grades the bundled
# readers' answers and costs minutes of node start-ups; the house rules
# (label lint: formatting, module table, docs, clang-tidy), which read the
# source, not a build; install.cli_installed_data, which installs and
# packages the build to check the install rules, the data lookup and the
# .deb; and the end-to-end runs of the whole command (label once: hostile
# file systems, the command-line fuzzer, truncation races, grading Python
# readers; and the end-to-end suites HuntEndToEnd, ConformWriter and
# ConformCli), whose subject is the command's behaviour, not code a second
# compiler could build otherwise. g++ still builds every target, runs every
# unit test, the corpus replay, the Python package's API and plugin tests and
# the library consumers. Both presets are unity builds (docs/building.md):
# the clang build took 584 s one file at a time, 331 s as a unity build.
if [ "$compilers" = gcc ]; then run_preset gcc-asan-ubsan; fi
if [ "$compilers" = all ]; then
  run_preset gcc-asan-ubsan -LE '^(conform|lint|once)$' \
    -E '^(install[.]cli_installed_data|HuntEndToEnd[.].*|ConformWriter[.].*|ConformCli[.].*)$'
fi
echo "== total: $SECONDS s"
