"""The sm80 GEMM builder (examples/gemm_tf32_sm80.py) for any M, N, K, either major order of A
and B, row- or column-major C, and batches: exact results on the CPU runtime at ragged sizes
(1, 17, 129, 200) for every major order and every input type (tf32, f16, bf16), the K-peeled
pipeline included, with tiles small enough for the CPU (32x32, one warp); on the GPU (marked)
at 4000 and 8191 against torch.

Majors are spelled as three letters: A's contiguous mode (``K`` or ``M``), B's (``K`` or ``N``)
and C's (``R`` row-major, ``C`` column-major). The check uses small integers: exact in every
input type and in the f32 sums, so the result must equal the float64 product bit for bit (a
missing zero fill, a store past the edge or a lost residue element cannot hide)."""

from __future__ import annotations

import sys

import layoutc as lc
import numpy as np
import pytest
from example_files import EXAMPLES_DIR
from layoutc.runtime import dlpack

sys.path.insert(0, str(EXAMPLES_DIR))
import gemm_tf32_sm80 as sm80

# Many variants of a large whole-pipeline kernel: verified once after the pass pipeline, as
# users' compiles are (tests/conftest.py, verify_at_end; the example's own kernel is verified
# after every pass in tests/examples/test_examples.py).
pytestmark = pytest.mark.verify_at_end

BK = {"tf32": 16, "f16": 32, "bf16": 32}  # 64-byte shared rows


def small_config(dtype: str, epilogue: str = "smem") -> sm80.GemmConfig:
    """A 32x32 tile of one warp: little code to compile and run on the CPU."""
    return sm80.GemmConfig(dtype, 32, 32, BK[dtype], 3, 1, 1, epilogue)


