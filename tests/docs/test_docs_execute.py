"""Every fenced block of README.md and docs/*.md, run as a reader would run it, one test per
block (``page:line``): shell sessions compared with what the tools print, Python blocks run in
one namespace per page with their shown outputs checked, MLIR through layoutc-opt. The
convention is in docs/conventions.md ("Executed docs"); the machinery in doc_blocks.py and
doc_runner.py."""

from __future__ import annotations

import pytest
from doc_blocks import all_blocks

BLOCKS = all_blocks()


def _param(block):
    marks = [pytest.mark.gpu] if block.gpu else []
    if block.mlir:
        marks.append(pytest.mark.mlir)
    return pytest.param(block, id=block.id, marks=marks)


@pytest.mark.parametrize("block", [_param(b) for b in BLOCKS])
def test_doc_block(block, doc_sessions):
    result = doc_sessions(block.page).result(block)
    if isinstance(result, BaseException):
        raise result
    if isinstance(result, str):
        pytest.skip(result)


def test_blocks_that_do_not_run_are_few_and_say_why():
    """``norun:`` is for the rare block that cannot run (it names why); everything else runs."""
    norun = [b for b in BLOCKS if b.norun is not None]
    assert all(b.norun for b in norun)
    assert len(norun) <= 0.1 * len([b for b in BLOCKS if b.lang != "text"]), [b.id for b in norun]
