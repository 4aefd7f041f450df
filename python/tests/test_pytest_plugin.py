"""pytest --stguard-reader: one test per corpus case, expectations as xfail."""

from __future__ import annotations

import subprocess
import sys

import stguard._drive
import stguard.corpus

from conftest import EXAMPLE_READER_DIR


def run_pytest(tmp_path, *args):
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "stguard.pytest_plugin", "-p", "no:cacheprovider",
         "--stguard-reader", "minimal_reader:answer", "--stguard-case", "layout/*", "-rA", *args],
        cwd=EXAMPLE_READER_DIR, env=stguard._drive.worker_env(), capture_output=True, text=True)


def layout_cases():
    """(invalid, valid): the layout/* case ids the naive reader fails and passes.

    It accepts every file, so it fails exactly the cases strict rejects."""
    cases = list(stguard.corpus.cases(groups=["layout"]))
    invalid = [c.id for c in cases if c.strict == "reject"]
    return invalid, [c.id for c in cases if c.strict != "reject"]


def test_one_test_per_case(tmp_path):
    done = run_pytest(tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    invalid, valid = layout_cases()
    assert len(invalid) >= 30 and len(valid) >= 11
    assert f"{len(invalid)} failed, {len(valid)} passed" in done.stdout, done.stdout
    assert "FAILED stguard-corpus::layout/alias-different-dtypes" in done.stdout
    assert "FAIL_SHOULD_REJECT" in done.stdout


def test_expectations_are_xfail(tmp_path):
    # The naive reader accepts every layout case: it fails exactly the invalid ones.
    invalid, valid = layout_cases()
    expectations = tmp_path / "known.txt"
    expectations.write_text("".join(f"{i}  FAIL_SHOULD_REJECT\n" for i in invalid))
    done = run_pytest(tmp_path, "--stguard-expectations", str(expectations))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(valid)} passed, {len(invalid)} xfailed" in done.stdout, done.stdout


def test_listed_failure_that_passes_fails(tmp_path):
    expectations = tmp_path / "known.txt"
    expectations.write_text("layout/*  FAIL_SHOULD_REJECT\n")
    done = run_pytest(tmp_path, "--stguard-expectations", str(expectations))
    assert done.returncode == 1
    invalid, valid = layout_cases()
    assert f"{len(valid)} failed, {len(invalid)} xfailed" in done.stdout, done.stdout
    assert "XPASS: listed as an expected failure, but passes" in done.stdout
