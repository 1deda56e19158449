"""Atomics on one element of a global or shared tensor: ``tile.atomic_rmw`` (CUDA's atomicAdd,
atomicSub, atomicMax, atomicMin, atomicExch, atomicAnd/Or/Xor) and ``tile.atomic_cas``
(atomicCAS). Both return the element's old value and address it as ``tile.store`` does (a
tensor and a coordinate, or after lower-layouts a pointer and an element offset).

The element types are CUDA's: integer kinds on i32/i64 (max/min signed, as on ``int``), add on
f16/f32/f64 too (``atom.add.noftz.f16``), exch on f32/f64, CAS on i32/i64 (bf16 values are their
i16 bits at the LLVM level, so bf16 atomics are refused). Registers (rmem) and coordinate tensors have no shared
memory for other threads to see, so they are refused. Ordering: relaxed (``monotonic``) at
device scope, as CUDA's atomic functions.
"""

from __future__ import annotations

from typing import Any

from ...core.asm import OpAsmParser, OpAsmPrinter
from ...core.attributes import StringAttr
from ...core.constraints import Constraint
from ...core.errors import VerifyError
from ...core.location import Location
from ...core.opdef import operand, prop, result, var_operand
from ...core.types import IndexType, Type, index
from ...core.values import Value
from . import coords as C
from .base import build_error
from .effects import MemoryEffects
from .ops_element import _AccessOp, _coordinate_operands
from .spaces import COORD, RMEM
from .types import PtrType, TensorType

__all__ = ["ATOMIC_KINDS", "ATOMIC_OPS", "AtomicCASOp", "AtomicRMWOp", "atomic_type_problem"]

_Index = Constraint(lambda t: isinstance(t, IndexType), "index")
_Memory = Constraint(lambda t: isinstance(t, (TensorType, PtrType)), "!tile.tensor or !tile.ptr")

_INTS = frozenset({"i32", "i64"})
_FLOATS = frozenset({"f32", "f64"})
ATOMIC_KINDS: dict[str, frozenset[str]] = {
    "add": _INTS | _FLOATS | {"f16"},
    "sub": _INTS,
    "max": _INTS,
    "min": _INTS,
    "exch": _INTS | _FLOATS,
    "and": _INTS,
    "or": _INTS,
    "xor": _INTS,
    "cas": _INTS,
}


def atomic_type_problem(kind: str, memory: Type) -> str | None:
    """Why ``kind`` cannot update an element of ``memory`` (None if it can)."""
    if kind not in ATOMIC_KINDS:
        return f"unknown atomic operation '{kind}'; expected one of {', '.join(ATOMIC_KINDS)}"
    if isinstance(memory, TensorType) and memory.space == COORD:
        return "a coordinate tensor has no memory to update atomically"
    space = memory.space  # type: ignore[attr-defined]
    if space == RMEM:
        return "atomics need global or shared memory; a register fragment is private to its thread"
    elem = memory.element.text  # type: ignore[attr-defined]
    allowed = ATOMIC_KINDS[kind]
    if elem not in allowed:
        return (
            f"atomic {kind} supports {', '.join(sorted(allowed))} elements (as CUDA's), not {elem}"
        )
    return None


class _AtomicOp(_AccessOp):
    dest: Any

    @property
    def source(self) -> Value:
        return self.dest

    def _verify_atomic(self, kind: str, values: list[Value]) -> None:
        why = atomic_type_problem(kind, self.dest.type)
        if why is not None:
            raise VerifyError(why)
        self._verify_address()
        elem = self.dest.type.element
        for v in values:
            if v.type is not elem:
                raise VerifyError(
                    f"operand has type '{v.type.text}', but the memory holds '{elem.text}'"
                )
        if self.results[0].type is not elem:
            raise VerifyError(
                f"result type '{self.results[0].type.text}' should be '{elem.text}' (the old value)"
            )


