"""Everything ``layoutc-opt --print-generic`` prints for the lit inputs, before and after the
core passes, is accepted (parsed and verified) by xDSL, MLIR's Python reimplementation."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from layoutc.cli.opt import main, split_chunks

pytest.importorskip("xdsl", reason="xdsl is not installed (pip install xdsl)")

LIT = Path(__file__).parent.parent / "lit"
FILES = sorted(
    p.relative_to(LIT).as_posix()
    for d in ("dialects", "transforms", "opt")
    for p in (LIT / d).glob("*.mlir")
)
# xDSL 0.74 predates MLIR's scf.for `unsignedCmp` property; layoutc follows MLIR.
XDSL_GAPS = ("scf.for unsigned",)
PIPELINES = [None, "builtin.module(canonicalize,cse,dce)"]


@pytest.fixture(scope="module")
def xdsl_accepts():
    from xdsl.context import Context
    from xdsl.dialects import get_all_dialects
    from xdsl.parser import Parser

    ctx = Context(allow_unregistered=True)
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)

    def check(text: str) -> None:
        Parser(ctx, text).parse_module().verify()

    return check


def generic_outputs(path: Path, pipeline: str | None) -> list[str]:
    """Generic-form output of each chunk layoutc-opt accepts (invalid chunks are skipped)."""
    outputs = []
    for chunk, _ in split_chunks(path.read_text()):
        if any(gap in chunk for gap in XDSL_GAPS):
            continue
        out = io.StringIO()
        args = ["-", "--print-generic", "--allow-unregistered-dialect"]
        if pipeline:
            args += ["-p", pipeline]
        if main(args, stdin=io.StringIO(chunk), stdout=out, stderr=io.StringIO()) == 0:
            outputs.append(out.getvalue())
    return outputs


@pytest.mark.parametrize("pipeline", PIPELINES, ids=["parsed", "optimized"])
@pytest.mark.parametrize("name", FILES)
def test_generic_output_is_accepted_by_xdsl(name: str, pipeline: str | None, xdsl_accepts):
    outputs = generic_outputs(LIT / name, pipeline)
    if not name.split("/")[-1].startswith("invalid"):
        assert outputs, f"{name}: layoutc-opt accepted no chunk"
    for text in outputs:
        xdsl_accepts(text)
