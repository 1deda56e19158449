"""Hostile input to the layout algebra and its CLIs (docs/reliability.md): every input ends in
a diagnostic or a result, never an internal error, a wrong result, or work that grows with the
values written."""

from __future__ import annotations

import time

import layoutc as lc
import pytest
from layoutc.cli.main import main
from layoutc.ir.algebra.errors import LayoutError
from layoutc.ir.algebra.limits import MAX_NESTING, MAX_SHOW_CELLS


def _cli(capsys, *argv):
    start = time.monotonic()
    status = main(list(argv))
    elapsed = time.monotonic() - start
    out, err = capsys.readouterr()
    return status, out, err, elapsed


@pytest.mark.parametrize(
    "argv, message",
    [
        (["algebra", "shape_div(8, 0)"], "shape_div(8, 0): division by zero"),
        # found by the algebra-parser fuzzer: divisions by a zero shape or stride
        (["algebra", "idx2crd(9223372036854775807, (0,-18))"], "division by zero"),
        (["algebra", "idx2crd(5, (4,2), (1,0))"], "has stride 0"),
        (["show", "(5,2):(1@0,1@1@0)"], "a mode is an integer in one and a tuple in the other"),
        (["show", "_-1"], "shape entries must be positive"),
        (["algebra", "complement(4:2, -24)"], "cotarget must be non-negative, got -24"),
        (["algebra", "(" * 1000 + "4" + ")" * 1000], f"deeper than {MAX_NESTING} levels"),
        (["algebra", "size(" * 1000 + "4" + ")" * 1000], f"deeper than {MAX_NESTING} levels"),
        (["algebra", "(4,8):(1," + "(" * 5000 + "N" + ")" * 5000 + ")"], "deeper than"),
        (["algebra", "<" * 5000 + "4" + ">" * 5000], "deeper than"),
        (["algebra", "9" * 5000], "integer literal"),
        (["algebra", "(N+" + "9" * 5000 + ",2):(1,1)"], "exceeds 64 bits"),
        (["algebra", "(4,8):(1," + "9" * 30 + ")"], "exceeds 64 bits"),
        (["algebra", "Sw<3,99999999999,3>"], "at most 64"),
        (["algebra", "Sw<3,4," + "9" * 5000 + ">"], "integer literal"),
        (["show", "(4,8):(1@1000000000,1@1)"], "basis mode 1000000000 is larger than"),
        (["show", "(100000,100000):(1,100000)"], f"more than the {MAX_SHOW_CELLS} shown"),
        (["show", "--tv", "", "(100000,100000):(1,100000)"], "shown at most"),
        (["algebra", "(" + ",".join(["2"] * 100_000) + ")"], "more than 4096 integers"),
    ],
    ids=lambda v: str(v)[:40],
)
def test_hostile_algebra_input_is_a_diagnostic(capsys, argv, message):
    status, out, err, elapsed = _cli(capsys, *argv)
    assert status in (1, 2), (out, err)
    assert message in err, err
    assert "internal error" not in err and "Traceback" not in err
    assert len(err) < 2000, "the diagnostic echoes the whole input"
    assert elapsed < 30, f"{elapsed:.1f} s"


def test_many_unary_minuses_do_not_recurse(capsys):
    status, out, _, _ = _cli(capsys, "algebra", "--", "-" * 100_000 + "4")
    assert status == 0 and out.strip() == "4"
    status, out, _, _ = _cli(capsys, "algebra", "--", "-" * 100_001 + "4")
    assert status == 0 and out.strip() == "-4"


def test_limits_leave_real_programs_alone():
    assert str(lc.parse_layout("((2,2),3):((24,2),8)")) == "((2,2),3):((24,2),8)"
    deep = "(" * 20 + "2" + ")" * 20
    assert lc.size(lc.parse_layout(deep)) == 2
    assert lc.parse_layout("(4,8):(1@0,1@1)")(1, 1) == (1, 1)
    big = lc.parse_layout(f"(2,2):({(1 << 63) - 1},1)")
    assert big(1, 0) == (1 << 63) - 1
    assert lc.complement(lc.parse_layout("4:2"), 24) == lc.parse_layout("(2,3):(1,8)")


def test_the_python_api_refuses_unbounded_bases_and_swizzles():
    with pytest.raises(LayoutError, match="larger than"):
        lc.ScaledBasis(1, 10**9)
    with pytest.raises(LayoutError, match="at most 64"):
        lc.Swizzle(3, 10**11, 3)
    with pytest.raises(LayoutError, match="division by zero"):
        lc.shape_div(8, 0)


def test_parse_errors_on_huge_input_show_a_window():
    with pytest.raises(LayoutError) as info:
        lc.parse_layout("(" + ",".join(["2"] * 1_000_000) + ")")
    assert len(str(info.value)) < 500
