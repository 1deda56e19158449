"""Every worked example of CuTe's documentation (cute-docs/01_layout.md, 02_layout_algebra.md)
and of the seed texts, with the result they print.

CuTe prints static integers as `_N`; we compare against the text without the markers, except
where a test checks the markers themselves. Where CuTe's example uses dynamic integers (which
keep size-1 modes, e.g. `((5,1),(2,2))`), our integers are static and we check the static result
and the function.
"""

from __future__ import annotations

import pytest
from algebra_strategies import same_function, values
from layoutc.ir.algebra import (
    Layout,
    LayoutLeft,
    LayoutRight,
    _,
    append,
    coalesce,
    compatible,
    complement,
    composition,
    cosize,
    crd2idx,
    depth,
    flatten,
    get,
    group,
    idx2crd,
    logical_divide,
    logical_product,
    make_layout,
    parse_layout,
    prepend,
    print_layout,
    rank,
    replace,
    select,
    shape,
    shape_div,
    size,
    slice_,
    stride,
    take,
    zipped_divide,
)


def L(text: str) -> Layout:
    return parse_layout(text)


# -- 01_layout.md -------------------------------------------------------------------------------


def test_constructing_layouts_print_as_cute():
    # s8, d8, s2xs4, s2xd4, s2xd4_a, s2xd4_col, s2xd4_row, s2xh4, s2xh4_col
    assert make_layout(8).format(static_markers=True) == "_8:_1"
    assert str(make_layout(8)) == "8:1"
    assert str(make_layout((2, 4))) == "(2,4):(1,2)"
    assert str(make_layout((2, 4), (12, 1))) == "(2,4):(12,1)"
    assert str(make_layout((2, 4), LayoutLeft)) == "(2,4):(1,2)"
    assert str(make_layout((2, 4), LayoutRight)) == "(2,4):(4,1)"
    s2xh4 = make_layout((2, (2, 2)), (4, (2, 1)))
    assert str(s2xh4) == "(2,(2,2)):(4,(2,1))"
    assert str(make_layout(shape(s2xh4), LayoutLeft)) == "(2,(2,2)):(1,(2,4))"
    # "the strides of s2xh4 above could be generated with LayoutRight"
    assert make_layout(shape(s2xh4), LayoutRight) == s2xh4


def test_print2d_and_print1d():
    def print2d(lay):
        return [[lay(m, n) for n in range(size(lay, 1))] for m in range(size(lay, 0))]

    s2xs4 = make_layout((2, 4))
    s2xd4_a = make_layout((2, 4), (12, 1))
    s2xh4_col = make_layout((2, (2, 2)), LayoutLeft)
    s2xh4 = make_layout((2, (2, 2)), (4, (2, 1)))
    assert print2d(s2xs4) == [[0, 2, 4, 6], [1, 3, 5, 7]]
    assert print2d(s2xd4_a) == [[0, 1, 2, 3], [12, 13, 14, 15]]
    assert print2d(s2xh4_col) == [[0, 2, 4, 6], [1, 3, 5, 7]]
    assert print2d(s2xh4) == [[0, 2, 1, 3], [4, 6, 5, 7]]
    assert values(s2xs4) == [0, 1, 2, 3, 4, 5, 6, 7]
    assert values(s2xd4_a) == [0, 12, 1, 13, 2, 14, 3, 15]
    assert values(s2xh4_col) == [0, 1, 2, 3, 4, 5, 6, 7]
    assert values(s2xh4) == [0, 4, 2, 6, 1, 5, 3, 7]


def test_print_layout_table():
    expected = """\
(2,(2,2)):(4,(2,1))
      0   1   2   3
    +---+---+---+---+
 0  | 0 | 2 | 1 | 3 |
    +---+---+---+---+
 1  | 4 | 6 | 5 | 7 |
    +---+---+---+---+
"""
    text = print_layout(make_layout((2, (2, 2)), (4, (2, 1))))
    assert [line.rstrip() for line in text.splitlines()] == expected.splitlines()


