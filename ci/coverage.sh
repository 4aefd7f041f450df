#!/usr/bin/env bash
# Coverage of the parser (parser/src) reached by the fuzz harnesses replaying
# the seed corpus, the regression files and, optionally, campaign corpora.
#
#   ci/coverage.sh [--build-dir DIR] [--out DIR] [--campaign DIR]...
#                  [--corpus HARNESS=DIR]... [--timeout SECONDS]
#                  [--list-uncovered]
#
#   --build-dir DIR      coverage build (default build/coverage; preset
#                        coverage: clang-14 -fprofile-instr-generate
#                        -fcoverage-mapping, replay mains, no sanitizers)
#   --out DIR            report directory (default DIR/report): html/index.html,
#                        summary.txt, uncovered.txt (every parser/src line with
#                        a zero count, as path:line: source)
#   --campaign DIR       a ci/fuzz.sh build directory: each harness also
#                        replays DIR/work/<harness>/corpus and, for AFL++,
#                        DIR/work/<harness>/afl/default/queue (repeatable)
#   --corpus H=DIR       one more input directory for harness H (repeatable)
#   --timeout SECONDS    time box per harness replay (default 900)
#   --list-uncovered     also print uncovered.txt
#
# Each harness replays corpus/ and fuzz/regressions/<harness>/ through its
# replay main (custom mutations off: only the inputs themselves count); the
# profiles are merged with llvm-profdata-14 and reported with llvm-cov-14.
# The last line printed is the one-line summary for parser/src. Exit status:
# 0 when the report was written, 1 when a build, a replay (a crashing input
# or the time box) or a tool failed, 2 on a usage error.
set -euo pipefail
prog=coverage.sh
cd "$(dirname "$0")/.."
root="$(pwd)"
source ci/fuzz-common.sh

build="build/coverage"
out=""
campaigns=()
extra=()
timeout_s=900
list_uncovered=0

while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) [ $# -ge 2 ] || usage; build="$2"; shift 2 ;;
    --out) [ $# -ge 2 ] || usage; out="$2"; shift 2 ;;
    --campaign) [ $# -ge 2 ] || usage; campaigns+=("$2"); shift 2 ;;
    --corpus) [ $# -ge 2 ] || usage; extra+=("$2"); shift 2 ;;
    --timeout) [ $# -ge 2 ] || usage; timeout_s="$2"; shift 2 ;;
    --list-uncovered) list_uncovered=1; shift ;;
    -h|--help) usage 0 ;;
    *) echo "$prog: unknown argument $1" >&2; usage ;;
  esac
done
stguard_check_seconds --timeout "$timeout_s"
for c in "${campaigns[@]}"; do
  [ -d "$c/work" ] || stguard_die 2 "--campaign $c: no $c/work (not a ci/fuzz.sh build directory?)"
done
for e in "${extra[@]}"; do
  [[ "$e" == *=* ]] || stguard_die 2 "--corpus needs HARNESS=DIR, not '$e'"
  stguard_check_harness "${e%%=*}"
  [ -d "${e#*=}" ] || stguard_die 2 "--corpus $e: no such directory"
done

profdata="${LLVM_PROFDATA:-llvm-profdata-14}"
llvm_cov="${LLVM_COV:-llvm-cov-14}"
ci/install-deps.sh build
command -v "$profdata" >/dev/null || stguard_die 1 "$profdata not found (package llvm-14)"
command -v "$llvm_cov" >/dev/null || stguard_die 1 "$llvm_cov not found (package llvm-14)"

