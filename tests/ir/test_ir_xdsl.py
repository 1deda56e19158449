"""Everything layoutc prints in the generic form is accepted (parsed and verified) by xDSL."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ir_corpus import ALL
from ir_gen import random_module
from ir_helpers import ctx, examples
from layoutc.ir.core import parse

xdsl = pytest.importorskip("xdsl", reason="xdsl is not installed (pip install xdsl)")


@pytest.fixture(scope="module")
def xdsl_parse():
    from xdsl.context import Context
    from xdsl.dialects import get_all_dialects
    from xdsl.parser import Parser

    xctx = Context(allow_unregistered=True)
    for name, factory in get_all_dialects().items():
        xctx.register_dialect(name, factory)

    def run(text: str) -> None:
        module = Parser(xctx, text).parse_module()
        module.verify()

    return run


@pytest.mark.parametrize("name", sorted(ALL))
def test_corpus_generic_form_is_accepted_by_xdsl(name: str, xdsl_parse) -> None:
    xdsl_parse(parse(ALL[name], ctx()).to_text(generic=True))


@examples(25)
@given(seed=st.integers(0, 2**32))
def test_random_programs_generic_form_is_accepted_by_xdsl(seed: int, xdsl_parse) -> None:
    module = random_module(seed)
    module.verify()
    xdsl_parse(module.to_text(generic=True))


def test_xdsl_opt_cli_accepts_generic_output(tmp_path) -> None:
    exe = shutil.which("xdsl-opt") or shutil.which(
        "xdsl-opt", path=str(Path(sys.executable).parent)
    )
    if exe is None:
        pytest.skip("xdsl-opt executable not found")
    path = tmp_path / "in.mlir"
    path.write_text(parse(ALL["scf"], ctx()).to_text(generic=True) + "\n")
    proc = subprocess.run(
        [exe, "--allow-unregistered-dialect", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "scf.for" in proc.stdout
