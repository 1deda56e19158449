"""`layoutc algebra` and `layoutc show`: outputs, exit statuses and one-line errors."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from layoutc.cli.main import main, parse_assumptions


def run(argv: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str, str]:
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        (
            "logical_divide((9,(4,8)):(59,(13,1)), <3:3,(2,4):(1,8)>)",
            "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))",
        ),
        ("complement(4:2, 24)", "(2,3):(1,8)"),
        ("size((2,(3,4)):(1,(2,6)))", "24"),
        ("composition((6,2):(8,2), (4,3):(3,1))", "((2,2),3):((24,2),8)"),
        ("coalesce((2,(1,6)):(1,(6,2)), (1,1))", "(2,6):(1,2)"),
        (
            "zipped_divide((9,(4,8)):(59,(13,1)), <3:3,(2,4):(1,8)>)",
            "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))",
        ),
        ("make_layout((4,8), LayoutRight)", "(4,8):(8,1)"),
        ("make_layout((4,8), LayoutRight)(_, 2)", "(4):(8)"),
        ("make_layout((4,8), LayoutRight)(1, 2)", "10"),
        ("cosize(make_layout((4,8), LayoutRight)) * 2 + 1", "65"),
        ("slice_and_offset((_,2), (4,8):(8,1))", "((4):(8),2)"),
        ("make_identity_layout((4,8))", "(4,8):(1@0,1@1)"),
        ("make_identity_layout((4,8))(9)", "(1,2)"),
        ("Sw<3,4,3> o 0 o (8,64):(64,1)", "Sw<3,4,3> o 0 o (8,64):(64,1)"),
        (
            "tile_to_shape(Sw<1,2,3> o 0 o (8,(4,2)):(4,(1,32)), (16,16))",
            "Sw<1,2,3> o 0 o ((8,2),((4,2),2)):((4,64),((1,32),128))",
        ),
        ("compatible((4,6), ((2,2),6))", "true"),
        ("max_common_vector((4,8):(1,4), (32):(1))", "32"),
        ("right_inverse((4,8):(8,1))", "(8,4):(4,1)"),
        ("blocked_product((2,5):(5,1), (3,4):(1,3))", "((2,3),(5,4)):((5,10),(1,30))"),
    ],
)
def test_algebra_calculator(expr: str, expected: str, capsys: pytest.CaptureFixture):
    status, out, err = run(["algebra", expr], capsys)
    assert (status, err) == (0, "")
    assert out.splitlines() == [expected]


def test_several_expressions_and_static_markers(capsys: pytest.CaptureFixture):
    status, out, _err = run(
        ["algebra", "--static-markers", "make_layout(8)", "(4,8):(1@0,1@1)"], capsys
    )
    assert status == 0
    assert out.splitlines() == ["_8:_1", "(_4,_8):(_1@0,_1@1)"]


def test_symbolic_expressions_with_assumptions(capsys: pytest.CaptureFixture):
    status, out, _err = run(
        ["algebra", "--assume", "N%4==0", "logical_divide((N,8):(8,1), (4,2))"], capsys
    )
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "((4,N // 4),(2,4)):((8,32),(1,2))"
    assert lines[1] == "  where N>=4, N%4==0"
    status, out, _err = run(["algebra", "--assume", "N:div=8,min=16", "size((N,8):(8,1))"], capsys)
    assert status == 0 and out.splitlines()[0] == "8*N"


def test_unprovable_symbolic_condition_is_an_error(capsys: pytest.CaptureFixture):
    status, out, err = run(["algebra", "logical_divide((N,8):(1,2*N), 4)"], capsys)
    assert status == 1 and out == ""
    assert err.startswith("layoutc: error: at position 0: logical_divide(") and "cannot" in err
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize(
    ("argv", "status", "fragment"),
    [
        (
            ["algebra", "complement((2,2):(1,1), 24)"],
            1,
            "at position 0: complement((2,2):(1,1), 24): the layout is not injective",
        ),
        (
            ["algebra", "logical_divide((9,(4,8)):(59,(13,1)), <3:3,(2,4):(1,8)"],
            2,
            "at position 54: expected ',' or '>' in a tiler",
        ),
        (["algebra", "frobnicate(4:1)"], 2, "unknown function 'frobnicate'"),
        (["algebra", "size()"], 1, "size(x, index...): wrong number of arguments (0 given)"),
        (["algebra", "(4,8):(1,4)(9, 0)"], 1, "coordinate 9 out of range"),
        (["algebra", "(4,8):(1,4) + 2"], 1, "'+' needs integers"),
        (["algebra", "(4,8):(1,4"], 2, "at position 10"),
        (["algebra", "--assume", "N>>3", "N"], 2, "--assume 'N>>3'"),
        (["algebra", "--assume", "N>=9;N<=4", "N"], 2, "contradictory"),
        (["show", "(2,2,2):(1,2,4)"], 1, "rank-1 or rank-2"),
        (["show", "<2:1>"], 1, "needs a layout"),
        (["algebra"], 2, "give at least one expression"),
        (["frobnicate"], 2, "invalid choice"),
    ],
)
def test_errors_are_one_line(
    argv: list[str], status: int, fragment: str, capsys: pytest.CaptureFixture
):
    got, out, err = run(argv, capsys)
    assert got == status
    assert out == ""
    assert err.startswith("layoutc: error: ")
    assert len(err.splitlines()) == 1
    assert fragment in err


def test_show_prints_cute_print_layout(capsys: pytest.CaptureFixture):
    status, out, _err = run(["show", "(2,(2,2)):(4,(2,1))"], capsys)
    assert status == 0
    assert [line.rstrip() for line in out.splitlines()] == [
        "(2,(2,2)):(4,(2,1))",
        "      0   1   2   3",
        "    +---+---+---+---+",
        " 0  | 0 | 2 | 1 | 3 |",
        "    +---+---+---+---+",
        " 1  | 4 | 6 | 5 | 7 |",
        "    +---+---+---+---+",
    ]


def test_show_accepts_a_bare_shape(capsys: pytest.CaptureFixture):
    status, out, _err = run(["show", "(2,3)"], capsys)
    assert status == 0 and out.splitlines()[0] == "(2,3):(1,2)"


def test_list_functions(capsys: pytest.CaptureFixture):
    status, out, _err = run(["algebra", "--functions"], capsys)
    assert status == 0 and "logical_divide" in out.split()


def test_show_accepts_expressions_and_rank1(capsys: pytest.CaptureFixture):
    status, out, _err = run(["show", "composition(8:2, 4:1)"], capsys)
    assert status == 0
    assert out.splitlines()[0] == "4:2"
    assert [line.split("|")[1].strip() for line in out.splitlines() if "|" in line] == [
        "0",
        "2",
        "4",
        "6",
    ]


def test_show_tv_layout(capsys: pytest.CaptureFixture):
    status, out, _err = run(["show", "--tv", "(4,8)", "((2,4),(2,2)):((8,1),(4,16))"], capsys)
    assert status == 0
    lines = [line.rstrip() for line in out.splitlines()]
    assert lines[0] == "((2,4),(2,2)):((8,1),(4,16))"
    assert lines[1] == "tile (4,8)"
    assert lines[4] == " 0  | T0V0 | T0V1 | T1V0 | T1V1 | T0V2 | T0V3 | T1V2 | T1V3 |"
    assert lines[10] == " 3  | T6V0 | T6V1 | T7V0 | T7V1 | T6V2 | T6V3 | T7V2 | T7V3 |"


def test_show_tv_with_coordinates_infers_the_tile(capsys: pytest.CaptureFixture):
    expr = "composition(make_identity_layout((2,4)), (4,2):(2,1))"
    status, out, _err = run(["show", "--tv", "", expr], capsys)
    assert status == 0
    assert "tile (2,4)" in out
    status, _out, err = run(["show", "--tv", "", "(4,2):(2,1)"], capsys)
    assert status == 2 and "give the tile shape" in err


def test_show_svg(tmp_path: Path, capsys: pytest.CaptureFixture):
    svg = tmp_path / "l.svg"
    status, _out, _err = run(["show", "(4,8):(8,1)", "--svg", str(svg)], capsys)
    assert status == 0
    root = ET.fromstring(svg.read_text())
    rects = root.findall(".//{http://www.w3.org/2000/svg}rect")
    assert len(rects) == 32
    tv = tmp_path / "tv.svg"
    status, _out, _err = run(
        ["show", "--tv", "(4,8)", "((2,4),(2,2)):((8,1),(4,16))", "--svg", str(tv)], capsys
    )
    assert status == 0
    texts = [t.text for t in ET.fromstring(tv.read_text()).iter("{http://www.w3.org/2000/svg}text")]
    assert "T7" in texts and "V3" in texts
    status, _out, err = run(["show", "8:1", "--svg", str(tmp_path / "missing" / "x.svg")], capsys)
    assert status == 1 and "cannot write" in err


def test_parse_assumptions():
    assert parse_assumptions(["N%4==0", "N%6==0", "N>=8", "M<=64;M:div=2"]) == {
        "N": {"divisible_by": 12, "lower": 8},
        "M": {"upper": 64, "divisible_by": 2},
    }


def test_console_script_runs():
    out = subprocess.run(
        [sys.executable, "-m", "layoutc.cli.main", "algebra", "complement(4:2, 24)"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0 and out.stdout.strip() == "(2,3):(1,8)"
    bad = subprocess.run(
        [sys.executable, "-m", "layoutc.cli.main", "algebra", "complement((2,2):(1,1), 24)"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 1 and "Traceback" not in bad.stderr