def test_vector_layouts():
    assert values(L("8:1")) == list(range(8))
    assert values(L("8:2")) == [0, 2, 4, 6, 8, 10, 12, 14]
    assert values(L("((4,2)):((2,1))")) == [0, 2, 4, 6, 1, 3, 5, 7]
    assert values(L("((4,2)):((1,4))")) == list(range(8))
    assert same_function(L("((4,2)):((1,4))"), L("8:1"))


def test_matrix_examples():
    def table(lay):
        return [[lay(m, n) for n in range(size(lay, 1))] for m in range(size(lay, 0))]

    assert table(L("(4,2):(1,4)")) == [[0, 4], [1, 5], [2, 6], [3, 7]]
    assert table(L("(4,2):(2,1)")) == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert table(L("((2,2),2):((4,1),2)")) == [[0, 2], [4, 6], [1, 3], [5, 7]]


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (24, 32, False),
        (24, (4, 6), True),
        ((4, 6), ((2, 2), 6), True),
        (((2, 2), 6), ((2, 2), (3, 2)), True),
        (24, ((2, 2), (3, 2)), True),
        (24, ((2, 3), 4), True),
        (((2, 3), 4), ((2, 2), (3, 2)), False),
        (((2, 2), (3, 2)), ((2, 3), 4), False),
        (24, (24,), True),
        ((24,), 24, False),
        ((24,), (4, 6), False),
    ],
)
def test_layout_compatibility_examples(a, b, expected: bool):
    assert compatible(a, b) is expected


def test_coordinate_mapping_table():
    # Shape (3,(2,3)): 1-D, 2-D and natural coordinates.
    shp = (3, (2, 3))
    natural = [idx2crd(i, shp) for i in range(18)]
    assert natural[:9] == [
        (0, (0, 0)),
        (1, (0, 0)),
        (2, (0, 0)),
        (0, (1, 0)),
        (1, (1, 0)),
        (2, (1, 0)),
        (0, (0, 1)),
        (1, (0, 1)),
        (2, (0, 1)),
    ]
    assert natural[16] == (1, (1, 2))
    assert idx2crd(16, shp) == (1, (1, 2))
    assert idx2crd((1, 5), shp) == (1, (1, 2))
    assert idx2crd((1, (1, 2)), shp) == (1, (1, 2))


def test_index_mapping():
    shp, std = (3, (2, 3)), (3, (12, 1))
    assert crd2idx(16, shp, std) == 17
    assert crd2idx((1, 5), shp, std) == 17
    assert crd2idx((1, (1, 2)), shp, std) == 17
    lay = make_layout(shp, std)
    table = [[lay(i, j) for j in range(6)] for i in range(3)]
    assert table == [[0, 12, 1, 13, 2, 14], [3, 15, 4, 16, 5, 17], [6, 18, 7, 19, 8, 20]]


def test_sublayouts():
    a = make_layout((4, (3, 6)))
    assert str(a) == "(4,(3,6)):(1,(4,12))"
    assert str(get(a, 0)) == "4:1"
    assert str(get(a, 1)) == "(3,6):(4,12)"
    assert str(get(a, 1, 0)) == "3:4"
    assert str(get(a, 1, 1)) == "6:12"
    assert a[1, 0] == get(a, 1, 0)
    b = make_layout((2, 3, 5, 7))
    assert str(b) == "(2,3,5,7):(1,2,6,30)"
    assert str(select(b, 1, 3)) == "(3,7):(2,30)"
    assert str(select(b, 0, 1, 3)) == "(2,3,7):(1,2,30)"
    assert str(select(b, 2)) == "(5):(6)"
    assert str(take(b, 1, 3)) == "(3,5):(2,6)"
    assert str(take(b, 1, 4)) == "(3,5,7):(2,6,30)"
    assert b[1:3] == take(b, 1, 3)


