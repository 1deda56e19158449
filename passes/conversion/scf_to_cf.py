"""``convert-scf-to-cf``: structured control flow to blocks and branches (MLIR's lowering).

- ``scf.for``: a header block ``^cond(%iv, %iters...)`` compares the induction variable with
  the bound (``slt``, or ``ult`` with ``unsignedCmp``), branches to the body (the region's
  blocks, inlined) or out; the body's ``scf.yield`` becomes the increment and the back edge.
  The loop's results are the header's iteration arguments.
- ``scf.if``: ``cf.cond_br`` to the inlined then/else blocks, each ``scf.yield`` branching to a
  continuation block whose arguments are the results.
- ``scf.while``: the "before" region ends with ``cf.cond_br`` to the "after" region (whose
  ``scf.yield`` branches back) or to the continuation with the forwarded values.

Outer ops are lowered before inner ones, so every region being inlined is still one block.
"""

from __future__ import annotations

from collections.abc import Sequence

from layoutc.ir.core.block import Block, Region
from layoutc.ir.core.builder import Builder, InsertionPoint
from layoutc.ir.core.errors import IRError
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.values import Value
from layoutc.ir.dialects import func, scf
from layoutc.ir.dialects.arith import AddIOp, CmpIOp
from layoutc.ir.dialects.cf import BranchOp, CondBranchOp

from ..base import Pass, Statistic
from ..registry import register_pass

_SCF_OPS = (scf.ForOp, scf.IfOp, scf.WhileOp)
#: Ops whose regions may hold several blocks, so that lowered control flow can live there.
_CFG_REGION_OWNERS = (func.FuncOp, *_SCF_OPS)


class LoweringError(Exception):
    """An scf op that cannot be lowered where it stands (message names it)."""

    def __init__(self, op: Operation, message: str):
        super().__init__(message)
        self.op = op
        self.message = message


def lower_scf_to_cf(root: Operation) -> int:
    """Lower every scf.for/if/while nested in ``root``; return how many were lowered."""
    todo = [op for op in root.walk_ops(include_self=False) if isinstance(op, _SCF_OPS)]
    for op in todo:
        owner = op.parent_op
        if not isinstance(owner, _CFG_REGION_OWNERS):
            raise LoweringError(
                op,
                f"cannot lower '{op.name}' inside '{owner.name if owner else '?'}' "
                "(its region must keep a single block)",
            )
        if isinstance(op, scf.ForOp):
            _lower_for(op)
        elif isinstance(op, scf.IfOp):
            _lower_if(op)
        else:
            _lower_while(op)
    return len(todo)


def _split_after(op: Operation) -> Block:
    """Split ``op``'s block right after ``op``; return the continuation block."""
    block = op.parent
    assert block is not None
    nxt = op.next_op
    if nxt is None:
        raise IRError(f"'{op.name}' ends its block: a terminator must follow it")
    return block.split_before(nxt)


def _inline_region_before(region: Region, dest: Block) -> list[Block]:
    """Move every block of ``region`` into ``dest``'s region, before ``dest``."""
    parent = dest.parent
    assert parent is not None
    moved = list(region.blocks)
    index = parent.blocks.index(dest)
    for b in moved:
        b.detach()
        parent.insert_block(index, b)
        index += 1
    return moved


def _replace_terminators(
    blocks: Sequence[Block],
    kind: type[Operation],
    make: type,
    dest: Block,
    extra: Sequence[Value] = (),
) -> None:
    """Replace each ``kind`` terminator in ``blocks`` by a branch to ``dest``."""
    for b in blocks:
        term = b.last_op
        if isinstance(term, kind):
            builder = Builder(InsertionPoint.before_op(term), term.location)
            builder.create(make, dest, [*term.operands, *extra])
            term.erase()


def _lower_for(op: Operation) -> None:
    loc = op.location
    before = op.parent
    assert before is not None
    end = _split_after(op)
    body_blocks = list(op.body.blocks)
    entry = body_blocks[0]
    iv_type = op.lowerBound.type
    cond = Block([iv_type, *(v.type for v in op.initArgs)], [loc] * (1 + len(op.initArgs)))
    before.parent.insert_block(before.parent.blocks.index(end), cond)
    _inline_region_before(op.body, end)
    # Back edge: scf.yield -> iv + step, then the header.
    for b in body_blocks:
        term = b.last_op
        if isinstance(term, scf.YieldOp):
            builder = Builder(InsertionPoint.before_op(term), term.location)
            nxt = builder.create(AddIOp, entry.args[0], op.step)
            builder.create(BranchOp, cond, [nxt.results[0], *term.operands])
            term.erase()
    builder = Builder(InsertionPoint.at_end(cond), loc)
    pred = "ult" if op.unsignedCmp is not None else "slt"
    cmp = builder.create(CmpIOp, pred, cond.args[0], op.upperBound)
    builder.create(CondBranchOp, cmp.results[0], entry, list(cond.args), end, [])
    builder = Builder(InsertionPoint.before_op(op), loc)
    builder.create(BranchOp, cond, [op.lowerBound, *op.initArgs])
    op.replace_all_uses_with(list(cond.args[1:]))
    op.erase()


def _lower_if(op: Operation) -> None:
    loc = op.location
    end = _split_after(op)
    results = op.results
    if results:
        for r in results:
            arg = end.add_argument(r.type, loc)
            r.replace_all_uses_with(arg)
    then_blocks = list(op.thenRegion.blocks)
    else_blocks = list(op.elseRegion.blocks)
    _inline_region_before(op.thenRegion, end)
    _inline_region_before(op.elseRegion, end)
    _replace_terminators(then_blocks, scf.YieldOp, BranchOp, end)
    _replace_terminators(else_blocks, scf.YieldOp, BranchOp, end)
    builder = Builder(InsertionPoint.before_op(op), loc)
    false_dest = else_blocks[0] if else_blocks else end
    builder.create(CondBranchOp, op.condition, then_blocks[0], [], false_dest, [])
    op.erase()


def _lower_while(op: Operation) -> None:
    loc = op.location
    end = _split_after(op)
    for r in op.results:
        arg = end.add_argument(r.type, loc)
        r.replace_all_uses_with(arg)
    before_blocks = list(op.before.blocks)
    after_blocks = list(op.after.blocks)
    _inline_region_before(op.before, end)
    _inline_region_before(op.after, end)
    for b in before_blocks:
        term = b.last_op
        if isinstance(term, scf.ConditionOp):
            builder = Builder(InsertionPoint.before_op(term), term.location)
            args = list(term.args)
            builder.create(CondBranchOp, term.condition, after_blocks[0], args, end, args)
            term.erase()
    _replace_terminators(after_blocks, scf.YieldOp, BranchOp, before_blocks[0])
    builder = Builder(InsertionPoint.before_op(op), loc)
    builder.create(BranchOp, before_blocks[0], list(op.inits))
    op.erase()


@register_pass
class ConvertSCFToCF(Pass):
    """Structured control flow (scf.for/if/while) to cf branches between blocks."""

    argument = "convert-scf-to-cf"
    display_name = "SCFToControlFlow"
    summary = "Lower scf.for, scf.if and scf.while to cf.br/cf.cond_br between blocks"

    lowered = Statistic("Number of scf ops lowered")

    def run_on_operation(self, op: Operation) -> None:
        try:
            n = lower_scf_to_cf(op)
        except LoweringError as e:
            self.emit_error(e.op, e.message)
            self.signal_failure()
            return
        self.lowered += n
