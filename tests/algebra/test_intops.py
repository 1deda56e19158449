"""intops: the static fast path is plain int arithmetic; symbolic operands get proofs."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from layoutc.ir.algebra import intops
from layoutc.ir.algebra.errors import LayoutError
from layoutc.ir.algebra.symbolic import Symbol

N = Symbol("N", divisible_by=4)
M = Symbol("M")
S = Symbol("S", positive=False, lower=-4, upper=4)

ints = st.integers(-50, 50)
positive = st.integers(1, 50)


@settings(max_examples=100, deadline=None)
@given(ints, positive)
def test_static_helpers_match_python(a, b):
    assert intops.ceil_div(a, b) == math.ceil(a / b) == -(-a // b)
    assert intops.gcd(a, b) == math.gcd(a, b)
    assert intops.lcm(a, b) == math.lcm(a, b)
    assert intops.min_(a, b) == min(a, b) and intops.max_(a, b) == max(a, b)
    assert intops.divides(b, a) == (a % b == 0)
    assert intops.prove_lt(a, b) == (a < b) and intops.prove_le(a, b) == (a <= b)
    assert intops.prove_eq(a, b) == (a == b)
    assert intops.compare(a, b) == (a > b) - (a < b)
    assert intops.known_divisor(a) == abs(a)


def test_static_results_are_plain_ints():
    for value in (
        intops.ceil_div(7, 2),
        intops.shape_div(8, 2),
        intops.gcd(4, 6),
        intops.lcm(4, 6),
    ):
        assert type(value) is int


def test_shape_div():
    assert intops.shape_div(12, 4) == 3
    assert intops.shape_div(4, 12) == 1
    with pytest.raises(LayoutError, match=r"shape_div\(6, 4\): divisibility condition fails"):
        intops.shape_div(6, 4)
    assert intops.shape_div(4 * N, 4) is N
    assert intops.shape_div(4, N) == 1
    assert intops.shape_div(N * M, N) is M
    with pytest.raises(
        LayoutError, match=r"shape_div\(M, 4\): cannot prove that 4 divides M or M divides 4"
    ):
        intops.shape_div(M, 4)


def test_divides_is_provable_divisibility():
    assert intops.divides(0, 0) is False
    assert intops.divides(4, N) and intops.divides(16, 4 * N)
    assert not intops.divides(8, N)  # N = 4 is admissible
    assert intops.divides(N, N * M)


def test_require_divides_names_the_operation_and_condition():
    intops.require_divides(4, 8, "tile")
    with pytest.raises(LayoutError, match="tile: 3 does not divide 8"):
        intops.require_divides(3, 8, "tile")
    with pytest.raises(LayoutError, match="logical_divide: cannot prove that 8 divides N"):
        intops.require_divides(8, N, "logical_divide")


def test_compare_and_proofs():
    assert intops.compare(N, N * M + 1) == -1
    assert intops.compare(4 * N, N) == 1
    assert intops.compare((N // 4) * 4, N) == 0
    with pytest.raises(
        LayoutError, match="complement: cannot order M and N for all values of their symbols"
    ):
        intops.compare(M, N, "complement")
    assert intops.prove_le(0, S + 4) and not intops.prove_le(0, S)


def test_symbolic_helpers():
    assert intops.ceil_div(N, 4) == N // 4
    assert intops.gcd(N, 12 * N) is N
    assert intops.lcm(4, N) is N
    assert str(intops.min_(M, 4)) == "min(M, 4)"
    assert intops.max_(N, 2) is N
    assert intops.known_divisor(4 * N) == 16
    with pytest.raises(LayoutError, match="no closed form"):
        intops.gcd(N, 12)


def test_value_classification():
    assert intops.is_static(3) and not intops.is_static(N) and not intops.is_static(True)
    assert intops.is_integer(3) and intops.is_integer(N + 1) and not intops.is_integer((1, 2))
    assert intops.static_value(5) == 5 and intops.static_value(N) is None
    assert intops.static_value(Symbol("p", lower=2, upper=2)) == 2
    assert intops.static_value("x") is None  # type: ignore[arg-type]


def test_static_path_does_not_load_the_symbolic_engine():
    code = (
        "import sys\n"
        "from layoutc.ir.algebra import intops\n"
        "intops.shape_div(8, 2); intops.compare(1, 2); intops.divides(2, 8); intops.gcd(4, 6)\n"
        "print('layoutc.ir.algebra.symbolic' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_is_symbolic_looks_the_engine_up_without_loading_it():
    code = (
        "import sys\n"
        "from layoutc.ir.algebra.inttuple import is_symbolic\n"
        "print(is_symbolic(3), is_symbolic((1, 2)), 'layoutc.ir.algebra.sym.expr' in sys.modules)\n"
        "from layoutc.ir.algebra.symbolic import Symbol\n"
        "print(is_symbolic(Symbol('N')), is_symbolic(Symbol('N') + 1), is_symbolic(4))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["False False False", "True True False"]
