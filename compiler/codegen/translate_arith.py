"""arith -> LLVM IR: every op of the arith dialect, with MLIR's semantics.

Integer ops map to their LLVM instruction (overflow flags kept); ``ceildivui``,
``ceildivsi`` and ``floordivsi`` expand to a division plus a remainder correction (MLIR's
arith-expand semantics, exact wherever the quotient is defined); min/max are compare+select;
float min/max are LLVM's ``maximum``/``minimum`` (NaN-propagating, -0 < +0) and
``maxnum``/``minnum`` intrinsics; fast-math flags become LLVM's.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.core.attributes import FloatAttr, IntegerAttr
from layoutc.ir.core.types import bit_width, element_type
from layoutc.ir.dialects.arith.attributes import CmpFPredicate, CmpIPredicate
from llvmlite import ir

from .translate_function import FunctionTranslator, HandlerTable
from .translate_types import fail

ARITH = HandlerTable()

_INT_BINARY = {
    "arith.addi": "add",
    "arith.subi": "sub",
    "arith.muli": "mul",
    "arith.shli": "shl",
    "arith.divui": "udiv",
    "arith.divsi": "sdiv",
    "arith.remui": "urem",
    "arith.remsi": "srem",
    "arith.andi": "and_",
    "arith.ori": "or_",
    "arith.xori": "xor",
    "arith.shrui": "lshr",
    "arith.shrsi": "ashr",
}
_WITH_OVERFLOW_FLAGS = frozenset({"add", "sub", "mul", "shl"})

_FLOAT_BINARY = {
    "arith.addf": "fadd",
    "arith.subf": "fsub",
    "arith.mulf": "fmul",
    "arith.divf": "fdiv",
    "arith.remf": "frem",
}

_FLOAT_INTRINSIC = {
    "arith.maximumf": "llvm.maximum",
    "arith.minimumf": "llvm.minimum",
    "arith.maxnumf": "llvm.maxnum",
    "arith.minnumf": "llvm.minnum",
}


def fastmath(op: Any) -> tuple[str, ...]:
    """LLVM fast-math flag names of an op's ``fastmath`` property."""
    attr = op.properties.get("fastmath")
    return tuple(attr.flags) if attr is not None else ()


def _overflow_flags(op: Any) -> tuple[str, ...]:
    attr = op.properties.get("overflowFlags")
    return tuple(attr.flags) if attr is not None else ()


@ARITH.register(*_INT_BINARY)
def _int_binary(ft: FunctionTranslator, op: Any) -> None:
    kind = _INT_BINARY[op.name]
    a, b = ft.operands(op)
    fn = getattr(ft.builder, kind)
    if kind in _WITH_OVERFLOW_FLAGS:
        ft.set_result(op, fn(a, b, name=ft.name(op), flags=_overflow_flags(op)))
    else:
        ft.set_result(op, fn(a, b, name=ft.name(op)))


def _zero_like(t: ir.Type, value: int = 0) -> ir.Constant:
    if isinstance(t, ir.VectorType):
        return ir.Constant(t, [ir.Constant(t.element, value)] * t.count)
    return ir.Constant(t, value)


@ARITH.register("arith.ceildivui")
def _ceildivui(ft: FunctionTranslator, op: Any) -> None:
    b = ft.builder
    x, y = ft.operands(op)
    q = b.udiv(x, y)
    r = b.urem(x, y)
    t = x.type
    bump = b.zext(b.icmp_unsigned("!=", r, _zero_like(t)), t)
    ft.set_result(op, b.add(q, bump, name=ft.name(op)))


@ARITH.register("arith.ceildivsi", "arith.floordivsi")
def _rounded_sdiv(ft: FunctionTranslator, op: Any) -> None:
    """q = x sdiv y, r = x srem y; ceil adds 1 when r != 0 and r, y share a sign, floor
    subtracts 1 when r != 0 and their signs differ."""
    b = ft.builder
    x, y = ft.operands(op)
    t = x.type
    zero = _zero_like(t)
    q = b.sdiv(x, y)
    r = b.srem(x, y)
    nonzero = b.icmp_signed("!=", r, zero)
    differ = b.icmp_signed("<", b.xor(r, y), zero)
    if op.name == "arith.ceildivsi":
        adjust = b.and_(nonzero, b.not_(differ))
        result = b.add(q, b.zext(adjust, t), name=ft.name(op))
    else:
        adjust = b.and_(nonzero, differ)
        result = b.sub(q, b.zext(adjust, t), name=ft.name(op))
    ft.set_result(op, result)


