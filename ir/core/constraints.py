"""Type and attribute constraints used in op declarations.

A constraint is a predicate with a description used in diagnostics ("operand #0 must be
signless-integer-like, but got 'f32'"). Declarations accept a constraint, a type instance
(exact match), a class (isinstance), a tuple of those (any of), or ``None`` (anything).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .types import FloatType, IndexType, IntegerType, Type, VectorType, i1


class Constraint:
    """A named predicate over types or attributes."""

    __slots__ = ("description", "exact", "memo", "predicate", "storage")

    def __init__(
        self,
        predicate: Callable[[Any], bool],
        description: str,
        exact: Any = None,
        storage: Any = None,
    ):
        self.predicate = predicate
        self.description = description
        # The one value accepted, when there is only one (lets custom forms omit its type).
        self.exact = exact
        # What an accepted attribute is stored as, when that is one thing: an attribute class,
        # or the Type of an IntegerAttr (lets assembly formats print the attribute's short form);
        # for a type constraint, the DialectType class (assembly formats also read the type
        # stripped of its name, ``<3>``, as MLIR prints it).
        self.storage = storage
        # Types and attributes are interned and immutable, so answers can be remembered.
        self.memo: dict[Any, bool] = {}

    def __call__(self, value: Any) -> bool:
        ok = self.memo.get(value)
        if ok is None:
            ok = self.memo[value] = bool(self.predicate(value))
        return ok

    def __or__(self, other: Any) -> Constraint:
        o = to_constraint(other)
        assert o is not None
        return Constraint(lambda v: self(v) or o(v), f"{self.description} or {o.description}")

    def __repr__(self) -> str:
        return f"Constraint({self.description})"


def to_constraint(spec: Any) -> Constraint | None:
    """Normalise a declaration's constraint spec (see module docstring)."""
    if spec is None or isinstance(spec, Constraint):
        return spec
    if isinstance(spec, tuple):
        parts = [to_constraint(s) for s in spec]
        return Constraint(
            lambda v: any(p(v) for p in parts if p is not None),
            " or ".join(p.description for p in parts if p is not None),
        )
    if isinstance(spec, type):
        return Constraint(lambda v: isinstance(v, spec), _class_description(spec), storage=spec)
    if hasattr(spec, "text"):  # an interned Type/Attribute instance: identity match
        return Constraint(lambda v: v is spec, f"'{spec.text}'", exact=spec)
    raise TypeError(f"cannot use {spec!r} as a constraint")


def _class_description(cls: type) -> str:
    name = getattr(cls, "name", "") or cls.__name__
    return name


def _scalar(pred: Callable[[Type], bool]) -> Callable[[Any], bool]:
    def check(t: Any) -> bool:
        return pred(t.element_type) if isinstance(t, VectorType) else pred(t)

    return check


def _is_signless_int(t: Any) -> bool:
    return isinstance(t, IntegerType) and t.is_signless


AnyType = Constraint(lambda t: isinstance(t, Type), "any type")
SignlessInteger = Constraint(_is_signless_int, "signless integer")
SignlessIntegerOrIndex = Constraint(
    lambda t: _is_signless_int(t) or isinstance(t, IndexType), "signless integer or index"
)
SignlessIntegerLike = Constraint(
    _scalar(lambda t: _is_signless_int(t) or isinstance(t, IndexType)),
    "signless-integer-like",
)
FloatLike = Constraint(_scalar(lambda t: isinstance(t, FloatType)), "floating-point-like")
BoolLike = Constraint(_scalar(lambda t: t is i1), "bool-like")
Index = Constraint(lambda t: isinstance(t, IndexType), "index", exact=IndexType())
I1 = Constraint(lambda t: t is i1, "i1", exact=i1)
IntegerOrIndexOrFloatLike = Constraint(
    _scalar(lambda t: isinstance(t, (IntegerType, IndexType, FloatType))),
    "integer, index or floating-point-like",
)


def integer_attr(t: Type, description: str) -> Constraint:
    """An ``IntegerAttr`` of type ``t`` (MLIR's ``I32Attr``...): an assembly format prints it
    bare (``4``), its type being known."""
    from .attributes import IntegerAttr

    return Constraint(lambda a: isinstance(a, IntegerAttr) and a.type is t, description, storage=t)
