#!/usr/bin/env python3
"""Groups a build's translation units into batches for clang-tidy.

    ci/tidy-batches.py BUILD_DIR OUT_DIR < units

Reads source paths (one per line) from stdin, finds each in
BUILD_DIR/compile_commands.json, and writes into OUT_DIR one source per batch
that #includes up to eight of them, with a compile_commands.json giving each
batch the command its sources compile with. Prints the batches' paths.

clang-tidy parses every header a unit includes and runs its matchers over
all of it; CLI11, nlohmann/json and libstdc++ are most of that work. A batch
parses them once for eight sources, as the unity build of the g++ preset
compiles them (docs/building.md), and clang-tidy reports a finding in a
batched source under that source's own path (the sources match
.clang-tidy's HeaderFilterRegex). Only sources of one target with one
command share a batch, so that merging them is what the unity build already
does. A C source, and a fuzz harness (whose replay main must stay a unit of
its own, fuzz/CMakeLists.txt), makes a batch alone.
"""

import json
import os
import re
import sys

BATCH_SIZE = 8


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: ci/tidy-batches.py BUILD_DIR OUT_DIR < units", file=sys.stderr)
        return 2
    build_dir, out_dir = sys.argv[1], sys.argv[2]
    with open(os.path.join(build_dir, "compile_commands.json"), encoding="utf-8") as f:
        commands = {entry["file"]: entry for entry in json.load(f)}

    groups: dict[tuple, list[str]] = {}
    for unit in (line.strip() for line in sys.stdin):
        if not unit:
            continue
        entry = commands.get(unit)
        if entry is None or "command" not in entry:
            print(f"tidy-batches: no compile command for {unit}", file=sys.stderr)
            return 2
        command = entry["command"]
        # CMake writes "... -o CMakeFiles/<target>.dir/<object> -c <source>".
        tail = re.search(r" -o (\S+) -c (\S+)$", command)
        if tail is None:
            print(f"tidy-batches: unexpected command for {unit}", file=sys.stderr)
            return 2
        target = tail.group(1).split(".dir/")[0]
        key = (entry["directory"], target, command[: tail.start()])
        if not unit.endswith(".cc") or "/fuzz/" in unit:
            key += (unit,)
        groups.setdefault(key, []).append(unit)

    batches = []
    for (directory, _target, command, *_), units in groups.items():
        for start in range(0, len(units), BATCH_SIZE):
            chunk = units[start : start + BATCH_SIZE]
            if len(chunk) == 1:
                path = chunk[0]
            else:
                path = os.path.join(out_dir, f"batch_{len(batches):03d}.cc")
                with open(path, "w", encoding="utf-8") as f:
                    f.writelines(f'#include "{unit}"\n' for unit in chunk)
            batches.append({"directory": directory, "command": f"{command} -c {path}", "file": path})

    with open(os.path.join(out_dir, "compile_commands.json"), "w", encoding="utf-8") as f:
        json.dump(batches, f, indent=1)
    for batch in batches:
        print(batch["file"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
