"""Run the FileCheck (lit) suite under tests/lit from pytest, one pytest test per lit test.

lit runs once per session (in parallel) and writes a JUnit report; each test below checks its
own entry, so failures show up with lit's output under the right name. Tools resolve through
this interpreter (see tests/lit/lit.cfg.py), so no PATH setup is needed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

LIT_ROOT = Path(__file__).parent / "lit"
SKIPPED_DIRS = {"Output", "Inputs"}


def _lit_tests() -> list[str]:
    found = []
    for path in sorted(LIT_ROOT.rglob("*.mlir")):
        rel = path.relative_to(LIT_ROOT)
        if not SKIPPED_DIRS.intersection(rel.parts):
            found.append(rel.as_posix())
    return found


@pytest.fixture(scope="session")
def lit_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str | None]:
    """Run lit on the whole suite; map each test path to None (passed) or its failure text."""
    report = tmp_path_factory.mktemp("lit") / "report.xml"
    workers = str(max(1, os.cpu_count() or 1))
    runner = "import sys; from lit.main import main; sys.exit(main())"
    cmd = [sys.executable, "-c", runner, "-q", "-j", workers, f"--xunit-xml-output={report}"]
    # The whole lit suite takes about a minute on two idle cores; the generous limit only
    # stops a hang, since a loaded machine (xdist workers, other jobs) can take ten times as long.
    proc = subprocess.run(
        [*cmd, str(LIT_ROOT)], capture_output=True, text=True, timeout=2400, check=False
    )
    if not report.exists():
        pytest.fail(f"lit did not run:\n{proc.stdout}\n{proc.stderr}")
    results: dict[str, str | None] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        # classname "layoutc.<dir>.<subdir>", name "<file>.mlir"
        folder = case.get("classname", "").partition(".")[2].replace(".", "/")
        name = f"{folder}/{case.get('name', '')}" if folder else case.get("name", "")
        failure = case.find("failure")
        results[name] = None if failure is None else (failure.text or "failed")
        if case.find("skipped") is not None:
            results[name] = None
    return results


@pytest.mark.parametrize("test", _lit_tests())
def test_lit(test: str, lit_results: dict[str, str | None]) -> None:
    assert test in lit_results, f"lit did not report {test}"
    failure = lit_results[test]
    if failure is not None:
        pytest.fail(f"lit test {test} failed:\n{failure}", pytrace=False)
