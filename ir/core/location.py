"""Source locations attached to every operation (MLIR's location attributes).

``UnknownLoc``, ``FileLineColLoc`` (``"file":line:col``), ``NameLoc`` (``"name"`` or
``"name"(child)``), ``CallSiteLoc`` (``callsite(callee at caller)``) and ``FusedLoc``
(``fused[a, b]`` or ``fused<#meta>[a, b]``). Diagnostics use :meth:`Location.file_line_col` to
print ``file:line:col``.
"""

from __future__ import annotations

from collections.abc import Iterable

from .attributes import Attribute, quote_string


class Location(Attribute):
    """Base of locations; printed as ``loc(...)``."""

    __slots__ = ()

    def body_text(self) -> str:
        """The text inside ``loc(...)``."""
        raise NotImplementedError

    def _print(self) -> str:
        return f"loc({self.body_text()})"

    def file_line_col(self) -> tuple[str, int, int] | None:
        """The most precise ``(file, line, col)`` this location carries, if any."""
        return None


class UnknownLoc(Location):
    __slots__ = ()

    def __new__(cls) -> UnknownLoc:
        return cls._instances.get(()) or cls._unique(())

    def __reduce__(self):
        return (UnknownLoc, ())

    def body_text(self) -> str:
        return "unknown"


class FileLineColLoc(Location):
    __slots__ = ("col", "filename", "line")
    filename: str
    line: int
    col: int

    def __new__(cls, filename: str, line: int, col: int) -> FileLineColLoc:
        key = (filename, line, col)
        return cls._instances.get(key) or cls._unique(key, filename=filename, line=line, col=col)

    def __reduce__(self):
        return (FileLineColLoc, (self.filename, self.line, self.col))

    def body_text(self) -> str:
        return f"{quote_string(self.filename)}:{self.line}:{self.col}"

    def file_line_col(self) -> tuple[str, int, int]:
        return (self.filename, self.line, self.col)


class NameLoc(Location):
    __slots__ = ("child", "name")
    name: str
    child: Location

    def __new__(cls, name: str, child: Location | None = None) -> NameLoc:
        child = child if child is not None else UnknownLoc()
        key = (name, child)
        return cls._instances.get(key) or cls._unique(key, name=name, child=child)

    def __reduce__(self):
        return (NameLoc, (self.name, self.child))

    def body_text(self) -> str:
        if isinstance(self.child, UnknownLoc):
            return quote_string(self.name)
        return f"{quote_string(self.name)}({self.child.body_text()})"

    def file_line_col(self) -> tuple[str, int, int] | None:
        return self.child.file_line_col()


class CallSiteLoc(Location):
    __slots__ = ("callee", "caller")
    callee: Location
    caller: Location

    def __new__(cls, callee: Location, caller: Location) -> CallSiteLoc:
        key = (callee, caller)
        return cls._instances.get(key) or cls._unique(key, callee=callee, caller=caller)

    def __reduce__(self):
        return (CallSiteLoc, (self.callee, self.caller))

    def body_text(self) -> str:
        return f"callsite({self.callee.body_text()} at {self.caller.body_text()})"

    def file_line_col(self) -> tuple[str, int, int] | None:
        return self.callee.file_line_col() or self.caller.file_line_col()


class FusedLoc(Location):
    __slots__ = ("locations", "metadata")
    locations: tuple[Location, ...]
    metadata: Attribute | None

    def __new__(cls, locations: Iterable[Location], metadata: Attribute | None = None) -> FusedLoc:
        key = (tuple(locations), metadata)
        inst = cls._instances.get(key)
        if inst is not None:
            return inst
        for loc in key[0]:
            if not isinstance(loc, Location):
                raise TypeError(f"fused location parts must be locations, got {loc!r}")
        return cls._unique(key, locations=key[0], metadata=metadata)

    def __reduce__(self):
        return (FusedLoc, (self.locations, self.metadata))

    def body_text(self) -> str:
        meta = f"<{self.metadata.text}>" if self.metadata is not None else ""
        return f"fused{meta}[{', '.join(loc.body_text() for loc in self.locations)}]"

    def file_line_col(self) -> tuple[str, int, int] | None:
        for loc in self.locations:
            flc = loc.file_line_col()
            if flc is not None:
                return flc
        return None
