#!/usr/bin/env bash
# Time-boxed fuzzing campaign for one or all of stguard's harnesses.
#
#   ci/fuzz.sh [--seconds N] [--engine libfuzzer|afl] [--build-dir DIR]
#              [--no-cmplog] [HARNESS...]
#
#   --seconds N      wall time per harness (default 60)
#   --engine E       libfuzzer (default; clang-14 -fsanitize=fuzzer, ASan+UBSan,
#                    preset fuzz) or afl (afl-clang-fast++ with AFL++'s
#                    libFuzzer-compatible driver, ASan+UBSan, preset fuzz-afl,
#                    plus a CmpLog build of the same harness for -c)
#   --build-dir DIR  build directory (default build/fuzz or build/fuzz-afl;
#                    also $STGUARD_FUZZ_BUILD_DIR)
#   --no-cmplog      AFL++ without the CmpLog binary
#   HARNESS          one of fuzz/harnesses.txt (default: all, one after
#                    another, in that file's order)
#
# Options per harness come from fuzz/<harness>.options (dict, max_len,
# malloc_limit_mb), as on OSS-Fuzz. Seeds: every corpus/**/*.safetensors plus
# fuzz/regressions/<harness>/*, copied into DIR/work/<harness>/corpus, which
# persists between runs and grows (ci/fuzz-merge.sh shrinks it). Crashes,
# leaks, timeouts and over-large allocations go to DIR/work/<harness>/artifacts
# (libFuzzer) or DIR/work/<harness>/afl/default/{crashes,hangs} (AFL++); keep
# one with ci/fuzz-minimize.sh and ci/fuzz-regression.sh. The summary gives
# runs, exec/s over wall time and exec/s per CPU-second (the machine may be
# shared). Exit status: 0 when every harness ran clean, 1 when anything was
# found or a fuzzer failed, 2 on a usage error.
set -euo pipefail
prog=fuzz.sh
cd "$(dirname "$0")/.."
root="$(pwd)"
source ci/fuzz-common.sh

seconds=60
engine=libfuzzer
build="${STGUARD_FUZZ_BUILD_DIR:-}"
cmplog=1
harnesses=()

while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) [ $# -ge 2 ] || usage; seconds="$2"; shift 2 ;;
    --seconds=*) seconds="${1#*=}"; shift ;;
    --engine) [ $# -ge 2 ] || usage; engine="$2"; shift 2 ;;
    --engine=*) engine="${1#*=}"; shift ;;
    --build-dir) [ $# -ge 2 ] || usage; build="$2"; shift 2 ;;
    --build-dir=*) build="${1#*=}"; shift ;;
    --no-cmplog) cmplog=0; shift ;;
    -h|--help) usage 0 ;;
    -*) echo "$prog: unknown option $1" >&2; usage ;;
    *) harnesses+=("$1"); shift ;;
  esac
done
stguard_check_seconds --seconds "$seconds"
[ ${#harnesses[@]} -gt 0 ] || harnesses=("${stguard_harnesses[@]}")
for h in "${harnesses[@]}"; do stguard_check_harness "$h"; done

case "$engine" in
  libfuzzer)
    ci/install-deps.sh build
    build="${build:-build/fuzz}"
    stguard_build fuzz "$build" "${harnesses[@]}"
    ;;
  afl)
    ci/install-deps.sh fuzz
    build="${build:-build/fuzz-afl}"
    stguard_build fuzz-afl "$build" "${harnesses[@]}"
    if [ "$cmplog" = 1 ]; then
      # The same harness compiled with CmpLog instrumentation: afl-fuzz -c
      # runs it to learn which input bytes feed which comparisons.
      AFL_LLVM_CMPLOG=1 stguard_build fuzz-afl "$build-cmplog" "${harnesses[@]}"
    fi
    ;;
  *) stguard_die 2 "--engine must be libfuzzer or afl, not '$engine'" ;;
