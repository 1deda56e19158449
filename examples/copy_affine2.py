"""Copying an *affine2* matrix: strides above 1 in both modes (CUTLASS's AffineRank2ColumnMajor).

An affine2 layout addresses element (i, j) at ``s0 * i + s1 * j`` with ``s0 > 1``: neither mode
is contiguous, e.g. every other row and column of a larger buffer (CUTLASS's affine2 GEMM
example uses stride factors {2, 2}). Consecutive elements are 8 bytes apart, so no vector
access can load two of them: the loads must be one 32-bit access per element, and the compiler
says why instead of silently generating slower code.

The kernel gathers the affine2 matrix into a dense column-major one, one 32 x 128 tile per
block. Each thread takes 4 consecutive rows of 4 columns (32 apart): contiguous on the dense
side, 8 bytes apart on the affine2 side. So the data goes the way CuTe moves it, gmem -> rmem
-> gmem: 16 scalar loads into a register fragment (all in flight at once), then 4 vector
stores of 4 rows each. layoutc proves each side on its own:

    remark: copy uses 32-bit accesses: stride of mode 0,0 of the source is 2 (affine2 layout:
            strides above 1 in every mode)
    remark: copy uses 128-bit accesses: 4 contiguous f32, 16-byte alignment proven

Run it:  layoutc run examples/copy_affine2.py [--size 8192]   (size = rows = columns)
"""

from __future__ import annotations

import layoutc as lc
import numpy as np

BM, BN = 32, 128
# (thread, value) -> tile index row + 32 * column: thread (a, b) takes rows 4a..4a+3 (value
# mode 0, stride 1) of columns b, b + 32, b + 64, b + 96 (value mode 1, stride 32 * BM).
TV = lc.make_layout(((8, 32), (4, 4)), ((4, BM), (1, 32 * BM)))


@lc.kernel
def copy_affine2(
    src: lc.Tensor[lc.f32, "(M,N):(2,S)"],  # noqa: F722   affine2: row stride 2, column stride S
    dst: lc.Tensor[lc.f32, "(M,N):(1,M)"],  # noqa: F722   dense column-major
):
    tile = (lc.block_idx.x, lc.block_idx.y)
    gS = lc.local_tile(src, (BM, BN), tile)
    gD = lc.local_tile(dst, (BM, BN), tile)
    tid = lc.thread_idx.x
    tS = lc.partition_tv(gS, TV, tid)  # (4, 4):(2, 32 S): 8 bytes between rows
    tD = lc.partition_tv(gD, TV, tid)  # (4, 4):(1, 32 M): 4 contiguous rows per column
    staged = lc.make_fragment_like(tS)  # 16 registers
    lc.copy(tS, staged)  # 16 scalar loads (stride 2: nothing wider is legal)
    lc.copy(staged, tD)  # 4 128-bit stores


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
    description="gather an affine2 (stride 2, stride S) matrix into a dense one: scalar loads "
    "into registers, 128-bit stores",
    bytes=lambda a: 2 * a["src"].size * 4,
)
