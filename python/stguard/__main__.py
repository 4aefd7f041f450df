"""python3 -m stguard: grade or hunt a Python reader function.

    python3 -m stguard conform MODULE:FUNCTION [--name N] [--data-dir D] [stguard conform options]
    python3 -m stguard hunt MODULE:FUNCTION [--name N] [--data-dir D] [stguard hunt options]

FUNCTION(path) returns the adapter protocol's answer as a dict, or raises to
reject (docs/python.md). Every other option is the command's own
(`stguard conform --help`, `stguard hunt --help`): --out-dir, --expectations,
--case, -j, --seconds, --out, ... The exit status is the command's.
"""

from __future__ import annotations

import sys

from . import _drive


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in ("conform", "hunt") or argv[1].startswith("-"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    subcommand, spec, rest = argv[0], argv[1], argv[2:]
    name = data = None
    passed: list[str] = []
    i = 0
    while i < len(rest):
        if rest[i] in ("--name", "--data-dir") and i + 1 < len(rest):
            if rest[i] == "--name":
                name = rest[i + 1]
            else:
                data = rest[i + 1]
            i += 2
            continue
        passed.append(rest[i])
        i += 1
    try:
        return _drive.run(subcommand, spec, passed, name=name, data=data).returncode
    except FileNotFoundError as error:
        print(f"stguard: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
