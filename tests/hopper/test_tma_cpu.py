"""TMA on the CPU runtime against a numpy model of the hardware.

The model is written from the PTX ISA's / CUDA guide's description, not from layoutc's code:
a tile-mode box is gathered from the tensor (innermost dimension first, elements outside the
tensor read as zero) and stored densely, and a swizzle of span S bytes (32, 64, 128) XORs the
16-byte chunk index within each S-byte segment with the 128-byte row index modulo S/16
(address bits 7.. into bits 4..: the pattern repeats every 8 x S bytes). Reading the box back
through CuTe's swizzled layout must give the box itself (the derivation of the swizzle from the
layout is CuTe's), and reading shared memory raw must give the model's bytes.
"""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from tma_kernels import make_box_loader, make_box_storer


def hardware_box(a: np.ndarray, m0: int, k0: int, bm: int, bk: int) -> np.ndarray:
    """The box at (m0, k0) of a row-major matrix, zeros outside it (tile mode, OOB fill)."""
    out = np.zeros((bm, bk), a.dtype)
    rows = a[max(m0, 0) : m0 + bm, max(k0, 0) : k0 + bk]
    out[: rows.shape[0], : rows.shape[1]] = rows
    return out


def hardware_swizzle(flat: np.ndarray, span: int) -> np.ndarray:
    """Shared memory after TMA writes ``flat`` (the dense box) with a ``span``-byte swizzle:
    byte offset o goes to o with its 16-byte chunk (o // 16 % (span // 16)) XORed with the
    128-byte row index (o // 128) % (span // 16)."""
    if span == 0:
        return flat.copy()
    raw = flat.view(np.uint8)
    out = np.empty_like(raw)
    o = np.arange(raw.size)
    chunks = span // 16
    chunk = (o // 16) % chunks
    row = (o // 128) % chunks
    dest = o - chunk * 16 + ((chunk ^ row) * 16)
    out[dest] = raw
    return out.view(flat.dtype)


CASES = [
    # (dtype, box_m, box_k, swizzle bits, swizzle base in elements, span bytes)
    (np.float32, 8, 32, 3, 2, 128),
    (np.float32, 16, 16, 2, 2, 64),
    (np.float32, 8, 8, 1, 2, 32),
    (np.float16, 8, 64, 3, 3, 128),
    (np.float16, 16, 32, 2, 3, 64),
    (np.float32, 4, 32, 0, 0, 0),
]


@pytest.mark.parametrize(("dtype", "bm", "bk", "bits", "base", "span"), CASES)
def test_tma_boxes_and_swizzles_match_the_hardware_model(dtype, bm, bk, bits, base, span):
    rng = np.random.default_rng(bm * bk + bits)
    M, K = 2 * bm + 3, 2 * bk + 5  # residues in both modes: out-of-bounds fill
    pitch = -(-K * np.dtype(dtype).itemsize // 16) * 16 // np.dtype(dtype).itemsize
    store = np.zeros((M, pitch), dtype)
    store[:, :K] = rng.standard_normal((M, K)).astype(dtype)
    a = store[:, :K]  # row pitch a multiple of 16 bytes, as TMA needs
    gm, gk = -(-M // bm), -(-K // bk)
    lc_dtype = lc.f32 if dtype == np.float32 else lc.f16
    k = make_box_loader(bm, bk, lc_dtype, bits, base)
    logical = np.full((gm * gk, bm * bk), np.nan, dtype)
    physical = np.full_like(logical, np.nan)
    lc.compile(k, a, logical, physical, block=32, target="cpu")(a, logical, physical, grid=(gm, gk))
    for i in range(gm):
        for j in range(gk):
            box = hardware_box(a, i * bm, j * bk, bm, bk).reshape(-1)
            blk = i * gk + j
            np.testing.assert_array_equal(logical[blk], box)
            np.testing.assert_array_equal(physical[blk], hardware_swizzle(box, span))


def test_tma_store_clips_at_the_tensor_edge():
    bm, bk = 8, 16
    M, K = 13, 20
    gm, gk = -(-M // bm), -(-K // bk)
    src = np.random.default_rng(1).standard_normal((gm * bm, gk * bk)).astype(np.float32)
    store = np.full((M, 24), -7.0, np.float32)
    dst = store[:, :K]
    k = make_box_storer(bm, bk, lc.f32)
    lc.compile(k, src, dst, block=32, target="cpu")(src, dst, grid=(gm, gk))
    np.testing.assert_array_equal(dst, src[:M, :K] + 1)
    np.testing.assert_array_equal(store[:, K:], -7.0)  # nothing written past the extent


def _compile_loader(a: np.ndarray, bm=8, bk=32, bits=3, base=2, target="cpu"):
    k = make_box_loader(bm, bk, lc.f32, bits, base)
    out = np.zeros((1, bm * bk), np.float32)
    return lc.compile(k, a, out, out, block=32, target=target, cache=False)


def _padded(m: int, k: int, pitch: int) -> np.ndarray:
    return np.zeros((m, pitch), np.float32)[:, :k]


@pytest.mark.parametrize(
    ("make", "kw", "message"),
    [
        (
            lambda: np.zeros((16, 70), np.float32),
            {},
            r"TMA needs byte strides that are multiples of 16; mode 0's stride",
        ),
        (
            lambda: np.zeros((16, 72 + 1), np.float32)[:, 1:],
            {},
            r"TMA needs a 16-byte aligned global address; the tensor's base is only known to be "
            r"4-byte aligned",
        ),
        (
            lambda: _padded(16, 64, 64),
            {"bm": 1, "bk": 512, "bits": 0},
            r"a TMA box extent is at most 256; dimension 0 \(mode 1\) asks 512",
        ),
        (
            lambda: _padded(16, 64, 64),
            {"bk": 16},
            r"with a 128-byte swizzle the box's inner extent must be 128 bytes, got 16 x 4 = 64",
        ),
        (
            lambda: _padded(16, 64, 64),
            {"bits": 3, "base": 3},
            r"TMA swizzles 16-byte units \(Swizzle<B,4,3> in bytes\); the smem layout's "
            r"Swizzle<3,3,3> on 4-byte elements is Swizzle<3,5,3> in bytes",
        ),
        (
            lambda: _padded(16, 64, 64),
            {"target": "sm_80"},
            r"'tile.tma_descriptor' op needs target sm_90 or newer \(TMA\), but the kernel is "
            r"compiled for sm_80",
        ),
    ],
)
def test_tma_rules_are_refused_at_compile_time_with_the_rule_and_the_value(make, kw, message):
    with pytest.raises(lc.CompileError, match=r"tma_kernels\.py:\d+:\d+: error: .*" + message):
        _compile_loader(make(), **kw)


def test_an_smem_layout_that_is_not_the_box_is_refused():
    @lc.kernel
    def transposed(A: lc.Tensor):
        lc.make_tma_copy("SM90_TMA_LOAD", A, lc.make_layout((8, 32), (1, 8)))

    with pytest.raises(
        lc.CompileError,
        match=r"the smem layout \(8,32\):\(1,8\) is not the box "
        r"TMA writes: .* i\.e\. \(8,32\):\(32,1\)",
    ):
        lc.compile(transposed, _padded(16, 64, 64), block=32, target="cpu", cache=False)