def test_concatenation():
    a, b = L("3:1"), L("4:3")
    row = make_layout(a, b)
    col = make_layout(b, a)
    assert str(row) == "(3,4):(1,3)"
    assert str(col) == "(4,3):(3,1)"
    assert str(make_layout(row, col)) == "((3,4),(4,3)):((1,3),(3,1))"
    aa = make_layout(a)
    assert str(aa) == "(3):(1)"
    assert str(make_layout(aa)) == "((3)):((1))"
    assert str(make_layout(a, make_layout(a), a)) == "(3,(3),3):(1,(1),1)"
    ab = append(a, b)
    assert str(ab) == "(3,4):(1,3)"
    assert str(prepend(a, b)) == "(4,3):(3,1)"
    c = append(ab, ab)
    assert str(c) == "(3,4,(3,4)):(1,3,(1,3))"
    assert str(replace(c, 2, b)) == "(3,4,4):(1,3,3)"


def test_grouping_and_flattening():
    a = make_layout((2, 3, 5, 7))
    b = group(a, 0, 2)
    assert b.format(True) == "((_2,_3),_5,_7):((_1,_2),_6,_30)"
    c = group(b, 1, 3)
    assert str(c) == "((2,3),(5,7)):((1,2),(6,30))"
    assert str(flatten(b)) == "(2,3,5,7):(1,2,6,30)"
    assert str(flatten(c)) == "(2,3,5,7):(1,2,6,30)"


def test_rank_depth_size_cosize():
    lay = L("(3,(6,2),8):(1,(3,18),36)")
    assert rank(lay) == 3
    assert depth(lay) == 2
    assert size(lay) == 288
    assert cosize(lay) == lay(size(lay) - 1) + 1
    assert rank(L("6:1")) == 1 and depth(L("6:1")) == 0


# -- 02_layout_algebra.md -----------------------------------------------------------------------


def test_coalesce_examples():
    a = make_layout((2, (1, 6)), (1, (6, 2)))
    assert str(coalesce(a)) == "12:1"
    assert str(coalesce(a, (1, 1))) == "(2,6):(1,2)"
    same = make_layout(coalesce(get(a, 0)), coalesce(get(a, 1)))
    assert coalesce(a, (1, 1)) == same
    assert str(coalesce(L("(2,4):(1,2)"))) == "8:1"


def test_composition_worked_example_1():
    a = L("(6,2):(8,2)")
    b = L("(4,3):(3,1)")
    r = composition(a, b)
    assert str(r) == "((2,2),3):((24,2),8)"
    assert [r(i) for i in range(12)] == [0, 24, 2, 26, 8, 32, 10, 34, 16, 40, 18, 42]
    # the two sub-steps
    assert str(composition(a, L("4:3"))) == "(2,2):(24,2)"
    assert str(composition(a, L("3:1"))) == "3:8"


@pytest.mark.parametrize(
    ("shape", "d", "divided"),
    [
        ((6, 2), 2, (3, 2)),
        ((6, 2), 3, (2, 2)),
        ((6, 2), 6, (1, 2)),
        ((6, 2), 12, (1, 1)),
        ((3, 6, 2, 8), 3, (1, 6, 2, 8)),
        ((3, 6, 2, 8), 6, (1, 3, 2, 8)),
        ((3, 6, 2, 8), 9, (1, 2, 2, 8)),
        ((3, 6, 2, 8), 72, (1, 1, 1, 4)),
    ],
)
def test_dividing_out_a_stride(shape: tuple, d: int, divided: tuple):
    assert shape_div(shape, d) == divided


