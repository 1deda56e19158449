"""Unit tests of the symbolic integer engine: symbols, canonical form, rules, API, errors."""

from __future__ import annotations

import copy
import pickle
import re
import subprocess
import sys

import pytest
from layoutc.ir.algebra import symbolic as sym
from layoutc.ir.algebra.errors import LayoutError, LayoutParseError
from layoutc.ir.algebra.symbolic import (
    Symbol,
    SymInt,
    ceil_div,
    parse_int_expr,
    sym_divides,
    sym_gcd,
    sym_lcm,
    sym_max,
    sym_min,
    sym_prove_eq,
    sym_prove_le,
    sym_prove_lt,
)

N = Symbol("N", divisible_by=4)
M = Symbol("M")
K = Symbol("K", divisible_by=2, upper=64)
S = Symbol("S", positive=False, lower=-8, upper=8)
I = Symbol("I", positive=False, lower=0)  # noqa: E741 - an index


# ---------------------------------------------------------------------------------------------------
# Symbols
# ---------------------------------------------------------------------------------------------------


def test_symbol_defaults_to_a_positive_integer():
    x = Symbol("x")
    assert (x.lower, x.upper, x.divisible_by) == (1, None, 1)
    assert x.positive


def test_symbol_bounds_are_tightened_to_multiples_of_the_divisor():
    assert (N.lower, N.upper) == (4, None)
    s = Symbol("s", divisible_by=8, lower=3, upper=30)
    assert (s.lower, s.upper) == (8, 24)


def test_same_name_and_assumptions_is_the_same_symbol():
    assert Symbol("N", divisible_by=4) is N
    assert Symbol("N", divisible_by=4, lower=2) is N  # same normalized assumptions


def test_different_assumptions_or_uids_are_different_symbols():
    assert Symbol("N") is not N
    assert Symbol("N", uid=7) is not Symbol("N")
    a, b = Symbol.fresh("t"), Symbol.fresh("t")
    assert a is not b and a.name == b.name == "t"
    assert a - b != 0  # distinct run-time values do not cancel


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"name": "2x"}, "identifier"),
        ({"name": "min"}, "reserved"),
        ({"name": "n", "lower": 0}, "positive=False"),
        ({"name": "n", "divisible_by": 0}, "divisible_by"),
        ({"name": "n", "lower": 5, "upper": 3}, "empty range"),
        ({"name": "n", "divisible_by": 8, "lower": 1, "upper": 7}, "no multiple of 8"),
        ({"name": "n", "upper": 2.5}, "must be an int"),
    ],
)
def test_bad_symbol_assumptions_are_reported(kwargs, message):
    name = kwargs.pop("name")
    with pytest.raises(LayoutError, match=message):
        Symbol(name, **kwargs)


def test_pickle_and_copy_keep_identity():
    e = 4 * N * M + N // 8 + sym_min(M, 4)
    assert pickle.loads(pickle.dumps(e)) is e
    assert copy.deepcopy(e) is e and copy.copy(e) is e
    f = Symbol.fresh("f")
    assert pickle.loads(pickle.dumps(f)) is f


# ---------------------------------------------------------------------------------------------------
# Python protocol
# ---------------------------------------------------------------------------------------------------


