"""stmatrix (CuTe's SM90_U32x{1,2,4}_STSM_N): the atoms mirror ldmatrix's, the CPU runtime
writes each lane's values to the rows the other lanes address, and an MMA epilogue through
stmatrix matches numpy; the PTX has the instruction and assembles for sm_90."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from layoutc.ir.dialects.tile.atoms import copy_operation
from stmatrix_kernels import COL_MAJOR, ROW_MAJOR, make


def test_stmatrix_atoms_mirror_ldmatrix():
    for n in (1, 2, 4):
        for trans in ("", ".trans"):
            st = copy_operation(f"stmatrix.x{n}{trans}", 32 * n)
            ld = copy_operation(f"ldmatrix.x{n}{trans}", 32 * n)
            assert (st.src_bits, st.dst_bits) == (ld.dst_bits, ld.src_bits)
            assert st.min_sm == 90
    assert copy_operation("SM90_U32x4_STSM_N", 128).name == "stmatrix.x4"
    assert copy_operation("SM90_U16x8_STSM_T", 128).name == "stmatrix.x4.trans"


@pytest.mark.parametrize(
    ("atom", "s_c"), [("SM90_U32x4_STSM_N", ROW_MAJOR), ("SM90_U16x8_STSM_T", COL_MAJOR)]
)
def test_mma_epilogue_through_stmatrix_matches_numpy(atom, s_c):
    kernel = make(atom, s_c)
    rng = np.random.default_rng(3)
    a = rng.integers(-3, 4, (16, 16)).astype(np.float16)
    b = rng.integers(-3, 4, (16, 16)).astype(np.float16)
    c = np.full((16, 16), np.nan, np.float16)
    kernel(a, b, c, grid=1, block=32)
    np.testing.assert_array_equal(c, (a.astype(np.float64) @ b.astype(np.float64).T))


def test_stmatrix_assembles_for_sm90():
    kernel = make("SM90_U32x4_STSM_N", ROW_MAJOR)
    a = np.zeros((16, 16), np.float16)
    ck = lc.compile(kernel, a, a, a, block=32, target="sm_90")
    assert "stmatrix.sync.aligned.x4.m8n8.shared.b16" in ck.ptx
    assert ck.cubin is None or ck.cubin[:4] == b"\x7fELF"


@pytest.mark.gpu
@pytest.mark.parametrize(
    ("atom", "s_c"), [("SM90_U32x4_STSM_N", ROW_MAJOR), ("SM90_U16x8_STSM_T", COL_MAJOR)]
)
def test_mma_epilogue_through_stmatrix_on_the_gpu(atom, s_c):
    torch = pytest.importorskip("torch")
    kernel = make(atom, s_c)
    g = torch.Generator(device="cuda").manual_seed(3)
    a = torch.randint(-3, 4, (16, 16), generator=g, device="cuda").half()
    b = torch.randint(-3, 4, (16, 16), generator=g, device="cuda").half()
    c = torch.full((16, 16), float("nan"), device="cuda").half()
    kernel(a, b, c, grid=1, block=32)
    torch.cuda.synchronize()
    assert torch.equal(c.double(), a.double() @ b.double().T)
