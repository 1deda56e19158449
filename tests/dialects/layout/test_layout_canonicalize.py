"""Canonicalization: folds through chains, producer-aware folders and the dialect's patterns."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from layout_helpers import canonicalize, ctx, examples, layouts
from layoutc.ir import algebra as A
from layoutc.ir.algebra.inttuple import unflatten
from layoutc.ir.core import Value, parse
from layoutc.ir.dialects import layout as D


def run(text: str) -> str:
    module = parse(text, ctx())
    module.verify()
    canonicalize(module)
    module.verify()
    return module.to_text()


def test_static_chain_folds_to_constants() -> None:
    out = run(
        """
func.func @f() -> (index, !layout.layout<"(?,?):(?,?)">) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %s = layout.make_shape %c4, %c8 : !layout.int_tuple<"(?,?)">
  %d = layout.make_stride %c1, %c4 : !layout.int_tuple<"(?,?)">
  %l = layout.make_layout %s, %d : !layout.layout<"(?,?):(?,?)">
  %n = layout.cosize %l : !layout.layout<"(?,?):(?,?)">
  return %n, %l : index, !layout.layout<"(?,?):(?,?)">
}
"""
    )
    assert "layout.make" not in out
    assert "arith.constant 32 : index" in out
    assert 'layout.constant #layout.layout<"(4,8):(1,4)"> : !layout.layout<"(?,?):(?,?)">' in out


def test_producers_are_looked_through() -> None:
    out = run(
        """
func.func @f(%n: index, %m: index, %l: !layout.layout<"(4,?):(1,?)">)
    -> (!layout.int_tuple<"(4,?)">, !layout.int_tuple<"(1,?)">, !layout.layout<"(4,?):(1,?)">,
        !layout.int_tuple<"?">, index) {
  %s = layout.make_shape %n : !layout.int_tuple<"(4,?)">
  %d = layout.make_stride %m : !layout.int_tuple<"(1,?)">
  %x = layout.make_layout %s, %d : !layout.layout<"(4,?):(1,?)">
  %xs = layout.shape %x : (!layout.layout<"(4,?):(1,?)">) -> !layout.int_tuple<"(4,?)">
  %xd = layout.stride %x : (!layout.layout<"(4,?):(1,?)">) -> !layout.int_tuple<"(1,?)">
  %ls = layout.shape %l : (!layout.layout<"(4,?):(1,?)">) -> !layout.int_tuple<"(4,?)">
  %ld = layout.stride %l : (!layout.layout<"(4,?):(1,?)">) -> !layout.int_tuple<"(1,?)">
  %y = layout.make_layout %ls, %ld : !layout.layout<"(4,?):(1,?)">
  %g = layout.get %s[1] : (!layout.int_tuple<"(4,?)">) -> !layout.int_tuple<"?">
  %z = layout.size %s : !layout.int_tuple<"(4,?)">
  return %xs, %xd, %y, %g, %z : !layout.int_tuple<"(4,?)">, !layout.int_tuple<"(1,?)">,
      !layout.layout<"(4,?):(1,?)">, !layout.int_tuple<"?">, index
}
"""
    )
    assert 'layout.make_shape %n : !layout.int_tuple<"?">' in out  # get of make_shape
    assert "arith.muli %n, %c4 : index" in out  # size of make_shape
    assert "return %s, %d, %l, %0, %1" in out, out
    assert "layout.shape" not in out and "layout.stride" not in out


def _evaluate(v: Value, env: dict[Value, int]) -> int:
    """Interpret the arith ops (constant, addi, subi, muli) that compute ``v``."""
    if v in env:
        return env[v]
    op = v.defining_op
    assert op is not None, "unexpected block argument"
    if op.name == "arith.constant":
        return op.value.value
    a, b = (_evaluate(x, env) for x in op.operands)
    return {"arith.addi": a + b, "arith.subi": a - b, "arith.muli": a * b}[op.name]


@examples(60)
@given(lay=layouts(), data=st.data())
def test_crd2idx_of_a_static_layout_becomes_affine_arith(lay, data) -> None:
    """Dynamic coordinate entries (block arguments) and constants mixed, in a static layout."""
    from layoutc.ir.core import Builder, FunctionType, InsertionPoint, IntegerAttr, index
    from layoutc.ir.dialects.arith import ConstantOp as ArithConstant
    from layoutc.ir.dialects.builtin import ModuleOp
    from layoutc.ir.dialects.func import FuncOp, ReturnOp

    leaves = A.flatten_to_tuple(lay.shape)
    coord = [data.draw(st.integers(0, s - 1)) for s in leaves]
    dynamic = [data.draw(st.booleans()) for _ in leaves]
    module = ModuleOp()
    func = FuncOp("f", FunctionType([index] * sum(dynamic), [index]))
    module.body.block.append(func)
    block = func.regions[0].blocks[0]
    b = Builder(InsertionPoint.at_end(block))
    args = iter(block.args)
    env: dict[Value, int] = {}
    entries: list[Any] = []
    for value, dyn in zip(coord, dynamic):
        if dyn:
            arg = next(args)
            env[arg] = value
            entries.append(arg)
        else:
            entries.append(b.create(ArithConstant, IntegerAttr(value, index)).results[0])
    nested = unflatten(tuple(entries), lay.shape) if isinstance(lay.shape, tuple) else entries[0]
    c = b.create(D.MakeCoordOp, [e for e in entries], type=_coord_type(nested)).results[0]
    layout = b.create(D.ConstantOp, D.LayoutAttr(lay)).results[0]
    idx = b.create(D.Crd2IdxOp, c, layout).results[0]
    ret = b.create(ReturnOp, idx)
    module.verify()
    canonicalize(module)
    module.verify()
    (result,) = ret.operands
    want = A.crd2idx(
        unflatten(tuple(coord), lay.shape) if isinstance(lay.shape, tuple) else coord[0], lay
    )
    assert _evaluate(result, env) == want
    assert result.defining_op is None or not result.defining_op.name.startswith("layout.")


def _coord_type(nested: Any) -> D.IntTupleType:
    def text(x: Any) -> str:
        return "(" + ",".join(text(e) for e in x) + ")" if isinstance(x, tuple) else "?"

    return D.IntTupleType(text(nested))


def test_crd2idx_with_a_one_dimensional_coordinate_is_left_to_lower_layouts() -> None:
    out = run(
        """
func.func @f(%i: index) -> index {
  %c = layout.make_coord %i : !layout.int_tuple<"?">
  %l = layout.constant #layout.layout<"(4,8):(8,1)">
  %x = layout.crd2idx %c, %l : !layout.int_tuple<"?">, !layout.layout<"(4,8):(8,1)">
  return %x : index
}
"""
    )
    assert "layout.crd2idx" in out  # i % 4 * 8 + i // 4: divisions are lower-layouts' job
