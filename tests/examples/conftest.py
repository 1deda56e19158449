"""Example tests: a private compile cache per session, and the examples as parameters."""

from __future__ import annotations

from pathlib import Path

import pytest

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "examples"
EXAMPLE_FILES = sorted(EXAMPLES_DIR.glob("*.py"))


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


def load_examples(path: Path) -> list:
    from layoutc.driver.example import find_examples
    from layoutc.driver.loading import load_source

    return find_examples(vars(load_source(path)), str(path))
