"""The llvm dialect's arithmetic -> LLVM IR (what ``convert-arith-to-llvm`` produces).

Each op is its LLVM instruction with LLVM's meaning (overflow flags, ``exact``, ``disjoint``,
``nneg`` and fast-math flags kept): the cases LLVM leaves undefined (division by zero, shifts
by the width) were made defined by convert-arith-to-llvm already. Where libNVVM's older IR
lacks an instruction, the same value is computed another way, in both flavours so that the
CPU tests check the GPU's code: ``llvm.intr.smin``/``smax``/``umin``/``umax`` are
compare+select; ``llvm.intr.maximum``/``minimum`` compare/select sequences (NaN-propagating,
-0 < +0); ``llvm.fneg`` flips the sign bit; ``llvm.frem`` is C's ``fmod``, exactly, the same
definition as ``arith.remf`` (passes/conversion/fmod.py; NVPTX's ``frem`` is not exact).

bf16 values are their ``i16`` bits (translate_types.py): bf16 arithmetic and comparisons run
in f32 (exact widening) and round back to nearest even once (on a GPU with the hardware's
``cvt.rn.bf16.f32``, on the host with integer arithmetic); conversions from f64 round to odd
on the way through f32, so no result is rounded twice.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.core.attributes import FloatAttr, IntegerAttr
from layoutc.ir.core.dense import DenseElementsAttr
from layoutc.ir.core.types import bf16, element_type
from layoutc.ir.dialects.arith.attributes import CmpFPredicate, CmpIPredicate
from layoutc.ir.dialects.llvm import arith_ops as L
from llvmlite import ir

from . import ptx_semantics as ptx
from .llvm_builder import IRBuilder
from .translate_function import FunctionTranslator, HandlerTable
from .translate_types import fail

ARITH = HandlerTable("translate arith")


def is_bf16(t: Any) -> bool:
    return element_type(t) is bf16


def _like(t: ir.Type, scalar: ir.Type) -> ir.Type:
    """``scalar``, or a vector of it with ``t``'s length."""
    return ir.VectorType(scalar, t.count) if isinstance(t, ir.VectorType) else scalar


def bf16_to_f32(b: IRBuilder, v: ir.Value) -> ir.Value:
    """bf16 bits (``i16``) -> f32: the bits are the top half of the f32."""
    i32 = _like(v.type, ir.IntType(32))
    return b.bitcast(b.shl(b.zext(v, i32), _zero_like(i32, 16)), _like(v.type, ir.FloatType()))


def f32_to_bf16(b: IRBuilder, x: ir.Value) -> ir.Value:
    """f32 -> bf16 bits, rounded to nearest even; NaNs stay (quiet) NaNs."""
    i32 = _like(x.type, ir.IntType(32))
    bits = b.bitcast(x, i32)
    high = b.lshr(bits, _zero_like(i32, 16))
    lsb = b.and_(high, _zero_like(i32, 1))
    rounded = b.lshr(b.add(b.add(bits, _zero_like(i32, 0x7FFF)), lsb), _zero_like(i32, 16))
    quiet = b.or_(high, _zero_like(i32, 0x40))
    result = b.select(b.fcmp_unordered("uno", x, x), quiet, rounded)
    return b.trunc(result, _like(x.type, ir.IntType(16)))


def round_to_bf16(ft: FunctionTranslator, x: ir.Value) -> ir.Value:
    """f32 -> bf16 bits, rounded to nearest even: on a GPU the hardware's ``cvt.rn.bf16.f32``
    (one instruction, sm_80 and later: every GPU target), on the host :func:`f32_to_bf16`.
    The two agree on every value but NaN payloads (the GPU gives the canonical NaN 0x7FFF)."""
    if ft.types.host:
        return f32_to_bf16(ft.builder, x)
    from .translate_llvm import inline_asm

    b = ft.builder
    i16 = ir.IntType(16)

    def one(v: ir.Value) -> ir.Value:
        return inline_asm(ft, "cvt.rn.bf16.f32 $0, $1;", "=h,f", [v], i16, False)

    if not isinstance(x.type, ir.VectorType):
        return one(x)
    out: ir.Value = ir.Constant(ir.VectorType(i16, x.type.count), None)
    for i in range(x.type.count):
        idx = ir.Constant(ir.IntType(32), i)
        out = b.insert_element(out, one(b.extract_element(x, idx)), idx)
    return out