_MINMAX = {
    "arith.minsi": ("<", True),
    "arith.maxsi": (">", True),
    "arith.minui": ("<", False),
    "arith.maxui": (">", False),
}


@ARITH.register(*_MINMAX)
def _int_minmax(ft: FunctionTranslator, op: Any) -> None:
    pred, signed = _MINMAX[op.name]
    a, b_ = ft.operands(op)
    b = ft.builder
    cmp = b.icmp_signed(pred, a, b_) if signed else b.icmp_unsigned(pred, a, b_)
    ft.set_result(op, b.select(cmp, a, b_, name=ft.name(op)))


@ARITH.register(*_FLOAT_BINARY)
def _float_binary(ft: FunctionTranslator, op: Any) -> None:
    a, b = ft.operands(op)
    fn = getattr(ft.builder, _FLOAT_BINARY[op.name])
    ft.set_result(op, fn(a, b, name=ft.name(op), flags=fastmath(op)))


def intrinsic_suffix(t: ir.Type) -> str:
    """LLVM's overload suffix: ``f32``, ``v4f32``, ``i64``."""
    if isinstance(t, ir.VectorType):
        return f"v{t.count}{intrinsic_suffix(t.element)}"
    if isinstance(t, ir.IntType):
        return f"i{t.width}"
    return t.intrinsic_name


@ARITH.register(*_FLOAT_INTRINSIC)
def _float_minmax(ft: FunctionTranslator, op: Any) -> None:
    a, b = ft.operands(op)
    t = a.type
    fn = ft.module.intrinsic(f"{_FLOAT_INTRINSIC[op.name]}.{intrinsic_suffix(t)}", t, [t, t])
    ft.set_result(op, ft.builder.call(fn, [a, b], name=ft.name(op), fastmath=fastmath(op)))


@ARITH.register("arith.negf")
def _negf(ft: FunctionTranslator, op: Any) -> None:
    (a,) = ft.operands(op)
    ft.set_result(op, ft.builder.fneg(a, name=ft.name(op), flags=fastmath(op)))


_ICMP = {
    CmpIPredicate.eq: ("==", None),
    CmpIPredicate.ne: ("!=", None),
    CmpIPredicate.slt: ("<", True),
    CmpIPredicate.sle: ("<=", True),
    CmpIPredicate.sgt: (">", True),
    CmpIPredicate.sge: (">=", True),
    CmpIPredicate.ult: ("<", False),
    CmpIPredicate.ule: ("<=", False),
    CmpIPredicate.ugt: (">", False),
    CmpIPredicate.uge: (">=", False),
}


@ARITH.register("arith.cmpi")
def _cmpi(ft: FunctionTranslator, op: Any) -> None:
    pred, signed = _ICMP[op.predicate_enum]
    a, b_ = ft.operands(op)
    b = ft.builder
    if signed is False:
        r = b.icmp_unsigned(pred, a, b_, name=ft.name(op))
    else:
        r = b.icmp_signed(pred, a, b_, name=ft.name(op))
    ft.set_result(op, r)


# ordered / unordered comparison per predicate ('false'/'true' are constants)
_FCMP = {
    CmpFPredicate.oeq: ("ordered", "=="),
    CmpFPredicate.ogt: ("ordered", ">"),
    CmpFPredicate.oge: ("ordered", ">="),
    CmpFPredicate.olt: ("ordered", "<"),
    CmpFPredicate.ole: ("ordered", "<="),
    CmpFPredicate.one: ("ordered", "!="),
    CmpFPredicate.ord: ("ordered", "ord"),
    CmpFPredicate.ueq: ("unordered", "=="),
    CmpFPredicate.ugt: ("unordered", ">"),
    CmpFPredicate.uge: ("unordered", ">="),
    CmpFPredicate.ult: ("unordered", "<"),
    CmpFPredicate.ule: ("unordered", "<="),
    CmpFPredicate.une: ("unordered", "!="),
    CmpFPredicate.uno: ("unordered", "uno"),
}


