"""Copying an *affine2* matrix: strides above 1 in both modes (CUTLASS's AffineRank2ColumnMajor).

An affine2 layout addresses element (i, j) at ``s0 * i + s1 * j`` with ``s0 > 1``: neither mode
is contiguous, e.g. every other row and column of a larger buffer (CUTLASS's affine2 GEMM
example uses stride factors {2, 2}). Consecutive elements are 8 bytes apart, so no vector
access can load two of them: the compiler must use one 32-bit access per element, and says
why instead of silently generating slower code:

    remark: copy uses 32-bit accesses: stride of mode 0 is 2 (affine2 layout)

The kernel gathers the affine2 matrix into a dense column-major one, one 32 x 32 tile per
block. Each thread takes 4 consecutive rows of one column: contiguous on the dense side (a
128-bit store would be legal there), 8 bytes apart on the affine2 side (it is not), so the
whole copy moves one 32-bit element per access.

Run it:  layoutc run examples/copy_affine2.py [--size 8192]   (size = rows = columns)
"""

from __future__ import annotations

import layoutc as lc
import numpy as np

BM = BN = 32
# (thread, value) -> tile index row + 32 * column: thread (a, b) takes rows 4a..4a+3 of column b
TV = lc.make_layout(((8, 32), 4), ((4, BM), 1))


@lc.kernel
def copy_affine2(
    src: lc.Tensor[lc.f32, "(M,N):(2,S)"],  # noqa: F722   affine2: row stride 2, column stride S
    dst: lc.Tensor[lc.f32, "(M,N):(1,M)"],  # noqa: F722   dense column-major
):
    tile = (lc.block_idx.x, lc.block_idx.y)
    gS = lc.local_tile(src, (BM, BN), tile)
    gD = lc.local_tile(dst, (BM, BN), tile)
    tid = lc.thread_idx.x
    lc.copy(lc.partition_tv(gS, TV, tid), lc.partition_tv(gD, TV, tid))


def affine2_view(buffer: np.ndarray, m: int, n: int) -> np.ndarray:
    """Element (i, j) at ``2 i + 4 m j`` of ``buffer``: every other row and column of the
    column-major (2m, 2n) matrix stored in ``buffer``, as CUTLASS's stride factors {2, 2}."""
    item = buffer.itemsize
    return np.lib.stride_tricks.as_strided(buffer, (m, n), (2 * item, 4 * m * item))


def inputs(size: int, rng: np.random.Generator) -> dict:
    m = -(-size // BM) * BM
    n = -(-size // BN) * BN
    buffer = rng.standard_normal(4 * m * n, dtype=np.float32)
    dense = np.full((n, m), np.nan, np.float32).T  # (m, n) column-major
    return {"src": affine2_view(buffer, m, n), "dst": dense}


EXAMPLE = lc.Example(
    kernel=copy_affine2,
    inputs=inputs,
    launch=lambda a: {
        "grid": (a["src"].shape[0] // BM, a["src"].shape[1] // BN),
        "block": 256,
    },
    reference=lambda a: {"dst": np.array(a["src"])},
    size=128,
    gpu_size=8192,
    description="gather an affine2 (stride 2, stride S) matrix into a dense one",
    bytes=lambda a: 2 * a["src"].size * 4,
)
