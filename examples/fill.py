"""Fill a matrix with a run-time value (CuTe's ``fill``), one 64 x 64 tile per thread block.

``local_partition`` deals the tile's elements to a 16 x 16 grid of threads (thread ``(i, j)``
gets every element ``(i + 16a, j + 16b)``); each thread then fills its 16 elements. With the
threads laid out along the rows, neighbouring threads write neighbouring floats.

Run it:  layoutc run examples/fill.py [--size 16384]   (size = rows = columns)
"""

from __future__ import annotations

import layoutc as lc
import numpy as np

BM = BN = 64
THREADS = lc.make_layout((16, 16), (16, 1))  # row-major: thread t = (t // 16, t % 16)


@lc.kernel
def fill(out: lc.Tensor[lc.f32, "(M,N):(N,1)"], value: lc.f32):  # noqa: F722
    tile = lc.local_tile(out, (BM, BN), (lc.block_idx.y, lc.block_idx.x))
    lc.fill(lc.local_partition(tile, THREADS, lc.thread_idx.x), value)


def inputs(size: int, rng: np.random.Generator) -> dict:
    m, n = -(-size // BM) * BM, -(-size // BN) * BN
    return {"out": np.full((m, n), np.nan, np.float32), "value": float(rng.standard_normal())}


EXAMPLE = lc.Example(
    kernel=fill,
    inputs=inputs,
    launch=lambda a: {"grid": (a["out"].shape[1] // BN, a["out"].shape[0] // BM), "block": 256},
    reference=lambda a: {"out": np.full_like(a["out"], np.float32(a["value"]))},
    size=256,
    gpu_size=16384,
    description="fill a matrix with a run-time value, 64x64 tiles, 16x16 threads",
    bytes=lambda a: a["out"].nbytes,
)
