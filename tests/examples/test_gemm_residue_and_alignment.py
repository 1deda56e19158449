"""Two parts of the sm80 GEMM builder (examples/gemm_tf32_sm80.py) for general shapes:

- *K-residue peeling* (CuTe's ``sm80_mma_multistage``): a CTA whose tile lies inside C but
  whose K is not a multiple of BK loads its partial K-block first, guarded by its coordinates
  (zero-filling cp.async), and every following K-block full and unpredicated. On the CPU
  runtime the products are exact at K = 1, 17, 129, 1000 for every major of A, B and C and
  every input type (M and N give both inside and edge tiles); in the PTX of a ragged-K spec the
  peeled main loop has no predicate, no zero fill and no bound compare.
- *Per-operand access width from the spec's alignment facts*: 16-, 8- or 4-byte cp.async (or,
  for 16-bit elements on 2-byte rows, plain 16-bit copies) as the leading dimension allows;
  FileCheck on the PTX's cp.async sizes, and exact products on the CPU runtime with odd
  leading dimensions (padded rows).
"""

from __future__ import annotations

import re
import sys

import layoutc as lc
import numpy as np
import pytest
from example_files import EXAMPLES_DIR
from test_gemm_general import BF16, output, run_gemm, small_config
from test_gemm_sm80 import ZFILL, assert_unpredicated, loops, main_loops

sys.path.insert(0, str(EXAMPLES_DIR))
sys.path.insert(0, str(EXAMPLES_DIR.parent / "tests" / "frontend"))
import gemm_tf32_sm80 as sm80

# -- K-residue peeling ------------------------------------------------------------------------

# Each type sees A K- and M-major, B K- and N-major, C row- and column-major.
PEEL_CASES = [
    ("tf32", "KKR"),
    ("tf32", "MNC"),
    ("f16", "KNR"),
    ("f16", "MKC"),
    ("bf16", "KKC"),
    ("bf16", "MNR"),
]


@pytest.mark.parametrize(("dtype", "majors"), PEEL_CASES, ids=[f"{d}-{m}" for d, m in PEEL_CASES])
def test_ragged_k_every_major_and_type(dtype, majors):
    # 72 x 40 with 32 x 32 tiles: two CTAs inside C (the peeled pipeline when K is ragged and
    # longer than BK: 17 for tf32's BK = 16, 129 and 1000 for all), four on its edges; K = 1
    # (and 17 for 16-bit types, BK = 32) is a single ragged K-block: the residue pipeline
    run_gemm(dtype, majors, [(72, 40, k) for k in (1, 17, 129, 1000)], recompile=True)


def test_two_k_blocks_with_more_stages_than_k_blocks():
    # K = 33, BK = 16: the partial block (K 32..32) first, then blocks 0 and 1; 4 stages: the
    # prologue's third load and the loop's refills clamp to block 1 (loaded again, unused)
    cfg = sm80.GemmConfig("tf32", 32, 32, 16, 4, 1, 1)
    rng = np.random.default_rng(1)
    m, n, k = 64, 64, 33
    a = rng.integers(-4, 5, (m, k)).astype(np.float32)
    b = rng.integers(-4, 5, (n, k)).astype(np.float32)
    c = np.full((m, n), np.nan, np.float32)
    ck = lc.compile(sm80.make_gemm(cfg), a, b, c, block=cfg.threads, target="cpu")
    ck(a, b, c, grid=cfg.grid(m, n), block=cfg.threads)
    np.testing.assert_array_equal(c, a.astype(np.float64) @ b.astype(np.float64).T)


def test_batched_ragged_k_with_the_direct_epilogue():
    # (L, M, K) x (L, N, K): the peeled pipeline of each batch's inside tiles, the direct
    # epilogue's unpredicated stores after it
    run_gemm("tf32", "KKR", [(72, 40, 50)], batch=2, epilogue="direct")


def _ptx(cfg, a_spec, b_spec, c_spec, assume, arch="sm_80"):
    return lc.compile(
        sm80.make_gemm(cfg), lc.spec(a_spec), lc.spec(b_spec), lc.spec(c_spec), target=arch,
        block=cfg.threads, assume=assume, index_bitwidth=32,
    ).ptx  # fmt: skip


