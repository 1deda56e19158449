"""``dce``: erase unreachable blocks and ops whose results are unused and that have no effects.

Ops with memory effects (stores, calls, unregistered ops), terminators and symbols stay. Uses
are visited before definitions (reverse walk), and an erased op's operands are re-examined, so
whole dead chains disappear in one run.
"""

from __future__ import annotations

from layoutc.ir.core.operation import Operation

from .base import Pass, Statistic
from .greedy import is_trivially_dead
from .region_utils import erase_unreachable_blocks
from .registry import register_pass


def erase_dead_code(op: Operation) -> tuple[int, int]:
    """Erase dead ops and unreachable blocks nested in ``op``; return (ops, blocks) erased."""
    blocks = 0
    for nested in list(op.walk_ops()):
        for region in nested.regions:
            if len(region.blocks) > 1:
                blocks += erase_unreachable_blocks(region)
    erased = 0
    worklist: list[Operation] = []

    def collect(o: Operation) -> None:
        if o is not op:
            worklist.append(o)

    # Post-order, last op first: users are seen before the values they use.
    op.walk(collect, reverse=True)
    queued = set(worklist)
    gone: set[Operation] = set()  # ops nested in erased ops
    i = 0
    while i < len(worklist):
        o = worklist[i]
        i += 1
        queued.discard(o)
        if o.parent is None or o in gone or not is_trivially_dead(o):
            continue
        operands = [u.value.defining_op for u in o.operand_uses]
        if o.regions:
            nested = list(o.walk_ops(include_self=False))
            gone.update(nested)
            operands += [u.value.defining_op for n in nested for u in n.operand_uses]
        o.erase()
        erased += 1
        for d in operands:
            if d is not None and d.parent is not None and d not in queued and d not in gone:
                worklist.append(d)
                queued.add(d)
    return erased, blocks


@register_pass
class DCE(Pass):
    argument = "dce"
    summary = "Erase dead operations and unreachable blocks"
    description = (
        "Erases ops without uses and without memory effects (recursively through regions), "
        "and blocks no path from the entry reaches."
    )

    num_erased_ops = Statistic("Number of operations erased")
    num_erased_blocks = Statistic("Number of unreachable blocks erased")

    def run_on_operation(self, op: Operation) -> None:
        ops, blocks = erase_dead_code(op)
        self.num_erased_ops += ops
        self.num_erased_blocks += blocks
        if not (ops or blocks):
            self.mark_all_analyses_preserved()
