"""Random symbolic expressions, with the same computation on plain ints as the oracle.

An expression is generated as a small tree of tuples; `build` runs it through the symbolic
engine, `run` computes it with Python ints op by op. Soundness of every rewrite means: for every
admissible assignment, `evaluate(build(tree)) == run(tree)`.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from layoutc.ir.algebra import symbolic as sym
from layoutc.ir.algebra.symbolic import Symbol

# Per-test settings (a global profile would change other suites' tests). CI runs fewer
# examples; LAYOUTC_SYMBOLIC_EXAMPLES overrides the count for a long soak run.
_EXAMPLES = int(
    os.environ.get("LAYOUTC_SYMBOLIC_EXAMPLES", "60" if os.environ.get("CI") == "true" else "150")
)
laws = settings(max_examples=_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# A pool covering the kinds of assumptions the algebra meets.
N = Symbol("N", divisible_by=4)  # a shape known to be a multiple of 4
M = Symbol("M")  # any positive shape
K = Symbol("K", divisible_by=2, upper=64)  # bounded, even
S = Symbol("S", positive=False, lower=-8, upper=8)  # a stride that may be 0 or negative
T = Symbol("T", positive=False, lower=0, upper=15)  # a thread index (or a value index)
TID = Symbol("tid", positive=False, lower=0, upper=255)  # the thread index of a 256-thread block
SYMBOLS = (N, M, K, S, T, TID)
POSITIVE = (N, M, K)
BY_NAME = {s.name: s for s in SYMBOLS}

VALUES = {
    N: list(range(4, 68, 4)),
    M: list(range(1, 41)),
    K: list(range(2, 66, 2)),
    S: list(range(-8, 9)),
    T: list(range(0, 16)),
    TID: list(range(0, 256)),
}

assignments = st.fixed_dictionaries({s: st.sampled_from(VALUES[s]) for s in SYMBOLS})

leaf = st.one_of(st.sampled_from(SYMBOLS), st.integers(-12, 12))

# Divisors that are non-zero for every admissible assignment.
positive_divisor = st.one_of(
    st.integers(1, 12),
    st.sampled_from(POSITIVE),
    st.builds(lambda s, k: ("add", s, k), st.sampled_from(POSITIVE), st.integers(0, 3)),
    st.builds(lambda s, k: ("mul", s, k), st.sampled_from(POSITIVE), st.integers(1, 4)),
    st.builds(lambda a, b: ("mul", a, b), st.sampled_from(POSITIVE), st.sampled_from(POSITIVE)),
)
divisor = st.one_of(positive_divisor, st.integers(-6, -1))


def _extend(children: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(
        st.tuples(st.sampled_from(["add", "sub", "mul", "min", "max"]), children, children),
        st.tuples(st.just("neg"), children),
        st.tuples(st.sampled_from(["floordiv", "mod", "ceil_div"]), children, divisor),
    )


random_trees = st.recursive(leaf, _extend, max_leaves=8)

# Index arithmetic as layouts produce it: non-negative sums of products of shapes, divided and
# reduced by positive shapes (idx2crd/crd2idx chains), where the division rules matter most.
index_leaf = st.one_of(st.sampled_from((*POSITIVE, T)), st.integers(0, 9))


def _extend_index(children: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(
        st.tuples(st.sampled_from(["add", "mul"]), children, children),
        st.tuples(st.sampled_from(["floordiv", "mod", "ceil_div"]), children, positive_divisor),
        st.tuples(st.sampled_from(["min", "max"]), children, children),
    )


index_trees = st.recursive(index_leaf, _extend_index, max_leaves=8)


def _roundtrip_tree(shape: tuple, idx: object) -> object:
    """crd2idx(idx2crd(idx, shape), compact strides): the identity for idx < size(shape)."""
    total: object = 0
    stride: object = 1
    for i, s in enumerate(shape):
        crd = (
            ("floordiv", idx, stride)
            if i == len(shape) - 1
            else ("mod", ("floordiv", idx, stride), s)
        )
        total = ("add", total, ("mul", crd, stride))
        stride = ("mul", stride, s)
    return total


roundtrip_trees = st.builds(
    _roundtrip_tree,
    st.lists(st.one_of(st.sampled_from(POSITIVE), st.integers(1, 6)), min_size=1, max_size=3),
    index_trees,
)

# Thread-index arithmetic as TV layouts and their partitions produce it (swizzle-free): sums of
# digits `(t // a) % b` scaled by strides, over the thread index and a value index, and nested
# floordiv/mod chains of a thread index with power-of-two and odd divisors.
small_divisor = st.sampled_from([1, 2, 3, 4, 6, 8, 12, 16, 32])
digit = st.tuples(
    st.sampled_from([1, 2, 3, 4, 8, 16]), st.sampled_from([2, 3, 4, 5, 8]), st.integers(0, 64)
)


def _digits(var: Symbol, digits: list) -> object:
    total: object = 0
    for a, b, stride in digits:
        total = ("add", total, ("mul", ("mod", ("floordiv", var, a), b), stride))
    return total


tv_maps = st.builds(
    lambda thread, value: ("add", _digits(TID, thread), _digits(T, value)),
    st.lists(digit, min_size=1, max_size=3),
    st.lists(digit, max_size=2),
)
nested_thread_index = st.recursive(
    st.sampled_from((TID, T)),
    lambda children: st.one_of(
        st.tuples(st.sampled_from(["floordiv", "mod"]), children, small_divisor),
        st.tuples(st.just("add"), children, children),
        st.tuples(st.just("mul"), children, st.integers(1, 16)),
    ),
    max_leaves=5,
)
thread_trees = st.one_of(tv_maps, nested_thread_index)

trees = st.one_of(random_trees, index_trees, roundtrip_trees, thread_trees)


def build(tree: object) -> sym.IntLike:
    """The tree through the symbolic engine (Python operators and the public functions)."""
    if not isinstance(tree, tuple):
        return tree  # type: ignore[return-value]
    op, *args = tree
    vals = [build(a) for a in args]
    if op == "add":
        return vals[0] + vals[1]
    if op == "sub":
        return vals[0] - vals[1]
    if op == "mul":
        return vals[0] * vals[1]
    if op == "neg":
        return -vals[0]
    if op == "floordiv":
        return vals[0] // vals[1]
    if op == "mod":
        return vals[0] % vals[1]
    if op == "ceil_div":
        return sym.ceil_div(vals[0], vals[1])
    if op == "min":
        return sym.sym_min(vals[0], vals[1])
    if op == "max":
        return sym.sym_max(vals[0], vals[1])
    raise AssertionError(op)


def run(tree: object, env: dict) -> int:
    """The tree computed with plain Python ints."""
    if isinstance(tree, Symbol):
        return env[tree]
    if not isinstance(tree, tuple):
        return tree  # type: ignore[return-value]
    op, *args = tree
    v = [run(a, env) for a in args]
    if op == "add":
        return v[0] + v[1]
    if op == "sub":
        return v[0] - v[1]
    if op == "mul":
        return v[0] * v[1]
    if op == "neg":
        return -v[0]
    if op == "floordiv":
        return v[0] // v[1]
    if op == "mod":
        return v[0] % v[1]
    if op == "ceil_div":
        return -(-v[0] // v[1])
    if op == "min":
        return min(v)
    if op == "max":
        return max(v)
    raise AssertionError(op)


def value(x: sym.IntLike, env: dict) -> int:
    return x if type(x) is int else x.evaluate(env)


# ---------------------------------------------------------------------------------------------------
# Laws
# ---------------------------------------------------------------------------------------------------

import math  # noqa: E402

import pytest  # noqa: E402
from hypothesis import given  # noqa: E402
from layoutc.ir.algebra.errors import LayoutError  # noqa: E402

SAMPLES = st.lists(assignments, min_size=1, max_size=6)


@laws
@given(trees, SAMPLES)
def test_simplified_value_equals_int_computation(tree, envs):
    """The core soundness law: every rewrite preserves the value for admissible symbols."""
    result = build(tree)
    for env in envs:
        assert value(result, env) == run(tree, env), (tree, str(result), env)


@laws
@given(trees, trees, SAMPLES)
def test_structural_equality_implies_equal_values(t1, t2, envs):
    a, b = build(t1), build(t2)
    if type(a) is not int and a == b:
        assert a is b
        for env in envs:
            assert value(a, env) == value(b, env)


@laws
@given(trees)
def test_str_parse_round_trip(tree):
    e = build(tree)
    assert sym.parse_int_expr(str(e), BY_NAME, create_unknown=False) == e


@laws
@given(trees, SAMPLES)
def test_bounds_contain_every_value(tree, envs):
    e = build(tree)
    if type(e) is int:
        return
    lo, hi = e.bounds
    for env in envs:
        v = e.evaluate(env)
        assert lo is None or lo <= v, (str(e), lo, v)
        assert hi is None or v <= hi, (str(e), hi, v)


@laws
@given(trees, SAMPLES)
def test_known_divisor_divides_every_value(tree, envs):
    e = build(tree)
    d = sym.sym_known_divisor(e)
    for env in envs:
        v = value(e, env)
        assert (v % d == 0) if d else v == 0


@laws
@given(
    st.one_of(st.integers(-8, 16), st.builds(build, positive_divisor), st.builds(build, trees)),
    trees,
    SAMPLES,
)
def test_divides_true_implies_divisible(d_tree, tree, envs):
    d, x = build(d_tree), build(tree)
    if sym.sym_divides(d, x):
        for env in envs:
            dv = value(d, env)
            assert dv != 0 and value(x, env) % dv == 0, (str(d), str(x), env)


@laws
@given(trees, trees, SAMPLES)
def test_proven_order_holds(t1, t2, envs):
    a, b = build(t1), build(t2)
    lt, le, eq = sym.sym_prove_lt(a, b), sym.sym_prove_le(a, b), sym.sym_prove_eq(a, b)
    for env in envs:
        va, vb = value(a, env), value(b, env)
        assert not lt or va < vb, (str(a), str(b), env)
        assert not le or va <= vb, (str(a), str(b), env)
        assert not eq or va == vb, (str(a), str(b), env)


@laws
@given(trees, SAMPLES)
def test_proven_sign_holds(tree, envs):
    e = build(tree)
    s = sym.sym_sign(e)
    for env in envs:
        v = value(e, env)
        assert s == 0 or (v > 0 if s > 0 else v < 0)


nonneg_trees = st.one_of(
    st.integers(0, 24),
    st.sampled_from((*POSITIVE, T)),
    st.builds(lambda a, b: ("mul", a, b), st.sampled_from(POSITIVE), st.integers(0, 12)),
    st.builds(lambda a, b: ("add", a, b), st.sampled_from(POSITIVE), st.integers(0, 12)),
    st.builds(lambda a, b: ("mul", a, b), st.sampled_from(POSITIVE), st.sampled_from(POSITIVE)),
    st.builds(lambda a, b: ("floordiv", a, b), st.sampled_from((*POSITIVE, T)), positive_divisor),
)


@laws
@given(nonneg_trees, nonneg_trees, SAMPLES)
def test_gcd_and_lcm_closed_forms_are_exact(t1, t2, envs):
    a, b = build(t1), build(t2)
    for fn, ref in ((sym.sym_gcd, math.gcd), (sym.sym_lcm, math.lcm)):
        try:
            g = fn(a, b)
        except LayoutError:
            continue
        for env in envs:
            assert value(g, env) == ref(value(a, env), value(b, env)), (
                fn.__name__,
                str(a),
                str(b),
                str(g),
                env,
            )


@laws
@given(trees, st.sampled_from(SYMBOLS), st.data(), SAMPLES)
def test_subs_agrees_with_evaluate(tree, target, data, envs):
    e = build(tree)
    replacement = data.draw(st.sampled_from(VALUES[target]))
    partial = e if type(e) is int else e.subs({target: replacement})
    for env in envs:
        env = {**env, target: replacement}
        assert value(partial, env) == value(e, env)


@laws
@given(trees, SAMPLES)
def test_subs_by_expression_agrees_with_evaluate(tree, envs):
    """N -> 4*M satisfies N's assumptions (a positive multiple of 4)."""
    e = build(tree)
    if type(e) is int:
        return
    replaced = e.subs({N: 4 * M})
    for env in envs:
        env2 = {**env, N: 4 * env[M]}
        assert value(replaced, env) == e.evaluate(env2)


