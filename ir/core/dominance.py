"""Dominance: block dominator trees per region and op/value dominance queries.

Used by the verifier (SSA values must dominate their uses) and by passes such as CSE. Each
multi-block region gets an immediate-dominator map computed with the Cooper-Harvey-Kennedy
iterative algorithm over reverse post-order; single-block regions need none.
"""

from __future__ import annotations

from .block import Block, Region
from .operation import Operation
from .values import BlockArgument, Value


def reverse_post_order(region: Region) -> list[Block]:
    """Blocks reachable from the entry, in reverse post-order."""
    if not region.blocks:
        return []
    entry = region.blocks[0]
    seen = {entry}
    order: list[Block] = []
    stack = [(entry, iter(entry.successors))]
    while stack:
        block, it = stack[-1]
        for succ in it:
            if succ not in seen and succ.parent is region:
                seen.add(succ)
                stack.append((succ, iter(succ.successors)))
                break
        else:
            order.append(block)
            stack.pop()
    order.reverse()
    return order


def immediate_dominators(region: Region) -> dict[Block, Block | None]:
    """Immediate dominator of every reachable block (the entry maps to None)."""
    rpo = reverse_post_order(region)
    if not rpo:
        return {}
    number = {b: i for i, b in enumerate(rpo)}
    idom: dict[Block, Block | None] = {rpo[0]: rpo[0]}
    preds = {b: [p for p in b.predecessors if p in number] for b in rpo}
    changed = True
    while changed:
        changed = False
        for b in rpo[1:]:
            new: Block | None = None
            for p in preds[b]:
                if p not in idom:
                    continue
                if new is None:
                    new = p
                    continue
                a, c = p, new
                while a is not c:
                    while number[a] > number[c]:
                        a = idom[a]  # type: ignore[assignment]
                    while number[c] > number[a]:
                        c = idom[c]  # type: ignore[assignment]
                new = a
            if new is not None and idom.get(b) is not new:
                idom[b] = new
                changed = True
    idom[rpo[0]] = None
    return idom


class DominanceInfo:
    """Dominance queries over the regions nested in an op (computed lazily per region)."""

    def __init__(self) -> None:
        self._idoms: dict[Region, dict[Block, Block | None]] = {}

    def invalidate(self, region: Region | None = None) -> None:
        if region is None:
            self._idoms.clear()
        else:
            self._idoms.pop(region, None)

    def _idom(self, region: Region) -> dict[Block, Block | None]:
        idom = self._idoms.get(region)
        if idom is None:
            idom = self._idoms[region] = immediate_dominators(region)
        return idom

    def is_reachable(self, block: Block) -> bool:
        region = block.parent
        if region is None or len(region.blocks) == 1:
            return True
        return block in self._idom(region)

    def block_dominates(self, a: Block, b: Block) -> bool:
        """``a`` dominates ``b`` (blocks of the same region; unreachable ``b`` is dominated)."""
        if a is b:
            return True
        region = a.parent
        if region is None or b.parent is not region:
            return False
        idom = self._idom(region)
        if b not in idom:
            return True
        cur: Block | None = b
        while cur is not None:
            if cur is a:
                return True
            cur = idom.get(cur)
        return False

    def properly_dominates(self, a: Operation, b: Operation) -> bool:
        """``a`` runs before ``b`` on every path and is not ``b`` or an ancestor of it."""
        block = a.parent
        if block is None:
            return False
        anc = _ancestor_in_region(b, block.parent)
        if anc is None or anc is a:
            return False
        if anc.parent is block:
            return a.is_before_in_block(anc)
        return self.block_dominates(block, anc.parent)  # type: ignore[arg-type]

    def value_dominates(self, value: Value, user: Operation) -> bool:
        """``value`` is available at ``user`` (it properly dominates the use)."""
        if isinstance(value, BlockArgument):
            block = value.block
            anc = _ancestor_in_region(user, block.parent)
            return anc is not None and self.block_dominates(block, anc.parent)  # type: ignore[arg-type]
        op = value.owner
        return isinstance(op, Operation) and self.properly_dominates(op, user)


def _ancestor_in_region(op: Operation, region: Region | None) -> Operation | None:
    """``op`` or its ancestor whose parent block lies in ``region``."""
    cur: Operation | None = op
    while cur is not None:
        block = cur.parent
        if block is None:
            return None
        if block.parent is region:
            return cur
        cur = block.parent_op
    return None
