"""Canonicalization patterns of the ``layout`` dialect (beyond what the folders do).

Folders already evaluate static ops with the algebra and look through ``make_layout`` for
``shape``/``stride``. These patterns create new ops, which folders may not:

- ``get`` of a ``make_int_tuple`` becomes a smaller ``make_int_tuple`` of the selected operands;
- ``size`` of a ``make_int_tuple`` becomes ``arith`` on its operands (``4 * %n``);
- ``crd2idx`` of a coordinate made by ``make_coord`` in a static layout becomes affine ``arith``
  on the dynamic coordinate entries, with the strides as constants.

Index arithmetic is emitted only when the algebra's result is a polynomial in the operands
(sums and products): divisions and remainders are left to lower-layouts, which proves the
operand signs and picks the cheapest instructions.
"""

from __future__ import annotations

from typing import Any

from ...algebra.basis import ScaledBasis
from ...algebra.errors import LayoutError
from ...algebra.layout import crd2idx, get, size
from ...core.attributes import IntegerAttr
from ...core.builder import InsertionPoint
from ...core.folding import constant_value
from ...core.operation import Operation
from ...core.rewrite import PatternRewriter, RewritePattern
from ...core.types import index
from ...core.values import Value
from .attributes import LayoutTextAttr
from .ops_access import Crd2IdxOp, GetOp, SizeOp
from .ops_values import MAKE_INT_TUPLE_OPS, MakeIntTupleOp
from .symbolic_types import symbol_for
from .text import Kind, Role, format_value, placeholder
from .types import IntTupleType, LayoutTextType


def _producer_entries(op: MakeIntTupleOp) -> tuple[Any, dict[Any, Value]]:
    """The int-tuple an op makes, with a fresh symbol for each non-constant operand, and the
    map from those symbols to the operands."""
    t: IntTupleType = op.results[0].type
    values: list[Any] = []
    symbols: dict[Any, Value] = {}
    for i, v in enumerate(op.operands):
        c = constant_value(v)
        if isinstance(c, IntegerAttr):
            values.append(c.value)
        else:
            sym = symbol_for(f"e{i}", Role.SHAPE if op.positive else Role.VALUE)
            symbols[sym] = v
            values.append(sym)
    return t.parsed.substitute(values), symbols


def _is_polynomial(expr: Any) -> bool:
    from ...algebra.symbolic import node

    kind, operands = node(expr)
    if kind in ("const", "symbol"):
        return True
    if kind not in ("add", "mul"):
        return False
    return all(type(x) is int or _is_polynomial(x) for x in operands)


class _ArithEmitter:
    """Builds a polynomial SymInt as arith ops on index (emit's callback protocol)."""

    def __init__(self, rewriter: PatternRewriter, symbols: dict[Any, Value]):
        self.rewriter = rewriter
        self.symbols = symbols

    def const(self, value: int) -> Value:
        from ..arith import ConstantOp

        return self.rewriter.create(ConstantOp, IntegerAttr(value, index)).results[0]

    def symbol(self, sym: Any) -> Value:
        return self.symbols[sym]

    def _binary(self, cls: type[Operation], a: Value, b: Value) -> Value:
        return self.rewriter.create(cls, a, b).results[0]

    def add(self, a: Value, b: Value) -> Value:
        from ..arith import AddIOp

        return self._binary(AddIOp, a, b)

    def sub(self, a: Value, b: Value) -> Value:
        from ..arith import SubIOp

        return self._binary(SubIOp, a, b)

    def mul(self, a: Value, b: Value) -> Value:
        from ..arith import MulIOp

        return self._binary(MulIOp, a, b)


def _replace_with_polynomial(
    op: Operation, expr: Any, symbols: dict[Any, Value], rewriter: PatternRewriter
) -> bool:
    """Replace ``op``'s index result by arith computing ``expr`` (a polynomial) if possible."""
    from ...algebra.symbolic import SymInt, emit

    if type(expr) is not int and not (isinstance(expr, SymInt) and _is_polynomial(expr)):
        return False
    with rewriter.at(InsertionPoint.before_op(op), loc=op.location):
        value = emit(expr, _ArithEmitter(rewriter, symbols))
    rewriter.replace_op(op, [value])
    return True


class GetOfMakeIntTuple(RewritePattern):
    """``get(make_int_tuple(%a, %b, %c) : "(?,(?,?))")[1]`` -> ``make_int_tuple(%b, %c)``."""

    def match_and_rewrite(self, op: GetOp, rewriter: PatternRewriter) -> bool:
        producer = op.input.defining_op
        if not isinstance(producer, MAKE_INT_TUPLE_OPS):
            return False
        t: IntTupleType = producer.results[0].type
        try:
            sub = get(t.parsed.template, *op.mode.values)
        except LayoutError:
            return False
        position = {placeholder(i): i for i in range(t.num_dynamic)}
        picked: list[int] = []
        _collect(sub, position, picked)
        if not picked:
            return False  # static: the folder makes a constant
        result_type = op.results[0].type
        if not isinstance(result_type, IntTupleType):
            return False
        _, text, _ = format_value(sub, Kind.INT_TUPLE)
        if text != result_type.layout_text:
            return False
        operands = [producer.operands[i] for i in picked]
        rewriter.replace_op_with_new(op, type(producer), operands, type=result_type)
        return True


def _collect(x: Any, position: dict[Any, int], out: list[int]) -> None:
    if isinstance(x, tuple):
        for e in x:
            _collect(e, position, out)
        return
    if isinstance(x, ScaledBasis):
        _collect(x.value, position, out)
        return
    if type(x) is not int:
        i = position.get(x)
        if i is not None:
            out.append(i)


class SizeOfMakeIntTuple(RewritePattern):
    """``size(make_shape(%n) : "(4,?)")`` -> ``arith.muli %n, 4``."""

    def match_and_rewrite(self, op: SizeOp, rewriter: PatternRewriter) -> bool:
        producer = op.input.defining_op
        if not isinstance(producer, MAKE_INT_TUPLE_OPS):
            return False
        value, symbols = _producer_entries(producer)
        try:
            expr = size(value)
        except LayoutError:
            return False
        return _replace_with_polynomial(op, expr, symbols, rewriter)


class Crd2IdxOfStaticLayout(RewritePattern):
    """``crd2idx(make_coord(%i, %c2), static layout)`` -> affine arith on %i (strides as
    constants, constant coordinate entries folded in)."""

    def match_and_rewrite(self, op: Crd2IdxOp, rewriter: PatternRewriter) -> bool:
        layout = _static_layout(op.layout)
        producer = op.coord.defining_op
        if layout is None or not isinstance(producer, MAKE_INT_TUPLE_OPS):
            return False
        coord, symbols = _producer_entries(producer)
        try:
            expr = crd2idx(coord, layout)
        except LayoutError:
            return False
        return _replace_with_polynomial(op, expr, symbols, rewriter)


def _static_layout(v: Value) -> Any:
    """The static algebra value of a layout operand (from its type or a constant), or None."""
    c = constant_value(v)
    if isinstance(c, LayoutTextAttr):
        return c.value
    t = v.type
    if isinstance(t, LayoutTextType) and t.is_static:
        return t.parsed.template
    return None
