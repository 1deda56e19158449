"""``lc.axpby`` computes as CuTe's C++ does: in the scalars' type when it is a wider float than
the elements (f32 alpha/beta on f16 tensors: f32 arithmetic, one rounding when stored), and in
the float type on integer tensors (converted on store, truncating toward zero). Checked on the
CPU against numpy doing exactly that, and against the f16 arithmetic it replaces."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest

N = 4096


@lc.kernel
def axpby_dyn(alpha: lc.f32, x: lc.Tensor, beta: lc.f32, y: lc.Tensor):
    bid, tid = lc.block_idx.x, lc.thread_idx.x
    tv = lc.make_layout((128, 4), (4, 1))
    tx = lc.partition_tv(lc.local_tile(x, (512,), (bid,)), tv, tid)
    ty = lc.partition_tv(lc.local_tile(y, (512,), (bid,)), tv, tid)
    lc.axpby(alpha, tx, beta, ty)


@lc.kernel
def axpby_const(x: lc.Tensor, y: lc.Tensor, alpha: lc.Constexpr, beta: lc.Constexpr):
    bid, tid = lc.block_idx.x, lc.thread_idx.x
    tv = lc.make_layout((128, 4), (4, 1))
    tx = lc.partition_tv(lc.local_tile(x, (512,), (bid,)), tv, tid)
    ty = lc.partition_tv(lc.local_tile(y, (512,), (bid,)), tv, tid)
    lc.axpby(alpha, tx, beta, ty)


def _f16_operands(seed: int) -> tuple[np.ndarray, np.ndarray, float, float]:
    """f16 data and f32 scalars whose f32 products and sums are exact (11-bit x 12-bit
    significands, a common exponent range), so an FMA or not changes nothing before the one
    rounding to f16 that the result must show."""
    rng = np.random.default_rng(seed)
    x = (rng.integers(-1024, 1024, N) / 16).astype(np.float16)
    y = (rng.integers(-1024, 1024, N) / 16).astype(np.float16)
    alpha = float(np.float32(rng.integers(1025, 4096) / 1024))
    beta = float(np.float32(-rng.integers(1025, 4096) / 2048))
    return x, y, alpha, beta


def _in_f32_rounded_once(x, y, alpha, beta):
    a, b = np.float32(alpha), np.float32(beta)
    return (a * x.astype(np.float32) + b * y.astype(np.float32)).astype(np.float16)


def _in_f16(x, y, alpha, beta):
    a, b = np.float16(alpha), np.float16(beta)
    return a * x + b * y


@pytest.mark.parametrize("seed", [0, 1])
def test_f32_scalars_on_f16_tensors_compute_in_f32_and_round_once(seed):
    x, y, alpha, beta = _f16_operands(seed)
    expected = _in_f32_rounded_once(x, y, alpha, beta)
    assert (expected != _in_f16(x, y, alpha, beta)).sum() > N // 10  # the test can tell them apart
    out = y.copy()
    axpby_dyn(alpha, x, beta, out, grid=N // 512, block=128)
    np.testing.assert_array_equal(out, expected)


def test_python_float_constants_are_f32_scalars():
    x, y, alpha, beta = _f16_operands(2)
    out = y.copy()
    axpby_const(x, out, alpha, beta, grid=N // 512, block=128)
    np.testing.assert_array_equal(out, _in_f32_rounded_once(x, y, alpha, beta))


def test_beta_zero_does_not_read_y_in_the_wider_type_either():
    x, _, alpha, _ = _f16_operands(3)
    out = np.full(N, np.nan, np.float16)
    axpby_dyn(alpha, x, 0.0, out, grid=N // 512, block=128)
    np.testing.assert_array_equal(
        out, (np.float32(alpha) * x.astype(np.float32)).astype(np.float16)
    )


@pytest.mark.parametrize("dtype", [np.int32, np.int16, np.int64])
def test_float_scalars_on_integer_tensors_compute_in_float_and_truncate(dtype):
    rng = np.random.default_rng(4)
    x = rng.integers(-3000, 3000, N).astype(dtype)
    y = rng.integers(-3000, 3000, N).astype(dtype)
    alpha, beta = 1.75, -0.375  # exact products and sums: contraction to FMA changes nothing
    f = np.float32(alpha) * x.astype(np.float32) + np.float32(beta) * y.astype(np.float32)
    expected = np.trunc(f).astype(dtype)  # C++'s float -> int conversion
    assert (expected != (1 * x + 0 * y)).any()  # converting the scalars first would differ
    assert (np.floor(f) != np.trunc(f)).any()  # and rounding down instead of toward zero
    out = y.copy()
    axpby_dyn(alpha, x, beta, out, grid=N // 512, block=128)
    np.testing.assert_array_equal(out, expected)
    out = y.copy()
    axpby_const(x, out, alpha, beta, grid=N // 512, block=128)
    np.testing.assert_array_equal(out, expected)


def test_integer_scalars_on_integer_tensors_stay_integer():
    rng = np.random.default_rng(5)
    x = rng.integers(-1000, 1000, N).astype(np.int32)
    y = rng.integers(-1000, 1000, N).astype(np.int32)
    out = y.copy()
    axpby_const(x, out, 3, -2, grid=N // 512, block=128)
    np.testing.assert_array_equal(out, 3 * x - 2 * y)


@lc.kernel
def axpby_f64(alpha: lc.f64, x: lc.Tensor, beta: lc.f64, y: lc.Tensor):
    lc.axpby(alpha, x, beta, y)


def test_f64_scalars_on_f32_tensors_compute_in_f64():
    x = np.full(8, 1.0, np.float32)
    y = np.full(8, 1.0, np.float32)
    alpha, beta = 1.0 + 2.0**-30, -1.0  # alpha * x - y is 2^-30 in f64, 0 in f32
    axpby_f64(alpha, x, beta, y, grid=1, block=1)
    np.testing.assert_array_equal(y, np.full(8, np.float32(2.0**-30)))


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("dtype", [np.float16, np.int32])
def test_converting_axpby_assembles_for_the_gpu(arch, dtype):
    x = np.zeros(N, dtype)
    ck = lc.compile(axpby_dyn, 1.5, x, 0.5, x.copy(), block=128, target=arch)
    assert ck.cubin is not None and ck.ptx
    if dtype is np.float16:
        assert "cvt.rn.f16.f32" in ck.ptx  # one rounding, on the store
    else:
        assert "cvt.rzi.s32.f32" in ck.ptx  # C++'s truncation toward zero
