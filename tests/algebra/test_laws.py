"""Laws of the layout algebra, checked pointwise on random layouts (hypothesis).

These are CuTe's documented post-conditions (cute-docs/02_layout_algebra.md and the checked
post-conditions of CuTe's unit tests): composition is A(B(i)), coalesce and filter keep the
function, complement is ordered and disjoint, the inverses invert, divides and products keep
sizes and their mode relations. An operation may refuse (LayoutError) an inadmissible input,
but whatever it returns must satisfy the law.
"""

from __future__ import annotations

import random
from collections import Counter

from algebra_strategies import eval_raw, laws, layouts, random_layout, values
from hypothesis import assume, given
from hypothesis import strategies as st
from layoutc.ir.algebra import (
    E,
    Layout,
    LayoutError,
    as_arithmetic_tuple,
    blocked_product,
    coalesce,
    compatible,
    complement,
    composition,
    cosize,
    depth,
    filter,
    flat_divide,
    flat_product,
    flatten_to_tuple,
    get,
    left_inverse,
    logical_divide,
    logical_product,
    make_identity_layout,
    make_layout,
    make_ordered_layout,
    max_common_layout,
    max_common_vector,
    product,
    raked_product,
    rank,
    right_inverse,
    shape,
    size,
    tiled_divide,
    tiled_product,
    zipped_divide,
    zipped_product,
)

cotargets = st.sampled_from([1, 2, 4, 12, 24, 48, 96, (4, 6), (2, 3, 4)])


@laws
@given(layouts(), layouts())
def test_composition_is_function_composition(a: Layout, b: Layout):
    try:
        r = composition(a, b)
    except LayoutError:
        return
    assert compatible(b.shape, r.shape)
    assert values(r) == [eval_raw(a, x) for x in values(b)]


@laws
@given(layouts(), layouts(max_modes=2))
def test_composition_with_shape_tiler(a: Layout, b: Layout):
    assume(rank(a) >= rank(b))
    tiler = tuple(size(m) for m in b) if isinstance(b.shape, tuple) else (size(b),)
    try:
        r = composition(a, tiler)
    except LayoutError:
        return
    assert rank(r) == len(tiler)
    for i, n in enumerate(tiler):
        mode = get(a, i)
        assert values(get(r, i)) == [eval_raw(mode, x) for x in range(n)]


@laws
@given(layouts(max_modes=4))
def test_coalesce_keeps_the_function(a: Layout):
    c = coalesce(a)
    assert size(c) == size(a)
    assert depth(c) <= 1
    assert values(c) == values(a)
    # idempotent
    assert coalesce(c) == c


@laws
@given(layouts(max_modes=4))
def test_by_mode_coalesce_keeps_rank_and_function(a: Layout):
    profile = tuple(1 for _ in range(rank(a)))
    c = coalesce(a, profile)
    assert rank(c) == rank(a)
    assert values(c) == values(a)
    for i in range(rank(a)):
        assert size(c, i) == size(a, i)


@laws
@given(layouts(max_modes=4))
def test_filter_keeps_the_image(a: Layout):
    f = filter(a)
    assert set(values(f)) == set(values(a))
    assert depth(f) <= 1
    if len(set(values(a))) == size(a):  # injective: filter only drops size-1 modes
        assert values(f) == values(a)


@laws
@given(layouts(injective=True), cotargets)
def test_complement_is_ordered_and_disjoint(a: Layout, cotarget):
    try:
        r = complement(a, cotarget)
    except LayoutError:
        # only layouts whose modes overlap once sorted by stride are refused
        assert len(set(values(a))) < size(a) or _modes_interleave(a)
        return
    rv = values(r)
    assert all(rv[i - 1] < rv[i] for i in range(1, len(rv)))
    image = set(values(a))
    assert all(x not in image for x in rv[1:])

    whole = make_layout(a, r)
    assert cosize(whole) >= product(cotarget)
    assert size(r) >= product(cotarget) // size(filter(a))
    if size(filter(a)) * size(r) == size(whole) and len(set(values(a))) == size(a):
        assert len(set(values(whole))) == size(whole)  # A and its complement never collide


def _modes_interleave(a: Layout) -> bool:
    f = filter(a)
    pairs = sorted(zip(flatten_to_tuple(f.stride), flatten_to_tuple(f.shape)))
    return any(pairs[i][0] < pairs[i - 1][0] * pairs[i - 1][1] for i in range(1, len(pairs)))


@laws
@given(layouts(max_modes=4))
def test_right_inverse(a: Layout):
    r = right_inverse(a)
    assert all(eval_raw(a, r(i)) == i for i in range(size(r)))
    # CuTe: composition(a, right_inverse(a)) is the identity on the domain of the inverse
    assert values(composition(a, r)) == list(range(size(r)))


@laws
@given(layouts(max_modes=4, injective=True))
def test_left_inverse(a: Layout):
    assume(len(set(values(a))) == size(a))
    try:
        r = left_inverse(a)
    except LayoutError:
        return
    assert [eval_raw(r, x) for x in values(a)] == list(range(size(a)))


@laws
@given(layouts(), layouts(injective=True))
def test_logical_divide(a: Layout, b: Layout):
    try:
        d = logical_divide(a, b)
    except LayoutError:
        return
    assert rank(d) == 2
    assert compatible(b.shape, shape(d, 0))
    # A / B = A o (B, B*)
    rest = complement(b, coalesce(a).shape)
    assert values(d) == [eval_raw(a, x) for x in values(make_layout(b, rest))]
    assert values(get(d, 0)) == values(composition(a, b))
    if size(a) % size(b) == 0 and size(d) == size(a):
        assert sorted(values(d)) == sorted(values(a))