@pytest.mark.parametrize(
    ("shape", "n", "modded"),
    [
        ((6, 2), 2, (2, 1)),
        ((6, 2), 3, (3, 1)),
        ((6, 2), 6, (6, 1)),
        ((6, 2), 12, (6, 2)),
        ((3, 6, 2, 8), 6, (3, 2, 1, 1)),
        ((3, 6, 2, 8), 9, (3, 3, 1, 1)),
        ((1, 2, 2, 8), 2, (1, 2, 1, 1)),
        ((1, 2, 2, 8), 16, (1, 2, 2, 4)),
    ],
)
def test_modding_out_a_size(shape: tuple, n: int, modded: tuple):
    # "keep the first n elements": composing with n:1 takes the modded-out modes of A
    strides = tuple(7**i for i in range(len(shape)))  # coprime strides: nothing coalesces
    r = composition(make_layout(shape, strides), Layout(n, 1))
    kept = [(s, d) for s, d in zip(modded, strides) if s != 1]
    if len(kept) == 1:
        expected = Layout(*kept[0])
    else:
        expected = make_layout(tuple(s for s, _d in kept), tuple(d for _s, d in kept))
    assert r == expected


def test_composition_divide_and_mod_out():
    # (3,6,2,8):(w,x,y,z) o 16:9 = (1,2,2,4):(9*w,3*x,y,z); with coprime strides w,x,y,z the
    # size-1 mode is dropped.
    a = make_layout((3, 6, 2, 8), (2, 7, 11, 13))
    r = composition(a, L("16:9"))
    assert str(r) == "(2,2,4):(21,11,13)"


def test_composition_reshape_examples():
    assert str(composition(L("20:2"), L("(5,4):(4,1)"))) == "(5,4):(8,2)"
    # CuTe prints (_5,(_2,_2)):(_16,(_80,_4)) for static integers.
    r = composition(L("(10,2):(16,4)"), L("(5,4):(1,5)"))
    assert r.format(static_markers=True) == "(_5,(_2,_2)):(_16,(_80,_4))"
    # The dynamic version ((5,1),(2,2)):((16,4),(80,4)) is the same function.
    assert same_function(r, L("((5,1),(2,2)):((16,4),(80,4))"))


def test_by_mode_composition():
    a = L("(12,(4,8)):(59,(13,1))")
    tiler = (L("3:4"), L("8:2"))
    r = composition(a, tiler)
    assert str(r) == "(3,(2,4)):(236,(26,1))"
    assert r == make_layout(composition(get(a, 0), tiler[0]), composition(get(a, 1), tiler[1]))
    assert str(composition(a, (3, 8))) == "(3,(4,2)):(59,(13,1))"


def test_complement_examples():
    assert str(complement(L("4:1"), 24)) == "6:4"
    assert str(complement(L("6:4"), 24)) == "4:1"
    assert str(complement(L("(4,6):(1,4)"), 24)) == "1:0"
    assert str(complement(L("4:2"), 24)) == "(2,3):(1,8)"
    assert str(complement(L("(2,4):(1,6)"), 24)) == "3:2"
    assert str(complement(L("(2,2):(1,6)"), 24)) == "(3,2):(2,12)"
    # the concatenations have cosize 24 and unique indices
    for a, c in [("4:2", "(2,3):(1,8)"), ("(2,4):(1,6)", "3:2"), ("(2,2):(1,6)", "(3,2):(2,12)")]:
        whole = make_layout(L(a), L(c))
        assert cosize(whole) == 24
        assert len(set(values(whole))) == size(whole)


def test_logical_divide_1d():
    a = L("(4,2,3):(2,1,8)")
    b = L("4:2")
    assert str(complement(b, size(a))) == "(2,3):(1,8)"
    assert str(make_layout(b, complement(b, size(a)))) == "(4,(2,3)):(2,(1,8))"
    assert str(logical_divide(a, b)) == "((2,2),(2,3)):((4,1),(2,8))"


