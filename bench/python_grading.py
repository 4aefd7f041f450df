#!/usr/bin/env python3
"""Benchmark: grading a pure-Python reader in-process against a process per
case, and its hunt rate (docs/performance.md, "Python readers").

    /usr/bin/python3 bench/python_grading.py [-j 2] [--hunt-seconds 10]

Needs the stguard package importable (an install, or PYTHONPATH=build/<preset>/python).
The reader is bench/python_reader.py: a JSON header parse and a SHA-256 of
each tensor. Prints the wall time and files per second of each run, and
checks that both runs gave every case the same grade.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import stguard._drive
import stguard._paths

HERE = Path(__file__).resolve().parent


def grades(path):
    out = {}
    for line in Path(path).read_text().splitlines():
        r = json.loads(line)
        if "case" in r:
            out[r["case"]] = r["grade"]
    return out


def timed(argv, env):
    start = time.monotonic()
    done = subprocess.run(argv, env=env, cwd=HERE, capture_output=True, text=True)
    return time.monotonic() - start, done


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--hunt-seconds", type=int, default=10)
    args = ap.parse_args()
    env = stguard._drive.worker_env()
    exe = str(stguard._paths.executable())
    with tempfile.TemporaryDirectory() as tmp:
        t_in, d_in = timed([sys.executable, "-m", "stguard", "conform", "python_reader:answer",
                            "--name", "py", "-j", str(args.j), "--jsonl", f"{tmp}/in.jsonl"], env)
        t_pp, d_pp = timed([exe, "conform", "--adapter", f"{sys.executable} {HERE / 'python_reader.py'}",
                            "--name", "py", "-j", str(args.j), "--jsonl", f"{tmp}/pp.jsonl"], env)
        g_in, g_pp = grades(f"{tmp}/in.jsonl"), grades(f"{tmp}/pp.jsonl")
        n = len(g_in)
        print(f"in-process (persistent worker): {n} cases in {t_in:.2f} s, {n / t_in:.0f} files/s")
        print(f"process per case:               {len(g_pp)} cases in {t_pp:.2f} s, {len(g_pp) / t_pp:.1f} files/s")
        print(f"speed-up: {t_pp / t_in:.1f}x; grades identical case by case: {g_in == g_pp}")
        t_h, d_h = timed([sys.executable, "-m", "stguard", "hunt", "python_reader:answer", "--name", "py",
                          "--seconds", str(args.hunt_seconds), "-j", str(args.j),
                          "--out", os.path.join(tmp, "hunt")], env)
        rate = re.findall(r"[\d,.]+ files/s", d_h.stderr + d_h.stdout)
        print(f"hunt, {args.hunt_seconds} s, -j {args.j}: {rate[-1] if rate else '?'} "
              f"(exit {d_h.returncode})")
        if not rate:
            print(d_h.stderr[-2000:], file=sys.stderr)
    return 0 if g_in == g_pp else 1


if __name__ == "__main__":
    sys.exit(main())
