"""Where the package finds stguard's data directory and the stguard command.

The same order as the command's own lookup (cli/data_dir.h), seen from a
Python package: an explicit argument, then STGUARD_DATA_DIR (or
STGUARD_EXECUTABLE for the command), then the install prefix the package sits
in (PREFIX/lib/pythonX.Y/site-packages/stguard: PREFIX/share/stguard and
PREFIX/bin/stguard, where `cmake --install` puts them), and last the source
and build tree the extension module was built from, when they still exist.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from . import _build_info

_PACKAGE = Path(__file__).resolve().parent
# PREFIX/lib/pythonX.Y/site-packages/stguard -> PREFIX
_PREFIX = _PACKAGE.parents[3] if len(_PACKAGE.parents) > 3 else None


def _is_data_dir(root: Path) -> bool:
    # The command's criterion: a half-copied directory is passed over.
    return (root / "conformance" / "vocabulary.txt").is_file()


def data_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The data directory (corpus/, conformance/); FileNotFoundError if none."""
    tried: list[str] = []
    candidates: list[tuple[str, Path]] = []
    if explicit is not None:
        candidates.append(("argument", Path(explicit)))
    elif os.environ.get("STGUARD_DATA_DIR"):
        candidates.append(("STGUARD_DATA_DIR", Path(os.environ["STGUARD_DATA_DIR"])))
    else:
        if _PREFIX is not None:
            candidates.append(("installed", _PREFIX / "share" / "stguard"))
        candidates.append(("source tree", Path(_build_info.source_dir)))
    for how, root in candidates:
        if _is_data_dir(root):
            return root.resolve()
        tried.append(f"{root} ({how})")
    raise FileNotFoundError(
        "no stguard data directory (one holding conformance/vocabulary.txt) at "
        + ", ".join(tried)
        + "; pass data_dir= or set STGUARD_DATA_DIR"
    )


def executable() -> Path:
    """The stguard command; FileNotFoundError if none is found."""
    env = os.environ.get("STGUARD_EXECUTABLE")
    if env:
        return Path(env)
    candidates = []
    if _PREFIX is not None:
        candidates.append(_PREFIX / "bin" / "stguard")
    candidates.append(Path(_build_info.build_cli))
    for c in candidates:
        if os.access(c, os.X_OK) and c.is_file():
            return c
    found = shutil.which("stguard")
    if found:
        return Path(found)
    raise FileNotFoundError(
        "the stguard command was not found (" + ", ".join(map(str, candidates))
        + ", PATH); set STGUARD_EXECUTABLE"
    )