stguard_build coverage "$build" "${stguard_harnesses[@]}"
case "$build" in /*) ;; *) build="$root/$build" ;; esac
out="${out:-$build/report}"
mkdir -p "$out"
case "$out" in /*) ;; *) out="$root/$out" ;; esac
profiles="$build/profiles"
rm -rf "$profiles"
mkdir -p "$profiles"

objects=()
for h in "${stguard_harnesses[@]}"; do
  bin="$build/fuzz/$h"
  [ -x "$bin" ] || stguard_die 1 "$bin was not built"
  inputs=("$root/corpus" "$root/fuzz/regressions/$h")
  for c in "${campaigns[@]}"; do
    for d in "$c/work/$h/corpus" "$c/work/$h/afl/default/queue"; do
      [ ! -d "$d" ] || inputs+=("$d")
    done
  done
  for e in "${extra[@]}"; do
    [ "${e%%=*}" != "$h" ] || inputs+=("${e#*=}")
  done
  set +e
  LLVM_PROFILE_FILE="$profiles/$h-%p.profraw" STGUARD_REPLAY_MUTATIONS=0 \
    timeout "$timeout_s" "$bin" "${inputs[@]}" >"$profiles/$h.log" 2>&1
  status=$?
  set -e
  if [ "$status" -ne 0 ]; then
    tail -30 "$profiles/$h.log" >&2
    if [ "$status" -eq 124 ]; then
      stguard_die 1 "$h: replay exceeded the ${timeout_s}s time box"
    fi
    stguard_die 1 "$h: replay failed (exit $status): an input crashes the harness; see $profiles/$h.log"
  fi
  echo "$h: $(tail -1 "$profiles/$h.log") from ${#inputs[@]} dir(s)"
  if [ ${#objects[@]} -eq 0 ]; then objects+=("$bin"); else objects+=(-object "$bin"); fi
done

"$profdata" merge -sparse "$profiles"/*.profraw -o "$profiles/merged.profdata"
cov_args=("${objects[@]}" -instr-profile="$profiles/merged.profdata")

rm -rf "$out/html"
"$llvm_cov" show "${cov_args[@]}" -format=html -output-dir="$out/html" \
  -show-line-counts-or-regions -show-branches=count -show-expansions \
  -Xdemangler=c++filt "$root/parser/src" "$root/parser/include" >/dev/null 2>"$out/show.log" || {
  cat "$out/show.log" >&2
  stguard_die 1 "llvm-cov show failed"
}

# Every parser/src line that has a count and the count is zero.
"$llvm_cov" show "${cov_args[@]}" -format=text -show-line-counts "$root/parser/src" 2>/dev/null |
  awk -v root="$root/" '
    /^\/.*:$/ { file = substr($0, 1, length($0) - 1); sub("^" root, "", file); next }
    {
      split($0, f, "|")
      line = f[1]; count = f[2]
      gsub(/ /, "", line); gsub(/ /, "", count)
      if (line ~ /^[0-9]+$/ && count == "0") {
        text = $0; sub(/^[^|]*\|[^|]*\|/, "", text)
        print file ":" line ":" text
      }
    }' >"$out/uncovered.txt"

"$llvm_cov" report "${cov_args[@]}" "$root/parser/src" >"$out/report.txt" 2>&1 || {
  cat "$out/report.txt" >&2
  stguard_die 1 "llvm-cov report failed"
}
# TOTAL  regions missed cover  functions missed cover  lines missed cover
#        branches missed cover
summary=$(awk -v html="$out/html/index.html" '$1 == "TOTAL" && NF >= 13 {
  printf "coverage parser/src: lines %s (%d of %d), branches %s (%d of %d), functions %s, regions %s; report %s\n",
    $10, $8 - $9, $8, $13, $11 - $12, $11, $7, $4, html }' "$out/report.txt")
[ -n "$summary" ] || { cat "$out/report.txt" >&2; stguard_die 1 "no TOTAL line in llvm-cov report"; }
echo "$summary" >"$out/summary.txt"

cat "$out/report.txt"
echo
if [ "$list_uncovered" = 1 ]; then
  echo "uncovered lines ($(wc -l <"$out/uncovered.txt")):"
  cat "$out/uncovered.txt"
  echo
fi
echo "$(wc -l <"$out/uncovered.txt") uncovered line(s) listed in $out/uncovered.txt"
echo "$summary"
