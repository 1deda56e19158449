"""Types and attributes: MLIR spelling, interning, immutability, text round-trips."""

from __future__ import annotations

import copy
import math
import pickle
import struct

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ir_helpers import examples
from layoutc.ir.core import (
    ArrayAttr,
    BoolAttr,
    DenseArrayAttr,
    DictionaryAttr,
    FloatAttr,
    FloatType,
    FunctionType,
    IntegerAttr,
    IntegerType,
    Signedness,
    StringAttr,
    SymbolRefAttr,
    TupleType,
    TypeAttr,
    UnitAttr,
    VectorType,
    bf16,
    f16,
    f32,
    f64,
    i1,
    i8,
    i32,
    index,
    none,
    parse_attribute,
    parse_type,
    tf32,
)
from layoutc.ir.core.floats import FLOAT_FORMATS
from layoutc.ir.dialects.arith import FastMathFlagsAttr, IntegerOverflowFlagsAttr
from layoutc.ir.dialects.llvm_types import LLVMPointerType

TYPE_TEXTS = [
    "i1",
    "i7",
    "si8",
    "ui64",
    "index",
    "f16",
    "bf16",
    "tf32",
    "f32",
    "f64",
    "none",
    "vector<4xf32>",
    "vector<2x3x4xi8>",
    "vector<[4]xi32>",
    "vector<2x[8]xf16>",
    "vector<index>",
    "() -> ()",
    "(i32, f32) -> i1",
    "(i32) -> (i1, i1)",
    "() -> ((i32) -> i32)",
    "tuple<>",
    "tuple<i32, tuple<f32>>",
    "!llvm.ptr",
    "!llvm.ptr<3>",
]


@pytest.mark.parametrize("text", TYPE_TEXTS)
def test_type_text_round_trips_and_interns(text: str) -> None:
    t = parse_type(text)
    assert t.text == text
    assert parse_type(text) is t


def test_builtin_type_constants_and_identity() -> None:
    assert IntegerType(32) is i32 and IntegerType(8, Signedness.UNSIGNED).text == "ui8"
    assert FloatType("bf16") is bf16 and tf32.width == 19 and f16.width == 16
    assert VectorType([4], f32) is parse_type("vector<4xf32>")
    assert FunctionType([i32], [i1]) is parse_type("(i32) -> i1")
    assert TupleType([]) is parse_type("tuple<>") and none.text == "none"
    assert LLVMPointerType(3) is parse_type("!llvm.ptr<3>") and LLVMPointerType().address_space == 0
    assert index.text == "index"


def test_types_and_attributes_are_immutable_copyable_and_picklable() -> None:
    with pytest.raises(AttributeError):
        i32.width = 64  # type: ignore[misc]
    a = ArrayAttr([IntegerAttr(1, i32), StringAttr("x")])
    assert copy.deepcopy(a) is a and copy.copy(i32) is i32
    for obj in (
        a,
        i32,
        VectorType([2], f16),
        FloatAttr(1.5, f32),
        LLVMPointerType(1),
        FastMathFlagsAttr("fast"),
    ):
        assert pickle.loads(pickle.dumps(obj)) is obj


def test_invalid_constructions_raise() -> None:
    with pytest.raises(ValueError):
        IntegerType(-1)
    with pytest.raises(ValueError):
        VectorType([0], f32)
    with pytest.raises(ValueError):
        VectorType([2], VectorType([2], f32))
    with pytest.raises(ValueError):
        IntegerAttr(256, i8)
    with pytest.raises(ValueError):
        IntegerAttr(-1, IntegerType(8, Signedness.UNSIGNED))
    with pytest.raises(TypeError):
        IntegerAttr(1, f32)
    with pytest.raises(ValueError):
        DictionaryAttr([("a", UnitAttr()), ("a", UnitAttr())])
    with pytest.raises(ValueError):
        LLVMPointerType(-2)


ATTR_TEXTS = [
    "true",
    "false",
    "0 : i64",
    "-128 : i8",
    "255 : ui8",
    "-3 : si16",
    "7 : index",
    "1.500000e+00 : f32",
    "-0.000000e+00 : f64",
    "0.1 : f64",
    "0x7FC00000 : f32",
    "0xFC00 : f16",
    "0x7FF0000000000000 : f64",
    '"hello \\22world\\22\\0A \\\\ \\E2\\82\\AC"',
    "[]",
    "[1 : i32, [true], {}]",
    "{a = 1 : i64, b, c = @sym}",
    "@a::@b::@c",
    '@"not an id"',
    "unit",
    "i32",
    "(i32) -> f32",
    "array<i32>",
    "array<i8: -1, 2>",
    "array<i1: true, false>",
    "array<f32: 1.000000e+00, 2.500000e-01>",
    "#arith.overflow<nsw, nuw>",
    "#arith.overflow<none>",
    "#arith.fastmath<fast>",
    "#arith.fastmath<nnan,ninf,contract>",
    'loc("f.py":1:2)',
    "loc(unknown)",
    'loc(callsite("a" at fused["b", "c":1:1]))',
]


