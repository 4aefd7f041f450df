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


def test_one_test_per_case(tmp_path):
    done = run_pytest(tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    # The README's figures for the naive reader on layout/*: 30 failing, 11 passing.
    assert "30 failed, 11 passed" in done.stdout, done.stdout
    assert "FAILED stguard-corpus::layout/alias-different-dtypes" in done.stdout
    assert "FAIL_SHOULD_REJECT" in done.stdout


def test_expectations_are_xfail(tmp_path):
    # The naive reader accepts every layout case: it fails exactly the invalid ones.
    invalid = [c.id for c in stguard.corpus.cases(groups=["layout"]) if c.strict == "reject"]
    assert len(invalid) == 30
    expectations = tmp_path / "known.txt"
    expectations.write_text("".join(f"{i}  FAIL_SHOULD_REJECT\n" for i in invalid))
    done = run_pytest(tmp_path, "--stguard-expectations", str(expectations))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "11 passed, 30 xfailed" in done.stdout, done.stdout


def test_listed_failure_that_passes_fails(tmp_path):
    expectations = tmp_path / "known.txt"
    expectations.write_text("layout/*  FAIL_SHOULD_REJECT\n")
    done = run_pytest(tmp_path, "--stguard-expectations", str(expectations))
    assert done.returncode == 1
    assert "11 failed, 30 xfailed" in done.stdout, done.stdout
    assert "XPASS: listed as an expected failure, but passes" in done.stdout
