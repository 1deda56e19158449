"""Blocks (a doubly linked list of ops with arguments) and regions (a list of blocks).

Ops are linked through ``_prev``/``_next`` so insertion and removal are O(1); each block keeps
lazily renumbered op positions for O(1) "is before" queries used by dominance checks.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from .disposal import record_erased
from .errors import IRError
from .values import BlockArgument, BlockOperand

if TYPE_CHECKING:
    from .location import Location
    from .operation import Operation
    from .types import Type


class BlockOps:
    """Live view of a block's ops: iterable (forwards and reversed), sized, truthy."""

    __slots__ = ("_block",)

    def __init__(self, block: Block):
        self._block = block

    def __iter__(self) -> Iterator[Operation]:
        op = self._block._first
        while op is not None:
            nxt = op._next
            yield op
            op = nxt

    def __reversed__(self) -> Iterator[Operation]:
        op = self._block._last
        while op is not None:
            prv = op._prev
            yield op
            op = prv

    def __len__(self) -> int:
        n = 0
        op = self._block._first
        while op is not None:
            n += 1
            op = op._next
        return n

    def __bool__(self) -> bool:
        return self._block._first is not None

    def __getitem__(self, i: int) -> Operation:
        ops = list(self) if i >= 0 else list(reversed(self))
        return ops[i if i >= 0 else -i - 1]


# Ops of a block carry sparse order indices (as MLIR's ``Operation::orderIndex``): an op inserted
# between two others takes the midpoint of their indices, so the order stays valid through
# insertions until a gap is used up; only then is the block renumbered (O(n)).
_ORDER_STRIDE = 1 << 16


class Block:
    """A list of ops with typed arguments, inside a region."""

    __slots__ = ("_first", "_last", "_order_valid", "args", "parent", "uses")

    def __init__(
        self,
        arg_types: Iterable[Type] = (),
        arg_locs: Sequence[Location | None] | None = None,
    ):
        self.args: list[BlockArgument] = []
        self.parent: Region | None = None
        self._first: Operation | None = None
        self._last: Operation | None = None
        self._order_valid = True
        self.uses: dict[BlockOperand, None] = {}
        for i, t in enumerate(arg_types):
            self.args.append(BlockArgument(t, self, i, arg_locs[i] if arg_locs else None))

    # -- arguments ---------------------------------------------------------------------------
    def add_argument(self, type: Type, loc: Location | None = None) -> BlockArgument:
        arg = BlockArgument(type, self, len(self.args), loc)
        self.args.append(arg)
        return arg

    def insert_argument(self, index: int, type: Type, loc: Location | None = None) -> BlockArgument:
        arg = BlockArgument(type, self, index, loc)
        self.args.insert(index, arg)
        for i in range(index + 1, len(self.args)):
            self.args[i].index = i
        return arg

    def erase_argument(self, index: int) -> None:
        """Remove an argument that has no uses."""
        arg = self.args[index]
        if arg.uses:
            raise IRError(f"cannot erase block argument #{index}: it still has uses")
        del self.args[index]
        for i in range(index, len(self.args)):
            self.args[i].index = i

    @property
    def arg_types(self) -> list[Type]:
        return [a.type for a in self.args]

    # -- ops ---------------------------------------------------------------------------------
    @property
    def ops(self) -> BlockOps:
        return BlockOps(self)

    @property
    def first_op(self) -> Operation | None:
        return self._first

    @property
    def last_op(self) -> Operation | None:
        return self._last

    @property
    def is_empty(self) -> bool:
        return self._first is None

    @property
    def terminator(self) -> Operation | None:
        """The last op if it is a terminator."""
        from .traits import Terminator

        last = self._last
        return last if last is not None and last.has_trait(Terminator) else None

    def append(self, op: Operation) -> Operation:
        """Insert ``op`` at the end of this block."""
        _check_free(op)
        last = self._last
        op.parent = self
        op._prev = last
        op._next = None
        if last is None:
            self._first = op
            op._order = 0
        else:
            last._next = op
            op._order = last._order + _ORDER_STRIDE
        self._last = op
        return op

    def extend(self, ops: Iterable[Operation]) -> None:
        for op in ops:
            self.append(op)

    def insert_before(self, op: Operation, anchor: Operation | None) -> Operation:
        """Insert ``op`` before ``anchor`` (at the end when ``anchor`` is None)."""
        if anchor is None:
            return self.append(op)
        if anchor.parent is not self:
            raise IRError("insertion anchor is not in this block")
        _check_free(op)
        prev = anchor._prev
        op.parent = self
        op._prev = prev
        op._next = anchor
        anchor._prev = op
        if prev is None:
            self._first = op
        else:
            prev._next = op
        if self._order_valid:
            low = prev._order if prev is not None else anchor._order - 2 * _ORDER_STRIDE
            if anchor._order - low > 1:
                op._order = (low + anchor._order) // 2
            else:
                self._order_valid = False
        return op

    def insert_after(self, op: Operation, anchor: Operation) -> Operation:
        return self.insert_before(op, anchor._next) if anchor._next else self.append(op)

    def insert_at_start(self, op: Operation) -> Operation:
        return self.insert_before(op, self._first)

    def _unlink(self, op: Operation) -> None:
        prev, nxt = op._prev, op._next
        if prev is None:
            self._first = nxt
        else:
            prev._next = nxt
        if nxt is None:
            self._last = prev
        else:
            nxt._prev = prev
        op._prev = op._next = None
        op.parent = None

    def _renumber(self) -> None:
        n = 0
        op = self._first
        while op is not None:
            op._order = n
            n += _ORDER_STRIDE
            op = op._next
        self._order_valid = True

    # -- structure ---------------------------------------------------------------------------
    @property
    def parent_op(self) -> Operation | None:
        return self.parent.parent if self.parent is not None else None

    @property
    def is_entry(self) -> bool:
        return self.parent is not None and self.parent.blocks[0] is self

    @property
    def predecessors(self) -> list[Block]:
        """Blocks whose terminators branch here (each once)."""
        preds = dict.fromkeys(u.owner.parent for u in self.uses if u.owner.parent is not None)
        return list(preds)

    @property
    def successors(self) -> list[Block]:
        term = self._last
        return [s.block for s in term.successors] if term is not None else []

    def index_in_region(self) -> int:
        if self.parent is None:
            raise IRError("block is not in a region")
        return self.parent.blocks.index(self)

    def split_before(self, op: Operation) -> Block:
        """Move ``op`` and every op after it into a new block inserted after this one."""
        if op.parent is not self:
            raise IRError("split point is not in this block")
        new = Block()
        if self.parent is not None:
            self.parent.insert_block(self.index_in_region() + 1, new)
        cur: Operation | None = op
        while cur is not None:
            nxt = cur._next
            self._unlink(cur)
            new.append(cur)
            cur = nxt
        return new

    def detach(self) -> Block:
        """Remove this block from its region (it keeps its ops)."""
        if self.parent is not None:
            self.parent.blocks.remove(self)
            self.parent = None
        return self

    def erase(self) -> None:
        """Remove the block and destroy its ops; its arguments must be unused outside it."""
        self.detach()
        self.drop_all_references()
        for op in list(self.ops):
            op.parent = None
            op._prev = op._next = None
            record_erased(op)  # disposal.py
        self._first = self._last = None

    def drop_all_references(self) -> None:
        for op in self.ops:
            op.drop_all_references()

    def __repr__(self) -> str:
        args = ", ".join(a.type.text for a in self.args)
        return f"<Block({args})>"


