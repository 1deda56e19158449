"""Folding: every op on static operands folds to exactly what the algebra computes.

Each test draws random static operands, builds the op on ``layout.constant`` /
``arith.constant`` operands with its builder (which infers the result type with the algebra),
folds it, and compares with the algebra called directly. Where the algebra refuses the operands,
the builder must refuse them too (a DiagnosticError naming the same condition).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from layout_helpers import examples, injective_layouts, layouts
from layoutc.ir import algebra as A
from layoutc.ir.algebra import Layout, LayoutError
from layoutc.ir.algebra.inttuple import _
from layoutc.ir.core import DiagnosticError, IntegerAttr, index
from layoutc.ir.core.attributes import BoolAttr
from layoutc.ir.core.folding import fold_op
from layoutc.ir.dialects import layout as D
from layoutc.ir.dialects.arith import ConstantOp as ArithConstant
from layoutc.ir.dialects.layout.ops_access import elem_less, with_wildcards
from layoutc.ir.dialects.layout.symbolic_types import static_attribute
from layoutc.ir.dialects.layout.text import Kind


def const(value: Any, kind: Kind | None = None) -> Any:
    """An SSA value holding a static value (an int becomes an index constant)."""
    if kind is None and type(value) is int:
        return ArithConstant(IntegerAttr(value, index)).results[0]
    return D.ConstantOp(static_attribute(value, kind)).results[0]


def expected_attr(value: Any, result_type: Any) -> Any:
    if isinstance(result_type, D.LayoutTextType):
        return static_attribute(value, result_type.kind)
    if isinstance(value, bool):
        return BoolAttr(value)
    return IntegerAttr(value, index)


def check(op_cls: type, operands: list[Any], props: dict[str, Any], algebra: Any) -> None:
    """Build, fold and compare with ``algebra()`` (a tuple of results, or raising)."""
    try:
        expected = algebra()
    except LayoutError as e:
        with pytest.raises(DiagnosticError) as info:
            op_cls(*operands, **props)
        assert str(e).split("\n")[0].split(": ")[-1] in str(info.value)
        return
    op = op_cls(*operands, **props)
    folded = fold_op(op)
    assert folded is not None, f"{op} did not fold"
    for value, result, got in zip(expected, op.results, folded):
        assert got is expected_attr(value, result.type), (op.name, got, value)


def tilers(draw: Any) -> tuple[Any, Kind | None]:
    """A tiler operand: a layout, a shape tuple, or a tile of layouts/shapes/_."""
    choice = draw(st.sampled_from(["layout", "shape", "tile"]))
    if choice == "layout":
        return draw(layouts(1, 2)), Kind.LAYOUT
    if choice == "shape":
        return draw(st.tuples(st.integers(1, 4), st.integers(1, 4))), Kind.INT_TUPLE
    modes = draw(
        st.lists(st.one_of(layouts(0, 2), st.integers(1, 4), st.just(_)), min_size=1, max_size=2)
    )
    return tuple(modes), Kind.TILE


UNARY = {
    D.CoalesceOp: A.coalesce,
    D.FilterOp: A.filter,
    D.RightInverseOp: A.right_inverse,
    D.LeftInverseOp: A.left_inverse,
    D.FlattenOp: A.flatten,
    D.ShapeOp: A.shape,
    D.StrideOp: A.stride,
    D.SizeOp: A.size,
    D.CosizeOp: A.cosize,
    D.RankOp: A.rank,
    D.DepthOp: A.depth,
}


@pytest.mark.parametrize("op_cls", list(UNARY), ids=lambda c: c.name)
@examples(40)
@given(data=st.data())
def test_unary_ops_fold_to_the_algebra(op_cls, data) -> None:
    lay = data.draw(layouts())
    check(op_cls, [const(lay)], {}, lambda: (UNARY[op_cls](lay),))


@examples(60)
@given(lay=layouts(), data=st.data())
def test_mode_editing_folds_to_the_algebra(lay, data) -> None:
    r = A.rank(lay)
    mode = data.draw(st.lists(st.integers(0, 2), max_size=2))
    check(D.GetOp, [const(lay)], {"mode": mode}, lambda: (A.get(lay, *mode),))
    b = data.draw(st.integers(0, r))
    e = data.draw(st.integers(-1, r + 1))
    check(D.GroupOp, [const(lay)], {"begin": b, "end": e}, lambda: (A.group(lay, b, e),))
    modes = data.draw(st.lists(st.integers(0, r), max_size=3))
    check(D.SelectOp, [const(lay)], {"modes": modes}, lambda: (A.select(lay, *modes),))
    other = data.draw(layouts(1, 2))
    check(D.AppendOp, [const(lay), const(other)], {}, lambda: (A.append(lay, other),))
    check(D.PrependOp, [const(lay), const(other)], {}, lambda: (A.prepend(lay, other),))
    n = data.draw(st.integers(1, 4))
    check(D.AppendOp, [const(lay)], {"n": n}, lambda: (A.append(lay, n=n),))
    bits = data.draw(st.integers(0, 3))
    m, s = data.draw(st.integers(0, 3)), data.draw(st.integers(max(bits, 1), 4))
    check(
        D.SwizzleOp,
        [const(lay)],
        {"B": bits, "M": m, "S": s},
        lambda: (A.composition(A.Swizzle(bits, m, s), lay),),
    )
    profile = data.draw(st.sampled_from([(1,), (1, 1), 1]))
    check(
        D.CoalesceOp,
        [const(lay)],
        {"profile": static_attribute(profile, Kind.INT_TUPLE)},
        lambda: (A.coalesce(lay, profile),),
    )


@examples(80)
@given(a=layouts(), data=st.data())
def test_composition_folds_to_the_algebra(a, data) -> None:
    b, kind = tilers(data.draw)
    check(D.CompositionOp, [const(a), const(b, kind)], {}, lambda: (A.composition(a, b),))


DIVIDES_AND_PRODUCTS = {
    D.LogicalDivideOp: A.logical_divide,
    D.ZippedDivideOp: A.zipped_divide,
    D.TiledDivideOp: A.tiled_divide,
    D.FlatDivideOp: A.flat_divide,
    D.LogicalProductOp: A.logical_product,
    D.ZippedProductOp: A.zipped_product,
    D.TiledProductOp: A.tiled_product,
    D.FlatProductOp: A.flat_product,
}


@pytest.mark.parametrize("op_cls", list(DIVIDES_AND_PRODUCTS), ids=lambda c: c.name)
@examples(30)
@given(data=st.data())
def test_divides_and_products_fold_to_the_algebra(op_cls, data) -> None:
    a = data.draw(layouts(1, 3, compact=True))
    b, kind = tilers(data.draw)
    fn = DIVIDES_AND_PRODUCTS[op_cls]
    check(op_cls, [const(a), const(b, kind)], {}, lambda: (fn(a, b),))


@examples(40)
@given(a=layouts(1, 2, compact=True), b=layouts(1, 2, compact=True))
def test_rank_sensitive_products_fold_to_the_algebra(a, b) -> None:
    for op_cls, fn in (
        (D.BlockedProductOp, A.blocked_product),
        (D.RakedProductOp, A.raked_product),
    ):
        check(op_cls, [const(a), const(b)], {}, lambda fn=fn: (fn(a, b),))


@examples(40)
@given(lay=injective_layouts(), data=st.data())
def test_complement_and_tile_to_shape_fold_to_the_algebra(lay, data) -> None:
    check(D.ComplementOp, [const(lay)], {}, lambda: (A.complement(lay),))
    cotarget = data.draw(st.integers(1, 64))
    check(
        D.ComplementOp,
        [const(lay), const(cotarget, Kind.INT_TUPLE)],
        {},
        lambda: (A.complement(lay, cotarget),),
    )
    target = data.draw(st.tuples(st.integers(1, 8), st.integers(1, 8)))
    block = data.draw(layouts(1, 2, compact=True))
    check(
        D.TileToShapeOp,
        [const(block), const(target, Kind.INT_TUPLE)],
        {},
        lambda: (A.tile_to_shape(block, target),),
    )


def coords_for(draw: Any, shape: Any) -> Any:
    """A coordinate congruent to ``shape`` (sometimes a 1-D index for a mode)."""
    if isinstance(shape, tuple) and draw(st.booleans()):
        return tuple(coords_for(draw, s) for s in shape)
    return draw(st.integers(0, A.size(Layout(shape)) - 1))


@examples(80)
@given(lay=layouts(), data=st.data())
def test_coordinate_ops_fold_to_the_algebra(lay, data) -> None:
    coord = coords_for(data.draw, lay.shape)
    check(
        D.Crd2IdxOp,
        [const(coord, Kind.INT_TUPLE), const(lay)],
        {},
        lambda: (A.crd2idx(coord, lay),),
    )
    i = data.draw(st.integers(0, A.size(lay) - 1))
    check(
        D.Idx2CrdOp,
        [const(i), const(lay.shape, Kind.INT_TUPLE)],
        {},
        lambda: (A.idx2crd(i, lay.shape),),
    )
    leaves = len(A.flatten_to_tuple(coord)) if isinstance(coord, tuple) else 1
    wild = data.draw(st.lists(st.integers(0, leaves - 1), unique=True, max_size=leaves))
    check(
        D.SliceOp,
        [const(lay), const(coord, Kind.INT_TUPLE)],
        {"wildcards": wild},
        lambda: A.slice_and_offset(with_wildcards(coord, wild), lay),
    )
    other = data.draw(layouts())
    check(
        D.MaxCommonVectorOp,
        [const(lay), const(other)],
        {},
        lambda: (A.max_common_vector(lay, other),),
    )
    bound = coords_for(data.draw, lay.shape)
    check(
        D.ElemLessOp,
        [const(coord, Kind.INT_TUPLE), const(bound, Kind.INT_TUPLE)],
        {},
        lambda: _elem_less_or_error(coord, bound),
    )
    check(
        D.MakeLayoutOp,
        [const(lay.shape, Kind.INT_TUPLE), const(lay.stride, Kind.INT_TUPLE)],
        {},
        lambda: (lay,),
    )
    check(
        D.MakeIdentityOp,
        [const(lay.shape, Kind.INT_TUPLE)],
        {},
        lambda: (A.make_identity_layout(lay.shape),),
    )


def _comparable(a: Any, b: Any) -> bool:
    if isinstance(a, tuple) != isinstance(b, tuple):
        return False
    return not isinstance(a, tuple) or all(_comparable(x, y) for x, y in zip(a, b))


def _elem_less_or_error(a: Any, b: Any) -> tuple[bool]:
    if not _comparable(a, b):
        raise LayoutError("(a tuple and an integer)")
    result = elem_less(a, b)
    assume(result is not None)
    return (result,)


def test_elem_less_follows_cute() -> None:
    assert elem_less((1, 2), (2, 3)) is True
    assert elem_less((1, 3), (2, 3)) is False
    assert elem_less((1,), (2, 0)) is True  # b's extra modes are ignored
    assert elem_less((1, 1), (2,)) is False  # a longer a is not less
    assert elem_less(((0, 1), 2), ((1, 2), 3)) is True


# -- dynamic operands whose results are static ---------------------------------------------------


def _dynamic(text: str) -> Any:
    """An SSA value of a dynamic layout type (a block argument: its value is unknown)."""
    from layoutc.ir.core import Block

    return Block([D.LayoutType(text)]).args[0]


@pytest.mark.parametrize(
    "op_cls, text, expected",
    [
        (D.RankOp, "(?,(?,?)):(?,(?,?))", 2),
        (D.DepthOp, "(?,(?,?)):(?,(?,?))", 2),
        (D.SizeOp, "(4,8):(?,?)", 32),
        (D.CosizeOp, "(4,8):(1,4)", 32),
        (D.MaxCommonVectorOp, "(4,?):(1,?)", 4),
    ],
)
def test_static_results_fold_with_dynamic_operands(op_cls, text, expected) -> None:
    v = _dynamic(text)
    op = op_cls(*([v, v] if op_cls is D.MaxCommonVectorOp else [v]))
    assert fold_op(op) == [IntegerAttr(expected, index)]


def test_static_layout_results_fold_with_dynamic_operands() -> None:
    v = _dynamic("(4,8):(?,?)")
    op = D.ShapeOp(v)
    assert op.results[0].type is D.IntTupleType("(4,8)")
    assert fold_op(op) == [D.IntTupleAttr("(4,8)")]
    op = D.GetOp(_dynamic("(4,(2,?)):(?,(1,8))"), mode=[1, 0])
    assert fold_op(op) == [D.LayoutAttr("2:1")]


def test_identities_fold_to_the_operand() -> None:
    v = _dynamic("?:1")
    assert fold_op(D.CoalesceOp(v)) == [v]
    assert fold_op(D.GetOp(v, mode=[])) == [v]
    w = _dynamic("(?,8):(?,?)")
    assert fold_op(D.CompositionOp(_dynamic("64:1"), w)) == [w]  # the identity on the left
    assert fold_op(D.CoalesceOp(_dynamic("(4,?):(1,?)")))[0].type is D.LayoutType("(4,?):(1,?)")
    assert fold_op(D.CompositionOp(_dynamic("64:2"), w)) is None


def test_dynamic_results_do_not_fold() -> None:
    v = _dynamic("(4,?):(1,?)")
    assert fold_op(D.SizeOp(v)) is None
    assert fold_op(D.FlattenOp(_dynamic("((4,?)):((1,?))"))) is None
