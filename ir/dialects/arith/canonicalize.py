"""Canonicalization patterns of the arith dialect (beyond what the folders do).

Folders already remove identities (``x + 0``, ``x * 1``, ``x * 0``, ``select`` with a constant
condition, comparisons of a value with itself, ...). The patterns here create new ops, which
folders may not: reassociating chains of constants and collapsing cast chains.
"""

from __future__ import annotations

from ...core.attributes import IntegerAttr
from ...core.folding import constant_value
from ...core.rewrite import PatternRewriter, RewritePattern
from ...core.types import i1
from . import semantics
from .ops import (
    AddIOp,
    ConstantOp,
    ExtSIOp,
    ExtUIOp,
    MulIOp,
    SelectOp,
    SubIOp,
    TruncIOp,
    XOrIOp,
    _scalar_width,
)


class _ReassociateConstants(RewritePattern):
    """``op(op(x, c1), c2) -> op(x, c1 op c2)`` for associative integer ops."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter) -> bool:
        inner = op.lhs.defining_op
        if type(inner) is not type(op):  # the cheapest test first: most ops fail it
            return False
        width = _scalar_width(op.results[0].type)
        c2 = constant_value(op.rhs)
        if width is None or not isinstance(c2, IntegerAttr):
            return False
        c1 = constant_value(inner.rhs)
        if not isinstance(c1, IntegerAttr):
            return False
        bits = semantics.int_binary(op.kind, c1.unsigned_value, c2.unsigned_value, width)
        assert bits is not None
        with rewriter.at(rewriter_ip(op), loc=op.location):
            const = rewriter.create(ConstantOp, IntegerAttr(bits, op.results[0].type))
            new = rewriter.create(type(op), inner.lhs, const.results[0])
        rewriter.replace_op(op, new)
        return True


def rewriter_ip(op):
    from ...core.builder import InsertionPoint

    return InsertionPoint.before_op(op)


class AddIAddConstant(_ReassociateConstants):
    root = AddIOp


class MulIMulConstant(_ReassociateConstants):
    root = MulIOp


class AddISubConstant(RewritePattern):
    """``addi(subi(x, c1), c2) -> addi(x, c2 - c1)``."""

    def match_and_rewrite(self, op: AddIOp, rewriter: PatternRewriter) -> bool:
        inner = op.lhs.defining_op
        if not isinstance(inner, SubIOp):  # the cheapest test first: most ops fail it
            return False
        width = _scalar_width(op.results[0].type)
        c2 = constant_value(op.rhs)
        if width is None or not isinstance(c2, IntegerAttr):
            return False
        c1 = constant_value(inner.rhs)
        if not isinstance(c1, IntegerAttr):
            return False
        bits = semantics.int_binary("subi", c2.unsigned_value, c1.unsigned_value, width)
        with rewriter.at(rewriter_ip(op), loc=op.location):
            const = rewriter.create(ConstantOp, IntegerAttr(bits, op.results[0].type))
            new = rewriter.create(AddIOp, inner.lhs, const.results[0])
        rewriter.replace_op(op, new)
        return True


class ExtOfExt(RewritePattern):
    """``extsi(extsi(x)) -> extsi(x)`` and ``extui(extui(x)) -> extui(x)``."""

    def match_and_rewrite(self, op: ExtSIOp | ExtUIOp, rewriter: PatternRewriter) -> bool:
        inner = op.input.defining_op
        if type(inner) is not type(op):
            return False
        rewriter.modify_op_in_place(op, lambda: op.set_operand(0, inner.input))
        return True


class TruncOfTrunc(RewritePattern):
    """``trunci(trunci(x)) -> trunci(x)``."""

    def match_and_rewrite(self, op: TruncIOp, rewriter: PatternRewriter) -> bool:
        inner = op.input.defining_op
        if not isinstance(inner, TruncIOp):
            return False
        rewriter.modify_op_in_place(op, lambda: op.set_operand(0, inner.input))
        return True


class SelectNotCondition(RewritePattern):
    """``select(c, false, true) : i1 -> xori(c, true)``."""

    def match_and_rewrite(self, op: SelectOp, rewriter: PatternRewriter) -> bool:
        if op.results[0].type is not i1 or op.condition.type is not i1:
            return False
        t, f = constant_value(op.true_value), constant_value(op.false_value)
        if not (isinstance(t, IntegerAttr) and isinstance(f, IntegerAttr)):
            return False
        if t.value != 0 or f.value != 1:
            return False
        with rewriter.at(rewriter_ip(op), loc=op.location):
            one = rewriter.create(ConstantOp, IntegerAttr(1, i1))
            new = rewriter.create(XOrIOp, op.condition, one.results[0])
        rewriter.replace_op(op, new)
        return True
