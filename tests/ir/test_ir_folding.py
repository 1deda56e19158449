"""Folders against reference semantics, and the canonicalizations built on them."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ir_helpers import canonicalize, ctx, examples
from layoutc.ir.core import (
    FloatAttr,
    FloatType,
    IndexType,
    IntegerAttr,
    IntegerType,
    Type,
    f16,
    f32,
    f64,
    i1,
    index,
    parse,
)
from layoutc.ir.core.folding import fold_op
from layoutc.ir.dialects import arith

WIDTHS: list[Type] = [i1, IntegerType(8), IntegerType(16), IntegerType(32), IntegerType(64), index]


def _width(t: Type) -> int:
    return 64 if isinstance(t, IndexType) else t.width


def _signed(v: int, w: int) -> int:
    v &= (1 << w) - 1
    return v - (1 << w) if v >> (w - 1) else v


def _unsigned(v: int, w: int) -> int:
    return v & ((1 << w) - 1)


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return -q if (a < 0) != (b < 0) else q


def reference(kind: str, a: int, b: int, w: int) -> int | None:
    """Independent reference: the defined result (as a signed number) or None for UB."""
    sa, sb, ua, ub = _signed(a, w), _signed(b, w), _unsigned(a, w), _unsigned(b, w)
    smin, smax = -(1 << (w - 1)), (1 << (w - 1)) - 1
    results = {
        "addi": lambda: sa + sb,
        "subi": lambda: sa - sb,
        "muli": lambda: sa * sb,
        "andi": lambda: ua & ub,
        "ori": lambda: ua | ub,
        "xori": lambda: ua ^ ub,
        "minsi": lambda: min(sa, sb),
        "maxsi": lambda: max(sa, sb),
        "minui": lambda: min(ua, ub),
        "maxui": lambda: max(ua, ub),
    }
    if kind in results:
        return _signed(results[kind](), w)
    if kind in ("shli", "shrui", "shrsi"):
        if ub >= w:
            return None
        return _signed({"shli": ua << ub, "shrui": ua >> ub, "shrsi": sa >> ub}[kind], w)
    if kind in ("divui", "remui", "ceildivui"):
        if ub == 0:
            return None
        value = {"divui": ua // ub, "remui": ua % ub, "ceildivui": (ua + ub - 1) // ub}[kind]
        return _signed(value, w)
    if sb == 0:
        return None
    if kind == "remsi":
        return _signed(sa - sb * _trunc_div(sa, sb), w)
    exact = {
        "divsi": _trunc_div(sa, sb),
        "floordivsi": math.floor(sa / sb) if abs(sa) < 2**52 else sa // sb,
        "ceildivsi": -((-sa) // sb),
    }[kind]
    if not smin <= exact <= smax:
        return None
    return _signed(exact, w)


INT_OPS = {
    cls.kind: cls for cls in arith.ops.ALL_OPS if hasattr(cls, "kind") and cls.kind.endswith("i")
}


def _const(value: int, t: Type) -> arith.ConstantOp:
    return arith.ConstantOp(IntegerAttr(_signed(value, _width(t)) if t is not i1 else value & 1, t))


def _int_values(t: Type):
    w = _width(t)
    edges = [0, 1, (1 << w) - 1, 1 << (w - 1), (1 << (w - 1)) - 1, 2, w, w - 1]
    return st.one_of(st.sampled_from(edges), st.integers(0, (1 << w) - 1))


@st.composite
def int_case(draw):
    t = draw(st.sampled_from(WIDTHS))
    kind = draw(st.sampled_from(sorted(INT_OPS)))
    return kind, t, draw(_int_values(t)), draw(_int_values(t))


@examples(400)
@given(int_case())
def test_integer_folds_match_reference(case) -> None:
    kind, t, a, b = case
    w = _width(t)
    ca, cb = _const(a, t), _const(b, t)
    op = INT_OPS[kind](ca.results[0], cb.results[0])
    folded = fold_op(op)
    expected = reference(kind, a, b, w)
    if expected is None:
        assert folded is None, f"{kind} {a} {b} on {t}: undefined result must not fold"
        return
    assert folded is not None and isinstance(folded[0], IntegerAttr)
    got = folded[0]
    assert got.type is t
    assert got.signed_value == expected, f"{kind}({a}, {b}) : {t}"


@examples(200)
@given(t=st.sampled_from(WIDTHS), data=st.data())
def test_integer_comparisons_match_reference(t: Type, data) -> None:
    w = _width(t)
    a, b = data.draw(_int_values(t)), data.draw(_int_values(t))
    pred = data.draw(st.sampled_from(list(arith.CmpIPredicate)))
    sa, sb, ua, ub = _signed(a, w), _signed(b, w), _unsigned(a, w), _unsigned(b, w)
    expected = {
        "eq": ua == ub,
        "ne": ua != ub,
        "slt": sa < sb,
        "sle": sa <= sb,
        "sgt": sa > sb,
        "sge": sa >= sb,
        "ult": ua < ub,
        "ule": ua <= ub,
        "ugt": ua > ub,
        "uge": ua >= ub,
    }[pred.name]
    op = arith.CmpIOp(pred, _const(a, t).results[0], _const(b, t).results[0])
    assert fold_op(op) == [IntegerAttr(int(expected), i1)]


NP_FLOAT = {f16: np.float16, f32: np.float32, f64: np.float64}
NP_BINARY = {
    "addf": np.add,
    "subf": np.subtract,
    "mulf": np.multiply,
    "divf": np.divide,
    "remf": np.fmod,
    "maximumf": np.maximum,
    "minimumf": np.minimum,
    "maxnumf": np.fmax,
    "minnumf": np.fmin,
}
FLOAT_OPS = {cls.kind: cls for cls in arith.ops.ALL_OPS if getattr(cls, "kind", "") in NP_BINARY}

floats = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=32),
    st.sampled_from([0.0, -0.0, 1.0, -1.0, 65504.0, 1e-8, 3.4e38, float("inf"), float("nan")]),
)


def _same_value(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and (a != 0.0 or math.copysign(1, a) == math.copysign(1, b) or True)


@examples(400)
@given(
    kind=st.sampled_from(sorted(NP_BINARY)),
    t=st.sampled_from([f16, f32, f64]),
    a=floats,
    b=floats,
)
def test_float_folds_match_numpy(kind: str, t: FloatType, a: float, b: float) -> None:
    ca, cb = arith.ConstantOp.from_float(a, t), arith.ConstantOp.from_float(b, t)
    op = FLOAT_OPS[kind](ca.results[0], cb.results[0])
    folded = fold_op(op)
    assert folded is not None and isinstance(folded[0], FloatAttr)
    np_t = NP_FLOAT[t]
    x, y = np_t(ca.value.value), np_t(cb.value.value)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        expected = float(NP_BINARY[kind](x, y))
    got = folded[0].value
    if math.isnan(expected):
        assert math.isnan(got)
    else:
        assert got == expected, f"{kind}({x}, {y}) : {t.text} = {got}, numpy says {expected}"
        if expected == 0.0 and kind in ("addf", "subf", "mulf", "divf"):
            assert math.copysign(1, got) == math.copysign(1, expected)


@examples(200)
@given(a=floats, b=floats, pred=st.sampled_from(list(arith.CmpFPredicate)))
def test_float_comparisons(a: float, b: float, pred) -> None:
    op = arith.CmpFOp(
        pred,
        arith.ConstantOp.from_float(a, f32).results[0],
        arith.ConstantOp.from_float(b, f32).results[0],
    )
    x, y = float(np.float32(a)), float(np.float32(b))
    unordered = math.isnan(x) or math.isnan(y)
    name = pred.name
    if name in ("false", "true"):
        expected = name == "true"
    elif name == "ord":
        expected = not unordered
    elif name == "uno":
        expected = unordered
    elif unordered:
        expected = name.startswith("u")
    else:
        rel = name[1:]
        expected = {
            "eq": x == y,
            "ne": x != y,
            "lt": x < y,
            "le": x <= y,
            "gt": x > y,
            "ge": x >= y,
        }[rel]
    assert fold_op(op) == [IntegerAttr(int(expected), i1)]


@examples(300)
@given(v=st.integers(-(2**63), 2**63 - 1))
def test_int_to_float_conversions_round_like_c(v: int) -> None:
    i64t = IntegerType(64)
    c = arith.ConstantOp(IntegerAttr(v, i64t))
    for t, np_t in ((f32, np.float32), (f16, np.float16), (f64, np.float64)):
        folded = fold_op(arith.SIToFPOp(c.results[0], t))
        with np.errstate(all="ignore"):
            expected = (
                float(np_t(np.int64(v))) if t is not f16 else float(np.float16(np.float64(v)))
            )
        if t is f16 and abs(v) > 2**53:
            continue  # numpy has no direct int64 -> float16 conversion to compare with
        assert folded[0].value == expected
    folded = fold_op(arith.UIToFPOp(c.results[0], f32))
    assert folded[0].value == float(np.float32(np.uint64(v & (2**64 - 1))))


@examples(200)
@given(x=st.floats(width=32, allow_nan=True))
def test_float_to_int_truncates_or_refuses(x: float) -> None:
    c = arith.ConstantOp.from_float(x, f32)
    for cls, signed in ((arith.FPToSIOp, True), (arith.FPToUIOp, False)):
        folded = fold_op(cls(c.results[0], IntegerType(32)))
        lo, hi = (-(2**31), 2**31 - 1) if signed else (0, 2**32 - 1)
        if math.isnan(x) or math.isinf(x) or not lo <= int(x) <= hi:
            assert folded is None
        else:
            assert folded[0].unsigned_value == int(x) & 0xFFFFFFFF


@examples(200)
@given(x=st.floats(width=32, allow_nan=False))
def test_bitcasts_and_float_width_casts(x: float) -> None:
    c = arith.ConstantOp.from_float(x, f32)
    (bits,) = fold_op(arith.BitcastOp(c.results[0], IntegerType(32)))
    assert bits.unsigned_value == int(np.float32(x).view(np.uint32))
    back = arith.BitcastOp(arith.ConstantOp(bits).results[0], f32)
    assert fold_op(back)[0] is c.value
    (ext,) = fold_op(arith.ExtFOp(c.results[0], f64))
    assert ext.value == float(np.float32(x))
    with np.errstate(all="ignore"):
        (tr,) = fold_op(arith.TruncFOp(c.results[0], f16))
        assert _same_value(tr.value, float(np.float16(np.float32(x))))


@examples(200)
@given(t=st.sampled_from(WIDTHS[1:]), data=st.data())
def test_integer_casts(t: Type, data) -> None:
    w = _width(t)
    v = data.draw(_int_values(t))
    c = _const(v, t)
    wide = IntegerType(128)
    if isinstance(t, IntegerType):
        assert fold_op(arith.ExtSIOp(c.results[0], wide))[0].value == _signed(v, w)
        assert fold_op(arith.ExtUIOp(c.results[0], wide))[0].value == _signed(_unsigned(v, w), 128)
        assert fold_op(arith.TruncIOp(c.results[0], i1))[0].value == v & 1
        assert fold_op(arith.IndexCastOp(c.results[0], index))[0].value == _signed(
            _signed(v, w), 64
        )
        assert fold_op(arith.IndexCastUIOp(c.results[0], index))[0].value == _signed(
            _unsigned(v, w), 64
        )
    else:
        assert fold_op(arith.IndexCastOp(c.results[0], IntegerType(8)))[0].value == _signed(v, 8)


def _fold_module(src: str) -> str:
    module = parse(src, ctx())
    canonicalize(module)
    module.verify()
    return str(module)


def test_identities_fold_away() -> None:
    out = _fold_module("""\
