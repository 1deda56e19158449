"""Op class -> handler tables: how every lowering, analysis and translation dispatches on ops.

layoutc dispatches on op *classes*, never on op-name strings: a rename is then one edit, a
typo is an ``AttributeError`` at import time instead of a silently skipped op, and a handler
states the op type it receives::

    LOWER = OpTable("tile-to-llvm")

    @LOWER.register(T.LoadOp)
    def _load(lw: TileLowering, op: T.LoadOp) -> None: ...

    handler = LOWER.lookup(op)  # the handler of type(op) or of its nearest registered base

Lookup follows the op class's MRO, so one handler registered for a shared base class (say
``arith``'s integer binary ops) serves every subclass, and a subclass may still register its
own. Results are cached per class: a lookup is one dict access after the first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from .operation import Operation

H = TypeVar("H", bound=Callable[..., object])
F = TypeVar("F", bound=Callable[..., object])

_MISSING = object()


class OpTable(Generic[H]):
    """A table of handlers keyed on op classes (see the module docstring)."""

    __slots__ = ("_cache", "_handlers", "name")

    def __init__(self, name: str = "handlers") -> None:
        self.name = name
        self._handlers: dict[type[Operation], H] = {}
        self._cache: dict[type[Operation], H | None] = {}

    def register(self, *op_types: type[Operation]) -> Callable[[F], F]:
        """Decorator: ``fn`` handles ops of each class in ``op_types`` (and their subclasses)."""
        if not op_types:
            raise TypeError(f"{self.name}: register() needs at least one op class")

        def wrap(fn: F) -> F:
            for op_type in op_types:
                self.add(op_type, fn)  # type: ignore[arg-type]
            return fn

        return wrap

    def add(self, op_type: type[Operation], handler: H) -> None:
        """Register ``handler`` for ``op_type``; two handlers for one class is an error."""
        if not (isinstance(op_type, type) and issubclass(op_type, Operation)):
            raise TypeError(f"{self.name}: {op_type!r} is not an op class")
        if op_type in self._handlers:
            raise ValueError(f"{self.name}: two handlers for '{op_type.name}'")
        self._handlers[op_type] = handler
        self._cache.clear()

    def update(self, other: OpTable[H]) -> None:
        """Add every handler of ``other`` (a class both tables handle is an error)."""
        for op_type, handler in other._handlers.items():
            self.add(op_type, handler)

    def lookup_type(self, op_type: type[Operation]) -> H | None:
        """The handler for ``op_type`` or its nearest registered base class, else None."""
        got = self._cache.get(op_type, _MISSING)
        if got is _MISSING:
            got = None
            for base in op_type.__mro__:
                got = self._handlers.get(base)
                if got is not None:
                    break
            self._cache[op_type] = got
        return got  # type: ignore[return-value]

    def lookup(self, op: Operation) -> H | None:
        """The handler for ``op``'s class (see :meth:`lookup_type`), else None."""
        return self.lookup_type(type(op))

    def handles(self, op: Operation) -> bool:
        return self.lookup_type(type(op)) is not None

    def op_types(self) -> Iterator[type[Operation]]:
        """The classes registered directly, in registration order."""
        return iter(self._handlers)

    def __len__(self) -> int:
        return len(self._handlers)

    def __repr__(self) -> str:
        return f"<OpTable {self.name}: {len(self._handlers)} op classes>"
