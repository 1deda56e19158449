"""K-residue peeling in the sm80 GEMM builder (examples/gemm_tf32_sm80.py; CuTe's
``sm80_mma_multistage``): a CTA whose tile lies inside C but whose K is not a multiple of BK
loads its partial K-block first, guarded by its coordinates (zero-filling cp.async), and every
following K-block full and unpredicated. On the CPU runtime the products are exact at K = 1, 17,
40, 129, 200 for every major of A, B and C and every input type, with inside and edge tiles
(tests/examples/test_gemm_general.py's ragged cases), with more stages than K-blocks and
batched; in the PTX of a ragged-K spec the peeled main loop has no predicate, no zero fill and no
bound compare. (The access width per operand is tests/examples/test_gemm_access_width.py.)
"""

from __future__ import annotations

import sys

import layoutc as lc
import numpy as np
import pytest
from example_files import EXAMPLES_DIR
from test_gemm_general import run_gemm
from test_gemm_sm80 import ZFILL, assert_unpredicated, loops, main_loops

sys.path.insert(0, str(EXAMPLES_DIR))
sys.path.insert(0, str(EXAMPLES_DIR.parent / "tests" / "frontend"))
import gemm_tf32_sm80 as sm80

# Many variants of a large whole-pipeline kernel: verified once after the pass pipeline, as
# users' compiles are (tests/conftest.py, verify_at_end; the example's own kernel is verified
# after every pass in tests/examples/test_examples.py).
pytestmark = pytest.mark.verify_at_end

# On the CPU, the peeled pipeline of every major of A, B and C and every input type, with
# each operand's rows aligned and ragged, is in tests/examples/test_gemm_general.py's
# test_ragged_sizes_every_major_and_type (one compile per case, launched at several shapes).


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


def gemm_ptx(cfg, a_spec, b_spec, c_spec, assume, arch="sm_80"):
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
    ptx = gemm_ptx(cfg, *specs, ["M%128==0", "N%128==0", "K%8==0"])
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
    ptx = gemm_ptx(cfg, "tf32[(M,K):(K,1)]", "tf32[(N,K):(K,1)]", "f32[(M,N):(N,1)]", ["K%32==0"])
    assert ptx.count("mma.sync") == 2 * 128  # the full tiles' and the M/N residue's
    unguarded = [x for x in loops(ptx) if not any(ZFILL.match(y) for y in x)]
    assert len(unguarded) == 1 and len(loops(ptx)) == 2
    # zero fill only in the residue's pipeline: 16 per K-block, 3 K-blocks
    assert sum(bool(ZFILL.match(x.strip())) for x in ptx.splitlines()) == 3 * 16
