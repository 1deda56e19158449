"""Traced modules are ordinary IR: they print and parse back identically (custom and generic
forms, with locations), verify, survive canonicalize + cse, and xDSL accepts their generic form."""

from __future__ import annotations

import numpy as np
import pytest
import test_algorithms as ta
import test_control_flow as tc
import test_tensors as tt
from layoutc.ir.core import parse, print_op
from layoutc.passes import run_pipeline

CASES = {
    "copy": (ta.block_copy, (ta.VEC, ta.VEC), 256),
    "copy_if": (ta.ragged_tail, (np.zeros(4000, np.float32), np.zeros(4000, np.float32)), 256),
    "cp_async": (ta.async_stage, (ta.VEC,), 256),
    "tiled_mma": (ta.mma_gemm, (), 128),
    "indexing": (tt.indexing, (tt.X,), 128),
    "scf_for": (tc.carried, (64,), 128),
    "scf_while": (tc.dyn_while, (1000,), 128),
    "scf_if": (tc.dyn_if, (10,), 128),
}


def traced(name: str):
    kernel, args, block = CASES[name]
    return kernel.trace(kernel.specialize(*args, block=block))[0]


@pytest.mark.parametrize("name", sorted(CASES))
def test_traced_modules_round_trip_and_canonicalize(name):
    module = traced(name)
    for generic in (False, True):
        text = print_op(module, generic=generic, debug_info=True)
        assert print_op(parse(text), generic=generic, debug_info=True) == text
    module.verify()
    assert run_pipeline(module, "builtin.module(canonicalize, cse)")
    module.verify()


def test_xdsl_accepts_the_generic_form():
    pytest.importorskip("xdsl")
    from xdsl.context import Context
    from xdsl.dialects import get_all_dialects
    from xdsl.parser import Parser

    xctx = Context(allow_unregistered=True)
    for name, factory in get_all_dialects().items():
        xctx.register_dialect(name, factory)
    for name in ("scf_for", "scf_while", "scf_if", "copy_if"):
        Parser(xctx, print_op(traced(name), generic=True)).parse_module().verify()
