"""Partitions that provably reach outside their tensor are refused at the user's line; the
valid ones at the boundary (the tile exactly filled) still compile and match numpy on the CPU.
Also: ``lc.axpby`` on integer tensors refuses a fractional float alpha/beta (CuTe computes in
the scalar's type, truncating it first would be a wrong kernel) and keeps whole ones exact."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from frontend_helpers import loc_text

HERE = __file__


def diagnose(kernel, *args, block=4) -> lc.CompileError:
    with pytest.raises(lc.CompileError) as info:
        kernel.trace(kernel.specialize(*args, block=block))
    return info.value


def expect(err: lc.CompileError, marker: str, token: str, message: str) -> None:
    first = str(err).split("\n")[0]
    assert first.startswith(f"{loc_text(HERE, marker, token)}: error: "), str(err)
    assert message in first, str(err)


def run_cpu(kernel, *args, block):
    lc.compile(kernel, *args, block=block, target="cpu", cache=False)(*args, grid=1, block=block)


# -- partition_tv: the TV layout's image against the tensor's size -------------------------------


V16 = lc.Tensor[lc.f32, "(16):(1)"]


@lc.kernel
def tv_copy(src: V16, dst: V16):
    tid = lc.thread_idx.x
    tv = lc.make_layout((4, 4), (1, 4))  # cosize 16: the whole tensor
    lc.copy(lc.partition_tv(src, tv, tid), lc.partition_tv(dst, tv, tid))


@lc.kernel
def tv_too_wide(src: V16, dst: V16):
    tid = lc.thread_idx.x
    tv = lc.make_layout((4, 4), (1, 5))  # cosize 19 > 16
    lc.copy(lc.partition_tv(src, tv, tid), lc.partition_tv(dst, tv, tid))  # @tv-wide


def test_a_tv_layout_that_fills_the_tensor_matches_numpy():
    src = np.arange(16, dtype=np.float32)
    dst = np.zeros(16, np.float32)
    run_cpu(tv_copy, src, dst, block=4)
    np.testing.assert_array_equal(dst, src)


def test_a_tv_layout_larger_than_the_tensor_is_refused():
    x = np.zeros(16, np.float32)
    err = diagnose(tv_too_wide, x, x)
    expect(err, "@tv-wide", "lc.partition_tv(src", "reaches element 18, outside the tensor")


def test_a_tv_layout_on_a_dynamic_tensor_is_left_alone():
    x = np.zeros(16, np.float32)

    @lc.kernel
    def dynamic(src: lc.Tensor, dst: lc.Tensor):
        tv = lc.make_layout((4, 4), (1, 5))
        lc.copy(lc.partition_tv(src, tv, lc.thread_idx.x), lc.partition_tv(dst, tv, 0))

    dynamic.trace(dynamic.specialize(x, x, block=4))


# -- local_partition: the thread count against the extents ---------------------------------------


@lc.kernel
def scale_by_threads(x: lc.Tensor, n: lc.Constexpr[int], threads: lc.Constexpr[int]):
    tile = lc.local_tile(x, (n,), (0,))
    mine = lc.local_partition(tile, lc.make_layout(threads), lc.thread_idx.x)  # @local
    lc.axpby(2, mine, 0, mine)


def test_local_partition_by_a_dividing_thread_count_matches_numpy():
    x = np.arange(12, dtype=np.float32)
    run_cpu(scale_by_threads, x, 12, 4, block=4)
    np.testing.assert_array_equal(x, 2 * np.arange(12, dtype=np.float32))


def test_local_partition_by_a_thread_count_that_does_not_divide_is_refused():
    err = diagnose(scale_by_threads, np.zeros(12, np.float32), 12, 5, block=5)
    expect(err, "@local", "lc.local_partition(", "the tiler 5 does not divide the tensor")


@lc.kernel
def partition_2d(x: lc.Tensor[lc.f32, "(6,8):(8,1)"], rows: lc.Constexpr[int]):  # noqa: F722
    thr = lc.make_layout((rows, 2))
    mine = lc.local_partition(x, thr, lc.thread_idx.x)  # @local-2d
    lc.axpby(3, mine, 1, mine)


def test_local_partition_in_two_modes():
    x = np.arange(48, dtype=np.float32).reshape(6, 8)
    want = 4 * x
    run_cpu(partition_2d, x, 3, block=6)
    np.testing.assert_array_equal(x, want)
    err = diagnose(partition_2d, np.zeros((6, 8), np.float32), 4, block=8)
    expect(err, "@local-2d", "lc.local_partition(", "does not divide the tensor of shape (6, 8)")


# -- zipped_divide(...)[_, tid] --------------------------------------------------------------------


@lc.kernel
def divided(x: lc.Tensor, n: lc.Constexpr[int], tile: lc.Constexpr[int]):
    tiles = lc.zipped_divide(lc.local_tile(x, (n,), (0,)), tile)  # @divide
    lc.fill(tiles[lc._, lc.thread_idx.x], 7.0)


def test_zipped_divide_by_a_dividing_tile_matches_numpy():
    x = np.zeros(12, np.float32)
    run_cpu(divided, x, 12, 4, block=3)
    np.testing.assert_array_equal(x, np.full(12, 7.0, np.float32))


def test_zipped_divide_by_a_tile_that_does_not_divide_is_refused():
    err = diagnose(divided, np.zeros(10, np.float32), 10, 4, block=3)
    expect(err, "@divide", "lc.zipped_divide(", "the tiles cover 12 elements of a tensor of 10")


def test_a_coordinate_tensor_may_be_divided_past_its_shape():
    @lc.kernel
    def coords(x: lc.Tensor):
        c = lc.zipped_divide(lc.make_identity_tensor(10), 4)
        t = lc.local_tile(x, (4,), (0,))
        lc.copy_if(c[lc._, 0], t, t, bounds=(10,))

    coords.trace(coords.specialize(np.zeros(4, np.float32), block=1))


# -- tiled copies --------------------------------------------------------------------------------

ATOM = lc.make_copy_atom("universal", lc.f32)


@lc.kernel
def tiled(src: lc.Tensor, dst: lc.Tensor, n: lc.Constexpr[int]):
    tc = lc.make_tiled_copy(ATOM, lc.make_layout(4), lc.make_layout(2))  # tile of 8
    thr = tc.get_slice(lc.thread_idx.x)
    s, d = lc.local_tile(src, (n,), (0,)), lc.local_tile(dst, (n,), (0,))
    lc.copy(tc, thr.partition_S(s), thr.partition_D(d))  # @tiled


def test_a_tiled_copy_over_whole_tiles_matches_numpy():
    src = np.arange(16, dtype=np.float32)
    dst = np.zeros(16, np.float32)
    run_cpu(tiled, src, dst, 16, block=4)
    np.testing.assert_array_equal(dst, src)


def test_a_tiled_copy_whose_tile_does_not_divide_the_tensor_is_refused():
    x = np.zeros(12, np.float32)
    err = diagnose(tiled, x, x, 12)
    expect(err, "@tiled", "thr.partition_S(", "partition_S: the tiler")


# -- axpby on integer tensors --------------------------------------------------------------------


I16 = lc.Tensor[lc.i32, "(16):(1)"]


@lc.kernel
def int_axpby(x: I16, y: I16, alpha: lc.Constexpr, beta: lc.Constexpr):
    lc.axpby(alpha, x, beta, y)  # @axpby


@lc.kernel
def int_axpby_dynamic(x: I16, y: I16, alpha: lc.i32):
    lc.axpby(alpha, x, -1, y)


def test_integer_scalars_on_integer_tensors_match_numpy():
    x = np.arange(-8, 8, dtype=np.int32)
    y = np.arange(16, dtype=np.int32) * 3
    want = 2 * x - y
    run_cpu(int_axpby, x, y, 2, -1, block=1)
    np.testing.assert_array_equal(y, want)
    y = np.arange(16, dtype=np.int32) * 3
    run_cpu(int_axpby_dynamic, x, y, 5, block=1)
    np.testing.assert_array_equal(y, 5 * x - np.arange(16, dtype=np.int32) * 3)


@pytest.mark.parametrize(("alpha", "beta"), [(1.5, 1), (1, -0.25)])
def test_a_fractional_scalar_on_an_integer_tensor_computes_as_cute(alpha, beta):
    """CuTe computes in the float type and converts on store (C++: toward zero)."""
    x = np.arange(-8, 8, dtype=np.int32)
    y = np.arange(16, dtype=np.int32) * 3 - 20
    f = np.float32(alpha) * x.astype(np.float32) + np.float32(beta) * y.astype(np.float32)
    want = np.trunc(f).astype(np.int32)
    run_cpu(int_axpby, x, y, alpha, beta, block=1)
    np.testing.assert_array_equal(y, want)


@lc.kernel
def float_scalar_int_tensor(x: I16, y: I16, alpha: lc.f32):
    lc.axpby(alpha, x, 1, y)


def test_a_dynamic_float_scalar_on_an_integer_tensor_computes_in_float():
    x = np.arange(-8, 8, dtype=np.int32)
    y = np.ones(16, np.int32)
    run_cpu(float_scalar_int_tensor, x, y, 1.5, block=1)
    np.testing.assert_array_equal(y, np.trunc(1.5 * x + 1).astype(np.int32))