def test_constant_results_are_plain_ints():
    for value in (N - N, (N * M) // (N * M), N % 4, (4 * N + 3) // (4 * N), M * 0):
        assert type(value) is int
    assert N - N == 0 and (4 * N + 3) // (4 * N) == 1


def test_structural_equality_and_hash():
    a = 4 * N * M + 2 * N
    b = 2 * N + M * N * 4
    assert a == b and a is b and hash(a) == hash(b)
    assert N != M and N != 4
    assert int.__eq__(4, N) is NotImplemented and (N == 4) is False
    assert len({a, b, N}) == 2


def test_static_conversions_raise():
    with pytest.raises(TypeError, match="no static value"):
        range(N)
    with pytest.raises(TypeError, match="no static value"):
        int(N)
    with pytest.raises(TypeError, match="truth value"):
        bool(N)
    with pytest.raises(TypeError, match="//"):
        N / 2


@pytest.mark.parametrize("op", ["<", "<=", ">", ">="])
def test_ordering_operators_raise_with_advice(op):
    with pytest.raises(TypeError, match="prove_lt"):
        eval(f"N {op} M", {"N": N, "M": M})


def test_numpy_style_ints_are_accepted_and_other_types_rejected():
    class IntLike:
        def __index__(self):
            return 3

    assert N + IntLike() == N + 3
    with pytest.raises(TypeError):
        N + 1.5
    with pytest.raises(TypeError):
        N + True


def test_power_and_divmod():
    assert N**2 == N * N and N**0 == 1
    assert divmod(4 * N + 5, 4) == (N + 1, 1)


# ---------------------------------------------------------------------------------------------------
# Printing
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "build, text",
    [
        (lambda: 4 * N + 2, "4*N + 2"),
        (lambda: 4 * M * N + 2 * N, "4*M*N + 2*N"),
        (lambda: M // 8, "M // 8"),
        (lambda: ceil_div(M, 8), "ceil_div(M, 8)"),
        (lambda: sym_min(M, 4), "min(M, 4)"),
        (lambda: -(M % 4), "-(M % 4)"),
        (lambda: 4 * (M // 4), "4*(M // 4)"),
        (lambda: -(M // 4), "-(M // 4)"),
        (lambda: K + M // 4, "K + M // 4"),
        (lambda: 3 * (M // 4), "3*(M // 4)"),
        (lambda: M // (K * N), "M // (K*N)"),
        (lambda: (M + 1) % K, "(M + 1) % K"),
        (lambda: (I // M) % N, "(I // M) % N"),
        (lambda: M * M - 1, "M*M - 1"),
    ],
)
def test_str_is_readable_and_parses_back(build, text):
    e = build()
    assert str(e) == text
    assert parse_int_expr(text, {"N": N, "M": M, "K": K, "I": I}) is e


def test_repr_shows_assumptions():
    assert repr(N) == "Symbol('N', divisible_by=4)"
    assert repr(S) == "Symbol('S', positive=False, lower=-8, upper=8)"
    assert repr(N + 1) == "SymInt(N + 1)"


# ---------------------------------------------------------------------------------------------------
# Simplification rules
# ---------------------------------------------------------------------------------------------------


def test_floordiv_rules():
    assert (8 * M) // 8 is M
    assert (8 * M + K) // 8 == M + K // 8  # 8 divides the coefficient of M
    assert (4 * M + 3) // 4 is M  # 0 <= 3 < 4
    assert (4 * N + 1) // 4 == N + 0 and (N + 3) // 4 == N // 4  # 4 | N
    assert (2 * N) // 8 == N // 4
    assert (M // 4) // 2 == M // 8
    assert (M * N) // N is M
    assert (M * N) // (2 * N) == M // 2
    assert 3 // N == 0  # N >= 4
    assert ceil_div(M, 8) == (M + 7) // 8


def test_mod_rules():
    assert N % 4 == 0
    assert (N * 8) % 32 == 0
    assert (8 * M + K) % 8 == K % 8
    assert (4 * M + 3) % 4 == 3
    assert (M % 12) % 4 == M % 4
    assert (2 * M) % 8 == 2 * (M % 4)
    assert (M * N) % N == 0
    assert (N + 1) % 4 == 1


def test_index_identities_of_crd2idx_and_idx2crd():
    assert (I % (M * N)) // M == (I // M) % N
    crd = (I % M, (I // M) % N, I // (M * N))
    assert crd[0] + M * crd[1] + M * N * crd[2] is I
    assert I - 4 * (I // 4) == I % 4
    assert I % 4 + 4 * (I // 4) is I


def test_exact_quotients_cancel():
    assert (N // 4) * 4 is N
    assert 2 * (N // 4) == N // 2
    assert N // 4 + N // 4 == N // 2
    assert (N // 4).known_divisor() == 1 and (N // 2).known_divisor() == 2


def test_ceil_div_rules():
    assert ceil_div(N, 4) == N // 4
    assert ceil_div(4 * M, 4) is M
    assert ceil_div(N, 4 * N) == 1 and ceil_div(4, N) == 1
    assert ceil_div(ceil_div(M, 2), 4) == ceil_div(M, 8)
    assert ceil_div(M, -1) == -M


def test_min_max_fold_when_the_order_is_provable():
    assert sym_min(M, M + 1) is M
    assert sym_max(N, 4) is N
    assert sym_min(N, 2) == 2
    assert sym_min(M, sym_min(K, M)) == sym_min(K, M)
    assert str(sym_max(M, K, 3)) == "max(K, M, 3)"


def test_negative_constant_divisors_follow_python():
    assert -ceil_div(M, 2) == M // -2
    for v in range(1, 20):
        assert (M // -3).evaluate({M: v}) == v // -3
        assert (M % -3).evaluate({M: v}) == v % -3


def test_division_by_zero_raises():
    with pytest.raises(ZeroDivisionError):
        N // 0
    with pytest.raises(ZeroDivisionError):
        N % 0
    with pytest.raises(ZeroDivisionError):
        ceil_div(N, 0)


def test_divisor_that_may_be_zero_is_kept_opaque():
    e = (S * M) // S  # S may be 0: no cancellation
    assert str(e) == "M*S // S"
    assert e.evaluate({S: 2, M: 5}) == 5
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        e.evaluate({S: 0, M: 5})


# ---------------------------------------------------------------------------------------------------
# Proofs
# ---------------------------------------------------------------------------------------------------


def test_divides():
    assert sym_divides(16, 4 * N)
    assert sym_divides(N, N * M) and sym_divides(2 * N, N * K)
    assert sym_divides(M, 0)
    assert not sym_divides(8, N)  # not provable: N = 4 is admissible
    assert not sym_divides(M, 8)
    assert not sym_divides(0, N)
    assert not sym_divides(S, 4 * S)  # S may be 0


def test_order_proofs():
    assert sym_prove_lt(N, N * M + 1)
    assert sym_prove_le(N, N * M)
    assert sym_prove_le(M // 4, M)
    assert sym_prove_lt(M - 1 - M // 5, M)
    assert sym_prove_le(sym_min(M, K), K)
    assert not sym_prove_lt(M, K)  # unknown
    assert sym_prove_le(-8, S) and not sym_prove_le(0, S)
    assert sym_prove_eq((N // 4) * 4, N)
    assert sym_prove_eq(Symbol("p", lower=3, upper=3), 3)


def test_bounds():
    assert (4 * N + 2).bounds == (18, None)
    assert (M % 8).bounds == (0, 7)
    assert (S * S).bounds == (0, 64)
    assert (K // 2).bounds == (1, 32)
    assert sym_min(M, K).bounds == (1, 64)


def test_constant_value_of_a_pinned_symbol():
    p = Symbol("p", lower=3, upper=3)
    assert p.constant_value() == 3
    assert N.constant_value() is None


def test_gcd_and_lcm_closed_forms():
    assert sym_gcd(N, 4 * N) is N
    assert sym_gcd(4, N) == 4
    assert sym_gcd(4 * M, 6 * M) == 2 * M
    assert sym_gcd(4, N + 2) == 2
    assert sym_gcd(2 * M, 2 * M + 2) == 2
    assert sym_lcm(4 * M, 6 * M) == 12 * M
    assert sym_lcm(N, 4) is N


def test_gcd_without_closed_form_says_what_is_known():
    with pytest.raises(LayoutError, match=r"gcd\(N, 12\): no closed form.*multiples of 4"):
        sym_gcd(N, 12)
    with pytest.raises(LayoutError, match=r"lcm\(M, K\): no closed form"):
        sym_lcm(M, K)
    with pytest.raises(LayoutError, match="cannot prove that S is non-negative"):
        sym_gcd(S, 4)


def test_operand_type_errors_name_the_operation():
    with pytest.raises(LayoutError, match="gcd: expected an integer"):
        sym_gcd(N, 2.5)
    with pytest.raises(LayoutError, match="divides: expected an integer"):
        sym_divides("4", N)


# ---------------------------------------------------------------------------------------------------
# evaluate / subs
# ---------------------------------------------------------------------------------------------------


def test_evaluate_by_symbol_or_name():
    e = 4 * N * M + 2 * N + (M + 3) // 4
    assert e.evaluate({N: 8, "M": 5}) == 4 * 8 * 5 + 16 + 2
    assert sym.evaluate(7, {}) == 7


def test_evaluate_uses_floor_semantics_for_negative_values():
    e = (S - 3) // 4 + (S - 3) % 4
    assert e.evaluate({S: -5}) == (-8) // 4 + (-8) % 4
    assert ((S - 1) // 2).evaluate({S: 0}) == -1  # C++ would truncate to 0


def test_evaluate_errors():
    with pytest.raises(LayoutError, match="no value given for the symbol M"):
        (N + M).evaluate({N: 4})
    with pytest.raises(
        LayoutError, match=r"N = 6 violates its assumptions \(divisible_by=4, lower=4\)"
    ):
        N.evaluate({N: 6})
    with pytest.raises(LayoutError, match="expected an int"):
        N.evaluate({N: 4.0})


def test_subs_partial_and_full():
    e = 4 * N * M + N // 8
    assert e.subs({M: 2}) == 8 * N + N // 8
    assert e.subs({"N": 16, "M": 1}) == 66
    assert e.subs({N: 4 * K}) == 16 * K * M + K // 2
    assert e.subs({Symbol("Z"): 3}) is e


def test_subs_rejects_values_outside_the_assumptions():
    with pytest.raises(LayoutError, match=r"subs: N = 6 violates"):
        N.subs({N: 6})
    with pytest.raises(LayoutError, match=r"cannot prove that M satisfies the assumptions of N"):
        (N // 4).subs({N: M})


# ---------------------------------------------------------------------------------------------------
# Tree view, emission, SymPy
# ---------------------------------------------------------------------------------------------------


def test_node_view():
    e = 4 * M * N + 2 * N + 3
    kind, ops = e.node()
    assert kind == "add" and ops[-1] == 3
    assert [str(t) for t in ops[:-1]] == ["4*M*N", "2*N"]
    assert ops[0].node() == ("mul", (4, M * N))
    assert (M * N).node() == ("mul", (M, N))
    assert (M * M).node() == ("mul", (M, M))
    assert M.node() == ("symbol", ())
    assert sym.node(5) == ("const", (5,))
    assert (M // 8).node() == ("floordiv", (M, 8))
    assert ceil_div(M, 8).node() == ("ceildiv", (M, 8))
    assert sym_min(M, 4).node() == ("min", (M, 4))


class RecordingEmitter:
    """Builds SSA-like text, one line per op, to see what is shared."""

    def __init__(self):
        self.lines: list[str] = []

    def _op(self, text):
        self.lines.append(text)
        return f"%{len(self.lines) - 1}"

    def const(self, v):
        return self._op(f"const {v}")

    def symbol(self, s):
        return self._op(f"arg {s.name}")

    def __getattr__(self, name):
        return lambda a, b: self._op(f"{name} {a}, {b}")


def test_emit_shares_common_subexpressions():
    em = RecordingEmitter()
    memo: dict = {}
    sym.emit(4 * M * N + 2, em, memo)
    sym.emit(2 * M * N - M, em, memo)
    assert em.lines.count("arg M") == 1 and em.lines.count("arg N") == 1
    assert (
        sum(line.startswith("mul %0, %1") or line.startswith("mul %1, %0") for line in em.lines)
        == 1
    )
    assert any(line.startswith("sub ") for line in em.lines)


def test_walk_is_post_order_and_unique():
    e = (I // M) % N + M * N
    nodes = list(e.walk())
    assert nodes[-1] is e
    assert len(nodes) == len(set(nodes))
    assert nodes.index(M) < nodes.index(I // M) < nodes.index((I // M) % N)


def test_to_sympy_agrees_with_evaluate():
    sympy = pytest.importorskip("sympy")
    for e in (4 * N * M + 2, (M + 3) // 4, M % 8, ceil_div(M, 3), sym_min(M, 4), sym_max(M, K)):
        expr = e.to_sympy()
        names = {str(s): s for s in expr.free_symbols}
        for n, m, k in ((4, 1, 2), (8, 7, 64), (12, 30, 10)):
            env = {N: n, M: m, K: k}
            vals = {names[s.name]: env[s] for s in e.free_symbols if s.name in names}
            assert int(expr.subs(vals)) == e.evaluate(env)
    assert isinstance(N.to_sympy(), sympy.Symbol)


# ---------------------------------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------------------------------


def test_parse_follows_python_precedence():
    s = {"N": N, "M": M}
    assert parse_int_expr("-M // 4", s) == (-M) // 4
    assert parse_int_expr("M - 4 // 2 * 3", s) == M - 6
    assert parse_int_expr("2*(M + 1) % 4", s) == (2 * (M + 1)) % 4
    assert parse_int_expr("min(M, 4, max(N, 2))", s) == sym_min(M, 4, N)
    assert parse_int_expr(" 12 ") == 12


def test_parse_unknown_names_policy():
    fresh = parse_int_expr("4*Q + 1")
    assert fresh == 4 * Symbol("Q") + 1
    collected: dict = {}
    parse_int_expr("P*R", collected)
    assert set(collected) == {"P", "R"} and collected["P"] is Symbol("P")
    with pytest.raises(LayoutParseError, match="unknown symbol 'Q'"):
        parse_int_expr("Q + 1", {}, create_unknown=False)


@pytest.mark.parametrize(
    "text, message, pos",
    [
        ("4*", "expected a number", 2),
        ("(N + 1", "expected ')'", 6),
        ("N $ 2", "unexpected character '$'", 2),
        ("ceil_div(N)", "ceil_div takes 2 arguments", 0),
        ("floor(N)", "unknown function 'floor'", 0),
        ("min + 1", "'min' is a function", 0),
        ("N // 0", "division by zero", 2),
        ("N N", "unexpected 'N'", 2),
    ],
)
def test_parse_errors_point_at_the_problem(text, message, pos):
    with pytest.raises(LayoutParseError, match=re.escape(message)) as info:
        parse_int_expr(text, {"N": N})
    assert info.value.pos == pos


def test_parse_rejects_non_integer_symbol_values():
    with pytest.raises(LayoutParseError, match="not an integer"):
        parse_int_expr("x + 1", {"x": 1.5})


# ---------------------------------------------------------------------------------------------------
# Caches and import cost
# ---------------------------------------------------------------------------------------------------


def test_caches_are_bounded_and_clearable():
    sym.set_cache_limit(64)
    try:
        for _ in range(300):
            t = Symbol.fresh("t")
            _ = (4 * t + 1) // 4 + t % 3
        assert all(size <= 64 for size in sym.cache_info().values())
    finally:
        sym.set_cache_limit(1 << 16)
    sym.clear_caches()
    assert all(size == 0 for size in sym.cache_info().values())
    assert str((4 * M + 1) // 4) == "M"


def test_importing_the_engine_does_not_import_sympy():
    code = "import sys, layoutc.ir.algebra.symbolic as s; s.Symbol('N') + 1; print('sympy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_symint_is_the_public_base_class():
    assert isinstance(N, SymInt) and isinstance(N + 1, SymInt) and not isinstance(3, SymInt)
    assert sym.is_symbolic(N // 2) and not sym.is_symbolic(2)
