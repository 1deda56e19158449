"""SSA values and their use lists.

A :class:`Value` is an :class:`OpResult` or a :class:`BlockArgument`. Each operand slot of an op
is an :class:`OpOperand` registered in its value's ``uses`` dict, so adding and removing a use is
O(1) and ``value.uses`` lists every user. Successor slots are :class:`BlockOperand` registered in
the target block's ``uses``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from typing import TYPE_CHECKING

from .errors import IRError
from .types import Type

if TYPE_CHECKING:
    from .block import Block
    from .location import Location
    from .operation import Operation


class Value:
    """An SSA value: a type, a use list and an optional name hint for printing."""

    __slots__ = ("__weakref__", "name_hint", "type", "uses")  # weak: symbolic bindings
    type: Type
    uses: dict[OpOperand, None]
    name_hint: str | None

    @property
    def owner(self) -> Operation | Block:
        raise NotImplementedError

    @property
    def defining_op(self) -> Operation | None:
        """The op that produces this value (None for block arguments)."""
        return None

    @property
    def parent_block(self) -> Block | None:
        raise NotImplementedError

    def users(self) -> list[Operation]:
        """Ops using this value, each once, in use-registration order."""
        return list(dict.fromkeys(u.owner for u in self.uses))

    @property
    def has_one_use(self) -> bool:
        return len(self.uses) == 1

    @property
    def use_empty(self) -> bool:
        return not self.uses

    def replace_all_uses_with(self, new: Value) -> None:
        """Make every user of ``self`` use ``new`` instead."""
        if new is self:
            return
        _check_value(new)
        new_uses = new.uses
        for use in self.uses:
            use.value = new
            new_uses[use] = None
        self.uses = {}

    def replace_uses_with_if(self, new: Value, predicate: Callable[[OpOperand], bool]) -> None:
        """Replace the uses for which ``predicate(use)`` holds."""
        if new is self:
            return
        _check_value(new)
        for use in [u for u in self.uses if predicate(u)]:
            use.set(new)

    def replace_all_uses_except(self, new: Value, exceptions: Collection[Operation]) -> None:
        """Replace every use except those owned by ops in ``exceptions``."""
        keep = set(map(id, exceptions))
        self.replace_uses_with_if(new, lambda u: id(u.owner) not in keep)

    def __repr__(self) -> str:
        hint = f" %{self.name_hint}" if self.name_hint else ""
        return f"<{type(self).__name__}{hint}: {self.type.text}>"


def _check_value(v: object) -> None:
    if not isinstance(v, Value):
        raise IRError(f"expected an SSA value, got {v!r}")


class OpResult(Value):
    """Result ``index`` of ``op``."""

    __slots__ = ("index", "op")
    op: Operation
    index: int

    def __init__(self, type: Type, op: Operation, index: int):
        self.type = type
        self.op = op
        self.index = index
        self.uses = {}
        self.name_hint = None

    @property
    def owner(self) -> Operation:
        return self.op

    @property
    def defining_op(self) -> Operation:
        return self.op

    @property
    def parent_block(self) -> Block | None:
        return self.op.parent


class BlockArgument(Value):
    """Argument ``index`` of ``block``; carries its own location."""

    __slots__ = ("_loc", "block", "index")
    block: Block
    index: int

    def __init__(self, type: Type, block: Block, index: int, loc: Location | None = None):
        self.type = type
        self.block = block
        self.index = index
        self.uses = {}
        self.name_hint = None
        self._loc = loc

    @property
    def loc(self) -> Location | None:
        """Its own location, else its enclosing op's (MLIR's builders give arguments the op's
        location); None only for an argument of a block that belongs to no op."""
        loc = self._loc
        if loc is None:
            op = self.block.parent_op
            return op.location if op is not None else None
        if not hasattr(loc, "file_line_col"):
            loc = loc.resolve()  # a lazily computed source location from the parser
            self._loc = loc
        return loc

    @loc.setter
    def loc(self, loc: Location | None) -> None:
        self._loc = loc

    @property
    def owner(self) -> Block:
        return self.block

    @property
    def parent_block(self) -> Block:
        return self.block


class OpOperand:
    """Operand slot ``index`` of ``owner``, currently holding ``value``."""

    __slots__ = ("index", "owner", "value")
    owner: Operation
    index: int
    value: Value

    def __init__(self, owner: Operation, index: int, value: Value):
        self.owner = owner
        self.index = index
        self.value = value
        value.uses[self] = None

    def set(self, value: Value) -> None:
        """Point this slot at another value, moving the use."""
        _check_value(value)
        del self.value.uses[self]
        self.value = value
        value.uses[self] = None

    def drop(self) -> None:
        """Unregister this use (the slot is being destroyed)."""
        self.value.uses.pop(self, None)

    def __repr__(self) -> str:
        return f"<OpOperand #{self.index} of {self.owner.name}>"


class BlockOperand:
    """Successor slot ``index`` of the terminator ``owner``, targeting ``block``."""

    __slots__ = ("block", "index", "owner")
    owner: Operation
    index: int
    block: Block

    def __init__(self, owner: Operation, index: int, block: Block):
        self.owner = owner
        self.index = index
        self.block = block
        block.uses[self] = None

    def set(self, block: Block) -> None:
        del self.block.uses[self]
        self.block = block
        block.uses[self] = None

    def drop(self) -> None:
        self.block.uses.pop(self, None)


def iter_values(values: object) -> Iterator[Value]:
    """Flatten a value, an op (its results) or a nested sequence of those."""
    from .operation import Operation

    if isinstance(values, Value):
        yield values
    elif isinstance(values, Operation):
        yield from values.results
    else:
        for v in values:  # type: ignore[attr-defined]
            yield from iter_values(v)
