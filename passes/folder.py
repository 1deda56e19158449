"""OperationFolder: folds ops and keeps one constant per value, hoisted to the region entry.

This is MLIR's OperationFolder. Constants produced by folding are materialized through the
folded op's dialect (``materialize_constant``) at the start of the entry block of the nearest
enclosing region that is isolated from above (or belongs to an unregistered or top-level op),
and deduplicated there by (dialect, value, type). Existing constants met by the rewrite driver
are registered the same way, so equal constants collapse into one at the top of the function.
Every change goes through the driver's PatternRewriter, so its worklist stays exact.
"""

from __future__ import annotations

from enum import Enum

from layoutc.ir.core.attributes import Attribute
from layoutc.ir.core.block import Region
from layoutc.ir.core.builder import InsertionPoint
from layoutc.ir.core.context import Dialect
from layoutc.ir.core.errors import IRError
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.rewrite import PatternRewriter
from layoutc.ir.core.traits import ConstantLike, IsolatedFromAbove
from layoutc.ir.core.types import Type
from layoutc.ir.core.values import OpResult, Value

_Key = tuple[Dialect | None, Attribute, Type]


_NO_FOLD = Operation.fold


class FoldResult(Enum):
    NOT_FOLDED = 0
    IN_PLACE = 1  # the op was updated in place
    REPLACED = 2  # the op was replaced (and erased)


def constant_attr(op: Operation) -> Attribute | None:
    """The value of a ConstantLike op (None if it does not fold to an attribute)."""
    folded = op.fold(())
    if not folded:
        return None
    value = folded[0]
    return value if isinstance(value, Attribute) else None


def insertion_region(op: Operation) -> Region:
    """Where constants for ``op`` go: the nearest isolated, unregistered or top-level region."""
    cur = op
    while True:
        block = cur.parent
        if block is None or block.parent is None:
            raise IRError(f"'{op.name}' is not inside a region; it cannot be folded")
        region = block.parent
        parent = region.parent
        if (
            parent is None
            or parent._def is None
            or IsolatedFromAbove in parent._trait_types
            or parent.parent is None
        ):
            return region
        cur = parent


class OperationFolder:
    """Folding with constant deduplication (one instance per rewrite iteration)."""

    def __init__(self, rewriter: PatternRewriter):
        self.rewriter = rewriter
        self._scopes: dict[Region, dict[_Key, Operation]] = {}
        self._owned: dict[Operation, tuple[Region, list[_Key]]] = {}
        self._values: dict[Operation, Attribute] = {}

    # -- constants ---------------------------------------------------------------------------------
    def insert_known_constant(self, op: Operation, value: Attribute | None = None) -> bool:
        """Register an existing constant op: keep it (hoisted) and return True, or replace it
        by an equal constant already known in its region and return False."""
        if op in self._owned:
            block = op.parent
            if block is not None and block._first is not op and op._prev not in self._owned:
                op.move_before(block._first)  # type: ignore[arg-type]
            return True
        if value is None:
            value = constant_attr(op)
            if value is None:
                return True
        region = insertion_region(op)
        scope = self._scopes.get(region)
        if scope is None:
            scope = self._scopes[region] = {}
        key = (op.dialect, value, op.results[0].type)
        existing = scope.get(key)
        if existing is not None and existing is not op:
            self.rewriter.replace_op(op, existing.results)
            return False
        scope[key] = op
        self._owned[op] = (region, [key])
        self._values[op] = value
        entry = region.blocks[0]
        if op.parent is not entry or (entry._first is not op and op._prev not in self._owned):
            op.move_before(entry._first)  # type: ignore[arg-type]
        return True

    def notify_removal(self, op: Operation) -> None:
        """Forget ``op`` if it is a constant this folder knows (it is being erased)."""
        owned = self._owned.pop(op, None)
        self._values.pop(op, None)
        if owned is None:
            return
        region, keys = owned
        scope = self._scopes.get(region)
        if scope is not None:
            for key in keys:
                if scope.get(key) is op:
                    del scope[key]

    def get_or_create_constant(
        self, region: Region, dialect: Dialect | None, value: Attribute, type: Type, op: Operation
    ) -> Operation | None:
        """The known constant for (dialect, value, type) in ``region``, materialized if new."""
        scope = self._scopes.get(region)
        if scope is None:
            scope = self._scopes[region] = {}
        key = (dialect, value, type)
        existing = scope.get(key)
        if existing is not None:
            return existing
        if dialect is None:
            return None
        entry = region.blocks[0]
        rewriter = self.rewriter
        # The op's location as stored: a parser location stays unresolved (resolving it scans
        # the whole source buffer) until someone prints or reports it.
        loc = op._loc
        with rewriter.at(InsertionPoint(entry, entry._first), loc=loc):
            const = dialect.materialize_constant(rewriter, value, type, loc)
        if const is None:
            return None
        if not const.has_trait(ConstantLike) or len(const.results) != 1:
            raise IRError(
                f"dialect '{dialect.name}' materialized '{const.name}' for a constant, which is "
                "not a single-result ConstantLike op"
            )
        keys = [key]
        actual = constant_attr(const)
        if actual is not None and actual is not value:
            # The dialect canonicalized the value: share the op under both keys.
            other = (dialect, actual, type)
            if other in scope:
                rewriter.erase_op(const)
                scope[key] = scope[other]
                return scope[other]
            keys.append(other)
            scope[other] = const
        scope[key] = const
        self._owned[const] = (region, keys)
        self._values[const] = actual if actual is not None else value
        return const

    # -- folding -------------------------------------------------------------------------------------
    def try_fold(self, op: Operation) -> FoldResult:
        """Fold ``op`` with its constant operands; replace it or report an in-place update."""
        cls = type(op)
        if cls.fold is _NO_FOLD:
            return FoldResult.NOT_FOLDED
        operands: list[Attribute | None] = []
        append = operands.append
        values_of = self._values
        for u in op._operands:
            v = u.value
            if v.__class__ is not OpResult:
                append(None)
                continue
            d = v.op
            known = values_of.get(d)
            if known is not None:
                append(known)
            elif ConstantLike in d._trait_types:
                append(constant_attr(d))
            else:
                append(None)
        folded = op.fold(operands)
        if folded is None:
            return FoldResult.NOT_FOLDED
        results = op.results
        if len(folded) != len(results):
            raise IRError(
                f"'{op.name}' fold returned {len(folded)} values for {len(results)} results"
            )
        own = 0
        for f, r in zip(folded, results):
            if f is r:
                own += 1
        if own:
            return FoldResult.IN_PLACE if own == len(results) else FoldResult.NOT_FOLDED
        region: Region | None = None
        values: list[Value] = []
        created: list[Operation] = []
        for result, item in zip(results, folded):
            if isinstance(item, Value):
                if item.type is not result.type:
                    raise IRError(
                        f"'{op.name}' folded result #{result.index} of type "
                        f"'{result.type.text}' to a value of type '{item.type.text}'"
                    )
                values.append(item)
                continue
            if not isinstance(item, Attribute):
                raise IRError(f"'{op.name}' fold returned {item!r}, not an Attribute or Value")
            if region is None:
                region = insertion_region(op)
            before = self._scopes.get(region, {}).get((op.dialect, item, result.type))
            const = self.get_or_create_constant(region, op.dialect, item, result.type, op)
            if const is None:
                for c in created:
                    if not any(r.uses for r in c.results):
                        self.rewriter.erase_op(c)
                return FoldResult.NOT_FOLDED
            if before is None:
                created.append(const)
            values.append(const.results[0])
        self.rewriter.replace_op(op, values)
        return FoldResult.REPLACED
