"""lc.fma (the math dialect's ``math.fma``): ``a * b + c`` rounded once, on the CPU runtime
against an exact reference (inputs whose exact result fits a float64, so rounding that to f32
rounds once) and unlike the twice-rounded ``a * b + c``; the PTX for sm_80 and sm_90a has
``fma.rn.f32`` (LLVM's NVPTX back end does not contract a written-out ``a * b + c``); Python
numbers stay static; misuse is a diagnostic at the call."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from layoutc.codegen.cubin import nvjitlink_version


@lc.kernel
def fma_and_pair(a: lc.Tensor, b: lc.Tensor, c: lc.Tensor, y: lc.Tensor, z: lc.Tensor):
    i = lc.block_idx.x * lc.block_dim.x + lc.thread_idx.x
    if i < lc.size(a, 0):
        y[i] = lc.fma(a[i], b[i], c[i])
        z[i] = a[i] * b[i] + c[i]


def _inputs(n: int = 4096):
    rng = np.random.default_rng(3)
    # |a|, |b| in [1, 2), |c| in [1, 4): a * b + c is exact in float64 (48-bit products and
    # exponents within 3 of each other), so np.float32 of it is the once-rounded result
    a, b = (rng.uniform(1, 2, n) * rng.choice([-1, 1], n) for _ in range(2))
    c = rng.uniform(1, 4, n) * rng.choice([-1, 1], n)
    return tuple(x.astype(np.float32) for x in (a, b, c))


def test_fma_on_the_cpu_rounds_once():
    a, b, c = _inputs()
    y, z = np.full_like(a, 7.0), np.full_like(a, 7.0)
    ck = lc.compile(fma_and_pair, a, b, c, y, z, block=128, target="cpu", cache=False)
    ck(a, b, c, y, z, grid=a.size // 128, block=128)
    exact = a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)
    assert np.array_equal(y, exact.astype(np.float32))
    assert np.array_equal(z, (a * b) + c)  # two roundings (numpy's f32 arithmetic)
    assert (y != z).sum() > a.size // 10  # the fused result differs often


@pytest.mark.skipif(nvjitlink_version() is None, reason="nvJitLink not installed")
@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_ptx_has_fma_rn(arch):
    x = np.zeros(256, np.float32)
    ck = lc.compile(fma_and_pair, x, x, x, x, x, block=128, target=arch, cache=False)
    assert "fma.rn.f32" in ck.ptx and ck.cubin


def test_static_numbers_stay_static_and_f64_is_fused_too():
    @lc.kernel
    def k(x: lc.Tensor, y: lc.Tensor):
        y[0] = lc.fma(3.0, 0.5, 1)  # static: 2.5
        y[1] = lc.fma(x[0], x[1], x[2])

    x = np.array([1 + 2.0**-30, 1 - 2.0**-30, -1.0], np.float64)
    y = np.zeros(2, np.float64)
    ck = lc.compile(k, x, y, block=1, target="cpu", cache=False)
    ck(x, y, grid=1, block=1)
    assert y[0] == 2.5
    assert y[1] == -(2.0**-60)  # the product's low bits, which a*b+c in f64 loses


def test_misuse_is_a_diagnostic_at_the_call():
    x = np.zeros(4, np.float32)

    @lc.kernel
    def on_int(y: lc.Tensor):
        y[0] = lc.fma(lc.thread_idx.x, y[0], y[0])

    @lc.kernel
    def on_f16(y: lc.Tensor):
        h = y[0].to(lc.f16)
        y[0] = lc.fma(h, h, h).to(lc.f32)

    @lc.kernel
    def mixed(y: lc.Tensor):
        y[0] = lc.fma(y[0], y[0].to(lc.f64), 1.0).to(lc.f32)

    @lc.kernel
    def on_bool(y: lc.Tensor):
        y[0] = lc.fma(True, y[0], y[0])

    for body, match in (
        (on_int, r"lc.fma takes f32 or f64 values, got (i32|index)"),
        (on_f16, r"lc.fma takes f32 or f64 values, got f16"),
        (mixed, r"lc.fma takes operands of one type, got f32 and f64"),
        (on_bool, r"lc.fma takes floating-point values, got"),
    ):
        with pytest.raises(lc.CompileError, match=match):
            lc.compile(body, x, block=32, target="cpu", cache=False)
