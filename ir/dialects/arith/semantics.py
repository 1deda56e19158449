"""Reference semantics of arith operations on constants (used by the folders).

Integers are handled as unsigned bit patterns of a given width (``index`` is 64-bit), with
the signed interpretation taken where the op is signed; results wrap modulo 2**width. An
operation whose result is undefined (division by zero, signed overflow of a division, shift
amounts >= width, float-to-int conversions out of range) returns None: such ops are not folded.
Floats are Python floats rounded to the result type's format after every operation.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ...core.attributes import to_signed
from ...core.floats import FloatFormat
from .attributes import CmpFPredicate, CmpIPredicate


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _signed_result(value: int, width: int) -> int | None:
    """``value`` as a bit pattern if it fits the signed range of ``width``, else None."""
    if width == 0:
        return 0 if value == 0 else None
    if not -(1 << (width - 1)) <= value < (1 << (width - 1)):
        return None
    return value & ((1 << width) - 1)


def int_binary(kind: str, a: int, b: int, width: int) -> int | None:
    """Result bit pattern of ``kind`` on bit patterns ``a``, ``b`` (None when undefined)."""
    mask = (1 << width) - 1
    sa, sb = to_signed(a, width), to_signed(b, width)
    if kind == "addi":
        return (a + b) & mask
    if kind == "subi":
        return (a - b) & mask
    if kind == "muli":
        return (a * b) & mask
    if kind == "andi":
        return a & b
    if kind == "ori":
        return a | b
    if kind == "xori":
        return a ^ b
    if kind == "minsi":
        return a if sa <= sb else b
    if kind == "maxsi":
        return a if sa >= sb else b
    if kind == "minui":
        return min(a, b)
    if kind == "maxui":
        return max(a, b)
    if kind in ("shli", "shrui", "shrsi"):
        if b >= width:
            return None
        if kind == "shli":
            return (a << b) & mask
        if kind == "shrui":
            return a >> b
        return (sa >> b) & mask
    if kind in ("divui", "remui", "ceildivui"):
        if b == 0:
            return None
        if kind == "divui":
            return a // b
        if kind == "remui":
            return a % b
        return -(-a // b)
    if kind in ("divsi", "remsi", "ceildivsi", "floordivsi"):
        if sb == 0:
            return None
        if kind == "remsi":
            return (sa - sb * _trunc_div(sa, sb)) & mask
        if kind == "divsi":
            q = _trunc_div(sa, sb)
        elif kind == "floordivsi":
            q = sa // sb
        else:
            q = -(-sa // sb)
        return _signed_result(q, width)
    raise ValueError(f"unknown integer operation {kind!r}")


def int_compare(pred: CmpIPredicate, a: int, b: int, width: int) -> bool:
    """``arith.cmpi`` on bit patterns."""
    if pred is CmpIPredicate.eq:
        return a == b
    if pred is CmpIPredicate.ne:
        return a != b
    if pred >= CmpIPredicate.ult:
        x, y = a, b
    else:
        x, y = to_signed(a, width), to_signed(b, width)
    name = pred.name[1:]
    return {"lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[name]


def int_cast(kind: str, a: int, src_width: int, dst_width: int) -> int:
    """Sign- or zero-extension / truncation of a bit pattern (``kind``: 'signed'|'unsigned')."""
    value = to_signed(a, src_width) if kind == "signed" else a
    return value & ((1 << dst_width) - 1)


def _ieee_max(a: float, b: float, propagate_nan: bool, want_max: bool) -> float:
    if math.isnan(a) or math.isnan(b):
        if propagate_nan:
            return math.nan
        return b if math.isnan(a) else a
    if a == b == 0.0:
        # -0.0 < +0.0 for maximumf/minimumf (and maxnumf/minnumf in practice).
        neg_a = math.copysign(1.0, a) < 0
        if want_max:
            return b if neg_a else a
        return a if neg_a else b
    return max(a, b) if want_max else min(a, b)


def _divide(a: float, b: float) -> float:
    if b == 0.0:
        if a == 0.0 or math.isnan(a):
            return math.nan
        sign = math.copysign(1.0, a) * math.copysign(1.0, b)
        return math.copysign(math.inf, sign)
    return a / b


def _remainder(a: float, b: float) -> float:
    if math.isnan(a) or math.isnan(b) or math.isinf(a) or b == 0.0:
        return math.nan
    if math.isinf(b):
        return a
    return math.fmod(a, b)


_FLOAT_BINARY: dict[str, Callable[[float, float], float]] = {
    "addf": lambda a, b: a + b,
    "subf": lambda a, b: a - b,
    "mulf": lambda a, b: a * b,
    "divf": _divide,
    "remf": _remainder,
    "maximumf": lambda a, b: _ieee_max(a, b, True, True),
    "minimumf": lambda a, b: _ieee_max(a, b, True, False),
    "maxnumf": lambda a, b: _ieee_max(a, b, False, True),
    "minnumf": lambda a, b: _ieee_max(a, b, False, False),
}


def float_binary(kind: str, a: float, b: float, fmt: FloatFormat) -> float:
    """``kind`` on two values of ``fmt``, rounded once to ``fmt`` (exact for p <= 24 via f64)."""
    if fmt.precision == 53:
        try:
            return _FLOAT_BINARY[kind](a, b)
        except OverflowError:  # pragma: no cover - float ops give inf rather than raising
            return math.inf
    return fmt.round(_FLOAT_BINARY[kind](a, b))


def float_compare(pred: CmpFPredicate, a: float, b: float) -> bool:
    """``arith.cmpf``: ordered predicates are false and unordered ones true on NaN."""
    if pred is CmpFPredicate.false:
        return False
    if pred is CmpFPredicate.true:
        return True
    unordered = math.isnan(a) or math.isnan(b)
    if pred is CmpFPredicate.ord:
        return not unordered
    if pred is CmpFPredicate.uno:
        return unordered
    name = pred.name
    if unordered:
        return name[0] == "u"
    rel = name[1:]
    return {
        "eq": a == b,
        "gt": a > b,
        "ge": a >= b,
        "lt": a < b,
        "le": a <= b,
        "ne": a != b,
    }[rel]


def int_to_float(value: int, fmt: FloatFormat) -> float:
    """Correctly rounded conversion of an integer (ties to even; inf on overflow)."""
    if value == 0:
        return 0.0
    sign = -1.0 if value < 0 else 1.0
    m = abs(value)
    bits = m.bit_length()
    if bits > fmt.precision:
        shift = bits - fmt.precision
        q, r = divmod(m, 1 << shift)
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1
        m = q << shift
    if m.bit_length() > fmt.emax + 1:
        return sign * math.inf
    result = float(m)  # exact: m has at most precision (+1) significant bits
    return sign * result if result <= fmt.max_finite else sign * math.inf


def float_to_int(value: float, width: int, signed: bool) -> int | None:
    """Truncating conversion to a bit pattern; None for NaN, infinities and out-of-range."""
    if math.isnan(value) or math.isinf(value):
        return None
    t = int(value)
    lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
    if width == 0 or not lo <= t <= hi:
        return None
    return t & ((1 << width) - 1)
