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
def private_cache(private_compile_cache):
    """Never the user's ~/.cache/layoutc, and no dumps or remarks on stderr."""
    return private_compile_cache