class _IntEmitter:
    """Evaluates while emitting: checks that emit() rebuilds the same function."""

    def __init__(self, env):
        self.env = env

    def const(self, v):
        return v

    def symbol(self, s):
        return self.env[s]

    def add(self, a, b):
        return a + b

    def sub(self, a, b):
        return a - b

    def mul(self, a, b):
        return a * b

    def floordiv(self, a, b):
        return a // b

    def mod(self, a, b):
        return a % b

    def ceildiv(self, a, b):
        return -(-a // b)

    def min(self, a, b):
        return min(a, b)

    def max(self, a, b):
        return max(a, b)


@laws
@given(trees, SAMPLES)
def test_emit_rebuilds_the_same_function(tree, envs):
    e = build(tree)
    for env in envs:
        assert sym.emit(e, _IntEmitter(env)) == value(e, env)


@laws
@given(trees)
def test_walk_lists_operands_before_users(tree):
    e = build(tree)
    seen = set()
    for x in sym.walk(e):
        for operand in sym.node(x)[1]:
            assert type(operand) is int or operand in seen
        seen.add(x)


@pytest.mark.parametrize("seed", range(3))
def test_canonical_form_does_not_depend_on_cache_state(seed):
    """Clearing the memo tables never changes a result."""
    import random

    rng = random.Random(seed)
    exprs = []
    for _ in range(30):
        a, b = rng.choice(SYMBOLS), rng.choice(POSITIVE)
        k = rng.randint(1, 9)
        exprs.append(lambda a=a, b=b, k=k: ((a * k + b) // b) % (k + 1) + sym.sym_min(a, b * k))
    first = [str(f()) for f in exprs]
    sym.clear_caches()
    assert [str(f()) for f in exprs] == first


# Polynomials over symbols and opaque atoms (no x // b next to x or x % b, where the index rules
# fire only when their terms meet): here the canonical form is unique.
poly_leaf = st.one_of(
    st.sampled_from(SYMBOLS),
    st.integers(-12, 12),
    st.sampled_from([("floordiv", N, 4), ("ceil_div", M, 2), ("min", M, K), ("mod", M, 3)]),
)
poly_trees = st.recursive(
    poly_leaf,
    lambda children: st.one_of(
        st.tuples(st.sampled_from(["add", "sub", "mul", "min", "max"]), children, children),
        st.tuples(st.just("neg"), children),
    ),
    max_leaves=8,
)


@laws
@given(poly_trees, poly_trees, poly_trees)
def test_canonical_form_is_independent_of_construction_order(t1, t2, t3):
    """Ring laws hold structurally: equal polynomials are the same object however built."""
    a, b, c = build(t1), build(t2), build(t3)
    assert a + b == b + a
    assert a * b == b * a
    assert (a + b) + c == a + (b + c)
    assert a * (b + c) == a * b + a * c
    assert (a - b) + b == a


@laws
@given(
    st.lists(
        st.one_of(st.sampled_from(POSITIVE), st.sampled_from([1, 2, 4, 8])), min_size=1, max_size=4
    ),
    st.data(),
)
def test_crd2idx_of_idx2crd_is_the_index(shape, data):
    """idx2crd then crd2idx on a shape of symbols and powers of two simplifies back to the index
    itself, for indices linear in the symbols. (With odd static extents mixed with symbols'
    divisibility, or products of symbols in the index, the digits do not always recombine; the
    value is still exact: see the soundness law.)"""
    factor = st.sampled_from((*POSITIVE, T))
    term = st.tuples(st.integers(1, 9), factor, st.just(1))
    terms = data.draw(st.lists(term, min_size=1, max_size=3))
    idx: object = data.draw(st.integers(0, 40))
    for k, f, g in terms:
        idx = ("add", idx, ("mul", k, ("mul", f, g)))
    assert build(_roundtrip_tree(tuple(shape), idx)) == build(idx)


def _rebuilt_plus(x: object, c: int) -> sym.IntLike:
    """``x + c`` through the builder's full rewrites (what ``add`` computed before its
    fast path for sums whose terms are a fixed point: ``Sum._nf``)."""
    from layoutc.ir.algebra.sym import arith

    return arith.build(x.const + c, dict(x.terms))  # type: ignore[attr-defined]


@laws
@given(trees, st.lists(st.integers(-70, 70), min_size=1, max_size=4))
def test_adding_a_constant_to_a_fixed_point_sum_is_the_full_rebuild(tree, constants):
    """A sum the builder marked as a fixed point of its rewrites (``_nf``) plus a constant
    is exactly (the same interned object as) the builder's result for its terms and the new
    constant, from either side."""
    from layoutc.ir.algebra.sym.expr import Sum

    x = build(tree)
    if type(x) is not Sum or not x._nf:
        return
    for c in constants:
        expected = _rebuilt_plus(x, c)
        assert x + c is expected
        assert c + x is expected


def test_thread_index_sums_are_fixed_points_that_move_by_a_constant():
    """The element offsets of a swizzled epilogue (a thread's part plus each value's
    constant): the thread's part is marked, and each offset is the full rebuild."""
    from layoutc.ir.algebra.sym.expr import Sum

    tid = Symbol("tid_fp", positive=False, lower=0, upper=127)
    part = 2 * tid + 120 * (tid // 4) + 1024 * (tid // 32) - 4088 * (tid // 64)
    digits = 32 * (tid % 16) + 4 * ((tid // 16) % 2) + 512 * ((tid // 32) % 2)
    for x in (part, digits):
        assert type(x) is Sum and x._nf
        assert any(atom._special for mono, _ in x.terms for atom, _ in mono)
        for c in (1, 8, 1024, 12384, -3, -x.const):
            assert x + c is _rebuilt_plus(x, c)
            assert x + c - c is x


def test_a_sum_interned_without_the_builder_is_rebuilt_when_a_constant_is_added():
    """``make_sum`` interns whatever terms it is given (the builder's own pieces): such a
    sum is not marked, and adding a constant runs the rewrites it never had
    (``x % 4 + 4*(x // 4)`` is ``x``)."""
    from layoutc.ir.algebra.sym.expr import make_sum, term_sort_key, terms_of

    x = Symbol("x_fp", positive=False, lower=0, upper=255)
    pieces = sorted([*terms_of(x % 4)[1], *terms_of(4 * (x // 4))[1]], key=term_sort_key)
    raw = make_sum(0, tuple(pieces))
    assert not raw._nf
    assert raw + 3 is x + 3
    assert 3 + raw is x + 3


@laws
@given(trees, trees)
def test_expanded_terms_are_the_products_of_each_terms_atoms(t1, t2):
    """``expand_terms`` (each monomial's product of atom expansions memoised, then scaled by
    the coefficient) is the product taken with the coefficient first, term by term."""
    from layoutc.ir.algebra.sym import expand as X
    from layoutc.ir.algebra.sym.expr import terms_of

    x = build(t1) * build(t2) + build(t1)
    const, terms = terms_of(x)
    acc: dict = {(): const} if const else {}
    for mono, k in terms:
        piece = X.const_poly(k)
        for atom, e in mono:
            xa = X.expand(atom)
            piece = X.pmul(piece, xa if e == 1 else X.ppow(xa, e))
        for m, c in piece:
            acc[m] = acc.get(m, 0) + c
    assert X.expand_terms(const, terms) == X.from_dict(acc)
