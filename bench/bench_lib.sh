# bench/bench_lib.sh: shell helpers the benchmark scripts share; sourced, not run.
#   source "$script_dir/bench_lib.sh"

# Writes the 8-byte little-endian u64 $1.
le64() {
  local n=$1 i out=""
  for ((i = 0; i < 8; i++)); do
    out+=$(printf '\\x%02x' $((n & 255)))
    n=$((n >> 8))
  done
  printf '%b' "$out"
}

# time_run LABEL COMMAND...: prints wall and CPU (user + sys) seconds and the
# exit status; the command's own output is discarded. Sets LAST (wall) and
# LAST_CPU. CPU time is the fairer comparison on a machine shared with other
# jobs: wall time there also measures how long the scheduler kept us waiting.
time_run() {
  local label=$1
  shift
  local times status=0 TIMEFORMAT='%R %U %S'
  times=$({ time "$@" >/dev/null 2>&1; } 2>&1) || status=$?
  read -r LAST user sys <<<"$times"
  LAST_CPU=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.3f", u + s }')
  printf '  %-34s %7.3f s wall  %7.3f s cpu  (exit %d)\n' "$label" "$LAST" "$LAST_CPU" "$status"
}
