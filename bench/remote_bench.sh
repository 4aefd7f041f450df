#!/usr/bin/env bash
# bench/remote_bench.sh: what `stguard check` over HTTP costs against
# downloading the files (docs/performance.md, "Checking over HTTP").
#
#   bench/remote_bench.sh [STGUARD] [WORKDIR]
#
#   STGUARD  the stguard binary of a Release build
#            (default: build/release/cli/stguard)
#   WORKDIR  scratch space for the shards (default:
#            ${TMPDIR:-/tmp}/stguard-remote-bench)
#
# A 100-shard repository shaped like a real checkpoint: each shard holds
# TENSORS tensors (names and shapes as a transformer's layers, a header of
# about 30 KB) and DATA_MIB MiB of random data, plus two shards whose header
# is longer than the first request (TENSORS * 8 tensors). nginx (Debian's,
# started here on a free loopback port, as the tests do) serves the folder.
# Measured, warm (each run twice, the second reported):
#   - `stguard check` of the 100 URLs, --jobs 8 (default) and --jobs 1;
#   - `curl` downloading them all, one after the other, to /dev/null;
#   - bytes nginx sent for each (its access log), per file and in all.
# Environment: SHARDS (100), TENSORS (300), DATA_MIB (20), KEEP=1 to keep
# WORKDIR.
set -euo pipefail

script_dir=$(cd "$(dirname "$0")" && pwd)
stguard=${1:-$script_dir/../build/release/cli/stguard}
work=${2:-${TMPDIR:-/tmp}/stguard-remote-bench}
shards=${SHARDS:-100}
tensors=${TENSORS:-300}
data_mib=${DATA_MIB:-20}
nginx=$(command -v nginx || echo /usr/sbin/nginx)

if [[ ! -x $stguard ]]; then
  echo "remote_bench: no stguard binary at $stguard (build the release preset first)" >&2
  exit 2
fi
if [[ ! -x $nginx ]]; then
  echo "remote_bench: no nginx (install nginx-light: ci/install-deps.sh)" >&2
  exit 2
fi

source "$script_dir/bench_lib.sh"

# shard FILE INDEX COUNT: a shard of COUNT BF16 tensors sharing DATA_MIB MiB
# (the last one takes what the others leave), its data random.
shard() {
  local file=$1 index=$2 count=$3
  local bytes=$((data_mib * 1024 * 1024)) each header="{" begin=0 t name
  each=$(((bytes / count) / 2 * 2))
  header+='"__metadata__":{"format":"pt"}'
  for ((t = 0; t < count; t++)); do
    local size=$each
    ((t == count - 1)) && size=$((bytes - begin))
    name="model.layers.$index.block.$t.weight"
    header+=",\"$name\":{\"dtype\":\"BF16\",\"shape\":[$((size / 2))],\"data_offsets\":[$begin,$((begin + size))]}"
    begin=$((begin + size))
  done
  header+="}"
  while (((${#header} % 8) != 0)); do header+=" "; done
  { le64 ${#header}; printf '%s' "$header"; head -c "$bytes" /dev/urandom; } >"$file"
}

mkdir -p "$work/repo" "$work/nginx"
repo=$work/repo
if [[ ! -f $repo/.complete ]]; then
  echo "generating $shards shards of $data_mib MiB ..."
  for ((i = 1; i <= shards; i++)); do
    count=$tensors
    ((i <= 2)) && count=$((tensors * 8))
    shard "$(printf '%s/model-%05d-of-%05d.safetensors' "$repo" "$i" "$shards")" "$i" "$count"
  done
  touch "$repo/.complete"
fi

# nginx on a free port (one picked at random, another if it is taken),
# everything it writes under $work/nginx.
start_nginx() {
  port=$(shuf -i 20000-60000 -n 1)
  conf=$work/nginx/nginx.conf
  {
    echo "daemon off; master_process off; pid $work/nginx/pid; error_log $work/nginx/error.log;"
    echo "events { worker_connections 256; }"
    echo "http { log_format sizes '\$status \$body_bytes_sent \$request_uri';"
    echo "  access_log $work/nginx/access.log sizes;"
    for t in client_body proxy fastcgi uwsgi scgi; do echo "  ${t}_temp_path $work/nginx/$t;"; done
    echo "  types { } default_type application/octet-stream; sendfile on;"
    echo "  server { listen 127.0.0.1:$port; root $repo; } }"
  } >"$conf"
  "$nginx" -c "$conf" -p "$work/nginx" -e "$work/nginx/error.log" &
  nginx_pid=$!
  for _ in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:$port/" && return 0
    kill -0 "$nginx_pid" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}
nginx_pid=
trap '[[ -n $nginx_pid ]] && kill $nginx_pid 2>/dev/null; wait 2>/dev/null; [[ ${KEEP:-0} == 1 ]] || rm -rf "$work"' EXIT
for attempt in 1 2 3 4 5; do
  start_nginx && break
  ((attempt == 5)) && { echo "remote_bench: nginx did not start" >&2; exit 2; }
done

urls=()
for f in "$repo"/*.safetensors; do urls+=("http://127.0.0.1:$port/$(basename "$f")"); done
total=$(du -cb "$repo"/*.safetensors | tail -n1 | cut -f1)
echo "machine: $(nproc) cores; nginx $("$nginx" -v 2>&1 | sed 's/.*\///'); curl $(curl --version | head -n1 | cut -d' ' -f2)"
echo "repository: ${#urls[@]} shards, $total bytes"

sent() { awk '{ s += $2; n++ } END { printf "%d requests, %d bytes", n, s }' "$work/nginx/access.log"; }
for run in 1 2; do
  echo " run $run:"
  : >"$work/nginx/access.log"
  time_run "stguard check (--jobs 8)" "$stguard" check "${urls[@]}"
  echo "    nginx sent: $(sent)"
  : >"$work/nginx/access.log"
  time_run "stguard check --jobs 1" "$stguard" check --jobs 1 "${urls[@]}"
  : >"$work/nginx/access.log"
  time_run "curl (download all, in turn)" curl -s "${urls[@]}"
  echo "    nginx sent: $(sent)"
done
echo "per file (stguard check): bytes sent / header bytes (8 + N)"
: >"$work/nginx/access.log"
"$stguard" check --jobs 1 "${urls[0]}" "${urls[2]}" >/dev/null
for f in "$repo/$(basename "${urls[0]}")" "$repo/$(basename "${urls[2]}")"; do
  n=$(od -An -t u8 -N 8 "$f" | tr -d ' ')
  echo "  $(basename "$f"): header $((8 + n)) bytes"
done
awk '{ print "  request: status " $1 ", " $2 " bytes, " $3 }' "$work/nginx/access.log"
