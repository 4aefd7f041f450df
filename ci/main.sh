#!/usr/bin/env bash
# The main job: build stguard (release), check and inspect the bundled
# example, then grade every bundled reader against the conformance corpus
# (ci/conform.sh): stguard in both profiles and the third-party readers, the
# summary on stdout and the HTML matrix in build/conform/matrix.html.
# Installs missing packages and the readers' npm packages first.
set -euo pipefail
cd "$(dirname "$0")/.."

ci/install-deps.sh build
build=build/main
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++-14 \
  -DSTGUARD_BUILD_TESTS=OFF -DSTGUARD_BUILD_FUZZERS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target stguard_cli
stguard="$build/cli/stguard"

echo
echo "== stguard check examples/seed-example.safetensors"
"$stguard" check examples/seed-example.safetensors
echo
echo "== stguard inspect examples/seed-example.safetensors"
"$stguard" inspect examples/seed-example.safetensors

echo
echo "== stguard conform: every bundled reader against the corpus"
ci/conform.sh --stguard "$stguard"
