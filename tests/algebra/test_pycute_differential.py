"""Differential tests against NVIDIA's pycute on thousands of random integer layouts.

Layouts are compared as functions on the domain where both definitions agree on what the
function is. Where pycute and CuTe C++ differ, we check the C++ semantics and say so:

- coalesce_x: C++ composition keeps the last stride of A beyond A's domain (a trailing size-1
  mode still extrapolates with its stride); pycute coalesces it away. Outside size(A) the two
  therefore extrapolate differently, so composition is compared where B's image lies in A's
  domain.
- composition: pycute requires `shape % stride == 0 or stride % shape == 0` at every step; C++
  also accepts a stride that does not divide a mode when all remaining elements fit in it
  (e.g. (3,5):(1,10) o 2:2 = 2:2). We never refuse a composition that pycute computes correctly.
- complement: pycute and C++ agree on integer cotargets.
- right_inverse: pycute stops at the first stride that does not chain from 1 (a stride-0 mode
  sorts first and stops it at once); C++ skips non-matching strides.
- left_inverse: pycute's left_inverse is right_inverse(make_layout(L, complement(L)))
  which can give other strides to size-1 or unused modes; we compare the inverse property and,
  for the right inverse, the size.
- logical_divide: C++ complements the tiler against shape(coalesce(A)), pycute against size(A);
  identical for integer layouts whenever the composition is admissible.
- logical_product: pycute's integer tiler case calls logical_divide (a bug); we use layout tilers
  for pycute and test the C++ semantics for integer tilers separately.
"""

from __future__ import annotations

import random
from collections import Counter

import pycute
import pytest
from algebra_strategies import (
    DIFF_TRIALS,
    SMALL,
    eval_raw,
    pycute_values,
    random_layout,
    to_pycute,
    values,
)
from layoutc.ir.algebra import (
    Layout,
    LayoutError,
    coalesce,
    complement,
    composition,
    cosize,
    flatten_to_tuple,
    get,
    left_inverse,
    logical_divide,
    logical_product,
    make_layout,
    right_inverse,
    size,
    tiled_divide,
    tiled_product,
    zipped_divide,
    zipped_product,
)


def _layout_from_pycute(p) -> Layout:
    return Layout(p.shape, p.stride)


@pytest.fixture
def rng() -> random.Random:
    return random.Random(20261121)


def test_coalesce_matches_pycute(rng: random.Random):
    for _ in range(DIFF_TRIALS):
        a = random_layout(rng, max_modes=4)
        ours = coalesce(a)
        theirs = pycute.coalesce(to_pycute(a))
        # identical layouts, not only the same function
        assert ours == _layout_from_pycute(theirs), (a, ours, theirs)


