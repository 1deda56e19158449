"""``y = alpha * x + beta * y`` (BLAS axpby) over vectors, with CuTe's ``axpby`` algorithm.

Each thread block takes a 2048-element tile; a thread-value layout gives every thread two
groups of 4 consecutive elements (so each access is a 128-bit vector). Each thread loads its
parts of ``x`` and ``y`` into registers, ``lc.axpby`` updates the registers, and the result is
stored back to ``y``. ``alpha`` and ``beta`` are run-time floats.

Run it:  layoutc run examples/axpby.py [--size 268435456]
"""

from __future__ import annotations

import layoutc as lc
import numpy as np

TILE = 2048
THREADS = 256
TV = lc.make_layout((THREADS, (4, 2)), (4, (1, 1024)))


@lc.kernel
def axpby(
    alpha: lc.f32,
    x: lc.Tensor[lc.f32, "(N):(1)"],  # noqa: F722
    beta: lc.f32,
    y: lc.Tensor[lc.f32, "(N):(1)"],  # noqa: F722
):
    bid, tid = lc.block_idx.x, lc.thread_idx.x
    tX = lc.partition_tv(lc.local_tile(x, (TILE,), (bid,)), TV, tid)
    tY = lc.partition_tv(lc.local_tile(y, (TILE,), (bid,)), TV, tid)
    rX = lc.make_fragment_like(tX)
    rY = lc.make_fragment_like(tY)
    lc.copy(tX, rX)  # every load first ...
    lc.copy(tY, rY)
    lc.axpby(alpha, rX, beta, rY)  # ... the arithmetic in registers ...
    lc.copy(rY, tY)  # ... then the stores


def inputs(size: int, rng: np.random.Generator) -> dict:
    n = -(-size // TILE) * TILE
    return {
        "alpha": 1.5,
        "x": rng.standard_normal(n, dtype=np.float32),
        "beta": -0.25,
        "y": rng.standard_normal(n, dtype=np.float32),
    }


def reference(a: dict) -> dict:
    alpha, beta = np.float32(a["alpha"]), np.float32(a["beta"])
    return {"y": alpha * a["x"] + beta * a["y"]}


EXAMPLE = lc.Example(
    kernel=axpby,
    inputs=inputs,
    launch=lambda a: {"grid": a["x"].size // TILE, "block": THREADS},
    reference=reference,
    size=1 << 15,
    gpu_size=1 << 28,
    description="y = alpha*x + beta*y, 128-bit accesses",
    bytes=lambda a: 3 * a["x"].nbytes,  # read x and y, write y
    flops=lambda a: 3 * a["x"].size,
    rtol=1e-6,  # a fused multiply-add may round once where numpy rounds twice
    atol=1e-6,
)
