"""``cse``: eliminate common subexpressions, scoped by dominance (MLIR's CSE pass).

Two ops are equivalent when they have the same name, operands (in any order for
``Commutative`` ops), properties, attributes and result types. An op without memory effects
and without regions is replaced by an equivalent op that dominates it: values known in a block
are visible in the blocks it dominates and in the regions nested in it, but never across an op
that is isolated from above (or unregistered, which might be). Multi-block regions are walked
along the dominator tree; graph regions only within their single block. Trivially dead ops met
on the way are erased too.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.core.block import Block, Region
from layoutc.ir.core.dominance import immediate_dominators, reverse_post_order
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.traits import (
    Commutative,
    GraphRegions,
    IsolatedFromAbove,
    NoMemoryEffect,
    RecursiveMemoryEffects,
    Symbol,
    Terminator,
)

from .base import Pass, Statistic
from .greedy import is_trivially_dead
from .registry import register_pass


class _ScopedTable:
    """A hash table whose entries added in a scope disappear when the scope is left."""

    __slots__ = ("table", "undo")

    def __init__(self) -> None:
        self.table: dict[Any, Operation] = {}
        self.undo: list[list[Any]] = [[]]

    def push(self) -> None:
        self.undo.append([])

    def pop(self) -> None:
        table = self.table
        for key in self.undo.pop():
            del table[key]

    def lookup(self, key: Any) -> Operation | None:
        return self.table.get(key)

    def insert(self, key: Any, op: Operation) -> None:
        self.table[key] = op
        self.undo[-1].append(key)


def _items(d: dict[str, Any]) -> tuple[Any, ...]:
    if not d:
        return ()
    if len(d) == 1:
        return tuple(d.items())
    return tuple(sorted(d.items()))


def cse_key(op: Operation) -> Any:
    """What makes two ops interchangeable: name, operands, properties, attributes, types."""
    cls = type(op)
    operands = tuple([u.value for u in op._operands])
    if len(operands) == 2 and Commutative in cls._trait_types:
        a, b = operands
        if id(a) > id(b):
            operands = (b, a)
    return (
        op.name,
        operands,
        _items(op.properties),
        _items(op.attributes),
        tuple([r.type for r in op.results]),
    )


@register_pass
class CSE(Pass):
    argument = "cse"
    summary = "Eliminate common sub-expressions"
    description = "Replaces ops by equivalent ops that dominate them; erases trivially dead ops."

    num_cse = Statistic("Number of operations CSE'd", name="num-cse'd")
    num_dce = Statistic("Number of operations DCE'd", name="num-dce'd")

    def run_on_operation(self, op: Operation) -> None:
        self._to_erase: list[Operation] = []
        self._changed = False
        table = _ScopedTable()
        for region in op.regions:
            self._simplify_region(table, region, self._region_is_graph(op))
        for dead in self._to_erase:
            dead.erase()
        if not self._changed:
            self.mark_all_analyses_preserved()

    @staticmethod
    def _region_is_graph(op: Operation) -> bool:
        return op._def is None or GraphRegions in op._trait_types

    def _simplify_region(self, table: _ScopedTable, region: Region, graph: bool) -> None:
        blocks = region.blocks
        if not blocks:
            return
        if len(blocks) == 1:
            table.push()
            self._simplify_block(table, blocks[0])
            table.pop()
            return
        if graph:
            return  # no dominance between the blocks of a graph region
        idom = immediate_dominators(region)
        children: dict[Block, list[Block]] = {}
        for b, d in idom.items():
            if d is not None:
                children.setdefault(d, []).append(b)
        rank = {b: i for i, b in enumerate(reverse_post_order(region))}
        stack: list[tuple[Block, bool]] = [(blocks[0], False)]
        while stack:
            block, leaving = stack.pop()
            if leaving:
                table.pop()
                continue
            table.push()
            self._simplify_block(table, block)
            stack.append((block, True))
            for child in sorted(children.get(block, ()), key=rank.__getitem__, reverse=True):
                stack.append((child, False))

    def _simplify_block(self, table: _ScopedTable, block: Block) -> None:
        kinds = _KINDS
        entries = table.table
        op = block._first
        while op is not None:
            nxt = op._next
            cls = type(op)
            kind = kinds.get(cls)
            if kind is None:
                kind = _classify(cls)
            if op.regions:
                isolated = cls._def is None or IsolatedFromAbove in cls._trait_types
                inner = _ScopedTable() if isolated else table
                graph = self._region_is_graph(op)
                for region in op.regions:
                    self._simplify_region(inner, region, graph)
                if kind is not _TERMINATOR and is_trivially_dead(op):
                    self._erase(op)
                op = nxt
                continue
            if kind is _PURE:
                for r in op.results:
                    if r.uses:
                        break
                else:  # trivially dead: no uses, no memory effects, not a symbol
                    self._erase(op)
                    op = nxt
                    continue
                self._replace_or_record(op, entries, table)
            elif kind is _OTHER:
                if is_trivially_dead(op):
                    self._erase(op)
            elif kind is _SYMBOL:  # never trivially dead, but equivalent ones are replaced
                self._replace_or_record(op, entries, table)
            op = nxt

    def _replace_or_record(self, op: Operation, entries: Any, table: Any) -> None:
        """Replace ``op`` by an equivalent op already in scope, or record it as one."""
        key = cse_key(op)
        existing = entries.get(key)
        if existing is None:
            table.insert(key, op)
        else:
            op.replace_all_uses_with(existing.results)
            self._to_erase.append(op)
            self.num_cse += 1
            self._changed = True

    def _erase(self, op: Operation) -> None:
        self._to_erase.append(op)
        self.num_dce += 1
        self._changed = True


# What CSE does with an op of a class, when the op has no regions (one with regions is only
# erased when trivially dead): nothing (_TERMINATOR); with no memory effects, erase it if
# unused, else look it up (_PURE), or a symbol, only look it up (_SYMBOL); otherwise erase it
# if trivially dead (_OTHER: memory effects, or recursive ones that is_trivially_dead reads).
_TERMINATOR, _PURE, _SYMBOL, _OTHER = "terminator", "pure", "symbol", "other"
_KINDS: dict[type, str] = {}


def _classify(cls: type) -> str:
    traits = cls._trait_types  # type: ignore[attr-defined]
    if Terminator in traits:
        kind = _TERMINATOR
    elif NoMemoryEffect in traits and RecursiveMemoryEffects not in traits:
        kind = _SYMBOL if Symbol in traits else _PURE
    else:
        kind = _OTHER
    _KINDS[cls] = kind
    return kind
