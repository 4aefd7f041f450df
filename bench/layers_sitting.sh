#!/usr/bin/env bash
# bench/layers_sitting.sh BENCH [ROUNDS]
#
# What each of the parser's fast paths earns (parser/src/layers.h): runs
# one stguard_checkpoint_bench (release preset) with every layer on, with
# every layer off (the plain path alone), and with each layer off in turn,
# ROUNDS times each in turn (default 3), and prints one Markdown row per
# layer: the strict validate_header and strict parse_header time of each
# checkpoint shape with that layer off over the time with all layers on
# (1.25: 25% slower without it), and the largest of those. A layer none of
# whose figures reaches 1.05 buys less than 5% on every shape.
# Pin it to one core and keep the machine otherwise idle:
#   taskset -c 1 bench/layers_sitting.sh build/release/bench/stguard_checkpoint_bench
# FILTER (default '/(10000|100000)/strict_(validate|parse)$') picks the
# benchmarks; MIN_TIME (default 0.1) is each one's --benchmark_min_time;
# LAYERS (default every layer) names the layers to switch off in turn, with
# commas; each figure is the fastest of its rounds. Needs python3.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 BENCH [ROUNDS]" >&2
  exit 2
fi
[[ -x $1 ]] || { echo "$0: $1 is not an executable benchmark" >&2; exit 2; }
command -v python3 >/dev/null || { echo "$0: python3 not found" >&2; exit 2; }

python3 - "$1" "${2:-3}" "${MIN_TIME:-0.1}" \
  "${FILTER:-/(10000|100000)/strict_(validate|parse)\$}" "${LAYERS:-}" <<'PY'
import json, os, subprocess, sys, tempfile

exe, rounds, min_time, pattern = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
layers = ["compact_entries", "u64_words", "plain_strings", "ascending_names", "utf8_after_scan",
          "syntax_shortcuts", "syntax_resume", "in_order_walk", "tiles_exactly", "packed_walk",
          "window"]
if sys.argv[5]:
    unknown = [name for name in sys.argv[5].split(",") if name not in layers]
    if unknown:
        print(f"layers_sitting.sh: LAYERS: not a layer: {', '.join(map(repr, unknown))}",
              file=sys.stderr)
        sys.exit(2)
    layers = sys.argv[5].split(",")
specs = ["all", "none"] + ["-" + name for name in layers]
times = {}  # spec -> run name -> fastest cpu ms
order = []
with tempfile.TemporaryDirectory() as work:
    for r in range(rounds):
        for spec in specs:
            out = os.path.join(work, "run.json")
            subprocess.run([exe, f"--layers={spec}", f"--benchmark_filter={pattern}",
                            f"--benchmark_min_time={min_time}", f"--benchmark_out={out}",
                            "--benchmark_out_format=json"], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for b in json.load(open(out))["benchmarks"]:
                if b.get("run_type") != "iteration":
                    continue
                scale = {"ms": 1.0, "us": 1e-3, "ns": 1e-6, "s": 1e3}[b["time_unit"]]
                name = b["run_name"]
                if r == 0 and spec == "all":
                    order.append(name)
                t = times.setdefault(spec, {})
                t[name] = min(t.get(name, float("inf")), b["cpu_time"] * scale)

if not order:
    sys.exit(f"no benchmark matches {pattern}")
base = times["all"]
short = [n.replace("/strict_validate", " v").replace("/strict_parse", " p") for n in order]
print(f"time with the layer off / time with every layer on; fastest of {rounds} rounds, CPU time")
print("(v: strict validate_header, p: strict parse_header)")
print()
print("| layer off | " + " | ".join(f"`{s}`" for s in short) + " | largest |")
print("|---|" + "--:|" * (len(order) + 1))
print("| (all on, ms) | " + " | ".join(f"{base[n]:.3f}" for n in order) + " | |")
for spec in specs[1:]:
    ratios = [times[spec][n] / base[n] for n in order]
    label = "every layer (plain path)" if spec == "none" else spec[1:]
    print(f"| {label} | " + " | ".join(f"{x:.2f}" for x in ratios) + f" | {max(ratios):.2f} |")
PY
