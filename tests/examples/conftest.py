"""Example tests: a private compile cache per session, and the examples as parameters."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # example_files, whatever pytest's import mode


@pytest.fixture(scope="session", autouse=True)
def private_cache(tmp_path_factory):
    """Never the user's ~/.cache/layoutc; shared by the session (CPU runs reuse GPU-free builds)."""
    from layoutc.driver import cache

    mp = pytest.MonkeyPatch()
    directory = tmp_path_factory.mktemp("layoutc-cache")
    mp.setenv("LAYOUTC_CACHE_DIR", str(directory))
    for name in (
        "LAYOUTC_DUMP_DIR",
        "LAYOUTC_PRINT_IR_AFTER_ALL",
        "LAYOUTC_REMARKS",
        "LAYOUTC_TARGET",
    ):
        mp.delenv(name, raising=False)
    mp.setattr(cache, "_default", cache.CompileCache(directory))
    yield directory
    mp.undo()