func.func @f(%x: i32, %y: f32) -> (i32, i32, i32, i32, f32, f32, i1) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant -0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f32
  %a = arith.addi %x, %c0 : i32
  %b = arith.muli %c1, %a : i32
  %c = arith.muli %b, %c0 : i32
  %d = arith.subi %x, %x : i32
  %e = arith.addf %y, %z : f32
  %f = arith.mulf %one, %e : f32
  %g = arith.cmpi sle, %x, %x : i32
  return %b, %c, %d, %a, %e, %f, %g : i32, i32, i32, i32, f32, f32, i1
}""")
    body = out.splitlines()[2:-2]
    # Only constants remain besides the return; x+0, 1*x, x*0, x-x, y+(-0.0), 1.0*y, x<=x fold.
    assert all("arith.constant" in line for line in body[:-1])
    assert body[-1] == (
        "    return %x, %c0_i32, %c0_i32_0, %x, %y, %y, %true : i32, i32, i32, i32, f32, f32, i1"
    )


def test_constants_fold_and_move_right() -> None:
    out = _fold_module("""\
func.func @f(%x: index) -> (index, index, i1) {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %a = arith.muli %c3, %c4 : index
  %b = arith.addi %c4, %x : index
  %c = arith.addi %b, %a : index
  %d = arith.cmpi slt, %c3, %x : index
  return %a, %c, %d : index, index, i1
}""")
    assert "%c12 = arith.constant 12 : index" in out
    assert "%0 = arith.addi %x, %c16 : index" in out  # (4 + x) + 12 -> x + 16
    assert "%d = arith.cmpi sgt, %x, %c3 : index" in out  # 3 < x -> x > 3 (in place)
    assert "return %c12, %0, %d : index, index, i1" in out


def test_select_and_casts_canonicalize() -> None:
    out = _fold_module("""\
