"""Builtin types (MLIR spelling) and the base classes for dialect types.

Types are interned (see :mod:`.uniquing`): ``IntegerType(32) is i32``. A dialect type subclasses
:class:`DialectType`, sets ``name = "dialect.mnemonic"`` and implements ``parse_parameters`` and
``print_parameters``; unknown dialect types round-trip as :class:`OpaqueType`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import Enum
from typing import TYPE_CHECKING, ClassVar

from .floats import FLOAT_FORMATS, FloatFormat
from .uniquing import Uniqued

if TYPE_CHECKING:
    from .attr_parser import AttrParser


class Type(Uniqued):
    """Base of all types."""

    __slots__ = ()


class Signedness(Enum):
    SIGNLESS = ""
    SIGNED = "s"
    UNSIGNED = "u"


class IntegerType(Type):
    """``iN`` (signless), ``siN`` or ``uiN``; width in bits."""

    __slots__ = ("signedness", "width")
    width: int
    signedness: Signedness

    def __new__(cls, width: int, signedness: Signedness = Signedness.SIGNLESS) -> IntegerType:
        inst = cls._instances.get((width, signedness))
        if inst is not None:
            return inst
        if not isinstance(width, int) or isinstance(width, bool) or not 0 <= width <= 1 << 24:
            raise ValueError(f"invalid integer type width {width!r}")
        return cls._unique((width, signedness), width=width, signedness=signedness)

    def __reduce__(self):
        return (IntegerType, (self.width, self.signedness))

    @property
    def is_signless(self) -> bool:
        return self.signedness is Signedness.SIGNLESS

    @property
    def is_unsigned(self) -> bool:
        return self.signedness is Signedness.UNSIGNED

    def min_value(self) -> int:
        """Smallest value in this type's interpretation (signless counts as signed)."""
        return 0 if self.is_unsigned else -(1 << (self.width - 1)) if self.width else 0

    def max_value(self) -> int:
        if self.is_unsigned:
            return (1 << self.width) - 1
        return (1 << (self.width - 1)) - 1 if self.width else 0

    def _print(self) -> str:
        return f"{self.signedness.value}i{self.width}"


class IndexType(Type):
    """``index``: a target-sized integer; treated as 64-bit by folders."""

    __slots__ = ()
    width: ClassVar[int] = 64

    def __new__(cls) -> IndexType:
        return cls._instances.get(()) or cls._unique(())

    def __reduce__(self):
        return (IndexType, ())

    def _print(self) -> str:
        return "index"


class FloatType(Type):
    """``f8E4M3FN``, ``f8E5M2`` (MLIR's spellings of the OCP FP8 types), ``f16``, ``bf16``,
    ``tf32``, ``f32``, ``f64``."""

    __slots__ = ("format",)
    format: FloatFormat

    def __new__(cls, name: str) -> FloatType:
        inst = cls._instances.get(name)
        if inst is not None:
            return inst
        fmt = FLOAT_FORMATS.get(name)
        if fmt is None:
            raise ValueError(f"unknown float type {name!r}")
        return cls._unique(name, format=fmt)

    def __reduce__(self):
        return (FloatType, (self.format.name,))

    @property
    def width(self) -> int:
        return self.format.width

    def _print(self) -> str:
        return self.format.name


class NoneType(Type):
    """``none``: the unit type."""

    __slots__ = ()

    def __new__(cls) -> NoneType:
        return cls._instances.get(()) or cls._unique(())

    def __reduce__(self):
        return (NoneType, ())

    def _print(self) -> str:
        return "none"


