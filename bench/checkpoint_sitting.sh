#!/usr/bin/env bash
# bench/checkpoint_sitting.sh BEFORE_BENCH AFTER_BENCH [ROUNDS]
#
# Before and after in one sitting: runs two builds' stguard_checkpoint_bench
# (e.g. a worktree of the base commit and this tree, both built with the
# release preset) in turn, ROUNDS times each (default 3), and prints one
# Markdown row per checkpoint shape: the header's size, strict validate_header
# before and after (medians of CPU time over the rounds, or with STAT=min the
# fastest), after / before, and the after build's three ratios with their
# goals, a missed goal in bold:
#   simdjson DOM / strict validate_header    at least 1.3
#   strict parse_header / validate_header    at most 1.5
#   reference / strict validate_header       at most 1.2
# Pin it to one core and keep the machine otherwise idle:
#   taskset -c 1 bench/checkpoint_sitting.sh BASE/build/release/bench/stguard_checkpoint_bench \
#       build/release/bench/stguard_checkpoint_bench
# MIN_TIME (default 0.1) is each benchmark's --benchmark_min_time. STAT=min
# takes each figure's fastest round instead of the median: on a VM whose
# neighbours burst, two runs of one build differed by up to a quarter in
# their medians and by 2% to 6% in their minima. Needs python3.
set -euo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
  echo "usage: $0 BEFORE_BENCH AFTER_BENCH [ROUNDS]" >&2
  exit 2
fi
for exe in "$1" "$2"; do
  [[ -x $exe ]] || { echo "$0: $exe is not an executable benchmark" >&2; exit 2; }
done
command -v python3 >/dev/null || { echo "$0: python3 not found" >&2; exit 2; }

case "${STAT:-median}" in
  median|min) ;;
  *) echo "$0: STAT must be median or min" >&2; exit 2 ;;
esac

python3 - "$1" "$2" "${3:-3}" "${MIN_TIME:-0.1}" "${STAT:-median}" <<'PY'
import json, os, statistics, subprocess, sys, tempfile

before, after, rounds, min_time = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
stat_name = sys.argv[5]
stat = statistics.median if stat_name == "median" else min
times = {"before": {}, "after": {}}  # build -> run name -> [cpu ms]
header_mb = {}  # shape -> header size
order = []  # run names in the benchmark's own order
with tempfile.TemporaryDirectory() as work:
    for r in range(rounds):
        for build, exe in (("before", before), ("after", after)):
            out = os.path.join(work, f"{build}{r}.json")
            subprocess.run([exe, f"--benchmark_min_time={min_time}", f"--benchmark_out={out}",
                            "--benchmark_out_format=json"], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for b in json.load(open(out))["benchmarks"]:
                if b.get("run_type") != "iteration":
                    continue
                scale = {"ms": 1.0, "us": 1e-3, "ns": 1e-6, "s": 1e3}[b["time_unit"]]
                name = b["run_name"]
                if "header_bytes" in b:
                    header_mb[name.rsplit("/", 1)[0]] = b["header_bytes"] / 1e6
                if build == "after" and r == 0:
                    order.append(name)
                times[build].setdefault(name, []).append(b["cpu_time"] * scale)

med = {build: {n: stat(v) for n, v in t.items()} for build, t in times.items()}
shapes = []
for name in order:
    shape = name.rsplit("/", 1)[0]
    if shape not in shapes:
        shapes.append(shape)

def fmt_ms(ms):
    return f"{ms * 1000:.1f} us" if ms < 1 else f"{ms:.2f} ms"

def cell(value, ok):
    text = f"{value:.2f}x"
    return text if ok else f"**{text}**"

label = "medians" if stat_name == "median" else "fastest"
print(f"{label} of {rounds} rounds per build, CPU time; ratios are the after build's")
print()
print("| shape | header | strict, before | strict, after | after/before | simdjson DOM / strict "
      "| parse / validate | reference / strict |")
print("|---|--:|--:|--:|--:|--:|--:|--:|")
print("| goal | | | | | at least 1.3x | at most 1.5x | at most 1.2x |")
missed = 0
for shape in shapes:
    a = med["after"]
    strict = a.get(f"{shape}/strict_validate")
    old = med["before"].get(f"{shape}/strict_validate")
    if strict is None:
        continue
    simd = a[f"{shape}/simdjson_dom"] / strict
    parse = a[f"{shape}/strict_parse"] / strict
    ref = a[f"{shape}/reference_validate"] / strict
    missed += (simd < 1.3) + (parse > 1.5) + (ref > 1.2)
    before_cell = fmt_ms(old) if old is not None else "n/a"
    change = f"{strict / old:.2f}" if old is not None else "n/a"
    size = f"{header_mb[shape]:.2f} MB" if shape in header_mb else "n/a"
    print(f"| `{shape}` | {size} | {before_cell} | {fmt_ms(strict)} | {change} | {cell(simd, simd >= 1.3)} "
          f"| {cell(parse, parse <= 1.5)} | {cell(ref, ref <= 1.2)} |")
print()
print(f"{missed} goal(s) missed of {3 * len(shapes)}")
PY
