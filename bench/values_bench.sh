#!/usr/bin/env bash
# bench/values_bench.sh: measures `stguard verify --scan-values` against
# hashing alone; the goal is at most 1.2x the time of hashing alone.
#
#   bench/values_bench.sh [STGUARD] [WORKDIR]
#
#   STGUARD  the stguard binary of a Release build
#            (default: build/release/cli/stguard)
#   WORKDIR  scratch space, about 2.1 GB (default: ${TMPDIR:-/tmp}/stguard-values-bench)
#
# The folder: 4 shards of 512 MiB, two of F32 tensors and two of BF16, eight
# tensors each, with an index and a SHA256SUMS. The values are random with
# the top exponent bit cleared (|x| < 2, as trained weights are: no NaN, no
# Inf, no zeros to speak of), so the scan runs its fast path, except for one
# NaN planted in model-00003 (a BF16 shard), tensor layer.3.5, which the scan
# has to find. The generator is python3 (no numpy needed).
#
# Measured, each run RUNS times interleaved, warm page cache (no root to drop
# it), /usr/bin/time wall and CPU (user + sys):
#   hash        stguard verify -j 2 DIR                    (exit 0: values not read)
#   hash+scan   stguard verify -j 2 --scan-values DIR      (exit 1: the NaN)
#   scan alone  stguard verify -j 2 --scan-values NOSUMS   (hard links, no SHA256SUMS)
# and the medians compared. Environment: SHARDS (4), SHARD_MIB (512), RUNS (5),
# JOBS (2), KEEP=1 to keep WORKDIR. HUB=1 measures a Hugging Face cache
# repository instead of the folder (hard links, no extra space):
# models--bench--values/blobs/<sha256> and snapshots/<commit>/<name> links
# to them, no SHA256SUMS, so "hash" is the blob names' check and
# "hash+scan" scans the values in that same read.
set -euo pipefail

script_dir=$(cd "$(dirname "$0")" && pwd)
stguard=${1:-$script_dir/../build/release/cli/stguard}
work=${2:-${TMPDIR:-/tmp}/stguard-values-bench}
shards=${SHARDS:-4}
shard_mib=${SHARD_MIB:-512}
runs=${RUNS:-5}
jobs=${JOBS:-2}

if [[ ! -x $stguard ]]; then
  echo "values_bench: no stguard binary at $stguard (build the release preset first)" >&2
  exit 2
fi
if [[ ! -x /usr/bin/time ]]; then
  echo "values_bench: needs /usr/bin/time (Debian package time)" >&2
  exit 2
fi

mkdir -p "$work"
trap '[[ ${KEEP:-0} == 1 ]] || rm -rf "$work"' EXIT
dir=$work/model
nosums=$work/model-nosums

if [[ ! -f $dir/SHA256SUMS ]]; then
  rm -rf "$dir" "$nosums"
  mkdir -p "$dir"
  echo "generating $shards shards of $shard_mib MiB ..."
  python3 - "$dir" "$shards" "$shard_mib" <<'EOF'
import json, os, struct, sys