def test_logical_divide_2d_and_zipped_divide():
    a = L("(9,(4,8)):(59,(13,1))")
    tiler = (L("3:3"), L("(2,4):(1,8)"))
    ld = logical_divide(a, tiler)
    assert str(ld) == "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))"
    assert shape(ld) == ((3, 3), ((2, 4), (2, 2)))
    # "the first mode of each mode of the result is (3,(2,4)):(177,(13,2))", i.e. composition(a, tiler)
    assert make_layout(get(ld, 0, 0), get(ld, 1, 0)) == composition(a, tiler)
    zd = zipped_divide(a, tiler)
    assert str(zd) == "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))"
    assert size(zd, 0) == 24 and size(zd, 1) == 12
    assert get(zd, 0) == composition(a, tiler)
    assert zd(0, 3) == zd(0, 3)  # the offset of the 3rd tile
    assert slice_(_, zd) == zd


def test_logical_product_1d():
    a = L("(2,2):(4,1)")
    b = L("6:1")
    assert str(complement(a, 24)) == "(2,3):(2,8)"
    assert str(composition(complement(a, 24), b)) == "(2,3):(2,8)"
    assert str(logical_product(a, b)) == "((2,2),(2,3)):((4,1),(2,8))"
    # "identical to the result of the 1-D Logical Divide example"
    assert logical_product(a, b) == logical_divide(L("(4,2,3):(2,1,8)"), L("4:2"))
    # B = (4,2):(2,1): 8 repetitions in a different order
    assert size(logical_product(a, L("(4,2):(2,1)")), 1) == 8


# -- seeds ---------------------------------------------------------------------------------------


def test_seed_003_slicing_examples():
    a = make_layout(((3, 2), (2, 5, 2)), ((4, 1), (2, 13, 100)))
    assert a.format(True) == "((_3,_2),(_2,_5,_2)):((_4,_1),(_2,_13,_100))"
    assert str(a(2, _)) == "((2,5,2)):((2,13,100))"
    assert str(a(_, 5)) == "((3,2)):((4,1))"
    assert str(a((_, _), 5)) == "(3,2):(4,1)"
    assert str(a((_, 1), (0, _, 1))) == "(3,5):(4,13)"
    assert str(a((2, _), (_, 3, _))) == "(2,2,2):(1,2,100)"


def test_seed_003_zipped_divide_shapes():
    # Tensor A = make_tensor(ptr, make_shape(8,24)); zipped_divide(A, Shape<_4,_8>) -> ((_4,_8),(2,3))
    zd = zipped_divide(make_layout((8, 24)), (4, 8))
    assert shape(zd) == ((4, 8), (2, 3))
    # gmem (24,16) tiled by (8,4): ((8,4),(3,4))
    assert shape(zipped_divide(make_layout((24, 16)), (8, 4))) == ((8, 4), (3, 4))


def test_seed_003_tv_layout_composition():
    # (T8,V4) -> (M4,N8) over a 4x8 row-major tensor
    tv = make_layout(((2, 4), (2, 2)), ((8, 1), (4, 16)))
    a = make_layout((4, 8), LayoutRight)
    tvt = composition(a, tv)
    assert shape(tvt) == shape(tv) and size(tvt) == 32
    assert [tvt(i) for i in range(32)] == [a(tv(i)) for i in range(32)]
    assert sorted(values(tvt)) == list(range(32))  # every element owned exactly once


def test_seed_002_affine2_layout():
    # AffineRank2ColumnMajor 4x4 with stride factors {2,2}: element (m,k) at 2*m + 16*k.
    lay = make_layout((4, 4), (2, 16))
    assert cosize(lay) == 55
    assert [lay(m, 0) for m in range(4)] == [0, 2, 4, 6]
    assert [lay(0, k) for k in range(4)] == [0, 16, 32, 48]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("(4,8):(1@0,1@1)", [(0, 0), (1, 0), (2, 0), (3, 0), (0, 1)]),
    ],
)
def test_identity_layout_values(text: str, expected: list):
    lay = parse_layout(text)
    assert [tuple(lay(i)) for i in range(5)] == expected
    assert stride(lay)[0].cute_format(True) == "_1@0"
