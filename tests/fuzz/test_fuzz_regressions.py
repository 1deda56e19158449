"""Minimised reproducers of bugs the layout-program fuzzer found, run on the CPU runtime."""

from __future__ import annotations

import re

import layoutc as lc
import numpy as np
import pytest
from layoutc import _


@lc.kernel
def convert(src: lc.Tensor, dst: lc.Tensor):
    i = lc.block_idx.x * lc.block_dim.x + lc.thread_idx.x
    if i < lc.size(src):
        dst[i] = src[i]


def _hard_doubles() -> np.ndarray:
    """Values whose rounding to f16 is easy to get wrong: ties at every exponent, just above
    and below them, subnormals, overflow, signed zeros, infinities and NaN."""
    half = np.arange(0, 0x7C00, 37, dtype=np.uint16).view(np.float16).astype(np.float64)
    nxt = np.nextafter(half.astype(np.float16), np.float16(np.inf)).astype(np.float64)
    ties = (half + nxt) / 2
    eps = np.abs(ties) * 2.0**-40 + 2.0**-60
    special = [
        0.0,
        -0.0,
        65504.0,
        65520.0,
        65519.99,
        1e6,
        2.0**-25,
        2.0**-24,
        3 * 2.0**-26,
        np.inf,
        -np.inf,
    ]
    values = np.concatenate([half, ties, ties + eps, ties - eps, special])
    return np.concatenate([values, -values])