def f64_to_f32_round_to_odd(ft: FunctionTranslator, x: ir.Value) -> ir.Value:
    """f64 -> f32 rounded to odd (toward zero, last bit set if inexact), so that a second
    rounding to a narrower format is the correct rounding of ``x``."""
    b = ft.builder
    f32 = _like(x.type, ir.FloatType())
    i32 = _like(x.type, ir.IntType(32))
    r = b.fptrunc(x, f32)
    back = b.fpext(r, x.type)
    fabs = ft.module.intrinsic(f"llvm.fabs.{intrinsic_suffix(x.type)}", x.type, [x.type])
    away = b.fcmp_ordered(">", b.call(fabs, [back]), b.call(fabs, [x]))
    bits = b.bitcast(r, i32)
    toward_zero = b.select(away, b.sub(bits, _zero_like(i32, 1)), bits)
    inexact = b.zext(b.fcmp_ordered("!=", back, x), i32)
    return b.bitcast(b.or_(toward_zero, inexact), f32)


def widened(ft: FunctionTranslator, op: Any) -> list[ir.Value]:
    """The operands, bf16 ones widened to f32."""
    return [
        bf16_to_f32(ft.builder, ft.get(v)) if is_bf16(v.type) else ft.get(v) for v in op.operands
    ]


def narrowed(ft: FunctionTranslator, op: Any, value: ir.Value) -> ir.Value:
    """``value`` (computed in f32) as the op's bf16 result when it has one."""
    return round_to_bf16(ft, value) if is_bf16(op.results[0].type) else value


_INT_BINARY = {
    L.AddOp: "add",
    L.SubOp: "sub",
    L.MulOp: "mul",
    L.ShlOp: "shl",
    L.UDivOp: "udiv",
    L.SDivOp: "sdiv",
    L.URemOp: "urem",
    L.SRemOp: "srem",
    L.AndOp: "and_",
    L.OrOp: "or_",
    L.XOrOp: "xor",
    L.LShrOp: "lshr",
    L.AShrOp: "ashr",
}
_WITH_OVERFLOW_FLAGS = frozenset({"add", "sub", "mul", "shl"})

_FLOAT_BINARY = {
    L.FAddOp: "fadd",
    L.FSubOp: "fsub",
    L.FMulOp: "fmul",
    L.FDivOp: "fdiv",
    L.FRemOp: "frem",
}

_FLOAT_INTRINSIC = {
    L.MaximumOp: "llvm.maximum",
    L.MinimumOp: "llvm.minimum",
    L.MaxNumOp: "llvm.maxnum",
    L.MinNumOp: "llvm.minnum",
}


def fastmath(op: Any) -> tuple[str, ...]:
    """LLVM fast-math flag names of an op's ``fastmathFlags`` property."""
    attr = op.properties.get("fastmathFlags")
    return tuple(attr.flags) if attr is not None else ()


def _overflow_flags(op: Any) -> tuple[str, ...]:
    attr = op.properties.get("overflowFlags")
    bits = attr.value if attr is not None else 0
    return tuple(name for name, bit in (("nsw", L.NSW), ("nuw", L.NUW)) if bits & bit)


@ARITH.register(*_INT_BINARY)
def _int_binary(ft: FunctionTranslator, op: Any) -> None:
    kind = _INT_BINARY[type(op)]
    a, b = ft.operands(op)
    fn = getattr(ft.builder, kind)
    if kind in _WITH_OVERFLOW_FLAGS:
        ft.set_result(op, fn(a, b, name=ft.name(op), flags=_overflow_flags(op)))
    elif op.properties.get("isExact") is not None:
        ft.set_result(op, fn(a, b, name=ft.name(op), flags=("exact",)))
    else:
        ft.set_result(op, fn(a, b, name=ft.name(op)))


def _zero_like(t: ir.Type, value: int = 0) -> ir.Constant:
    if isinstance(t, ir.VectorType):
        return ir.Constant(t, [ir.Constant(t.element, value)] * t.count)
    return ir.Constant(t, value)


_MINMAX = {
    L.SMinOp: ("<", True),
    L.SMaxOp: (">", True),
    L.UMinOp: ("<", False),
    L.UMaxOp: (">", False),
}


@ARITH.register(*_MINMAX)
def _int_minmax(ft: FunctionTranslator, op: Any) -> None:
    pred, signed = _MINMAX[type(op)]
    a, b_ = ft.operands(op)
    b = ft.builder
    cmp = b.icmp_signed(pred, a, b_) if signed else b.icmp_unsigned(pred, a, b_)
    ft.set_result(op, b.select(cmp, a, b_, name=ft.name(op)))


