"""stguard.check, inspect, verify and corpus against the corpus and hostile input."""

from __future__ import annotations

import hashlib
import os
import struct
import threading
from pathlib import Path

import pytest

import stguard
import stguard.corpus

from conftest import SOURCE

EXAMPLE = SOURCE / "examples" / "seed-example.safetensors"


def small_file(header: bytes, data: bytes = b"") -> bytes:
    return struct.pack("<Q", len(header)) + header + data


def test_check_example():
    v = stguard.check(EXAMPLE)
    assert v.accepted and bool(v)
    assert (v.reason, v.offset, v.message) == (None, None, None)
    assert v.tensor_count == 2 and v.profile == "strict"
    assert v.file_size == EXAMPLE.stat().st_size


@pytest.mark.parametrize("profile", ["strict", "reference"])
def test_every_case_gets_its_expected_verdict(profile):
    n = 0
    for case in stguard.corpus.cases():
        expected = getattr(case, profile)
        v = stguard.check(case.path, profile=profile)
        if expected != "either":
            assert v.accepted == (expected == "accept"), (case.id, v)
        # The same bytes in memory give the same answer.
        assert stguard.check(case.path.read_bytes(), profile=profile) == v, case.id
        n += 1
    assert n > 400


def test_rejection_has_reason_and_offset(source):
    v = stguard.check(source / "corpus" / "layout" / "gap-between.safetensors")
    assert not v.accepted
    assert (v.reason, v.offset) == ("OFFSET_GAP", 118)
    assert "hole" in v.message
    assert str(v).startswith("reject OFFSET_GAP at byte 118")


def test_bytes_like_inputs():
    blob = small_file(b'{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}}', b"xy")
    for data in (blob, bytearray(blob), memoryview(blob)):
        assert stguard.check(data).accepted
    assert stguard.check(b"").reason == "HEADER_TOO_SMALL"
    assert stguard.check(b"not a safetensors file at all").accepted is False
    assert stguard.check(os.urandom(4096)).accepted is False
    with pytest.raises(TypeError):
        stguard.check(memoryview(blob)[::2])


def test_unknown_profile():
    with pytest.raises(ValueError):
        stguard.check(EXAMPLE, profile="lenient")


