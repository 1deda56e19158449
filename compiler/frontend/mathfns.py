"""Math functions of dynamic floats (CuTe DSL's ``cute.math``): ``lc.tanh(x, fastmath=False)``
and ``lc.fma(a, b, c)``.

Each records the math dialect's op (``math.tanh``), whose ``fastmath<afn>`` flag is the
precision contract: with ``fastmath=True`` the GPU computes the hardware's approximation
(``tanh.approx.f32``: relative error at most 2^-11, the PTX ISA's bound), without it a
rational approximation within 4e-7 (passes/conversion/math_to_llvm.py). The CPU runtime
computes the accurate one for both, which is within the fast one's bound. Python numbers stay
static (Python's ``math.tanh``).

``lc.fma(a, b, c)`` records ``math.fma``: ``a * b + c`` rounded once, on f32 or f64 (the GPU's
``fma.rn``, the CPU's fused multiply-add), where ``a * b + c`` written out rounds twice (libNVVM
contracts such pairs itself, LLVM's NVPTX back end does not). Python numbers stay static (the
exact value rounded once to a Python float).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ..ir.core.types import FloatType, bf16, f16, f32, f64
from ..ir.dialects.arith import FastMathFlagsAttr
from ..ir.dialects.math import FmaOp, TanhOp
from . import state
from .scalars import Float, Scalar, _describe, as_value, refuse_fp8

_AFN = FastMathFlagsAttr(("afn",))


def tanh(x: Any, fastmath: bool = False) -> Any:
    """tanh of an f32, f16 or bf16 value (of its type); ``fastmath=True`` allows the GPU's
    approximate tanh (relative error at most 2^-11: activations, not reductions)."""
    if not isinstance(fastmath, bool):
        raise state.error(f"lc.tanh's fastmath must be True or False, got {fastmath!r}")
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return math.tanh(x)
    if not isinstance(x, Scalar):
        raise state.error(f"lc.tanh takes a floating-point value, got {_describe(x)}")
    refuse_fp8("lc.tanh", x)
    t = x.value.type
    if not isinstance(t, FloatType) or t not in (f32, f16, bf16):
        raise state.error(f"lc.tanh takes an f32, f16 or bf16 value, got {t.text}")
    return Float(state.emit(TanhOp(x.value, _AFN if fastmath else None)).results[0])


def fma(a: Any, b: Any, c: Any) -> Any:
    """``a * b + c`` rounded once (f32 or f64: the type of the dynamic operands, which must
    agree; Python numbers take it)."""
    xs = (a, b, c)
    for x in xs:
        if isinstance(x, bool) or not isinstance(x, (int, float, Scalar)):
            raise state.error(f"lc.fma takes floating-point values, got {_describe(x)}")
    dynamic = [x for x in xs if isinstance(x, Scalar)]
    if not dynamic:
        return float(Fraction(a) * Fraction(b) + Fraction(c))
    refuse_fp8("lc.fma", *dynamic)
    t = dynamic[0].value.type
    for x in dynamic:
        u = x.value.type
        if not isinstance(u, FloatType) or u not in (f32, f64):
            raise state.error(f"lc.fma takes f32 or f64 values, got {u.text}")
        if u is not t:
            raise state.error(f"lc.fma takes operands of one type, got {t.text} and {u.text}")
    a_, b_, c_ = (as_value(x, t) for x in xs)
    return Float(state.emit(FmaOp(a_, b_, c_)).results[0])
