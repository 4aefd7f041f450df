"""python3 -m stguard hunt: the command's hunt with the reader in a worker."""

from __future__ import annotations

import json
import subprocess
import sys

import stguard._drive

from conftest import EXAMPLE_READER_DIR


def test_hunt_finds_the_naive_readers_bugs(tmp_path):
    out = tmp_path / "hunt"
    done = subprocess.run(
        [sys.executable, "-m", "stguard", "hunt", "minimal_reader:answer", "--name", "naive",
         "--runs", "200", "--seed", "7", "-j", "1", "--minimise-runs", "10", "--out", str(out)],
        cwd=EXAMPLE_READER_DIR, env=stguard._drive.worker_env(), capture_output=True, text=True)
    assert done.returncode in (0, 1), done.stderr
    findings = [json.loads(line) for line in (out / "findings.jsonl").read_text().splitlines()]
    assert findings, done.stdout
    assert any(f.get("kind") == "accepts-invalid" for f in findings), findings[0]