def test_unreadable_paths_raise_oserror(tmp_path):
    with pytest.raises(FileNotFoundError):
        stguard.check(tmp_path / "missing.safetensors")
    with pytest.raises(IsADirectoryError):
        stguard.check(tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(OSError):  # not a regular file: refused without waiting for a writer
        stguard.check(fifo)
    with pytest.raises(OSError):
        stguard.check("/dev/zero")
    with pytest.raises(IsADirectoryError):
        stguard.inspect(tmp_path)
    with pytest.raises(FileNotFoundError):
        stguard.verify(tmp_path / "missing")
    with pytest.raises(NotADirectoryError):
        stguard.verify(EXAMPLE)


def test_inspect_example():
    h = stguard.inspect(EXAMPLE)
    assert [(t.name, t.dtype, t.shape, t.data_offsets, t.absolute) for t in h.tensors] == [
        ("a", "F32", (2,), (0, 8), (120, 128)),
        ("b", "I64", (1,), (8, 16), (128, 136)),
    ]
    assert h["b"].nbytes == 8
    assert h.data_offset == 120 and h.verdict.accepted


def test_inspect_metadata_and_lints(tmp_path):
    # Unpadded header (8 + N not a multiple of 8) and data out of canonical order.
    header = (b'{"__metadata__":{"format":"pt"},'
              b'"z":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},'
              b'"a":{"dtype":"F32","shape":[1],"data_offsets":[1,5]}}')
    p = tmp_path / "x.safetensors"
    p.write_bytes(small_file(header, b"\x00" * 5))
    h = stguard.inspect(p)
    assert h.metadata == {"format": "pt"}
    codes = {lint.code for lint in h.lints}
    assert "HEADER_NOT_ALIGNED" in codes and "NON_CANONICAL_ORDER" in codes
    assert stguard.inspect(EXAMPLE).metadata is None


def test_inspect_rejected_file(source):
    with pytest.raises(stguard.RejectedError) as e:
        stguard.inspect(source / "corpus" / "layout" / "gap-between.safetensors")
    assert e.value.verdict.reason == "OFFSET_GAP"
    assert isinstance(e.value, ValueError)


def test_inspect_every_accepted_case_matches_manifest():
    for case in stguard.corpus.cases():
        if case.strict != "accept":
            continue
        h = stguard.inspect(case.path)
        got = [(t.name, t.dtype, list(t.shape), list(t.data_offsets)) for t in h.tensors]
        want = [(t["name"], t["dtype"], t["shape"], t["data_offsets"]) for t in case.tensors]
        assert sorted(got) == sorted(want), case.id


def test_verify_folder(tmp_path):
    good = tmp_path / "model.safetensors"
    good.write_bytes(EXAMPLE.read_bytes())
    r = stguard.verify(tmp_path, jobs=1)
    assert r.ok and r.exit_code == 0 and r.findings == ()
    digest = hashlib.sha256(b"other").hexdigest()
    (tmp_path / "SHA256SUMS").write_text(f"{digest}  model.safetensors\n")
    r = stguard.verify(tmp_path, scan_values=True)
    assert not r.ok and r.exit_code == 1
    assert "checksum_mismatch" in [f.kind for f in r.findings]
    f = next(f for f in r.findings if f.kind == "checksum_mismatch")
    assert f.severity == "error" and f.file == "model.safetensors"
    assert r.data["ok"] is False
    with pytest.raises(ValueError):
        stguard.verify(tmp_path, jobs=0)


def test_corpus_filters():
    layout = list(stguard.corpus.cases(groups=["layout"]))
    assert layout and all(c.group == "layout" for c in layout)
    happy = list(stguard.corpus.cases(tags=["happy-path"]))
    assert happy and all("happy-path" in c.tags for c in happy)
    assert all(c.path.is_file() for c in stguard.corpus.cases())


def test_corpus_data_dir_lookup(tmp_path, monkeypatch):
    with pytest.raises(FileNotFoundError):
        list(stguard.corpus.cases(data_dir=tmp_path))
    monkeypatch.setenv("STGUARD_DATA_DIR", str(tmp_path))
    with pytest.raises(FileNotFoundError):
        list(stguard.corpus.cases())
    monkeypatch.setenv("STGUARD_DATA_DIR", str(SOURCE))
    assert list(stguard.corpus.cases(groups=["layout"]))


def test_threads_check_at_once():
    paths = [c.path for c in stguard.corpus.cases()]
    expected = [stguard.check(p) for p in paths]
    results: dict[int, list[stguard.Verdict]] = {}

    def work(i: int) -> None:
        results[i] = [stguard.check(p) for p in paths]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r == expected for r in results.values())


def test_corpus_is_reached_from_the_package_alone():
    # `import stguard` then `stguard.corpus`, without importing the submodule
    # by name: the lazy attribute must import it, not recurse.
    import subprocess
    import sys

    code = "import stguard; print(sum(1 for _ in stguard.corpus.cases()))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout) > 400


def test_check_of_a_url_gives_the_local_verdict(source):
    """A server that ignores Range (Python's own http.server sends the whole
    file with a Content-Length): the header is read from the front of the
    body, and the verdicts are the local ones."""
    import functools
    import http.server

    corpus = source / "corpus"
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(corpus))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/"
        for name in ("layout/gap-between.safetensors", "dtypes/f32.safetensors",
                     "length-prefix/empty-file.safetensors"):
            path = corpus / name
            if not path.exists():
                continue
            for profile in ("strict", "reference"):
                assert stguard.check(base + name, profile=profile) == stguard.check(path, profile=profile)
        with pytest.raises(OSError, match="HTTP 404"):
            stguard.check(base + "no-such-file.safetensors")
    finally:
        server.shutdown()
        server.server_close()
    with pytest.raises(ValueError, match="names a repository"):
        stguard.check("hf://org/model")