@ARITH.register(*_FLOAT_BINARY)
def _float_binary(ft: FunctionTranslator, op: Any) -> None:
    a, b = widened(ft, op)
    fn = getattr(ft.builder, _FLOAT_BINARY[type(op)])
    if isinstance(op, L.FRemOp):
        value = _fmod(ft, a, b)
    else:
        value = fn(a, b, name=ft.name(op), flags=fastmath(op))
    ft.set_result(op, narrowed(ft, op, value))


def _fmod(ft: FunctionTranslator, x: ir.Value, y: ir.Value) -> ir.Value:
    """IEEE fmod, exactly, for f32/f64 scalars (vectors element by element; f16 through f32).

    NVPTX lowers ``frem`` to ``x - trunc(x / y) * y``, which is wrong for -0, infinite ``y``
    and large quotients, so both flavours use this: subtract ``|y| * 2^k`` from ``|x|`` for
    decreasing ``k`` (each subtraction exact by Sterbenz's lemma), then give the result the
    sign of ``x``."""
    b = ft.builder
    t = x.type
    if isinstance(t, ir.VectorType):
        out = ir.Constant(t, ir.Undefined)
        for i in range(t.count):
            k = ir.IntType(32)(i)
            out = b.insert_element(
                out, _fmod(ft, b.extract_element(x, k), b.extract_element(y, k)), k
            )
        return out
    if isinstance(t, ir.HalfType):
        f32 = ir.FloatType()
        return b.fptrunc(_fmod(ft, b.fpext(x, f32), b.fpext(y, f32)), t)  # exact both ways
    fabs = ft.module.intrinsic(f"llvm.fabs.{intrinsic_suffix(t)}", t, [t])
    ax, ay = b.call(fabs, [x]), b.call(fabs, [y])
    inf = ir.Constant(t, float("inf"))
    nan = ir.Constant(t, float("nan"))
    two, half = ir.Constant(t, 2.0), ir.Constant(t, 0.5)
    invalid = b.or_(
        b.fcmp_unordered("uno", x, y),
        b.or_(b.fcmp_ordered("==", ax, inf), b.fcmp_ordered("==", ay, ir.Constant(t, 0.0))),
    )
    start = b.block
    grow = ft.new_block(f"{start.name}.fmod.grow")
    shrink = ft.new_block(f"{start.name}.fmod.shrink")
    done = ft.new_block(f"{start.name}.fmod.done")
    # Fast exits: invalid (NaN), |x| < |y| or y infinite (x itself).
    small = b.fcmp_ordered("<", ax, ay)
    early = b.select(invalid, nan, x)
    b.cbranch(b.or_(invalid, small), done, grow)
    b.position_at_end(grow)
    scale = b.phi(t, "fmod.scale")
    scale.add_incoming(ay, start)
    bigger = b.fmul(scale, two)
    fits = b.fcmp_ordered("<=", scale, b.fmul(ax, half))
    scale.add_incoming(bigger, grow)
    b.cbranch(fits, grow, shrink)
    b.position_at_end(shrink)
    r = b.phi(t, "fmod.r")
    s = b.phi(t, "fmod.s")
    r.add_incoming(ax, grow)
    s.add_incoming(scale, grow)
    reduced = b.select(b.fcmp_ordered(">=", r, s), b.fsub(r, s), r)
    smaller = b.fmul(s, half)
    r.add_incoming(reduced, shrink)
    s.add_incoming(smaller, shrink)
    signed = _sign_of(ft, reduced, x)
    b.cbranch(b.fcmp_ordered(">=", smaller, ay), shrink, done)
    b.position_at_end(done)
    result = b.phi(t, "fmod")
    result.add_incoming(early, start)
    result.add_incoming(signed, shrink)
    return result


def _sign_of(ft: FunctionTranslator, value: ir.Value, sign: ir.Value) -> ir.Value:
    """``value`` with the sign bit of ``sign`` (a remainder has its dividend's sign)."""
    b = ft.builder
    it = _int_like(value.type)
    width = it.element.width if isinstance(it, ir.VectorType) else it.width
    sign_bit = _zero_like(it, -(1 << (width - 1)))
    magnitude = b.and_(b.bitcast(value, it), b.not_(sign_bit))
    return b.bitcast(b.or_(magnitude, b.and_(b.bitcast(sign, it), sign_bit)), value.type)


