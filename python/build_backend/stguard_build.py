"""The PEP 517 build backend of `pip install .`: CMake builds, this packs.

Standard library only, so that `pip install --no-build-isolation .` works
with Debian's pip and no package index. build_wheel configures the preset
`python` in build/pip (the interpreter running pip is the one built for),
builds it, installs it into a staging prefix, and packs into one wheel what
a venv needs: the package (site-packages/stguard), the command
(.data/scripts/stguard, so VENV/bin/stguard) and the data directory
(.data/data/share/stguard, so VENV/share/stguard), which is where the
package looks beside its own prefix (python/stguard/_paths.py).

Environment: STGUARD_BUILD_JOBS (default: the number of CPUs).
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import re
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[2]
_NAME = "stguard"


def _version() -> str:
    text = (_ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    match = re.search(r"project\(stguard\s+VERSION\s+([0-9.]+)", text)
    if not match:
        raise RuntimeError("no project version in CMakeLists.txt")
    return match.group(1)


def _tag() -> str:
    impl = f"cp{sys.version_info.major}{sys.version_info.minor}"
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{impl}-{impl}-{platform}"


def _metadata(version: str) -> str:
    template = (_ROOT / "python" / "dist-info" / "METADATA.in").read_text(encoding="utf-8")
    return template.replace("@PROJECT_VERSION@", version)


def _run(argv: list[str]) -> None:
    print("stguard build:", " ".join(argv), file=sys.stderr, flush=True)
    subprocess.run(argv, cwd=_ROOT, check=True, stdout=sys.stderr)


def _dist_info_files(version: str) -> dict[str, bytes]:
    return {
        "METADATA": _metadata(version).encode(),
        "WHEEL": (f"Wheel-Version: 1.0\nGenerator: stguard_build {version}\n"
                  f"Root-Is-Purelib: false\nTag: {_tag()}\n").encode(),
        "entry_points.txt": (_ROOT / "python" / "dist-info" / "entry_points.txt").read_bytes(),
        "top_level.txt": (_ROOT / "python" / "dist-info" / "top_level.txt").read_bytes(),
    }


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    version = _version()
    dist_info = Path(metadata_directory) / f"{_NAME}-{version}.dist-info"
    dist_info.mkdir(parents=True, exist_ok=True)
    for name, data in _dist_info_files(version).items():
        (dist_info / name).write_bytes(data)
    return dist_info.name


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    build_dir = _ROOT / "build" / "pip"
    jobs = os.environ.get("STGUARD_BUILD_JOBS", str(os.cpu_count() or 1))
    _run(["cmake", "--preset", "python", "-B", str(build_dir),
          f"-DPython3_EXECUTABLE={sys.executable}"])
    _run(["cmake", "--build", str(build_dir), "-j", jobs])
    with tempfile.TemporaryDirectory(prefix="stguard-wheel-") as stage_name:
        stage = Path(stage_name)
        _run(["cmake", "--install", str(build_dir), "--prefix", str(stage)])
        site = next(stage.glob("lib/python*/site-packages"))
        data = f"{_NAME}-{version}.data"
        entries: list[tuple[str, Path]] = []
        for f in sorted((site / _NAME).rglob("*")):
            if f.is_file() and "__pycache__" not in f.parts:
                entries.append((f.relative_to(site).as_posix(), f))
        entries.append((f"{data}/scripts/stguard", stage / "bin" / "stguard"))
        for f in sorted((stage / "share" / "stguard").rglob("*")):
            if f.is_file():
                entries.append((f"{data}/data/{f.relative_to(stage).as_posix()}", f))
        wheel_name = f"{_NAME}-{version}-{_tag()}.whl"
        wheel_path = Path(wheel_directory) / wheel_name
        record = io.StringIO()
        writer = csv.writer(record, lineterminator="\n")
        with zipfile.ZipFile(wheel_path, "w", compression=zipfile.ZIP_DEFLATED) as whl:
            for arcname, path in entries:
                content = path.read_bytes()
                info = zipfile.ZipInfo(arcname, date_time=(1980, 1, 1, 0, 0, 0))
                info.external_attr = (path.stat().st_mode & 0o777 | 0o100000) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                whl.writestr(info, content)
                writer.writerow([arcname, _record_hash(content), len(content)])
            dist_info = f"{_NAME}-{version}.dist-info"
            for name, content in _dist_info_files(version).items():
                whl.writestr(f"{dist_info}/{name}", content)
                writer.writerow([f"{dist_info}/{name}", _record_hash(content), len(content)])
            writer.writerow([f"{dist_info}/RECORD", "", ""])
            whl.writestr(f"{dist_info}/RECORD", record.getvalue())
    return wheel_name


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_sdist(sdist_directory, config_settings=None):
    raise RuntimeError("stguard has no sdist: build a wheel from the repository (docs/python.md)")


