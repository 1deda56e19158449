"""Matrix transpose through shared memory, with 128-bit global accesses on both sides.

``out = in.T`` for a row-major (M, N) matrix. The output is handed to the kernel as the (M, N)
view ``out.T`` of the row-major (N, M) result, i.e. the column-major layout ``(M,N):(1,M)``:
then source and destination are the same logical matrix and the kernel is a copy between two
layouts. A direct copy would read rows and write columns (or the reverse), so one side would
be uncoalesced. Instead each 64 x 64 tile is staged in shared memory:

1. threads read the tile row by row (16 x 16 threads, 1 x 4 floats each: 128-bit loads along
   the rows of ``in``) into registers, then store them into shared memory;
2. after a barrier, threads read the tile column by column (16 x 16 threads, 4 x 1 floats
   each) and write 128-bit stores along the columns of the view, i.e. the rows of ``out``.

The shared tile's rows are padded to 65 floats, so the column reads of step 2 fall into
different banks.

Run it:  layoutc run examples/transpose_smem.py [--size 16384]   (size = rows = columns)
"""

from __future__ import annotations

import layoutc as lc
import numpy as np

BM = BN = 64  # the tile of one thread block
THREADS = 256
VEC = lc.make_copy_atom("universal", lc.f32, bits=128)

# Step 1: threads along the rows (row-major 16 x 16), each with 4 consecutive columns.
READ = lc.make_tiled_copy(VEC, lc.make_layout((16, 16), (16, 1)), lc.make_layout((1, 4)))
# Step 2: threads along the columns (column-major 16 x 16), each with 4 consecutive rows.
WRITE = lc.make_tiled_copy(VEC, lc.make_layout((16, 16), (1, 16)), lc.make_layout((4, 1)))
# The staged tile: row-major with rows padded to BN + 1 floats against bank conflicts.
STAGE = lc.make_layout((BM, BN), (BN + 1, 1))


@lc.kernel
def transpose(
    src: lc.Tensor[lc.f32, "(M,N):(N,1)"],  # noqa: F722   in, row-major
    dst: lc.Tensor[lc.f32, "(M,N):(1,M)"],  # noqa: F722   out.T: column-major view of out
):
    tile = (lc.block_idx.y, lc.block_idx.x)
    gS = lc.local_tile(src, (BM, BN), tile)
    gD = lc.local_tile(dst, (BM, BN), tile)
    sT = lc.smem_tensor(lc.f32, STAGE)
    tid = lc.thread_idx.x

    reader = READ.get_slice(tid)
    tRgS = reader.partition_S(gS)
    rows = lc.make_fragment_like(tRgS)
    lc.copy(READ, tRgS, rows)  # 128-bit loads along the rows of `in`
    lc.copy(rows, reader.partition_D(sT))
    lc.syncthreads()

    writer = WRITE.get_slice(tid)
    tWgD = writer.partition_D(gD)
    cols = lc.make_fragment_like(tWgD)
    lc.copy(writer.partition_S(sT), cols)
    lc.copy(WRITE, cols, tWgD)  # 128-bit stores along the rows of `out`


def inputs(size: int, rng: np.random.Generator) -> dict:
    m = -(-size // BM) * BM
    n = -(-size // BN) * BN
    out = np.full((n, m), np.nan, np.float32)
    return {"src": rng.standard_normal((m, n), dtype=np.float32), "dst": out.T}


EXAMPLE = lc.Example(
    kernel=transpose,
    inputs=inputs,
    launch=lambda a: {
        "grid": (a["src"].shape[1] // BN, a["src"].shape[0] // BM),
        "block": THREADS,
    },
    reference=lambda a: {"dst": a["src"]},  # dst is out.T, so out == in.T
    size=256,
    gpu_size=16384,
    description="transpose through a padded shared-memory tile, 128-bit global accesses",
    bytes=lambda a: 2 * a["src"].nbytes,
)
