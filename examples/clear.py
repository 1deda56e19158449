"""Zero a matrix (CuTe's ``clear``): every thread clears a 4 x 4 block of its tile.

A thread-value layout maps (thread, value) to an element of the 64 x 64 tile, written as the
tile's column-major index ``row + 64 * column`` (CuTe's convention for TV layouts). Thread
``t = a + 16 b`` gets rows ``4b..4b+3`` and columns ``4a..4a+3``; its values run along the
columns first, so each row of 4 is contiguous in the row-major matrix (one 128-bit store), and
neighbouring threads clear neighbouring 16-byte chunks.

Run it:  layoutc run examples/clear.py [--size 16384]   (size = rows = columns)
"""

from __future__ import annotations

import layoutc as lc
import numpy as np

BM = BN = 64
# thread (a, b) -> column 4a, row 4b;  value (c, r) -> column +c, row +r
TV = lc.make_layout(((16, 16), (4, 4)), ((4 * BM, 4), (BM, 1)))


@lc.kernel
def clear(out: lc.Tensor[lc.f32, "(M,N):(N,1)"]):  # noqa: F722
    tile = lc.local_tile(out, (BM, BN), (lc.block_idx.y, lc.block_idx.x))
    lc.clear(lc.partition_tv(tile, TV, lc.thread_idx.x))


def inputs(size: int, rng: np.random.Generator) -> dict:
    m, n = -(-size // BM) * BM, -(-size // BN) * BN
    return {"out": np.full((m, n), np.nan, np.float32)}


EXAMPLE = lc.Example(
    kernel=clear,
    inputs=inputs,
    launch=lambda a: {"grid": (a["out"].shape[1] // BN, a["out"].shape[0] // BM), "block": 256},
    reference=lambda a: {"out": np.zeros_like(a["out"])},
    size=256,
    gpu_size=16384,
    description="zero a matrix, 4x4 elements per thread",
    bytes=lambda a: a["out"].nbytes,
)
