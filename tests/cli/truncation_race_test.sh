#!/usr/bin/env bash
# tests/cli/truncation_race_test.sh STGUARD [RACES]
#
# No stguard command dies by a signal when the file it reads is truncated or
# replaced under it. For each of `adapter`, `check`,
# `inspect`, `verify --hash-io mmap` and `verify --hash-io read`, RACES times
# (default 20): write a fresh 192 MiB safetensors file (sparse: one tensor of
# zeros), start the command on it, and after a varying delay truncate the file
# to one of several lengths, or replace it by rename. Any exit by signal
# (status >= 128) or any sanitizer report fails the test; exit statuses 0, 1
# and 2 are all fine here (what was read before the cut decides which).
#
# The delays spread the cut across the whole run of a command; the figures
# printed at the end (how many runs ended with each status) show whether the
# cuts landed while the file was being read. Timing decides only how often a
# race is hit, never whether the test passes.
set -u

stguard=${1:?usage: truncation_race_test.sh STGUARD [RACES]}
races=${2:-20}
work=$(mktemp -d "${TMPDIR:-/tmp}/stguard-race.XXXXXX")
trap 'rm -rf "$work"' EXIT

data_len=$((192 << 20))
header='{"t":{"dtype":"U8","shape":['$data_len'],"data_offsets":[0,'$data_len']}}'
while (( ${#header} % 8 != 0 )); do header+=' '; done
header_len=${#header}
file_len=$((8 + header_len + data_len))

# The 8-byte little-endian length prefix, as printf escapes.
prefix=''
for ((i = 0; i < 8; i++)); do
  prefix+=$(printf '\\x%02x' $(((header_len >> (8 * i)) & 255)))
done

# write_model PATH: the whole file, its data a hole of zeros.
write_model() {
  rm -f "$1"
  printf "$prefix%s" "$header" >"$1"
  truncate -s "$file_len" "$1"
}

dir="$work/model"
mkdir -p "$dir"
file="$dir/model.safetensors"
write_model "$file"
(cd "$dir" && sha256sum model.safetensors >SHA256SUMS)

# Lengths to cut to: nothing, inside the prefix, inside the header, a page
# into the data, half-way, one byte short.
cuts=(0 5 $((8 + header_len / 2)) $((8 + header_len + 4096)) $((file_len / 2)) $((file_len - 1)))

commands=(adapter check inspect verify-mmap verify-read)
failures=0
declare -A tally

for name in "${commands[@]}"; do
  case $name in
    adapter) cmd=("$stguard" adapter "$file") ;;
    check) cmd=("$stguard" check "$file") ;;
    inspect) cmd=("$stguard" inspect "$file") ;;
    verify-mmap) cmd=("$stguard" verify --hash-io mmap -j 1 "$dir") ;;
    verify-read) cmd=("$stguard" verify --hash-io read -j 1 "$dir") ;;
  esac
  for ((r = 0; r < races; r++)); do
    write_model "$file"
    "${cmd[@]}" >"$work/out" 2>"$work/err" &
    pid=$!
    # 0 to 190 ms: from before the file is opened to the end of hashing.
    sleep "$(printf '0.%03d' $(((r * 37) % 20 * 10)))"
    if ((r % 7 == 6)); then
      write_model "$work/replacement" && mv -f "$work/replacement" "$file"
      how="replaced"
    else
      cut=${cuts[$((r % ${#cuts[@]}))]}
      truncate -s "$cut" "$file"
      how="truncated to $cut"
    fi
    wait "$pid"
    status=$?
    # How the run saw the cut: an I/O error that says where the file ended
    # ("io"), or none (it finished first, or saw only the shorter file).
    outcome=$status
    if grep -qE 'IO_ERROR|shrank|ended at byte' "$work/out" "$work/err"; then outcome="$status(io)"; fi
    tally[$name.$outcome]=$((${tally[$name.$outcome]:-0} + 1))
    if ((status >= 128)) || grep -q 'Sanitizer' "$work/err"; then
      echo "FAIL: stguard $name: exit $status after the file was $how" >&2
      sed 's/^/  | /' "$work/err" | head -20 >&2
      failures=$((failures + 1))
    fi
  done
done

for name in "${commands[@]}"; do
  line="$name:"
  for status in $(printf '%s\n' "${!tally[@]}" | sed -n "s/^$name\.//p" | sort); do
    line+=" exit $status x${tally[$name.$status]}"
  done
  echo "$line"
done
echo "$failures of $((races * ${#commands[@]})) runs died by a signal or a sanitizer report"
((failures == 0))
