"""convert-to-llvm's part for the math dialect: ``math.tanh`` and ``math.fma`` for the GPU and
the CPU.

- ``fastmath<afn>`` (or ``fast``) on the GPU: the hardware's tanh (MUFU.TANH, sm_75 and later,
  so every GPU target layoutc supports), PTX ``tanh.approx.f32``, through the NVVM intrinsic
  ``llvm.nvvm.tanh.approx.f32``, which libNVVM and LLVM's NVPTX back end both accept. The PTX
  ISA bounds its relative error by 2^-11 (measured: about 1.1e-5 at worst).
- otherwise, and always on the CPU: the rational approximation of Eigen and of MLIR's
  ``math-polynomial-approximation`` (odd numerator of degree 13 over an even denominator of
  degree 6 on the argument clamped to [-7.905, 7.905], ``x`` itself where ``|x| < 0.0004``),
  in arith ops: within 4e-7 of tanh in f32, NaN in gives NaN. The CPU's ``afn`` tanh is thus
  more accurate than the GPU's, and within its bound: tests that run on both tolerate the
  GPU's.

f16 and bf16 compute in f32 (extended, then truncated once); other types are refused.

``math.fma`` on f32 or f64 becomes the intrinsic ``llvm.fma.f32`` / ``llvm.fma.f64`` on both
targets (PTX ``fma.rn``; one rounding on the CPU too); other types are refused (an f16 fma
through f32 would round twice).
"""

from __future__ import annotations

from layoutc.ir.core.attributes import FloatAttr
from layoutc.ir.core.builder import Builder, InsertionPoint
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.types import FloatType, Type, bf16, f16, f32, f64
from layoutc.ir.core.values import Value
from layoutc.ir.dialects import arith, llvm
from layoutc.ir.dialects.math import FmaOp, TanhOp

from .tile_to_llvm import ConversionError

MATH_OPS = (TanhOp, FmaOp)
"""The math ops lower_math lowers."""

#: Eigen's ``generic_fast_tanh_float``: tanh(x) = x P(x^2) / Q(x^2) on [-TANH_CLAMP, TANH_CLAMP].
TANH_CLAMP = 7.90531110763549805
TANH_P = (
    4.89352455891786e-03,
    6.37261928875436e-04,
    1.48572235717979e-05,
    5.12229709037114e-08,
    -8.60467152213735e-11,
    2.00018790482477e-13,
    -2.76076847742355e-16,
)
TANH_Q = (4.89352518554385e-03, 2.26843463243900e-03, 1.18534705686654e-04, 1.19825839466702e-06)
TANH_TINY = 0.0004  # below this |x|, tanh(x) is x in f32
APPROX_INTRINSIC = "llvm.nvvm.tanh.approx.f32"


class _Emitter:
    def __init__(self, op: Operation):
        self.b = Builder(None)
        self.b.loc = op.location
        self.b.insertion_point = InsertionPoint.before_op(op)

    def __call__(self, op: Operation) -> Value:
        return self.b.insert(op).results[0]

    def const(self, value: float) -> Value:
        return self(arith.ConstantOp(FloatAttr(value, f32)))


def _rational_tanh(e: _Emitter, x: Value) -> Value:
    """tanh of an f32 value in arith ops (module docstring)."""
    c = e(arith.MinimumFOp(e(arith.MaximumFOp(x, e.const(-TANH_CLAMP))), e.const(TANH_CLAMP)))
    c2 = e(arith.MulFOp(c, c))

    def poly(coefficients: tuple[float, ...]) -> Value:
        acc = e.const(coefficients[-1])
        for k in reversed(coefficients[:-1]):
            acc = e(arith.AddFOp(e(arith.MulFOp(acc, c2)), e.const(k)))
        return acc

    r = e(arith.DivFOp(e(arith.MulFOp(c, poly(TANH_P))), poly(TANH_Q)))
    tiny = e(arith.CmpFOp("olt", c2, e.const(TANH_TINY * TANH_TINY)))  # false for NaN
    return e(arith.SelectOp(tiny, x, r))


def lower_tanh(op: TanhOp, target: str) -> None:
    """Replace ``op`` by the GPU's approximation or the rational one (module docstring)."""
    t: Type = op.operand.type
    if not (isinstance(t, FloatType) and t in (f32, f16, bf16)):
        raise ConversionError(
            op, f"not supported: 'math.tanh' on {t.text} (f32, f16 and bf16 only)"
        )
    e = _Emitter(op)
    x = op.operand if t is f32 else e(arith.ExtFOp(op.operand, f32))
    if target == "nvvm" and op.approximate:
        r = e(llvm.CallIntrinsicOp(APPROX_INTRINSIC, [x], f32))
    else:
        r = _rational_tanh(e, x)
    if t is not f32:
        r = e(arith.TruncFOp(r, t))
    op.results[0].replace_all_uses_with(r)
    op.erase()


def lower_fma(op: FmaOp) -> None:
    """Replace ``op`` by ``llvm.fma`` of its type (module docstring)."""
    t: Type = op.results[0].type
    if t not in (f32, f64):
        raise ConversionError(op, f"not supported: 'math.fma' on {t.text} (f32 and f64 only)")
    e = _Emitter(op)
    r = e(llvm.CallIntrinsicOp(f"llvm.fma.{t.text}", [op.a, op.b, op.c], t))
    op.results[0].replace_all_uses_with(r)
    op.erase()


def lower_math(module: Operation, target: str, ops: list[Operation] | None = None) -> None:
    """Lower every math op under ``module`` for ``target`` (``nvvm`` or ``host``); ``ops``:
    those ops in walk order, when the caller has them (convert-to-llvm's one walk)."""
    if ops is None:
        ops = [o for o in module.walk_ops() if isinstance(o, MATH_OPS)]
    for op in ops:
        if isinstance(op, FmaOp):
            lower_fma(op)
        else:
            lower_tanh(op, target)
