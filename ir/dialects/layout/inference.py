"""Type-level evaluation of layout ops: the algebra run on the symbols of the operand types.

Each ``?`` of an operand type becomes a *slot symbol* named after the operand's position
(``A0, A1, ...`` for operand #0, ``B0, ...`` for operand #1; an ``index`` operand is ``A``,
``B``, ...), with its role's assumption (shape entries >= 1, everything else >= 0). Slot symbols
are created once and reused, so the result of an op depends only on its operand types and
properties and can be memoised: verifying or folding a large module runs the algebra once per
distinct (op, operand types, properties).

Why not fresh symbols each time: results would be equal up to renaming, but nothing could be
cached and error messages would name meaningless symbols. With slot symbols a diagnostic says
``cannot prove that 4 divides A0`` and a note explains that A0 is the first ``?`` of operand #0.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...algebra.errors import LayoutError
from ...core.attributes import Attribute, BoolAttr, IntegerAttr
from ...core.types import IndexType, Type, i1, index
from .attributes import ATTR_OF_KIND, LayoutTextAttr
from .symbolic_types import symbol_for
from .text import Kind, LayoutTextError, Role, format_value, is_instance, kind_of_value
from .types import TYPE_OF_KIND, LayoutTextType

INDEX = "index"
I1 = "i1"
SAME = "same"  # the kind of operand #0
ResultSpec = Any  # Kind | "index" | "i1" | "same"

_SLOT_SYMBOLS: dict[tuple[int, int, Role], Any] = {}


def slot_name(slot: int) -> str:
    return chr(ord("A") + slot) if slot < 26 else f"X{slot}_"


def slot_symbol(slot: int, i: int, role: Role) -> Any:
    """The symbol of the ``i``-th ``?`` of operand ``slot`` (``i = -1``: an index operand)."""
    key = (slot, i, role)
    sym = _SLOT_SYMBOLS.get(key)
    if sym is None:
        name = slot_name(slot) if i < 0 else f"{slot_name(slot)}{i}"
        sym = _SLOT_SYMBOLS[key] = symbol_for(name, role)
    return sym


_SLOT_VALUES: dict[tuple[Type, int], Any] = {}


def slot_value(t: Type, slot: int) -> Any:
    """The algebra value of an operand of type ``t`` at position ``slot``."""
    key = (t, slot)
    v = _SLOT_VALUES.get(key)
    if v is None:
        if isinstance(t, LayoutTextType):
            roles = t.parsed.roles
            v = t.parsed.substitute([slot_symbol(slot, i, r) for i, r in enumerate(roles)])
        elif isinstance(t, IndexType):
            v = slot_symbol(slot, -1, Role.VALUE)
        else:
            raise LayoutError(f"operand #{slot} of type '{t.text}' has no layout value")
        _SLOT_VALUES[key] = v
    return v


def symbol_notes(message: str, operand_types: Sequence[Type]) -> list[str]:
    """Notes explaining the slot symbols a message mentions."""
    notes = []
    for k, t in enumerate(operand_types):
        letter = slot_name(k)
        if isinstance(t, LayoutTextType) and t.num_dynamic:
            if re.search(rf"\b{re.escape(letter)}\d+\b", message):
                if t.num_dynamic == 1:
                    notes.append(f"{letter}0 stands for the '?' of operand #{k} ('{t.text}')")
                    continue
                names = ", ".join(f"{letter}{i}" for i in range(t.num_dynamic))
                notes.append(
                    f"{names} stand for the '?' entries of operand #{k} ('{t.text}'), left to right"
                )
        elif isinstance(t, IndexType) and re.search(rf"\b{re.escape(letter)}\b", message):
            notes.append(f"{letter} stands for the value of operand #{k} (index)")
    return notes


def result_type(spec: ResultSpec, value: Any, operand_types: Sequence[Type]) -> Type:
    """The type of a result of kind ``spec`` holding ``value`` (a symbolic algebra value)."""
    if spec == INDEX:
        if type(value) is int or _is_symint(value):
            return index
        raise LayoutError(f"expected an integer result, got {value!r}")
    if spec == I1:
        return i1
    kind = spec
    if spec == SAME:
        first = operand_types[0]
        if not isinstance(first, LayoutTextType):
            raise LayoutError("operand #0 is not a layout value")
        kind = first.kind
    if kind is not Kind.TILE:
        found = kind_of_value(value)
        if found is not kind:
            raise LayoutError(f"the result {value} is a {found.value}, expected a {kind.value}")
    _, text, _ = format_value(value, kind)
    return TYPE_OF_KIND[kind](text)


def _is_symint(x: Any) -> bool:
    from ...algebra.symbolic import SymInt

    return isinstance(x, SymInt)


def static_result(value: Any, declared: Type) -> Attribute | None:
    """The constant for ``value`` as a result of type ``declared``, or None when the value is
    not fully static or does not fit the declared type."""
    if isinstance(declared, LayoutTextType):
        try:
            _, text, dynamic = format_value(value, declared.kind)
        except LayoutError:
            return None
        if dynamic or not is_instance(text, declared.parsed.text):
            return None
        try:
            return ATTR_OF_KIND[declared.kind](text)
        except LayoutTextError:
            return None
    if isinstance(declared, IndexType):
        if type(value) is not int:
            return None
        try:
            return IntegerAttr(value, index)
        except ValueError:
            return None
    if declared is i1 and isinstance(value, bool):
        return BoolAttr(value)
    return None


class Evaluation:
    """What the algebra says about an op from its operand types: result types (or the error
    that makes the op invalid) and the symbolic result values (None where not computable)."""

    __slots__ = ("error", "types", "values")

    def __init__(
        self,
        types: tuple[Type, ...] | None,
        values: tuple[Any, ...] | None,
        error: LayoutError | None,
    ):
        self.types = types
        self.values = values
        self.error = error


Evaluator = Callable[[Mapping[str, Attribute], Sequence[Any]], tuple[Any, ...]]

_EVALUATIONS: dict[tuple, Evaluation] = {}
_MAX_EVALUATIONS = 1 << 16


def evaluate_types(
    key: tuple,
    operand_types: Sequence[Type],
    props: Mapping[str, Attribute],
    result_specs: Sequence[ResultSpec],
    evaluate: Evaluator,
    check: Evaluator | None,
) -> Evaluation:
    """Memoised type-level evaluation (``key`` identifies the op class, types and properties).

    ``check`` (when given) validates the operands without computing results: ops with only
    index/i1 results use it, since their values may not be computable at compile time (a
    swizzle of a dynamic offset) while the op is perfectly valid.
    """
    found = _EVALUATIONS.get(key)
    if found is not None:
        return found
    values: tuple[Any, ...] | None = None
    try:
        args = [slot_value(t, k) for k, t in enumerate(operand_types)]
        if check is not None:
            check(props, args)
            types = tuple(index if s == INDEX else i1 for s in result_specs)
            try:
                values = tuple(evaluate(props, args))
            except LayoutError:
                values = None
        else:
            values = tuple(evaluate(props, args))
            if len(values) != len(result_specs):
                raise LayoutError(f"expected {len(result_specs)} results, got {len(values)}")
            types = tuple(result_type(s, v, operand_types) for s, v in zip(result_specs, values))
        found = Evaluation(types, values, None)
    except LayoutError as e:
        found = Evaluation(None, None, e)
    except (TypeError, ValueError, ArithmeticError, AttributeError) as e:
        # A bug below us must still surface as a diagnostic at the op, not a traceback.
        found = Evaluation(None, None, internal_error(e))
    if len(_EVALUATIONS) >= _MAX_EVALUATIONS:
        _EVALUATIONS.clear()
    _EVALUATIONS[key] = found
    return found


def internal_error(e: Exception) -> LayoutError:
    """A LayoutError reporting an unexpected exception raised inside the algebra."""
    return LayoutError(f"internal error in the layout algebra: {type(e).__name__}: {e}")


def constant_argument(attr: Attribute | None, t: Type) -> Any:
    """The algebra value of a constant operand, or None when it is not a usable constant."""
    if isinstance(attr, LayoutTextAttr) and isinstance(t, LayoutTextType):
        return attr.value
    if isinstance(attr, IntegerAttr) and isinstance(t, IndexType):
        return attr.value
    return None


def diagnostic_message(e: LayoutError) -> str:
    """A one-line message from an algebra error."""
    text = str(e.args[0]) if e.args else str(e)
    return " ".join(text.split("\n")[0].split())
