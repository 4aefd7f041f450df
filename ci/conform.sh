#!/usr/bin/env bash
# The conformance run of the main job: every bundled reader (stguard in both
# profiles and the third-party readers of conformance/adapters/) over the
# corpus, and every bundled writer (stguard write) over the writer cases,
# with the reports in build/conform/ (writers are columns beside the readers):
#   summary.txt  results.jsonl  junit.xml  matrix.html  RESULTS.md
#
#   ci/conform.sh [--stguard PATH] [--update-results]
#
#   --stguard PATH     use this stguard instead of building one (release,
#                      build/main)
#   --update-results   also write conformance/RESULTS.md (the committed
#                      matrix; a ctest entry checks it is in sync)
#
# Exit status: 0 when the run completed (third-party readers failing cases is
# the result, not an error), 2 when it could not run (build, set-up, a reader
# not installed, an unwritable report).
set -euo pipefail
cd "$(dirname "$0")/.."

stguard=""
update=0
while [ $# -gt 0 ]; do
  case "$1" in
    --stguard) stguard="$2"; shift 2 ;;
    --update-results) update=1; shift ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "conform.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

if [ -z "$stguard" ]; then
  ci/install-deps.sh build
  cmake -S . -B build/main -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++-14 \
    -DSTGUARD_BUILD_TESTS=OFF -DSTGUARD_BUILD_FUZZERS=OFF >/dev/null
  cmake --build build/main -j "$(nproc)" --target stguard_cli
  stguard=build/main/cli/stguard
fi
ci/setup-readers.sh

out=build/conform
mkdir -p "$out"
set +e
"$stguard" conform --all-readers --all-writers --require-readers --out-dir "$out" --markdown "$out/RESULTS.md"
status=$?
set -e
if [ "$status" -gt 1 ]; then
  echo "conform.sh: the conformance run failed (exit $status)" >&2
  exit "$status"
fi
echo
echo "conform.sh: reports in $out/ (open $out/matrix.html in a browser)"
if [ "$update" = 1 ]; then
  cp "$out/RESULTS.md" conformance/RESULTS.md
  echo "conform.sh: wrote conformance/RESULTS.md"
fi
