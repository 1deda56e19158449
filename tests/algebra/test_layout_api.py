"""The Layout API: construction, evaluation, mode access, slicing, and the errors bad input gets."""

from __future__ import annotations

import pickle

import layoutc
import pytest
from algebra_strategies import values
from layoutc.ir.algebra import (
    ArithmeticTuple,
    Layout,
    LayoutError,
    LayoutRight,
    _,
    blocked_product,
    coalesce,
    complement,
    composition,
    cosize,
    dice,
    filter,
    filter_zeros,
    flat_divide,
    get,
    left_inverse,
    logical_divide,
    make_identity_layout,
    make_layout,
    make_layout_like,
    make_ordered_layout,
    nullspace,
    raked_product,
    select,
    size,
    slice_,
    slice_and_offset,
    take,
    tile_to_shape,
    tiled_divide,
    zipped_product,
)


def test_default_strides_are_column_major_with_zero_for_size_one():
    assert Layout((2, 1, 3)).stride == (1, 0, 2)
    assert Layout(1).stride == 0
    assert Layout((2, (3, 4))).stride == (1, (2, 6))


def test_make_layout_forms():
    assert make_layout((2, 3), LayoutRight) == Layout((2, 3), (3, 1))
    assert make_layout((2, 3), order=LayoutRight) == Layout((2, 3), (3, 1))
    assert make_layout((2, 3, 4), order=(1, 0, 2)) == Layout((2, 3, 4), (3, 1, 6))
    assert make_ordered_layout((2, 3, 4), (2, 0, 1)) == Layout((2, 3, 4), (12, 1, 3))
    assert make_layout([2, 3], [1, 2]) == Layout((2, 3), (1, 2))
    with pytest.raises(LayoutError, match="cannot mix"):
        make_layout(Layout(2), (3,))
    assert make_layout_like(Layout((2, 3), (10, 1))) == Layout((2, 3), (3, 1))


def test_constructor_rejects_bad_input():
    with pytest.raises(LayoutError, match="not congruent"):
        Layout((2, 3), (1, 2, 3))
    with pytest.raises(LayoutError, match="not congruent"):
        Layout((2, (3, 4)), (1, 2))
    with pytest.raises(LayoutError, match="positive"):
        Layout((2, -3))
    with pytest.raises(LayoutError, match="integer"):
        Layout(("a", 3))
    with pytest.raises(LayoutError, match="integer"):
        Layout((2, 3), (1, 2.5))
    with pytest.raises(LayoutError, match="bool"):
        Layout(True)


def test_numpy_integers_are_accepted():
    np = pytest.importorskip("numpy")
    lay = Layout((np.int64(4), np.int32(2)), (np.int64(1), 4))
    assert lay == Layout((4, 2), (1, 4))
    assert lay(np.int64(1), np.int32(1)) == 5 and type(lay(np.int64(5))) is int
    assert lay(_, np.int64(1)) == Layout((4,), (1,))
    assert lay([1, 1]) == 5


def test_evaluation_forms_and_range_checks():
    lay = Layout((3, (2, 3)), (3, (12, 1)))
    assert lay(16) == lay((1, 5)) == lay(1, 5) == lay((1, (1, 2))) == 17
    with pytest.raises(LayoutError, match="out of range"):
        lay(18)
    with pytest.raises(LayoutError, match="out of range"):
        lay(3, 0)
    with pytest.raises(LayoutError, match="out of range"):
        lay(-1)
    with pytest.raises(LayoutError, match="does not match shape"):
        lay(1, 2, 3)
    with pytest.raises(LayoutError, match="does not match shape"):
        lay((1, (1, 1, 1)))
    with pytest.raises(LayoutError, match="without a coordinate"):
        lay()
    with pytest.raises(LayoutError, match="integers"):
        lay("x")


def test_modes_len_iteration_equality_hash_pickle():
    lay = Layout((2, (3, 4)), (1, (2, 6)))
    assert len(lay) == 2 and lay.rank == 2 and lay.depth == 2
    assert [str(m) for m in lay] == ["2:1", "(3,4):(2,6)"]
    assert lay[1] == get(lay, 1) == Layout((3, 4), (2, 6))
    assert lay[1, 0] == Layout(3, 2)
    assert lay[0:2] == lay
    assert {lay: 1}[Layout((2, (3, 4)), (1, (2, 6)))] == 1
    assert lay != Layout((2, (3, 4)), (1, (2, 7)))
    assert lay != Layout((2, 12), (1, 2))  # same function, different data
    assert pickle.loads(pickle.dumps(lay)) == lay
    assert repr(lay) == "Layout((2, (3, 4)), (1, (2, 6)))"
    with pytest.raises(LayoutError, match="out of range"):
        lay[2]
    with pytest.raises(LayoutError, match="out of range"):
        get(lay, 0, 1)
    with pytest.raises(LayoutError, match="out of range"):
        select(lay, 5)
    with pytest.raises(LayoutError, match="empty or out of bounds"):
        take(lay, 1, 1)


