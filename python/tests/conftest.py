"""Shared fixtures: the source tree, and the example reader's folder on sys.path."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import stguard._paths

SOURCE = Path(stguard._paths.data_dir())
EXAMPLE_READER_DIR = SOURCE / "conformance" / "adapters" / "example"
HERE = Path(__file__).resolve().parent
for p in (str(EXAMPLE_READER_DIR), str(HERE)):
    if p not in sys.path:
        sys.path.insert(0, p)


@pytest.fixture
def source() -> Path:
    return SOURCE
