#!/usr/bin/env bash
# bench/conform_hostile.sh STGUARD [CASES]
#
# Measures the runner (`stguard conform`) against hostile adapters, the bars
# of docs/performance.md ("The runner under hostile adapters"):
#   1. peak RSS (GNU time's "Maximum resident set size") of `conform -j 2` over
#      CASES corpus cases (default 8) with a well-behaved adapter, then with
#      adapters that print 8 million nested '[', 200 MB of output, and an
#      answer of 110,000 tensors (about 16 MB), 15 MB of blanks before an
#      answer, and an answer whose "error" is one 15 MB string; each hostile
#      run is reported as its excess over the well-behaved one;
#   2. processes left behind after SIGINT, SIGTERM and SIGHUP to a run whose
#      adapters sleep and start a child that calls setsid (counted with pgrep
#      on the sleeps' unique lengths; the bar is zero).
# Builds nothing: pass a stguard binary (a release build for the figures).
# Everything goes to a temporary directory that is removed on exit. Needs
# /usr/bin/time (Debian package `time`), python3, setsid and pgrep (procps).
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 STGUARD [CASES]   (e.g. build/release/cli/stguard 8)" >&2
  exit 2
fi
stguard=$(realpath "$1")
cases=${2:-8}
if [[ ! -x $stguard ]]; then
  echo "$0: $stguard is not an executable" >&2
  exit 2
fi
for tool in /usr/bin/time python3 setsid pgrep; do
  if ! command -v "$tool" >/dev/null; then
    echo "$0: $tool not found" >&2
    exit 2
  fi
done

tmp=$(mktemp -d)
cleanup() {
  if [[ -n ${adapter_secs:-} ]]; then pkill -KILL -f "^sleep ($adapter_secs|$escaper_secs)\$" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# The case selection: the first CASES ids of the corpus, as --case options.
mapfile -t ids < <("$stguard" corpus list | awk 'NF && $1 !~ /^#/ {print $1}' | head -n "$cases")
if [[ ${#ids[@]} -eq 0 ]]; then
  echo "$0: 'stguard corpus list' printed no case (is the corpus found?)" >&2
  exit 2
fi
selection=()
for id in "${ids[@]}"; do selection+=(--case "$id"); done

# The adapters. Each prints its answer from a file made once, so that the
# adapter's own cost is a cat.
python3 - "$tmp" <<'PY'
import json, sys
out = sys.argv[1]
open(f"{out}/good.json", "w").write('{"verdict":"reject","error":"no"}\n')
open(f"{out}/nested.json", "w").write("[" * 8_000_000 + "\n")
with open(f"{out}/big.json", "w") as f:
    f.write('{"verdict":"reject","error":"')
    chunk = "x" * (1 << 20)
    for _ in range(200):
        f.write(chunk)
    f.write('"}\n')
open(f"{out}/blanks.json", "w").write(" " * 15_000_000 + '{"verdict":"reject","error":"no"}\n')
open(f"{out}/string.json", "w").write('{"verdict":"reject","error":"' + "x" * 15_000_000 + '"}\n')
tensor = {"name": "", "dtype": "F32", "shape": [1], "data_offsets": [0, 4],
          "sha256": "0" * 64}
with open(f"{out}/tensors.json", "w") as f:
    f.write('{"verdict":"accept","error":null,"tensors":[')
    for i in range(110_000):
        tensor["name"] = f"t{i}"
        f.write(("," if i else "") + json.dumps(tensor, separators=(",", ":")))
    f.write("]}\n")
PY
for kind in good nested big tensors blanks string; do
  printf '#!/bin/sh\nexec cat %s/%s.json\n' "$tmp" "$kind" >"$tmp/$kind.sh"
  chmod +x "$tmp/$kind.sh"
done

max_rss_kb() {  # ADAPTER: peak RSS of one conform run, in kB
  local log=$tmp/time.log status=0
  /usr/bin/time -v -o "$log" "$stguard" conform -q -j 2 --timeout 120 --adapter "$1" \
    "${selection[@]}" >/dev/null 2>&1 || status=$?
  # 0 or 1 (cases failing is the point); anything else is a broken run.
  if [[ $status -gt 1 ]]; then
    echo "$0: conform with $1 exited with $status" >&2
    exit 1
  fi
  sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$log"
}

echo "== 1. peak RSS of conform -j 2 over ${#ids[@]} cases"
good_kb=$(max_rss_kb "$tmp/good.sh")
printf '%-44s %8d kB\n' "well-behaved adapter" "$good_kb"
for kind in nested big tensors blanks string; do
  case $kind in
    nested) what="8,000,000 nested '['" ;;
    big) what="200 MB of output" ;;
    tensors) what="110,000 tensors ($(($(stat -c %s "$tmp/tensors.json") / 1000)) kB)" ;;
    blanks) what="15 MB of blanks, then an answer" ;;
    string) what="an answer with a 15 MB string" ;;
  esac
  kb=$(max_rss_kb "$tmp/$kind.sh")
  printf '%-44s %8d kB  (%+d kB, bar +65536 kB)\n' "$what" "$kb" $((kb - good_kb))
done

echo "== 2. processes left after a signal (adapters sleep; their children call setsid)"
# Sleep lengths no other process uses are the markers pgrep looks for.
adapter_secs=$((300000 + RANDOM))
escaper_secs=$((adapter_secs + 40000))
cat >"$tmp/sleeper.sh" <<EOF
#!/bin/sh
setsid sleep $escaper_secs </dev/null >/dev/null 2>&1 &
exec sleep $adapter_secs
EOF
chmod +x "$tmp/sleeper.sh"
for signal in INT TERM HUP; do
  setsid "$stguard" conform -q -j 2 --timeout 600 --adapter "$tmp/sleeper.sh" \
    "${selection[@]}" >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 100); do
    [[ $(pgrep -f -c "^sleep $escaper_secs\$" || true) -ge 2 ]] && break
    sleep 0.1
  done
  before=$(pgrep -f -c "^sleep ($adapter_secs|$escaper_secs)\$" || true)
  kill -s "$signal" "$pid"
  status=0
  wait "$pid" || status=$?
  sleep 0.5
  after=$(pgrep -f -c "^sleep ($adapter_secs|$escaper_secs)\$" || true)
  printf 'SIG%-4s exit %3d, adapter processes before %d, left after %d\n' \
    "$signal" "$status" "$before" "$after"
  pkill -KILL -f "^sleep ($adapter_secs|$escaper_secs)\$" 2>/dev/null || true
done