out, shards, shard_mib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
tensors_per_shard = 8
tensor_bytes = shard_mib * 1024 * 1024 // tensors_per_shard
chunk = 8 << 20
weight_map = {}
total = 0
for s in range(1, shards + 1):
    dtype = "F32" if s <= shards // 2 else "BF16"
    width = 4 if dtype == "F32" else 2
    # Clear the top exponent bit of every value: |x| < 2, never NaN or Inf.
    lane = (0xBFFFFFFF if width == 4 else 0xBFFF).to_bytes(width, "little")
    mask = int.from_bytes(lane * (chunk // width), "little")
    name = "model-%05d-of-%05d.safetensors" % (s, shards)
    header = {}
    for t in range(tensors_per_shard):
        tname = "layer.%d.%d" % (s, t)
        header[tname] = {"dtype": dtype, "shape": [tensor_bytes // width],
                         "data_offsets": [t * tensor_bytes, (t + 1) * tensor_bytes]}
        weight_map[tname] = name
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    total += tensor_bytes * tensors_per_shard
    with open(os.path.join(out, name), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for t in range(tensors_per_shard):
            for at in range(0, tensor_bytes, chunk):
                n = min(chunk, tensor_bytes - at)
                data = (int.from_bytes(os.urandom(n), "little") & mask).to_bytes(n, "little")
                if s == 3 and t == 5 and at == 0:  # the planted NaN, element 12345
                    nan = b"\xc0\x7f" if width == 2 else b"\x00\x00\xc0\x7f"
                    data = data[:12345 * width] + nan + data[12346 * width:]
                f.write(data)
with open(os.path.join(out, "model.safetensors.index.json"), "w") as f:
    json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f)
EOF
  (cd "$dir" && sha256sum -- *.safetensors model.safetensors.index.json >SHA256SUMS)
fi
rm -rf "$nosums"
mkdir -p "$nosums"
ln "$dir"/*.safetensors "$dir"/model.safetensors.index.json "$nosums"/

if [[ ${HUB:-0} == 1 ]]; then
  repo=$work/hub/models--bench--values
  commit=0123456789abcdef0123456789abcdef01234567
  rm -rf "$work/hub"
  mkdir -p "$repo/blobs" "$repo/snapshots/$commit" "$repo/refs"
  for f in "$dir"/*.safetensors "$dir"/model.safetensors.index.json; do
    # The Hub names LFS blobs by their sha256 (the index, a small file kept
    # in git, would be a git blob hash; sha256 here keeps the script short
    # and is checked the same way).
    sha=$(sha256sum -- "$f" | cut -d' ' -f1)
    ln -f "$f" "$repo/blobs/$sha"
    ln -s "../../blobs/$sha" "$repo/snapshots/$commit/$(basename "$f")"
  done
  printf '%s' "$commit" >"$repo/refs/main"
  dir=$repo
fi

total=$(du -cbL "$work/model"/*.safetensors | tail -n1 | cut -f1)
echo "machine: $(nproc) cores; SHA extensions: $(grep -o -m1 sha_ni /proc/cpuinfo || echo none)"
echo "stguard: $stguard"
echo "folder: $shards shards, $total bytes; -j $jobs; $runs runs each, interleaved, warm"

# time_run NAME COMMAND...: appends "wall cpu" to $work/NAME.times.
time_run() {
  local name=$1
  shift
  /usr/bin/time -f '%e %U %S' -o "$work/time.out" "$@" >/dev/null 2>&1 || true
  # The last line: GNU time puts "Command exited with non-zero status" first.
  tail -n1 "$work/time.out" | awk '{ printf "%s %.2f\n", $1, $2 + $3 }' >>"$work/$name.times"
}

rm -f "$work"/*.times
"$stguard" verify --quiet -j "$jobs" "$dir" >/dev/null  # warm the page cache
for ((r = 1; r <= runs; r++)); do
  time_run hash "$stguard" verify --quiet -j "$jobs" "$dir"
  time_run hash_scan "$stguard" verify --quiet -j "$jobs" --scan-values "$dir"
  time_run scan "$stguard" verify --quiet -j "$jobs" --scan-values "$nosums"
done

median() {  # median FILE COLUMN
  sort -n -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}
printf '  %-12s %9s %9s   (all runs: wall/cpu)\n' "" "wall s" "cpu s"
for name in hash hash_scan scan; do
  printf '  %-12s %9s %9s   %s\n' "$name" "$(median "$work/$name.times" 1)" \
    "$(median "$work/$name.times" 2)" "$(tr '\n' ' ' <"$work/$name.times" | sed 's/ \([0-9.]*\) / \1, /g')"
done
awk -v hw="$(median "$work/hash.times" 1)" -v hc="$(median "$work/hash.times" 2)" \
  -v sw="$(median "$work/hash_scan.times" 1)" -v sc="$(median "$work/hash_scan.times" 2)" \
  -v n="$total" 'BEGIN {
  printf "  hash+scan / hash: %.3fx wall, %.3fx cpu (bar: <= 1.2x); hashing alone %.0f MB/s\n",
    sw / hw, sc / hc, n / hw / 1e6
}'

echo "the planted NaN:"
status=0
"$stguard" verify --quiet -j "$jobs" --scan-values "$dir" | grep -E 'tensor_nan|^(OK|FAILED)' ||
  true
"$stguard" verify --quiet -j "$jobs" --scan-values "$dir" >/dev/null || status=$?
echo "  exit status $status (1 expected)"
