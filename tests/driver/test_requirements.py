"""A compiled kernel refuses calls whose arguments break what it was specialised on, instead of
computing a wrong result; calls that satisfy the facts run."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from driver_kernels import SCALAR_PIPELINE, branchy, tensor_params
from layoutc.driver.argspecs import build_spec
from layoutc.driver.requirements import check_call
from layoutc.frontend.spec import SpecError


def aligned(n, dtype=np.float32, offset=0):
    """A 1-D array of ``n`` elements whose data starts ``offset`` elements past a 64-byte line."""
    raw = np.zeros(n + 64, dtype)
    start = (-raw.ctypes.data % 64) // raw.itemsize + offset
    return raw[start : start + n]


class Checked:
    """What a compiled kernel does before launching: check the call against its spec."""

    def __init__(self, *args, assume=None):
        if any(isinstance(a, lc.driver.ArgSpec) for a in args):
            self.spec = build_spec(tensor_params, args, {}, assume=assume)
        else:
            self.spec = tensor_params.specialize(*args)

    def __call__(self, *args):
        bound = tensor_params.signature.bind(*args).arguments
        check_call(self.spec, bound, "tensor_params")


def compile_for(*args, **kw):
    return Checked(*args, **kw)


def test_calls_matching_the_array_facts_run():
    ck = compile_for(aligned(1024), aligned(1024), 8)
    ck(aligned(1024), aligned(1024), 8)
    ck(aligned(2048), aligned(64), 16)  # other multiples of 16, other sizes


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: (aligned(1000), aligned(1024), 8), "extent of mode 0 of 'src'.* multiple of 16"),
        (lambda: (aligned(1024, offset=1), aligned(1024), 8), "not 16-byte aligned"),
        (lambda: (aligned(1024), aligned(1024), 4), "'n' = 4.*multiple of 8"),
        (lambda: (aligned(1024), aligned(1024), 2.5), "'n' must be an int"),
        (lambda: (aligned(1024)[::2], aligned(1024), 8), "stride 2.*needs 1"),
        (lambda: (aligned(1024).reshape(32, 32), aligned(1024), 8), "2 dimensions"),
    ],
)
def test_calls_breaking_a_fact_are_refused(call, message):
    ck = compile_for(aligned(1024), aligned(1024), 8)
    with pytest.raises(SpecError, match=message):
        ck(*call())


def test_specs_shared_symbols_must_agree():
    ck = compile_for(
        lc.spec("f32[(N):(1)],align=16"), lc.spec("f32[(N):(1)]"), lc.spec("i32"), assume="N%4==0"
    )
    ck(aligned(64), aligned(64), 3)
    with pytest.raises(SpecError, match=r"gives N = 32.*gave 64.*equal"):
        ck(aligned(64), aligned(32), 3)
    with pytest.raises(SpecError, match=r"N = 6.*multiple of 4"):
        ck(aligned(6), aligned(6), 3)
    with pytest.raises(SpecError, match="16-byte aligned"):
        ck(aligned(64, offset=2), aligned(64), 3)


def test_direct_calls_compile_per_spec(monkeypatch):
    """Calling the @kernel itself never needs the checks: each spec gets its own kernel."""
    monkeypatch.setenv("LAYOUTC_TARGET", "cpu")
    from layoutc.driver import jit

    monkeypatch.setattr(jit, "_DEFAULT_OPTIONS", jit.CompileOptions(pipeline=SCALAR_PIPELINE))
    branchy(16, grid=1, block=32)
    branchy(6, grid=2, block=32)
    assert len(jit._memo[branchy]) == 2  # n%16 and n%2 specialisations
    branchy(48, grid=1, block=32)
    assert len(jit._memo[branchy]) == 2  # the same spec as the first call
    branchy(48, grid=1, block=64)
    assert len(jit._memo[branchy]) == 3  # the block is static: part of the spec
    with pytest.raises(TypeError, match="give grid="):
        branchy(16, block=32)
