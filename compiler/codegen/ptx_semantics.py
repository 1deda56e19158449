"""Integer and conversion edge cases with one meaning on the GPU and the CPU: PTX's.

LLVM leaves them undefined (``udiv`` by zero and ``sdiv INT_MIN, -1`` are undefined behaviour,
a shift by the width or more and an out-of-range ``fptosi`` are poison), and the two machines
disagree: x86 raises SIGFPE where a GPU returns a value, masks shift amounts where PTX clamps
them, and converts NaN and out-of-range floats to ``INT_MIN`` where PTX saturates. So code
generation makes every case defined, in both flavours, as PTX defines it (PTX ISA 8.x, section
9.7 "Instructions"; docs/codegen.md lists the rules):

- ``shl``/``shr``: "Shift amounts greater than the register width N are clamped to N": a left
  or logical right shift by N or more gives 0, an arithmetic right shift gives the sign.
- ``cvt`` float to integer: "For float-to-integer conversions, the result is clamped to the
  destination range by default" and NaN converts to 0 (LLVM's ``fptosi.sat``/``fptoui.sat``;
  the GPU's ``cvt.rzi`` already saturates, so only the host flavour needs the intrinsic).
- ``div``/``rem`` by zero: "Division by zero yields an unspecified, machine-specific value". We
  fix one, the convention of RISC-V (and of NVIDIA's unsigned division): ``x / 0`` is all
  ones (``-1`` signed, ``UINT_MAX`` unsigned) and ``x % 0`` is ``x``; ``INT_MIN / -1`` is
  ``INT_MIN`` (two's complement wrap, as ``div.s32`` computes) and ``INT_MIN % -1`` is 0.

Only run-time operands pay: a constant divisor other than 0 and -1, or a constant shift below
the width, compiles to the plain instruction.
"""

from __future__ import annotations

from llvmlite import ir

from .llvm_builder import IRBuilder


def _scalar(t: ir.Type) -> ir.Type:
    return t.element if isinstance(t, ir.VectorType) else t


def _splat(t: ir.Type, value: int) -> ir.Constant:
    if isinstance(t, ir.VectorType):
        return ir.Constant(t, [ir.Constant(t.element, value)] * t.count)
    return ir.Constant(t, value)


def _constant_ints(v: ir.Value) -> list[int] | None:
    """The signed values of a constant integer (or vector of them), else None."""
    if not isinstance(v, ir.Constant):
        return None
    raw = v.constant
    items = raw if isinstance(raw, (list, tuple)) else [v]
    out = []
    width = _scalar(v.type).width
    for c in items:
        value = c.constant if isinstance(c, ir.Constant) else c
        if not isinstance(value, int):
            return None
        value &= (1 << width) - 1
        out.append(value - (1 << width) if value >> (width - 1) else value)
    return out


def division(b: IRBuilder, kind: str, x: ir.Value, y: ir.Value, name: str = "") -> ir.Value:
    """``udiv``/``sdiv``/``urem``/``srem`` defined for every operand (module docstring)."""
    t = x.type
    signed = kind in ("sdiv", "srem")
    op = getattr(b, kind)
    known = _constant_ints(y)
    if known is not None and all(v != 0 and not (signed and v == -1) for v in known):
        return op(x, y, name=name)
    zero = _splat(t, 0)
    by_zero = b.icmp_unsigned("==", y, zero)
    special = by_zero
    overflow = None
    if signed:
        width = _scalar(t).width
        overflow = b.and_(
            b.icmp_signed("==", x, _splat(t, -(1 << (width - 1)))),
            b.icmp_signed("==", y, _splat(t, -1)),
        )
        special = b.or_(by_zero, overflow)
    # Dividing by 1 instead gives the INT_MIN / -1 results (x / 1 = INT_MIN, x % 1 = 0).
    safe = b.select(special, _splat(t, 1), y)
    result = op(x, safe)
    if kind in ("udiv", "sdiv"):
        return b.select(by_zero, _splat(t, -1), result, name=name)
    return b.select(by_zero, x, result, name=name)


def by_zero_gives_all_ones(b: IRBuilder, y: ir.Value, result: ir.Value, name: str = "") -> ir.Value:
    """A rounded division's ``result``, or all ones where the divisor ``y`` is 0 (the
    quotient convention above, kept by ``ceildiv``/``floordiv``'s corrections)."""
    known = _constant_ints(y)
    if known is not None and 0 not in known:
        if name:
            result.name = name
        return result
    t = y.type
    return b.select(b.icmp_unsigned("==", y, _splat(t, 0)), _splat(t, -1), result, name=name)


def shift(
    b: IRBuilder, kind: str, x: ir.Value, amount: ir.Value, name: str = "", flags=()
) -> ir.Value:
    """``shl``/``lshr``/``ashr`` with PTX's clamping of the amount (module docstring)."""
    t = x.type
    width = _scalar(t).width
    known = _constant_ints(amount)
    if known is not None and all(0 <= v < width for v in known):
        return _shift_op(b, kind, x, amount, name, flags)
    big = b.icmp_unsigned(">=", amount, _splat(t, width))
    if kind == "ashr":  # shifting by N - 1 leaves only the sign
        return b.ashr(x, b.select(big, _splat(t, width - 1), amount), name=name)
    shifted = _shift_op(b, kind, x, b.select(big, _splat(t, 0), amount), "", flags)
    return b.select(big, _splat(t, 0), shifted, name=name)


def _shift_op(b: IRBuilder, kind: str, x: ir.Value, n: ir.Value, name: str, flags) -> ir.Value:
    if kind == "shl":
        return b.shl(x, n, name=name, flags=flags)
    return getattr(b, kind)(x, n, name=name)


def saturating_conversion_name(x: ir.Type, t: ir.Type, signed: bool) -> str:
    """The LLVM intrinsic with ``cvt.rzi``'s semantics: round toward zero, clamp to ``t``'s
    range, NaN to 0 (``llvm.fptosi.sat.i32.f32``)."""
    return f"llvm.fpto{'s' if signed else 'u'}i.sat.{_suffix(t)}.{_suffix(x)}"


def _suffix(t: ir.Type) -> str:
    if isinstance(t, ir.VectorType):
        return f"v{t.count}{_suffix(t.element)}"
    if isinstance(t, ir.IntType):
        return f"i{t.width}"
    return t.intrinsic_name
