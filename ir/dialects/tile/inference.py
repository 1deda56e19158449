"""Type-level evaluation of tile ops: the layout algebra run on the operands' symbols.

Every ``?`` of an operand type becomes a *slot symbol* named after the operand's position, as
in the layout dialect (``A0, A1, ...`` for the ``?`` entries of operand #0, ``B`` for an
``index`` operand #1), so results depend only on the operand types and what is known about
index operands, and can be memoised. What is known about an index operand comes from its
defining op: an ``arith.constant`` gives its value, a ``tile.assume`` its divisibility and
bounds. Nothing else is consulted (the passes' symbolic value analysis knows more; passes that
prove more state it with ``tile.assume``).

An algebra ``LayoutError`` becomes the op's diagnostic, with notes that say what the slot
symbols in the message stand for.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from ...algebra.errors import LayoutError
from ...core.attributes import IntegerAttr
from ...core.folding import constant_value
from ...core.types import IndexType, IntegerType, Type
from ...core.values import BlockArgument, Value
from ..func import FuncOp
from ..layout.symbolic_types import symbol_for
from ..layout.text import Role
from ..layout.types import LayoutTextType
from .types import PtrType, TensorType

__all__ = [
    "Fact",
    "alignment_after_offset",
    "cached",
    "diagnostic_message",
    "index_fact",
    "operand_arg",
    "operand_origin",
    "slot_name",
    "symbol_notes",
]

Fact = tuple | None
"""What is known about an index operand: ("const", v), ("assume", div, lower, upper) or None."""


def slot_name(slot: int) -> str:
    return chr(ord("A") + slot) if slot < 26 else f"X{slot}_"


_SLOT_SYMBOLS: dict[tuple, Any] = {}


def slot_symbol(slot: int, i: int, role: Role, fact: Fact = None) -> Any:
    """The symbol of the ``i``-th ``?`` of operand ``slot`` (``i = -1``: an index operand)."""
    key = (slot, i, role, fact)
    sym = _SLOT_SYMBOLS.get(key)
    if sym is None:
        name = slot_name(slot) if i < 0 else f"{slot_name(slot)}{i}"
        assumptions: dict[str, int] = {}
        if fact is not None and fact[0] == "assume":
            _, div, lower, upper = fact
            if div is not None:
                assumptions["divisible_by"] = div
            if lower is not None:
                assumptions["lower"] = lower
            if upper is not None:
                assumptions["upper"] = upper
        sym = _SLOT_SYMBOLS[key] = symbol_for(name, role, **assumptions)
    return sym


_ARG_FACTS = ("layoutc.divisible_by", "layoutc.lower", "layoutc.upper")


def _argument_fact(v: Value) -> Fact:
    """Facts a kernel states about an index argument: ``layoutc.divisible_by`` / ``lower`` /
    ``upper`` argument attributes of the function's entry block (docs/dialects.md)."""
    block = v.block  # type: ignore[attr-defined]
    region = block.parent
    func = region.parent if region is not None else None
    if not isinstance(func, FuncOp) or region.blocks[0] is not block:
        return None
    arg_attrs = func.properties.get("arg_attrs")
    if arg_attrs is None or v.index >= len(arg_attrs):  # type: ignore[arg-type]
        return None
    attrs = arg_attrs[v.index]  # type: ignore[index]
    values = []
    for name in _ARG_FACTS:
        a = attrs.get(name)
        values.append(a.value if isinstance(a, IntegerAttr) else None)
    if all(x is None for x in values):
        return None
    return ("assume", *values)


def index_fact(v: Value) -> Fact:
    """What the defining op (or, for a kernel argument, its attributes) says about an index
    value."""
    attr = constant_value(v)
    if isinstance(attr, IntegerAttr):
        return ("const", attr.value)
    if isinstance(v, BlockArgument):
        return _argument_fact(v)
    from .ops_element import AssumeOp  # (ops_element imports this module)

    op = v.defining_op
    if isinstance(op, AssumeOp):
        inner = index_fact(op.operands[0])
        if inner is not None and inner[0] == "const":
            return inner
        props = op.properties

        def get(name: str) -> int | None:
            a = props.get(name)
            return a.value if isinstance(a, IntegerAttr) else None

        return ("assume", get("divisible_by"), get("lower"), get("upper"))
    return None


