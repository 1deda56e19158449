"""Views of tensors with dynamic strides: a row of a row-major matrix whose leading dimension
``ld`` is a kernel argument. The view's *type* knows nothing about ``ld`` (a tensor type's ``?``
entries carry no facts), so it only states the element's alignment; the proofs do not read it.
prove-vectorization works on the symbolic values, where ``ld`` carries its argument's
``layoutc.divisible_by``, and fold-static-strides restates what it proves in the types
(``tile.assume`` + ``tile.ptr_offset``). Checked both ways: with ``ld`` a multiple of 4 the row
copy is proven 128-bit and the folded types say 16 bytes; with only a multiple of 2 it is not,
and the remark names the offset."""

from __future__ import annotations

import re

import pytest
from layout_pass_helpers import Kernel, parse_module, remarks, run

ROW = '!tile.tensor<f32, gmem, "(32):(1)", 4>'
PART = '!tile.tensor<f32, gmem, "(4):(1)", 4>'
MATRIX = "(?,32):(?,1)"


def _row_copy(ld_divisor: int) -> str:
    """Thread t copies elements 4t..4t+3 of row ``%r`` of src to the same row of dst."""
    k = Kernel(block=(8, 1, 1))
    s, d = k.pointer("src"), k.pointer("dst")
    m = k.index_arg("m", lower=1)
    ld = k.index_arg("ld", divisible_by=ld_divisor, lower=32)
    r = k.index_arg("r", lower=0)
    layout = k.layout(MATRIX, shape_values=[m], stride_values=[ld])
    ts, tts = k.tensor(s, layout, MATRIX)
    td, ttd = k.tensor(d, layout, MATRIX)
    k.op("%tid = gpu.thread_id x")
    tv = '{tv_layout = #layout.layout<"(8,4):(4,1)">}'
    for name, t, tt in (("s", ts, tts), ("d", td, ttd)):
        k.op(f"%row{name} = tile.slice {t}[({r}, _)] : {tt} -> {ROW}")
        k.op(f"%p{name} = tile.partition_tv %row{name}[%tid] {tv} : {ROW} -> {PART}")
    k.op(f"tile.copy %ps, %pd : {PART}, {PART}")
    return k.text()


def test_the_traced_row_type_states_only_the_element_alignment() -> None:
    """The type inferred from the operand types alone (what a builder or parser checks)."""
    text = _row_copy(4)
    assert f"-> {ROW}" in text
    parse_module(text)  # verifies: 4 bytes is what the types prove


@pytest.mark.parametrize("divisor", [4, 8, 16])
def test_rows_of_a_leading_dimension_divisible_by_4_get_128_bit_copies(divisor: int) -> None:
    found = remarks(run(parse_module(_row_copy(divisor))))
    assert found == ["copy uses 128-bit accesses: 4 contiguous f32, 16-byte alignment proven"]


@pytest.mark.parametrize(("divisor", "bits", "align"), [(1, 32, 4), (2, 64, 8)])
def test_rows_of_other_leading_dimensions_are_not_proven_128_bit(
    divisor: int, bits: int, align: int
) -> None:
    (found,) = remarks(run(parse_module(_row_copy(divisor))))
    assert found.startswith(f"copy uses {bits}-bit accesses")
    assert "128-bit" not in found
    # the reason names the row offset r * ld (also after fold-static-strides restated it)
    assert re.search(r"offset ld\*r \+ 4\*tid_x is not provably a multiple of [24] elements", found)
    if bits > 32:
        assert f"{align}-byte alignment proven" in found


@pytest.mark.parametrize(("divisor", "align"), [(1, 4), (2, 8), (4, 16), (32, 16)])
def test_fold_static_strides_restates_the_proven_alignment_in_the_types(
    divisor: int, align: int
) -> None:
    module = parse_module(_row_copy(divisor))
    run(module, "builtin.module(fold-static-strides)")
    copies: list = []
    module.walk(lambda op: copies.append(op) if op.name == "tile.copy" else None)
    (copy,) = copies
    for v in copy.operands:
        assert v.type.alignment == align
