"""A compiled kernel refuses calls whose arguments break what it was specialised on, instead of
computing a wrong result; calls that satisfy the facts run.

The facts travel in the runtime's KernelSpec (spec_facts.py) and the runtime's argument binder
checks them, so these tests bind through exactly what a CompiledKernel launches with."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from driver_kernels import SCALAR_PIPELINE, branchy, tensor_params, with_constant
from layoutc.driver.argspecs import build_spec
from layoutc.driver.requirements import check_call
from layoutc.driver.spec_facts import runtime_spec_with_facts
from layoutc.frontend.spec import SpecError
from layoutc.runtime.errors import ArgumentError
from layoutc.runtime.packing import ArgumentBinder


def aligned(n, dtype=np.float32, offset=0):
    """A 1-D array of ``n`` elements whose data starts ``offset`` elements past a 64-byte line."""
    raw = np.zeros(n + 64, dtype)
    start = (-raw.ctypes.data % 64) // raw.itemsize + offset
    return raw[start : start + n]


class Checked:
    """What a compiled kernel does before launching: constants here, the rest in the binder."""

    def __init__(self, *args, assume=None):
        if any(isinstance(a, lc.driver.ArgSpec) for a in args):
            self.spec = build_spec(tensor_params, args, {}, assume=assume)
        else:
            self.spec = tensor_params.specialize(*args)
        _, _, self.abi = tensor_params.trace(self.spec)
        self.binder = ArgumentBinder(runtime_spec_with_facts(self.spec, self.abi), "cpu")

    def __call__(self, *args):
        bound = tensor_params.signature.bind(*args).arguments
        check_call(self.spec, bound, "tensor_params")
        self.binder.bind(self.abi.call_arguments(bound))


def test_calls_matching_the_array_facts_run():
    ck = Checked(aligned(1024), aligned(1024), 8)
    ck(aligned(1024), aligned(1024), 8)
    ck(aligned(2048), aligned(2048), 16)  # other multiples of 16, other (equal) sizes


def test_arrays_equal_at_the_first_call_stay_equal():
    """Equal extents of unannotated arrays share one symbol (so a copy between them is
    provably in bounds); a call whose extents differ breaks that fact and is refused."""
    ck = Checked(aligned(1024), aligned(1024), 8)
    assert ck.abi.equal_carriers == (("src_shape0", "dst_shape0"),)
    with pytest.raises(ArgumentError, match="the kernel was compiled assuming they are equal"):
        ck(aligned(2048), aligned(64), 16)
    assert Checked(aligned(2048), aligned(64), 16).abi.equal_carriers == ()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: (aligned(1000), aligned(1024), 8),
            r"'src'\): dimension 0's extent 1000 is not a multiple of 16, but the kernel was "
            r"compiled assuming it is one \(compile the kernel for these arguments\)",
        ),
        (
            lambda: (aligned(1024, offset=1), aligned(1024), 8),
            r"'src'\): data pointer 0x[0-9a-f]+4 is not 16-byte aligned, but the kernel was "
            r'compiled for align=16 \(layoutc compile --spec "src=f32\[\(\?\):\(1\)\],align=4"',
        ),
        (
            lambda: (aligned(1024), aligned(1024), 4),
            r"'n'\): 4 is not a multiple of 8, but the kernel was compiled assuming n%8==0 "
            r'\(compile with --spec "n=i32,div=4" to relax\)',
        ),
        (lambda: (aligned(1024), aligned(1024), 2.5), r"'n'\): expected an integer"),
        (lambda: (aligned(1024), aligned(1024), True), r"'n'\): expected an integer.*got bool"),
        (lambda: (aligned(1024)[::2], aligned(1024), 8), "element stride 2, layout .* requires 1"),
        (lambda: (aligned(1024).reshape(32, 32), aligned(1024), 8), "has 1 modes but the array"),
    ],
)
def test_calls_breaking_a_fact_are_refused(call, message):
    ck = Checked(aligned(1024), aligned(1024), 8)
    with pytest.raises(ArgumentError, match=message):
        ck(*call())


def test_specs_shared_symbols_must_agree():
    ck = Checked(
        lc.spec("f32[(N):(1)],align=16"), lc.spec("f32[(N):(1)]"), lc.spec("i32"), assume="N%4==0"
    )
    ck(aligned(64), aligned(64), 3)
    with pytest.raises(
        ArgumentError,
        match=r"'dst'\): dimension 0's extent N = 32, but argument 0 \('src'\) has dimension "
        r"0's extent N = 64; the kernel was compiled assuming they are equal",
    ):
        ck(aligned(64), aligned(32), 3)
    with pytest.raises(ArgumentError, match=r"N = 6 is not a multiple of 4.*assuming N%4==0"):
        ck(aligned(6), aligned(6), 3)
    with pytest.raises(ArgumentError, match=r"compile with --assume \"N%2==0\" to relax"):
        ck(aligned(6), aligned(6), 3)
    with pytest.raises(ArgumentError, match=r"'dst'.*16-byte aligned"):  # the default alignment
        ck(aligned(64), aligned(64, offset=2), 3)
    ck_low = Checked(
        lc.spec("f32[(N):(1)]"), lc.spec("f32[(N):(1)]"), lc.spec("i32"), assume="N>=8"
    )
    with pytest.raises(ArgumentError, match=r"N = 4 is less than 8.*assuming N>=8"):
        ck_low(aligned(4), aligned(4), 3)


def test_empty_arrays_skip_the_alignment_check():
    ck = Checked(lc.spec("f32[(N):(1)]"), lc.spec("f32[(N):(1)]"), lc.spec("i32"))
    ck(aligned(16, offset=1)[:0], aligned(16, offset=3)[:0], 8)


def test_constants_are_checked_by_the_driver():
    spec = with_constant.specialize(3, 8)
    check_call(spec, {"n": 3, "scale": 8}, "with_constant")
    with pytest.raises(SpecError, match=r"compile-time constant 8.*got 4"):
        check_call(spec, {"n": 3, "scale": 4}, "with_constant")
    with pytest.raises(SpecError, match="missing argument 'scale'"):
        check_call(spec, {"n": 3}, "with_constant")


def test_compiled_kernel_refuses_with_a_spec_error():
    """End to end on the CPU: the runtime's refusal reaches the caller as layoutc.SpecError."""

    def compile_it():
        return lc.compile(
            tensor_params,
            lc.spec("f32[(N):(1)]"),
            lc.spec("f32[(N):(1)]"),
            lc.spec("i32,div=4"),
            target="cpu",
            block=32,
            assume="N%16==0",
        )

    first = compile_it()
    lc.driver.clear_memory_cache()
    ck = compile_it()  # from the on-disk cache: the facts come back with the code
    assert ck.cache_hit and ck.runtime_spec == first.runtime_spec
    spec = ck.runtime_spec
    assert [p.align for p in spec.arguments if p.kind == "pointer"] == [16, 16]
    assert spec.equal == (("src_shape0", "dst_shape0"),)
    ck(aligned(64), aligned(64), 8, grid=1)
    with pytest.raises(SpecError, match=r"'src'.*not 16-byte aligned"):
        ck(aligned(64, offset=1), aligned(64), 8, grid=1)
    with pytest.raises(SpecError, match="N = 40 is not a multiple of 16"):
        ck(aligned(40), aligned(40), 8, grid=1)
    with pytest.raises(SpecError, match=r"'n'.*6 is not a multiple of 4"):
        ck(aligned(64), aligned(64), 6, grid=1)


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
