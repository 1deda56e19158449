"""Law: canonicalize, cse and dce never change what a program computes.

Random straight-line i32 programs (every arith op kind the interpreter knows, comparisons,
selects, nested scf.if) run before and after each pipeline on random and boundary inputs;
an independent interpreter written from MLIR's spec is the oracle.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from layoutc.ir.core import Context, parse
from layoutc.passes import PassManager
from pass_helpers import arith_programs, examples, function, run_function

INPUTS = st.tuples(*[st.integers(0, 2**32 - 1) | st.sampled_from([0, 1, 2**31, 2**32 - 1])] * 3)


def _check(text: str, pipeline: str, inputs: list[tuple[int, int, int]]) -> None:
    ctx = Context()
    before = parse(text, ctx)
    after = parse(text, ctx)
    with ctx.diagnostics.collect() as diags:
        ok = PassManager.parse(pipeline, ctx).run(after)
    assert ok, [d.format() for d in diags]
    for args in inputs:
        expected = run_function(function(before), args)
        got = run_function(function(after), args)
        assert got == expected, f"{pipeline} changed the result for {args}:\n{text}\n{after}"


@examples(120)
@given(arith_programs(), st.lists(INPUTS, min_size=1, max_size=4))
def test_canonicalize_preserves_semantics(text: str, inputs) -> None:
    _check(text, "builtin.module(canonicalize)", inputs)


@examples(60)
@given(arith_programs(), st.lists(INPUTS, min_size=1, max_size=4))
def test_bottom_up_canonicalize_preserves_semantics(text: str, inputs) -> None:
    _check(text, "builtin.module(canonicalize{top-down=false})", inputs)


@examples(80)
@given(arith_programs(), st.lists(INPUTS, min_size=1, max_size=4))
def test_cse_and_dce_preserve_semantics(text: str, inputs) -> None:
    _check(text, "builtin.module(cse,dce)", inputs)
    _check(text, "builtin.module(func.func(canonicalize,cse),symbol-dce)", inputs)


@examples(60)
@given(arith_programs(max_ops=16))
def test_canonicalize_reaches_a_fixpoint(text: str) -> None:
    """Canonicalization converges, and canonicalizing its output changes nothing."""
    ctx = Context()
    module = parse(text, ctx)
    assert PassManager.parse("canonicalize{test-convergence=true}", ctx).run(module)
    once = module.to_text()
    assert PassManager.parse("canonicalize{test-convergence=true}", ctx).run(module)
    assert module.to_text() == once