def _check_free(op: Operation) -> None:
    if op.parent is not None:
        raise IRError(f"'{op.name}' is already in a block; detach or move it instead")


class Region:
    """A list of blocks owned by an op."""

    __slots__ = ("blocks", "parent")

    def __init__(self, blocks: Iterable[Block] = ()):
        self.blocks: list[Block] = []
        self.parent: Operation | None = None
        for b in blocks:
            self.add_block(b)

    def add_block(self, block: Block) -> Block:
        if block.parent is not None:
            raise IRError("block is already in a region")
        block.parent = self
        self.blocks.append(block)
        return block

    def insert_block(self, index: int, block: Block) -> Block:
        if block.parent is not None:
            raise IRError("block is already in a region")
        block.parent = self
        self.blocks.insert(index, block)
        return block

    @property
    def entry(self) -> Block | None:
        return self.blocks[0] if self.blocks else None

    @property
    def block(self) -> Block:
        """The only block of a single-block region (created if the region is empty)."""
        if not self.blocks:
            self.add_block(Block())
        if len(self.blocks) != 1:
            raise IRError(f"region has {len(self.blocks)} blocks, expected one")
        return self.blocks[0]

    @property
    def ops(self) -> Iterator[Operation]:
        """Ops of every block, in order."""
        for b in self.blocks:
            yield from b.ops

    @property
    def is_empty(self) -> bool:
        return not self.blocks

    @property
    def parent_op(self) -> Operation | None:
        return self.parent

    @property
    def parent_region(self) -> Region | None:
        p = self.parent
        return p.parent_region if p is not None else None

    def is_ancestor_of(self, other: Region | None) -> bool:
        """True if ``other`` is this region or nested (at any depth) inside it."""
        while other is not None:
            if other is self:
                return True
            other = other.parent_region
        return False

    def index_in_parent(self) -> int:
        if self.parent is None:
            raise IRError("region has no parent op")
        return next(i for i, r in enumerate(self.parent.regions) if r is self)

    def take_body(self, other: Region) -> None:
        """Move all blocks of ``other`` to the end of this region."""
        for b in list(other.blocks):
            b.detach()
            self.add_block(b)

    def drop_all_references(self) -> None:
        for b in self.blocks:
            b.drop_all_references()

    def __repr__(self) -> str:
        return f"<Region with {len(self.blocks)} blocks>"
