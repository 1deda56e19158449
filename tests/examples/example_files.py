"""The example files and how to load them (shared by the example tests)."""

from __future__ import annotations

from pathlib import Path

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "examples"
EXAMPLE_FILES = sorted(EXAMPLES_DIR.glob("*.py"))


def load_examples(path: Path) -> list:
    from layoutc.driver.example import find_examples
    from layoutc.driver.loading import load_source

    return find_examples(vars(load_source(path)), str(path))
