#!/usr/bin/env bash
# bench/whole_process.sh BUILD_DIR [BEFORE_STGUARD]
#
# The whole `stguard check` process against the work it does in process,
# with binaries already built in BUILD_DIR (release preset; this script
# builds nothing):
#   1. per checkpoint shape (stguard_make_bench_file --shape; by default the
#      issue's 10.6 MB uniform/state-dict/100000 header and every family and
#      order at 300 and 100,000 tensors): the wall time of `stguard check
#      FILE`, strict validate_header of the same bytes in process
#      (stguard_checkpoint_bench --file=FILE, median CPU time), an empty
#      process (/bin/true) and a process that only preads the header and runs
#      nlohmann's SAX parser over it (stguard_read_and_sax), and the ratios
#      check / (in process + empty), whose goal is at most 2, and that
#      process / check, whose goal is at least 3;
#   2. `stguard check` of 1,000 small files in one call (the corpus's files,
#      accepted and rejected, over and over): the time per file, the empty
#      process taken off.
# With BEFORE_STGUARD (another build's stguard) every process is timed with
# both, in turn, so the two columns come from one sitting; the two swap
# places every other round, since the one that runs first after a
# read-and-SAX process finds the caches cold.
#
# Each process is timed RUNS times (default 21), the binaries and /bin/true
# in turn; the figures are medians of wall time. Pin it to one core:
#   taskset -c 1 bench/whole_process.sh build/release
#   SHAPES='uniform/state-dict/100000' RUNS=41 taskset -c 1 bench/whole_process.sh build/release
# Files go to a temporary directory removed on exit; their data parts are
# sparse. Both stguard binaries are timed from copies in that directory.
# Needs python3.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 BUILD_DIR [BEFORE_STGUARD]   (e.g. build/release)" >&2
  exit 2
fi
build=$1
before=${2:-}
stguard=$build/cli/stguard
make_file=$build/bench/stguard_make_bench_file
bench=$build/bench/stguard_checkpoint_bench
sax=$build/bench/stguard_read_and_sax
for exe in "$stguard" "$make_file" "$bench" "$sax" ${before:+"$before"}; do
  if [[ ! -x $exe ]]; then
    echo "$0: $exe not found; build BUILD_DIR with -DSTGUARD_BUILD_BENCH=ON first" >&2
    exit 2
  fi
done
command -v python3 >/dev/null || { echo "$0: python3 not found" >&2; exit 2; }

root=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-21}
shapes=${SHAPES:-"uniform/state-dict/100000
$(for n in 300 100000; do for f in llama vlm lora; do for o in writer state-dict shuffled; do
    echo "$f/$o/$n"; done; done; done)"}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The commands compared run from copies side by side: started from where
# they were built, the same binary took a tenth longer on a small file than
# a copy of it in /tmp (AMD VM, 2026-12-07), which would show as a
# difference between two builds.
cp "$stguard" "$work/stguard-after"
stguard=$work/stguard-after
if [[ -n $before ]]; then
  cp "$before" "$work/stguard-before"
  before=$work/stguard-before
fi

files=()
for shape in $shapes; do
  file=$work/${shape//\//_}.safetensors
  "$make_file" --shape "$shape" "$file" >/dev/null
  files+=("$file")
done

# In process: one benchmark per file, 5 repetitions, median CPU time.
bench_args=()
for file in "${files[@]}"; do bench_args+=("--file=$file"); done
"$bench" --benchmark_filter='^file/' --benchmark_repetitions=5 --benchmark_min_time=0.1 \
  --benchmark_out="$work/inprocess.json" --benchmark_out_format=json "${bench_args[@]}" \
  >/dev/null 2>"$work/bench.err" || { cat "$work/bench.err" >&2; exit 1; }

mkdir "$work/small"
mapfile -t corpus < <(find "$root/corpus" -name '*.safetensors' | sort)
for i in $(seq 0 999); do
  cp "${corpus[$((i % ${#corpus[@]}))]}" "$(printf '%s/small/%04d.safetensors' "$work" "$i")"
done

python3 - "$work" "$runs" "$stguard" "$before" "$sax" "${files[@]}" <<'EOF'
import glob, json, os, statistics, sys, time

work, runs, after, before, sax = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
files = sys.argv[6:]
binaries = [("after", after)] + ([("before", before)] if before else [])
devnull = os.open(os.devnull, os.O_WRONLY)

def wall(argv):
    start = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=[
        (os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
    os.waitpid(pid, 0)
    return (time.perf_counter_ns() - start) / 1e6  # ms

inprocess = {}
for b in json.load(open(os.path.join(work, "inprocess.json")))["benchmarks"]:
    if b.get("aggregate_name") == "median":
        scale = {"ms": 1.0, "us": 1e-3, "ns": 1e-6}[b["time_unit"]]
        inprocess[b["run_name"][len("file/"):-len("/strict_validate")]] = b["cpu_time"] * scale

small = sorted(glob.glob(os.path.join(work, "small", "*.safetensors")))


# One round of every process. With two builds, the first of them runs right
# after the previous file's read-and-SAX process, which leaves the caches
# cold, and the second after the first: the builds swap places every other
# round, so that neither pays for going first.
def round_of(bins):
    jobs = [("true", ["/bin/true"])]
    for f in files:
        for name, exe in bins:
            jobs.append(((name, f), [exe, "check", f]))
        jobs.append((("sax", f), [sax, f]))
    for name, exe in bins:
        jobs.append(((name, "small"), [exe, "check"] + small))
    return jobs


times = {key: [] for key, _ in round_of(binaries)}
for r in range(runs):
    for key, argv in round_of(binaries if r % 2 == 0 else binaries[::-1]):
        times[key].append(wall(argv))
med = {key: statistics.median(v) for key, v in times.items()}
empty = med["true"]

def shape_of(f):
    return os.path.basename(f)[:-len(".safetensors")].replace("_", "/")

def header_mb(f):
    with open(f, "rb") as h:
        return int.from_bytes(h.read(8), "little") / 1e6

print(f"medians of {runs} runs, wall time; empty process (/bin/true) {empty:.2f} ms")
print("goals (set for the 10.6 MB header; on small headers the command's own start-up is"
      " most of it): check within 2x of in process + empty process, and at least 3x faster"
      " than a process that preads the header and runs nlohmann's SAX parser (read+SAX)")
cols = "".join(f" {'check, ' + n:>15}" for n, _ in binaries)
print(f"{'shape':28} {'header MB':>9}{cols} {'in process':>11} {'goal <= 2x':>11}"
      f" {'read+SAX':>11} {'goal >= 3x':>11}")
for f in files:
    inproc = inprocess.get(f)
    cells = "".join(f" {med[(n, f)]:12.2f} ms" for n, _ in binaries)
    ratio = med[("after", f)] / (inproc + empty) if inproc is not None else float("nan")
    mark = " !" if ratio > 2 else "  "
    faster = med[("sax", f)] / med[("after", f)]
    mark_sax = " !" if faster < 3 else ""
    print(f"{shape_of(f):28} {header_mb(f):9.2f}{cells} {inproc:8.3f} ms {ratio:9.2f}x{mark}"
          f" {med[('sax', f)]:8.2f} ms {faster:9.2f}x{mark_sax}")
for n, _ in binaries:
    total = med[(n, "small")]
    print(f"check of {len(small)} small files in one call, {n}: {total:.1f} ms, "
          f"{(total - empty) / len(small) * 1000:.1f} us per file")
EOF
