"""A view's type is inferred from what is known about its index operands: a constant gives a
static origin (coordinate tensors) or a static swizzled slice (which may decay to a plain
layout). Folding can make an operand constant *after* the view was built (``arith`` folds,
``gpu.thread_id`` of an extent-1 dimension, fold-static-strides): the declared type, inferred
under weaker knowledge, still describes the same value and must stay valid. A declared type
more static than what is proven stays an error."""

from __future__ import annotations

import re

import pytest
from layoutc.ir.core import Context, parse, parse_source, print_op, verify_op
from layoutc.passes.manager import PassManager

_HEADER = "func.func @f() attributes {gpu.kernel, gpu.known_block_size = array<i32: 16, 1, 1>} {\n"

# a block index that canonicalize folds to 2 (it was dynamic when the view was built)
_FOLDS_TO_TWO = """
  %c1 = arith.constant 1 : index
  %b = arith.addi %c1, %c1 : index
"""

_COORD = (
    _HEADER
    + _FOLDS_TO_TWO
    + """
  %s = layout.constant #layout.int_tuple<"(5000,8)">
  %c = tile.make_identity_tensor %s : !layout.int_tuple<"(5000,8)"> -> !tile.tensor<coord, "(5000,8):(1@0,1@1)">
  %ty = gpu.thread_id y
  %t = tile.local_tile %c[(%b, %ty)] {tiler = #layout.int_tuple<"(1024,4)">} : !tile.tensor<coord, "(5000,8):(1@0,1@1)"> -> !tile.tensor<coord, "(1024,4):(1@0,1@1)", origin = "(?,?)">
  %x = tile.load %t[(1, 3)] : !tile.tensor<coord, "(1024,4):(1@0,1@1)", origin = "(?,?)"> -> !layout.int_tuple<"(?,?)">
  %ok = layout.elem_less %x, %s : !layout.int_tuple<"(?,?)">, !layout.int_tuple<"(5000,8)">
  "test.use"(%ok) : (i1) -> ()
  return
}
"""
)

_SWIZZLED = (
    _HEADER
    + _FOLDS_TO_TWO
    + """
  %s = tile.alloc_smem : !tile.tensor<f32, smem, "Sw<1,2,3> o 0 o (8,(4,2)):(4,(1,32))", 16>
  %v = tile.slice %s[(%b, _)] : !tile.tensor<f32, smem, "Sw<1,2,3> o 0 o (8,(4,2)):(4,(1,32))", 16> -> !tile.tensor<f32, smem, "Sw<1,2,3> o ? o ((4,2)):((1,32))", 16>
  %x = tile.load %v[3] : !tile.tensor<f32, smem, "Sw<1,2,3> o ? o ((4,2)):((1,32))", 16> -> f32
  "test.use"(%x) : (f32) -> ()
  return
}
"""
)


def messages(text: str) -> list[str]:
    """Diagnostics of parsing and verifying ``text`` (``test.use`` is an unregistered sink)."""
    ctx = Context(allow_unregistered=True)
    with ctx.diagnostics.collect() as found:
        module = parse_source(text, ctx, buffer_name="test.mlir")
    if module is not None:
        found.extend(verify_op(module))
    return [d.message for d in found]


def _canonicalize(text: str) -> str:
    ctx = Context(allow_unregistered=True)
    module = parse(text, ctx)
    with ctx.diagnostics.collect() as found:
        ok = PassManager.parse("builtin.module(canonicalize)", ctx).run(module)
    assert ok, "\n".join(d.format() for d in found)
    assert not verify_op(module)
    return print_op(module)


def test_coordinate_view_stays_valid_when_its_block_index_folds() -> None:
    out = _canonicalize(_COORD)
    # the operands are constants now (2 and thread_id y = 0), the types keep what was declared
    assert "gpu.thread_id" not in out and "arith.addi" not in out
    assert 'origin = "(?,?)">' in out
    assert '-> !layout.int_tuple<"(?,?)">' in out
    # nothing folds the predicate to a constant from the declared (dynamic) type
    assert "layout.elem_less" in out


def test_swizzled_slice_stays_valid_when_its_coordinate_folds() -> None:
    out = _canonicalize(_SWIZZLED)
    assert '"Sw<1,2,3> o ? o ((4,2)):((1,32))"' in out


def test_declared_types_may_know_less_than_is_proven() -> None:
    """A view of a constant written as such infers the static origin; a declared type that
    leaves it dynamic says less, and is accepted (like a weaker alignment)."""
    text = _COORD.replace("%b = arith.addi %c1, %c1 : index", "%b = arith.constant 2 : index")
    assert messages(text) == []


@pytest.mark.parametrize(
    ("declared", "expected"),
    [
        # an origin entry more static than proven: the thread index is not known to be 0
        ('origin = "(2048,0)"', 'origin = "(2048,?)"'),
        # a wrong static entry
        ('origin = "(1024,?)"', 'origin = "(2048,?)"'),
    ],
)
def test_declared_origins_must_not_claim_more_than_is_proven(declared: str, expected: str) -> None:
    text = (
        _HEADER.replace("16, 1, 1", "16, 2, 1")
        + """
  %b = arith.constant 2 : index
  %s = layout.constant #layout.int_tuple<"(5000,8)">
  %c = tile.make_identity_tensor %s : !layout.int_tuple<"(5000,8)"> -> !tile.tensor<coord, "(5000,8):(1@0,1@1)">
  %ty = gpu.thread_id y
  %t = tile.local_tile %c[(%b, %ty)] {tiler = #layout.int_tuple<"(1024,4)">} : !tile.tensor<coord, "(5000,8):(1@0,1@1)"> -> !tile.tensor<coord, "(1024,4):(1@0,1@1)", DECL>
  return
}
""".replace("DECL", declared)
    )
    found = messages(text)
    assert len(found) == 1
    assert re.search(re.escape(expected) + r">' \(the algebra on the operand types\)", found[0])


def test_loads_must_not_claim_more_than_is_proven() -> None:
    text = _COORD.replace('-> !layout.int_tuple<"(?,?)">', '-> !layout.int_tuple<"(2049,?)">')
    text = text.replace(
        '%x, %s : !layout.int_tuple<"(?,?)">', '%x, %s : !layout.int_tuple<"(2049,?)">'
    )
    found = messages(text)
    assert len(found) == 1 and "should be '!layout.int_tuple<\"(?,?)\">'" in found[0]


def test_coordinate_load_stays_valid_when_its_coordinate_folds() -> None:
    text = (
        _HEADER
        + _FOLDS_TO_TWO
        + """
  %s = layout.constant #layout.int_tuple<"(4,8)">
  %c = tile.make_identity_tensor %s : !layout.int_tuple<"(4,8)"> -> !tile.tensor<coord, "(4,8):(1@0,1@1)">
  %col = tile.slice %c[(_, 3)] : !tile.tensor<coord, "(4,8):(1@0,1@1)"> -> !tile.tensor<coord, "(4):(1@0)", origin = "(0,3)">
  %x = tile.load %col[%b] : !tile.tensor<coord, "(4):(1@0)", origin = "(0,3)"> -> !layout.int_tuple<"(?,3)">
  %ok = layout.elem_less %x, %s : !layout.int_tuple<"(?,3)">, !layout.int_tuple<"(4,8)">
  "test.use"(%ok) : (i1) -> ()
  return
}
"""
    )
    out = _canonicalize(text)
    assert '-> !layout.int_tuple<"(?,3)">' in out
