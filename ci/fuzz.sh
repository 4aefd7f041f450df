#!/usr/bin/env bash
# Time-boxed fuzzing campaign for one or all of stguard's harnesses.
#
#   ci/fuzz.sh [--seconds N] [--engine libfuzzer|afl] [HARNESS...]
#
#   --seconds N   wall time per harness (default 60)
#   --engine E    libfuzzer (default; clang-14 -fsanitize=fuzzer, ASan+UBSan,
#                 build/fuzz) or afl (afl-clang-fast++ with AFL++'s
#                 libFuzzer-compatible driver, ASan+UBSan, build/fuzz-afl)
#   HARNESS       fuzz_parse fuzz_mutator fuzz_roundtrip fuzz_differential
#                 fuzz_structured
#                 (default: all, one after another)
#
# Seeds: every corpus/**/*.safetensors plus fuzz/regressions/<harness>/*,
# copied into <build>/work/<harness>/corpus, which persists between runs and
# grows. Crashes, leaks, timeouts and over-large allocations are saved under
# <build>/work/<harness>/artifacts (libFuzzer) or <build>/work/<harness>/afl/
# default/{crashes,hangs} (AFL++). Exit status: 0 when every harness ran clean,
# 1 when any finding was saved or a fuzzer failed, 2 on a usage error.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"

seconds=60
engine=libfuzzer
harnesses=()
all_harnesses=(fuzz_parse fuzz_mutator fuzz_roundtrip fuzz_differential fuzz_structured)

usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) [ $# -ge 2 ] || usage; seconds="$2"; shift 2 ;;
    --seconds=*) seconds="${1#*=}"; shift ;;
    --engine) [ $# -ge 2 ] || usage; engine="$2"; shift 2 ;;
    --engine=*) engine="${1#*=}"; shift ;;
    -h|--help) usage ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; usage ;;
    *) harnesses+=("$1"); shift ;;
  esac
done
[[ "$seconds" =~ ^[0-9]+$ ]] && [ "$seconds" -gt 0 ] || { echo "fuzz.sh: --seconds needs a positive integer" >&2; exit 2; }
[ ${#harnesses[@]} -gt 0 ] || harnesses=("${all_harnesses[@]}")
for h in "${harnesses[@]}"; do
  [[ " ${all_harnesses[*]} " == *" $h "* ]] || { echo "fuzz.sh: unknown harness $h (have: ${all_harnesses[*]})" >&2; exit 2; }
done

# Limits: inputs stay small (largest seed ~2 KB), so any allocation above
# malloc_limit_mb is sized from an untrusted length: a finding, not a slowdown.
max_len=8192
malloc_limit_mb=64
rss_limit_mb=2048
timeout_s=10

case "$engine" in
  libfuzzer)
    ci/install-deps.sh build
    build=build/fuzz
    cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DSTGUARD_SANITIZERS=address,undefined -DSTGUARD_BUILD_FUZZERS=ON \
      -DSTGUARD_FUZZ_ENGINE=libfuzzer -DSTGUARD_BUILD_TESTS=OFF -DSTGUARD_BUILD_CLI=OFF \
      -DSTGUARD_INSTALL=OFF >/dev/null
    ;;
  afl)
    ci/install-deps.sh fuzz
    build=build/fuzz-afl
    # -fsanitize=fuzzer under afl-clang-fast++ links AFL++'s libFuzzer-compatible
    # driver, which copies each input into an exact-size buffer (FUZZING.md #1).
    CC=afl-clang-fast CXX=afl-clang-fast++ cmake -S . -B "$build" \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTGUARD_SANITIZERS=address,undefined \
      -DSTGUARD_BUILD_FUZZERS=ON -DSTGUARD_FUZZ_LDFLAGS=-fsanitize=fuzzer \
      -DSTGUARD_BUILD_TESTS=OFF -DSTGUARD_BUILD_CLI=OFF -DSTGUARD_INSTALL=OFF >/dev/null
    ;;
  *) echo "fuzz.sh: --engine must be libfuzzer or afl" >&2; exit 2 ;;
esac
jobs=$(( $(nproc) < 2 ? $(nproc) : 2 ))
cmake --build "$build" -j "$jobs" --target "${harnesses[@]}"