@laws
@given(layouts(injective=True), layouts())
def test_logical_product(a: Layout, b: Layout):
    try:
        p = logical_product(a, b)
    except LayoutError:
        return
    assert get(p, 0) == a
    assert size(p) == size(a) * size(b)
    assert compatible(b.shape, shape(p, 1))
    rest = complement(a, size(a) * cosize(b))
    assert values(get(p, 1)) == [eval_raw(rest, x) for x in values(b)]


def _tiler_for(a: Layout, rng: random.Random) -> tuple:
    """A by-mode tiler <B0, B1> whose modes tile the corresponding modes of a."""
    out = []
    for m in list(a)[: rng.randint(1, rank(a))]:
        n = size(m)
        divisors = [d for d in range(1, n + 1) if n % d == 0]
        d = rng.choice(divisors)
        out.append(Layout(d) if rng.random() < 0.7 else d)
    return tuple(out)


@laws
@given(st.integers(0, 2**32 - 1))
def test_divide_arrangements_are_the_same_function(seed: int):
    rng = random.Random(seed)
    a = random_layout(rng, max_modes=3, nested=False)
    assume(rank(a) >= 2)
    tiler = _tiler_for(a, rng)
    try:
        ld = logical_divide(a, tiler)
    except LayoutError:
        return
    zd, td, fd = zipped_divide(a, tiler), tiled_divide(a, tiler), flat_divide(a, tiler)
    assert size(zd) == size(ld) == size(a)
    assert Counter(values(zd)) == Counter(values(ld)) == Counter(values(a))
    # tiled and flat only unpack modes: the 1-D function of zipped_divide is unchanged
    assert values(td) == values(zd) == values(fd)
    assert rank(zd) == 2
    assert rank(td) == 1 + rank(zd, 1)
    for i, t in enumerate(tiler):
        assert size(zd, 0, i) == size(t)


@laws
@given(st.integers(0, 2**32 - 1))
def test_product_arrangements(seed: int):
    rng = random.Random(seed)
    a = random_layout(rng, max_modes=2, zero_stride=0.0, nested=False)
    b = random_layout(rng, max_modes=2, zero_stride=0.0, nested=False)
    try:
        blocked = blocked_product(a, b)
        raked = raked_product(a, b)
    except LayoutError:
        return
    r = max(rank(a), rank(b))
    assert rank(blocked) == rank(raked) == r
    assert size(blocked) == size(raked) == size(a) * size(b)
    assert Counter(values(blocked)) == Counter(values(raked))
    # blocked: mode i is (A_i, B_i); raked: (B_i, A_i)
    for i in range(r):
        assert size(blocked, i) == size(raked, i)
    if rank(a) == rank(b) == 2:
        tiler = (b[0], b[1])
        try:
            zp, tp, fp = zipped_product(a, tiler), tiled_product(a, tiler), flat_product(a, tiler)
        except LayoutError:
            return
        assert values(tp) == values(zp) == values(fp)
        assert size(zp) == size(a) * size(b)


@laws
@given(layouts(max_modes=3), st.integers(0, 2**32 - 1))
def test_max_common_vector(a: Layout, seed: int):
    # b: the same shape with compact strides in a random mode order (same size as a)
    rng = random.Random(seed)
    flat = flatten_to_tuple(a.shape)
    order = list(range(len(flat)))
    rng.shuffle(order)
    b = make_ordered_layout(flat, tuple(order))
    for x, y in ((a, b), (b, a), (a, a)):
        n = max_common_vector(x, y)
        common = max_common_layout(x, y)
        assert size(common) == n >= 1
        for i in range(size(common)):
            j = common(i)
            assert eval_raw(x, j) == i and eval_raw(y, j) == i


def _linear(coord, shape):
    """The colexicographic index of a coordinate value (ScaledBasis or arithmetic tuple)."""
    c = as_arithmetic_tuple(coord)
    if not isinstance(shape, tuple):
        return c
    c = tuple(c) if isinstance(c, tuple) else (c,)
    c = c + (0,) * (len(shape) - len(c))
    total, scale = 0, 1
    for ci, si in zip(c, shape):
        total += _linear(ci, si) * scale
        scale *= product(si)
    return total


@laws
@given(st.integers(0, 2**32 - 1))
def test_composition_with_coordinate_layouts(seed: int):
    """Basis strides: identity o B gives B's coordinates; A o (basis-strided B) reads A at them."""
    rng = random.Random(seed)
    a = random_layout(rng, max_modes=3, zero_stride=0.0)
    ident = make_identity_layout(a.shape)
    b = random_layout(rng, max_modes=2, zero_stride=0.0, sizes=(1, 2, 3, 4))
    if max(values(b)) < size(a):
        try:
            coords = composition(ident, b)
        except LayoutError:
            coords = None
        if coords is not None:
            assert [_linear(c, a.shape) for c in values(coords)] == values(b)
    # a view of A with its two modes exchanged, written with basis strides
    if rank(a) == 2:
        m, n = size(a, 0), size(a, 1)
        view = Layout((n, m), (E(1), E(0)))
        t = composition(a, view)
        assert [t(j, i) for i in range(m) for j in range(n)] == [
            a(i, j) for i in range(m) for j in range(n)
        ]
