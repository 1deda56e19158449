"""The kernel ABI description, layout text, dtype mapping, array adapters and packing."""

from __future__ import annotations

import ctypes
import json
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from layoutc.runtime.abi import KernelSpec, LaunchBounds, Param
from layoutc.runtime.arrays import array_facts, compact_strides
from layoutc.runtime.dtypes import bf16_bits, from_dlpack, from_torch, from_typestr
from layoutc.runtime.errors import ArgumentError, NotSupportedError
from layoutc.runtime.layout_text import (
    LayoutTextError,
    coalesce_static,
    count_dynamic,
    parse_layout,
)
from layoutc.runtime.packing import ArgumentBinder, ParamBuffer

DTYPE_NAMES = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "bf16", "f32", "f64"]


# -- layout text ------------------------------------------------------------------------------


def test_parse_layout_nested_and_dynamic():
    assert parse_layout("(4,?):(1,?)") == ((4, None), (1, None))
    assert parse_layout("((2,?),8):((1,?),?)") == (((2, None), 8), ((1, None), None))
    assert parse_layout("8:1") == (8, 1)
    assert parse_layout("(2, -3):( 1 ,4)") == ((2, -3), (1, 4))
    assert count_dynamic("((2,?),8):((1,?),?)") == 3


@pytest.mark.parametrize(
    "bad", ["(4,?)", "(4,?):(1)", "(4,?:(1,2)", "(a,1):(1,1)", "4:1:1", "(4,):(1,)"]
)
def test_parse_layout_rejects(bad):
    with pytest.raises(LayoutTextError):
        parse_layout(bad)


def test_coalesce_static_modes():
    assert coalesce_static((2, 4), (1, 2)) == [(8, 1)]
    assert coalesce_static((2, 1, 4), (1, 7, 2)) == [(8, 1)]
    assert coalesce_static((2, 4), (4, 1)) == [(2, 4), (4, 1)]
    assert coalesce_static((1, 1), (3, 5)) == []


# -- spec ---------------------------------------------------------------------------------------


def test_spec_validation_messages():
    with pytest.raises(ValueError, match="kind must be"):
        Param("a", "tensor", "f32")
    with pytest.raises(ValueError, match="unknown element type 'float'"):
        Param("a", "pointer", "float")
    with pytest.raises(ValueError, match="2 dynamic entries but 1 carrier"):
        Param("a", "pointer", "f32", "(?,4):(1,?)", ("n",))
    with pytest.raises(ValueError, match="no scalar parameter has that name"):
        KernelSpec("k", (Param("a", "pointer", "f32", "(?):(1)", ("n",)),))
    with pytest.raises(ValueError, match="duplicate parameter"):
        KernelSpec("k", (Param("a", "scalar", "i32"), Param("a", "scalar", "i32")))


params_strategy = st.lists(
    st.tuples(st.sampled_from(["pointer", "scalar"]), st.sampled_from(DTYPE_NAMES)), max_size=6
)


@settings(max_examples=50, deadline=None)
@given(params_strategy, st.integers(0, 1 << 16), st.integers(0, 1 << 16))
def test_spec_json_round_trip(kinds, static, dynamic):
    params = tuple(Param(f"p{i}", k, d) for i, (k, d) in enumerate(kinds))
    spec = KernelSpec("k", params, LaunchBounds(256, 2, None), static, dynamic)
    assert KernelSpec.from_json(json.loads(json.dumps(spec.to_json()))) == spec


def test_arguments_exclude_layout_carriers():
    spec = KernelSpec(
        "k",
        (
            Param("x", "pointer", "f32", "(?,4):(1,?)", ("m", "ld")),
            Param("m", "scalar", "i32"),
            Param("ld", "scalar", "i64"),
            Param("alpha", "scalar", "f32"),
        ),
    )
    assert [p.name for p in spec.arguments] == ["x", "alpha"]


# -- dtypes ---------------------------------------------------------------------------------------


def test_foreign_dtype_names():
    assert from_dlpack(2, 32, 1) == "f32" and from_dlpack(4, 16, 1) == "bf16"
    assert from_dlpack(1, 8, 1) == "u8" and from_dlpack(2, 32, 4) is None
    assert (
        from_typestr("<f4") == "f32" and from_typestr("|u1") == "u8" and from_typestr("<c8") is None
    )
    assert from_torch("torch.bfloat16") == "bf16" and from_torch("torch.complex64") is None


@pytest.mark.parametrize(
    ("value", "bits"),
    [
        (1.0, 0x3F80),
        (-2.0, 0xC000),
        (1.00390625, 0x3F80),
        (1.01171875, 0x3F82),
        (float("inf"), 0x7F80),
    ],
)
def test_bf16_rounds_to_nearest_even(value, bits):
    assert bf16_bits(value) == bits


def test_bf16_nan_stays_nan():
    assert bf16_bits(float("nan")) & 0x7F80 == 0x7F80 and bf16_bits(float("nan")) & 0x7F


# -- array adapters -----------------------------------------------------------------------------


