"""The atom registry: definitions checked against the PTX ISA's fragment tables and CuTe."""

from __future__ import annotations

import pytest
from layoutc.ir.algebra import Layout, size
from layoutc.ir.dialects.tile.atoms import (
    COPY_OPERATIONS,
    MMA_OPERATIONS,
    AtomError,
    copy_operation,
    mma_operation,
)
from layoutc.ir.dialects.tile.tiled import make_copy_atom

MMA_NAMES = [n for n in MMA_OPERATIONS if n != "FMA"]


def _coords(layout: Layout, rows: int) -> dict[tuple[int, int], tuple[int, int]]:
    """(thread, value) -> (row, col) of a column-major (rows, cols) tile."""
    out = {}
    for t in range(size(layout, 0)):
        for v in range(size(layout, 1)):
            idx = layout((t, v))
            out[(t, v)] = (idx % rows, idx // rows)
    return out


@pytest.mark.parametrize("name", MMA_NAMES)
def test_mma_layouts_cover_their_tiles_exactly_once(name: str) -> None:
    op = mma_operation(name)
    m, n, k = op.shape_mnk
    for layout, rows, cols in ((op.layout_a, m, k), (op.layout_b, n, k), (op.layout_c, m, n)):
        assert size(layout, 0) == op.num_threads == 32
        cells = sorted(_coords(layout, rows).values())
        assert cells == sorted((r, c) for r in range(rows) for c in range(cols))


# PTX ISA, "Matrix Fragments for mma.m16n8k8" / "mma.m16n8k16" (groupID = lane >> 2,
# threadID_in_group = lane % 4). Each function gives (row, col) of value i of lane t.
def _ptx_c(t: int, i: int) -> tuple[int, int]:
    g, tig = t >> 2, t % 4
    return (g + 8 * (i >= 2), 2 * tig + (i & 1))


def _ptx_a_tf32(t: int, i: int) -> tuple[int, int]:
    g, tig = t >> 2, t % 4
    return (g + 8 * (i % 2), tig + 4 * (i >= 2))


def _ptx_b_tf32(t: int, i: int) -> tuple[int, int]:  # (row = k, col = n)
    g, tig = t >> 2, t % 4
    return (tig + 4 * i, g)


def _ptx_a_16bit(t: int, i: int) -> tuple[int, int]:
    g, tig = t >> 2, t % 4
    return (g + 8 * ((i // 2) % 2), 2 * tig + (i & 1) + 8 * (i >= 4))


def _ptx_b_16bit(t: int, i: int) -> tuple[int, int]:  # (row = k, col = n)
    g, tig = t >> 2, t % 4
    return (2 * tig + (i & 1) + 8 * (i >= 2), g)


# "Matrix Fragments for mma.m8n8k4 with .f64": one A and one B value, two C values per lane.
def _ptx_a_f64(t: int, i: int) -> tuple[int, int]:
    return (t >> 2, t % 4)


def _ptx_b_f64(t: int, i: int) -> tuple[int, int]:  # (row = k, col = n)
    return (t % 4, t >> 2)


def _ptx_c_f64(t: int, i: int) -> tuple[int, int]:
    return (t >> 2, 2 * (t % 4) + i)


@pytest.mark.parametrize("name", MMA_NAMES)
def test_mma_layouts_match_the_ptx_fragment_tables(name: str) -> None:
    op = mma_operation(name)
    m, n, k = op.shape_mnk
    refs = {
        (16, 8, 8): (_ptx_a_tf32, _ptx_b_tf32, _ptx_c),
        (16, 8, 16): (_ptx_a_16bit, _ptx_b_16bit, _ptx_c),
        (8, 8, 4): (_ptx_a_f64, _ptx_b_f64, _ptx_c_f64),
    }
    a_ref, b_ref, c_ref = refs[(m, n, k)]
    a = _coords(op.layout_a, m)  # (m, k)
    b = _coords(op.layout_b, n)  # (n, k)
    c = _coords(op.layout_c, m)  # (m, n)
    for t in range(32):
        for i in range(size(op.layout_a, 1)):
            assert a[(t, i)] == a_ref(t, i), (t, i)
        for i in range(size(op.layout_b, 1)):
            kk, nn = b_ref(t, i)
            assert b[(t, i)] == (nn, kk), (t, i)
        for i in range(size(op.layout_c, 1)):
            assert c[(t, i)] == c_ref(t, i), (t, i)


def test_mma_register_fragments_hold_each_threads_values() -> None:
    for name in MMA_NAMES:
        op = mma_operation(name)
        for frag, layout in (
            (op.frag_a, op.layout_a),
            (op.frag_b, op.layout_b),
            (op.frag_c, op.layout_c),
        ):
            assert frag.count * frag.per_register == size(layout, 1), name


def test_mma_inline_asm_text() -> None:
    op = mma_operation("SM80_16x8x8_F32TF32TF32F32_TN")
    assert op.asm() == (
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {$0, $1, $2, $3}, "
        "{$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};"
    )
    assert op.constraints() == "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f"
    half = mma_operation("SM80_16x8x16_F16F16F16F16_TN")
    assert half.instruction == "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"
    assert half.constraints() == "=r,=r,r,r,r,r,r,r,r,r"
    with pytest.raises(AtomError, match="not one inline-asm instruction"):
        mma_operation("FMA").asm()


def test_mma_element_type_rules() -> None:
    tf32 = mma_operation("SM80_16x8x8_F32TF32TF32F32_TN")
    assert tf32.check_types("tf32", "tf32", "f32") is None
    assert tf32.check_types("f32", "f32", "f32") is None  # documented conversion
    assert "needs A of element type" in tf32.check_types("f16", "tf32", "f32")
    assert "needs C of element type f32" in tf32.check_types("tf32", "tf32", "f16")
    bf16 = mma_operation("SM80_16x8x16_F32BF16BF16F32_TN")
    assert "needs B of element type bf16" in bf16.check_types("bf16", "f16", "f32")
    fma = mma_operation("FMA")
    assert fma.check_types("f32", "f32", "f32") is None
    assert fma.check_types("f16", "f16", "f32") is None
    assert "one element type" in fma.check_types("f16", "f32", "f32")
    assert "narrower" in fma.check_types("f32", "f32", "f16")
    assert "both floating-point or both integer" in fma.check_types("i32", "i32", "f32")


def test_unknown_mma_atom_lists_the_choices() -> None:
    with pytest.raises(
        AtomError, match=r"unknown MMA atom 'SM90_X'.*SM80_16x8x8_F32TF32TF32F32_TN"
    ):
        mma_operation("SM90_X")


# -- copy atoms ------------------------------------------------------------------------------


def test_copy_registry_widths() -> None:
    assert sorted(b for n, b in COPY_OPERATIONS if n == "universal") == [8, 16, 32, 64, 128]
    assert sorted(b for n, b in COPY_OPERATIONS if n == "cp.async.ca") == [32, 64, 128]
    assert sorted(b for n, b in COPY_OPERATIONS if n == "cp.async.cg") == [128]
    for count in (1, 2, 4):
        for suffix in ("", ".trans"):
            assert copy_operation(f"ldmatrix.x{count}{suffix}", 32 * count).num_threads == 32


@pytest.mark.parametrize(
    ("name", "bits", "message"),
    [
        ("cp.async.cg", 32, "128 bits .16 bytes. only"),
        ("universal", 24, "supports 8, 16, 32, 64, 128 bits, not 24"),
        ("ldmatrix.x4", 64, "moves 128 bits per thread, not 64"),
        ("tma", 128, "unknown copy atom 'tma'"),
    ],
)
def test_copy_atom_errors(name: str, bits: int, message: str) -> None:
    with pytest.raises(AtomError, match=message):
        copy_operation(name, bits)


def test_copy_atom_spaces_and_elements() -> None:
    cp = copy_operation("cp.async.ca", 128)
    assert cp.check_spaces("gmem", "smem") is None
    assert "gmem -> smem, not smem -> rmem" in cp.check_spaces("smem", "rmem")
    ld = copy_operation("ldmatrix.x4", 128)
    assert ld.check_spaces("smem", "rmem") is None
    assert "not gmem -> rmem" in ld.check_spaces("gmem", "rmem")
    assert ld.check_element_bits(16) is None
    assert ld.check_element_bits(32) is None  # tf32 through ldmatrix (CUTLASS example 59)
    assert ld.check_element_bits(8) is None  # FP8 A fragments of the _RS wgmma atoms
    assert "16-bit elements" in copy_operation("ldmatrix.x2.trans", 64).check_element_bits(32)
    assert "16-bit elements" in copy_operation("ldmatrix.x2.trans", 64).check_element_bits(8)
    assert "not a whole number" in copy_operation("universal", 16).check_element_bits(32)


def test_ldmatrix_destination_layouts_follow_the_ptx_definition() -> None:
    # Non-transposed: thread t receives, of matrix j, the two b16 values of row t // 4 at
    # columns 2 * (t % 4) + {0, 1}; the source row r of matrix j is row r % 8 of it.
    for count in (1, 2, 4):
        atom = make_copy_atom(f"ldmatrix.x{count}", 32 * count, "f16")
        dst = atom.val_layout_dst  # (thread, value) -> element of the 8x8 matrices, row-major
        for t in range(32):
            for j in range(count):
                for h in range(2):
                    element = dst((t, h + 2 * j))
                    assert element == 64 * j + 8 * (t // 4) + 2 * (t % 4) + h
    # Transposed: the value lands in column-major position (each b16 from a different row).
    for count in (1, 2, 4):
        atom = make_copy_atom(f"ldmatrix.x{count}.trans", 32 * count, "f16")
        dst = atom.val_layout_dst
        for t in range(32):
            for j in range(count):
                for h in range(2):
                    element = dst((t, h + 2 * j))
                    row, col = t // 4, 2 * (t % 4) + h
                    assert element == 64 * j + 8 * col + row


def test_copy_atom_value_counts() -> None:
    assert make_copy_atom("universal", 128, "f32").num_values == 4
    assert make_copy_atom("universal", 128, "f16").num_values == 8
    assert make_copy_atom("cp.async.ca", 32, "f32").num_values == 1
    ld = make_copy_atom("ldmatrix.x1", 32, "f16")
    assert (ld.num_values_src, ld.num_values_dst) == (8, 2)
    with pytest.raises(AtomError, match="not a whole number of 64-bit elements"):
        make_copy_atom("universal", 32, "f64")


def test_copy_asm_text() -> None:
    assert (
        copy_operation("cp.async.ca", 64).asm == "cp.async.ca.shared.global.L2::128B [$0], [$1], 8;"
    )
    assert copy_operation("ldmatrix.x2.trans", 64).asm == (
        "ldmatrix.sync.aligned.x2.trans.m8n8.shared.b16 {$0, $1}, [$2];"
    )
    assert copy_operation("ldmatrix.x4", 128).constraints == "=r,=r,=r,=r,r"


def test_every_atom_names_its_origin() -> None:
    for op in [*COPY_OPERATIONS.values(), *MMA_OPERATIONS.values()]:
        assert op.origin.startswith("cute/atom/")
