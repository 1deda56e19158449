"""print_layout / print_tv_layout / SVG pictures."""

from __future__ import annotations

import pytest
from layoutc.ir.algebra import (
    Layout,
    LayoutError,
    Swizzle,
    composition,
    layout_svg,
    make_identity_layout,
    print_layout,
    print_tv_layout,
    tv_layout_svg,
)
from layoutc.ir.algebra.symbolic import Symbol


def rows(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines()]


def test_two_digit_indices_widen_the_cells_as_cute_does():
    assert rows(print_layout(Layout((2, 3), (3, 1)))) == [
        "(2,3):(3,1)",
        "      0   1   2",
        "    +---+---+---+",
        " 0  | 0 | 1 | 2 |",
        "    +---+---+---+",
        " 1  | 3 | 4 | 5 |",
        "    +---+---+---+",
    ]
    text = rows(print_layout(Layout((2, 2), (10, 1))))
    assert text[1] == "       0    1"
    assert text[3] == " 0  |  0 |  1 |"
    assert text[5] == " 1  | 10 | 11 |"


def test_swizzled_and_identity_layouts():
    sw = composition(Swizzle(1, 0, 1), Layout((2, 2), (2, 1)))
    assert rows(print_layout(sw))[3] == " 0  | 0 | 1 |"
    assert rows(print_layout(sw))[5] == " 1  | 3 | 2 |"
    ident = rows(print_layout(make_identity_layout((2, 2))))
    assert ident[3] == " 0  | (0,0) | (0,1) |"


def test_tv_table_and_errors():
    tv = Layout((2, 2), (1, 2))
    assert rows(print_tv_layout(tv, (2, 2)))[4] == " 0  | T0V0 | T0V1 |"
    assert rows(print_tv_layout(tv, (4, 2)))[4] == " 0  | T0V0 |      |"  # cells no thread owns
    with pytest.raises(LayoutError, match="outside the 2x1 tile"):
        print_tv_layout(tv, (2, 1))
    with pytest.raises(LayoutError, match="rank-2"):
        print_tv_layout(Layout(4), (2, 2))


def test_static_only():
    n = Symbol("N")
    with pytest.raises(LayoutError, match="static"):
        print_layout(Layout((n, 2)))
    with pytest.raises(LayoutError, match="rank-1 or rank-2"):
        print_layout(Layout((2, 2, 2)))


def test_svg_is_well_formed():
    import xml.etree.ElementTree as ET

    svg = ET.fromstring(layout_svg(Layout((4, 8), (8, 1))))
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    fills = {r.get("fill") for r in svg.iter("{http://www.w3.org/2000/svg}rect")}
    assert len(fills) == 8  # shaded by index mod 8, as CuTe's print_latex
    tv = ET.fromstring(tv_layout_svg(Layout(((2, 4), (2, 2)), ((8, 1), (4, 16))), (4, 8)))
    fills = {r.get("fill") for r in tv.iter("{http://www.w3.org/2000/svg}rect")}
    assert len(fills) == 8  # one colour per thread
