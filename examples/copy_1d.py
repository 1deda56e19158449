"""1-D copy with 128-bit accesses: the "hello world" of layouts.

Each thread block copies one tile of 1024 floats. Inside the tile, a thread-value layout says
which elements each of the 128 threads moves: thread t takes 4 consecutive floats (one 128-bit
access), and does that twice, 512 floats apart, so that at every step the block reads one
contiguous 2 KiB span (coalesced). (benchmarks/copy_sweep.py picked this shape: small tiles
and many blocks ran closest to torch's copy_ on an H200.) layoutc proves that each group of 4 is contiguous and
16-byte aligned for every block and thread, and says so:

    remark: copy uses 128-bit accesses: 4 contiguous f32, 16-byte alignment proven

The data goes through registers (CuTe's usual gmem -> rmem -> gmem): ``src`` and ``dst`` might
overlap as far as any compiler knows, so a direct copy would have to finish each load before
the next store; staged in a register fragment, both loads of a thread are in flight
before its first store.

Run it:  layoutc run examples/copy_1d.py            (GPU if present, else the CPU)
         layoutc run examples/copy_1d.py --size 268435456   (1 GiB of f32, on a GPU)
"""

from __future__ import annotations

import layoutc as lc
import numpy as np

TILE = 1024  # elements per thread block
THREADS = 128

# (thread, value) -> element of the tile: thread t owns elements 4t..4t+3 of each 512-wide
# row of the tile, and the 2 rows are 512 apart.
TV = lc.make_layout((THREADS, (4, 2)), (4, (1, 512)))


@lc.kernel
def copy_1d(src: lc.Tensor[lc.f32, "(N):(1)"], dst: lc.Tensor[lc.f32, "(N):(1)"]):  # noqa: F722
    bid, tid = lc.block_idx.x, lc.thread_idx.x
    gS = lc.local_tile(src, (TILE,), (bid,))  # this block's tile of the source
    gD = lc.local_tile(dst, (TILE,), (bid,))
    tS = lc.partition_tv(gS, TV, tid)  # this thread's 8 elements: ((4, 2)):((1, 512))
    tD = lc.partition_tv(gD, TV, tid)
    staged = lc.make_fragment_like(tS)  # 8 registers
    lc.copy(tS, staged)  # two 128-bit loads
    lc.copy(staged, tD)  # two 128-bit stores


def inputs(size: int, rng: np.random.Generator) -> dict:
    n = -(-size // TILE) * TILE  # whole tiles: the kernel has no tail handling
    return {
        "src": rng.standard_normal(n, dtype=np.float32),
        "dst": np.full(n, np.nan, np.float32),  # poisoned: every element must be written
    }


EXAMPLE = lc.Example(
    kernel=copy_1d,
    inputs=inputs,
    launch=lambda a: {"grid": a["src"].size // TILE, "block": THREADS},
    reference=lambda a: {"dst": a["src"]},
    size=1 << 16,
    gpu_size=1 << 28,
    description="1-D copy, 1024-element tiles, 128-bit accesses",
    bytes=lambda a: 2 * a["src"].nbytes,
)
