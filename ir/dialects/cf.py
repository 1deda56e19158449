"""The cf dialect: unstructured control flow (``cf.br``, ``cf.cond_br``), the target of
lowering scf to blocks."""

from __future__ import annotations

from collections.abc import Sequence

from ..core.attributes import IntegerAttr
from ..core.block import Block
from ..core.builder import InsertionPoint
from ..core.constraints import I1
from ..core.context import Dialect
from ..core.errors import VerifyError
from ..core.folding import constant_value
from ..core.location import Location
from ..core.opdef import operand, successor, var_operand
from ..core.operation import Operation
from ..core.rewrite import PatternRewriter, RewritePattern, lazy_patterns
from ..core.traits import Pure, Terminator
from ..core.values import Value


def _check_successor_operands(block: Block, values: Sequence[Value], index: int) -> None:
    if len(values) != len(block.args):
        raise VerifyError(
            f"branch has {len(values)} operands for successor #{index}, but target block has "
            f"{len(block.args)}"
        )
    for i, (v, a) in enumerate(zip(values, block.args)):
        if v.type is not a.type:
            raise VerifyError(
                f"type mismatch for bb argument #{i} of successor #{index}: '{v.type.text}' "
                f"passed to an argument of type '{a.type.text}'"
            )


class BranchOp(Operation):
    """``cf.br ^bb1(%a : i32)``."""

    name = "cf.br"
    assembly_format = "$dest (`(` $destOperands^ `:` type($destOperands) `)`)? attr-dict"
    traits = (Pure, Terminator)
    destOperands = var_operand()
    dest = successor()

    def __init__(self, dest: Block, operands: Sequence[Value] = (), loc: Location | None = None):
        super().__init__(operands=[list(operands)], successors=[dest], loc=loc)

    def successor_operands(self, index: int) -> tuple[Value, ...]:
        """Values passed to successor ``index`` (BranchOpInterface)."""
        return self.operands

    def verify_(self) -> None:
        _check_successor_operands(self.dest, self.operands, 0)


class CondBranchOp(Operation):
    """``cf.cond_br %c, ^bb1(%a : i32), ^bb2``."""

    name = "cf.cond_br"
    assembly_format = "$condition `,` $trueDest (`(` $trueDestOperands^ `:` type($trueDestOperands) `)`)? `,` $falseDest (`(` $falseDestOperands^ `:` type($falseDestOperands) `)`)? attr-dict"
    traits = (Pure, Terminator)
    condition = operand(I1)
    trueDestOperands = var_operand()
    falseDestOperands = var_operand()
    trueDest = successor()
    falseDest = successor()

    @lazy_patterns
    def canonicalization_patterns() -> tuple[RewritePattern, ...]:
        return (CondBranchConstant(), CondBranchSameSuccessor())

    def __init__(
        self,
        condition: Value,
        true_dest: Block,
        true_operands: Sequence[Value],
        false_dest: Block,
        false_operands: Sequence[Value],
        loc: Location | None = None,
    ):
        super().__init__(
            operands=[condition, list(true_operands), list(false_operands)],
            successors=[true_dest, false_dest],
            loc=loc,
        )

    def successor_operands(self, index: int) -> tuple[Value, ...]:
        return self.trueDestOperands if index == 0 else self.falseDestOperands

    def verify_(self) -> None:
        _check_successor_operands(self.trueDest, self.trueDestOperands, 0)
        _check_successor_operands(self.falseDest, self.falseDestOperands, 1)


class CondBranchConstant(RewritePattern):
    """``cf.cond_br`` on a constant condition becomes ``cf.br`` to the taken successor."""

    def match_and_rewrite(self, op: CondBranchOp, rewriter: PatternRewriter) -> bool:
        cond = constant_value(op.condition)
        if not isinstance(cond, IntegerAttr):
            return False
        dest, values = (
            (op.trueDest, op.trueDestOperands)
            if cond.value
            else (op.falseDest, op.falseDestOperands)
        )
        with rewriter.at(InsertionPoint.before_op(op), loc=op.location):
            rewriter.create(BranchOp, dest, list(values))
        rewriter.erase_op(op)
        return True


class CondBranchSameSuccessor(RewritePattern):
    """``cf.cond_br %c, ^bb(%a), ^bb(%a)`` becomes ``cf.br ^bb(%a)``."""

    def match_and_rewrite(self, op: CondBranchOp, rewriter: PatternRewriter) -> bool:
        if op.trueDest is not op.falseDest or op.trueDestOperands != op.falseDestOperands:
            return False
        with rewriter.at(InsertionPoint.before_op(op), loc=op.location):
            rewriter.create(BranchOp, op.trueDest, list(op.trueDestOperands))
        rewriter.erase_op(op)
        return True


DIALECT = Dialect("cf", ops=[BranchOp, CondBranchOp])
