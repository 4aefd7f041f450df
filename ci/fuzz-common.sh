#!/usr/bin/env bash
# Shared helpers for ci/fuzz.sh, ci/fuzz-merge.sh, ci/fuzz-minimize.sh,
# ci/fuzz-regression.sh and ci/coverage.sh. Sourced, not run:
#
#   source "$(dirname "$0")/fuzz-common.sh"
#
# Provides the harness list, building a fuzz build directory from a preset
# (fuzz, fuzz-afl, coverage) into any directory, the libFuzzer / AFL++
# arguments from fuzz/<harness>.options, the sanitizer options used for
# campaigns, seeding, and CPU-time bookkeeping. Expects the caller to have
# `set -euo pipefail`, to be in the repository root, and to have set $prog.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
  case "${1:-}" in -h|--help) exit 0 ;; *) exit 2 ;; esac
fi

# The opening comment of the script that sourced this file, as its --help;
# then exits with the given status (default 2: a usage error).
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit "${1:-2}"; }

# The harness list is kept once, in fuzz/harnesses.txt (CMake reads it too).
mapfile -t stguard_harnesses < <(awk '!/^#/ && NF { print $1 }' "$(dirname "${BASH_SOURCE[0]}")/../fuzz/harnesses.txt")

stguard_die() {  # stguard_die <status> <message...>
  local status="$1"
  shift
  # shellcheck disable=SC2154  # $prog is set by the sourcing script
  echo "$prog: $*" >&2
  exit "$status"
}

stguard_check_harness() {
  local h="$1"
  [[ " ${stguard_harnesses[*]} " == *" $h "* ]] ||
    stguard_die 2 "unknown harness '$h' (have: ${stguard_harnesses[*]})"
}

stguard_check_seconds() {  # stguard_check_seconds <option> <value>
  if ! [[ "$2" =~ ^[0-9]+$ ]] || [ "$2" -eq 0 ]; then
    stguard_die 2 "$1 needs a positive integer, not '$2'"
  fi
}

stguard_jobs() {
  local n
  n=$(nproc)
  echo $((n < 2 ? n : 2))
}

# stguard_build <preset> <build-dir> <target>...
# Configures <build-dir> from CMakePresets.json's <preset> (cmake --preset
# with -B, so any directory works) unless it is already configured, then
# builds the targets. Extra environment (AFL_LLVM_CMPLOG=1) passes through.
stguard_build() {
  local preset="$1" build="$2"
  shift 2
  local log
  if [ ! -f "$build/CMakeCache.txt" ] || [ ! -f "$build/Makefile" ]; then
    echo "$prog: configuring $build (preset $preset)"
    mkdir -p "$build"
    log="$build/configure.log"
    cmake --preset "$preset" -B "$build" >"$log" 2>&1 || {
      cat "$log" >&2
      stguard_die 1 "configuring $build failed"
    }
  fi
  cmake --build "$build" -j "$(stguard_jobs)" --target "$@" >/dev/null || {
    # Again, with the output, so the failure is visible.
    cmake --build "$build" -j 1 --target "$@" >&2 || true
    stguard_die 1 "building $* in $build failed"
  }
}