seed() {  # seed <harness> <dir>
  local h="$1" dir="$2" f
  mkdir -p "$dir"
  while IFS= read -r -d '' f; do
    cp -n "$f" "$dir/seed-$(echo "${f#./}" | tr '/' '_')"
  done < <(find corpus -name '*.safetensors' -print0; find "fuzz/regressions/$h" -type f -print0)
}

declare -A result_status result_execs result_rate
failed=0
for h in "${harnesses[@]}"; do
  bin="$root/$build/fuzz/$h"
  work="$root/$build/work/$h"
  mkdir -p "$work"
  dict_args=()
  afl_dict_args=()
  # fuzz_structured's input is generator choices, not header text.
  if [ "$h" != fuzz_structured ]; then
    dict_args=(-dict="$root/fuzz/stguard.dict")
    afl_dict_args=(-x "$root/fuzz/stguard.dict")
  fi
  echo
  echo "== $h: $engine, ${seconds}s"
  if [ "$engine" = libfuzzer ]; then
    seed "$h" "$work/corpus"
    mkdir -p "$work/artifacts"
    log="$work/libfuzzer.log"
    touch "$work/.start"  # findings of this run only
    set +e
    "$bin" "${dict_args[@]}" -max_len="$max_len" -rss_limit_mb="$rss_limit_mb" \
      -malloc_limit_mb="$malloc_limit_mb" -timeout="$timeout_s" -max_total_time="$seconds" \
      -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" >"$log" 2>&1
    status=$?
    set -e
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    findings=$(find "$work/artifacts" -type f -newer "$work/.start" | wc -l)
    if [ "$status" -ne 0 ] || [ "$findings" -gt 0 ]; then
      echo "$h: FAILED (libFuzzer exit $status, $findings file(s) in $work/artifacts)"
      grep -E 'ERROR|invariant|SUMMARY|Test unit written' "$log" | head -20 || true
      result_status[$h]="FAIL"
      failed=1
    else
      result_status[$h]="ok"
    fi
  else
    seed "$h" "$work/seeds"
    out="$work/afl"
    # Start each campaign afresh (so crashes/ holds this run's findings only),
    # seeded with the previous run's queue as well.
    if [ -d "$out" ]; then
      rm -rf "$out.prev"
      mv "$out" "$out.prev"
      rm -f "$work/seeds"/queue-*
      for f in "$out.prev"/default/queue/id:*; do
        # Entries that are just a copy of a corpus seed are seeded anyway.
        case "$(basename "$f")" in *orig:seed-*) continue ;; esac
        [ -f "$f" ] && cp "$f" "$work/seeds/queue-$(basename "$f" | tr ':,' '__')"
      done
    fi
    set +e
    # Each campaign starts from the seeds; -V bounds it. ASAN_OPTIONS must
    # carry abort_on_error=1 or afl-fuzz refuses to start (FUZZING.md #3).
    AFL_NO_UI=1 AFL_NO_AFFINITY=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
      ASAN_OPTIONS=abort_on_error=1:symbolize=0:detect_leaks=1:allocator_may_return_null=1 \
      UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:symbolize=0 \
      afl-fuzz -i "$work/seeds" -o "$out" "${afl_dict_args[@]}" -m none \
      -t $((timeout_s * 1000)) -V "$seconds" -- "$bin" >"$work/afl.log" 2>&1
    status=$?
    set -e
    stats="$out/default/fuzzer_stats"
    execs=$(sed -n 's/^execs_done *: *//p' "$stats" 2>/dev/null || true)
    rate=$(sed -n 's/^execs_per_sec *: *//p' "$stats" 2>/dev/null || true)
    # afl-fuzz exits 0 even when it saved crashes: look for them.
    crashes=$(find "$out/default/crashes" "$out/default/hangs" -type f -name 'id:*' 2>/dev/null | wc -l)
    if [ "$status" -ne 0 ] || [ "$crashes" -gt 0 ] || [ ! -f "$stats" ]; then
      echo "$h: FAILED (afl-fuzz exit $status, $crashes crash/hang file(s) under $out/default)"
      tail -20 "$work/afl.log"
      result_status[$h]="FAIL"
      failed=1
    else
      result_status[$h]="ok"
    fi
  fi
  result_execs[$h]="${execs:-?}"
  result_rate[$h]="${rate:-?}"
  echo "$h: ${result_status[$h]}, ${result_execs[$h]} runs, ${result_rate[$h]} exec/s"
done

echo
echo "== summary ($engine, ${seconds}s per harness)"
printf '%-20s %-6s %14s %10s\n' harness status runs exec/s
for h in "${harnesses[@]}"; do
  printf '%-20s %-6s %14s %10s\n' "$h" "${result_status[$h]}" "${result_execs[$h]}" "${result_rate[$h]}"
done
exit "$failed"
