#!/usr/bin/env bash
# bench/measure_rss.sh BUILD_DIR
#
# Measures what `stguard check` costs on large files, using binaries already
# built in BUILD_DIR (this script builds nothing; use the release preset):
#   1. peak RSS (GNU time's "Maximum resident set size") checking a file with a
#      ~10 MB header of 100k tensors and a sparse ~1 GB data part;
#   2. wall time checking a file with a ~4 GB sparse data part: the checker
#      maps the file and touches only the header, so this must take
#      milliseconds, not the seconds reading 4 GB would take.
# Files go to a temporary directory that is removed on exit. Sparse files take
# no disk space. Needs /usr/bin/time (Debian package `time`).
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 BUILD_DIR   (e.g. build/release)" >&2
  exit 2
fi
build=$1
stguard=$build/cli/stguard
make_file=$build/bench/stguard_make_bench_file
for exe in "$stguard" "$make_file"; do
  if [[ ! -x $exe ]]; then
    echo "$0: $exe not found; build BUILD_DIR with -DSTGUARD_BUILD_BENCH=ON first" >&2
    exit 2
  fi
done
if [[ ! -x /usr/bin/time ]]; then
  echo "$0: /usr/bin/time not found (install the Debian package 'time')" >&2
  exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

max_rss_kb() {  # COMMAND...: runs it under GNU time, prints its peak RSS in kB
  local log=$tmp/time.log status=0
  /usr/bin/time -v -o "$log" "$@" >/dev/null || status=$?
  if [[ $status -ne 0 ]]; then
    echo "$0: '$*' exited with $status" >&2
    exit 1
  fi
  sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$log"
}

echo "== 1. peak memory, 100k-tensor header"
big=$tmp/header-100k.safetensors
"$make_file" --tensors 100000 "$big"
header_len=$(od -An -t u8 -N 8 "$big" | tr -d ' ')
echo "file size:              $(stat -c %s "$big") bytes (sparse, $(du -k "$big" | cut -f1) kB on disk)"
echo "header size:            $header_len bytes"
"$stguard" check "$big"
baseline_kb=$(max_rss_kb "$stguard" --version)
check_kb=$(max_rss_kb "$stguard" check "$big")
echo "Maximum resident set size, stguard --version: $baseline_kb kB (process baseline)"
echo "Maximum resident set size, stguard check:     $check_kb kB"
echo "  = $(( (check_kb - baseline_kb) * 1024 / header_len )).$(( (check_kb - baseline_kb) * 10240 / header_len % 10 )) x the header size above the baseline"

echo
echo "== 2. wall time, ~4 GB sparse data part"
huge=$tmp/data-4g.safetensors
# 37 Llama-style layers at hidden size 2048 plus embeddings: about 4.0 GB of BF16.
"$make_file" --tensors 336 --hidden 2048 "$huge"
echo "file size:              $(stat -c %s "$huge") bytes (sparse, $(du -k "$huge" | cut -f1) kB on disk)"
elapsed_ms() {  # START END (ns) -> "12.3"
  echo "$(( ($2 - $1) / 1000000 )).$(( ($2 - $1) / 100000 % 10 ))"
}
start=$(date +%s%N)
"$stguard" --version >/dev/null
end=$(date +%s%N)
echo "stguard --version wall time: $(elapsed_ms "$start" "$end") ms (process start-up baseline)"
start=$(date +%s%N)
"$stguard" check "$huge"
end=$(date +%s%N)
echo "stguard check wall time:     $(elapsed_ms "$start" "$end") ms"
huge_kb=$(max_rss_kb "$stguard" check "$huge")
echo "Maximum resident set size, stguard check:     $huge_kb kB"