def test_select_takes_modes_as_ints_or_one_tuple():
    lay = Layout((2, 3, 4), (1, 2, 6))
    assert select(lay, (2, 0)) == select(lay, 2, 0) == Layout((4, 2), (6, 1))
    assert select(lay, [1]) == Layout((3,), (2,))
    with pytest.raises(LayoutError, match=r"select: mode indices must be ints .* got 'a'"):
        select(lay, (2, "a"))
    with pytest.raises(LayoutError, match=r"select: mode indices must be ints .* got \(2,\)"):
        select(lay, 1, (2,))
    with pytest.raises(LayoutError, match="out of range"):
        select(lay, (0, 3))


def test_slicing():
    lay = Layout((4, (2, 3)), (1, (4, 8)))
    assert lay(_, 3) == slice_((_, 3), lay) == Layout((4,), (1,))
    sub, off = slice_and_offset((2, _), lay)
    assert sub == Layout(((2, 3),), ((4, 8),))
    assert off == 2
    assert slice_and_offset((_, (1, _)), lay) == (Layout((4, 3), (1, 8)), 4)
    assert dice((2, _), lay) == Layout((4,), (1,))
    assert slice_(_, lay) == lay
    assert slice_((1, 2), lay) == Layout((), ())
    with pytest.raises(LayoutError, match="out of range"):
        lay(4, _)
    with pytest.raises(LayoutError, match="does not match"):
        lay(_, (1, _, 2))
    with pytest.raises(LayoutError, match="does not match"):
        slice_((_,), lay)


def test_slice_then_evaluate_equals_evaluate():
    lay = Layout(((3, 2), (2, 5, 2)), ((4, 1), (2, 13, 100)))
    sub, off = slice_and_offset((_, (1, _, 0)), lay)
    for i in range(6):
        for j in range(5):
            assert sub(i, j) + off == lay(i, (1, j, 0))


def test_identity_layout():
    ident = make_identity_layout((4, (2, 3)))
    assert str(ident) == "(4,(2,3)):(1@0,(1@0@1,1@1@1))"
    assert ident(9) == ArithmeticTuple(1, ArithmeticTuple(0, 1))
    assert str(ident(9)) == "(1,(0,1))"
    assert str(ident(0)) == "(0,(0,0))"
    assert cosize(make_identity_layout((4, 8))) == 32
    # composition with an identity layout gives coordinates: the TV-to-(m,n) maps of CuTe
    tv = Layout((4, 2), (2, 1))
    coords = composition(make_identity_layout((2, 4)), tv)
    assert [tuple(coords(i)) for i in range(3)] == [(0, 0), (0, 1), (0, 2)]


def test_filter_and_nullspace():
    lay = Layout((2, 3, 4), (1, 0, 2))
    assert filter_zeros(lay) == Layout((2, 1, 4), (1, 0, 2))
    assert filter(lay) == Layout(8, 1)
    assert filter(Layout((2, 3), (0, 0))) == Layout(1, 0)
    assert nullspace(lay) == Layout(3, 2)
    assert values(composition(lay, nullspace(lay))) == [0, 0, 0]
    assert nullspace(Layout(4, 1)) == Layout(1, 0)


def test_coalesce_profile_errors():
    with pytest.raises(LayoutError, match="profile"):
        coalesce(Layout((2, 3)), (1, 1, 1))


def test_complement_errors_name_the_condition():
    with pytest.raises(
        LayoutError, match=r"complement\(\(2,2\):\(1,1\), 8\): the layout is not injective"
    ):
        complement(Layout((2, 2), (1, 1)), 8)
    with pytest.raises(LayoutError, match="non-negative"):
        complement(Layout(4, -1), 8)
    with pytest.raises(LayoutError, match="integer strides"):
        complement(make_identity_layout((4, 2)), 8)


