"""LLVM dialect casts: ``bitcast``, ``addrspacecast``, ``ptrtoint``, ``inttoptr``
(``%r = llvm.bitcast %x : f32 to i32``)."""

from __future__ import annotations

from ...core.errors import VerifyError
from ...core.location import Location
from ...core.opdef import operand, result
from ...core.operation import Operation
from ...core.traits import Pure
from ...core.types import FloatType, IntegerType, Type, VectorType
from ...core.values import Value
from .common import LLVMType, Pointer, SignlessInteger
from .types import LLVMPointerType


def _bit_size(t: Type) -> int | None:
    """Bits of a scalar or vector of scalars; None for pointers and aggregates."""
    if isinstance(t, (IntegerType, FloatType)):
        return t.width
    if isinstance(t, VectorType):
        inner = _bit_size(t.element_type)
        return None if inner is None else inner * t.num_elements
    return None


class _CastOp(Operation):
    rules_by_signature = True  # verify_op checks the rules once per signature
    assembly_format = "$arg attr-dict `:` type($arg) `to` type($res)"
    traits = (Pure,)
    arg: Value
    res: Value

    def __init__(self, value: Value, result_type: Type, loc: Location | None = None):
        super().__init__(operands=[value], result_types=[result_type], loc=loc)


class BitcastOp(_CastOp):
    """Reinterpret bits: same width, or pointer to pointer of the same address space."""

    rules_by_signature = True  # verify_op checks the rules once per signature

    name = "llvm.bitcast"
    arg = operand(LLVMType)
    res = result(LLVMType)

    def verify_(self) -> None:
        a, b = self.arg.type, self.res.type
        if isinstance(a, LLVMPointerType) or isinstance(b, LLVMPointerType):
            if not (isinstance(a, LLVMPointerType) and isinstance(b, LLVMPointerType)):
                raise VerifyError("can only cast pointers to pointers (use ptrtoint/inttoptr)")
            if a.address_space != b.address_space:
                raise VerifyError("cannot change the address space (use llvm.addrspacecast)")
            return
        sa, sb = _bit_size(a), _bit_size(b)
        if sa is None or sb is None or sa != sb:
            raise VerifyError(
                f"operand type '{a.text}' and result type '{b.text}' have different bit sizes"
            )


class AddrSpaceCastOp(_CastOp):
    """``%g = llvm.addrspacecast %p : !llvm.ptr<3> to !llvm.ptr``."""

    name = "llvm.addrspacecast"
    arg = operand(Pointer)
    res = result(Pointer)


class PtrToIntOp(_CastOp):
    name = "llvm.ptrtoint"
    arg = operand(Pointer)
    res = result(SignlessInteger)


class IntToPtrOp(_CastOp):
    name = "llvm.inttoptr"
    arg = operand(SignlessInteger)
    res = result(Pointer)


CAST_OPS: list[type[Operation]] = [BitcastOp, AddrSpaceCastOp, PtrToIntOp, IntToPtrOp]