class AtomicRMWOp(_AtomicOp):
    """``%old = tile.atomic_rmw add %v, %t[(%i, 2)] : !tile.tensor<f32, gmem, "(4,8):(1,4)", 16>``:
    the element becomes ``old <kind> %v`` atomically; the result is ``old``."""

    name = "tile.atomic_rmw"
    traits = (MemoryEffects(reads=("dest",), writes=("dest",)),)
    kind = prop(StringAttr)
    value = operand()
    dest = operand(_Memory)
    coords = var_operand(_Index)
    result = result()

    def __init__(
        self, kind: str, value: Value, dest: Value, coord: Any, loc: Location | None = None
    ):
        if kind == "cas" or kind not in ATOMIC_KINDS:
            raise build_error(self.name, f"unknown atomic operation '{kind}'", loc)
        attr, dynamic, _addr = _coordinate_operands(self.name, dest, coord, loc)
        rt = getattr(dest.type, "element", None) or value.type
        super().__init__(
            operands=[value, dest, dynamic],
            result_types=[rt],
            properties={"kind": StringAttr(kind), "coord": attr},
            loc=loc,
        )

    def verify_(self) -> None:
        if self.kind.value == "cas":
            raise VerifyError("compare-and-swap is 'tile.atomic_cas'")
        self._verify_atomic(self.kind.value, [self.value])

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(f" {self.kind.value} ")
        p.print_operand(self.value)
        p.write(", ")
        p.print_operand(self.dest)
        C.print_coordinate(p, self.pattern, self.coords)
        p.print_attr_dict(self, elided=("coord", "kind"))
        p.write(f" : {self.dest.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> AtomicRMWOp:
        kind = p.parse_keyword()
        val = p.parse_operand()
        p.expect(",")
        dst = p.parse_operand()
        pattern, coords = C.parse_coordinate(p, allow_wildcard=False)
        attrs = p.parse_optional_attr_dict()
        dt = _parse_memory_type(p, cls.name)
        values = p.resolve_operands([val, dst, *coords], [dt.element, dt] + [index] * len(coords))
        props = {"kind": StringAttr(kind), "coord": StringAttr(C.format_pattern(pattern))}
        return cls.create(values, [dt.element], properties=props, attributes=attrs, loc=p.loc)


class AtomicCASOp(_AtomicOp):
    """``%old = tile.atomic_cas %cmp, %v, %t[(%i)] : !tile.tensor<i32, gmem, "(?):(1)", 4>``: the
    element becomes ``%v`` if it equals ``%cmp`` (CUDA's atomicCAS); the result is the old
    value either way."""

    name = "tile.atomic_cas"
    traits = (MemoryEffects(reads=("dest",), writes=("dest",)),)
    compare = operand()
    value = operand()
    dest = operand(_Memory)
    coords = var_operand(_Index)
    result = result()

    def __init__(
        self, compare: Value, value: Value, dest: Value, coord: Any, loc: Location | None = None
    ):
        attr, dynamic, _addr = _coordinate_operands(self.name, dest, coord, loc)
        rt = getattr(dest.type, "element", None) or value.type
        super().__init__(
            operands=[compare, value, dest, dynamic],
            result_types=[rt],
            properties={"coord": attr},
            loc=loc,
        )

    def verify_(self) -> None:
        self._verify_atomic("cas", [self.compare, self.value])

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        p.print_operands([self.compare, self.value])
        p.write(", ")
        p.print_operand(self.dest)
        C.print_coordinate(p, self.pattern, self.coords)
        p.print_attr_dict(self, elided=("coord",))
        p.write(f" : {self.dest.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> AtomicCASOp:
        cmp = p.parse_operand()
        p.expect(",")
        val = p.parse_operand()
        p.expect(",")
        dst = p.parse_operand()
        pattern, coords = C.parse_coordinate(p, allow_wildcard=False)
        attrs = p.parse_optional_attr_dict()
        dt = _parse_memory_type(p, cls.name)
        types = [dt.element, dt.element, dt] + [index] * len(coords)
        values = p.resolve_operands([cmp, val, dst, *coords], types)
        props = {"coord": StringAttr(C.format_pattern(pattern))}
        return cls.create(values, [dt.element], properties=props, attributes=attrs, loc=p.loc)


def _parse_memory_type(p: OpAsmParser, name: str) -> Any:
    at = p.pos
    dt = p.parse_colon_type()
    if not isinstance(dt, (TensorType, PtrType)) or dt.element is None:
        raise p.error(
            f"'{name}' needs a !tile.tensor or !tile.ptr with elements, got '{dt.text}'", at
        )
    return dt


ATOMIC_OPS = (AtomicRMWOp, AtomicCASOp)
