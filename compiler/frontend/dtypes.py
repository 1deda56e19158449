"""Element types of the DSL: ``lc.f32``, ``lc.bf16``, ``lc.i32``, ...

One object per type ties together its IR type (``f32``), its kernel-ABI name (``f32``; ``tf32``
is stored as ``f32``), its width and kind. Calling one converts a value: ``lc.f32(x)`` turns a
dynamic integer into a float, ``lc.i32(3)`` makes a constant.
"""

from __future__ import annotations

from typing import Any

from ..ir.core import types as ir_types


class ElementType:
    """A scalar element type usable in tensor annotations, fragments and conversions."""

    __slots__ = ("abi", "bits", "kind", "name")

    def __init__(self, name: str, bits: int, kind: str, abi: str | None):
        self.name = name
        self.bits = bits
        self.kind = kind  # "float", "int" or "bool"
        self.abi = abi

    @property
    def ir_type(self) -> ir_types.Type:
        return _IR_TYPES[self.name]()

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_int(self) -> bool:
        return self.kind == "int"

    @property
    def bytes(self) -> int:
        return max(self.bits // 8, 1)

    def __call__(self, value: Any) -> Any:
        """Convert ``value`` (a Python number or a dynamic scalar) to this type."""
        from .scalars import convert

        return convert(value, self)

    def __repr__(self) -> str:
        return f"lc.{self.name}"

    def __reduce__(self) -> tuple:
        return (element_type, (self.name,))


_IR_TYPES = {
    "f8e4m3": lambda: ir_types.f8e4m3fn,
    "f8e5m2": lambda: ir_types.f8e5m2,
    "f16": lambda: ir_types.f16,
    "bf16": lambda: ir_types.bf16,
    "tf32": lambda: ir_types.tf32,
    "f32": lambda: ir_types.f32,
    "f64": lambda: ir_types.f64,
    "i1": lambda: ir_types.i1,
    "i8": lambda: ir_types.i8,
    "i16": lambda: ir_types.i16,
    "i32": lambda: ir_types.i32,
    "i64": lambda: ir_types.i64,
}

# FP8 (OCP E4M3 without infinities, MLIR's f8E4M3FN; E5M2): storage types that TMA, copies
# and the warpgroup MMAs move and read; no arithmetic (scalars.refuse_fp8).
f8e4m3 = ElementType("f8e4m3", 8, "float", "f8e4m3")
f8e5m2 = ElementType("f8e5m2", 8, "float", "f8e5m2")
f16 = ElementType("f16", 16, "float", "f16")
bf16 = ElementType("bf16", 16, "float", "bf16")
tf32 = ElementType("tf32", 32, "float", "f32")
f32 = ElementType("f32", 32, "float", "f32")
f64 = ElementType("f64", 64, "float", "f64")
i1 = ElementType("i1", 1, "bool", None)
i8 = ElementType("i8", 8, "int", "i8")
i16 = ElementType("i16", 16, "int", "i16")
i32 = ElementType("i32", 32, "int", "i32")
i64 = ElementType("i64", 64, "int", "i64")

ELEMENT_TYPES: dict[str, ElementType] = {
    t.name: t for t in (f8e4m3, f8e5m2, f16, bf16, tf32, f32, f64, i1, i8, i16, i32, i64)
}
_BY_IR = {"f16": f16, "bf16": bf16, "tf32": tf32, "f32": f32, "f64": f64}
_BY_IR.update({"f8E4M3FN": f8e4m3, "f8E5M2": f8e5m2})
_BY_ABI = {"f16": f16, "bf16": bf16, "f32": f32, "f64": f64, "i8": i8, "i16": i16}
_BY_ABI.update({"f8e4m3": f8e4m3, "f8e5m2": f8e5m2})
_BY_ABI.update({"i32": i32, "i64": i64})


def element_type(name: str) -> ElementType:
    """The element type called ``name`` (``"f32"``), or a ValueError listing the valid ones."""
    try:
        return ELEMENT_TYPES[name]
    except KeyError:
        raise ValueError(
            f"unknown element type {name!r}; expected one of {', '.join(ELEMENT_TYPES)}"
        ) from None


def from_abi(name: str | None) -> ElementType | None:
    """The element type for a runtime ABI dtype name (``u8`` and friends have none)."""
    return _BY_ABI.get(name) if name is not None else None


def from_ir(t: ir_types.Type) -> ElementType | None:
    """The element type whose IR type is ``t`` (None for index and other types)."""
    if isinstance(t, ir_types.FloatType):
        return _BY_IR.get(t.text)
    if isinstance(t, ir_types.IntegerType) and t.is_signless:
        return ELEMENT_TYPES.get(f"i{t.width}")
    return None
