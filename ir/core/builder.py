"""Builder: creates ops at an insertion point and notifies an optional listener.

Insertion points are "before op X" or "at the end of block B"; ops created one after another
appear in creation order. ``with builder.at(InsertionPoint.at_end(b)):`` restores the previous
insertion point afterwards.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from .block import Block, Region
from .errors import IRError
from .location import Location, UnknownLoc
from .operation import Operation

if TYPE_CHECKING:
    from .types import Type

_Op = TypeVar("_Op", bound=Operation)


class InsertionPoint:
    """A position in a block: before ``before``, or at the end when ``before`` is None."""

    __slots__ = ("before", "block")

    def __init__(self, block: Block, before: Operation | None = None):
        if before is not None and before.parent is not block:
            raise IRError("insertion point op is not in the given block")
        self.block = block
        self.before = before

    @staticmethod
    def at_end(block: Block) -> InsertionPoint:
        return InsertionPoint(block)

    @staticmethod
    def at_start(block: Block) -> InsertionPoint:
        return InsertionPoint(block, block.first_op)

    @staticmethod
    def before_op(op: Operation) -> InsertionPoint:
        if op.parent is None:
            raise IRError(f"'{op.name}' is not in a block")
        return InsertionPoint(op.parent, op)

    @staticmethod
    def after_op(op: Operation) -> InsertionPoint:
        if op.parent is None:
            raise IRError(f"'{op.name}' is not in a block")
        return InsertionPoint(op.parent, op.next_op)

    def __repr__(self) -> str:
        where = f"before '{self.before.name}'" if self.before is not None else "at end"
        return f"<InsertionPoint {where} of {self.block!r}>"


class BuilderListener:
    """Receives notifications about IR created by a builder."""

    def notify_op_inserted(self, op: Operation) -> None:
        pass

    def notify_block_inserted(self, block: Block) -> None:
        pass


class Builder:
    """Creates ops at an insertion point, giving them ``loc`` when they have none."""

    def __init__(
        self,
        insertion_point: InsertionPoint | None = None,
        loc: Location | None = None,
        listener: BuilderListener | None = None,
    ):
        self.insertion_point = insertion_point
        self.loc = loc
        self.listener = listener

    # -- insertion point ----------------------------------------------------------------------
    @staticmethod
    def at_end_of(block: Block, loc: Location | None = None) -> Builder:
        return Builder(InsertionPoint.at_end(block), loc)

    @staticmethod
    def before(op: Operation, loc: Location | None = None) -> Builder:
        return Builder(InsertionPoint.before_op(op), loc)

    def set_insertion_point_to_end(self, block: Block) -> None:
        self.insertion_point = InsertionPoint.at_end(block)

    def set_insertion_point_to_start(self, block: Block) -> None:
        self.insertion_point = InsertionPoint.at_start(block)

    def set_insertion_point_before(self, op: Operation) -> None:
        self.insertion_point = InsertionPoint.before_op(op)

    def set_insertion_point_after(self, op: Operation) -> None:
        self.insertion_point = InsertionPoint.after_op(op)

    @contextlib.contextmanager
    def at(self, ip: InsertionPoint, loc: Location | None = None) -> Iterator[Builder]:
        """Temporarily move the insertion point (and optionally the location)."""
        saved_ip, saved_loc = self.insertion_point, self.loc
        self.insertion_point = ip
        if loc is not None:
            self.loc = loc
        try:
            yield self
        finally:
            self.insertion_point, self.loc = saved_ip, saved_loc

    # -- creation -----------------------------------------------------------------------------
    def insert(self, op: _Op) -> _Op:
        """Insert an existing (detached) op at the insertion point."""
        ip = self.insertion_point
        if ip is None:
            raise IRError("builder has no insertion point")
        if self.loc is not None and _is_unknown(op):
            op._loc = self.loc
        ip.block.insert_before(op, ip.before)
        if self.listener is not None:
            self.listener.notify_op_inserted(op)
        return op

    def create(self, cls: type[_Op], *args: Any, **kwargs: Any) -> _Op:
        """Construct ``cls(*args, **kwargs)`` and insert it (``insert``, inlined: the
        lowerings build about 10,000 ops per GEMM through here)."""
        op = cls(*args, **kwargs)
        ip = self.insertion_point
        if ip is None:
            raise IRError("builder has no insertion point")
        if self.loc is not None and isinstance(op._loc, UnknownLoc):
            op._loc = self.loc
        ip.block.insert_before(op, ip.before)
        if self.listener is not None:
            self.listener.notify_op_inserted(op)
        return op

    def create_block(
        self,
        region: Region,
        arg_types: Iterable[Type] = (),
        arg_locs: Sequence[Location | None] | None = None,
        insert_before: Block | None = None,
    ) -> Block:
        """Add a block to ``region`` and move the insertion point to its end."""
        block = Block(arg_types, arg_locs)
        if insert_before is None:
            region.add_block(block)
        else:
            region.insert_block(region.blocks.index(insert_before), block)
        self.insertion_point = InsertionPoint.at_end(block)
        if self.listener is not None:
            self.listener.notify_block_inserted(block)
        return block


def _is_unknown(op: Operation) -> bool:
    return isinstance(op._loc, UnknownLoc)
