"""``demo-expand``: rewrite ``demo.square %x`` to ``arith.mulf %x, %x``; the ``demo-lowering``
pipeline runs it, then canonicalize."""

from __future__ import annotations

from layoutc.ir.core.rewrite import rewrite_pattern
from layoutc.ir.dialects import arith
from layoutc.passes.base import Pass
from layoutc.passes.greedy import apply_patterns_greedily
from layoutc.passes.registry import register_pass, register_pipeline

from .dialect import SquareOp


@rewrite_pattern(SquareOp)
def expand_square(op: SquareOp, rewriter) -> bool:
    rewriter.replace_op_with_new(op, arith.MulFOp, op.operand, op.operand)
    return True


@register_pass
class DemoExpand(Pass):
    argument = "demo-expand"
    summary = "Expand demo.square into arith.mulf"

    def run_on_operation(self, op) -> None:
        apply_patterns_greedily(op, [expand_square])


register_pipeline("demo-lowering", "demo-expand,canonicalize", "demo.square to arith, folded")
