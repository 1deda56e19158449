"""Type inference on dynamic operands is sound: whenever an op accepts types with ``?`` entries,
its symbolic result, evaluated at any admissible values of the ``?``s, is the layout the algebra
computes on those static operands (compared as functions: coalescing may differ)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from layout_helpers import examples, injective_layouts, layouts, same_function
from layoutc.ir import algebra as A
from layoutc.ir.algebra.symbolic import evaluate
from layoutc.ir.core import Block, DiagnosticError
from layoutc.ir.dialects import layout as D
from layoutc.ir.dialects.layout.symbolic_types import from_symbolic, to_symbolic
from layoutc.ir.dialects.layout.text import Kind, Role, format_value, walk_top
from layoutc.ir.dialects.layout.types import TYPE_OF_KIND


def dynamic_type(draw: Any, static: Any, kind: Kind) -> tuple[Any, list[int]]:
    """A type of ``kind`` equal to ``static`` with random entries made dynamic, and the static
    values of those entries in order.

    Only shape entries >= 2 and strides >= 1 become dynamic: as in CuTe, a static extent 1 or
    stride 0 is simplified away (filter, coalesce) where a dynamic one cannot be, so the two
    computations legitimately differ there.
    """
    values: list[int] = []

    def visit(x: Any, role: Role, out: list) -> Any:
        ok = type(x) is int and (x >= 2 if role is Role.SHAPE else x >= 1)
        if ok and draw(st.booleans()):
            values.append(x)
            out.append("?")
        else:
            out.append(str(x))
        return x

    out: list[str] = []
    walk_top(static, kind, visit, out)
    return TYPE_OF_KIND[kind]("".join(out)), values


def check_sound(draw: Any, op_cls: type, statics: list[tuple[Any, Kind]], props: dict, algebra):
    """Build ``op_cls`` on dynamic versions of ``statics``; if it is accepted, compare its
    symbolic results at the static values with ``algebra(*statics)``."""
    types, env, args = [], {}, []
    for value, kind in statics:
        t, concrete = dynamic_type(draw, value, kind)
        symbolic, syms = to_symbolic(t)
        env.update(zip(syms, concrete))
        types.append(t)
        args.append(symbolic)
    operands = [Block([t]).args[0] for t in types]
    try:
        op = op_cls(*operands, **props)
    except DiagnosticError:
        assume(False)  # not provable for every value of the symbols: refusing is sound
        return
    expected = algebra(*[v for v, _ in statics])  # must not raise: the proof covered it
    results = op_cls.evaluate(op.properties, args)
    for result, want, declared in zip(results, expected, op.result_types):
        if isinstance(declared, D.LayoutTextType):
            t, exprs = from_symbolic(result, declared.kind)
            assert t is declared
            got = t.parsed.substitute([evaluate(e, env) for e in exprs])
        else:
            got = evaluate(result, env) if not isinstance(result, int) else result
        if op_cls is D.RightInverseOp:  # any right inverse is correct; symbols may give less
            source = statics[0][0]
            assert all(source(got(i)) == i for i in range(A.size(got))), (got, source)
        elif isinstance(want, (A.Layout, A.ComposedLayout)):
            assert same_function(got, want), (op.name, got, want)
        else:
            assert got == want, (op.name, got, want)


UNARY = {
    D.CoalesceOp: A.coalesce,
    D.FilterOp: A.filter,
    D.FlattenOp: A.flatten,
    D.RightInverseOp: A.right_inverse,
    D.SizeOp: A.size,
    D.CosizeOp: A.cosize,
    D.ShapeOp: A.shape,
}


@pytest.mark.parametrize("op_cls", list(UNARY), ids=lambda c: c.name)
@examples(30)
@given(lay=layouts(), data=st.data())
def test_unary_inference_is_sound(op_cls, lay, data) -> None:
    fn = UNARY[op_cls]
    check_sound(data.draw, op_cls, [(lay, Kind.LAYOUT)], {}, lambda a: (fn(a),))


BINARY = {
    D.CompositionOp: A.composition,
    D.LogicalDivideOp: A.logical_divide,
    D.ZippedDivideOp: A.zipped_divide,
    D.LogicalProductOp: A.logical_product,
}


@pytest.mark.parametrize("op_cls", list(BINARY), ids=lambda c: c.name)
@examples(30)
@given(a=layouts(1, 3, compact=True), b=layouts(1, 2), data=st.data())
def test_binary_inference_is_sound(op_cls, a, b, data) -> None:
    fn = BINARY[op_cls]
    check_sound(
        data.draw, op_cls, [(a, Kind.LAYOUT), (b, Kind.LAYOUT)], {}, lambda x, y: (fn(x, y),)
    )


@examples(40)
@given(lay=injective_layouts(), data=st.data())
def test_complement_and_coordinate_inference_is_sound(lay, data) -> None:
    check_sound(data.draw, D.ComplementOp, [(lay, Kind.LAYOUT)], {}, lambda a: (A.complement(a),))
    coord = A.idx2crd(data.draw(st.integers(0, A.size(lay) - 1)), lay.shape)
    check_sound(
        data.draw,
        D.Crd2IdxOp,
        [(coord, Kind.INT_TUPLE), (lay, Kind.LAYOUT)],
        {},
        lambda c, x: (A.crd2idx(c, x),),
    )
    check_sound(
        data.draw,
        D.SliceOp,
        [(lay, Kind.LAYOUT), (coord, Kind.INT_TUPLE)],
        {"wildcards": [0]},
        lambda x, c: A.slice_and_offset(_wild0(c), x),
    )


def _wild0(coord: Any) -> Any:
    from layoutc.ir.dialects.layout.ops_access import with_wildcards

    return with_wildcards(coord, [0])


def test_format_value_marks_every_symbolic_entry() -> None:
    value, _ = to_symbolic("(?,4):(1,?)")
    assert format_value(value)[1] == "(?,4):(1,?)"
