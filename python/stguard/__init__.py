"""stguard for Python: check safetensors files, inspect their headers, verify
model folders, and grade or fuzz a Python safetensors reader.

    >>> import stguard
    >>> v = stguard.check("model.safetensors")
    >>> v.accepted, v.reason, v.offset
    (False, 'OFFSET_GAP', 118)

The checks are stguard's C++ parser (docs/python.md): the same verdicts,
reason codes and byte offsets as `stguard check`.
"""

from __future__ import annotations

import errno
import importlib
import json
import os
import stat
from dataclasses import dataclass, field
from typing import Any, Literal, Union

# The extension module is imported by the functions that need it, so that
# the worker a reader runs in (stguard._worker) and `python3 -m stguard` never
# load it.
from . import _build_info

__all__ = [
    "Verdict",
    "Tensor",
    "Lint",
    "Header",
    "Finding",
    "VerifyReport",
    "RejectedError",
    "check",
    "inspect",
    "verify",
    "__version__",
]

__version__: str = _build_info.version

Profile = Literal["strict", "reference"]
PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class Verdict:
    """A file's verdict. `reason` is a stable code (docs/reasons.md) and
    `offset` the absolute byte of the fault, both None when accepted."""

    accepted: bool
    reason: str | None
    offset: int | None
    message: str | None
    profile: str
    tensor_count: int | None = None
    header_len: int | None = None
    file_size: int | None = None

    def __bool__(self) -> bool:
        return self.accepted

    def __str__(self) -> str:
        if self.accepted:
            return f"accept ({self.tensor_count} tensors, header {self.header_len} bytes, {self.profile})"
        return f"reject {self.reason} at byte {self.offset}: {self.message}"


