"""Hostile-input regression tests: the runtime test helpers (fake driver, hand-written kernels)
and the driver's test kernels on the path, and a private compile cache."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).parent.parent
for folder in ("runtime", "driver"):
    sys.path.insert(0, str(TESTS / folder))


@pytest.fixture(autouse=True)
def private_cache(private_compile_cache):
    return private_compile_cache