@pytest.mark.parametrize("src_dtype", [np.float64, np.float32])
def test_float_to_f16_conversion_on_the_cpu_rounds_like_numpy(src_dtype):
    """f64 -> f16 on x86 is a call to the runtime library's ``__truncdfhf2``; MCJIT did not
    resolve it and the kernel jumped to address 0 (a segfault in every f16 ``lc.fill`` with a
    float value). f32 -> f16 needs ``__truncsfhf2`` on hosts without F16C."""
    src = _hard_doubles().astype(src_dtype)
    dst = np.zeros(src.size, np.float16)
    ck = lc.compile(convert, src, dst, target="cpu", block=128)
    ck(src, dst, grid=-(-src.size // 128))
    with np.errstate(over="ignore"):
        want = src.astype(np.float16)
    np.testing.assert_array_equal(dst.view(np.uint16), want.view(np.uint16))


def test_f16_to_float_conversion_on_the_cpu_is_exact():
    src = np.arange(0, 1 << 16, 7, dtype=np.uint32).astype(np.uint16).view(np.float16)
    src = src[~np.isnan(src)]
    dst = np.zeros(src.size, np.float64)
    ck = lc.compile(convert, src, dst, target="cpu", block=128)
    ck(src, dst, grid=-(-src.size // 128))
    np.testing.assert_array_equal(dst, src.astype(np.float64))


@lc.kernel
def copy_runs_of_three(src: lc.Tensor, dst: lc.Tensor):
    """Each thread copies 3 contiguous floats: no vector width divides the run."""
    tid = lc.thread_idx.x
    gS = lc.local_tile(src, (12,), (lc.block_idx.x,))
    gD = lc.local_tile(dst, (12,), (lc.block_idx.x,))
    lc.copy(lc.zipped_divide(gS, (3,))[_, tid], lc.zipped_divide(gD, (3,))[_, tid])


def test_a_run_no_vector_width_divides_is_explained():
    """The remark said ``3 contiguous f32, but None``."""
    src = np.arange(24, dtype=np.float32)
    dst = np.full(24, np.nan, np.float32)
    ck = lc.compile(copy_runs_of_three, src, dst, target="cpu", block=4)
    ck(src, dst, grid=2)
    np.testing.assert_array_equal(dst, src)
    (remark,) = [r.message for r in ck.remarks]
    assert remark == (
        "copy uses 32-bit accesses: 3 contiguous f32, but no vector width (2, 4 elements) "
        "divides the run"
    )


# Sw<1,2,3> moves bit 5 of an offset into bit 2: over (6,7):(7,1) (cosize 42) offsets 40 and 41
# become 44 and 45. Shared memory was sized by the inner layout's cosize (CuTe's cosize of a
# swizzled layout), 42 elements, and the swizzle addressed past it; it is now sized by
# storage_cosize, every offset the swizzled layout produces.
SWIZZLED_PAST_COSIZE = lc.composition(lc.Swizzle(1, 2, 3), lc.make_layout((6, 7), (7, 1)))


@lc.kernel
def stage_through_swizzle(src: lc.Tensor, dst: lc.Tensor):
    s = lc.smem_tensor(lc.f32, SWIZZLED_PAST_COSIZE)
    if lc.thread_idx.x == 0:
        lc.copy(lc.local_tile(src, (6, 7), (0, 0)), s)
        lc.copy(s, lc.local_tile(dst, (6, 7), (0, 0)))


def test_shared_memory_of_a_swizzled_layout_covers_every_element_it_addresses():
    src = np.arange(42, dtype=np.float32).reshape(6, 7)
    dst = np.full_like(src, np.nan)
    ck = lc.compile(stage_through_swizzle, src, dst, target="cpu", block=1)
    furthest = max(SWIZZLED_PAST_COSIZE(i) for i in range(42))
    assert furthest == 45
    assert ck.runtime_spec.static_smem >= (furthest + 1) * 4
    ck(src, dst, grid=1)
    np.testing.assert_array_equal(dst, src)


@lc.kernel
def stage_through_dynamic_swizzle(src: lc.Tensor, dst: lc.Tensor):
    lc.dynamic_smem_tensor(lc.f16, lc.make_layout((3,)))  # the swizzled tile starts at byte 16
    s = lc.dynamic_smem_tensor(lc.f32, SWIZZLED_PAST_COSIZE)
    if lc.thread_idx.x == 0:
        lc.copy(lc.local_tile(src, (6, 7), (0, 0)), s)
        lc.copy(s, lc.local_tile(dst, (6, 7), (0, 0)))


def test_dynamic_shared_memory_of_a_swizzled_layout_covers_every_element_it_addresses():
    src = np.arange(42, dtype=np.float32).reshape(6, 7)
    dst = np.full_like(src, np.nan)
    ck = lc.compile(stage_through_dynamic_swizzle, src, dst, target="cpu", block=1)
    assert ck.runtime_spec.dynamic_smem >= 16 + 46 * 4
    ck(src, dst, grid=1)
    np.testing.assert_array_equal(dst, src)


# A vectorized copy (two f64 per 128-bit access) between tiles of run-time strides: the value
# modes (4,2,2):(1,S,2S) of the thread's slice are retiled to (2,(2,2,2)) in the operand types,
# but the analysis, which knows 2S = 2*S, merged them into (2,(2,4)), and lower-algorithms built
# tile.load_vector/store_vector coordinates of that shape, which the ops reject. The analysis
# now gives a tensor its type's shape. (Found with f64 gmem -> gmem and a Sw<1,1,1> shared tile.)
TV_2X16 = lc.make_layout((2, (4, 2, 2)), (16, (1, 4, 8)))


@lc.kernel
def copy_tiles_of_run_time_strides(src: lc.Tensor, dst: lc.Tensor):
    tid = lc.thread_idx.x
    gS = lc.local_tile(src, (4, 8), (0, 0))
    gD = lc.local_tile(dst, (4, 8), (0, 0))
    lc.copy(lc.partition_tv(gS, TV_2X16, tid), lc.partition_tv(gD, TV_2X16, tid))


def _column_major(rows: int, cols: int, fill: float | None = None) -> np.ndarray:
    """A (rows, cols) view of column-major doubles: its column stride is a run-time value."""
    a = np.arange(rows * cols, dtype=np.float64) if fill is None else np.full(rows * cols, fill)
    return a.reshape(cols, rows).T


def test_vectorized_copy_to_run_time_strides_gets_coordinates_of_the_operand_type():
    src, dst = _column_major(4, 8), _column_major(4, 8, np.nan)
    ck = lc.compile(copy_tiles_of_run_time_strides, src, dst, target="cpu", block=2)
    ck(src, dst, grid=1)
    np.testing.assert_array_equal(dst, src)
    assert any("128-bit" in r.message for r in ck.remarks)


@lc.kernel
def stage_through_small_swizzle(src: lc.Tensor, dst: lc.Tensor):
    tid = lc.thread_idx.x
    s = lc.smem_tensor(lc.f64, lc.composition(lc.Swizzle(1, 1, 1), lc.make_layout((4, 8))))
    gS = lc.local_tile(src, (4, 8), (0, 0))
    gD = lc.local_tile(dst, (4, 8), (0, 0))
    lc.copy(lc.partition_tv(gS, TV_2X16, tid), lc.partition_tv(s, TV_2X16, tid))
    lc.syncthreads()
    lc.copy(lc.partition_tv(s, TV_2X16, tid), lc.partition_tv(gD, TV_2X16, tid))


def test_vectorized_copy_between_run_time_strides_and_a_swizzled_tile():
    src, dst = _column_major(4, 8), _column_major(4, 8, np.nan)
    ck = lc.compile(stage_through_small_swizzle, src, dst, target="cpu", block=2)
    ck(src, dst, grid=1)
    np.testing.assert_array_equal(dst, src)


@lc.kernel
def axpby_and_fill_tiles_of_run_time_strides(x: lc.Tensor, y: lc.Tensor):
    """The user retiles the slices as the vectorizer did above: the same shapes reach the
    element-wise lowerings."""
    tid = lc.thread_idx.x
    pairs = lc.make_layout((2, 8), (1, 2))
    tX = lc.partition_tv(lc.local_tile(x, (4, 8), (0, 0)), TV_2X16, tid)
    tY = lc.partition_tv(lc.local_tile(y, (4, 8), (0, 0)), TV_2X16, tid)
    lc.axpby(2.0, lc.composition(tX, pairs), 0.5, lc.composition(tY, pairs))
    lc.fill(lc.composition(tX, pairs), -1.0)


def test_elementwise_ops_on_run_time_strides_get_coordinates_of_the_operand_type():
    x, y = _column_major(4, 8), _column_major(4, 8) + 100
    want = 2.0 * x + 0.5 * y
    ck = lc.compile(axpby_and_fill_tiles_of_run_time_strides, x, y, target="cpu", block=2)
    ck(x, y, grid=1)
    np.testing.assert_array_equal(y, want)
    np.testing.assert_array_equal(x, np.full_like(x, -1.0))


def _stage_with_cp_async(bits: int):
    """A tiled cp.async copy whose atom moves ``bits`` per access (128 are provable)."""

    @lc.kernel
    def stage(src: lc.Tensor, dst: lc.Tensor):
        tid = lc.thread_idx.x
        s = lc.smem_tensor(lc.f32, lc.make_layout((32,)))
        atom = lc.make_copy_atom("cp.async.ca", lc.f32, bits=bits)
        tiled = lc.make_tiled_copy(atom, lc.make_layout((4,)), lc.make_layout((8,)))
        thr = tiled.get_slice(tid)
        lc.copy(tiled, thr.partition_S(lc.local_tile(src, (32,), (0,))), thr.partition_D(s))
        lc.cp_async_commit()
        lc.cp_async_wait(0)
        lc.syncthreads()
        lc.copy(s, lc.local_tile(dst, (32,), (0,)))

    return stage


@pytest.mark.parametrize("bits", [32, 64, 128])
def test_a_cp_async_copy_reports_the_width_of_its_atom(bits):
    """The remark said 128-bit accesses for a ``bits=32`` atom, which the lowering (rightly,
    as CuTe) used: 4-byte cp.async."""
    src, dst = np.arange(32, dtype=np.float32), np.zeros(32, np.float32)
    ck = lc.compile(_stage_with_cp_async(bits), src, dst, target="cpu", block=4)
    ck(src, dst, grid=1)
    np.testing.assert_array_equal(dst, src)
    first = ck.remarks[0].message
    assert first.startswith(f"copy uses {bits}-bit accesses")
    if bits < 128:
        assert f"(atom 'cp.async.ca' of {bits} bits; 128 proven)" in first
    ptx = lc.compile(_stage_with_cp_async(bits), src, dst, target="sm_80", block=4).ptx
    assert set(re.findall(r"cp\.async\.ca\.shared\.global \[[^]]*\], \[[^]]*\], (\d+)", ptx)) == {
        str(bits // 8)
    }


# libNVVM (-opt=3, sm_80 and sm_90) fails with "unsupported operation" on a 128-bit f16 store to
# shared memory, a barrier and 8 scalar f16 loads of the same bytes (the destination is not
# 16-byte aligned); -opt=0 or no barrier compiles. Found by the cubin fuzz test. With the back
# end left to us ('auto'), the toolchain takes the PTX from LLVM's NVPTX instead and says so;
# a pinned libNVVM still reports the error.
@lc.kernel
def stage_halves(src: lc.Tensor, dst: lc.Tensor):
    s = lc.smem_tensor(lc.f16, lc.make_layout((8,)))
    lc.copy(lc.local_tile(src, (8,), (0,)), s)
    lc.syncthreads()
    lc.copy(s, lc.local_tile(dst, (8,), (0,)))


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_staging_halves_through_shared_memory_assembles(arch):
    src = np.zeros(8, np.float16)
    dst = np.zeros(9, np.float16)[1:]  # 2-byte aligned: scalar stores
    ck = lc.compile(stage_halves, src, dst, target=arch, block=1)
    assert ck.cubin
    notes = " ".join(ck.products.notes)
    if "libNVVM" in notes:  # libNVVM installed and still refusing: LLVM stood in, and says so
        assert "PTX from LLVM's NVPTX back end instead" in notes
        with pytest.raises(lc.CompileError, match="unsupported operation"):
            lc.compile(stage_halves, src, dst, target=arch, block=1, ptx_backend="libnvvm")