@pytest.mark.parametrize("majors", ["KKR", "MNC"])
def test_the_peeled_main_loop_is_unpredicated(majors):
    # M and N multiples of the tile, K only of 8: every CTA lies inside C, K is ragged; the
    # kernel still has the full tiles' pipeline (K % 32 == 0 at run time), the peeled one and
    # the residue's (K of one ragged K-block)
    cfg = sm80.CONFIG
    if majors == "KKR":
        specs = ("tf32[(M,K):(K,1)]", "tf32[(N,K):(K,1)]", "f32[(M,N):(N,1)]")
    else:
        specs = ("tf32[(M,K):(1,M)]", "tf32[(N,K):(1,N)]", "f32[(M,N):(1,M)]")
    ptx = _ptx(cfg, *specs, ["M%128==0", "N%128==0", "K%8==0"])
    full, peeled, residue = main_loops(ptx)
    for loop in (full, peeled):
        assert sum("mma.sync" in x for x in loop) == 128
        assert sum(x.startswith("cp.async.cg.shared.global") for x in loop) == 16
        assert_unpredicated(loop)  # no zero fill, no guard, no compare with K
    assert sum(bool(ZFILL.match(x)) for x in residue) == 16
    # the peeled pipeline's only zero-filling copies: its first K-block (16), outside any loop
    zfill = sum(bool(ZFILL.match(x.strip())) for x in ptx.splitlines())
    assert zfill == 3 * 16 + 16


def test_no_peeled_pipeline_where_the_spec_proves_k_a_multiple_of_bk():
    cfg = sm80.CONFIG
    ptx = _ptx(cfg, "tf32[(M,K):(K,1)]", "tf32[(N,K):(K,1)]", "f32[(M,N):(N,1)]", ["K%32==0"])
    assert ptx.count("mma.sync") == 2 * 128  # the full tiles' and the M/N residue's
    unguarded = [x for x in loops(ptx) if not any(ZFILL.match(y) for y in x)]
    assert len(unguarded) == 1 and len(loops(ptx)) == 2
    # zero fill only in the residue's pipeline: 16 per K-block, 3 K-blocks
    assert sum(bool(ZFILL.match(x.strip())) for x in ptx.splitlines()) == 3 * 16


# -- access width from the alignment facts ----------------------------------------------------


# (type, A's leading dimension fact) -> the cp.async bytes of A (B is K-major with K % 8 == 0:
# 16 bytes); None: 16-bit elements on 2-byte rows, no cp.async for A
WIDTH_CASES = [
    ("f16", "L%8==0", 16),
    ("f16", "L%4==0", 8),
    ("f16", "L%2==0", 4),
    ("f16", "L%1==0", None),
    ("tf32", "L%2==0", 8),
    ("tf32", "L%1==0", 4),
]


