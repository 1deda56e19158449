"""``convert-cf-to-llvm``: ``cf.br`` -> ``llvm.br``, ``cf.cond_br`` -> ``llvm.cond_br`` (upstream
MLIR's mapping; the branch operands and successors stay)."""

from __future__ import annotations

from layoutc.ir.core.builder import Builder, InsertionPoint
from layoutc.ir.core.operation import Operation
from layoutc.ir.dialects.cf import BranchOp, CondBranchOp
from layoutc.ir.dialects.llvm import LLVMBrOp, LLVMCondBrOp

from ..base import Pass, Statistic
from ..registry import register_pass


def convert_cf_to_llvm(root: Operation) -> int:
    """Convert every cf branch nested in ``root``; return how many."""
    todo = [op for op in root.walk_ops() if isinstance(op, (BranchOp, CondBranchOp))]
    for op in todo:
        b = Builder(InsertionPoint.before_op(op), op.location)
        if isinstance(op, BranchOp):
            b.create(LLVMBrOp, op.dest, list(op.operands))
        else:
            b.create(
                LLVMCondBrOp,
                op.condition,
                op.trueDest,
                list(op.trueDestOperands),
                op.falseDest,
                list(op.falseDestOperands),
            )
        op.erase()
    return len(todo)


@register_pass
class ConvertControlFlowToLLVM(Pass):
    """cf branches to llvm branches."""

    argument = "convert-cf-to-llvm"
    display_name = "ConvertControlFlowToLLVMPass"
    summary = "Convert cf.br and cf.cond_br to llvm.br and llvm.cond_br"

    converted = Statistic("Number of branches converted")

    def run_on_operation(self, op: Operation) -> None:
        self.converted += convert_cf_to_llvm(op)