@dataclass(frozen=True)
class Tensor:
    """One tensor as the header declares it. `data_offsets` count from the
    start of the data buffer; `absolute` from the start of the file."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    data_offsets: tuple[int, int]
    absolute: tuple[int, int]
    header_offset: int

    @property
    def nbytes(self) -> int:
        return self.data_offsets[1] - self.data_offsets[0]


@dataclass(frozen=True)
class Lint:
    """A warning about a valid file (stguard/lint.h): `tensor` and `other`
    are indexes into Header.tensors when the lint is about tensors."""

    code: str
    tensor: int | None
    other: int | None


@dataclass(frozen=True)
class Header:
    """A validated header: tensors in header order, metadata (None when the
    file has no __metadata__), and lints."""

    header_len: int
    file_size: int
    data_offset: int
    tensors: tuple[Tensor, ...]
    metadata: dict[str, str] | None
    lints: tuple[Lint, ...]
    verdict: Verdict

    def __getitem__(self, name: str) -> Tensor:
        for t in self.tensors:
            if t.name == name:
                return t
        raise KeyError(name)


class RejectedError(ValueError):
    """inspect() on a file the parser rejects; `.verdict` says why."""

    def __init__(self, verdict: Verdict, path: str) -> None:
        super().__init__(f"{path}: {verdict}")
        self.verdict = verdict
        self.path = path


@dataclass(frozen=True)
class Finding:
    """One problem `verify` found (docs/findings.md): kind, severity
    ("error" or "warning"), the file it is about, and what it means. `data`
    holds every field of the JSON report's finding."""

    kind: str
    severity: str
    file: str | None
    message: str
    data: dict[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class VerifyReport:
    """The report of `stguard verify --json`, parsed: `ok`, `exit_code` (0
    whole, 1 problems, 2 could not run), the findings, and `data`, the whole
    JSON document (checkpoints, shards, indexes, checksums, summary)."""

    ok: bool
    exit_code: int
    findings: tuple[Finding, ...]
    checkpoints: list[Any]
    data: dict[str, Any] = field(repr=False, compare=False)


def _open_regular(path: PathLike) -> int:
    """A descriptor of `path` for reading, or the OSError that says why not.

    O_NONBLOCK so that opening a FIFO does not wait for a writer; anything
    but a regular file is refused before a byte is read (a FIFO or a device
    could block or never end)."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, "not a regular file", os.fspath(path))
    except BaseException:
        os.close(fd)
        raise
    return fd


def _verdict(raw: tuple[Any, ...], profile: str, path: str | None) -> Verdict:
    accepted, reason, offset, message, count, header_len, file_size = raw
    if reason == "IO_ERROR" and path is not None:
        # The descriptor was open and regular, so this is a read that failed
        # (or a file that shrank while read): not a verdict about the format.
        raise OSError(errno.EIO, message, path)
    return Verdict(accepted, reason, offset, message, profile, count, header_len, file_size)


_REMOTE_PREFIXES = ("http://", "https://", "hf://")


def check(path_or_bytes: PathLike | bytes | bytearray | memoryview, profile: Profile = "strict") -> Verdict:
    """The structural verdict on a file, from its header alone (data is not
    read). Bytes are taken as a whole file. A string starting http://,
    https:// or hf://ORG/NAME[@REVISION]/PATH is a remote file, checked as
    `stguard check URL` does: its header fetched with Range requests, its
    size the server's, nothing downloaded (HF_ENDPOINT and HF_TOKEN as for
    the command). Never raises for a bad file; raises OSError
    (FileNotFoundError, IsADirectoryError, PermissionError...) for one that
    cannot be read or fetched, ValueError for an unknown profile or a
    malformed hf:// address.

        >>> stguard.check(b"\\x02\\x00\\x00\\x00\\x00\\x00\\x00\\x00{}").accepted
        True
    """
    from . import _native

    if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
        return _verdict(_native.check_bytes(path_or_bytes, profile), profile, None)
    if isinstance(path_or_bytes, str) and path_or_bytes.startswith(_REMOTE_PREFIXES):
        return _verdict(_native.check_url(path_or_bytes, profile), profile, path_or_bytes)
    fd = _open_regular(path_or_bytes)
    try:
        return _verdict(_native.check_fd(fd, profile), profile, os.fspath(path_or_bytes))
    finally:
        os.close(fd)


def inspect(path: PathLike, profile: Profile = "strict") -> Header:
    """The header of a valid file: tensors, metadata and lints. Raises
    RejectedError (a ValueError, with `.verdict`) when the file is invalid,
    OSError when it cannot be read.

        >>> h = stguard.inspect("examples/seed-example.safetensors")
        >>> [(t.name, t.dtype, t.shape, t.absolute) for t in h.tensors]
        [('a', 'F32', (2,), (120, 128)), ('b', 'I64', (1,), (128, 136))]
    """
    from . import _native

    fd = _open_regular(path)
    try:
        raw, verdict_raw = _native.inspect_fd(fd, profile)
    finally:
        os.close(fd)
    verdict = _verdict(verdict_raw, profile, os.fspath(path))
    if raw is None:
        raise RejectedError(verdict, os.fspath(path))
    tensors = tuple(Tensor(**t) for t in raw["tensors"])
    lints = tuple(Lint(**lint) for lint in raw["lints"])
    return Header(raw["header_len"], raw["file_size"], raw["data_offset"], tensors,
                  raw["metadata"], lints, verdict)


def verify(path: PathLike, scan_values: bool = False, jobs: int | None = None) -> VerifyReport:
    """Verifies a model folder as `stguard verify --json` does (the same
    report, docs/verify.md). Problems found are findings, not exceptions;
    a folder that cannot be opened raises OSError.

        >>> r = stguard.verify("model/")
        >>> r.ok, [(f.kind, f.file) for f in r.findings]
        (False, [('shard_lfs_pointer', 'model.safetensors')])
    """
    from . import _native

    p = os.fspath(path)
    st = os.stat(p)  # FileNotFoundError, PermissionError, as Python users expect
    if not stat.S_ISDIR(st.st_mode):
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), p)
    if jobs is not None and not 1 <= jobs <= 1024:
        raise ValueError("jobs must be between 1 and 1024")
    data = json.loads(_native.verify_json(p, bool(scan_values), jobs or 0))
    if data.get("fatal"):
        # The folder could not be opened or listed: no report to give.
        raise OSError(errno.EIO, data["fatal"], p)
    findings = tuple(
        Finding(f.get("kind", ""), f.get("severity", ""), f.get("file"), f.get("message", ""), f)
        for f in data.get("findings", [])
    )
    return VerifyReport(bool(data.get("ok")), int(data.get("exit_code", 2)), findings,
                        list(data.get("checkpoints", [])), data)


def __getattr__(name: str) -> Any:
    # stguard.corpus without importing it up front. importlib, not
    # `from . import corpus`: that asks this very __getattr__ for the name
    # first, and so recursed without end.
    if name == "corpus":
        return importlib.import_module(__name__ + ".corpus")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


