"""A pytest plugin: one test per corpus case for a Python reader.

    pytest -p stguard.pytest_plugin --stguard-reader mypkg.reader:answer \\
        [--stguard-expectations known-failures.txt] [--stguard-case 'layout/*']

(With the package installed, the `pytest11` entry point makes `-p` needless.)
Each test is named by its case id and fails with the runner's grade and the
reader's message; a failure listed in the expectations file
(docs/adapter-protocol.md, "Expectation files") is an xfail, and a listed
failure that passes fails as XPASS. The grading is one `stguard conform` run
over the whole corpus, made when the first case test runs, with the reader
in a worker process (stguard._worker), never in pytest's.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest

from . import _drive

_GRADES_KEY = "_stguard_grades"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("stguard", "grading a safetensors reader against the stguard corpus")
    group.addoption("--stguard-reader", metavar="MODULE:FUNCTION",
                    help="the reader function to grade: one test per corpus case")
    group.addoption("--stguard-expectations", metavar="FILE",
                    help="known failures (stguard conform --expectations): they are xfail")
    group.addoption("--stguard-case", metavar="GLOB", action="append", default=[],
                    help="only the cases matching GLOB (repeatable)")
    group.addoption("--stguard-data-dir", metavar="DIR", help="stguard's data directory")


def _selected_cases(config: pytest.Config) -> list[str]:
    from fnmatch import fnmatchcase

    from .corpus import cases

    globs = config.getoption("stguard_case")
    ids = [c.id for c in cases(data_dir=config.getoption("stguard_data_dir"))]
    return [i for i in ids if not globs or any(fnmatchcase(i, g) for g in globs)]


class StguardCorpus(pytest.Collector):
    def collect(self) -> list[pytest.Item]:
        return [StguardCase.from_parent(self, name=case_id) for case_id in _selected_cases(self.config)]


class StguardCase(pytest.Item):
    def runtest(self) -> None:
        result = _grades(self.config).get(self.name)
        if result is None:
            raise StguardFailure(f"{self.name}: the run graded no such case")
        # "expectation" is the runner's judgement against the expectations
        # file: XFAIL (a listed failure), XPASS (listed, but passes), or
        # absent.
        expectation = result.get("expectation")
        message = _describe(result)
        if expectation == "XFAIL":
            pytest.xfail(message)
        if expectation == "XPASS":
            raise StguardFailure(f"XPASS: listed as an expected failure, but passes; {message}")
        if result.get("grade") != "PASS":
            raise StguardFailure(message)

    def repr_failure(self, excinfo: Any, style: Any = None) -> str:
        if isinstance(excinfo.value, StguardFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[str, int, str]:
        return "stguard corpus", 0, f"case {self.name}"


class StguardFailure(Exception):
    pass


def _describe(result: dict[str, Any]) -> str:
    """The grade, what the runner saw, and the reader's own message."""
    text = str(result.get("grade", "?"))
    if result.get("detail"):
        text += f": {result['detail']}"
    if result.get("error"):
        text += f"; the reader said: {result['error']}"
    return text


def _grades(config: pytest.Config) -> dict[str, dict[str, Any]]:
    """The runner's grade of every selected case, from one conform run."""
    cached = getattr(config, _GRADES_KEY, None)
    if cached is not None:
        return cached
    spec = config.getoption("stguard_reader")
    out = Path(tempfile.mkdtemp(prefix="stguard-pytest-"))
    args = ["--jsonl", str(out / "results.jsonl")]
    for glob in config.getoption("stguard_case"):
        args += ["--case", glob]
    if config.getoption("stguard_expectations"):
        args += ["--expectations", str(Path(config.getoption("stguard_expectations")).resolve())]
    done = _drive.run("conform", spec, args, data=config.getoption("stguard_data_dir"), capture=True)
    if done.returncode not in (0, 1):
        raise pytest.UsageError(f"stguard conform could not grade {spec}: {done.stderr.strip()}")
    grades: dict[str, dict[str, Any]] = {}
    with open(out / "results.jsonl", encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            if "case" in record:
                grades[record["case"]] = record
    setattr(config, _GRADES_KEY, grades)
    return grades


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Any:
    # The corpus joins what the session collects from its arguments, so its
    # tests are collected, counted and selected (-k, --deselect) as any other.
    outcome = yield
    if not isinstance(collector, pytest.Session) or not collector.config.getoption("stguard_reader"):
        return
    report = outcome.get_result()
    if report.passed and report.result is not None:
        report.result.append(StguardCorpus.from_parent(collector, name="stguard-corpus",
                                                       nodeid="stguard-corpus"))
