"""Fuzz tests: the helper modules on the path, a private compile cache, and hypothesis settings.

``LAYOUTC_FUZZ_EXAMPLES=N`` replaces every test's example count with N
(for long local runs: ``LAYOUTC_FUZZ_EXAMPLES=2000 pytest tests/fuzz``); under ``CI=true`` the
examples are derandomized, so CI runs the same programs every time.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # fuzz_* helpers, whatever pytest's import mode


@pytest.fixture(scope="session", autouse=True)
def private_cache(tmp_path_factory):
    """Never the user's ~/.cache/layoutc, and no dumps or remarks on stderr."""
    from layoutc.driver import cache

    mp = pytest.MonkeyPatch()
    directory = tmp_path_factory.mktemp("layoutc-fuzz-cache")
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
