"""The extension module, wherever it was built.

Installed, `_stguard` sits inside the package; in a build tree the package's
files are copied beside it (python/CMakeLists.txt), so both are one import.
"""

from ._stguard import (  # noqa: F401  (re-exported)
    check_bytes,
    check_fd,
    check_url,
    inspect_fd,
    verify_json,
)
