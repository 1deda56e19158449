"""Math functions of dynamic floats (CuTe DSL's ``cute.math``): ``lc.tanh(x, fastmath=False)``.

Each records the math dialect's op (``math.tanh``), whose ``fastmath<afn>`` flag is the
precision contract: with ``fastmath=True`` the GPU computes the hardware's approximation
(``tanh.approx.f32``: relative error at most 2^-11, the PTX ISA's bound), without it a
rational approximation within 4e-7 (passes/conversion/math_to_llvm.py). The CPU runtime
computes the accurate one for both, which is within the fast one's bound. Python numbers stay
static (Python's ``math.tanh``).
"""

from __future__ import annotations

import math
from typing import Any

from ..ir.core.types import FloatType, bf16, f16, f32
from ..ir.dialects.arith import FastMathFlagsAttr
from ..ir.dialects.math import TanhOp
from . import state
from .scalars import Float, Scalar, _describe, refuse_fp8

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
