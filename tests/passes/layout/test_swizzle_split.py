"""Swizzled offsets emitted once per thread: ``possible_bits`` over-approximates the bits an
expression can set, ``split_swizzle_argument`` is exact (``Sw(arg) == (Sw(low) ^ Sw(c)) + high``
for every admissible value), and the emitted arith computes ``plain + Sw(arg)`` with the thread's
swizzle built once and a constant per access."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from layout_interp import Interpreter, Ptr
from layout_pass_helpers import examples, kernel_func, parse_module
from layoutc.ir.algebra.swizzle import Swizzle
from layoutc.ir.algebra.symbolic import Symbol
from layoutc.ir.core.builder import Builder, InsertionPoint
from layoutc.ir.dialects.tile.swizzled import SwizzledOffset
from layoutc.passes.analysis import emitter as E
from layoutc.passes.analysis.bits import MAX_ENUMERATED, possible_bits, split_swizzle_argument

T = Symbol.fresh("t", positive=False, lower=0, upper=127)  # a thread index
S = Symbol.fresh("s", positive=False, lower=0, upper=5)  # a pipeline stage
Q = Symbol.fresh("q", positive=False, lower=0, upper=3)  # a warp index
BIG = Symbol.fresh("big", positive=False, lower=0, upper=1 << 40)  # too many values to list


@st.composite
def swizzles(draw):
    b = draw(st.integers(1, 3))
    m = draw(st.integers(0, 3))
    s = draw(st.sampled_from([-4, -3, 3, 4, 5]))
    if abs(s) < b:
        s = b if s > 0 else -b
    return Swizzle(b, m, s)


@st.composite
def thread_parts(draw):
    """What partitions produce: scaled digits of the thread index and of a warp index."""
    terms = [
        draw(st.sampled_from([1, 2, 4, 8, 32])) * T,
        draw(st.sampled_from([4, 8, 16, 32, 64])) * (T % draw(st.sampled_from([2, 4, 8, 16]))),
        draw(st.sampled_from([4, 32, 128, 512])) * ((T // draw(st.sampled_from([4, 8, 16]))) % 2),
        draw(st.sampled_from([256, 512, 1024])) * Q,
    ]
    picked = draw(st.lists(st.sampled_from(range(len(terms))), min_size=1, max_size=3))
    return sum(terms[i] for i in set(picked))


@st.composite
def arguments(draw):
    """A thread's part + a k-block or repetition constant + a stage's multiple of 2^k."""
    x = draw(thread_parts())
    x = x + draw(st.sampled_from([0, 4, 8, 16, 24, 32, 40, 1024, 1032, 4096 + 8]))
    if draw(st.booleans()):
        x = x + draw(st.sampled_from([1024, 2048, 4096])) * S
    return x


def _assignments():
    for t in range(0, 128, 5):
        for s in (0, 1, 5):
            for q in (0, 3):
                yield {T: t, S: s, Q: q}


@examples(150)
@given(arguments())
def test_possible_bits_covers_every_value(x):
    mask = possible_bits(x)
    assert mask is not None
    for env in _assignments():
        assert x.evaluate(env) & ~mask == 0


def test_possible_bits_knows_when_it_does_not_know():
    assert possible_bits(BIG + 1) is None  # more values than it lists
    assert possible_bits(T - 5) is None  # may be negative
    assert possible_bits(4 * (T % 8) + 64 * (T // 32)) == 0b11100 | 0b11000000


@examples(300)
@given(swizzles(), arguments())
def test_the_split_is_exact(sw, x):
    split = split_swizzle_argument(sw, x)
    unit = 1 << sw.swizzle_code.bit_length()
    if split.xor_constant:
        assert 0 < split.xor_constant < unit
        assert possible_bits(split.low) & split.xor_constant == 0
    for env in _assignments():
        high = split.high if type(split.high) is int else split.high.evaluate(env)
        low = split.low if type(split.low) is int else split.low.evaluate(env)
        assert high % unit == 0
        assert sw(x.evaluate(env)) == (sw(low) ^ sw(split.xor_constant)) + high


def test_the_split_moves_stages_and_disjoint_constants_out():
    sw = Swizzle(3, 2, 3)  # bits 2-4 xor-ed with bits 5-7; 2^8 and above pass through
    thread = 32 * (T % 16) + 4 * ((T // 16) % 2)
    split = split_swizzle_argument(sw, thread + 8 + 1024 + 4096 * S + 512 * Q)
    assert split.low == thread and split.xor_constant == 8
    assert split.high == 1024 + 4096 * S + 512 * Q
    # a constant that may carry into the thread's bits stays inside the swizzle
    assert split_swizzle_argument(sw, 4 * T + 4) == (4 * T + 4, 0, 0)


def _function():
    func = kernel_func(
        parse_module(
            """func.func @k(%t: index, %s: index, %q: index, %out: !tile.ptr<i64, gmem, 8>) {
              return
            }"""
        )
    )
    args = func.regions[0].blocks[0].args
    import layoutc.passes.analysis.symbolic as A

    for sym, arg in zip((T, S, Q), args):
        A._BINDINGS[sym] = arg
    return func, args


@examples(100)
@given(swizzles(), arguments(), st.sampled_from([0, 12288, 7]), st.integers(0, 127))
def test_emitted_swizzled_offsets_compute_the_offset(sw, x, plain, t):
    from layoutc.ir.dialects import arith
    from layoutc.ir.dialects import tile as TD

    func, args = _function()
    b = Builder(InsertionPoint.before_op(func.regions[0].blocks[0].last_op))
    v = E.emit(SwizzledOffset(sw, x, plain), b)
    cast = b.create(arith.IndexCastOp, v, args[3].type.element)
    b.create(TD.StoreOp, cast.results[0], args[3], 0)
    out = np.zeros(1, np.int64)
    for s, q in ((0, 0), (3, 2)):
        Interpreter(func).run([t, s, q, Ptr(out, 0)])
        assert int(out[0]) == plain + sw(x.evaluate({T: t, S: s, Q: q}))


def test_the_thread_swizzle_is_emitted_once_for_every_constant():
    func, _ = _function()
    b = Builder(InsertionPoint.before_op(func.regions[0].blocks[0].last_op))
    e = E.IndexEmitter(b)
    sw = Swizzle(3, 2, 3)
    thread = 32 * (T % 16) + 4 * ((T // 16) % 2)
    for kb in range(4):
        for rep in range(4):
            e.emit(SwizzledOffset(sw, thread + 8 * kb + 1024 * rep + 4096 * S))
    ops = [op.name for op in func.walk_ops()]
    assert ops.count("arith.andi") == 3  # two digits of t, then the swizzle's mask: once
    assert ops.count("arith.shrui") == 2  # t // 16 and the swizzle's shift: once
    assert ops.count("arith.xori") == 1 + 3  # the swizzle, then one per non-zero k-block


def _reference_split(sw, x):
    """The split computed term by term, ``high`` started from the constant's high part (what
    ``split_swizzle_argument`` computed before it shared the term sums between constants)."""
    from layoutc.ir.algebra.sym.expr import term_expr, terms_of
    from layoutc.ir.algebra.symbolic import sym_known_divisor

    unit = 1 << sw.swizzle_code.bit_length()
    const, terms = terms_of(x)
    high, low = const - const % unit, 0
    for mono, coeff in terms:
        term = term_expr(mono, coeff)
        if sym_known_divisor(term) % unit == 0:
            high = high + term
        else:
            low = low + term
    c = const % unit
    if c:
        bits = possible_bits(low)
        if bits is not None and bits & c == 0:
            return low, c, high
    return low + c, 0, high


@examples(200)
@given(swizzles(), thread_parts(), st.lists(st.integers(0, 1 << 14), min_size=1, max_size=6))
def test_the_split_of_a_part_plus_each_constant_is_the_term_by_term_split(sw, part, constants):
    """The accesses of one tensor split the same thread's part plus their own constants (and
    a stage's multiple): each split is exactly (the same objects as) the term-by-term one."""
    for c in constants:
        for x in (part + c, part + c + 4096 * S, part + 1024 * Q + c):
            assert tuple(split_swizzle_argument(sw, x)) == _reference_split(sw, x)


