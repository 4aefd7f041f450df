"""The conformance corpus from Python: the cases of corpus/manifest.json.

    >>> import stguard.corpus
    >>> for case in stguard.corpus.cases(groups=["layout"]):
    ...     print(case.id, case.strict, case.reason)
    layout/alias-different-dtypes reject OFFSET_OVERLAP
    ...

The manifest's contract is docs/conform.md ("The corpus"); the data directory
is found as `stguard._paths.data_dir` says.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._paths import data_dir as _data_dir

__all__ = ["Case", "cases", "manifest_path"]


@dataclass(frozen=True)
class Case:
    """One corpus case. `strict` and `reference` are the expected verdicts
    ("accept", "reject", or "either" where the format leaves it open),
    `reason` the reason code of a rejection, `tensors` the tensors a reader
    must return for an accepted file (name, dtype, shape, data_offsets,
    sha256) and `metadata` its metadata."""

    id: str
    path: Path
    strict: str
    reference: str
    verdict: str
    reason: str | None
    tags: tuple[str, ...]
    description: str
    tensors: tuple[dict[str, Any], ...] = field(repr=False)
    metadata: dict[str, str] | None = field(repr=False)
    raw: dict[str, Any] = field(repr=False, compare=False)

    @property
    def group(self) -> str:
        return self.id.split("/", 1)[0]


def manifest_path(data_dir: str | os.PathLike[str] | None = None) -> Path:
    return _data_dir(data_dir) / "corpus" / "manifest.json"


def cases(tags: Iterable[str] | None = None, groups: Iterable[str] | None = None,
          data_dir: str | os.PathLike[str] | None = None) -> Iterator[Case]:
    """The corpus cases in manifest order; with `tags`, those having any of
    them; with `groups`, those whose id starts with one of them ("layout")."""
    manifest = manifest_path(data_dir)
    with open(manifest, encoding="utf-8") as f:
        doc = json.load(f)
    root = manifest.parent
    want_tags = set(tags) if tags is not None else None
    want_groups = set(groups) if groups is not None else None
    for c in doc["cases"]:
        case_tags = tuple(c.get("tags", []))
        if want_tags is not None and not want_tags.intersection(case_tags):
            continue
        if want_groups is not None and c["id"].split("/", 1)[0] not in want_groups:
            continue
        expected = c.get("expected") or {}
        yield Case(
            id=c["id"],
            path=root / c["file"],
            strict=c["strict"],
            reference=c["reference"],
            verdict=c["verdict"],
            reason=c.get("reason"),
            tags=case_tags,
            description=c.get("description", ""),
            tensors=tuple(expected.get("tensors", [])),
            metadata=expected.get("metadata"),
            raw=c,
        )
