"""The AST rewrite is memoised per code object: a kernel builder's kernels share one rewrite
and each still runs with its own closure."""

from __future__ import annotations

import layoutc as lc
import numpy as np
from layoutc.frontend import rewrite


def make_copy(tile: int):
    @lc.kernel
    def copy_tile(src: lc.Tensor[lc.f32], dst: lc.Tensor[lc.f32]):
        bid, tid = lc.block_idx.x, lc.thread_idx.x
        tv = lc.make_layout((32, tile // 32), (1, 32))
        gS = lc.local_tile(src, (tile,), (bid,))
        gD = lc.local_tile(dst, (tile,), (bid,))
        if tile > 64:
            lc.copy(lc.partition_tv(gS, tv, tid), lc.partition_tv(gD, tv, tid))
        else:
            lc.copy(lc.partition_tv(gD, tv, tid), lc.partition_tv(gS, tv, tid))

    return copy_tile


def test_one_rewrite_per_code_object_each_kernel_its_own_closure(monkeypatch) -> None:
    parses: list[str] = []
    real = rewrite.parse_function

    def counting(fn):
        parses.append(fn.__name__)
        return real(fn)

    monkeypatch.setattr(rewrite, "parse_function", counting)
    monkeypatch.setattr(rewrite, "_MEMO", type(rewrite._MEMO)())
    x = np.zeros(4096, np.float32)
    texts = []
    for tile in (64, 128, 64):
        kernel = make_copy(tile)
        module, _, _ = kernel.trace(kernel.specialize(x, x, block=32))
        texts.append(module.to_text())
    assert parses == ["copy_tile"]
    assert texts[0] == texts[2] != texts[1]
    assert "128" in texts[1] and "128" not in texts[0]

    # a different function (new code object) is rewritten again
    @lc.kernel
    def other(src: lc.Tensor[lc.f32]):
        pass

    other.trace(other.specialize(x, block=32))
    assert parses == ["copy_tile", "other"]
