"""Interning of immutable IR values (types, attributes, locations).

Every type, attribute and location is created once per distinct parameter tuple, so equality
is identity: comparing two types is a pointer comparison and they hash by ``id``. Subclasses
normalise their parameters into a hashable ``key`` and call :meth:`Uniqued._unique`.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

_U = TypeVar("_U", bound="Uniqued")


class Uniqued:
    """Base of interned, immutable IR objects; equality and hashing are by identity."""

    __slots__ = ("_text",)
    _instances: ClassVar[dict[Any, Any]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._instances = {}

    @classmethod
    def _unique(cls: type[_U], key: Any, **fields: Any) -> _U:
        """Return the interned instance for ``key``, creating it with ``fields`` on a miss."""
        inst = cls._instances.get(key)
        if inst is not None:
            return inst
        inst = object.__new__(cls)
        setter = object.__setattr__
        for name, value in fields.items():
            setter(inst, name, value)
        setter(inst, "_text", None)
        # setdefault keeps interning correct even if two threads race on the same key.
        return cls._instances.setdefault(key, inst)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "_text":
            object.__setattr__(self, name, value)
            return
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __copy__(self: _U) -> _U:
        return self

    def __deepcopy__(self: _U, memo: Any) -> _U:
        return self

    @property
    def text(self) -> str:
        """The MLIR spelling, computed once and cached (the object is immutable)."""
        t = self._text
        if t is None:
            t = self._print()
            object.__setattr__(self, "_text", t)
        return t

    def _print(self) -> str:
        raise NotImplementedError(f"{type(self).__name__} does not define its textual form")

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.text})"
