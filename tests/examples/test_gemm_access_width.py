"""Per-operand access width in the sm80 GEMM builder (examples/gemm_tf32_sm80.py), from the
spec's alignment facts: 16-, 8- or 4-byte cp.async (or, for 16-bit elements on 2-byte rows,
plain 16-bit copies) as the leading dimension allows; FileCheck on the PTX's cp.async sizes,
and exact products on the CPU runtime with odd leading dimensions (padded rows). (K-residue
peeling is tests/examples/test_gemm_k_peeling.py.)
"""

from __future__ import annotations

import re
import sys

import layoutc as lc
import numpy as np
import pytest
from example_files import EXAMPLES_DIR
from test_gemm_general import BF16, output, small_config
from test_gemm_k_peeling import gemm_ptx

sys.path.insert(0, str(EXAMPLES_DIR))
sys.path.insert(0, str(EXAMPLES_DIR.parent / "tests" / "frontend"))
import gemm_tf32_sm80 as sm80

# Many variants of a large whole-pipeline kernel: verified once after the pass pipeline, as
# users' compiles are (tests/conftest.py, verify_at_end; the example's own kernel is verified
# after every pass in tests/examples/test_examples.py).
pytestmark = pytest.mark.verify_at_end

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
    ptx = gemm_ptx(
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
