#!/usr/bin/env bash
# Crash minimisation: the smallest input that still makes a harness fail the
# same way, found by libFuzzer's -minimize_crash=1 within a time box. Works
# for findings of either engine (the harness is the same source).
#
#   ci/fuzz-minimize.sh [--seconds N] [--build-dir DIR] [--out FILE]
#                       HARNESS CRASH_FILE
#
#   --seconds N      time box (default 60)
#   --build-dir DIR  libFuzzer build directory (default build/fuzz; also
#                    $STGUARD_FUZZ_BUILD_DIR)
#   --out FILE       where the minimised input goes (default
#                    CRASH_FILE.min next to the input)
#
# Prints the sizes before and after and the failure the minimised input
# gives. Keep it with ci/fuzz-regression.sh. Exit status: 0 when a minimised
# input was written, 1 when the input does not fail the harness (nothing to
# minimise) or libFuzzer failed, 2 on a usage error.
set -euo pipefail
prog=fuzz-minimize.sh
cd "$(dirname "$0")/.."
root="$(pwd)"
source ci/fuzz-common.sh

seconds=60
build="${STGUARD_FUZZ_BUILD_DIR:-build/fuzz}"
out=""
args=()

while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) [ $# -ge 2 ] || usage; seconds="$2"; shift 2 ;;
    --build-dir) [ $# -ge 2 ] || usage; build="$2"; shift 2 ;;
    --out) [ $# -ge 2 ] || usage; out="$2"; shift 2 ;;
    -h|--help) usage 0 ;;
    -*) echo "$prog: unknown option $1" >&2; usage ;;
    *) args+=("$1"); shift ;;
  esac
done
[ ${#args[@]} -eq 2 ] || { echo "$prog: need HARNESS and CRASH_FILE" >&2; usage; }
harness="${args[0]}"
crash="${args[1]}"
stguard_check_harness "$harness"
stguard_check_seconds --seconds "$seconds"
[ -f "$crash" ] || stguard_die 2 "no such file: $crash"
case "$crash" in /*) ;; *) crash="$root/$crash" ;; esac
out="${out:-$crash.min}"
case "$out" in /*) ;; *) out="$root/$out" ;; esac

stguard_build fuzz "$build" "$harness"
case "$build" in /*) ;; *) build="$root/$build" ;; esac
bin="$build/fuzz/$harness"
stguard_sanitizer_env
log="$out.log"

# Does it fail at all? (Run once; a clean run means there is nothing to do.)
set +e
"$bin" -rss_limit_mb=2048 -timeout=10 "$crash" >"$log" 2>&1
status=$?
set -e
if [ "$status" -eq 0 ]; then
  stguard_die 1 "$crash does not fail $harness (fixed already, or another harness's input?)"
fi

mapfile -t options < <(stguard_libfuzzer_args "$harness" | grep -v '^-max_len=')
rm -f "$out"
set +e
"$bin" "${options[@]}" -minimize_crash=1 -max_total_time="$seconds" -rss_limit_mb=2048 \
  -timeout=10 -exact_artifact_path="$out" "$crash" >"$log" 2>&1
status=$?
set -e
if [ ! -f "$out" ]; then
  tail -20 "$log" >&2
  stguard_die 1 "libFuzzer wrote no minimised input (exit $status); log: $log"
fi
echo "$prog: $(wc -c <"$crash") -> $(wc -c <"$out") bytes: $out"
set +e
"$bin" -rss_limit_mb=2048 -timeout=10 "$out" >"$log" 2>&1
status=$?
set -e
if [ "$status" -eq 0 ]; then
  stguard_die 1 "the minimised input no longer fails; keep the original ($crash)"
fi
grep -E 'invariant broken|ERROR: |runtime error|SUMMARY' "$log" | head -5 || true
echo "$prog: next: ci/fuzz-regression.sh $harness $out [--name NAME]"
