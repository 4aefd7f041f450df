#!/usr/bin/env bash
# bench/verify_bench.sh: measures `stguard verify` against its goals
# (docs/performance.md).
#
#   bench/verify_bench.sh [STGUARD] [WORKDIR]
#
#   STGUARD  the stguard binary of a Release build
#            (default: build/verify-release/cli/stguard)
#   WORKDIR  scratch space, about 2.1 GB of real data plus a 100-shard folder
#            of sparse files (default: ${TMPDIR:-/tmp}/stguard-verify-bench)
#
# 1. Hashing: a folder of 4 shards of 512 MiB of random data (2 GiB) with a
#    SHA256SUMS. `sha256sum -c SHA256SUMS` and `stguard verify` (default -j,
#    -j 1, -j 2, and --hash-io mmap) run on the same folder in the same run.
#    Each is run twice; the second (warm page cache) numbers are the ones
#    compared. Bar: stguard at least 2.5x faster than sha256sum -c.
# 2. Structure only: 100 shards, each a real header followed by 1 GiB of
#    *sparse* data (100 GiB apparent, nothing on disk), with an index and no
#    checksums. Bar: well under a second; reading any tensor data would take
#    many seconds.
#
# Page caches cannot be dropped here (no root assumption), hence the warm runs.
# Environment: SHARDS (4), SHARD_MIB (512), SPARSE_SHARDS (100), KEEP=1 to
# keep WORKDIR.
# shellcheck disable=SC2034  # wall/cpu are read through a nameref in ratios()
set -euo pipefail

script_dir=$(cd "$(dirname "$0")" && pwd)
stguard=${1:-$script_dir/../build/verify-release/cli/stguard}
work=${2:-${TMPDIR:-/tmp}/stguard-verify-bench}
shards=${SHARDS:-4}
shard_mib=${SHARD_MIB:-512}
sparse_shards=${SPARSE_SHARDS:-100}

if [[ ! -x $stguard ]]; then
  echo "verify_bench: no stguard binary at $stguard (build the release preset first)" >&2
  exit 2
fi

source "$script_dir/bench_lib.sh"