def test_left_inverse_divisibility_error():
    # injective, but its left inverse is not a layout (CuTe rejects it statically)
    with pytest.raises(
        LayoutError, match=r"left_inverse\(\(4,3\):\(3,2\)\): divisibility condition"
    ):
        left_inverse(Layout((4, 3), (3, 2)))


def test_composition_errors_name_the_condition():
    with pytest.raises(LayoutError, match="stride divisibility condition"):
        composition(Layout((3, 5), (1, 10)), Layout(2, 4))
    with pytest.raises(LayoutError, match="shape divisibility condition"):
        composition(Layout((4, 5), (1, 10)), Layout(6, 1))
    with pytest.raises(LayoutError, match="tiler has 3 modes"):
        composition(Layout((4, 5)), (2, 2, 2))
    with pytest.raises(LayoutError, match="cannot compose"):
        composition(Layout(4), "4:1")
    with pytest.raises(LayoutError, match="first argument"):
        composition((4, 2), Layout(4))


def test_logical_divide_non_dividing_tile_keeps_cute_semantics():
    # 1000 elements in tiles of 128: the last tile extrapolates past the end, as in CuTe
    d = logical_divide(Layout(1000, 1), Layout(128, 1))
    assert str(d) == "(128,8):(1,128)"
    with pytest.raises(LayoutError, match="logical_divide"):
        logical_divide(Layout((3, 5), (1, 10)), 2)


def test_blocked_and_raked_products_docs_figure():
    a = Layout((2, 5), (5, 1))
    b = Layout((3, 4), (1, 3))
    assert str(blocked_product(a, b)) == "((2,3),(5,4)):((5,10),(1,30))"
    assert str(raked_product(a, b)) == "((3,2),(4,5)):((10,5),(30,1))"
    # rank-1 arguments: CuTe's zip of two integral modes makes a 1-tuple
    assert str(blocked_product(Layout(4, 1), Layout(3, 1))) == "((4,3)):((1,4))"


def test_tile_to_shape():
    atom = Layout((8, (4, 2)), (4, (1, 32)))
    tiled = tile_to_shape(atom, (64, 16))
    assert size(tiled) == 64 * 16
    assert size(tiled, 0) == 64 and size(tiled, 1) == 16
    assert sorted(values(tiled)) == list(range(64 * 16))
    assert str(tile_to_shape(Layout((2, 2), (1, 2)), (4, 6))) == "((2,2),(2,3)):((1,4),(2,8))"
    assert (
        str(tile_to_shape(Layout((2, 2), (1, 2)), (4, 6), (1, 0))) == "((2,2),(2,3)):((1,12),(2,4))"
    )
    with pytest.raises(LayoutError, match="does not divide the target"):
        tile_to_shape(atom, (60, 16))
    with pytest.raises(LayoutError, match="rank"):
        tile_to_shape(Layout((2, 2, 2)), (4, 4))


def test_tiled_and_flat_divide_shapes():
    a = Layout((8, 24))
    assert tiled_divide(a, (4, 8)).shape == ((4, 8), 2, 3)
    assert flat_divide(a, (4, 8)).shape == (4, 8, 2, 3)
    assert zipped_product(Layout((2, 2)), (Layout(3), Layout(2))).shape == ((2, 2), (3, 2))


def test_public_api_is_lazy_and_complete():
    import subprocess
    import sys

    code = (
        "import sys, layoutc; assert 'layoutc.ir.algebra' not in sys.modules; print(layoutc.Layout)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "Layout" in out.stdout
    for name in ("Layout", "Swizzle", "ComposedLayout", "_"):
        assert getattr(layoutc, name) is getattr(layoutc.ir.algebra, name)
    # composition, the divides and make_layout also accept tensors and dynamic values inside
    # kernels (layoutc/frontend/layouts.py); on layouts they are the algebra's.
    a, b = layoutc.ir.algebra.Layout((4, 8), (8, 1)), layoutc.ir.algebra.Layout(4, 2)
    assert layoutc.composition(a, b) == layoutc.ir.algebra.composition(a, b)
    assert layoutc.logical_divide(a, (2, 4)) == layoutc.ir.algebra.logical_divide(a, (2, 4))
    assert layoutc.make_layout((4, 8)) == layoutc.ir.algebra.make_layout((4, 8))
    assert layoutc._ is _
    with pytest.raises(AttributeError):
        layoutc.no_such_name  # noqa: B018
