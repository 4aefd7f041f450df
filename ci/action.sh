#!/usr/bin/env bash
# What the GitHub Action (action.yml) runs: grade one reader against the
# corpus. Inputs come as environment variables, so the action and a local run
# (tests/install/action_test.sh) take exactly the same path:
#   STGUARD_ACTION_ADAPTER      the adapter command (required)
#   STGUARD_ACTION_NAME         the reader's name in reports (default "reader")
#   STGUARD_ACTION_PLAIN        "true": grade by exit status alone
#   STGUARD_ACTION_EXPECTATIONS an expectations file (known failures)
#   STGUARD_ACTION_CASES        case id globs, blank- or newline-separated
#   STGUARD_ACTION_TAGS         tags, blank- or newline-separated
#   STGUARD_ACTION_TIMEOUT      seconds per case (default 10)
#   STGUARD_ACTION_MEMORY_MB    address-space limit per adapter process in MB
#                               (default 2048; 0 = none, for sanitizer builds)
#   STGUARD_ACTION_STGUARD      a stguard binary to use (default: build one)
#   STGUARD_ACTION_OUT_DIR      where the reports go (default stguard-conform)
# Exit status: stguard conform's (0 nothing unexpected failed, 1 some case
# failed, 2 the run could not happen).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"

adapter="${STGUARD_ACTION_ADAPTER:?STGUARD_ACTION_ADAPTER: the adapter command is required}"
name="${STGUARD_ACTION_NAME:-reader}"
out_dir="${STGUARD_ACTION_OUT_DIR:-stguard-conform}"
stguard="${STGUARD_ACTION_STGUARD:-}"

if [ -z "$stguard" ]; then
  # Build the command alone (no tests, no fuzzers), from this action's sources.
  if [ "$(id -u)" -eq 0 ]; then
    "$here/ci/install-deps.sh" build
  elif command -v sudo >/dev/null 2>&1; then
    sudo -n "$here/ci/install-deps.sh" build
  fi
  build="${RUNNER_TEMP:-/tmp}/stguard-action-build"
  cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSTGUARD_BUILD_TESTS=OFF \
    -DSTGUARD_BUILD_FUZZERS=OFF -DSTGUARD_INSTALL=OFF >/dev/null
  cmake --build "$build" -j "$(nproc)" --target stguard_cli >/dev/null
  stguard="$build/cli/stguard"
fi

args=(conform --adapter "$adapter" --name "$name" --out-dir "$out_dir" --quiet
      --timeout "${STGUARD_ACTION_TIMEOUT:-10}" --memory-mb "${STGUARD_ACTION_MEMORY_MB:-2048}")
case "${STGUARD_ACTION_PLAIN:-false}" in
  true) args+=(--plain) ;;
  false|"") ;;
  *) echo "action: plain is true or false, got '$STGUARD_ACTION_PLAIN'" >&2; exit 2 ;;
esac
if [ -n "${STGUARD_ACTION_EXPECTATIONS:-}" ]; then
  args+=(--expectations "$STGUARD_ACTION_EXPECTATIONS")
fi
set -f  # the globs are stguard's to match against case ids, not the shell's
for glob in ${STGUARD_ACTION_CASES:-}; do args+=(--case "$glob"); done
for tag in ${STGUARD_ACTION_TAGS:-}; do args+=(--tag "$tag"); done
set +f

mkdir -p "$out_dir"
echo "action: $stguard ${args[*]}"
exec "$stguard" "${args[@]}"