@pytest.mark.parametrize("text", ATTR_TEXTS)
def test_attribute_text_round_trips(text: str) -> None:
    a = parse_attribute(text)
    if text == "0.1 : f64":
        assert a.text == "1.000000e-01 : f64"
    else:
        assert a.text == text
    assert parse_attribute(a.text) is a


def test_attribute_values() -> None:
    assert IntegerAttr(255, i8).value == -1 and IntegerAttr(255, i8).unsigned_value == 255
    assert BoolAttr(True) is IntegerAttr(1, i1) and IntegerAttr(1, i1).signed_value == -1
    assert DictionaryAttr({"b": UnitAttr(), "a": UnitAttr()}).text == "{a, b}"
    assert DictionaryAttr({"x": TypeAttr(i32)})["x"].type is i32
    assert SymbolRefAttr("m", ["f"]).leaf == "f"
    assert DenseArrayAttr(i32, [1, 2]).values == (1, 2)
    assert IntegerOverflowFlagsAttr(["nuw", "nsw"]) is IntegerOverflowFlagsAttr(("nsw", "nuw"))
    assert FastMathFlagsAttr(FastMathFlagsAttr.ORDER).text == "#arith.fastmath<fast>"
    assert "nnan" in FastMathFlagsAttr(["nnan"]) and FastMathFlagsAttr().is_none


def test_float_attrs_distinguish_signed_zero_and_keep_nan_payloads() -> None:
    assert FloatAttr(0.0, f32) is not FloatAttr(-0.0, f32)
    nan = FloatAttr.from_bits(0x7FF8000000000001, f64)
    assert math.isnan(nan.value) and nan.text == "0x7FF8000000000001 : f64"
    assert parse_attribute(nan.text) is nan


@pytest.mark.parametrize("name", ["f16", "f32"])
@examples(300)
@given(x=st.floats(allow_nan=False))
def test_float_rounding_matches_ieee_struct(name: str, x: float) -> None:
    fmt = FLOAT_FORMATS[name]
    code = "<e" if name == "f16" else "<f"
    try:
        expected = struct.unpack(code, struct.pack(code, x))[0]
    except OverflowError:
        expected = math.copysign(math.inf, x)
    got = fmt.round(x)
    assert got == expected and math.copysign(1, got) == math.copysign(1, expected)


@examples(300)
@given(x=st.floats(allow_nan=False, width=32))
def test_bf16_is_binary32_rounded_to_eight_significant_bits(x: float) -> None:
    got = FLOAT_FORMATS["bf16"].round(x)
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    rounded = bits + 0x7FFF + ((bits >> 16) & 1)  # round-to-nearest-even on the low 16 bits
    expected = (
        struct.unpack("<f", struct.pack("<I", (rounded >> 16 << 16) & 0xFFFFFFFF))[0]
        if not math.isinf(x)
        else x
    )
    assert got == expected


@examples(300)
@given(t=st.sampled_from([f16, bf16, tf32, f32, f64]), x=st.floats())
def test_float_attr_text_round_trips_bit_exactly(t: FloatType, x: float) -> None:
    a = FloatAttr(x, t)
    again = parse_attribute(a.text)
    assert again is a, (a.text, again.text)


@examples(300)
@given(width=st.integers(1, 128), data=st.data(), signedness=st.sampled_from(list(Signedness)))
def test_integer_attr_text_round_trips(width: int, data, signedness: Signedness) -> None:
    t = IntegerType(width, signedness)
    lo = 0 if signedness is Signedness.UNSIGNED else -(1 << (width - 1))
    hi = (1 << width) - 1 if signedness is not Signedness.SIGNED else (1 << (width - 1)) - 1
    a = IntegerAttr(data.draw(st.integers(lo, hi)), t)
    assert parse_attribute(a.text) is a


def test_numpy_agrees_on_f16_max_and_subnormals() -> None:
    fmt = FLOAT_FORMATS["f16"]
    assert fmt.max_finite == float(np.finfo(np.float16).max)
    tiny = float(np.float16(6e-8))
    assert fmt.round(6e-8) == tiny
