"""exact_bounds (passes/analysis/ranges.py): the true minimum and maximum of a symbolic offset
over every admissible value of its symbols, against brute force; never outside what the
symbolic engine's own bounds allow; and the swizzled offset's bounds contain every value."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st
from layoutc.ir.algebra.swizzle import Swizzle
from layoutc.ir.algebra.symbolic import Symbol, sym_min
from layoutc.ir.dialects.tile.swizzled import SwizzledOffset
from layoutc.passes.analysis.ranges import exact_bounds


def _brute(x, symbols):
    vals = []
    for point in itertools.product(*[range(s.lower, s.upper + 1, 1) for s in symbols]):
        env = dict(zip(symbols, point))
        if all(v % (s.divisible_by or 1) == 0 for s, v in zip(symbols, point)):
            vals.append(x.evaluate(env))
    return min(vals), max(vals)


def test_a_thread_layouts_floor_division_chain_is_bounded_exactly():
    t = Symbol.fresh("t", lower=0, upper=255, positive=False)
    x = 16 * (t // 8) - 60 * (t // 32) - 7 * (t // 64) + 94 * (t // 128) + 51200
    assert exact_bounds(x) == _brute(x, [t])
    assert exact_bounds(x)[0] == 51200  # thread 0's
    assert x.bounds[0] < 51200  # the terms' bounds are loose


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(-64, 64), st.sampled_from([1, 2, 4, 8, 32, 64])), min_size=1,
             max_size=4),
    st.integers(0, 63),
    st.integers(1, 40),
    st.sampled_from([1, 2, 4]),
)  # fmt: skip
def test_exact_bounds_are_the_brute_force_ones(terms, upper, k_upper, step):
    t = Symbol.fresh("t", lower=0, upper=upper, positive=False)
    k = Symbol.fresh("k", lower=0, upper=k_upper * step, divisible_by=step, positive=False)
    x = sum(c * (t // d) for c, d in terms) + 3 * (sym_min(k + 2, 17) // 2) - k % 3
    if type(x) is int:
        return
    got = exact_bounds(x)
    want = _brute(x, [s for s in (t, k) if s in x.free_symbols])
    assert got == want
    lo, hi = x.bounds
    assert (lo is None or lo <= got[0]) and (hi is None or got[1] <= hi)


def test_unbounded_or_too_many_points_fall_back_to_the_engines_bounds():
    n = Symbol.fresh("n", lower=1, positive=False)
    t = Symbol.fresh("t", lower=0, upper=1 << 20, positive=False)
    assert exact_bounds(4 * n + 3) == (4 * n + 3).bounds
    assert exact_bounds(t // 8 - t // 16) == (t // 8 - t // 16).bounds


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 3), st.integers(0, 4), st.integers(0, 2), st.booleans(), st.integers(0, 2000),
    st.integers(0, 300), st.integers(0, 50),
)  # fmt: skip
def test_a_swizzled_offsets_bounds_hold_every_value(bits, base, extra, left, lo, span, plain):
    t = Symbol.fresh("t", lower=lo, upper=lo + span, positive=False)
    shift = (bits + extra) * (-1 if left else 1)  # |S| >= B, either direction
    sw = Swizzle(bits, base, shift)
    off = SwizzledOffset(sw, 4 * t, plain)
    blo, bhi = off.bounds
    assert off.bounds_from(exact_bounds) == (blo, bhi)
    values = [plain + sw(4 * v) for v in range(lo, lo + span + 1)]
    assert blo <= min(values) and max(values) <= bhi


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 3), st.integers(0, 4), st.integers(0, 2), st.booleans(), st.integers(0, 2000),
    st.integers(0, 300), st.integers(0, 50), st.sampled_from([1, 2, 4, 8]),
)  # fmt: skip
def test_a_swizzled_offsets_bounds_with_a_divisor_hold_every_value(
    bits, base, extra, left, lo, span, plain, scale
):
    """Bounds given the argument's known divisor contain every value and are no looser than
    without it."""
    t = Symbol.fresh("t", lower=lo, upper=lo + span, positive=False)
    sw = Swizzle(bits, base, (bits + extra) * (-1 if left else 1))
    off = SwizzledOffset(sw, scale * t, plain)
    blo, bhi = off.bounds_from(exact_bounds, scale)
    values = [plain + sw(scale * v) for v in range(lo, lo + span + 1)]
    assert blo <= min(values) and max(values) <= bhi
    lo1, hi1 = off.bounds_from(exact_bounds)
    assert lo1 <= blo and bhi <= hi1


def test_a_divisor_proves_a_16_byte_copy_ends_with_its_swizzled_stage():
    """A 4-element copy into the last of 4 stages of Sw<3,2,3> rows (arg a multiple of 4) ends
    at the stages' end: without the divisor the bound reaches 3 elements past it."""
    t = Symbol.fresh("t", lower=0, upper=8191, positive=False)
    off = SwizzledOffset(Swizzle(3, 2, 3), 4 * t, 0)
    assert off.bounds_from(exact_bounds, 4)[1] + 4 == 32768
    assert off.bounds_from(exact_bounds)[1] == 32767