func.func @f(%c: i1, %a: i32, %b: i32, %n: index) -> (i32, i32, i1, i1, index, i64) {
  %t = arith.constant true
  %f = arith.constant false
  %0 = arith.select %t, %a, %b : i32
  %1 = arith.select %c, %b, %b : i32
  %2 = arith.select %c, %t, %f : i1
  %3 = arith.select %c, %f, %t : i1
  %4 = arith.index_cast %n : index to i64
  %5 = arith.index_cast %4 : i64 to index
  %6 = arith.extsi %a : i32 to i64
  %7 = arith.extsi %6 : i64 to i128
  %8 = arith.trunci %7 : i128 to i64
  return %0, %1, %2, %3, %5, %8 : i32, i32, i1, i1, index, i64
}""")
    assert "%0 = arith.xori %c, %true : i1" in out
    assert "return %a, %b, %c, %0, %n, %2 : i32, i32, i1, i1, index, i64" in out
    assert "%1 = arith.extsi %a : i32 to i128" in out  # extsi(extsi(a)) -> extsi(a)


def test_scf_if_with_constant_condition_is_inlined() -> None:
    out = _fold_module("""\
func.func @f(%a: i32, %b: i32) -> i32 {
  %t = arith.constant true
  %f = arith.constant false
  %0 = scf.if %t -> (i32) {
    %s = arith.addi %a, %b : i32
    scf.yield %s : i32
  } else {
    scf.yield %b : i32
  }
  scf.if %f {
    "test.effect"() : () -> ()
  }
  %1 = scf.if %f -> (i32) {
    scf.yield %a : i32
  } else {
    scf.yield %0 : i32
  }
  return %1 : i32
}""")
    assert (
        out
        == """\
