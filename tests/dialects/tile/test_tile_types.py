"""!tile.ptr / !tile.tensor types and #tile atom attributes: printing, parsing, accessors."""

from __future__ import annotations

import re

import pytest
from layoutc.ir.algebra import Layout
from layoutc.ir.algebra.symbolic import SymInt
from layoutc.ir.core import DiagnosticError, bf16, f16, f32, i1, i8, parse_attribute, parse_type
from layoutc.ir.dialects.tile import CopyAtomAttr, MMAAtomAttr, PtrType, TensorType
from tile_helpers import ctx


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("!tile.ptr<f32, gmem, 16>", "!tile.ptr<f32, gmem, 16>"),
        ("!tile.ptr<f16,smem>", "!tile.ptr<f16, smem, 2>"),
        ("!tile.ptr<i1, rmem, 1>", "!tile.ptr<i1, rmem, 1>"),
        (
            '!tile.tensor<f32, gmem, "(4, ?):(1,?)", 16>',
            '!tile.tensor<f32, gmem, "(4,?):(1,?)", 16>',
        ),
        (
            '!tile.tensor<bf16, smem, "Sw<3,4,3> o 0 o (8,64):(64,1)">',
            '!tile.tensor<bf16, smem, "Sw<3,4,3> o 0 o (8,64):(64,1)", 2>',
        ),
        ('!tile.tensor<coord, "(4,8):(1@0,1@1)">', '!tile.tensor<coord, "(4,8):(1@0,1@1)">'),
        (
            '!tile.tensor<tf32, rmem, "(4,2,2):(1,4,8)", 4>',
            '!tile.tensor<tf32, rmem, "(4,2,2):(1,4,8)", 4>',
        ),
    ],
)
def test_types_print_canonically(text: str, canonical: str) -> None:
    t = parse_type(text, ctx())
    assert t.text == canonical
    assert parse_type(canonical, ctx()) is t


def test_types_are_interned_and_expose_their_parts() -> None:
    p = PtrType(f32, "gmem", 16)
    assert p is PtrType(f32, "gmem", 16)
    assert (p.element, p.space, p.alignment, p.element_bits) == (f32, "gmem", 16, 32)
    t = TensorType(f16, "smem", "(8, ?):(?,1)", 8)
    assert t is TensorType(f16, "smem", "(8,?):(?,1)", 8)
    assert t.layout_text == "(8,?):(?,1)"
    assert (t.num_dynamic, t.is_static, t.element_bits) == (2, False, 16)
    assert t.ptr_type() is PtrType(f16, "smem", 8)
    layout = t.layout()
    assert isinstance(layout, Layout)
    assert layout.shape[0] == 8 and isinstance(layout.shape[1], SymInt)
    assert t.layout([5, 3]) == Layout((8, 5), (3, 1))
    c = TensorType(None, "coord", "(4,8):(1@0,1@1)")
    assert c.is_coord and c.element_name == "coord" and c.is_static


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("!tile.ptr<f32, lmem, 16>", "memory space must be one of gmem, smem, rmem, got 'lmem'"),
        ("!tile.ptr<f32, gmem, 12>", "alignment must be a positive power of two"),
        ("!tile.ptr<index, gmem>", "element type must be one of"),
        ('!tile.tensor<f32, coord, "4:1">', "memory space must be one of gmem, smem, rmem"),
        ('!tile.tensor<f32, gmem, "(4,8):(1)", 4>', "invalid layout in '!tile.tensor'"),
        ('!tile.tensor<f32, gmem, "(N,8):(1,N)", 4>', "write '?' for each dynamic entry"),
        ("!tile.tensor<f32, gmem, 4>", "expected string literal"),
    ],
)
def test_invalid_types_are_diagnosed(text: str, message: str) -> None:
    with pytest.raises(DiagnosticError, match=re.escape(message)):
        parse_type(text, ctx())


def test_python_construction_errors() -> None:
    with pytest.raises(ValueError, match="coordinate tensor has no element type"):
        TensorType(f32, "coord", "4:1")
    with pytest.raises(ValueError, match="alignment"):
        TensorType(f32, "gmem", "4:1", 3)
    with pytest.raises(ValueError, match="coordinate tensor has no pointer"):
        TensorType(None, "coord", "4:1@0").ptr_type()
    assert PtrType(i8, "gmem").alignment == 1
    assert PtrType(bf16, "rmem").alignment == 2
    assert PtrType(i1, "rmem").alignment == 1


def test_atom_attributes_resolve_to_the_registry() -> None:
    a = parse_attribute('#tile.copy_atom<"cp.async.ca", 128>', ctx())
    assert isinstance(a, CopyAtomAttr) and a.op.asynchronous and a.bits == 128
    assert a is CopyAtomAttr("cp.async.ca", 128)
    m = parse_attribute('#tile.mma_atom<"SM80_16x8x16_F32BF16BF16F32_TN">', ctx())
    assert isinstance(m, MMAAtomAttr) and m.op.shape_mnk == (16, 8, 16)
    assert m.text == '#tile.mma_atom<"SM80_16x8x16_F32BF16BF16F32_TN">'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('#tile.copy_atom<"ldmatrix.x8", 256>', "unknown copy atom 'ldmatrix.x8'"),
        ('#tile.copy_atom<"cp.async.cg", 64>', "copies 128 bits"),
        ('#tile.mma_atom<"SM80_16x8x8_F16F16F16F16_TN">', "unknown MMA atom"),
    ],
)
def test_unknown_atoms_are_diagnosed(text: str, message: str) -> None:
    with pytest.raises(DiagnosticError, match=message):
        parse_attribute(text, ctx())


def test_every_registry_atom_round_trips_as_an_attribute() -> None:
    from layoutc.ir.dialects.tile import COPY_OPERATIONS, MMA_OPERATIONS

    for name, bits in COPY_OPERATIONS:
        attr = CopyAtomAttr(name, bits)
        assert parse_attribute(attr.text, ctx()) is attr
        assert attr.op is COPY_OPERATIONS[(name, bits)]
    for name in MMA_OPERATIONS:
        attr = MMAAtomAttr(name)
        assert parse_attribute(attr.text, ctx()) is attr


@pytest.mark.parametrize("space", ["gmem", "smem", "rmem"])
@pytest.mark.parametrize(
    "elem", ["i1", "i8", "i16", "i32", "i64", "f16", "bf16", "tf32", "f32", "f64"]
)
def test_every_element_and_space_round_trips(space: str, elem: str) -> None:
    for text in (
        f"!tile.ptr<{elem}, {space}, 16>",
        f'!tile.tensor<{elem}, {space}, "(2,?):(?,1)", 16>',
    ):
        t = parse_type(text, ctx())
        assert t.text == text and parse_type(t.text, ctx()) is t