def operand_arg(t: Type, slot: int, fact: Fact = None) -> Any:
    """The algebra value of an operand of type ``t`` at position ``slot``."""
    if isinstance(t, TensorType):
        roles = _roles(t.layout_text)
        return t.layout([slot_symbol(slot, i, r) for i, r in enumerate(roles)])
    if isinstance(t, LayoutTextType):
        roles = t.parsed.roles
        return t.parsed.substitute([slot_symbol(slot, i, r) for i, r in enumerate(roles)])
    if isinstance(t, (IndexType, IntegerType)):
        if fact is not None and fact[0] == "const":
            return fact[1]
        return slot_symbol(slot, -1, Role.VALUE, fact)
    if isinstance(t, PtrType):
        return None
    raise LayoutError(f"operand #{slot} of type '{t.text}' has no layout value")


def operand_origin(t: TensorType, slot: int, layout: Any = None) -> Any:
    """The origin of a coordinate-tensor operand at position ``slot``: its ``?`` entries are
    the slot symbols that follow the layout's (``A2`` after ``A0, A1``)."""
    if t.origin_text is None:
        return t.origin(layout=layout)
    from .layouts import origin_roles

    first = t.num_dynamic
    roles = origin_roles(t.origin_text)
    return t.origin([slot_symbol(slot, first + i, r) for i, r in enumerate(roles)])


def _roles(text: str) -> tuple[Role, ...]:
    from .layouts import roles_of_text

    return roles_of_text(text)


def alignment_after_offset(alignment: int, element_bytes: int, offset: Any) -> int:
    """Alignment (bytes) of ``base + offset`` elements, for a base aligned to ``alignment``."""
    if type(offset) is int:
        if offset == 0:
            return alignment
        d = abs(offset) * element_bytes
    elif _is_symint(offset):
        from ...algebra.symbolic import sym_known_divisor

        d = sym_known_divisor(offset * element_bytes)
    else:  # a coordinate (basis) offset: coordinate tensors have no memory
        return alignment
    a = alignment
    while d % a:
        a //= 2
    return a


def _is_symint(x: Any) -> bool:
    from ...algebra.symbolic import SymInt

    return isinstance(x, SymInt)


def symbol_notes(message: str, operand_types: Sequence[Type]) -> list[str]:
    """Notes explaining the slot symbols a message mentions."""
    notes = []
    for k, t in enumerate(operand_types):
        letter = slot_name(k)
        n = 0
        if isinstance(t, TensorType):
            n = t.num_dynamic + t.num_dynamic_origin
        elif isinstance(t, LayoutTextType):
            n = t.num_dynamic
        if n and re.search(rf"\b{re.escape(letter)}\d+\b", message):
            names = ", ".join(f"{letter}{i}" for i in range(n))
            notes.append(
                f"{names} stand for the '?' entries of operand #{k} ('{t.text}'), left to right"
            )
        elif isinstance(t, (IndexType, IntegerType)) and re.search(
            rf"\b{re.escape(letter)}\b", message
        ):
            notes.append(f"{letter} stands for the value of operand #{k} ({t.text})")
    return notes


def diagnostic_message(e: Exception) -> str:
    """One line from an algebra error."""
    text = str(e.args[0]) if e.args else str(e)
    return " ".join(text.split("\n")[0].split())


_CACHE: dict[tuple, Any] = {}
_MAX_CACHE = 1 << 15


def cached(key: tuple, compute: Callable[[], Any]) -> Any:
    """Memoise ``compute()`` (its result or the LayoutError it raised) under ``key``."""
    found = _CACHE.get(key)
    if found is None:
        try:
            found = ("ok", compute())
        except LayoutError as e:
            found = ("error", e)
        if len(_CACHE) >= _MAX_CACHE:
            _CACHE.clear()
        _CACHE[key] = found
    if found[0] == "error":
        raise found[1]
    return found[1]