def intrinsic_suffix(t: ir.Type) -> str:
    """LLVM's overload suffix: ``f32``, ``v4f32``, ``i64``."""
    if isinstance(t, ir.VectorType):
        return f"v{t.count}{intrinsic_suffix(t.element)}"
    if isinstance(t, ir.IntType):
        return f"i{t.width}"
    return t.intrinsic_name


@ARITH.register(*_FLOAT_INTRINSIC)
def _float_minmax(ft: FunctionTranslator, op: Any) -> None:
    a, b = widened(ft, op)
    t = a.type
    if isinstance(op, (L.MaximumOp, L.MinimumOp)):
        value = _maximum_minimum(ft, a, b, isinstance(op, L.MaximumOp))
    else:
        fn = ft.module.intrinsic(f"{_FLOAT_INTRINSIC[type(op)]}.{intrinsic_suffix(t)}", t, [t, t])
        value = ft.builder.call(fn, [a, b], name=ft.name(op), fastmath=fastmath(op))
    ft.set_result(op, narrowed(ft, op, value))


def _int_like(t: ir.Type) -> ir.Type:
    scalar = t.element if isinstance(t, ir.VectorType) else t
    width = {ir.HalfType: 16, ir.FloatType: 32, ir.DoubleType: 64}[type(scalar)]
    return _like(t, ir.IntType(width))


def _maximum_minimum(ft: FunctionTranslator, a: ir.Value, b: ir.Value, is_max: bool) -> ir.Value:
    """IEEE maximum/minimum without ``llvm.maximum`` (newer than libNVVM's IR): NaN if either
    is NaN; for equal operands (two zeros) the sign bits decide (+0 > -0); else a compare.
    Used by both flavours, so the CPU tests check the code the GPU runs."""
    bld = ft.builder
    it = _int_like(a.type)
    ia, ib = bld.bitcast(a, it), bld.bitcast(b, it)
    zeros = bld.bitcast(bld.and_(ia, ib) if is_max else bld.or_(ia, ib), a.type)
    pick = bld.select(bld.fcmp_ordered(">" if is_max else "<", a, b), a, b)
    equal = bld.select(bld.fcmp_ordered("==", a, b), zeros, pick)
    return bld.select(bld.fcmp_unordered("uno", a, b), bld.fadd(a, b), equal)


@ARITH.register(L.FNegOp)
def _negf(ft: FunctionTranslator, op: Any) -> None:
    (a,) = ft.operands(op)
    if is_bf16(op.operands[0].type):
        ft.set_result(op, ft.builder.xor(a, _zero_like(a.type, 0x8000 - 0x10000), name=ft.name(op)))
        return
    # libNVVM's IR predates `fneg`: flip the sign bit (exact for every value, NaNs included;
    # LLVM turns it back into `fneg`). Both flavours, so the CPU tests check the GPU code.
    it = _int_like(a.type)
    width = it.element.width if isinstance(it, ir.VectorType) else it.width
    sign = _zero_like(it, -(1 << (width - 1)))
    ft.set_result(op, ft.builder.bitcast(ft.builder.xor(ft.builder.bitcast(a, it), sign), a.type))


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


@ARITH.register(L.ICmpOp)
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


@ARITH.register(L.FCmpOp)
def _cmpf(ft: FunctionTranslator, op: Any) -> None:
    pred = op.predicate_enum
    a, b_ = widened(ft, op)
    b = ft.builder
    if pred in (CmpFPredicate.false, CmpFPredicate.true):
        ft.set_result(op, _zero_like(ft.result_type(op), int(pred is CmpFPredicate.true)))
        return
    kind, cmp = _FCMP[pred]
    fn = b.fcmp_ordered if kind == "ordered" else b.fcmp_unordered
    ft.set_result(op, fn(cmp, a, b_, name=ft.name(op), flags=fastmath(op)))


@ARITH.register(L.SelectOp)
def _select(ft: FunctionTranslator, op: Any) -> None:
    c, a, b_ = ft.operands(op)
    ft.set_result(op, ft.builder.select(c, a, b_, name=ft.name(op)))


def constant(ft: FunctionTranslator, op: Any, value: Any, t: ir.Type) -> ir.Constant:
    """An llvmlite constant for an integer, float or dense vector attribute."""
    if isinstance(value, DenseElementsAttr):
        if not isinstance(t, ir.VectorType) or t.count != value.type.num_elements:
            raise fail(op, f"not supported: constant {value.text} of LLVM type {t}")
        return ir.Constant(t, [constant(ft, op, e, t.element) for e in value.values()])
    if isinstance(value, IntegerAttr):
        return ir.Constant(t, value.value)
    if isinstance(value, FloatAttr):
        if value.type is bf16:
            return ir.Constant(t, value.bits)
        return ir.Constant(t, value.value)
    raise fail(op, f"not supported: constant {value.text}")