@ARITH.register("arith.cmpf")
def _cmpf(ft: FunctionTranslator, op: Any) -> None:
    pred = op.predicate_enum
    a, b_ = ft.operands(op)
    b = ft.builder
    if pred in (CmpFPredicate.false, CmpFPredicate.true):
        ft.set_result(op, _zero_like(ft.result_type(op), int(pred is CmpFPredicate.true)))
        return
    kind, cmp = _FCMP[pred]
    fn = b.fcmp_ordered if kind == "ordered" else b.fcmp_unordered
    ft.set_result(op, fn(cmp, a, b_, name=ft.name(op), flags=fastmath(op)))


@ARITH.register("arith.select")
def _select(ft: FunctionTranslator, op: Any) -> None:
    c, a, b_ = ft.operands(op)
    ft.set_result(op, ft.builder.select(c, a, b_, name=ft.name(op)))


@ARITH.register("arith.constant")
def _constant(ft: FunctionTranslator, op: Any) -> None:
    ft.set_result(op, constant(ft, op, op.value, ft.result_type(op)))


def constant(ft: FunctionTranslator, op: Any, value: Any, t: ir.Type) -> ir.Constant:
    """An llvmlite constant for an integer or float attribute."""
    if isinstance(value, IntegerAttr):
        return ir.Constant(t, value.value)
    if isinstance(value, FloatAttr):
        return ir.Constant(t, value.value)
    raise fail(op, f"not supported: constant {value.text}")


def _widths(op: Any) -> tuple[int, int]:
    src = element_type(op.operands[0].type)
    dst = element_type(op.results[0].type)
    return (bit_width(src) or 0, bit_width(dst) or 0)


@ARITH.register("arith.extsi", "arith.extui", "arith.trunci")
def _int_resize(ft: FunctionTranslator, op: Any) -> None:
    (a,) = ft.operands(op)
    b = ft.builder
    t = ft.result_type(op)
    fn = {"arith.extsi": b.sext, "arith.extui": b.zext, "arith.trunci": b.trunc}[op.name]
    ft.set_result(op, fn(a, t, name=ft.name(op)))


@ARITH.register("arith.index_cast", "arith.index_castui")
def _index_cast(ft: FunctionTranslator, op: Any) -> None:
    (a,) = ft.operands(op)
    b = ft.builder
    t = ft.result_type(op)
    src = a.type.element.width if isinstance(a.type, ir.VectorType) else a.type.width
    dst = t.element.width if isinstance(t, ir.VectorType) else t.width
    if src == dst:
        ft.set_result(op, a)
    elif dst < src:
        ft.set_result(op, b.trunc(a, t, name=ft.name(op)))
    elif op.name == "arith.index_cast":
        ft.set_result(op, b.sext(a, t, name=ft.name(op)))
    else:
        ft.set_result(op, b.zext(a, t, name=ft.name(op)))


@ARITH.register("arith.sitofp", "arith.uitofp", "arith.fptosi", "arith.fptoui", "arith.bitcast")
def _cast(ft: FunctionTranslator, op: Any) -> None:
    (a,) = ft.operands(op)
    b = ft.builder
    fn = {
        "arith.sitofp": b.sitofp,
        "arith.uitofp": b.uitofp,
        "arith.fptosi": b.fptosi,
        "arith.fptoui": b.fptoui,
        "arith.bitcast": b.bitcast,
    }[op.name]
    ft.set_result(op, fn(a, ft.result_type(op), name=ft.name(op)))


def _f32_like(t: Any) -> ir.Type:
    f32 = ir.FloatType()
    return ir.VectorType(f32, t.count) if isinstance(t, ir.VectorType) else f32


@ARITH.register("arith.extf", "arith.truncf")
def _float_resize(ft: FunctionTranslator, op: Any) -> None:
    (a,) = ft.operands(op)
    b = ft.builder
    t = ft.result_type(op)
    src, dst = _widths(op)
    if src == dst:
        # f16 <-> bf16: through f32 (exact widening, then one rounding).
        ft.set_result(op, b.fptrunc(b.fpext(a, _f32_like(t)), t, name=ft.name(op)))
    elif op.name == "arith.extf":
        ft.set_result(op, b.fpext(a, t, name=ft.name(op)))
    else:
        ft.set_result(op, b.fptrunc(a, t, name=ft.name(op)))


__all__ = ["ARITH", "constant", "fastmath", "intrinsic_suffix"]
