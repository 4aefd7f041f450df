#!/usr/bin/env bash
# The clang-tidy gate: clang-tidy-14 with the checks of .clang-tidy over the
# project's own sources (not its tests), using BUILD_DIR's
# compile_commands.json. Prints each finding and exits 1 when there is any.
# Run by the test command (ctest -L lint, test lint.tidy) and the pre-commit
# hook (which passes the staged files).
#   ci/tidy-check.sh BUILD_DIR [FILE...]
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$#" -lt 1 ]; then
  echo "usage: ci/tidy-check.sh BUILD_DIR [FILE...]" >&2
  exit 2
fi
build_dir="$1"
shift
tidy="${CLANG_TIDY:-clang-tidy-14}"
if ! command -v "$tidy" >/dev/null 2>&1; then
  echo "tidy-check: $tidy not found (ci/install-deps.sh installs it)" >&2
  exit 2
fi
if [ ! -f "$build_dir/compile_commands.json" ]; then
  echo "tidy-check: no $build_dir/compile_commands.json (configure with a preset first)" >&2
  exit 2
fi

# The translation units of the build that are the project's own sources:
# what compile_commands.json lists, less tests/, generated files and the
# files named on the command line when there are some.
# (A unity build lists its batches there; ci/tidy-batches.py --units reads
# them back into their sources.)
mapfile -t units < <(python3 ci/tidy-batches.py --units "$build_dir" |
  grep -E "^$(pwd)/(parser|base|verify|remote|conformance|hunt|mutate|cli|fuzz|examples)/" || true)
if [ "$#" -gt 0 ]; then
  wanted=()
  for f in "$@"; do
    for u in "${units[@]}"; do [ "$u" = "$(pwd)/$f" ] && wanted+=("$u"); done
  done
  units=("${wanted[@]+"${wanted[@]}"}")
fi
if [ "${#units[@]}" -eq 0 ]; then
  echo "tidy-check: no source file to check"
  exit 0
fi
checked=("${units[@]}")

jobs="$(nproc)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The whole tree is checked in batches of one target's sources
# (ci/tidy-batches.py: the headers are parsed once per batch, which took
# the gate from 171 s to 52 s on 2 cores); named files one by one.
alone=()
[ "$#" -eq 0 ] || alone=(--alone)
printf '%s\n' "${units[@]}" |
  python3 ci/tidy-batches.py "${alone[@]+"${alone[@]}"}" "$build_dir" "$work" >"$work/batches"
mapfile -t units <"$work/batches"
compile_dir="$work"
log="$work/log"
printf '%s\n' "${units[@]}" |
  xargs -P "$jobs" -n 1 "$tidy" -p "$compile_dir" --config-file="$(pwd)/.clang-tidy" --quiet \
    >"$log" 2>&1 || status=$?
if [ "${status:-0}" -ne 0 ]; then
  grep -E 'error:|warning:' "$log" | sort -u >&2 || cat "$log" >&2
  echo "tidy-check: clang-tidy found problems in the ${#checked[@]} files checked" >&2
  exit 1
fi
echo "tidy-check: ${#checked[@]} files clean"