class VectorType(Type):
    """``vector<4x8xf32>``; ``scalable`` marks ``[4]`` dimensions."""

    __slots__ = ("element_type", "scalable", "shape")
    shape: tuple[int, ...]
    element_type: Type
    scalable: tuple[bool, ...]

    def __new__(
        cls, shape: Sequence[int], element_type: Type, scalable: Sequence[bool] | None = None
    ) -> VectorType:
        shape = tuple(shape)
        scal = tuple(scalable) if scalable is not None else (False,) * len(shape)
        key = (shape, element_type, scal)
        inst = cls._instances.get(key)
        if inst is not None:
            return inst
        if len(scal) != len(shape):
            raise ValueError("vector scalable flags must match the shape's rank")
        if any(not isinstance(d, int) or d <= 0 for d in shape):
            raise ValueError(f"vector dimensions must be positive integers, got {shape}")
        if not isinstance(element_type, (IntegerType, IndexType, FloatType)):
            raise ValueError(
                f"vector element type must be integer, index or float, got {element_type}"
            )
        return cls._unique(key, shape=shape, element_type=element_type, scalable=scal)

    def __reduce__(self):
        return (VectorType, (self.shape, self.element_type, self.scalable))

    @property
    def num_elements(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def _print(self) -> str:
        dims = "".join(f"[{d}]x" if s else f"{d}x" for d, s in zip(self.shape, self.scalable))
        return f"vector<{dims}{self.element_type.text}>"


class FunctionType(Type):
    """``(inputs) -> results``."""

    __slots__ = ("inputs", "results")
    inputs: tuple[Type, ...]
    results: tuple[Type, ...]

    def __new__(cls, inputs: Iterable[Type], results: Iterable[Type]) -> FunctionType:
        key = (tuple(inputs), tuple(results))
        inst = cls._instances.get(key)
        if inst is not None:
            return inst
        for t in key[0] + key[1]:
            if not isinstance(t, Type):
                raise TypeError(f"function type entries must be types, got {t!r}")
        return cls._unique(key, inputs=key[0], results=key[1])

    def __reduce__(self):
        return (FunctionType, (self.inputs, self.results))

    def _print(self) -> str:
        return f"({', '.join(t.text for t in self.inputs)}) -> {result_list_text(self.results)}"


def result_list_text(results: Sequence[Type]) -> str:
    """Result types after ``->``: bare for one non-function type, parenthesised otherwise."""
    if len(results) == 1 and not isinstance(results[0], FunctionType):
        return results[0].text
    return f"({', '.join(t.text for t in results)})"


class TupleType(Type):
    """``tuple<i32, f32>``."""

    __slots__ = ("types",)
    types: tuple[Type, ...]

    def __new__(cls, types: Iterable[Type]) -> TupleType:
        key = tuple(types)
        return cls._instances.get(key) or cls._unique(key, types=key)

    def __reduce__(self):
        return (TupleType, (self.types,))

    def _print(self) -> str:
        return f"tuple<{', '.join(t.text for t in self.types)}>"


class OpaqueType(Type):
    """A type of a dialect that is not loaded, kept as text: ``!dialect.body``."""

    __slots__ = ("body", "dialect")
    dialect: str
    body: str

    def __new__(cls, dialect: str, body: str) -> OpaqueType:
        key = (dialect, body)
        return cls._instances.get(key) or cls._unique(key, dialect=dialect, body=body)

    def __reduce__(self):
        return (OpaqueType, (self.dialect, self.body))

    def _print(self) -> str:
        return f"!{self.dialect}{self.body}"


class DialectType(Type):
    """Base of types defined by dialects, printed ``!dialect.mnemonic<params>``.

    Subclasses set ``name`` (``"llvm.ptr"``), define ``__slots__`` and ``__new__`` (interning
    through ``_unique``), and implement :meth:`parse_parameters` / :meth:`print_parameters`.
    """

    __slots__ = ()
    name: ClassVar[str] = ""

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> DialectType:
        """Parse what follows ``!dialect.mnemonic`` (often ``<...>`` or nothing)."""
        raise NotImplementedError

    def print_parameters(self) -> str:
        """Text that follows ``!dialect.mnemonic``."""
        raise NotImplementedError

    def _print(self) -> str:
        return f"!{self.name}{self.print_parameters()}"


i1 = IntegerType(1)
i8 = IntegerType(8)
i16 = IntegerType(16)
i32 = IntegerType(32)
i64 = IntegerType(64)
index = IndexType()
f8e4m3fn = FloatType("f8E4M3FN")
f8e5m2 = FloatType("f8E5M2")
f16 = FloatType("f16")
bf16 = FloatType("bf16")
tf32 = FloatType("tf32")
f32 = FloatType("f32")
f64 = FloatType("f64")
none = NoneType()


def bit_width(t: Type) -> int | None:
    """Bit width of an integer, index (64) or float type; None for other types."""
    if isinstance(t, (IntegerType, FloatType)):
        return t.width
    if t is index:
        return 64
    return None


def element_type(t: Type) -> Type:
    """The scalar type of ``t`` (the element type of a vector, else ``t`` itself)."""
    return t.element_type if isinstance(t, VectorType) else t
