"""2-D tiled copy of a row-major matrix with CuTe's tiled-copy vocabulary.

The (M, N) matrix is cut into 32 x 128 tiles, one per thread block (``local_tile``). A tiled
copy describes how the block's 256 threads share a tile: the threads form a 8 x 32 row-major
grid, and each moves a 1 x 4 strip of consecutive floats with one 128-bit access (the
``universal`` copy atom of 128 bits), repeated down the tile's rows. Neighbouring threads touch
neighbouring 16-byte chunks, so every warp reads and writes 512 contiguous bytes.

The annotation ``(M,N):(N,1)`` states the matrix is compact row-major: the row stride is the
same run-time value as the row length, which is what lets layoutc prove the 128-bit alignment
of every row (N is a multiple of 4 because the 128-wide tiles cover it exactly).

Run it:  layoutc run examples/copy_2d_tiled.py [--size 16384]   (size = rows = columns)
"""

from __future__ import annotations

import layoutc as lc
import numpy as np

BM, BN = 32, 128  # tile of one thread block
THREADS = 256

# 256 threads as 8 rows of 32 (row-major), each moving 1 x 4 floats per access.
COPY = lc.make_tiled_copy(
    lc.make_copy_atom("universal", lc.f32, bits=128),
    lc.make_layout((8, 32), (32, 1)),  # thread layout
    lc.make_layout((1, 4)),  # value layout
)


@lc.kernel
def copy_2d(
    src: lc.Tensor[lc.f32, "(M,N):(N,1)"],  # noqa: F722
    dst: lc.Tensor[lc.f32, "(M,N):(N,1)"],  # noqa: F722
):
    gS = lc.local_tile(src, (BM, BN), (lc.block_idx.y, lc.block_idx.x))
    gD = lc.local_tile(dst, (BM, BN), (lc.block_idx.y, lc.block_idx.x))
    thr = COPY.get_slice(lc.thread_idx.x)
    tS = thr.partition_S(gS)
    staged = lc.make_fragment_like(tS)  # through registers: all loads in flight first
    lc.copy(COPY, tS, staged)
    lc.copy(COPY, staged, thr.partition_D(gD))


def inputs(size: int, rng: np.random.Generator) -> dict:
    m = -(-size // BM) * BM
    n = -(-size // BN) * BN
    return {
        "src": rng.standard_normal((m, n), dtype=np.float32),
        "dst": np.full((m, n), np.nan, np.float32),
    }


EXAMPLE = lc.Example(
    kernel=copy_2d,
    inputs=inputs,
    launch=lambda a: {
        "grid": (a["src"].shape[1] // BN, a["src"].shape[0] // BM),
        "block": THREADS,
    },
    reference=lambda a: {"dst": a["src"]},
    size=256,
    gpu_size=16384,
    description="2-D copy, 32x128 tiles, 8x32 threads x 1x4 values, 128-bit accesses",
    bytes=lambda a: 2 * a["src"].nbytes,
)
