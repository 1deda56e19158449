"""The expanded form of symbolic integers (sym.expand) and the proofs it enables.

Soundness: the expanded polynomial of every generated expression evaluates to the expression's
value (a small evaluator of the floor basis below is the oracle). Completeness: identities of
floor and mod that the readable canonical form keeps apart (index digits, division chains,
ceil/floor/negation, rounding down to a multiple, multiples hidden behind remainders) are
proven by prove_eq/divides/known_divisor for random index and thread-index expressions, and the
named examples of docs/symbolic.md hold.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from layoutc.ir.algebra import intops
from layoutc.ir.algebra import symbolic as sym
from layoutc.ir.algebra.errors import LayoutError
from layoutc.ir.algebra.sym.expand import expand, strong_divisor
from layoutc.ir.algebra.symbolic import Symbol, ceil_div
from test_symbolic_properties import (
    POSITIVE,
    SAMPLES,
    TID,
    K,
    M,
    N,
    T,
    build,
    index_trees,
    laws,
    nested_thread_index,
    random_trees,
    roundtrip_trees,
    thread_trees,
    value,
)

t = Symbol("t", positive=False, lower=0, upper=255)
I = Symbol("I", positive=False, lower=0)  # noqa: E741 (an index, as in docs/symbolic.md)
P = Symbol("P")  # a positive extent with no divisibility


# ---------------------------------------------------------------------------------------------------
# The oracle: evaluate an expanded polynomial over its basis atoms
# ---------------------------------------------------------------------------------------------------


def eval_poly(p: tuple, env: dict) -> int:
    total = 0
    for mono, coeff in p:
        term = coeff
        for atom, e in mono:
            term *= eval_atom(atom, env) ** e
        total += term
    return total


def eval_atom(atom: object, env: dict) -> int:
    kind, args = atom.kind, atom.args
    if kind == "nu":
        s = args[0]
        assert env[s] % s.divisible_by == 0
        return env[s] // s.divisible_by
    if kind == "floor":
        d = eval_poly(args[1], env)
        assert d > 0, "a floor atom's divisor must be positive"
        return eval_poly(args[0], env) // d
    if kind == "opaque":
        op, g = args
        v = op.evaluate(env)
        assert v % g == 0
        return v // g
    vals = [eval_poly(a, env) for a in args]
    return min(vals) if kind == "min" else max(vals)


all_trees = st.one_of(random_trees, index_trees, roundtrip_trees, thread_trees)

# Indices as TV layouts and their partitions compute them: a constant, multiples of shapes, and
# for the thread index and a value index a sum of disjoint power-of-two digits `(t // a) % b`
# (a the product of the extents below) times any strides, optionally with the top digit
# `t // A`; then divided and reduced by powers of two and by shapes. (Beyond this family, e.g.
# overlapping digits such as `T + T % 2` under further divisions, some identities need
# Hermite-style arguments that the expanded form does not make; every proof stays sound.)
pow2 = st.sampled_from([1, 2, 4, 8, 16, 32])
digit_list = st.lists(st.tuples(st.sampled_from([2, 4, 8]), st.integers(0, 64)), max_size=3)


def _digits_of(var: Symbol, digits: list, top: int) -> object:
    total: object = 0
    below = 1
    for extent, stride in digits:
        total = ("add", total, ("mul", ("mod", ("floordiv", var, below), extent), stride))
        below *= extent
    return ("add", total, ("mul", ("floordiv", var, below), top))


index_like = st.builds(
    lambda c0, td, tt, vd, vt, shape_terms: (
        "add",
        ("add", c0, ("add", _digits_of(TID, td, tt), _digits_of(T, vd, vt))),
        shape_terms,
    ),
    st.integers(0, 20),
    digit_list,
    st.integers(0, 8),
    digit_list,
    st.integers(0, 8),
    st.builds(
        lambda parts: sum_tree(parts),
        st.lists(st.tuples(st.integers(1, 12), st.sampled_from((N, M, K))), max_size=2),
    ),
)


def sum_tree(parts: list) -> object:
    total: object = 0
    for k, leaf in parts:
        total = ("add", total, ("mul", k, leaf))
    return total


any_divisor = st.one_of(pow2, st.sampled_from(POSITIVE))
# Division chains x // (a*b) against (x // a) // b: index arithmetic of shapes (products and
# divisions by shapes included) and nested floordiv/mod chains of a thread index, divided by
# powers of two; and the thread chains divided by shapes too. (A symbolic divisor over an index
# that already holds products or divisions by shapes, e.g. `M*(N % (K + 3))` over (2, N), needs
# case analysis on the symbols, which the prover does not do; and sums of several digits of
# two indices and a shape can need a periodicity check longer than the prover's budget: such
# chains are not proven equal, see docs/symbolic.md.)
chain_index = st.one_of(index_trees, nested_thread_index)
chains = st.one_of(
    st.tuples(chain_index, pow2, pow2),
    st.tuples(nested_thread_index, any_divisor, any_divisor),
)


@laws
@given(all_trees, SAMPLES)
def test_expanded_form_has_the_value_of_the_expression(tree, envs):
    x = build(tree)
    p = expand(x)
    for env in envs:
        assert eval_poly(p, env) == value(x, env), (str(x), env)


# Every value of the thread index and the value index (T, tid): 16 * 256 points.
EVERY_THREAD_POINT = [{T: v, TID: w} for v in range(16) for w in range(256)]
# Perturbations that change a value at some but not all points: + (v % m) // (m - 1) is 1
# exactly where v % m == m - 1.
near_miss = st.tuples(st.sampled_from([2, 3, 4, 8, 16]), st.sampled_from([T, TID]))


@laws
@given(nested_thread_index, st.one_of(nested_thread_index, thread_trees), near_miss)
def test_equality_proofs_over_thread_indices_hold_at_every_point(t1, t2, miss):
    """Soundness of the exact decisions (periodicity, mirrored numerators): a proof of
    equality or divisibility holds at every point, checked exhaustively, and a copy that
    differs at some points is never proven equal."""
    x, y = build(t1), build(t2)
    m, v = miss
    z = x + (v % m) // (m - 1)
    assert not sym.sym_prove_eq(x, z), (str(x), str(z))
    if sym.sym_prove_eq(x, y):
        assert all(value(x, env) == value(y, env) for env in EVERY_THREAD_POINT), (str(x), str(y))
    for d in (2, 3, 8):
        if sym.sym_divides(d, x - y):
            assert all(value(x - y, env) % d == 0 for env in EVERY_THREAD_POINT), (str(x), d)


# ---------------------------------------------------------------------------------------------------
# Completeness laws
# ---------------------------------------------------------------------------------------------------


@laws
@given(index_like, any_divisor, any_divisor)
def test_index_digits_recombine(tree, a, b):
    x = build(tree)
    assert sym.sym_prove_eq((x % (a * b)) // a, (x // a) % b), (str(x), a, b)


@laws
@given(chains)
def test_division_chains_merge(chain):
    tree, a, b = chain
    x = build(tree)
    assert sym.sym_prove_eq(x // (a * b), (x // a) // b), (str(x), a, b)


@laws
@given(index_like, any_divisor)
def test_rounding_down_to_a_multiple(tree, b):
    x = build(tree)
    down = x - x % b
    assert sym.sym_prove_eq(b * (x // b), down), (str(x), b)
    assert sym.sym_divides(b, down), (str(down), b)
    if type(b) is int:
        assert sym.sym_known_divisor(down) % b == 0, (str(down), b)
        assert down % b == 0


@laws
@given(index_like, any_divisor)
def test_ceil_floor_and_negation_agree(tree, b):
    x = build(tree)
    assert sym.sym_prove_eq(ceil_div(x, b), (x + b - 1) // b), (str(x), b)
    assert sym.sym_prove_eq(-((-x) // b), ceil_div(x, b)), (str(x), b)


# d | c*b for every c*(x % b - x) = -c*b*(x // b): the sum is a multiple of d although no term
# of the canonical form shows it (8*t + 15*(t % 8) - 7*(t % 16) is the ldmatrix case).
hidden = st.tuples(
    st.sampled_from([2, 4, 8, 16]),
    st.lists(
        st.tuples(st.sampled_from([2, 3, 4, 6, 8, 12, 16, 32]), st.integers(-15, 15)), max_size=3
    ),
    st.integers(-3, 3),
)


@laws
@given(index_like, hidden, SAMPLES)
def test_multiples_hidden_behind_remainders_are_proven(tree, case, envs):
    d, parts, k = case
    x = build(tree)
    e = d * k * x
    for b, m in parts:
        c = m * (d // math.gcd(d, b))  # so that d | c*b
        e = e + c * (x % b) - c * x
    assert sym.sym_divides(d, e), (str(e), d)
    assert sym.sym_known_divisor(e) % d == 0 if type(e) is not int else e % d == 0
    assert e % d == 0, (str(e), d)
    for env in envs:
        assert value(e, env) % d == 0


shapes = st.lists(
    st.one_of(st.sampled_from(POSITIVE), st.integers(1, 7)), min_size=1, max_size=4
).filter(lambda s: sum(type(v) is not int for v in s) <= 2)
# Shapes in which a symbol is one extent at most: with (M, 3, M), `(4*M + 1) // (3*M*M)` is 1 at
# M = 1 and 0 above, a case split on the symbol's value that the prover does not make.
distinct_shapes = shapes.filter(
    lambda s: len({v for v in s if type(v) is not int}) == sum(type(v) is not int for v in s)
)


def crd2idx_of_idx2crd(idx: sym.IntLike, shape: list) -> sym.IntLike:
    total: sym.IntLike = 0
    stride: sym.IntLike = 1
    for i, s in enumerate(shape):
        crd = idx // stride if i == len(shape) - 1 else (idx // stride) % s
        total = total + crd * stride
        stride = stride * s
    return total


# A completeness law (what the canonical form recombines, not whether values are right, which the
# laws above check at random): its seed is fixed so that the suite does not depend on it, and
# the gaps random runs found are kept as strict xfails below.
@settings(laws, derandomize=True)
@given(distinct_shapes, st.data())
def test_round_trip_recombines_with_odd_extents_and_products(shape, data):
    """crd2idx(idx2crd(i, S), compact strides of S) is i itself for shapes of distinct symbols
    and static extents (odd ones included, mixed with the symbols' divisibility) and indices
    that are polynomials in the symbols (products of extents included): the known gaps of the
    canonical form alone."""
    factor = st.sampled_from((*POSITIVE, T, ("mul", N, N), ("mul", M, K)))
    terms = data.draw(st.lists(st.tuples(st.integers(1, 12), factor), min_size=1, max_size=3))
    idx = data.draw(st.integers(0, 40))
    for k, f in terms:
        idx = idx + k * build(f)
    assert crd2idx_of_idx2crd(idx, shape) == idx


@pytest.mark.xfail(
    strict=True, raises=AssertionError, reason="known gap: docs/symbolic.md, 'What is not'"
)
def test_round_trip_of_a_square_over_a_later_symbolic_extent_does_not_recombine_yet():
    """Found by a random run: N*N + N + 4 over (N, 4, M, 1) comes back as
    4*M*N*((N*N + N + 4) // (4*M*N)) + N*(N % (4*M)) + N + 4, right at every point, but
    recombining it needs floor((N*N + N + 4) / (4*M*N)) == floor(N / (4*M)), a bound argument
    the canonical form does not make."""
    idx = N * N + N + 4
    rt = crd2idx_of_idx2crd(idx, [N, 4, M, 1])
    for n in range(4, 64, 4):
        for m in range(1, 9):
            env = {N: n, M: m}
            assert rt.evaluate(env) == idx.evaluate(env)
    assert rt == idx


def splits_a_symbolic_modulus_by_its_factor(tree: object, shape: list) -> bool:
    """Whether the index reduces or divides by a compound symbolic divisor with a static factor
    that a static extent of the shape shares (`M % (N + 2)` with 4 | N over `(2, K, N)`): the
    canonical form rewrites `(M % (N + 2)) // 2` as `(M // 2) % (N // 2 + 1)` and the expanded
    form no longer links the two (docs/symbolic.md, "What is not")."""
    static = math.prod(v for v in shape if type(v) is int)
    stack = [tree]
    while stack:
        node = stack.pop()
        if not isinstance(node, tuple):
            continue
        if node[0] in ("mod", "floordiv") and isinstance(node[2], tuple):
            factor = strong_divisor(build(node[2]))
            if factor > 1 and math.gcd(factor, static) > 1:
                return True
        stack.extend(node[1:])
    return False


@laws
@given(shapes, chain_index)
def test_round_trip_of_any_index_proves_equal(shape, tree):
    assume(not splits_a_symbolic_modulus_by_its_factor(tree, shape))
    idx = build(tree)
    assert sym.sym_prove_eq(crd2idx_of_idx2crd(idx, shape), idx), (str(idx), shape)


@pytest.mark.xfail(
    strict=True, raises=AssertionError, reason="known gap: docs/symbolic.md, 'What is not'"
)
def test_round_trip_over_an_even_symbolic_modulus_split_by_two_is_not_proven_yet():
    """The case hypothesis found (the value is right at every point; only the proof is
    missing, so passes keep the general code): when the prover learns it, drop the xfail and
    the filter above."""
    n4, k2 = Symbol("N", divisible_by=4), Symbol("K", divisible_by=2, upper=64)
    idx = build(("mod", M, ("add", n4, 2)))
    shape = [2, k2, n4]
    rt = crd2idx_of_idx2crd(idx, shape)
    for m in range(1, 200, 7):
        for n in (4, 8, 12):
            for k in (2, 4, 6):
                env = {M: m, n4: n, k2: k}
                assert rt.evaluate(env) == idx.evaluate(env)
    assert sym.sym_prove_eq(rt, idx)


# ---------------------------------------------------------------------------------------------------
# The named examples
# ---------------------------------------------------------------------------------------------------


def test_equal_expressions_built_differently_prove_equal():
    a, b = 9 * (P // 3), 3 * P - 3 * (P % 3)
    assert sym.sym_prove_eq(a, b)
    assert intops.compare(a, b) == 0
    assert a - b == 0  # a difference that vanishes is the int 0
    # Structural == stays identity of the readable canonical form; prove_eq is equality.
    assert str(a) == "9*(P // 3)" and str(b) == "3*P - 3*(P % 3)" and a != b


def test_a_sums_canonical_form_does_not_depend_on_the_order_of_its_terms():
    """Found by a random run of the str/parse round trip: idx2crd then crd2idx of
    N*M + N // 3 over (N, N, N) (4 | N). The two high digits' terms added alone collapse to
    M*N; with N // 3 added first, the sum's expansion kept a division (N // 3's) and nothing
    collapsed. Every order now gives M*N + N // 3."""
    import itertools

    idx = N * M + N // 3
    terms = [idx % N, N * ((idx // N) % N), N * N * (idx // (N * N))]
    forms = set()
    for order in itertools.permutations(terms):
        total = 0
        for t in order:
            total = total + t
        forms.add(str(total))
    assert forms == {"M*N + N // 3"}
    assert sym.parse_int_expr(str(terms[2] + terms[1] + terms[0]), {"N": N, "M": M}) == idx


def test_ldmatrix_offset_is_a_multiple_of_8():
    e = 8 * t + 15 * (t % 8) - 7 * (t % 16)
    assert sym.sym_known_divisor(e) == 8 and e.known_divisor() == 8
    assert intops.divides(8, e) and intops.known_divisor(e) == 8
    assert e % 8 == 0
    assert not intops.divides(16, e)  # t = 8 gives 8
    assert e.evaluate({t: 8}) == 8


def test_rounding_shows_its_divisor():
    assert intops.known_divisor((I // 4) * 4) == 4
    assert intops.divides(N, N * (I // N))
    assert intops.divides(M, I - I % M)
    assert (t - t % 8).bounds == (0, 248)  # the tighter of both forms' intervals


def test_digits_with_odd_extents_recombine():
    assert crd2idx_of_idx2crd(10 * N, [3, 2, N]) is 10 * N
    assert crd2idx_of_idx2crd(N * N + T, [2, 8, N, N]) == N * N + T
    assert crd2idx_of_idx2crd(7 * M + 5, [5, M, 3]) == 7 * M + 5


def test_thread_index_patterns_of_tv_layouts():
    assert sym.sym_prove_eq((t % 32) // 4, (t // 4) % 8)
    lane = 8 * (t % 4) + (t // 4) % 8
    assert lane.bounds == (0, 31)
    assert intops.compare(lane, 32) == -1
    assert sym.sym_prove_le(0, t % 16 - t % 8) and sym.sym_prove_le(t % 16 - t % 8, 8)
    assert sym.sym_prove_eq(ceil_div(t, 8) * 8 - t, (-t) % 8)
    warp, lane_id = t // 32, t % 32
    assert warp * 32 + lane_id is t
    assert sym.sym_prove_eq(I % (M * N), I % M + M * ((I // M) % N))


def test_quasi_linear_identities_are_decided_exactly():
    u = TID + 2 * (TID // 4)
    assert sym.sym_prove_eq((u + 2) // 4 + u // 4, u // 2)  # Hermite's identity
    assert not sym.sym_prove_eq((u + 2) // 4 + u // 4, u // 2 + (TID % 64) // 63)
    x = 4 * T - 7 * (T // 2) + 3 * (TID % 2)
    assert sym.sym_prove_eq(4 * (x // 4), x - x % 4) and sym.sym_divides(4, x - x % 4)
    assert not sym.sym_divides(8, x - x % 4)  # T = 1 gives 4
    y = 8 * M + 8 * N + 16  # mirrored numerators under a symbolic divisor
    assert sym.sym_prove_eq(y // (32 * N), (y // 32) // N)
    z = 2 * (T // 2) - 2 * (T // 4)
    assert sym.sym_prove_eq((z % (2 * N)) // N, (z // N) % 2)


def test_unprovable_stays_unproven():
    assert not sym.sym_prove_eq(t // 8, t // 16)
    assert not sym.sym_divides(3, t - t % 2)
    assert not sym.sym_prove_le(t % 16 - t % 8, 7)
    with pytest.raises(LayoutError, match="cannot order"):
        intops.compare(t // 8, t % 8)
