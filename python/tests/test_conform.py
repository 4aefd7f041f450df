"""python3 -m stguard conform: the same grades as the reader as an adapter,
and a grade, never a crash of the caller, for readers that misbehave."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import stguard._drive
import stguard._paths

from conftest import EXAMPLE_READER_DIR, HERE


def results(path: Path) -> dict[str, dict]:
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if "case" in record:
            out[record["case"]] = record
    return out


# Groups of the corpus in which the naive reader both passes and fails, with
# accepted files whose tensors are compared: enough for the two ways of
# grading to disagree if they can, at a fifth of the corpus's cost.
GROUPS = ["layout/*", "dtypes/*", "json-syntax/*", "metadata/*"]


def test_grades_equal_the_adapters_case_by_case(tmp_path, monkeypatch):
    monkeypatch.chdir(EXAMPLE_READER_DIR)
    cases = [word for group in GROUPS for word in ("--case", group)]
    in_process = subprocess.run(
        [sys.executable, "-m", "stguard", "conform", "minimal_reader:answer", "--name", "naive",
         "--out-dir", str(tmp_path / "py"), "-j", "2", *cases],
        env=stguard._drive.worker_env(), capture_output=True, text=True)
    assert in_process.returncode == 1, in_process.stderr  # the naive reader fails cases
    adapter = subprocess.run(
        [str(stguard._paths.executable()), "conform", "--adapter",
         f"{sys.executable} {EXAMPLE_READER_DIR / 'minimal_reader.py'}", "--name", "naive",
         "--out-dir", str(tmp_path / "adapter"), "-j", "2", *cases],
        env=stguard._drive.worker_env(), capture_output=True, text=True)
    assert adapter.returncode == 1, adapter.stderr
    py = results(tmp_path / "py" / "results.jsonl")
    ad = results(tmp_path / "adapter" / "results.jsonl")
    assert len(py) > 150 and py.keys() == ad.keys()
    grades = {record["grade"] for record in py.values()}
    assert "PASS" in grades and len(grades) > 1, grades
    for case in py:
        assert py[case]["grade"] == ad[case]["grade"], case
    for name in ("summary.txt", "results.jsonl", "junit.xml", "matrix.html"):
        assert (tmp_path / "py" / name).is_file()


def grade_of(reader: str, tmp_path: Path, *extra: str) -> dict[str, dict]:
    done = stguard._drive.run(
        "conform", reader,
        ["--case", "layout/gap-between", "--case", "dtypes/all-22-canonical",
         "--jsonl", str(tmp_path / "r.jsonl"), "-j", "1", *extra],
        capture=True)
    assert done.returncode in (0, 1), done.stderr
    return results(tmp_path / "r.jsonl")


@pytest.mark.parametrize("reader,grade_valid", [
    ("bad_readers:segfault", "CRASH"),
    ("bad_readers:exits", "CRASH"),
    ("bad_readers:returns_garbage", "PROTOCOL_ERROR"),
    ("bad_readers:returns_list", "PROTOCOL_ERROR"),
    ("bad_readers:returns_nan", "PROTOCOL_ERROR"),
    ("bad_readers:raises_odd", "FAIL_SHOULD_ACCEPT"),
    ("bad_readers:raises_system_exit", "FAIL_SHOULD_ACCEPT"),
    ("bad_readers:prints_to_stdout", "FAIL_SHOULD_ACCEPT"),
    ("bad_readers:no_such_function", "CRASH"),
])
def test_misbehaving_readers_are_graded(reader, grade_valid, tmp_path, monkeypatch):
    monkeypatch.chdir(HERE)
    graded = grade_of(reader, tmp_path)
    assert graded["dtypes/all-22-canonical"]["grade"] == grade_valid
    # A rejecting reader passes the invalid case; a broken one still gets a grade.
    assert graded["layout/gap-between"]["grade"] in ("PASS", grade_valid)


def test_hang_is_a_timeout(tmp_path, monkeypatch):
    monkeypatch.chdir(HERE)
    graded = grade_of("bad_readers:hangs", tmp_path, "--timeout", "1")
    assert {r["grade"] for r in graded.values()} == {"TIMEOUT"}


def test_usage_errors():
    done = subprocess.run([sys.executable, "-m", "stguard", "conform"], capture_output=True, text=True,
                          env=stguard._drive.worker_env())
    assert done.returncode == 2 and "MODULE:FUNCTION" in done.stderr
