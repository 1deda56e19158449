"""Compile specs: derivation from arrays (Triton-style divisibility and alignment), annotations
with shared symbols, scalars and constants, the cache key, and the kernel ABI built from a spec."""

from __future__ import annotations

import subprocess
import sys

import layoutc as lc
import numpy as np
import pytest
from layoutc.frontend.abi import build_abi
from layoutc.frontend.spec import (
    ConstexprSpec,
    ScalarSpec,
    SpecError,
    TensorSpec,
    pow2_divisor,
)


@lc.kernel
def one(x: lc.Tensor):
    pass


@lc.kernel
def typed(x: lc.Tensor[lc.f32], n: int, alpha: float, tile: lc.Constexpr[int]):
    pass


@lc.kernel
def one_scalar(n, x):
    pass


@lc.kernel
def shared(a: lc.Tensor[lc.f32, "(N,8):(8,1)"], b: lc.Tensor(lc.f32, "(N):(1)")):  # noqa: F722
    pass


@lc.kernel
def square(a: lc.Tensor[lc.f32, "(N,N):(N,1)"]):  # noqa: F722
    pass


def aligned(shape, dtype=np.float32, order="C"):
    """An array whose data pointer is 64-byte aligned (so alignment facts are predictable)."""
    n = int(np.prod(shape)) * np.dtype(dtype).itemsize
    raw = np.zeros(n + 64, np.uint8)
    start = (-raw.ctypes.data) % 64
    flat = raw[start : start + n].view(dtype)
    return flat.reshape(shape, order=order)


def tensor_spec(spec, name="x") -> TensorSpec:
    t = dict(spec.args)[name]
    assert isinstance(t, TensorSpec)
    return t


def test_contiguous_array_gives_dynamic_extents_and_static_unit_stride():
    spec = one.specialize(aligned((48, 24)))
    t = tensor_spec(spec)
    assert t.dtype == "f32" and t.align == 16 and t.space == "gmem"
    assert t.layout_text(symbols=False) == "(?,?):(?,1)"
    facts = {s.name: s for s in spec.symbols}
    extents = [facts[n] for n in t.shape]
    assert [f.divisible_by for f in extents] == [16, 8]
    assert all(f.lower == 1 and f.dtype == "i32" for f in extents)
    assert facts[t.stride[0]].divisible_by == 8  # the row stride is 24


def test_column_major_and_strided_views():
    f = aligned((32, 16), order="F")
    assert tensor_spec(one.specialize(f)).layout_text(symbols=False) == "(?,?):(1,?)"
    strided = aligned((32, 16))[:, ::2]
    t = tensor_spec(one.specialize(strided))
    assert t.layout_text(symbols=False) == "(?,?):(?,?)"


@pytest.mark.parametrize("value, expected", [(48, 16), (24, 8), (7, 1), (0, 16), (-12, 4), (1, 1)])
def test_divisibility_is_the_largest_power_of_two_up_to_16(value, expected):
    assert pow2_divisor(value) == expected


def test_alignment_comes_from_the_data_pointer():
    base = aligned((64,))
    assert tensor_spec(one.specialize(base)).align == 16
    assert tensor_spec(one.specialize(base[1:])).align == 4
    assert tensor_spec(one.specialize(base[2:])).align == 8
    d = aligned((64,), np.float64)
    assert tensor_spec(one.specialize(d[1:])).align == 8


def test_key_depends_on_divisibility_not_on_values():
    k48 = one.specialize(aligned((48,))).key
    assert one.specialize(aligned((64,))).key == k48  # both divisible by 16
    assert one.specialize(aligned((40,))).key != k48  # divisible by 8 only
    assert one.specialize(aligned((48,), np.float64)).key != k48
    assert one.specialize(aligned((48,)), block=128).key != k48
    hash(k48)


def test_fingerprint_is_stable_across_processes():
    here = one.specialize(aligned((48, 16)), block=(16, 8)).fingerprint()
    code = (
        "import sys; sys.path.insert(0, {d!r}); import numpy as np; import test_spec as t; "
        "print(t.one.specialize(t.aligned((48, 16)), block=(16, 8)).fingerprint())"
    ).format(d=__import__("os").path.dirname(__file__))
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**__import__("os").environ, "PYTHONHASHSEED": "123"},
    )
    assert out.stdout.strip() == here


def test_scalars_and_constants():
    spec = typed.specialize(aligned((8,)), 12, 0.5, 64)
    args = dict(spec.args)
    assert args["n"] == ScalarSpec("i32", 4)
    assert args["alpha"] == ScalarSpec("f32")
    assert args["tile"] == ConstexprSpec(64)
    big = dict(typed.specialize(aligned((8,)), 1 << 40, 0.5, 64).args)["n"]
    assert big == ScalarSpec("i64", 16)
    numpy_scalars = dict(one_scalar.specialize(np.int64(6), np.float64(0.5)).args)
    assert numpy_scalars == {"n": ScalarSpec("i64", 2), "x": ScalarSpec("f64")}
    assert typed.specialize(aligned((8,)), 12, 0.5, 32).key != spec.key


