"""Region-level clean-ups shared by the rewrite driver and ``dce``: unreachable blocks.

A block no path from the entry reaches can never run; MLIR's verifier accepts almost anything
in it (its values need not dominate their uses), which makes it both dead and dangerous for
patterns. Only SSA control-flow regions of registered ops are touched: graph regions and
regions of unregistered ops have no reachability to speak of.
"""

from __future__ import annotations

from layoutc.ir.core.block import Block, Region
from layoutc.ir.core.dominance import reverse_post_order
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.rewrite import RewriterListener
from layoutc.ir.core.traits import GraphRegions


def has_cfg_regions(op: Operation) -> bool:
    """Whether ``op``'s regions are SSA control-flow graphs we may restructure."""
    return op._def is not None and GraphRegions not in op._trait_types


def unreachable_blocks(region: Region) -> list[Block]:
    """Blocks of a multi-block region that the entry block cannot reach."""
    if len(region.blocks) < 2:
        return []
    reachable = set(reverse_post_order(region))
    return [b for b in region.blocks if b not in reachable]


def erase_unreachable_blocks(region: Region, listener: RewriterListener | None = None) -> int:
    """Erase the unreachable blocks of ``region``; return how many were erased.

    The listener hears about every erased op (nested first) and block, so a driver can drop
    them from its worklist.
    """
    parent = region.parent
    if parent is not None and not has_cfg_regions(parent):
        return 0
    dead = unreachable_blocks(region)
    if not dead:
        return 0
    if listener is not None:
        for block in dead:
            for op in list(block.ops)[::-1]:
                op.walk(listener.notify_op_erased)
            listener.notify_block_erased(block)
    # Unreachable blocks may use each other's values and branch to each other: drop every
    # reference first, then unlink them.
    for block in dead:
        block.drop_all_references()
    for block in dead:
        block.erase()
    return len(dead)
