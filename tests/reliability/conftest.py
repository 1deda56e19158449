"""Hostile-input regression tests: the runtime test helpers (fake driver, hand-written kernels)
and the driver's test kernels on the path (the run's compile cache: tests/conftest.py)."""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).parent.parent
for folder in ("runtime", "driver"):
    sys.path.insert(0, str(TESTS / folder))