def test_annotation_shares_symbols_between_arguments():
    spec = shared.specialize(aligned((32, 8)), aligned((32,)))
    assert tensor_spec(spec, "a").shape == ("N", 8)
    assert tensor_spec(spec, "b").shape == ("N",)
    assert [s.name for s in spec.symbols] == ["N"]
    abi = build_abi("shared", spec)
    assert abi.equal_carriers == (("a_shape0", "b_shape0"),)
    with pytest.raises(
        SpecError, match=r"'b' \(extent of mode 0\) gives N = 16, but .*'a'.* N = 32"
    ):
        shared.specialize(aligned((32, 8)), aligned((16,)))


def test_annotation_static_entries_must_match():
    with pytest.raises(SpecError, match="mode 0 has stride 4, but its annotation requires 8"):
        shared.specialize(aligned((32, 4)), aligned((32,)))
    with pytest.raises(SpecError, match="mode 1 has extent 4, but its annotation requires 8"):
        shared.specialize(aligned((32, 8))[:, :4], aligned((32,)))
    with pytest.raises(SpecError, match="rank-2 layout"):
        shared.specialize(aligned((32,)), aligned((32,)))
    # one symbol for an extent and a stride: a square row-major matrix
    assert tensor_spec(square.specialize(aligned((16, 16))), "a").stride == ("N", 1)
    with pytest.raises(SpecError, match="N = 16"):
        square.specialize(aligned((16, 32))[:, :16])


@lc.kernel
def pair(a, b: lc.Tensor[lc.f32, "(?):(1)"], c: lc.Tensor[lc.f32, "(M):(1)"]):  # noqa: F722
    pass


def test_equal_anonymous_entries_share_one_symbol():
    """Unannotated arrays and ``?`` entries equal at this call are one symbol (the equality is
    part of the key); named entries keep their names whatever their values."""
    spec = pair.specialize(aligned((8, 16)), aligned((16,)), aligned((16,)))
    a, b, c = (tensor_spec(spec, n) for n in "abc")
    assert a.shape == ("?a.shape0", "?a.shape1") and a.stride == ("?a.shape1", 1)
    assert b.shape == ("?a.shape1",)  # b's extent equals a's column count
    assert c.shape == ("M",)  # a name stays a name
    assert {s.name for s in spec.symbols} == {"?a.shape0", "?a.shape1", "M"}
    other = pair.specialize(aligned((8, 16)), aligned((32,)), aligned((16,)))
    assert tensor_spec(other, "b").shape == ("?b.shape0",)
    assert other.key != spec.key


def test_arrays_of_unsupported_element_types_are_named():
    with pytest.raises(SpecError, match="arrays of element type complex64 are not supported"):
        one.specialize(np.zeros(8, np.complex64))


def test_bad_arguments_are_spec_errors():
    with pytest.raises(SpecError, match="negative strides"):
        one.specialize(aligned((16,))[::-1])
    with pytest.raises(SpecError, match="element type u8"):
        one.specialize(np.zeros(8, np.uint8))
    with pytest.raises(SpecError, match="tensor parameter but got list"):
        typed.specialize([1, 2], 1, 1.0, 2)
    with pytest.raises(SpecError, match="must be hashable"):
        typed.specialize(aligned((8,)), 1, 1.0, [1])
    with pytest.raises(SpecError, match="missing a required argument"):
        typed.specialize(aligned((8,)))
    with pytest.raises(SpecError, match="at most 1024"):
        one.specialize(aligned((8,)), block=(64, 32))


class _DLPackOnly:
    """Exposes a numpy array through DLPack only (as torch/JAX producers do)."""

    def __init__(self, a):
        self._a = a

    def __dlpack__(self, stream=None):
        return self._a.__dlpack__()

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


class _CudaArrayInterface:
    """A device array described by __cuda_array_interface__ (a null pointer: no driver call)."""

    def __init__(self, shape, typestr, strides=None):
        self.__cuda_array_interface__ = {
            "shape": shape,
            "typestr": typestr,
            "data": (0, False),
            "strides": strides,
            "version": 3,
        }


def test_dlpack_and_cuda_array_interface_producers():
    a = aligned((16, 32))
    assert one.specialize(_DLPackOnly(a)).key == one.specialize(a).key
    cai = _CudaArrayInterface((16, 32), "<f2")
    t = tensor_spec(one.specialize(cai))
    assert t.dtype == "f16" and t.layout_text(symbols=False) == "(?,?):(?,1)" and t.align == 16


def test_abi_lays_out_pointers_carriers_and_scalars():
    spec = typed.specialize(aligned((8, 16))[:, :8], 3, 1.0, 4, block=64)
    abi = build_abi("typed", spec)
    names = [(p.name, p.kind, p.dtype) for p in abi.params]
    assert names == [
        ("x", "pointer", "f32"),
        ("x_shape0", "scalar", "i32"),
        ("x_shape1", "scalar", "i32"),
        ("x_stride0", "scalar", "i32"),
        ("n", "scalar", "i32"),
        ("alpha", "scalar", "f32"),
    ]
    assert abi.params[0].layout == "(?,?):(?,1)"
    assert abi.params[0].dynamic == ("x_shape0", "x_shape1", "x_stride0")
    rt = abi.runtime_spec()
    assert [p.name for p in rt.arguments] == ["x", "n", "alpha"]
    assert rt.launch_bounds.block == (64, 1, 1)
    bound = {"x": "X", "n": 3, "alpha": 1.0, "tile": 4}
    assert abi.call_arguments(bound) == ["X", 3, 1.0]
