"""Example tests: a private compile cache per session, and the examples as parameters."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # example_files, whatever pytest's import mode


@pytest.fixture(scope="session", autouse=True)
def private_cache(private_compile_cache):
    """Shared by the session (CPU runs reuse GPU-free builds)."""
    return private_compile_cache
