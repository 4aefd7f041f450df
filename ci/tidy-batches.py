#!/usr/bin/env python3
"""Groups a build's translation units into batches for clang-tidy.

    ci/tidy-batches.py [--alone] BUILD_DIR OUT_DIR < units
    ci/tidy-batches.py --units BUILD_DIR

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
its own, fuzz/CMakeLists.txt), makes a batch alone; with --alone (files
named on tidy-check's command line) every source does.

A unity build (CMAKE_UNITY_BUILD, as the presets of the test command are)
lists its own batches in compile_commands.json, not the sources: each is
read back into one entry per source it includes, with its command, so that
a unity build and a plain one give clang-tidy the same sources. --units
prints those sources, one per line.
"""

import json
import os
import re
import sys

BATCH_SIZE = 8


# CMake's name for a unity build's batch, and how it includes a source.
UNITY_BATCH = re.compile(r"/Unity/unity_[0-9]+_cxx\.cxx$")
UNITY_INCLUDE = re.compile(r'^#include "([^"]+)"$', re.MULTILINE)
# CMake writes "... -o CMakeFiles/<target>.dir/<object> -c <source>".
COMMAND_TAIL = re.compile(r" -o (\S+) -c (\S+)$")


def load_commands(build_dir: str) -> dict:
    """The build's compile commands by source path, a unity batch's entry
    replaced by one per source it includes."""
    with open(os.path.join(build_dir, "compile_commands.json"), encoding="utf-8") as f:
        entries = json.load(f)
    commands = {}
    for entry in entries:
        tail = COMMAND_TAIL.search(entry.get("command", ""))
        if tail is None or not UNITY_BATCH.search(entry["file"]):
            commands.setdefault(entry["file"], entry)
            continue
        with open(entry["file"], encoding="utf-8") as f:
            sources = UNITY_INCLUDE.findall(f.read())
        for source in sources:
            command = f"{entry['command'][: tail.start()]} -o {tail.group(1)} -c {source}"
            commands.setdefault(source, {"directory": entry["directory"], "command": command,
                                         "file": source})
    return commands


def main() -> int:
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "--units":
        for source in sorted(load_commands(args[1])):
            print(source)
        return 0
    alone = bool(args) and args[0] == "--alone"
    if alone:
        args = args[1:]
    if len(args) != 2:
        print("usage: ci/tidy-batches.py [--alone] BUILD_DIR OUT_DIR < units\n"
              "       ci/tidy-batches.py --units BUILD_DIR", file=sys.stderr)
        return 2
    build_dir, out_dir = args
    commands = load_commands(build_dir)

    groups: dict[tuple, list[str]] = {}
    for unit in (line.strip() for line in sys.stdin):
        if not unit:
            continue
        entry = commands.get(unit)
        if entry is None or "command" not in entry:
            print(f"tidy-batches: no compile command for {unit}", file=sys.stderr)
            return 2
        command = entry["command"]
        tail = COMMAND_TAIL.search(command)
        if tail is None:
            print(f"tidy-batches: unexpected command for {unit}", file=sys.stderr)
            return 2
        target = tail.group(1).split(".dir/")[0]
        key = (entry["directory"], target, command[: tail.start()])
        if alone or not unit.endswith(".cc") or "/fuzz/" in unit:
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
