"""The process a Python reader runs in while stguard grades or hunts it.

    python3 -m stguard._worker MODULE:FUNCTION PATH          # one file
    python3 -m stguard._worker MODULE:FUNCTION --persistent  # paths on stdin

It speaks the adapter protocol (docs/adapter-protocol.md), persistent mode
included: FUNCTION(path) returns the answer as a dict ({"verdict": "accept",
"tensors": [...]}; "verdict" may be left out when accepting), and whatever
it raises is a rejection. The stguard command starts it, so a reader that
hangs, crashes or calls os._exit is graded TIMEOUT or CRASH by the runner and
only this process is restarted: never the caller's.

Anything the reader prints goes to stderr: stdout carries the answers alone,
on a descriptor of its own, so a stray print() cannot corrupt the framing.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from typing import Any, Callable


def load(spec: str) -> Callable[[str], Any]:
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise SystemExit(f"stguard: reader must be MODULE:FUNCTION, not {spec!r}")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    if not callable(obj):
        raise SystemExit(f"stguard: {spec} is not callable")
    return obj


def _describe(error: BaseException) -> str:
    try:
        text = str(error)
    except BaseException:  # a __str__ that raises is the reader's, not ours
        text = "<unprintable>"
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def answer_line(reader: Callable[[str], Any], path: str) -> str:
    """The one-line answer for `path`. A reader's exception (any, SystemExit
    included) is a rejection; an answer that is not JSON becomes a line that
    is not JSON, which the runner grades PROTOCOL_ERROR, as it would for an
    adapter that printed it."""
    try:
        result = reader(path)
    except BaseException as error:  # noqa: BLE001: every exception is an answer
        result = {"verdict": "reject", "error": _describe(error)}
    if isinstance(result, dict) and "verdict" not in result:
        result = {"verdict": "accept", **result}
    try:
        # ensure_ascii: no raw U+2028/U+2029 or other line breaks in the line.
        return json.dumps(result, ensure_ascii=True, allow_nan=False)
    except BaseException as error:  # noqa: BLE001
        return "stguard worker: the reader's answer is not JSON: " + _describe(error).replace("\n", " ")


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python3 -m stguard._worker MODULE:FUNCTION (PATH | --persistent)", file=sys.stderr)
        return 2
    # The answers' own descriptor; fd 1 and sys.stdout go to stderr.
    out = os.fdopen(os.dup(1), "w", encoding="ascii", newline="\n")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    # Commands run in the reader's directory; the caller's one holds its module.
    sys.path.insert(0, os.environ.get("STGUARD_PY_CWD", os.getcwd()))
    reader = load(argv[0])
    if argv[1] != "--persistent":
        out.write(answer_line(reader, argv[1]) + "\n")
        out.flush()
        return 0
    for line in sys.stdin:
        out.write(answer_line(reader, line.rstrip("\n")) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
