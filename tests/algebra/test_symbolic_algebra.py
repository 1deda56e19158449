"""The algebra on layouts with symbolic entries.

The oracle is the integer algebra: build a layout with symbols, run an operation, then for
random admissible values of the symbols compare the substituted symbolic result with the
operation run on the substituted (integer) inputs, as functions. Conditions that cannot be
proven from the symbols' assumptions must raise a LayoutError that names the condition.
"""

from __future__ import annotations

import random

import pytest
from algebra_strategies import CI, values
from layoutc.ir.algebra import (
    Layout,
    LayoutError,
    blocked_product,
    coalesce,
    complement,
    composition,
    cosize,
    left_inverse,
    logical_divide,
    logical_product,
    make_layout,
    max_common_vector,
    parse_layout,
    raked_product,
    right_inverse,
    size,
    tile_to_shape,
    zipped_divide,
)
from layoutc.ir.algebra import inttuple as it
from layoutc.ir.algebra.symbolic import Symbol, evaluate

N = Symbol("N", divisible_by=8)
M = Symbol("M", divisible_by=4)
K = Symbol("K")  # any positive extent
P = Symbol("P", divisible_by=16, upper=256)
SYMBOLS = (N, M, K, P)

ROUNDS = 15 if CI else 40


def admissible_values(rng: random.Random) -> dict:
    return {
        N: 8 * rng.randint(1, 6),
        M: 4 * rng.randint(1, 6),
        K: rng.randint(1, 20),
        P: 16 * rng.randint(1, 8),
    }


def subst(x, env: dict):
    """Substitute ints for the symbols in a layout, tuple, tiler or value."""
    if isinstance(x, Layout):
        return Layout(subst(x.shape, env), subst(x.stride, env))
    if isinstance(x, tuple):
        return tuple(subst(e, env) for e in x)
    if type(x) is int or x is None:
        return x
    return evaluate(x, env)


def same_as_integer_result(op, args: tuple, rng: random.Random) -> None:
    """op(*args) with symbols agrees with op on integers for random admissible values."""
    result = op(*args)
    for _ in range(ROUNDS):
        env = admissible_values(rng)
        expected = op(*(subst(a, env) for a in args))
        got = subst(result, env)
        if isinstance(expected, Layout):
            assert size(got) == size(expected), (op.__name__, args, result, env)
            assert values(got) == values(expected), (op.__name__, args, result, env)
        else:
            assert got == expected, (op.__name__, args, result, env)


@pytest.fixture
def rng() -> random.Random:
    return random.Random(7)


def test_symbolic_layout_basics():
    a = Layout((N, 8), (1, N))
    assert str(a) == "(N,8):(1,N)"
    assert size(a) == 8 * N
    assert cosize(a) == 8 * N
    assert a(3, 2) == 2 * N + 3
    assert str(parse_layout("(N,8):(8,1)")) == "(N,8):(8,1)"
    assert str(parse_layout("(4*N + 2,8):(8,1)")) == "(4*N + 2,8):(8,1)"


@pytest.mark.parametrize(
    ("layout", "tiler"),
    [
        (Layout((N, 8), (1, N)), (4, 2)),
        (Layout((N, 8), (1, N)), (Layout(4, 2), Layout(2, 1))),
        (Layout((8, N), (N, 1)), (2, 8)),
        (Layout((N, M), (1, 2 * N)), (8, 4)),
        (Layout(((2, N), M), ((1, 2), 4 * N)), (16, 4)),
        (Layout((P, 3), (3, 1)), (16, 3)),
        (Layout((N, 8), (1, 2 * N)), 4),  # the rest (N//4, 8) needs `N//4 | 2N`, proven as `N | 8N`
        (Layout((N, 8), (1, 2 * N)), Layout((4, 2), (1, 4))),
    ],
)
def test_divides_agree_with_integers(layout: Layout, tiler, rng: random.Random):
    same_as_integer_result(logical_divide, (layout, tiler), rng)
    same_as_integer_result(zipped_divide, (layout, tiler), rng)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (Layout((N, 8), (1, 2 * N)), Layout(4, 1)),
        (Layout((N, 8), (1, 2 * N)), Layout((4, 2), (2, 1))),
        (Layout((N, 8), (8, 1)), Layout((8, 4), (N, 1))),
        (Layout((M, K), (1, M)), Layout((M, K), (K, 1))),
        (Layout(8 * N, 1), Layout((N, 8), (8, 1))),
        (Layout((2, N), (N, 1)), Layout((N, 2), (2, 1))),
    ],
)
def test_composition_agrees_with_integers(a: Layout, b: Layout, rng: random.Random):
    same_as_integer_result(composition, (a, b), rng)


@pytest.mark.parametrize(
    "layout",
    [
        Layout((N, 8), (1, N)),
        Layout((8, N), (N, 1)),
        Layout((M, 4, K), (4, 1, 4 * M)),
        Layout((2, N), (1, 4)),
    ],
)
def test_coalesce_and_inverses_agree_with_integers(layout: Layout, rng: random.Random):
    same_as_integer_result(coalesce, (layout,), rng)
    same_as_integer_result(right_inverse, (layout,), rng)
    same_as_integer_result(left_inverse, (layout,), rng)