# shard FILE TENSOR_NAME DATA_BYTES: prefix and header of a one-tensor U8
# shard (header space-padded to a multiple of 8). The data is appended by
# the caller.
shard_header() {
  local file=$1 name=$2 bytes=$3
  local header="{\"$name\":{\"dtype\":\"U8\",\"shape\":[$bytes],\"data_offsets\":[0,$bytes]}}"
  while (((${#header} % 8) != 0)); do header+=" "; done
  { le64 ${#header}; printf '%s' "$header"; } >"$file"
}

mkdir -p "$work"
trap '[[ ${KEEP:-0} == 1 ]] || rm -rf "$work"' EXIT

echo "machine: $(nproc) cores; SHA extensions: $(grep -o -m1 sha_ni /proc/cpuinfo || echo none)"
echo "stguard: $stguard"
echo "sha256sum: $(sha256sum --version | head -n1)"

# ---------------------------------------------------------------- hashing ---
hash_dir=$work/hashing
if [[ ! -f $hash_dir/SHA256SUMS ]]; then
  rm -rf "$hash_dir"
  mkdir -p "$hash_dir"
  echo "generating $shards shards of $shard_mib MiB ..."
  for ((i = 1; i <= shards; i++)); do
    f=$(printf '%s/model-%05d-of-%05d.safetensors' "$hash_dir" "$i" "$shards")
    bytes=$((shard_mib * 1024 * 1024))
    shard_header "$f" "layer.$i.weight" "$bytes"
    head -c "$bytes" /dev/urandom >>"$f"
  done
  {
    printf '{"metadata":{"total_size":%d},"weight_map":{' $((shards * shard_mib * 1024 * 1024))
    for ((i = 1; i <= shards; i++)); do
      ((i > 1)) && printf ','
      printf '"layer.%d.weight":"model-%05d-of-%05d.safetensors"' "$i" "$i" "$shards"
    done
    printf '}}\n'
  } >"$hash_dir/model.safetensors.index.json"
  (cd "$hash_dir" && sha256sum -- *.safetensors model.safetensors.index.json >SHA256SUMS)
fi
total=$(du -cb "$hash_dir"/*.safetensors | tail -n1 | cut -f1)
echo
echo "hashing: $shards shards, $total bytes"
declare -A wall cpu
for run in 1 2; do
  echo " run $run:"
  time_run "sha256sum -c SHA256SUMS" bash -c "cd '$hash_dir' && sha256sum -c --quiet SHA256SUMS"
  wall[sha256sum]=$LAST cpu[sha256sum]=$LAST_CPU
  time_run "stguard verify (default -j)" "$stguard" verify --quiet "$hash_dir"
  wall[default]=$LAST cpu[default]=$LAST_CPU
  time_run "stguard verify -j 1" "$stguard" verify --quiet -j 1 "$hash_dir"
  wall[j1]=$LAST cpu[j1]=$LAST_CPU
  time_run "stguard verify -j 2" "$stguard" verify --quiet -j 2 "$hash_dir"
  wall[j2]=$LAST cpu[j2]=$LAST_CPU
  time_run "stguard verify -j 2 --hash-io mmap" "$stguard" verify --quiet -j 2 --hash-io mmap \
    "$hash_dir"
  wall[mmap]=$LAST cpu[mmap]=$LAST_CPU
done
"$stguard" verify --quiet "$hash_dir" >/dev/null || {
  echo "verify_bench: stguard verify did not accept the generated folder" >&2
  exit 1
}
echo " load average now: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
ratios() {  # ratios NAME-OF-ARRAY
  local -n t=$1
  awk -v s="${t[sha256sum]}" -v d="${t[default]}" -v j1="${t[j1]}" -v j2="${t[j2]}" \
    -v m="${t[mmap]}" -v n="$total" -v what="$1" 'BEGIN {
    printf " warm (run 2) %s-time ratios vs sha256sum -c (%.0f MB/s):\n", what, n / s / 1e6
    printf "   stguard default -j : %5.2fx  (%.0f MB/s)\n", s / d, n / d / 1e6
    printf "   stguard -j 1       : %5.2fx  (%.0f MB/s)\n", s / j1, n / j1 / 1e6
    printf "   stguard -j 2       : %5.2fx  (%.0f MB/s)\n", s / j2, n / j2 / 1e6
    printf "   stguard -j 2 mmap  : %5.2fx  (%.0f MB/s)\n", s / m, n / m / 1e6
    if (what == "wall") printf "   bar (>= 2.5x wall at default -j): %s\n", (s / d >= 2.5) ? "met" : "NOT met"
  }'
}
ratios wall
ratios cpu

# ------------------------------------------------------- structure only ---
sparse_dir=$work/sparse
rm -rf "$sparse_dir"
mkdir -p "$sparse_dir"
gib=$((1024 * 1024 * 1024))
for ((i = 1; i <= sparse_shards; i++)); do
  f=$(printf '%s/model-%05d-of-%05d.safetensors' "$sparse_dir" "$i" "$sparse_shards")
  shard_header "$f" "layer.$i.weight" "$gib"
  size=$(stat -c %s "$f")
  truncate -s $((size + gib)) "$f"  # a hole: no data on disk
done
{
  printf '{"metadata":{"total_size":%d},"weight_map":{' $((sparse_shards * gib))
  for ((i = 1; i <= sparse_shards; i++)); do
    ((i > 1)) && printf ','
    printf '"layer.%d.weight":"model-%05d-of-%05d.safetensors"' "$i" "$i" "$sparse_shards"
  done
  printf '}}\n'
} >"$sparse_dir/model.safetensors.index.json"
echo
echo "structure only: $sparse_shards shards, $(du -b --apparent-size -s "$sparse_dir" | cut -f1)" \
  "bytes apparent, $(du -s -B1 "$sparse_dir" | cut -f1) on disk, no SHA256SUMS"
for run in 1 2; do
  time_run "stguard verify (run $run)" "$stguard" verify --quiet "$sparse_dir"
done
"$stguard" verify --quiet "$sparse_dir" | tail -n1