@pytest.mark.parametrize(("dtype", "fact", "width"), WIDTH_CASES)
def test_the_cp_async_width_follows_the_leading_dimension(dtype, fact, width):
    pytest.importorskip("filecheck")
    from frontend_helpers import filecheck

    cfg = sm80.GemmConfig(dtype, bk=32 if dtype == "tf32" else 64)
    ptx = _ptx(
        cfg, f"{dtype}[(M,K):(L,1)]", f"{dtype}[(N,K):(K,1)]", "f32[(M,N):(N,1)]",
        ["M%128==0", "N%128==0", "K%64==0", fact],
    )  # fmt: skip
    # the spec proves every tile full: one pipeline, no zero fill; A's copies are the narrow
    # ones (cp.async.ca below 16 bytes, CuTe's CACHEALWAYS), B's 16-byte cp.async.cg
    a_bytes = 16 if width is None else width
    b_copies = 128 * cfg.bk * cfg.element.bits // 8 // 16 // cfg.threads  # per K-block and thread
    a_copies = 128 * cfg.bk * cfg.element.bits // 8 // a_bytes // cfg.threads
    if width == 16:
        checks = f"""
CHECK-NOT: cp.async.ca
CHECK-COUNT-{2 * (a_copies + b_copies)}: cp.async.cg.shared.global [%rd{{{{[0-9]+}}}}], [%rd{{{{[0-9]+}}}}], 16;
CHECK-NOT: cp.async.ca
"""
    elif width is not None:
        checks = f"""
CHECK-NOT: cp.async.{{{{.*}}}}, {{{{[0-9]+}}}}, %r
CHECK: cp.async.ca.shared.global [%rd{{{{[0-9]+}}}}], [%rd{{{{[0-9]+}}}}], {width};
CHECK: cp.async.cg.shared.global [%rd{{{{[0-9]+}}}}], [%rd{{{{[0-9]+}}}}], 16;
CHECK-NOT: cp.async.{{{{.*}}}}, {{{{[0-9]+}}}}, %r
"""
    else:
        checks = """
CHECK-NOT: cp.async.ca
CHECK: ld.global.b16
CHECK: st.shared
CHECK: cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16;
CHECK-NOT: cp.async.ca
"""
    filecheck(ptx, checks)
    sizes = re.findall(r"cp\.async\.c[ag]\.shared\.global \[%rd\d+\], \[%rd\d+\], (\d+);", ptx)
    if width is None:  # one 16-bit load per element of A
        assert ptx.count("ld.global.b16") == 3 * 128 * cfg.bk // cfg.threads
    elif width != 16:
        # one pipeline (the prologue's two K-blocks, the loop's one): A's and B's copies
        assert sizes.count(str(width)) == 3 * a_copies
        assert sizes.count("16") == 3 * b_copies
    assert ".local" not in ptx


def padded(rng, dtype, rows, cols, pad, contiguous_rows):
    """A (rows, cols) operand of small integers whose contiguous rows (columns) are ``pad``
    elements longer than the data: a leading dimension of ``cols + pad`` (``rows + pad``)."""
    inner, outer = (rows, cols) if contiguous_rows else (cols, rows)
    values = rng.integers(-4, 5, (outer, inner + pad)).astype(np.float32)
    if dtype == "bf16":
        full = BF16(values)
        full.bits = full.bits[:, :inner]
        full.shape = full.bits.shape
        data, kept = full, values[:, :inner]
    else:
        data = values.astype(np.float16 if dtype == "f16" else np.float32)[:, :inner]
        kept = values[:, :inner]
    if contiguous_rows:
        data, kept = data.swapaxes(0, 1), kept.swapaxes(0, 1)
    return data, kept.astype(np.float64)


# (type, majors, A's padding, B's padding): leading dimensions that leave rows 8-, 4- or
# 2-byte aligned (f16/bf16: +4, +2, +1 elements on a multiple of 8; tf32: +2, +1 on one of 4)
PAD_CASES = [
    ("f16", "KKR", 1, 2),
    ("f16", "MNC", 4, 1),
    ("bf16", "KNR", 2, 4),
    ("tf32", "KKR", 1, 2),
    ("tf32", "MNC", 2, 1),
]


@pytest.mark.parametrize(("dtype", "majors", "pad_a", "pad_b"), PAD_CASES)
def test_odd_leading_dimensions_on_the_cpu(dtype, majors, pad_a, pad_b):
    cfg = small_config(dtype)
    kernel = sm80.make_gemm(cfg)
    rng = np.random.default_rng(pad_a * 10 + pad_b)
    for m, n, k in [(72, 40, 100)]:  # K-peeled tiles inside C, residue tiles on its edges
        a, a64 = padded(rng, dtype, m, k, pad_a, majors[0] == "M")
        b, b64 = padded(rng, dtype, n, k, pad_b, majors[1] == "N")
        c = output(m, n, majors[2] == "C")
        ck = lc.compile(kernel, a, b, c, block=cfg.threads, target="cpu")
        ck(a, b, c, grid=cfg.grid(m, n), block=cfg.threads)
        np.testing.assert_array_equal(c, a64 @ b64.T, err_msg=f"{dtype} {majors} {m}x{n}x{k}")