class BF16:
    """bf16 data for the CPU runtime (numpy has none): the bit patterns in a uint16 array,
    exported through DLPack as bfloat16 (type code 4)."""

    def __init__(self, values: np.ndarray):
        self.bits = (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
        self.shape = values.shape

    def swapaxes(self, i: int, j: int) -> BF16:
        out = object.__new__(BF16)
        out.bits, out.shape = self.bits.swapaxes(i, j), self.bits.swapaxes(i, j).shape
        return out

    def __dlpack__(self, stream=None, **kwargs):
        capsule = self.bits.__dlpack__()
        dlpack.read_capsule(capsule).dtype.code = 4  # kDLBfloat
        return capsule

    def __dlpack_device__(self):
        return self.bits.__dlpack_device__()

    def values(self) -> np.ndarray:
        return (self.bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def operand(rng, dtype: str, rows: int, cols: int, contiguous_rows: bool, batch: int = 0):
    """A (rows, cols) operand (``(batch, rows, cols)`` when batched) of small integers, stored
    with ``cols`` contiguous or, with ``contiguous_rows``, ``rows`` contiguous (a transposed
    view); returns (what the kernel gets, its float64 values)."""
    lead = (batch,) if batch else ()
    shape = lead + ((cols, rows) if contiguous_rows else (rows, cols))
    values = rng.integers(-4, 5, shape).astype(np.float32)
    if dtype == "bf16":
        data = BF16(values)
    else:
        data = values.astype(np.float16 if dtype == "f16" else np.float32)
    if contiguous_rows:
        data, values = data.swapaxes(-1, -2), values.swapaxes(-1, -2)
    return data, values.astype(np.float64)


def output(rows: int, cols: int, column_major: bool, batch: int = 0) -> np.ndarray:
    lead = (batch,) if batch else ()
    if column_major:
        return np.full((*lead, cols, rows), np.nan, np.float32).swapaxes(-1, -2)
    return np.full((*lead, rows, cols), np.nan, np.float32)


def run_gemm(dtype, majors, shapes, *, batch=0, epilogue="smem", seed=0) -> int:
    """Check every shape's product exactly; returns how many kernels the shapes compiled (a
    shape whose spec an earlier one had gets its kernel from memory: lc.compile's table)."""
    cfg = small_config(dtype, epilogue)
    kernel = sm80.make_gemm(cfg)
    rng = np.random.default_rng(seed)
    kernels = []
    for m, n, k in shapes:
        a, a64 = operand(rng, dtype, m, k, majors[0] == "M", batch)
        b, b64 = operand(rng, dtype, n, k, majors[1] == "N", batch)
        c = output(m, n, majors[2] == "C", batch)
        compiled = lc.compile(kernel, a, b, c, block=cfg.threads, target="cpu")
        if not any(compiled is x for x in kernels):
            kernels.append(compiled)
        compiled(a, b, c, grid=cfg.grid(m, n, max(batch, 1)), block=cfg.threads)
        want = a64 @ np.swapaxes(b64, -1, -2)
        np.testing.assert_array_equal(c, want, err_msg=f"{dtype} {majors} {m}x{n}x{k}")
    return len(kernels)


# A CPU compile of the GEMM (passes and the JIT) costs a hundred launches of it, so each case
# is one spec (one compile) launched at several shapes: extents with the same largest power-of-
# two divisor up to 16 (odd: 17, 41, 73, 129; 8 but not 16: 8, 40, 72, 200) and no two equal
# share a spec, and the test asserts that they did. The cases are a covering design, not a
# product of types, majors and sizes:
# - every major of A (K, M), B (K, N) and C (R, C) with every type (tf32, f16, bf16);
# - the peeled pipeline (a CTA inside C with a ragged K longer than BK: its first K-block
#   predicated, the rest not; tests/examples/test_gemm_k_peeling.py) with each operand's rows
#   aligned (128-bit cp.async: an extent of 8 mod 16) and ragged (an odd extent: 32-bit
#   cp.async for tf32, 16-bit copies with zero fill by clearing for f16 and bf16), for each
#   major of A and of B and each width of C's rows, in the 32-bit type and in the 16-bit ones;
# - the residue's pipeline (edge tiles, M or N under a tile, K within one ragged K-block: 17
#   for the 16-bit types' BK = 32) and the full tiles' (K % BK == 0 is not in these specs);
# - the sizes 1, 17, 129 and 200 in M, N and K (a unit extent is a spec of its own).
# (rows: A's and B's widths under the peeled pipeline, C's rows)
CASES = [
    # tf32, BK = 16: A K/M x narrow/wide, B K/N x narrow/wide, C R/C x narrow/wide
    ("tf32", "KKR", [(72, 40, 17), (72, 40, 129), (40, 200, 17), (200, 8, 129)]),  # A n, B n, C w
    ("tf32", "MNC", [(72, 40, 200), (200, 72, 40)]),  # A w, B w, C w
    ("tf32", "MKR", [(129, 41, 200), (17, 129, 200)]),  # A n, B w, C n
    ("tf32", "KNC", [(73, 129, 40), (129, 17, 200)]),  # A w, B n, C n
    ("tf32", "KKR", [(72, 40, 1)]),  # K = 1
    ("tf32", "MNC", [(72, 40, 1)]),
    ("tf32", "KNC", [(1, 129, 200)]),  # M = 1
    # f16 and bf16, BK = 32: between them, the same four widths of A, B and C
    ("f16", "KKR", [(72, 40, 129), (72, 40, 17), (40, 200, 129)]),  # A n, B n, C w
    ("f16", "MNC", [(129, 40, 200), (17, 200, 40)]),  # A n, B w, C n
    ("f16", "MKC", [(129, 17, 1), (17, 129, 1)]),  # K = 1
    ("bf16", "KKC", [(72, 41, 200), (200, 129, 40), (200, 17, 72)]),  # A w, B w, C w
    ("bf16", "MNR", [(72, 41, 129), (200, 17, 129), (72, 129, 17)]),  # A w, B n, C n
    ("bf16", "MKC", [(129, 200, 1), (17, 40, 1)]),  # K = 1
]


@pytest.mark.parametrize(
    ("dtype", "majors", "shapes"),
    CASES,
    ids=[f"{d}-{m}-" + "x".join(map(str, s[0])) for d, m, s in CASES],
)
def test_ragged_sizes_every_major_and_type(dtype, majors, shapes):
    assert run_gemm(dtype, majors, shapes) == 1


def test_full_and_residue_tiles_in_one_launch_share_a_kernel():
    # K a multiple of BK: the interior CTAs run the unpredicated pipeline, the edges the
    # predicated one; the other shapes reuse the first's kernel (same spec: every extent a
    # multiple of 8 and no two equal). K = 16 is a single K-block (BK = 16) with 3 stages:
    # the prologue's clamped loads read block 0 again, in the full tiles' pipeline (88 x 56:
    # two CTAs inside C) and in the residue's (104 x 8)
    assert run_gemm("tf32", "KKR", [(72, 40, 64), (40, 72, 48), (104, 8, 16), (88, 56, 16)]) == 1


def test_batched_with_the_direct_epilogue():
    # (L, M, K) x (L, N, K) -> (L, M, N), one batch per block_idx.z; the direct epilogue's
    # predicated stores
    run_gemm("tf32", "KKR", [(17, 40, 24)], batch=3, epilogue="direct")


# -- on the GPU: the default tiles at 4000 (ragged against 128) and 8191 (ragged everywhere) ---


def _torch_operand(torch, dtype, rows, cols, contiguous_rows, gen):
    shape = (cols, rows) if contiguous_rows else (rows, cols)
    x = torch.randn(shape, device="cuda", generator=gen)
    if dtype == "tf32":
        x = (x.view(torch.int32) & ~0x1FFF).view(torch.float32)  # exact in tf32
    else:
        x = x.to(torch.float16 if dtype == "f16" else torch.bfloat16)
    return x.t() if contiguous_rows else x


@pytest.mark.gpu
@pytest.mark.parametrize("size", [4000, 8191])
@pytest.mark.parametrize(("dtype", "majors"), [("tf32", "KKR"), ("tf32", "MNC"), ("f16", "KNR"),
                                               ("bf16", "MKC")])  # fmt: skip
def test_large_ragged_sizes_on_the_gpu_against_torch(dtype, majors, size):
    torch = pytest.importorskip("torch")
    cfg = sm80.GemmConfig(dtype, bk=32 if dtype == "tf32" else 64)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(size)
    m, n, k = size, size - 3, size + 5
    a = _torch_operand(torch, dtype, m, k, majors[0] == "M", gen)
    b = _torch_operand(torch, dtype, n, k, majors[1] == "N", gen)
    c = torch.full((n, m) if majors[2] == "C" else (m, n), float("nan"), device="cuda")
    c = c.t() if majors[2] == "C" else c
    sm80.make_gemm(cfg)(a, b, c, grid=cfg.grid(m, n), block=cfg.threads)
    torch.cuda.synchronize()
    want = a.double() @ b.double().t()
    error = ((c.double() - want).norm() / want.norm()).item()
    assert error <= 1e-4, error  # FP32 accumulation of exact products
