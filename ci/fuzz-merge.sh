#!/usr/bin/env bash
# Corpus minimisation: the smallest set of inputs that keeps a harness's
# coverage, merged into a fresh directory.
#
#   ci/fuzz-merge.sh [--engine libfuzzer|afl] [--build-dir DIR] [--out DIR]
#                    [--replace] [--seconds N] HARNESS [INPUT_DIR...]
#
#   --engine E       libfuzzer (default: -merge=1) or afl (afl-cmin)
#   --build-dir DIR  the ci/fuzz.sh build directory (default build/fuzz or
#                    build/fuzz-afl; also $STGUARD_FUZZ_BUILD_DIR)
#   --out DIR        where the minimised corpus goes; must not exist or be
#                    empty (default DIR/work/HARNESS/corpus.min)
#   --replace        afterwards, make it the campaign corpus: the old one
#                    becomes DIR/work/HARNESS/corpus.old (libFuzzer engine)
#   --seconds N      time box for the merge (default 1800)
#   INPUT_DIR        directories to minimise (default: the campaign corpus
#                    DIR/work/HARNESS/corpus for libFuzzer, the AFL++ queue
#                    DIR/work/HARNESS/afl/default/queue for afl, plus the
#                    seeds corpus/ and fuzz/regressions/HARNESS)
#
# Exit status: 0 when the merged corpus was written, 1 when the merge failed
# or ran out of time, 2 on a usage error.
set -euo pipefail
prog=fuzz-merge.sh
cd "$(dirname "$0")/.."
root="$(pwd)"
source ci/fuzz-common.sh

engine=libfuzzer
build="${STGUARD_FUZZ_BUILD_DIR:-}"
out=""
replace=0
seconds=1800
harness=""
inputs=()

while [ $# -gt 0 ]; do
  case "$1" in
    --engine) [ $# -ge 2 ] || usage; engine="$2"; shift 2 ;;
    --build-dir) [ $# -ge 2 ] || usage; build="$2"; shift 2 ;;
    --out) [ $# -ge 2 ] || usage; out="$2"; shift 2 ;;
    --replace) replace=1; shift ;;
    --seconds) [ $# -ge 2 ] || usage; seconds="$2"; shift 2 ;;
    -h|--help) usage 0 ;;
    -*) echo "$prog: unknown option $1" >&2; usage ;;
    *) if [ -z "$harness" ]; then harness="$1"; else inputs+=("$1"); fi; shift ;;
  esac
done
[ -n "$harness" ] || { echo "$prog: which harness?" >&2; usage; }
stguard_check_harness "$harness"
stguard_check_seconds --seconds "$seconds"
case "$engine" in
  libfuzzer) preset=fuzz; build="${build:-build/fuzz}" ;;
  afl) preset=fuzz-afl; build="${build:-build/fuzz-afl}"; ci/install-deps.sh fuzz ;;
  *) stguard_die 2 "--engine must be libfuzzer or afl, not '$engine'" ;;
esac
[ "$replace" = 0 ] || [ "$engine" = libfuzzer ] || stguard_die 2 "--replace is for the libFuzzer corpus"
case "$build" in /*) ;; *) build="$root/$build" ;; esac
work="$build/work/$harness"
out="${out:-$work/corpus.min}"
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
  stguard_die 2 "$out exists and is not empty; merge into a fresh directory"
fi
if [ ${#inputs[@]} -eq 0 ]; then
  if [ "$engine" = libfuzzer ]; then
    [ -d "$work/corpus" ] && inputs+=("$work/corpus")
  else
    [ -d "$work/afl/default/queue" ] && inputs+=("$work/afl/default/queue")
  fi
  inputs+=("$root/corpus" "$root/fuzz/regressions/$harness")
fi
total=0
for d in "${inputs[@]}"; do
  [ -d "$d" ] || stguard_die 2 "input $d is not a directory"
  total=$((total + $(find "$d" -type f ! -name '.*' | wc -l)))
done

stguard_build "$preset" "$build" "$harness"
bin="$build/fuzz/$harness"
stguard_sanitizer_env
mkdir -p "$out"
log="$build/work/merge-$harness.log"
mkdir -p "$(dirname "$log")"
echo "$prog: $harness ($engine): $total input(s) from ${#inputs[@]} dir(s) -> $out"
set +e
if [ "$engine" = libfuzzer ]; then
  # No dict (merging does not mutate) and no max_len (it would truncate).
  mapfile -t options < <(stguard_libfuzzer_args "$harness" --no-dict | grep -v '^-max_len=')
  timeout "$seconds" "$bin" "${options[@]}" -merge=1 -rss_limit_mb=2048 -timeout=10 \
    "$out" "${inputs[@]}" >"$log" 2>&1
  status=$?
else
  # afl-cmin takes one input directory: gather them (names made unique).
  gather=$(mktemp -d)
  trap 'rm -rf "$gather"' EXIT
  n=0
  while IFS= read -r -d '' f; do
    n=$((n + 1))
    cp "$f" "$gather/in-$n"
  done < <(find "${inputs[@]}" -type f ! -name '.*' -print0)
  rmdir "$out"  # afl-cmin creates it
  # The driver binary reads stdin without @@; AFL_ALLOW_TMP for mktemp's dir.
  AFL_ALLOW_TMP=1 AFL_NO_AFFINITY=1 \
    ASAN_OPTIONS="abort_on_error=1:symbolize=0:detect_leaks=0:allocator_may_return_null=1" \
    timeout "$seconds" afl-cmin -i "$gather" -o "$out" -m none -t 10000 -- "$bin" >"$log" 2>&1
  status=$?
fi
set -e
if [ "$status" -ne 0 ]; then
  tail -20 "$log" >&2
  [ "$status" -ne 124 ] || stguard_die 1 "the merge exceeded the ${seconds}s time box"
  stguard_die 1 "the merge failed (exit $status); log: $log"
fi
kept=$(find "$out" -type f | wc -l)
echo "$prog: kept $kept of $total input(s) in $out (log: $log)"
if [ "$replace" = 1 ]; then
  rm -rf "$work/corpus.old"
  [ ! -d "$work/corpus" ] || mv "$work/corpus" "$work/corpus.old"
  mv "$out" "$work/corpus"
  echo "$prog: $work/corpus is now the minimised corpus (previous: $work/corpus.old)"
fi
