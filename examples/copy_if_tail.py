"""Predicated copy of a vector whose length is not a multiple of the tile (a ragged tail).

The last thread block's tile runs past the end of the vector. CuTe's answer is a predicate
built from an *identity tensor*: a tensor whose element at coordinate ``i`` is ``i`` itself.
Partitioned exactly like the data, it tells each thread the coordinate of each of its
elements, and ``elem_less(coordinate, shape)`` says whether the element exists. ``copy_if``
then moves only those elements; the rest of the destination stays untouched.

Run it:  layoutc run examples/copy_if_tail.py [--size 1000003]
"""

from __future__ import annotations

import layoutc as lc
import numpy as np

TILE = 1024
THREADS = 256
TV = lc.make_layout((THREADS, 4), (4, 1))  # thread t: elements 4t..4t+3 of the tile


@lc.kernel
def copy_if_tail(src: lc.Tensor[lc.f32, "(N):(1)"], dst: lc.Tensor[lc.f32, "(N):(1)"]):  # noqa: F722
    bid, tid = lc.block_idx.x, lc.thread_idx.x
    coords = lc.make_identity_tensor(src.shape)  # coords[i] == i
    tS = lc.partition_tv(lc.local_tile(src, (TILE,), (bid,)), TV, tid)
    tD = lc.partition_tv(lc.local_tile(dst, (TILE,), (bid,)), TV, tid)
    tC = lc.partition_tv(lc.local_tile(coords, (TILE,), (bid,)), TV, tid)
    keep = lc.make_fragment_like(tC, lc.i1)  # one predicate per element of this thread
    for i in range(lc.size(keep)):  # a static loop: unrolled while tracing
        keep[i] = lc.elem_less(tC[i], src.shape)
    lc.copy_if(keep, tS, tD)


def inputs(size: int, rng: np.random.Generator) -> dict:
    return {
        "src": rng.standard_normal(size, dtype=np.float32),
        "dst": np.full(size + 8, np.nan, np.float32)[:size],  # a tail of canaries past the end
    }


EXAMPLE = lc.Example(
    kernel=copy_if_tail,
    inputs=inputs,
    launch=lambda a: {"grid": -(-a["src"].size // TILE), "block": THREADS},
    reference=lambda a: {"dst": a["src"]},
    size=4000,
    gpu_size=(1 << 28) - 3,
    description="copy_if with an identity-tensor predicate for a ragged last tile",
    bytes=lambda a: 2 * a["src"].nbytes,
)
