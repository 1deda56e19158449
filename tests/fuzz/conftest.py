"""Fuzz tests: the helper modules on the path and hypothesis settings (the run's compile
cache: tests/conftest.py).

``LAYOUTC_FUZZ_EXAMPLES=N`` replaces every test's example count with N
(for long local runs: ``LAYOUTC_FUZZ_EXAMPLES=2000 pytest tests/fuzz``); under ``CI=true`` the
examples are derandomized, so CI runs the same programs every time.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # fuzz_* helpers, whatever pytest's import mode
