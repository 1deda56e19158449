"""Copy a vector whose length is not a multiple of the tile (a ragged tail), at full bandwidth.

Only the last thread block's tile runs past the end of the vector, so only that block needs
predicates. Every other block copies a full 4096-element tile exactly as ``copy_1d.py`` does:
unpredicated, four 128-bit loads into registers, then four 128-bit stores. A dynamic ``if`` on
the block index picks the path (it is the same for every thread of a block, so no warp
diverges):

    if bid < N // TILE:   full tile   -> lc.copy      (128-bit, no predicates)
    else:                 last tile   -> lc.copy_if   (predicated)

The predicate is CuTe's: an *identity tensor* (its element at coordinate ``i`` is ``i``
itself), partitioned exactly like the data, tells each thread the coordinate of each of its
elements; ``copy_if(coords, src, dst, bounds=shape)`` moves an element only where
``elem_less(coordinate, shape)``, and leaves the rest of the destination untouched.

Whether the tail can use vector accesses too is decided by the compiler: one predicate may
guard a whole 128-bit access only if it is the same for the 4 elements, i.e. when the length N
is provably a multiple of 4 (each vector starts at a multiple of 4). Called with N = 2^28 - 3,
the kernel is specialised for an N with no known divisor, and layoutc says so (in the
annotation's names):

    remark: copy_if uses 32-bit accesses: 4 contiguous f32, but the bound N is not provably a
            multiple of 2

With N a multiple of 4 (say 2^28), the same source gives ``copy_if uses 128-bit accesses:
predicate uniform over 4 contiguous f32 (the bound N is a multiple of 4 and every
vector starts at a multiple of 4)``. Writing the predicates into an ``i1`` fragment first
(``keep[i] = lc.elem_less(tC[i], src.shape)``) also works, but hides their structure: such a
``copy_if`` is vectorized only when the fragment has stride 0 across each vector.

Run it:  layoutc run examples/copy_if_tail.py [--size 268435453]
"""

from __future__ import annotations

import layoutc as lc
import numpy as np

TILE = 4096  # elements per thread block
THREADS = 256
# As in copy_1d.py: thread t moves elements 4t..4t+3 of each 1024-wide row of the tile.
TV = lc.make_layout((THREADS, (4, 4)), (4, (1, 1024)))


@lc.kernel
def copy_if_tail(src: lc.Tensor[lc.f32, "(N):(1)"], dst: lc.Tensor[lc.f32, "(N):(1)"]):  # noqa: F722
    bid, tid = lc.block_idx.x, lc.thread_idx.x
    tS = lc.partition_tv(lc.local_tile(src, (TILE,), (bid,)), TV, tid)
    tD = lc.partition_tv(lc.local_tile(dst, (TILE,), (bid,)), TV, tid)
    if bid < lc.size(src) // TILE:  # a full tile: no predicates
        staged = lc.make_fragment_like(tS)
        lc.copy(tS, staged)  # four 128-bit loads ...
        lc.copy(staged, tD)  # ... then four 128-bit stores
    else:  # the last, partial tile
        coords = lc.make_identity_tensor(src.shape)  # coords[i] == i
        tC = lc.partition_tv(lc.local_tile(coords, (TILE,), (bid,)), TV, tid)
        lc.copy_if(tC, tS, tD, bounds=src.shape)  # only where coordinate < N


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
    size=2 * TILE + 1811,  # two full tiles and a ragged one (N odd, as on the GPU)
    gpu_size=(1 << 28) - 3,
    description="full tiles unpredicated (128-bit), copy_if with identity-tensor predicates "
    "for the ragged last tile",
    bytes=lambda a: 2 * a["src"].nbytes,
)
