"""Packing per-thread MMA and ldmatrix values into the 32-bit registers PTX exchanges.

An atom's fragments (``ir/dialects/tile/atoms.py``) say how many registers each operand has
and how many values share one: 16-bit values travel in pairs (first value in the low half),
tf32 and f32 one per register. ``nvvm.mma.sync`` takes packed halves as ``vector<2xf16>`` and
everything else as ``i32`` (f32 accumulators as ``f32``); f32 values given to a tf32 atom are
rounded the way CUTLASS does (``cvt.rna.tf32.f32``: to nearest, ties away from zero).
"""

from __future__ import annotations

from collections.abc import Sequence

from layoutc.ir.core.attributes import DenseArrayAttr
from layoutc.ir.core.builder import Builder
from layoutc.ir.core.types import Type, VectorType, bf16, f16, f32, i8, i32, i64, tf32
from layoutc.ir.core.values import Value
from layoutc.ir.dialects import arith
from layoutc.ir.dialects.llvm import (
    BitcastOp,
    ExtractElementOp,
    ExtractValueOp,
    InlineAsmOp,
    InsertElementOp,
    UndefOp,
)

HOST = "host"

_TF32_MASK = 0xFFFFE000 - (1 << 32)  # the 19 bits a tf32 keeps, as a signed i32
_TF32_NAN = 0x7FC00000


def _const(b: Builder, v: int, t: Type = i32) -> Value:
    return b.insert(arith.ConstantOp.from_int(v, t)).results[0]


def round_to_tf32(b: Builder, x: Value, target: str) -> Value:
    """An f32 value's tf32 bits (in an i32), rounded to nearest with ties away from zero."""
    if target != HOST:
        op = b.create(InlineAsmOp, "cvt.rna.tf32.f32 $0, $1;", "=r,f", [x], i32)
        return op.results[0]
    bits = b.create(arith.BitcastOp, x, i32).results[0]
    half_ulp = b.create(arith.AddIOp, bits, _const(b, 0x1000)).results[0]
    rounded = b.create(arith.AndIOp, half_ulp, _const(b, _TF32_MASK)).results[0]
    is_nan = b.create(arith.CmpFOp, "uno", x, x).results[0]
    return b.create(arith.SelectOp, is_nan, _const(b, _TF32_NAN), rounded).results[0]


def _pair_vector(b: Builder, values: Sequence[Value], t: Type) -> Value:
    vt = VectorType([2], t)
    vec = b.create(UndefOp, vt).results[0]
    for k, v in enumerate(values):
        vec = b.create(InsertElementOp, vec, v, _const(b, k)).results[0]
    return vec


def pack_registers(
    b: Builder, values: Sequence[Value], ptx: str, register_type: Type, target: str
) -> list[Value]:
    """``values`` (in fragment order) as registers of ``register_type`` for a ``ptx``-typed
    operand (``tf32``, ``f16``, ``bf16``, ``f32``)."""
    if ptx in ("f16", "bf16"):
        elem = f16 if ptx == "f16" else bf16
        regs = []
        for k in range(0, len(values), 2):
            vec = _pair_vector(b, values[k : k + 2], elem)
            if register_type is not vec.type:
                vec = b.create(BitcastOp, vec, register_type).results[0]
            regs.append(vec)
        return regs
    if ptx == "tf32":
        out = []
        for v in values:
            if v.type is f32:
                out.append(round_to_tf32(b, v, target))
            elif v.type in (tf32, i32):
                out.append(v)
            else:
                raise ValueError(f"cannot pass '{v.type.text}' values as tf32")
        return out
    return list(values)


def unpack_registers(
    b: Builder, regs: Sequence[Value], elem: Type, per_register: int
) -> list[Value]:
    """Registers back to values of ``elem`` (``per_register`` values each, low half first)."""
    if per_register == 1:
        out = []
        for r in regs:
            if r.type is elem or (elem is tf32 and r.type is i32):
                out.append(r)
            else:
                out.append(b.create(BitcastOp, r, elem).results[0])
        return out
    vt = VectorType([per_register], elem)
    out = []
    for r in regs:
        vec = r if r.type is vt else b.create(BitcastOp, r, vt).results[0]
        for k in range(per_register):
            out.append(b.create(ExtractElementOp, vec, _const(b, k)).results[0])
    return out


def struct_fields(b: Builder, value: Value, n: int) -> list[Value]:
    """The ``n`` fields of an ``!llvm.struct`` value (the value itself when ``n == 1`` and it
    is not a struct)."""
    from layoutc.ir.dialects.llvm.types import LLVMStructType

    t = value.type
    if not isinstance(t, LLVMStructType):
        return [value]
    body = t.body
    if n > len(body):  # ExtractValueOp's own error
        return [b.create(ExtractValueOp, value, [k]).results[0] for k in range(n)]
    # ExtractValueOp(value, [k]) without its constructor's generic work (the 640 unpacked
    # fields of a GEMM's mma.sync and ldmatrix results): the field type and the position
    insert = b.insert
    create = ExtractValueOp.create
    return [
        insert(create([value], [body[k]], {"position": _position(k)})).results[0] for k in range(n)
    ]


_POSITIONS: dict[int, DenseArrayAttr] = {}


def _position(k: int) -> DenseArrayAttr:
    found = _POSITIONS.get(k)
    if found is None:
        found = _POSITIONS[k] = DenseArrayAttr(i64, [k])
    return found


def wgmma_a_registers(b: Builder, values: Sequence[Value], ptx: str, target: str) -> list[Value]:
    """A register-A wgmma's A values (in the atom's value order) as its four ``b32``
    registers: 16-bit values in pairs (low half first), FP8 values (their i8 bits) in fours
    (low byte first); tf32 one per register as the f32's
    raw bits (the tensor core reads the 19 tf32 bits, as it does from shared memory, so an RS
    and an SS product of the same data agree)."""
    if ptx in ("f16", "bf16"):
        return pack_registers(b, values, ptx, i32, target)
    if ptx == "tf32":
        out = []
        for v in values:
            out.append(v if v.type in (i32, tf32) else b.create(BitcastOp, v, i32).results[0])
        return out
    if ptx in ("e4m3", "e5m2"):  # four bytes per register, the first in the low byte
        out = []
        for r in range(0, len(values), 4):
            word = None
            for e, v in enumerate(values[r : r + 4]):
                if v.type is not i8:
                    raise ValueError(f"expected FP8 values as their i8 bits, got '{v.type.text}'")
                x = b.create(arith.ExtUIOp, v, i32).results[0]
                if e:
                    x = b.create(arith.ShLIOp, x, _const(b, 8 * e)).results[0]
                word = x if word is None else b.create(arith.OrIOp, word, x).results[0]
            out.append(word)
        return out
    raise ValueError(f"not supported: register-A wgmma with {ptx} values")
