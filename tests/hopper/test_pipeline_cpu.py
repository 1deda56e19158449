"""A multistage TMA pipeline (lc.PipelineTmaAsync: producer acquire, consumer wait/release)
on the CPU runtime against numpy; a dynamic-offset view of a swizzled buffer is refused."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from layoutc import _
from pipeline_kernels import make_pipelined_scale


@pytest.mark.parametrize(
    ("stages", "swizzle", "M", "K"),
    [(1, False, 8, 64), (2, False, 20, 200), (3, True, 20, 200), (4, True, 17, 300)],
)
def test_tma_pipeline_matches_numpy(stages, swizzle, M, K):
    bm, bk = 8, 32
    pitch = -(-K // 4) * 4
    store = np.zeros((M, pitch), np.float32)
    store[:, :K] = np.random.default_rng(stages).standard_normal((M, K))
    a = store[:, :K]
    k_tiles, gm = -(-K // bk), -(-M // bm)
    out = np.full((gm * bm, k_tiles * bk), np.nan, np.float32)
    k = make_pipelined_scale(bm, bk, stages, swizzle)
    lc.compile(k, a, out, k_tiles, block=96, target="cpu")(a, out, k_tiles, grid=gm)
    want = np.zeros_like(out)
    want[:M, :K] = 2 * a
    np.testing.assert_array_equal(out, want)


def test_a_dynamic_view_of_a_swizzled_buffer_is_refused():
    sl = lc.composition(lc.Swizzle(3, 2, 3), lc.make_layout((8, 32, 2), (32, 1, 256)))
    box = lc.composition(lc.Swizzle(3, 2, 3), lc.make_layout((8, 32), (32, 1)))

    @lc.kernel
    def k(A: lc.Tensor, s):
        tma = lc.make_tma_copy("SM90_TMA_LOAD", A, box)
        buf = lc.smem_tensor(lc.f32, sl, align=1024)
        bar = lc.smem_tensor(lc.i64, lc.make_layout(1), align=8)
        g = lc.local_tile(tma.get_tma_tensor(), (8, 32), (0, 0))
        lc.tma_copy(tma, g, buf[_, _, s], mbar=bar)

    a = np.zeros((8, 32), np.float32)
    with pytest.raises(lc.CompileError, match=r"a view of a swizzled tensor at a dynamic offset"):
        lc.compile(k, a, 1, block=32, target="cpu", cache=False)