def _reference_bits(x):
    """``possible_bits`` by evaluating each admissible assignment in turn (``None`` when
    one is negative; an assignment that divides by 0 is skipped)."""
    from itertools import product

    from layoutc.ir.algebra.errors import LayoutError

    syms = list(x.free_symbols)
    ranges = []
    for sym in syms:
        lo, hi = sym.bounds
        step = sym.divisible_by
        ranges.append(range(-(-lo // step) * step, hi + 1, step))
    count = 1
    for r in ranges:
        count *= max(1, len(r))
    if count > MAX_ENUMERATED:
        return None  # too many to list
    mask = 0
    for values in product(*ranges):
        try:
            v = x.evaluate(dict(zip(syms, values)))
        except LayoutError:
            continue
        if v < 0:
            return None
        mask |= v
    return mask


W = Symbol.fresh("w", positive=False, lower=-3, upper=4)  # may be negative or 0
EVEN = Symbol.fresh("even", divisible_by=2, positive=False, lower=0, upper=10)


@st.composite
def enumerable(draw):
    """Expressions over a few small symbols: digits, products, min/max, and divisions by a
    value that may be 0 (``x.evaluate`` raises there: the assignment does not count)."""
    from layoutc.ir.algebra.symbolic import sym_max, sym_min

    leaf = st.sampled_from([T, Q, S, W, EVEN, 3, 0])

    def extend(children):
        return st.one_of(
            st.tuples(st.sampled_from(["+", "*", "min", "max"]), children, children),
            st.tuples(st.sampled_from(["//", "%"]), children, st.sampled_from([2, 3, 8, W, Q])),
        )

    tree = draw(st.recursive(leaf, extend, max_leaves=5))

    def build(t):
        if not isinstance(t, tuple):
            return t
        op, a, b = t
        a, b = build(a), build(b)
        if op == "+":
            return a + b
        if op == "*":
            return a * b
        if op == "min":
            return sym_min(a, b)
        if op == "max":
            return sym_max(a, b)
        if (type(b) is int and b == 0) or (type(a) is int and type(b) is int):
            return a
        return a // b if op == "//" else a % b

    return build(tree)


@examples(300)
@given(enumerable())
def test_possible_bits_is_the_union_over_every_assignment(x):
    if type(x) is int:
        return
    from layoutc.passes.analysis.bits import _enumerate_bits

    assert _enumerate_bits(x) == _reference_bits(x)


def test_assignments_that_divide_by_zero_do_not_count():
    from layoutc.passes.analysis.bits import _enumerate_bits

    x = 16 // (Q * Q + Q)  # q = 0 divides by 0; q = 1, 2, 3 give 8, 2, 1
    assert _enumerate_bits(x) == _reference_bits(x) == 8 | 2 | 1
    assert _enumerate_bits(W * T) is None  # negative for w < 0
