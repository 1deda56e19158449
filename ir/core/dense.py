"""``dense<...> : vector<...>``: MLIR's builtin DenseIntOrFPElementsAttr, for vector types.

The value of a vector constant (``arith.constant dense<1.0> : vector<4xf32>``). Elements are
kept as interned scalar attributes (IntegerAttr/FloatAttr of the element type), so bit
patterns (-0.0, NaN payloads) survive and folders reuse the scalar semantics element by
element. As in MLIR, a list whose elements are all equal is stored, and printed, as a splat:
``dense<[1, 1]>`` prints ``dense<1>``. Scalable vectors hold splats only.

Text follows MLIR's printer: nested ``[...]`` lists in row-major order, ``true``/``false``
for ``i1``, floats as FloatAttr literals (hex bit patterns for non-finite values), and the
hex form ``dense<"0x...">`` (MLIR's raw storage: each element little-endian in its width
rounded up to bytes) above 100 elements; ``i1``, which MLIR stores as packed bits, always prints
as a list and its hex form is not parsed.
Tensor and memref types are not supported (the IR has no such types).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from .attributes import Attribute, FloatAttr, IntegerAttr, normalize_int
from .types import FloatType, IndexType, IntegerType, Type, VectorType, i1

Scalar = IntegerAttr | FloatAttr

HEX_THRESHOLD = 100  # MLIR prints non-splat elements in hex above this many elements


def element_attr(value: int | float | Scalar, type: Type) -> Scalar:
    """``value`` as a scalar attribute of ``type`` (an int/float, or an attribute of it)."""
    if isinstance(value, (IntegerAttr, FloatAttr)):
        if value.type is not type:
            raise ValueError(f"element {value.text} does not have the element type {type.text}")
        return value
    if isinstance(type, (IntegerType, IndexType)):
        if isinstance(value, float) or not isinstance(value, int):
            raise ValueError(f"element {value!r} is not an integer of type {type.text}")
        return IntegerAttr(normalize_int(int(value), type), type)
    if isinstance(type, FloatType):
        if not isinstance(value, (int, float)):
            raise ValueError(f"element {value!r} is not a number")
        return FloatAttr(float(value), type)
    raise ValueError(f"dense elements need an integer, index or float element type, not {type}")


class DenseElementsAttr(Attribute):
    """The elements of a vector constant; ``elements`` holds one attribute for a splat."""

    __slots__ = ("elements", "type")
    type: VectorType
    elements: tuple[Scalar, ...]

    def __new__(
        cls, type: VectorType, values: int | float | Scalar | Iterable[int | float | Scalar]
    ) -> DenseElementsAttr:
        if not isinstance(type, VectorType):
            raise TypeError(f"dense elements need a vector type, got {type!r}")
        if isinstance(values, (int, float, IntegerAttr, FloatAttr)):
            values = (values,)
        elt = type.element_type
        elements = tuple(element_attr(v, elt) for v in values)
        if not elements:
            raise ValueError(f"dense elements of {type.text} need at least one value")
        if len(elements) > 1:
            if any(type.scalable):
                raise ValueError(f"a scalable vector ({type.text}) has only splat constants")
            if len(elements) != type.num_elements:
                raise ValueError(
                    f"{len(elements)} elements given for {type.text}, which has {type.num_elements}"
                )
            first = elements[0]
            if all(e is first for e in elements):
                elements = (first,)
        key = (type, elements)
        return cls._instances.get(key) or cls._unique(key, type=type, elements=elements)

    @classmethod
    def splat(cls, value: int | float | Scalar, type: VectorType) -> DenseElementsAttr:
        return cls(type, (value,))

    def __reduce__(self):
        return (DenseElementsAttr, (self.type, self.elements))

    @property
    def element_type(self) -> Type:
        return self.type.element_type

    @property
    def is_splat(self) -> bool:
        return len(self.elements) == 1

    @property
    def splat_value(self) -> Scalar | None:
        """The one element of a splat, else None."""
        return self.elements[0] if len(self.elements) == 1 else None

    def values(self) -> tuple[Scalar, ...]:
        """Every element in row-major order (a splat expanded; not for scalable vectors)."""
        if len(self.elements) == 1:
            if any(self.type.scalable):
                raise ValueError(f"a scalable vector ({self.type.text}) has no fixed elements")
            return self.elements * self.type.num_elements
        return self.elements

    def map(
        self, fn: Callable[[Scalar], Scalar | None], type: VectorType
    ) -> DenseElementsAttr | None:
        """``fn`` applied element by element (a splat stays a splat); None if fn gives None
        for any element. ``type`` is the result's vector type."""
        out = []
        for e in self.elements:
            r = fn(e)
            if r is None:
                return None
            out.append(r)
        return DenseElementsAttr(type, out)

    def _print(self) -> str:
        return f"dense<{self.literal()}> : {self.type.text}"

    def literal(self) -> str:
        """What goes between ``dense<`` and ``>``."""
        if len(self.elements) == 1:
            return _element_text(self.elements[0])
        width = _byte_width(self.element_type)
        if len(self.elements) > HEX_THRESHOLD and width is not None:
            raw = b"".join(_raw_bits(e).to_bytes(width, "little") for e in self.elements)
            return f'"0x{raw.hex().upper()}"'
        texts = [_element_text(e) for e in self.elements]
        return _nest(texts, self.type.shape)


def _element_text(e: Scalar) -> str:
    if isinstance(e, FloatAttr):
        return e.literal()
    if e.type is i1:
        return "true" if e.value else "false"
    return str(e.value)


def _nest(texts: list[str], shape: Sequence[int]) -> str:
    if len(shape) == 1:
        return "[" + ", ".join(texts) + "]"
    step = len(texts) // shape[0]
    parts = [_nest(texts[i : i + step], shape[1:]) for i in range(0, len(texts), step)]
    return "[" + ", ".join(parts) + "]"


def _byte_width(t: Type) -> int | None:
    """Bytes per element in MLIR's raw storage: the width rounded up to bytes (index: 8).
    None for i1, which MLIR packs as bits (its hex form is not supported here)."""
    if isinstance(t, IndexType):
        return 8
    width = t.width if isinstance(t, IntegerType) else t.format.width  # type: ignore[attr-defined]
    return None if width == 1 else (width + 7) // 8


def _raw_bits(e: Scalar) -> int:
    if isinstance(e, FloatAttr):
        return e.bits
    return e.unsigned_value


def from_raw_bytes(data: bytes, type: VectorType) -> DenseElementsAttr:
    """The attribute MLIR's hex form ``dense<"0x...">`` stands for: little-endian raw
    elements, all of them or one (a splat)."""
    elt = type.element_type
    width = _byte_width(elt)
    if width is None:
        raise ValueError(f"the hex form of dense elements is not supported for {elt.text}")
    if len(data) % width:
        raise ValueError(f"{len(data)} bytes are not a whole number of {elt.text} elements")
    words = [int.from_bytes(data[i : i + width], "little") for i in range(0, len(data), width)]
    if isinstance(elt, FloatType):
        mask = (1 << elt.format.width) - 1
        return DenseElementsAttr(type, [FloatAttr.from_bits(w & mask, elt) for w in words])
    bits = elt.width if isinstance(elt, IntegerType) else 64
    unsigned = isinstance(elt, IntegerType) and elt.is_unsigned
    words = [w & ((1 << bits) - 1) for w in words]
    values = [w if unsigned or w >> (bits - 1) == 0 else w - (1 << bits) for w in words]
    return DenseElementsAttr(type, values)
