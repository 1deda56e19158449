"""TMA descriptor parameters in the runtime ABI: the binder encodes them from the source
tensor's bound pointer, extents and strides at every launch (fast path included), 64-byte
aligned in the parameter buffer; the spec round-trips through JSON and the manifest schema."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from layoutc.runtime import tma
from layoutc.runtime.abi import TMA, KernelSpec, Param, TmaSource
from layoutc.runtime.packing import ArgumentBinder

SPEC = KernelSpec(
    "k",
    (
        Param("A", "pointer", "f32", "(?,?):(?,1)", ("A_shape0", "A_shape1", "A_stride0")),
        Param("A_shape0", "scalar", "i32"),
        Param("A_shape1", "scalar", "i32"),
        Param("A_stride0", "scalar", "i32"),
        Param("n", "scalar", "i32"),
        Param(
            "A_tma0",
            TMA,
            "f32",
            tma=TmaSource("A", (32, 8), (1, 0), 128, ("A_shape0", "A_shape1"), ("A_stride0", 1)),
        ),
    ),
)


class Recorder:
    def __init__(self):
        self.calls = []

    def get(self, name, box, address, extents, strides):
        self.calls.append((name, box, address, extents, strides))
        return bytes([len(self.calls)]) * 128


def test_the_binder_encodes_descriptors_from_the_bound_tensor(monkeypatch):
    rec = Recorder()
    monkeypatch.setattr(tma, "DESCRIPTORS", rec)
    binder = ArgumentBinder(SPEC, "cpu")
    assert [p.name for p in SPEC.arguments] == ["A", "n"]
    store = np.zeros((20, 48), np.float32)
    a = store[:, :40]  # row pitch 48 elements = 192 bytes
    binder.bind((a, 3))
    assert rec.calls == [("A", tma.TmaBox("f32", (32, 8), 128), a.ctypes.data, (40, 20), (4, 192))]
    offset = binder.buffer.offsets[5]
    assert offset % 64 == 0
    raw = ctypes.string_at(ctypes.addressof(binder.buffer.buffer) + offset, 128)
    assert raw == bytes([1]) * 128
    b = np.zeros((20, 48), np.float32)[:, :40]  # like a: the fast path, a new pointer
    binder.bind((b, 4))
    assert rec.calls[-1][2] == b.ctypes.data and len(rec.calls) == 2
    raw = ctypes.string_at(ctypes.addressof(binder.buffer.buffer) + offset, 128)
    assert raw == bytes([2]) * 128


def test_tma_rules_broken_by_an_argument_are_refused_at_launch():
    binder = ArgumentBinder(SPEC, "cpu")
    a = np.zeros((20, 41), np.float32)[:, :40]  # 164-byte rows: not a multiple of 16
    with pytest.raises(Exception, match="multiples of 16"):
        binder.bind((a, 3))


def test_tma_parameters_round_trip_through_json_and_the_manifest_schema():
    from layoutc.runtime.errors import ArtifactError
    from layoutc.runtime.manifest_schema import _Checker, _param

    assert KernelSpec.from_json(SPEC.to_json()) == SPEC
    for i, p in enumerate(SPEC.to_json()["params"]):
        _param(_Checker("manifest.json"), p, f"params[{i}]")
    bad = dict(SPEC.to_json()["params"][-1])
    del bad["tma"]
    with pytest.raises(ArtifactError, match="tma"):
        _param(_Checker("manifest.json"), bad, "params[5]")


def test_a_tma_parameter_must_name_a_tensor():
    with pytest.raises(ValueError, match="no pointer parameter"):
        KernelSpec(
            "k",
            (
                Param("n", "scalar", "i32"),
                Param("d", TMA, "f32", tma=TmaSource("A", (8,), (0,), 0, (8,), (1,))),
            ),
        )
