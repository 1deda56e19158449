"""Element offsets through gather layouts at run-time coordinates.

A gather layout (CUTLASS ``gather_tensor.hpp``, example 59) is ``outer o offset o inner``: the
inner layout maps a coordinate to an arithmetic tuple (an index-buffer position, a dense
offset) with basis strides, and the outer layout ``(1,1):(Custom{idx,64},1)`` turns it into
``idx[position] * 64 + dense offset``. At a run-time coordinate the buffer entry is unknown at
compile time, so :class:`GatheredOffset` keeps the loads outside the symbolic expression:
``plain + sum(scale * buffer[index])``, which lower-layouts emits as loads of the index
buffers followed by ``arith``.
"""

from __future__ import annotations

from typing import Any


class GatheredOffset:
    """``plain + sum(buffer[index] * scale for buffer, index, scale in terms)``: an element
    offset (adding an integer adds to ``plain``). ``buffer`` is the gather's handle (the
    analysis binds it to the index buffer's pointer)."""

    __slots__ = ("plain", "terms")

    def __init__(self, plain: Any, terms: tuple[tuple[Any, Any, Any], ...]):
        self.plain = plain
        self.terms = terms

    def __add__(self, other: Any) -> GatheredOffset:
        if isinstance(other, GatheredOffset):
            return GatheredOffset(self.plain + other.plain, self.terms + other.terms)
        if type(other) is int and other == 0:
            return self
        return GatheredOffset(self.plain + other, self.terms)

    __radd__ = __add__

    def evaluate(self, env: Any) -> int:
        """The offset for values of the symbols, reading host buffers (tests)."""

        def value(x: Any) -> int:
            return x if type(x) is int else x.evaluate(env)

        total = value(self.plain)
        for func, index, scale in self.terms:
            total += func(value(index)) * value(scale)
        return total

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, GatheredOffset)
            and self.plain == other.plain
            and self.terms == other.terms
        )

    def __hash__(self) -> int:
        return hash(("GatheredOffset", self.plain, self.terms))

    def __str__(self) -> str:
        parts = [f"{func}[{index}]*{scale}" for func, index, scale in self.terms]
        if not (type(self.plain) is int and self.plain == 0):
            parts.insert(0, str(self.plain))
        return " + ".join(parts) or "0"

    __repr__ = __str__


def gathered_offset(layout: Any, coord: Any) -> Any:
    """``layout(coord)`` for a gather layout: an int when every buffer entry is read on the
    host, else a :class:`GatheredOffset`."""
    from ...algebra.gather import gather_offset

    plain, terms = gather_offset(layout, coord)
    pending = []
    for func, index, scale in terms:
        if type(index) is int and type(scale) is int and hasattr(func.indices, "__getitem__"):
            try:
                plain = plain + func(index) * scale
                continue
            except Exception:  # a handle that is not a host buffer: read at run time
                pass
        pending.append((func, index, scale))
    if not pending:
        return plain
    return GatheredOffset(plain, tuple(pending))