esac
case "$build" in /*) ;; *) build="$root/$build" ;; esac
stguard_sanitizer_env

declare -A result_status result_execs result_rate result_cpu_rate
failed=0
for h in "${harnesses[@]}"; do
  bin="$build/fuzz/$h"
  work="$build/work/$h"
  mkdir -p "$work"
  echo
  echo "== $h: $engine, ${seconds}s ($(uptime | sed 's/.*load/load/'))"
  execs=""
  rate=""
  cpu_before=0
  cpu_after=0
  if [ "$engine" = libfuzzer ]; then
    stguard_seed "$h" "$work/corpus"
    mkdir -p "$work/artifacts"
    log="$work/libfuzzer.log"
    touch "$work/.start"  # findings of this run only
    stguard_child_cpu cpu_before
    mapfile -t options < <(stguard_libfuzzer_args "$h")
    set +e
    "$bin" "${options[@]}" -rss_limit_mb=2048 -timeout=10 -max_total_time="$seconds" \
      -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" >"$log" 2>&1
    status=$?
    set -e
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    findings=$(find "$work/artifacts" -type f -newer "$work/.start" | wc -l)
    if [ "$status" -ne 0 ] || [ "$findings" -gt 0 ]; then
      echo "$h: FAILED (libFuzzer exit $status, $findings file(s) in $work/artifacts)"
      grep -E 'ERROR|invariant|SUMMARY|Test unit written|runtime error' "$log" | head -20 || true
      result_status[$h]="FAIL"
      failed=1
    else
      result_status[$h]="ok"
    fi
  else
    stguard_seed "$h" "$work/seeds"
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
    afl_args=()
    dict=$(stguard_dict "$h")
    [ -z "$dict" ] || afl_args+=(-x "$dict")
    max_len=$(stguard_options "$h" max_len)
    [ -z "$max_len" ] || afl_args+=(-G "$max_len")
    [ "$cmplog" = 0 ] || afl_args+=(-c "$build-cmplog/fuzz/$h")
    stguard_child_cpu cpu_before
    set +e
    # -V bounds the campaign. ASAN_OPTIONS must carry abort_on_error=1 or
    # afl-fuzz refuses to start (docs/fuzzing.md, pitfall 3).
    AFL_NO_UI=1 AFL_NO_AFFINITY=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
      ASAN_OPTIONS="abort_on_error=1:symbolize=0:detect_leaks=1:allocator_may_return_null=1:quarantine_size_mb=10" \
      UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:symbolize=0" \
      afl-fuzz -i "$work/seeds" -o "$out" "${afl_args[@]}" -m none \
      -t 10000 -V "$seconds" -- "$bin" >"$work/afl.log" 2>&1
    status=$?
    # afl-fuzz 4.04c can exit leaving the CmpLog fork server stopped, in a
    # session of its own: kill whatever still runs this campaign's binaries.
    stguard_kill_running "$bin" "$build-cmplog/fuzz/$h"
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
  stguard_child_cpu cpu_after
  cpu=$(awk -v a="$cpu_before" -v b="$cpu_after" 'BEGIN { printf "%.2f", b - a }')
  result_execs[$h]="${execs:-?}"
  result_rate[$h]="${rate:-?}"
  result_cpu_rate[$h]=$(awk -v n="${execs:-0}" -v c="$cpu" 'BEGIN { if (c > 0 && n > 0) printf "%d", n / c; else print "?" }')
  echo "$h: ${result_status[$h]}, ${result_execs[$h]} runs, ${result_rate[$h]} exec/s," \
    "${cpu}s CPU (${result_cpu_rate[$h]} exec per CPU-second)"
done

echo
echo "== summary ($engine, ${seconds}s per harness; $(uptime | sed 's/.*load/load/'))"
printf '%-20s %-6s %14s %10s %12s\n' harness status runs exec/s exec/cpu-s
for h in "${harnesses[@]}"; do
  printf '%-20s %-6s %14s %10s %12s\n' "$h" "${result_status[$h]}" "${result_execs[$h]}" \
    "${result_rate[$h]}" "${result_cpu_rate[$h]}"
done
exit "$failed"
