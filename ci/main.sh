#!/usr/bin/env bash
# The main job: build stguard (release) and run it on the bundled example
# and on the conformance corpus. Installs missing packages first.
set -euo pipefail
cd "$(dirname "$0")/.."

ci/install-deps.sh build
build=build/main
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++-14 \
  -DSTGUARD_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target stguard_cli
stguard="$build/cli/stguard"

echo
echo "== stguard check examples/seed-example.safetensors"
"$stguard" check examples/seed-example.safetensors
echo
echo "== stguard inspect examples/seed-example.safetensors"
"$stguard" inspect examples/seed-example.safetensors

if [ -f corpus/manifest.json ]; then
  echo
  echo "== stguard check over the conformance corpus (corpus/), both profiles"
  mapfile -t files < <(find corpus -name '*.safetensors' | sort)
  for profile in strict reference; do
    set +e
    "$stguard" check --profile "$profile" --json "${files[@]}" > "$build/corpus-$profile.jsonl"
    status=$?
    set -e
    if [ "$status" -gt 1 ]; then echo "stguard check failed to run (exit $status)" >&2; exit "$status"; fi
    accepted=$(grep -c '"verdict":"accept"' "$build/corpus-$profile.jsonl" || true)
    rejected=$(grep -c '"verdict":"reject"' "$build/corpus-$profile.jsonl" || true)
    echo "$profile: ${#files[@]} files, $accepted accepted, $rejected rejected" \
      "(per-file verdicts: $build/corpus-$profile.jsonl)"
  done
fi