def test_coalesce_by_mode_matches_pycute(rng: random.Random):
    for _ in range(DIFF_TRIALS // 2):
        a = random_layout(rng, max_modes=4, nested=True)
        if not isinstance(a.shape, tuple):
            continue
        profile = (1,) * len(a.shape)
        assert values(coalesce(a, profile)) == pycute_values(pycute.coalesce(to_pycute(a), profile))


def test_composition_matches_pycute(rng: random.Random):
    agreed = 0
    for _ in range(DIFF_TRIALS * 2):
        a = random_layout(rng)
        b = random_layout(rng)
        if max(values(b)) >= size(a):
            continue  # extrapolation outside A differs by design (coalesce_x), see module doc
        truth = [eval_raw(a, x) for x in values(b)]
        try:
            theirs = pycute.composition(to_pycute(a), to_pycute(b))
            pycute_ok = pycute_values(theirs) == truth
        except AssertionError:
            pycute_ok = False
        try:
            ours = composition(a, b)
        except LayoutError:
            assert not pycute_ok, f"we refuse {a} o {b} but pycute computes it: {theirs}"
            continue
        assert values(ours) == truth, (a, b, ours)
        agreed += pycute_ok
    assert agreed > DIFF_TRIALS // 2


def test_composition_pycute_refuses_but_cpp_defines():
    # stride 2 does not divide mode 0 (size 3) but both elements fit in it
    a, b = Layout((3, 5), (1, 10)), Layout(2, 2)
    with pytest.raises(AssertionError):
        pycute.composition(to_pycute(a), to_pycute(b))
    r = composition(a, b)
    assert str(r) == "2:2"
    assert values(r) == [0, 2]


def test_complement_matches_pycute(rng: random.Random):
    for _ in range(DIFF_TRIALS):
        a = random_layout(rng, zero_stride=0.1)
        cotarget = rng.choice([1, 2, 5, 8, 12, 24, 48, 96, 128])
        try:
            ours = complement(a, cotarget)
        except LayoutError:
            continue  # pycute does not check injectivity; our refusal is tested in test_laws
        theirs = pycute.complement(to_pycute(a), cotarget)
        assert values(ours) == pycute_values(theirs), (a, cotarget, ours, theirs)


def test_right_inverse_matches_pycute(rng: random.Random):
    for _ in range(DIFF_TRIALS):
        a = random_layout(rng, zero_stride=0.1)
        ours = right_inverse(a)
        theirs = pycute.right_inverse(to_pycute(a))
        assert all(eval_raw(a, x) == i for i, x in enumerate(values(ours)))
        if 0 in flatten_to_tuple(coalesce(a).stride):
            # pycute stops at the first stride that does not chain, and a stride-0 mode sorts
            # first; C++ skips it and keeps chaining, so its inverse is at least as large.
            assert size(ours) >= pycute.size(theirs)
            continue
        assert size(ours) == pycute.size(theirs), (a, ours, theirs)
        assert values(ours) == pycute_values(theirs), (a, ours, theirs)


def test_left_inverse_against_pycute(rng: random.Random):
    checked = 0
    for _ in range(DIFF_TRIALS):
        a = random_layout(rng, zero_stride=0.0, gaps=(1, 1, 2))
        image = values(a)
        if len(set(image)) != len(image):
            continue
        theirs = pycute.left_inverse(to_pycute(a))
        try:
            ours = left_inverse(a)
        except LayoutError:
            continue  # C++'s divisibility condition (pycute computes something else)
        # both invert on the image; strides of size-1/unused modes may differ (C++ wins)
        assert [eval_raw(ours, x) for x in image] == list(range(size(a)))
        assert [theirs(x) for x in image] == list(range(size(a)))
        checked += 1
    assert checked > DIFF_TRIALS // 4


def test_logical_divide_matches_pycute(rng: random.Random):
    agreed = 0
    for _ in range(DIFF_TRIALS):
        a = random_layout(rng, zero_stride=0.1)
        b = random_layout(rng, zero_stride=0.0, nested=False)
        try:
            ours = logical_divide(a, b)
        except LayoutError:
            continue
        try:
            theirs = pycute.logical_divide(to_pycute(a), to_pycute(b))
        except AssertionError:
            continue
        # compare where the divide stays inside A's domain
        mine, other = values(ours), pycute_values(theirs)
        tiler = make_layout(b, complement(b, coalesce(a).shape))
        inside = [i for i, x in enumerate(values(tiler)) if x < size(a)]
        if len(other) == len(mine):
            assert [mine[i] for i in inside] == [other[i] for i in inside], (a, b, ours, theirs)
            agreed += 1
    assert agreed > DIFF_TRIALS // 4


def test_logical_product_matches_pycute(rng: random.Random):
    agreed = 0
    for _ in range(DIFF_TRIALS):
        a = random_layout(rng, zero_stride=0.0, sizes=SMALL)
        b = random_layout(rng, zero_stride=0.1, sizes=SMALL)
        try:
            ours = logical_product(a, b)
        except LayoutError:
            continue
        try:
            theirs = pycute.logical_product(to_pycute(a), to_pycute(b))
        except AssertionError:  # pycute's stricter composition condition
            rest = complement(a, size(a) * cosize(b))
            assert get(ours, 0) == a
            assert values(get(ours, 1)) == [eval_raw(rest, x) for x in values(b)]
            continue
        assert values(ours) == pycute_values(theirs), (a, b, ours, theirs)
        agreed += 1
    assert agreed > DIFF_TRIALS // 4


def test_logical_product_integer_tiler_is_a_product_not_a_divide():
    # pycute's logical_product(A, int) calls logical_divide: C++ makes a layout of the int.
    a = Layout((2, 2), (4, 1))
    ours = logical_product(a, 6)
    assert str(ours) == "((2,2),(2,3)):((4,1),(2,8))"
    assert size(ours) == 24
    theirs = pycute.logical_product(to_pycute(a), 6)
    assert pycute.size(theirs) != 24


def _random_tiler(rng: random.Random, a: Layout) -> tuple:
    modes = list(a)
    out = []
    for m in modes[: rng.randint(1, len(modes))]:
        n = size(m)
        d = rng.choice([k for k in range(1, n + 1) if n % k == 0])
        out.append(
            Layout(d, 1)
            if rng.random() < 0.5
            else Layout(d, rng.choice([1, 2]) if n % (2 * d) == 0 else 1)
        )
    return tuple(out)


def test_zipped_and_tiled_variants_match_pycute(rng: random.Random):
    agreed = 0
    for _ in range(DIFF_TRIALS // 2):
        a = random_layout(rng, max_modes=3, zero_stride=0.1, nested=False, sizes=SMALL)
        if not isinstance(a.shape, tuple):
            continue
        tiler = _random_tiler(rng, a)
        ptiler = tuple(to_pycute(t) for t in tiler)
        for ours_fn, theirs_fn in (
            (zipped_divide, pycute.zipped_divide),
            (tiled_divide, pycute.tiled_divide),
            (zipped_product, pycute.zipped_product),
            (tiled_product, pycute.tiled_product),
        ):
            try:
                ours = ours_fn(a, tiler)
            except LayoutError:
                continue
            try:
                theirs = theirs_fn(to_pycute(a), ptiler)
            except AssertionError:
                continue
            mine, other = values(ours), pycute_values(theirs)
            assert Counter(mine) == Counter(other), (ours_fn.__name__, a, tiler, ours, theirs)
            assert mine == other, (ours_fn.__name__, a, tiler, ours, theirs)
            agreed += 1
    assert agreed > DIFF_TRIALS // 8
