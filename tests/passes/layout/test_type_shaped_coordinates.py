"""The analysis addresses a tensor in its type's shape, and the walk of an algorithm never
builds a coordinate of another shape (tile accesses verify coordinates against the type)."""

from __future__ import annotations

from layoutc.ir.algebra import composition, make_layout
from layoutc.ir.algebra.symbolic import Symbol
from layoutc.passes.analysis.conform import conform_to_type, fits_shape
from layoutc.passes.layout.traversal import plan_walk

S = Symbol("S", lower=1)
PAIRS = make_layout((2, 8), (1, 2))
# what the analysis computes for ((4,2,2)):((1,S,2S)) o (2,8):(1,2): it sees 2S = 2*S
MERGED = composition(make_layout(((4, 2, 2),), ((1, S, 2 * S),)), PAIRS)
TYPED = make_layout((2, (2, 2, 2)), (1, (2, Symbol("A0"), Symbol("A1"))))


def test_the_analysis_merges_what_the_type_keeps_apart():
    assert str(MERGED) == "(2,(2,4)):(1,(2,S))"
    assert not fits_shape(MERGED, TYPED.shape)


def test_conforming_gives_the_type_shape_and_keeps_every_offset():
    conformed = conform_to_type(MERGED, TYPED)
    assert str(conformed) == "(2,(2,2,2)):(1,(2,S,2*S))"
    for i in range(16):
        assert conformed(i) == MERGED(i)


def test_a_shape_with_run_time_extents_is_left_alone():
    """``(?,?)`` over a merged ``6`` could be (2,3), (3,2), (6,1)...: not guessed."""
    n = Symbol("N", lower=1)
    merged = make_layout(6 * n, 1)
    typed = make_layout((Symbol("d0"), Symbol("d1")), (1, Symbol("d2")))
    assert conform_to_type(merged, typed) is merged


def test_a_walk_gives_the_1d_index_to_a_tensor_shaped_unlike_its_type():
    walk = plan_walk([MERGED, MERGED], None, [TYPED, MERGED])
    assert walk.maps[0] is None and walk.maps[1] is not None
    point = [0] * len(walk.extents)
    assert walk.coordinate(0, point) == 0
    assert isinstance(walk.coordinate(1, point), tuple)


def test_a_walk_of_conforming_tensors_gives_natural_coordinates():
    conformed = conform_to_type(MERGED, TYPED)
    walk = plan_walk([conformed, conformed], PAIRS, [TYPED, TYPED])
    assert all(m is not None for m in walk.maps)
    seen = set()
    for p1 in range(2):
        for p2 in range(2):
            for p3 in range(2):
                point = [0, p1, p2, p3]
                c = walk.coordinate(0, point)
                assert isinstance(c, tuple) and len(c[1]) == 3  # (lane, (a, b, c))
                seen.add(conformed(c))
    assert len(seen) == 8  # each pair once
