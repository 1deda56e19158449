"""Laws of dynamic scalar arithmetic: the arith ops the front end emits compute what Python
computes on the same numbers (floor division and modulo included, the truncating fast paths on
non-negative operands, comparisons, min/max, select, casts). The traced IR is evaluated with the
arith dialect's own folders (MLIR's constant semantics) as the interpreter."""

from __future__ import annotations

import os

import layoutc as lc
from hypothesis import given, settings
from hypothesis import strategies as st
from layoutc.ir.core.attributes import FloatAttr, IntegerAttr, to_signed
from layoutc.ir.core.types import FloatType, IndexType

settings.register_profile("frontend", max_examples=60, deadline=None)
settings.register_profile("frontend-ci", max_examples=25, deadline=None)
PROFILE = "frontend-ci" if os.environ.get("CI") == "true" else "frontend"

OUT: list = []  # proxies the kernels hand back to the test (trace time only)
I31 = st.integers(-(1 << 30), (1 << 30) - 1)
NONZERO = I31.filter(lambda v: v != 0)
NONNEG = st.integers(0, (1 << 28) - 1)  # no i32 overflow in (3x + 5)
POSITIVE = st.integers(1, (1 << 30) - 1)


def evaluate(module, values):
    """Run the kernel's (straight-line) body on argument values with the arith folders."""
    func = module.ops[0]
    env = {}
    for arg, v in zip(func.args, values):
        env[arg] = (
            FloatAttr(v, arg.type) if isinstance(arg.type, FloatType) else IntegerAttr(v, arg.type)
        )
    for op in func.entry_block.ops:
        if op.name == "func.return":
            break
        folded = op.fold([env.get(v) for v in op.operands])
        assert folded is not None, f"cannot evaluate {op.name}"
        for r, f in zip(op.results, folded):
            env[r] = env[f] if not isinstance(f, (IntegerAttr, FloatAttr)) else f
    return env


def value_of(env, proxy):
    if not isinstance(proxy, lc.frontend.proxy.TraceValue):
        return proxy
    attr = env[proxy.value]
    if isinstance(attr, FloatAttr):
        return attr.value
    t = attr.type
    width = 64 if isinstance(t, IndexType) else t.width
    return to_signed(attr.value & ((1 << width) - 1), width) if width > 1 else attr.value & 1


def run(kernel, *args):
    OUT.clear()
    module = kernel.trace(kernel.specialize(*args, block=32))[0]
    env = evaluate(module, [a for a in args if not isinstance(a, bool)])
    return [value_of(env, p) for p in OUT]


@lc.kernel
def int_ops(a: lc.i32, b: lc.i32):
    OUT.extend(
        [a + b, a - b, a * b, a // b, a % b, -a, a < b, a <= b, a == b, a != b, min(a, b),
         max(a, b), a & b, a | b, a ^ b, lc.where(a < b, a, b), a + 7, 7 - a, 3 * a, a // 8,
         a % 8, 100 // b, 100 % b]
    )  # fmt: skip


@settings.get_profile(PROFILE)
@given(a=I31, b=NONZERO)
def test_integer_operators_match_python(a, b):
    expected = [
        a + b, a - b, a * b, a // b, a % b, -a, a < b, a <= b, a == b, a != b, min(a, b),
        max(a, b), a & b, a | b, a ^ b, a if a < b else b, a + 7, 7 - a, 3 * a, a // 8, a % 8,
        100 // b, 100 % b,
    ]  # fmt: skip
    got = run(int_ops, a, b)
    assert [int(g) for g in got] == [wrap32(int(e)) for e in expected]


def wrap32(v: int) -> int:
    """i32 arithmetic wraps (two's complement), as on the GPU."""
    return to_signed(v & 0xFFFFFFFF, 32)


@lc.kernel
def nonneg_ops(a: lc.i32, b: lc.i32):
    x = lc.assume(a, lower=0)
    y = lc.assume(b, lower=1)
    OUT.extend([x // y, x % y, x // 16, x % 16, (x * 3 + 5) // 4])


@settings.get_profile(PROFILE)
@given(a=NONNEG, b=POSITIVE)
def test_truncating_fast_paths_are_exact_on_non_negative_operands(a, b):
    assert run(nonneg_ops, a, b) == [a // b, a % b, a // 16, a % 16, (a * 3 + 5) // 4]


@lc.kernel
def mixed(a: lc.i32, x: lc.f32):
    OUT.extend([a + x, x * 2, lc.f32(a), lc.i64(a) * 3, x < a, a / 4])


@settings.get_profile(PROFILE)
@given(a=st.integers(-1000, 1000), x=st.floats(-1000, 1000, width=32))
def test_mixed_int_float_promotion(a, x):
    got = run(mixed, a, x)
    import numpy as np

    f = np.float32
    expected = [f(f(a) + f(x)), f(f(x) * f(2)), f(a), a * 3, f(x) < f(a), f(f(a) / f(4))]
    assert got[3] == expected[3] and got[4] == expected[4]
    for g, e in zip(got[:3] + got[5:], expected[:3] + expected[5:]):
        assert f(g) == e


def test_operator_table_is_complete():
    # every binary operator a kernel can write on an Int has a dynamic implementation
    a = lc.frontend.scalars.Int
    for name in ("add", "sub", "mul", "floordiv", "mod", "and", "or", "xor", "lshift", "rshift"):
        assert hasattr(a, f"__{name}__") and hasattr(a, f"__r{name}__")
    assert hasattr(a, "__truediv__") and hasattr(a, "__rtruediv__")
