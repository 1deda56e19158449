"""stmatrix (CuTe's SM90_U32x{1,2,4}_STSM_N, SM90_U16x{2,4,8}_STSM_T): the atoms mirror
ldmatrix's, the CPU runtime writes each lane's values to the rows the other lanes address, and
an MMA epilogue through stmatrix matches numpy for every atom and tiles where a thread repeats
the atom (the natural nested partitions of ``make_tiled_copy_C``); the PTX has the
instructions and assembles for sm_90."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from layoutc.ir.dialects.tile.atoms import copy_operation
from stmatrix_kernels import COL_MAJOR, ROW_MAJOR, make, smem_layout


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


ATOMS = [
    *(f"SM90_U32x{n}_STSM_N" for n in (1, 2, 4)),
    *(f"SM90_U16x{2 * n}_STSM_T" for n in (1, 2, 4)),
]
TILES = [(16, 16), (32, 32), (64, 32), (32, 64)]


def _count(atom: str) -> int:
    return int(atom.split("x")[1].split("_")[0]) // (1 if atom.endswith("_N") else 2)


def _inputs(m: int, n: int, seed: int = 3):
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (m, 16)).astype(np.float16)
    b = rng.integers(-3, 4, (n, 16)).astype(np.float16)
    return a, b, np.full((m, n), np.nan, np.float16)


@pytest.mark.parametrize("tile", TILES, ids=lambda t: f"{t[0]}x{t[1]}")
@pytest.mark.parametrize("atom", ATOMS)
def test_nested_partitions_through_every_stmatrix_atom_match_numpy(atom, tile):
    """``retile_S``/``partition_D`` as CuTe gives them, unflattened: with 32 x 32 and x4 the
    destination is ``((8,4),1,1)`` (4 stmatrix per thread), with x1/x2 the shared-memory side
    names whole rows (8 values) while the registers hold 2 or 4 per instruction."""
    m, n = tile
    kernel = make(atom, smem_layout(m, n, atom.endswith("_T")), tile)
    a, b, c = _inputs(m, n)
    kernel(a, b, c, grid=1, block=32)
    np.testing.assert_array_equal(c, a.astype(np.float64) @ b.astype(np.float64).T)


def test_the_partitions_stay_nested():
    """The copy gets CuTe's partitions, not flattened ones: mode 0 of the 32 x 32 tile's
    shared-memory partition is (8,4), one stmatrix.x4's row and its 4 repetitions."""
    kernel = make("SM90_U32x4_STSM_N", smem_layout(32, 32, False), (32, 32))
    a, b, c = _inputs(32, 32)
    module, _, _ = kernel.trace(kernel.specialize(a, b, c, block=32))
    text = module.to_text()
    assert '"((8,4),1,1):((1,8),0,0)"' in text and '"(((4,2),4),1,1)' in text


@pytest.mark.parametrize("atom", ATOMS)
def test_every_stmatrix_atom_assembles_for_sm90(atom):
    m, n = 64, 32
    kernel = make(atom, smem_layout(m, n, atom.endswith("_T")), (m, n))
    a, b, c = _inputs(m, n)
    ck = lc.compile(kernel, a, b, c, block=32, target="sm_90")
    count = _count(atom)
    trans = ".trans" if atom.endswith("_T") else ""
    lines = [x for x in ck.ptx.splitlines() if "stmatrix.sync" in x]
    assert all(f"stmatrix.sync.aligned.x{count}{trans}.m8n8.shared.b16" in x for x in lines)
    assert len(lines) == m * n // (32 * 2 * count)  # every instruction stores 2 * count per lane
    assert ck.cubin is None or ck.cubin[:4] == b"\x7fELF"


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