# stguard_option_pairs <harness>: the [libfuzzer] section of
# fuzz/<harness>.options as "key<TAB>value" lines, blanks trimmed.
stguard_option_pairs() {
  local file="fuzz/$1.options"
  [ -f "$file" ] || return 0
  awk '
    /^[ \t]*[#;]/ || /^[ \t]*$/ { next }
    /^[ \t]*\[/ { section = $0; gsub(/[][ \t]/, "", section); next }
    section == "libfuzzer" {
      eq = index($0, "=")
      if (eq == 0) next
      key = substr($0, 1, eq - 1); value = substr($0, eq + 1)
      gsub(/^[ \t]+|[ \t]+$/, "", key); gsub(/^[ \t]+|[ \t]+$/, "", value)
      print key "\t" value
    }' "$file"
}

# stguard_options <harness> <key>: a value from the [libfuzzer] section of
# fuzz/<harness>.options (the last one given), or nothing.
stguard_options() {
  stguard_option_pairs "$1" | awk -F'\t' -v want="$2" '
    $1 == want { found = $2 } END { if (found != "") print found }'
}

# stguard_libfuzzer_args <harness> [--no-dict]: the [libfuzzer] options as
# -key=value words, one per line, a relative dict resolved against fuzz/.
stguard_libfuzzer_args() {
  stguard_option_pairs "$1" | awk -F'\t' -v root="$(pwd)/fuzz" -v skip_dict="${2:-}" '{
    key = $1; value = $2
    if (key == "dict") {
      if (skip_dict != "") next
      if (substr(value, 1, 1) != "/") value = root "/" value
    }
    print "-" key "=" value
  }'
}

# stguard_dict <harness>: absolute path of the harness's dictionary, if any.
stguard_dict() {
  local d
  d=$(stguard_options "$1" dict)
  [ -n "$d" ] || return 0
  case "$d" in /*) echo "$d" ;; *) echo "$(pwd)/fuzz/$d" ;; esac
}

# Sanitizer options for campaigns, unless the caller set its own. The ASan
# allocator settings are ClusterFuzz's (base-runner): a 10 MB quarantine
# instead of 256 MB keeps small-input fuzzing in cache (about twice the
# exec/s here) and still catches use-after-free of anything recent.
stguard_sanitizer_env() {
  local symbolizer
  export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:quarantine_size_mb=10:allocator_release_to_os_interval_ms=500:strict_memcmp=1:detect_odr_violation=0:handle_abort=1:dedup_token_length=3}"
  export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1:print_summary=1}"
  symbolizer=$(command -v llvm-symbolizer-14 || command -v llvm-symbolizer || true)
  if [ -n "$symbolizer" ] && [ -z "${ASAN_SYMBOLIZER_PATH:-}" ]; then
    export ASAN_SYMBOLIZER_PATH="$symbolizer"
  fi
}

# stguard_seed <harness> <dir>: copies every corpus/**/*.safetensors and
# fuzz/regressions/<harness>/* into <dir> (seed-<path>), keeping what is there.
stguard_seed() {
  local h="$1" dir="$2" f name
  mkdir -p "$dir"
  while IFS= read -r -d '' f; do
    name="seed-${f//\//_}"
    [ -e "$dir/$name" ] || cp "$f" "$dir/$name"
  done < <(find corpus -name '*.safetensors' -print0; find "fuzz/regressions/$h" -type f -print0)
}

# stguard_child_cpu <var>: sets <var> to the user+sys CPU seconds of every
# waited-for child so far (bash `times`, which must run in this shell, not in
# a $(...) subshell), for exec/s per CPU-second on a shared machine.
stguard_child_cpu() {
  local tmp
  tmp=$(mktemp)
  times >"$tmp"
  printf -v "$1" '%s' "$(awk 'NR == 2 {
    split($1, u, /[ms]/); split($2, s, /[ms]/)
    printf "%.2f\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$tmp")"
  rm -f "$tmp"
}

# stguard_kill_running <executable>...: SIGKILL every process whose
# executable is one of these files (a campaign's leftovers; another campaign
# of the same build directory would share its work directory anyway).
stguard_kill_running() {
  local targets=() target pid exe
  for target in "$@"; do
    [ -e "$target" ] && targets+=("$(realpath "$target")")
  done
  [ ${#targets[@]} -gt 0 ] || return 0
  for pid in /proc/[0-9]*; do
    exe=$(readlink "$pid/exe" 2>/dev/null) || continue
    for target in "${targets[@]}"; do
      [ "$exe" = "$target" ] && kill -KILL "${pid#/proc/}" 2>/dev/null
    done
  done
  return 0
}

stguard_sha1() {
  sha1sum "$1" | cut -d' ' -f1
}
