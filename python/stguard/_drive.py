"""Running a Python reader through the stguard command (conform, hunt).

The reader is described to the command as a reader directory whose
reader.json runs `python3 -m stguard._worker MODULE:FUNCTION`, with a
persistent command: the command's own runner starts the worker, feeds it
paths, grades its answers, restarts it after a crash or a hang, and writes
its reports. So the grades and report files are the runner's, byte for byte,
and nothing of the reader ever runs in the caller's process.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from ._paths import data_dir, executable

_PACKAGE_PARENT = str(Path(__file__).resolve().parent.parent)


def reader_name(spec: str) -> str:
    """A reader name the runner accepts (1 to 64 of A-Z a-z 0-9 . _ + -)."""
    name = re.sub(r"[^A-Za-z0-9._+-]", ".", spec)[:64]
    return name or "python"


def write_reader_dir(directory: Path, spec: str, name: str) -> None:
    command = [sys.executable, "-m", "stguard._worker", spec]
    reader = {
        "name": name,
        "description": f"the Python function {spec}",
        "command": command,
        "persistent_command": [*command, "--persistent"],
        "mode": "json",
    }
    (directory / "reader.json").write_text(json.dumps(reader, indent=2) + "\n", encoding="utf-8")


def worker_env() -> dict[str, str]:
    """The environment of the command and, through it, of the worker: the
    worker must import this stguard package and the caller's module from the
    reader directory it is started in."""
    env = dict(os.environ)
    env["STGUARD_PY_CWD"] = os.getcwd()
    paths = [_PACKAGE_PARENT, os.getcwd()]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    # The command is a program of its own: a sanitizer runtime preloaded for
    # this interpreter (the test suite's ASan build) is not its runtime, and
    # would clash with the one it was linked with; nor is the libstdc++ that
    # g++'s runtime needs preloaded after it (ahead of the command's own
    # libasan, it stops a g++ sanitizer build at start). The worker never
    # loads the extension module, so it needs neither. Other preloads (an
    # allocator, say) are the user's and stay.
    if "LD_PRELOAD" in env:
        parts = [p for p in re.split(r"[: ]+", env["LD_PRELOAD"]) if p]
        runtime = re.compile(r"libclang_rt\.|lib[atmhu]san\.so")
        if any(runtime.search(os.path.basename(p)) for p in parts):
            parts = [p for p in parts if not runtime.search(os.path.basename(p))
                     and not os.path.basename(p).startswith("libstdc++.so")]
        if parts:
            env["LD_PRELOAD"] = ":".join(parts)
        else:
            del env["LD_PRELOAD"]
    return env


def run(subcommand: str, spec: str, args: Sequence[str], name: str | None = None,
        data: str | None = None, capture: bool = False) -> subprocess.CompletedProcess[str]:
    """Runs `stguard SUBCOMMAND --reader DIR ARGS...` for the reader `spec`
    (MODULE:FUNCTION) and returns the finished process (its exit status is
    the command's, docs/cli.md)."""
    with tempfile.TemporaryDirectory(prefix="stguard-py-reader-") as tmp:
        write_reader_dir(Path(tmp), spec, name or reader_name(spec))
        argv = [str(executable()), subcommand, "--reader", tmp,
                "--data-dir", str(data_dir(data)), *args]
        return subprocess.run(argv, env=worker_env(), text=True, check=False,
                              stdout=subprocess.PIPE if capture else None,
                              stderr=subprocess.PIPE if capture else None)