@pytest.mark.parametrize(
    ("layout", "cotarget"),
    [
        (Layout(4, 1), N),
        (Layout((2, 4), (1, 8)), 8 * N),
        (Layout(8, 1), (N, M)),
        (Layout(N, 1), 4 * N),
    ],
)
def test_complement_agrees_with_integers(layout: Layout, cotarget, rng: random.Random):
    same_as_integer_result(complement, (layout, cotarget), rng)


@pytest.mark.parametrize(
    ("block", "tiler"),
    [
        (Layout(4, 1), Layout(N, 1)),
        (Layout((2, 2), (1, 2)), Layout((M, N))),
        (Layout((N, 2), (1, N)), Layout(4, 1)),
    ],
)
def test_products_agree_with_integers(block: Layout, tiler: Layout, rng: random.Random):
    same_as_integer_result(logical_product, (block, tiler), rng)
    same_as_integer_result(blocked_product, (block, tiler), rng)
    same_as_integer_result(raked_product, (block, tiler), rng)


def test_tile_to_shape_with_symbolic_target(rng: random.Random):
    same_as_integer_result(tile_to_shape, (Layout((8, 4), (4, 1)), (N, M)), rng)


def test_evaluation_at_symbolic_coordinates():
    t = Symbol("t", positive=False, lower=0, upper=31)
    lay = Layout((4, 8), (8, 1))
    value = lay(t)
    for x in range(32):
        assert evaluate(value, {t: x}) == lay(x)
    assert str(Layout((N, 8), (1, N))(K)) == "K"  # (K % N) + (K // N) * N


def test_example59_activation_tiling_with_symbolic_batch(rng: random.Random):
    # im2col activation ((N,Z,P,Q),(C,T,R,S)) with D,H,W = 6,4,4, C = 64; N a multiple of 4.
    n = Symbol("N", divisible_by=4)
    act = make_layout(((n, 4, 2, 2), (64, 3, 3, 3)), ((6144, 1024, 256, 64), (1, 1024, 256, 64)))
    tiler = ((4, 4, 2, 2), (32, 1, 1, 1))
    tiled = zipped_divide(act, tiler)
    assert it.product(tiled.shape[0]) == 64 * 32  # 4 images x 16 output positions, 32 channels
    rest_m = tiled.shape[1][0]
    assert it.product(rest_m) == n // 4
    for value in (4, 8, 12):
        static = zipped_divide(subst(act, {n: value}), tiler)
        assert values(subst(tiled, {n: value})) == values(static)


# -- conditions that cannot be proven -------------------------------------------------------------


def test_unprovable_order_in_composition_is_named():
    a = Layout((K, 8), (1, 2 * K))  # K may be smaller or larger than 4
    with pytest.raises(LayoutError, match=r"composition\(.*cannot order"):
        composition(a, Layout(4, 1))


def test_shape_dependent_result_is_refused():
    # 4 rows of stride 8 in (N,8):(8,1): for N == 8 they leave mode 0, for N >= 32 they do not
    with pytest.raises(LayoutError, match=r"cannot order N // 8 .* and 4"):
        composition(Layout((N, 8), (8, 1)), Layout((8, 4), (1, 8)))


def test_unprovable_divisibility_in_composition_is_named():
    a = Layout((M, 8), (1, 2 * M))  # 8 elements from a mode of M (a multiple of 4) elements
    with pytest.raises(LayoutError, match=r"composition\(.*(cannot order|divisib)"):
        composition(a, Layout(8, 1))
    # with M a multiple of 8 it is provable
    m8 = Symbol("M8", divisible_by=8)
    assert str(composition(Layout((m8, 8), (1, 2 * m8)), Layout(8, 1))) == "8:1"


def test_unprovable_stride_order_in_complement_is_named():
    s = Symbol("S", positive=False, lower=1, upper=64)
    with pytest.raises(LayoutError, match=r"complement\(.*(cannot|order)"):
        complement(Layout((4, 2), (1, s)), 64)


def test_unprovable_divisibility_in_tile_to_shape_is_named():
    with pytest.raises(LayoutError, match=r"tile_to_shape.*cannot prove that 4 divides K"):
        tile_to_shape(Layout((4, 4)), (K, 8))


def test_unprovable_cover_of_a_tuple_cotarget_is_named():
    # 8 does not split M (a multiple of 4) evenly: how (M,N) is covered depends on M
    with pytest.raises(LayoutError, match=r"complement\(8:1, \(M,N\)\): cannot prove"):
        complement(Layout(8, 1), (M, N))


def test_unprovable_left_inverse_condition_is_named():
    s = Symbol("S2", positive=False, lower=1, upper=64)
    with pytest.raises(LayoutError, match=r"left_inverse\("):
        left_inverse(Layout((4, 2), (1, s)))


def test_symbolic_vector_width_is_a_static_divisor():
    a = Layout((N, 8), (1, N))
    assert max_common_vector(a, a) == 64  # 8*N contiguous elements, N a multiple of 8
    assert max_common_vector(Layout((K, 8), (1, K)), Layout((K, 8), (1, K))) == 8
    assert max_common_vector(Layout((N, 8), (1, N)), Layout((N, 8), (8, 1))) == 1


def test_symbolic_shape_entries_must_be_positive_integers():
    with pytest.raises(LayoutError, match="positive"):
        Layout((0, 4))
    with pytest.raises(LayoutError, match="integer"):
        Layout((4.0, 4))
