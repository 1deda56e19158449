"""End to end (DSL -> CPU runtime and PTX): CuTe's tApA idiom, one i1 flag per 128-bit vector
(a fragment with a stride-0 value mode), gives copy_if one guard per vector access."""

from __future__ import annotations

import re

import layoutc as lc
import numpy as np
import pytest

TV = lc.make_layout((64, (4, 2)), (4, (1, 256)))  # thread t: 2 vectors of 4 floats


@lc.kernel
def masked_copy(src: lc.Tensor(lc.f32, "(N):(1)"), dst: lc.Tensor(lc.f32, "(N):(1)"), n: lc.i32):
    bid, tid = lc.block_idx.x, lc.thread_idx.x
    tS = lc.partition_tv(lc.local_tile(src, (512,), (bid,)), TV, tid)
    tD = lc.partition_tv(lc.local_tile(dst, (512,), (bid,)), TV, tid)
    coords = lc.make_identity_tensor(src.shape)
    tC = lc.partition_tv(lc.local_tile(coords, (512,), (bid,)), TV, tid)
    flags = lc.make_fragment(lc.make_layout((4, 2), (0, 1)), lc.i1)  # one flag per vector
    for v in range(2):
        flags[0, v] = lc.elem_less(tC[4 * v], (n,))  # the vector's first coordinate
    lc.copy_if(flags, tS, tD)


@pytest.mark.parametrize("n", [0, 1000])
def test_one_flag_per_vector_guards_whole_vectors(n):
    size = 2048
    src = np.arange(size, dtype=np.float32) + 1
    dst = np.full(size, -1, np.float32)
    ck = lc.compile(masked_copy, src, dst, n, target="cpu", block=64)
    ck(src, dst, n, grid=size // 512, block=64)
    # every vector whose first element is below n is copied whole
    first = np.arange(size) // 4 * 4
    np.testing.assert_array_equal(dst, np.where(first < n, src, -1))
    (remark,) = [r.message for r in ck.remarks if r.message.startswith("copy_if")]
    assert remark == (
        "copy_if uses 128-bit accesses: predicate uniform over 4 contiguous f32 (stride 0), "
        "16-byte alignment proven"
    )


def test_the_guarded_accesses_are_128_bits_in_the_ptx():
    src = np.zeros(2048, np.float32)
    ck = lc.compile(masked_copy, src, src.copy(), 7, target="sm_90", block=64)
    assert len(re.findall(r"ld\.global(\.\w+)*\.v4\.f32", ck.ptx)) == 2
    assert len(re.findall(r"st\.global(\.\w+)*\.v4\.f32", ck.ptx)) == 2
    assert not re.search(r"(ld|st)\.global(\.(?!v\d)\w+)*\.f32\s", ck.ptx)