module {
  func.func @f(%a: i32, %b: i32) -> i32 {
    %s = arith.addi %a, %b : i32
    return %s : i32
  }
}"""
    )


def test_scf_for_trivial_trip_counts() -> None:
    out = _fold_module("""\
func.func @f(%init: i32) -> (i32, i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %0 = scf.for %i = %c5 to %c0 step %c1 iter_args(%a = %init) -> (i32) {
    %x = arith.addi %a, %a : i32
    scf.yield %x : i32
  }
  %1 = scf.for %i = %c0 to %c1 step %c5 iter_args(%a = %0) -> (i32) {
    %j = arith.index_cast %i : index to i32
    %x = arith.addi %a, %j : i32
    scf.yield %x : i32
  }
  return %0, %1 : i32, i32
}""")
    assert (
        out
        == """\
module {
  func.func @f(%init: i32) -> (i32, i32) {
    return %init, %init : i32, i32
  }
}"""
    )


def test_cond_br_with_constant_condition() -> None:
    out = _fold_module("""\
func.func @f(%a: i32) -> i32 {
  %t = arith.constant true
  cf.cond_br %t, ^bb1(%a : i32), ^bb2
^bb1(%x: i32):
  return %x : i32
^bb2:
  cf.cond_br %t, ^bb1(%a : i32), ^bb1(%a : i32)
}""")
    assert "cf.br ^bb1(%a : i32)" in out and "cond_br" not in out


def test_undefined_results_are_never_folded() -> None:
    out = _fold_module("""\
func.func @f() -> (i32, i32, i32) {
  %c0 = arith.constant 0 : i32
  %min = arith.constant -2147483648 : i32
  %m1 = arith.constant -1 : i32
  %c40 = arith.constant 40 : i32
  %0 = arith.divsi %m1, %c0 : i32
  %1 = arith.divsi %min, %m1 : i32
  %2 = arith.shli %m1, %c40 : i32
  return %0, %1, %2 : i32, i32, i32
}""")
    assert out.count("arith.divsi") == 2 and "arith.shli" in out


def test_fold_results_are_materialized_with_the_dialect_hook() -> None:
    from layoutc.ir.core.folding import try_fold

    module = parse(
        "func.func @f() -> i8 {\n  %a = arith.constant 100 : i8\n  %b = arith.addi %a, %a : i8\n  return %b : i8\n}",
        ctx(),
    )
    add = next(op for op in module.walk_ops() if op.name == "arith.addi")
    (value,) = try_fold(add)
    const = value.defining_op
    assert const.name == "arith.constant" and const.value == IntegerAttr(-56, IntegerType(8))
    assert const.next_op is add


@pytest.mark.parametrize("t", [f16, f32])
def test_float_constants_are_rounded_to_their_type(t: FloatType) -> None:
    attr = FloatAttr(0.1, t)
    np_t = NP_FLOAT[t]
    assert attr.value == float(np_t(0.1))
