"""The greedy worklist pattern driver (MLIR's ``applyPatternsGreedily``).

Every op nested in the given regions goes on a worklist (pre-order, processed top-down by
default). For each op popped, the driver

1. erases it if it is trivially dead (no uses, no memory effects, not a terminator or symbol),
2. folds it with its ``fold()`` hook (constants are materialized, deduplicated and hoisted by
   :class:`~.folder.OperationFolder`),
3. otherwise applies the first matching pattern, best benefit first.

Every IR change goes through a :class:`PatternRewriter` whose listener is the driver, so changed
ops, their users, the defining ops of erased ops' operands and new ops are revisited. After
the worklist empties, unreachable blocks are erased (``region_simplify``). Iterations repeat
until one changes nothing (converged) or ``max_iterations`` is reached (not converged).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from layoutc.ir.core.block import Block, Region
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.rewrite import PatternRewriter, RewritePattern, RewriterListener
from layoutc.ir.core.traits import (
    ConstantLike,
    NoMemoryEffect,
    RecursiveMemoryEffects,
    Symbol,
    Terminator,
    is_memory_effect_free,
)
from layoutc.ir.core.values import Value

from .folder import _NO_FOLD, FoldResult, OperationFolder, constant_attr
from .patterns import FrozenPatternSet
from .region_utils import erase_unreachable_blocks

NO_LIMIT = -1

STRICTNESS = ("any", "existing-and-new", "existing")


@dataclass
class GreedyRewriteConfig:
    """How the driver runs (MLIR's GreedyRewriteConfig)."""

    max_iterations: int = 10
    """Full sweeps over the IR before giving up (``NO_LIMIT`` = -1: until convergence)."""
    max_num_rewrites: int = NO_LIMIT
    """Pattern applications per sweep before the sweep stops early (``NO_LIMIT``: none)."""
    top_down: bool = True
    """Process ops in pre-order (defs before uses); bottom-up when False."""
    region_simplify: bool = True
    """Erase unreachable blocks after each sweep."""
    fold: bool = True
    """Fold ops with their ``fold()`` hooks."""
    cse_constants: bool = True
    """Deduplicate and hoist constant ops when building the worklist."""
    strictness: str = "any"
    """Which ops may be rewritten: ``any``, ``existing-and-new`` (the initial ops and ops the
    rewrite creates) or ``existing`` (the initial ops only)."""
    listener: RewriterListener | None = None
    """Also told about every change (after the driver)."""

    def __post_init__(self) -> None:
        if self.strictness not in STRICTNESS:
            raise ValueError(f"strictness must be one of {', '.join(STRICTNESS)}")


@dataclass
class GreedyRewriteResult:
    """What happened; truthy when the rewrite converged."""

    converged: bool
    changed: bool
    iterations: int
    num_rewrites: int = 0
    num_folded: int = 0
    num_erased: int = 0

    def __bool__(self) -> bool:
        return self.converged


def is_trivially_dead(op: Operation) -> bool:
    """No uses, no memory effects (recursively), not a terminator and not a symbol."""
    for r in op.results:
        if r.uses:
            return False
    traits = type(op)._trait_types
    if Terminator in traits or Symbol in traits:
        return False
    if RecursiveMemoryEffects in traits:
        return is_memory_effect_free(op)
    return NoMemoryEffect in traits


class _Driver(RewriterListener):
    def __init__(
        self,
        regions: Sequence[Region],
        patterns: FrozenPatternSet,
        config: GreedyRewriteConfig,
    ):
        self.regions = list(regions)
        self.scope: set[Region] = set(self.regions)
        self.patterns = patterns
        self.config = config
        self.forward = config.listener
        self.rewriter = PatternRewriter(listener=self)
        self.folder = OperationFolder(self.rewriter)
        self.worklist: list[Operation | None] = []
        self.positions: dict[Operation, int] = {}
        self.filtered: set[Operation] | None = None
        self.region_ops: list[Operation] = []
        self.num_rewrites = 0
        self.num_folded = 0
        self.num_erased = 0
        self.inert: dict[type, bool] = {}

    # -- worklist --------------------------------------------------------------------------------
    def push(self, op: Operation) -> None:
        if self.filtered is not None and op not in self.filtered:
            return
        if op in self.positions:
            return
        self.positions[op] = len(self.worklist)
        self.worklist.append(op)

    def add(self, op: Operation) -> None:
        """Queue ``op`` and its ancestors inside the rewritten regions (nothing outside)."""
        scope = self.scope
        block = op.parent
        if block is None:
            return
        if block.parent in scope:  # the common case: a direct child of a rewritten region
            self.push(op)
            return
        chain = []
        cur: Operation | None = op
        while cur is not None:
            chain.append(cur)
            block = cur.parent
            if block is None:
                return
            region = block.parent
            if region is None:
                return
            if region in scope:
                for o in chain:
                    self.push(o)
                return
            cur = region.parent

    def remove(self, op: Operation) -> None:
        i = self.positions.pop(op, None)
        if i is not None:
            self.worklist[i] = None

    def populate(self) -> None:
        """Queue every op of the regions (deduplicating constants on the way)."""
        self.worklist = []
        self.positions = {}
        self.region_ops = []
        order: list[Operation] = []
        for region in self.regions:
            for block in list(region.blocks):
                self._visit_block(block, order)
        # Users of replaced duplicate constants were queued by notifications while walking;
        # they are in the walk order too.
        pending = [o for o in self.worklist if o is not None]
        if pending:  # (each op is once in the walk order; the queued ones are in it too)
            order = list(dict.fromkeys(order + pending))
        ordered = [o for o in order if o.parent is not None]
        if self.filtered is not None:
            ordered = [o for o in ordered if o in self.filtered]
        ordered.reverse()  # pop() from the end processes ops in walk order
        self.worklist = ordered
        self.positions = dict(zip(ordered, range(len(ordered))))

    def _visit_block(self, block: Block, order: list[Operation]) -> None:
        """Append ``block``'s ops to ``order`` in the walk order (a method, not a self-recursive
        closure: that is a reference cycle holding ``order``, every op of the regions)."""
        cse = self.config.cse_constants
        folder = self.folder
        top_down = self.config.top_down
        region_ops = self.region_ops
        op = block._first
        while op is not None:
            nxt = op._next
            if cse and ConstantLike in type(op)._trait_types:
                value = constant_attr(op)
                if value is not None and not folder.insert_known_constant(op, value):
                    op = nxt
                    continue
            if top_down:
                order.append(op)
            if op.regions:
                region_ops.append(op)
                for r in op.regions:
                    for b in list(r.blocks):
                        self._visit_block(b, order)
            if not top_down:
                order.append(op)
            op = nxt

    # -- listener --------------------------------------------------------------------------------
    def notify_op_inserted(self, op: Operation) -> None:
        if self.forward is not None:
            self.forward.notify_op_inserted(op)
        if self.filtered is not None and self.config.strictness == "existing-and-new":
            self.filtered.add(op)
        if op.regions:
            self.region_ops.append(op)
        self.add(op)

    def notify_block_inserted(self, block: Block) -> None:
        if self.forward is not None:
            self.forward.notify_block_inserted(block)

    def notify_op_modified(self, op: Operation) -> None:
        if self.forward is not None:
            self.forward.notify_op_modified(op)
        self.add(op)

    def notify_op_replaced(self, op: Operation, new_values: Sequence[Value]) -> None:
        if self.forward is not None:
            self.forward.notify_op_replaced(op, new_values)

    def notify_op_erased(self, op: Operation) -> None:
        if self.forward is not None:
            self.forward.notify_op_erased(op)
        # Operands that lose a use may become dead or single-use: revisit their definitions.
        for u in op._operands:
            v = u.value
            d = v.defining_op
            if d is None:
                continue
            others = 0
            for use in v.uses:
                if use.owner is not op:
                    others += 1
                    if others > 1:
                        break
            if others <= 1:
                self.add(d)
        self.remove(op)
        self.folder.notify_removal(op)
        if self.filtered is not None:
            self.filtered.discard(op)

    def notify_block_erased(self, block: Block) -> None:
        if self.forward is not None:
            self.forward.notify_block_erased(block)

    def notify_match_failure(self, op: Operation, reason: str) -> None:
        if self.forward is not None:
            self.forward.notify_match_failure(op, reason)

    # -- processing ------------------------------------------------------------------------------
    def process(self) -> bool:
        changed = False
        worklist = self.worklist
        positions = self.positions
        rewriter = self.rewriter
        try_fold = self.folder.try_fold if self.config.fold else None
        for_op = self.patterns.for_op
        pattern_cache = self.patterns.cache
        limit = self.config.max_num_rewrites
        replaced, in_place = FoldResult.REPLACED, FoldResult.IN_PLACE
        # op classes with nothing to fold and no pattern (most ops at the LLVM level): only
        # the dead-op check applies to them
        inert = self.inert
        rewrites = 0  # in this sweep
        while worklist:
            if limit != NO_LIMIT and rewrites >= limit:
                break
            op = worklist.pop()
            if op is None:
                continue
            del positions[op]
            if op.parent is None:
                continue
            cls = type(op)
            traits = cls._trait_types
            for r in op.results:
                if r.uses:
                    break
            else:
                if is_trivially_dead(op):
                    rewriter.erase_op(op)
                    self.num_erased += 1
                    changed = True
                    continue
            skip = inert.get(cls)
            if skip is None:
                skip = inert[cls] = cls._def is not None and (
                    (try_fold is None or ConstantLike in traits or cls.fold is _NO_FOLD)
                    and not for_op(op)
                )
            if skip:
                continue
            if try_fold is not None and ConstantLike not in traits:
                status = try_fold(op)
                if status is replaced:
                    self.num_folded += 1
                    changed = True
                    continue
                if status is in_place:
                    self.num_folded += 1
                    self.notify_op_modified(op)
                    changed = True
                    continue
            patterns = pattern_cache.get(type(op))
            if patterns is None:
                patterns = for_op(op)
            for pattern in patterns:
                if pattern.match_and_rewrite(op, rewriter):
                    self.num_rewrites += 1
                    rewrites += 1
                    changed = True
                    break
        return changed

    def _attached(self, op: Operation) -> bool:
        """Whether ``op`` is still (transitively) inside the rewritten regions."""
        cur: Operation | None = op
        while cur is not None:
            block = cur.parent
            if block is None or block.parent is None:
                return False
            if block.parent in self.scope:
                return True
            cur = block.parent.parent
        return False

    def simplify_regions(self) -> bool:
        erased = 0
        for op in self.region_ops:
            if not any(len(r.blocks) > 1 for r in op.regions) or not self._attached(op):
                continue
            for region in op.regions:
                if len(region.blocks) > 1:
                    erased += erase_unreachable_blocks(region, self)
        for region in self.regions:
            if len(region.blocks) > 1:
                erased += erase_unreachable_blocks(region, self)
        return erased > 0

    def run(self) -> GreedyRewriteResult:
        config = self.config
        if config.strictness != "any":
            self.filtered = set()
            for region in self.regions:
                for block in region.blocks:
                    for op in block.ops:
                        self.filtered.update(op.walk_ops())
        iteration = 0
        changed_any = False
        keep_going = True
        while keep_going:
            if config.max_iterations != NO_LIMIT and iteration >= config.max_iterations:
                break
            iteration += 1
            self.folder = OperationFolder(self.rewriter)
            self.populate()
            keep_going = self.process()
            if config.region_simplify:
                keep_going = self.simplify_regions() or keep_going
            changed_any = changed_any or keep_going
        return GreedyRewriteResult(
            converged=not keep_going,
            changed=changed_any,
            iterations=iteration,
            num_rewrites=self.num_rewrites,
            num_folded=self.num_folded,
            num_erased=self.num_erased,
        )


def apply_patterns_greedily(
    target: Operation | Region | Iterable[Region],
    patterns: FrozenPatternSet | Iterable[RewritePattern],
    config: GreedyRewriteConfig | None = None,
) -> GreedyRewriteResult:
    """Rewrite the ops nested in ``target`` (an op's regions, a region, or regions) to a fixpoint.

    The op itself is not rewritten, so the caller's handle stays valid. Returns a result that
    is truthy when the rewrite converged within ``config.max_iterations``.
    """
    if isinstance(target, Operation):
        regions: list[Region] = list(target.regions)
    elif isinstance(target, Region):
        regions = [target]
    else:
        regions = list(target)
    frozen = patterns if isinstance(patterns, FrozenPatternSet) else FrozenPatternSet(patterns)
    driver = _Driver(regions, frozen, config or GreedyRewriteConfig())
    try:
        return driver.run()
    finally:
        driver.rewriter.listener = None  # the driver listens to its rewriter: a reference cycle
