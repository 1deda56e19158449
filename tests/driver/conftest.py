"""Driver tests: every test gets its own on-disk compile cache and an empty in-memory cache."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(autouse=True)
def isolated_caches(tmp_path, monkeypatch):
    """A fresh cache directory per test (never the user's ~/.cache/layoutc)."""
    from layoutc.driver import cache, clear_memory_cache

    directory = tmp_path / "cache"
    monkeypatch.setenv("LAYOUTC_CACHE_DIR", str(directory))
    for name in (
        "LAYOUTC_DUMP_DIR",
        "LAYOUTC_PRINT_IR_AFTER_ALL",
        "LAYOUTC_REMARKS",
        "LAYOUTC_CACHE",
        "LAYOUTC_AUTOTUNE_PRINT",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(cache, "_default", cache.CompileCache(directory))
    clear_memory_cache()
    yield directory
    clear_memory_cache()
