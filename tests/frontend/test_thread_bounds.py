"""A static block with more threads than a partition serves: threads past the count would use
elements of the next tile (or past the array). The front end proves, from the block and the
guards around each access, whether that can happen: an error at the partition when it can,
nothing when the extra threads are guarded. Guarded kernels run and match numpy."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from frontend_helpers import loc_text

HERE = __file__
TV = lc.make_layout((64, 4), (4, 1))  # 64 threads x 4 values: a 256-element tile
X = np.arange(1024, dtype=np.float32)


def diagnose(kernel, *args, block) -> lc.CompileError:
    with pytest.raises(lc.CompileError) as info:
        kernel.trace(kernel.specialize(*args, block=block))
    return info.value


def traces(kernel, *args, block) -> None:
    kernel.trace(kernel.specialize(*args, block=block))


@lc.kernel
def unguarded(src: lc.Tensor, dst: lc.Tensor):
    bid, tid = lc.block_idx.x, lc.thread_idx.x
    tS = lc.partition_tv(lc.local_tile(src, (256,), (bid,)), TV, tid)  # @unguarded-src
    tD = lc.partition_tv(lc.local_tile(dst, (256,), (bid,)), TV, tid)
    lc.copy(tS, tD)  # @unguarded-copy


def test_more_threads_than_the_tv_layout_is_an_error_at_the_partition():
    err = diagnose(unguarded, X, X.copy(), block=128)
    text = str(err)
    first = text.split("\n")[0]
    assert first.startswith(f"{loc_text(HERE, '@unguarded-src', 'lc.partition_tv')}: error: ")
    assert "the thread-value layout (64,4):(4,1) partitions among 64 threads" in first
    assert "lc.thread_idx.x reaches 127 in a block of 128 threads" in first
    assert "`if lc.thread_idx.x < 64:`" in first
    note = f"{loc_text(HERE, '@unguarded-copy', 'lc.copy')}: note: an access through the partition"
    assert note in text


@pytest.mark.parametrize("block", [32, 64])
def test_a_block_the_layout_covers_is_accepted(block):
    traces(unguarded, X, X.copy(), block=block)


@lc.kernel
def guarded_use(src: lc.Tensor, dst: lc.Tensor, n: int):
    bid, tid = lc.block_idx.x, lc.thread_idx.x
    tS = lc.partition_tv(lc.local_tile(src, (256,), (bid,)), TV, tid)
    tD = lc.partition_tv(lc.local_tile(dst, (256,), (bid,)), TV, tid)
    if tid < n and tid < 64:  # the dynamic n proves nothing, the 64 does
        lc.copy(tS, tD)


@lc.kernel
def early_return(src: lc.Tensor, dst: lc.Tensor):
    bid, tid = lc.block_idx.x, lc.thread_idx.x
    if tid >= 64:
        return
    lc.copy(
        lc.partition_tv(lc.local_tile(src, (256,), (bid,)), TV, tid),
        lc.partition_tv(lc.local_tile(dst, (256,), (bid,)), TV, tid),
    )


@lc.kernel
def warps_share(src: lc.Tensor, dst: lc.Tensor):
    # two groups of 64 threads, each copying its own half of a 512-element tile
    bid, tid = lc.block_idx.x, lc.thread_idx.x
    half = tid // 64
    gS = lc.local_tile(src, (256,), (2 * bid + half,))
    gD = lc.local_tile(dst, (256,), (2 * bid + half,))
    lc.copy(lc.partition_tv(gS, TV, tid % 64), lc.partition_tv(gD, TV, tid - 64 * half))


@lc.kernel
def upper_half(src: lc.Tensor, dst: lc.Tensor):
    bid, tid = lc.block_idx.x, lc.thread_idx.x
    if 64 <= tid:  # noqa: SIM300  (the constant on the left is part of the test)
        t = tid - 64
        lc.copy(
            lc.partition_tv(lc.local_tile(src, (256,), (bid,)), TV, t),
            lc.partition_tv(lc.local_tile(dst, (256,), (bid,)), TV, t),
        )


@pytest.mark.parametrize(
    ("kernel", "extra", "grid"),
    [
        (guarded_use, (1000,), 4),
        (early_return, (), 4),
        (warps_share, (), 2),
        (upper_half, (), 4),
    ],
)
def test_guarded_extra_threads_are_accepted_and_copy_exactly_once(kernel, extra, grid):
    dst = np.zeros_like(X)
    kernel(X, dst, *extra, grid=grid, block=128)
    np.testing.assert_array_equal(dst, X)


@lc.kernel
def guard_too_loose(src: lc.Tensor, dst: lc.Tensor):
    bid, tid = lc.block_idx.x, lc.thread_idx.x
    tS = lc.partition_tv(lc.local_tile(src, (256,), (bid,)), TV, tid)  # @loose
    tD = lc.partition_tv(lc.local_tile(dst, (256,), (bid,)), TV, tid)
    if tid <= 64:  # one thread too many
        lc.copy(tS, tD)  # @loose-copy
    lc.fill(tD, 0.0)  # unguarded


@lc.kernel
def guarded_then_unguarded(src: lc.Tensor, dst: lc.Tensor):
    bid, tid = lc.block_idx.x, lc.thread_idx.x
    tS = lc.partition_tv(lc.local_tile(src, (256,), (bid,)), TV, tid)  # @mixed
    tD = lc.partition_tv(lc.local_tile(dst, (256,), (bid,)), TV, tid)
    if tid < 64:
        lc.copy(tS, tD)
    else:
        x = tS[0]  # @else-read
        tD[0] = x


def test_a_guard_that_does_not_prove_the_bound_is_still_an_error():
    err = diagnose(guard_too_loose, X, X.copy(), block=128)
    assert str(err).startswith(f"{loc_text(HERE, '@loose', 'lc.partition_tv')}: error: ")
    assert f"{loc_text(HERE, '@loose-copy', 'lc.copy')}: note:" in str(err)
    err = diagnose(guarded_then_unguarded, X, X.copy(), block=128)
    assert str(err).startswith(f"{loc_text(HERE, '@mixed', 'lc.partition_tv')}: error: ")
    assert f"{loc_text(HERE, '@else-read', 'tS[0]')}: note:" in str(err)


@lc.kernel
def fragment_only(src: lc.Tensor, dst: lc.Tensor):
    # the partition gives only a shape: registers of every thread, no access through it
    bid, tid = lc.block_idx.x, lc.thread_idx.x
    frag = lc.make_fragment_like(lc.partition_tv(lc.local_tile(src, (256,), (bid,)), TV, tid))
    lc.fill(frag, 1.0)


def test_a_partition_without_accesses_is_accepted():
    traces(fragment_only, X, X.copy(), block=256)


THREAD_LAYOUT = lc.make_layout((32,))


@lc.kernel
def local_partition_kernel(src: lc.Tensor, dst: lc.Tensor):
    bid, tid = lc.block_idx.x, lc.thread_idx.x
    tS = lc.local_partition(lc.local_tile(src, (128,), (bid,)), THREAD_LAYOUT, tid)  # @local
    tD = lc.local_partition(lc.local_tile(dst, (128,), (bid,)), THREAD_LAYOUT, tid)
    lc.copy(tS, tD)


def test_local_partition_with_more_threads_than_its_layout():
    err = diagnose(local_partition_kernel, X, X.copy(), block=64)
    first = str(err).split("\n")[0]
    assert first.startswith(f"{loc_text(HERE, '@local', 'lc.local_partition')}: error: ")
    assert f"lc.local_partition: the thread layout {THREAD_LAYOUT} partitions among 32 " in first
    traces(local_partition_kernel, X, X.copy(), block=32)


COPY = lc.make_tiled_copy(
    lc.make_copy_atom("universal", lc.f32, bits=128),
    lc.make_layout((4, 8), (8, 1)),  # 32 threads
    lc.make_layout((1, 4)),
)


@lc.kernel
def tiled_copy_kernel(src: lc.Tensor[lc.f32, "(M,N):(N,1)"], dst: lc.Tensor[lc.f32, "(M,N):(N,1)"]):  # noqa: F722
    gS = lc.local_tile(src, (4, 32), (lc.block_idx.y, lc.block_idx.x))
    gD = lc.local_tile(dst, (4, 32), (lc.block_idx.y, lc.block_idx.x))
    thr = COPY.get_slice(lc.thread_idx.x)
    lc.copy(COPY, thr.partition_S(gS), thr.partition_D(gD))  # @tiled


def test_tiled_copy_with_more_threads_than_it_has():
    a = np.arange(8 * 64, dtype=np.float32).reshape(8, 64)
    err = diagnose(tiled_copy_kernel, a, a.copy(), block=64)
    first = str(err).split("\n")[0]
    assert first.startswith(f"{loc_text(HERE, '@tiled', 'thr.partition_S')}: error: ")
    assert "partition_S: the tiled copy" in first and "among 32 threads" in first
    dst = np.zeros_like(a)
    tiled_copy_kernel(a, dst, grid=(2, 2), block=32)
    np.testing.assert_array_equal(dst, a)


MMA = lc.make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", lc.make_layout((2, 1, 1)))  # 64 threads


@lc.kernel
def mma_store(c: lc.Tensor[lc.f32, "(M,N):(N,1)"]):  # noqa: F722
    gC = lc.local_tile(c, (32, 8), (lc.block_idx.x, 0))
    thr = MMA.get_slice(lc.thread_idx.x)
    rC = thr.partition_fragment_C(gC)
    lc.fill(rC, 1.0)
    lc.copy(rC, thr.partition_C(gC))  # @mma


def test_tiled_mma_with_more_threads_than_it_has():
    c = np.zeros((64, 8), np.float32)
    err = diagnose(mma_store, c, block=96)
    first = str(err).split("\n")[0]
    assert first.startswith(f"{loc_text(HERE, '@mma', 'thr.partition_C')}: error: ")
    assert "partition_C: the tiled MMA" in first and "among 64 threads" in first
    mma_store(c, grid=2, block=64)
    np.testing.assert_array_equal(c, np.ones_like(c))


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_guarded_kernels_assemble_for_the_gpu(arch):
    for kernel, extra in ((guarded_use, (1000,)), (upper_half, ())):
        ck = lc.compile(kernel, X, X.copy(), *extra, block=128, target=arch)
        assert ck.cubin is not None or ck.ptx
