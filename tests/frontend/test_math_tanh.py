"""lc.tanh (the math dialect's ``math.tanh``): accurate by default, the GPU's
``tanh.approx.f32`` with ``fastmath=True``. On the CPU runtime both are the rational
approximation (within 4e-7 of tanh, the GPU's afn bound holds a fortiori), against numpy; the
PTX for sm_80 and sm_90a has the MUFU instruction exactly where the flag allows it and
assembles; on a GPU (marked) the fast one is within the PTX ISA's relative bound; misuse is a
diagnostic at the call."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from layoutc.codegen.cubin import nvjitlink_version
from layoutc.passes.conversion import math_to_llvm as M

#: tanh.approx.f32's maximum relative error over the whole range (PTX ISA 9.1, "Floating Point
#: Instructions: tanh"; 2^-10.987 is the absolute bound of the .f16 form).
APPROX_REL = 2.0**-11
ACCURATE_ABS = 4e-7


@lc.kernel
def tanh_both(x: lc.Tensor, y: lc.Tensor, z: lc.Tensor, h: lc.Tensor):
    i = lc.block_idx.x * lc.block_dim.x + lc.thread_idx.x
    if i < lc.size(x, 0):
        y[i] = lc.tanh(x[i])
        z[i] = lc.tanh(x[i], fastmath=True)
        h[i] = lc.tanh(x[i].to(lc.f16), fastmath=True).to(lc.f32)


def _inputs():
    x = np.concatenate(
        [np.linspace(-12, 12, 20_001), np.geomspace(1e-12, 9.0, 2_000), [0.0, -0.0, 1e-39]]
    ).astype(np.float32)
    x = np.concatenate([x, -x[20_001:], np.array([np.inf, -np.inf, np.nan], np.float32)])
    return x


def _run(target):
    x = _inputs()
    y, z, h = (np.full_like(x, 7.0) for _ in range(3))
    ck = lc.compile(tanh_both, x, y, z, h, block=128, target=target, cache=False)
    ck(x, y, z, h, grid=(x.size + 127) // 128, block=128)
    return x, y, z, h


def test_the_rational_approximation_in_f32_is_within_4e_7_of_tanh():
    """The coefficients convert-to-llvm emits, evaluated in f32 in the same order (numpy)."""
    x = np.linspace(-12, 12, 200_001).astype(np.float32)
    c = np.clip(x, -M.TANH_CLAMP, M.TANH_CLAMP).astype(np.float32)
    c2 = c * c
    p, q = np.float32(0), np.float32(0)
    for k in reversed(M.TANH_P):
        p = p * c2 + np.float32(k)
    for k in reversed(M.TANH_Q):
        q = q * c2 + np.float32(k)
    t = np.where(c2 < np.float32(M.TANH_TINY**2), x, c * p / q)
    assert np.abs(t - np.tanh(x.astype(np.float64))).max() < ACCURATE_ABS


def test_tanh_on_the_cpu_matches_numpy():
    x, y, z, h = _run("cpu")
    ref = np.tanh(x.astype(np.float64))
    finite = ~np.isnan(x)
    assert np.abs(y - ref)[finite].max() < ACCURATE_ABS
    # fastmath=True: the CPU computes the accurate tanh, within the GPU's bound
    assert np.array_equal(y[finite], z[finite])
    assert (np.abs(z - ref)[finite] <= APPROX_REL * np.abs(ref)[finite] + 1e-45).all()
    assert np.isnan(y[~finite]).all() and np.isnan(z[~finite]).all()
    assert y[x == np.inf][0] == 1.0 and y[x == -np.inf][0] == -1.0
    assert np.array_equal(np.signbit(y[x == 0]), np.signbit(x[x == 0]))  # tanh(-0) = -0
    # f16 in, f16 out: one rounding of the f32 tanh
    ref16 = np.tanh(x.astype(np.float16).astype(np.float64))
    assert np.abs(h - ref16)[finite].max() <= 2.0**-11


def test_static_numbers_stay_static():
    import math

    @lc.kernel
    def k(y: lc.Tensor):
        y[0] = lc.tanh(0.5) + lc.tanh(1, fastmath=True)

    y = np.zeros(1, np.float32)
    ck = lc.compile(k, y, block=1, target="cpu", cache=False)
    ck(y, grid=1, block=1)
    assert y[0] == np.float32(math.tanh(0.5) + math.tanh(1))


@pytest.mark.skipif(nvjitlink_version() is None, reason="nvJitLink not installed")
@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_ptx_has_tanh_approx_exactly_where_fastmath_allows_it(arch):
    x = np.zeros(256, np.float32)
    ck = lc.compile(tanh_both, x, x, x, x, block=128, target=arch, cache=False)
    approx = [line for line in ck.ptx.splitlines() if "tanh.approx.f32" in line]
    assert len(approx) == 2, approx  # z's and h's (the f16 one computed in f32); not y's
    assert "div.rn.f32" in ck.ptx  # y: the rational approximation's IEEE division
    assert ".local" not in ck.ptx and ck.cubin


def _refused(body, match):
    x = np.zeros(4, np.float32)
    with pytest.raises(lc.CompileError, match=match):
        lc.compile(body, x, block=32, target="cpu", cache=False)


def test_misuse_is_a_diagnostic_at_the_call():
    @lc.kernel
    def on_int(y: lc.Tensor):
        y[0] = lc.tanh(lc.thread_idx.x)

    @lc.kernel
    def on_f64(y: lc.Tensor):
        y[0] = lc.tanh(y[0].to(lc.f64))

    @lc.kernel
    def bad_flag(y: lc.Tensor):
        y[0] = lc.tanh(y[0], fastmath="yes")

    @lc.kernel
    def on_tensor(y: lc.Tensor):
        y[0] = lc.tanh(y)

    where = r"test_math_tanh.py:\d+:\d+: error: "
    _refused(on_int, where + r"lc.tanh takes an f32, f16 or bf16 value, got index")
    _refused(on_f64, r"error: lc.tanh takes an f32, f16 or bf16 value, got f64")
    _refused(bad_flag, r"error: lc.tanh's fastmath must be True or False, got 'yes'")
    _refused(on_tensor, r"error: lc.tanh takes a floating-point value, got ")


@pytest.mark.gpu
def test_fast_tanh_on_the_gpu_is_within_the_ptx_bound():
    x, y, z, h = _run("cuda")
    ref = np.tanh(x.astype(np.float64))
    finite = ~np.isnan(x)
    assert np.abs(y - ref)[finite].max() < ACCURATE_ABS
    err = np.abs(z - ref)[finite]
    assert (err <= APPROX_REL * np.abs(ref)[finite]).all(), err.max()
    assert np.isnan(z[~finite]).all()
    ref16 = np.abs(np.tanh(x.astype(np.float16).astype(np.float64)))  # f16: one more rounding
    err16 = np.abs(np.abs(h) - ref16)[finite]
    assert (err16 <= (APPROX_REL + 2.0**-11) * ref16[finite] + 2.0**-24).all(), err16.max()
