"""Example tests: the examples as parameters (the run's compile cache: tests/conftest.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # example_files, whatever pytest's import mode
# the sm90 GEMM tests' shared harness (tests/hopper/sm90_harness.py, with narrow_floats)
sys.path.append(str(Path(__file__).parents[1] / "hopper"))