class DLPackOnly:
    """Exposes an array only through DLPack (numpy produces the capsule)."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


class InterfaceOnly:
    def __init__(self, a):
        self.__array_interface__ = a.__array_interface__
        self.a = a


@pytest.mark.parametrize("wrap", [lambda a: a, DLPackOnly, InterfaceOnly])
def test_adapters_agree_on_a_strided_view(wrap):
    base = np.arange(60, dtype=np.float32).reshape(6, 10)
    view = base[1:5, 2:9:2]
    facts = array_facts(wrap(view))
    assert facts.ptr == view.ctypes.data
    assert facts.shape == (4, 4)
    assert facts.strides == (10, 2)
    assert facts.dtype == "f32"
    assert facts.device_type == "cpu"


def test_compact_strides():
    assert compact_strides((2, 3, 4)) == (12, 4, 1)
    assert compact_strides(()) == ()


# -- packing --------------------------------------------------------------------------------------


def test_param_buffer_aligns_and_points_at_each_value():
    params = [
        Param("a", "scalar", "i8"),
        Param("p", "pointer", "f32"),
        Param("b", "scalar", "i16"),
        Param("c", "scalar", "f64"),
        Param("d", "scalar", "i32"),
    ]
    buf = ParamBuffer(params)
    assert buf.offsets == (0, 8, 16, 24, 32)
    buf.store([-3, 0xDEADBEEF, 7, 2.5, -9])
    table = (ctypes.c_void_p * 5).from_address(buf.table_address)
    read = [
        struct.unpack(fmt, ctypes.string_at(ptr, struct.calcsize(fmt)))[0]
        for ptr, fmt in zip(table, ["b", "Q", "h", "d", "i"])
    ]
    assert read == [-3, 0xDEADBEEF, 7, 2.5, -9]


def _layout_binder(
    layout: str, carriers: tuple[str, ...], carrier_dtype: str = "i32"
) -> ArgumentBinder:
    carrier_params = tuple(Param(c, "scalar", carrier_dtype) for c in carriers)
    params = (Param("x", "pointer", "f32", layout, carriers), *carrier_params)
    return ArgumentBinder(KernelSpec("k", params), "cpu")


def test_dynamic_entries_are_filled_in_printed_order():
    binder = _layout_binder("(?,4,?):(?,?,1)", ("s0", "s2", "d0", "d1"))
    a = np.zeros((3, 4, 5), np.float32)[:, :, :]
    binder.bind([a])
    assert binder.values == [a.ctypes.data, 3, 5, 20, 5]


def test_static_entries_are_checked():
    binder = _layout_binder("(4,?):(?,1)", ("n", "ld"))
    binder.bind([np.zeros((4, 7), np.float32)])
    with pytest.raises(ArgumentError, match=r"dimension 0 has extent 5, layout .* requires 4"):
        binder.bind([np.zeros((5, 7), np.float32)])
    with pytest.raises(
        ArgumentError, match=r"dimension 1 has element stride 4, layout .* requires 1"
    ):
        binder.bind([np.zeros((7, 4), np.float32).T])
    with pytest.raises(ArgumentError, match="has 2 modes but the array has 1 dimensions"):
        binder.bind([np.zeros(4, np.float32)])


def test_size_one_dimension_ignores_stride():
    binder = _layout_binder("(1,?):(7,1)", ("n",))
    binder.bind([np.zeros((1, 5), np.float32)])
    assert binder.values[1] == 5


def test_nested_static_mode_matches_its_coalesced_form():
    binder = _layout_binder("((2,4),?):((1,2),?)", ("n", "ld"))
    binder.bind([np.zeros((5, 8), np.float32).T])  # dim 0: extent 8, stride 1
    with pytest.raises(ArgumentError, match="does not match mode 0"):
        binder.bind([np.zeros((8, 5), np.float32)])


def test_nested_dynamic_mode_is_not_supported_clearly():
    with pytest.raises(NotSupportedError, match=r"mode 0 .* nested and has dynamic entries"):
        _layout_binder("((2,?),4):((1,2),?)", ("a", "b"))


def test_carrier_range_is_checked():
    binder = _layout_binder("(?):(?)", ("n", "s"), carrier_dtype="i8")
    with pytest.raises(ArgumentError, match="extent 300 does not fit in i8 parameter 'n'"):
        binder.bind([np.zeros(300, np.float32)])


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(DTYPE_NAMES), st.integers(-(1 << 70), 1 << 70))
def test_integer_scalars_range_checked_exactly(dtype, value):
    binder = ArgumentBinder(KernelSpec("k", (Param("v", "scalar", dtype),)), "cpu")
    if dtype[0] in "iu":
        bits = int(dtype[1:])
        lo, hi = (
            (0, (1 << bits) - 1) if dtype[0] == "u" else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
        )
        if lo <= value <= hi:
            binder.bind([value])
            assert binder.values == [value]
        else:
            with pytest.raises(ArgumentError, match="does not fit"):
                binder.bind([value])
    elif abs(value) < 6e4:  # representable in every float type
        binder.bind([float(value)])
    else:
        limit = {"f16": 65504.0, "bf16": 3.4e38, "f32": 3.4e38, "f64": 1.8e308}[dtype]
        if abs(float(value)) > limit:
            with pytest.raises(ArgumentError, match="does not fit"):
                binder.bind([float(value)])
        else:
            binder.bind([float(value)])


def test_gpu_array_refused_by_cpu_kernel():
    binder = ArgumentBinder(KernelSpec("k", (Param("x", "pointer", "f32"),)), "cpu")

    class OnGpu:
        def __dlpack_device__(self):
            return (2, 0)

        def __dlpack__(self, stream=None):
            return np.zeros(4, np.float32).__dlpack__()

    with pytest.raises(ArgumentError, match="lives on cuda:0, but this kernel runs on the CPU"):
        binder.bind([OnGpu()])