_INT_RESIZE = {L.SExtOp: "sext", L.ZExtOp: "zext", L.TruncOp: "trunc"}


@ARITH.register(*_INT_RESIZE)
def _int_resize(ft: FunctionTranslator, op: Any) -> None:
    (a,) = ft.operands(op)
    fn = getattr(ft.builder, _INT_RESIZE[type(op)])
    ft.set_result(op, fn(a, ft.result_type(op), name=ft.name(op)))


@ARITH.register(L.FPToSIOp, L.FPToUIOp)
def _float_to_int(ft: FunctionTranslator, op: Any) -> None:
    (a,) = widened(ft, op)
    fn = ft.builder.fptosi if isinstance(op, L.FPToSIOp) else ft.builder.fptoui
    ft.set_result(op, fn(a, ft.result_type(op), name=ft.name(op)))


def saturating_float_to_int(ft: FunctionTranslator, op: Any, signed: bool) -> None:
    """``llvm.fpto[su]i.sat`` (convert-arith-to-llvm's ``fptosi``): round toward zero, clamp,
    NaN to 0. The host calls the intrinsic (x86 gives INT_MIN for NaN and out-of-range
    values); the GPU's ``cvt.rzi`` saturates already, but NaN must be explicit: measured on an
    H200, f64 -> i32 gave INT_MIN (LLVM's fptosi of NaN is poison)."""
    (a,) = ft.operands(op)
    b = ft.builder
    t = ft.result_type(op)
    if ft.types.host:
        fn = ft.module.intrinsic(ptx.saturating_conversion_name(a.type, t, signed), t, [a.type])
        ft.set_result(op, b.call(fn, [a], name=ft.name(op)))
        return
    converted = (b.fptosi if signed else b.fptoui)(a, t)
    nan = b.fcmp_unordered("uno", a, a)
    ft.set_result(op, b.select(nan, _zero_like(t, 0), converted, name=ft.name(op)))


@ARITH.register(L.SIToFPOp, L.UIToFPOp)
def _int_to_float(ft: FunctionTranslator, op: Any) -> None:
    (a,) = ft.operands(op)
    b = ft.builder
    fn = b.sitofp if isinstance(op, L.SIToFPOp) else b.uitofp
    if not is_bf16(op.results[0].type):
        ft.set_result(op, fn(a, ft.result_type(op), name=ft.name(op)))
        return
    width = a.type.element.width if isinstance(a.type, ir.VectorType) else a.type.width
    if width > 32:
        raise fail(op, "not supported: converting integers wider than 32 bits to bf16")
    # Exact in f64, then one rounding to bf16 (through f32 rounded to odd).
    wide = fn(a, _like(a.type, ir.DoubleType()))
    ft.set_result(op, round_to_bf16(ft, f64_to_f32_round_to_odd(ft, wide)))


def _is(t: ir.Type, cls: type) -> bool:
    return isinstance(t.element if isinstance(t, ir.VectorType) else t, cls)


@ARITH.register(L.FPExtOp, L.FPTruncOp)
def _float_resize(ft: FunctionTranslator, op: Any) -> None:
    (a,) = ft.operands(op)
    b = ft.builder
    t = ft.result_type(op)
    src_t, dst_t = op.operands[0].type, op.results[0].type
    if is_bf16(src_t):
        x = bf16_to_f32(b, a)  # exact
        if _is(t, ir.HalfType):
            value = b.fptrunc(x, t)  # one rounding
        else:
            value = x if x.type == t else b.fpext(x, t)
        ft.set_result(op, value)
        return
    if is_bf16(dst_t):
        if _is(a.type, ir.DoubleType):
            x = f64_to_f32_round_to_odd(ft, a)
        elif _is(a.type, ir.HalfType):
            x = b.fpext(a, _like(a.type, ir.FloatType()))  # exact
        else:
            x = a
        ft.set_result(op, round_to_bf16(ft, x))
        return
    if isinstance(op, L.FPExtOp):
        ft.set_result(op, b.fpext(a, t, name=ft.name(op)))
    else:
        ft.set_result(op, b.fptrunc(a, t, name=ft.name(op)))


__all__ = ["ARITH", "constant", "fastmath", "intrinsic_suffix", "saturating_float_to_int"]
