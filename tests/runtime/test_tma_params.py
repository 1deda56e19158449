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


IM2COL = TmaSource(
    "act", (32, 1, 1), (2, 1, 0), 128, ("act_shape0", 8, 32), (256, 32, 1),
    mode="im2col", pixels=16, lower=(-1,), upper=(-1,),
)  # fmt: skip
IM2COL_SPEC = KernelSpec(
    "conv",
    (
        Param("act", "pointer", "f32", "(?,8,32):(256,32,1)", ("act_shape0",)),
        Param("act_shape0", "scalar", "i32"),
        Param("act_tma0", TMA, "f32", tma=IM2COL),
    ),
)


def test_the_binder_encodes_an_im2col_descriptor_from_the_bound_tensor(monkeypatch):
    from layoutc.runtime.tma_im2col import Im2colBox

    rec = Recorder()
    monkeypatch.setattr(tma, "DESCRIPTORS", rec)
    binder = ArgumentBinder(IM2COL_SPEC, "cpu")
    act = np.zeros((3, 8, 32), np.float32)
    binder.bind((act,))
    box = Im2colBox("f32", 32, 16, (-1,), (-1,), 128)
    assert rec.calls == [("act", box, act.ctypes.data, (32, 8, 3), (4, 128, 1024))]
    assert KernelSpec.from_json(IM2COL_SPEC.to_json()) == IM2COL_SPEC
    assert IM2COL.to_json()["mode"] == "im2col" and "mode" not in SPEC.params[5].tma.to_json()
    from layoutc.runtime.manifest_schema import _Checker, _param

    for i, p in enumerate(IM2COL_SPEC.to_json()["params"]):
        _param(_Checker("manifest.json"), p, f"params[{i}]")


def test_an_im2col_source_states_its_pixels_and_corners():
    with pytest.raises(ValueError, match="an im2col descriptor, and only one, has pixels"):
        TmaSource("act", (32, 1, 1), (2, 1, 0), 0, ("n", 8, 32), (256, 32, 1), mode="im2col")
    with pytest.raises(ValueError, match="mode 'gather4'"):
        TmaSource("act", (32,), (0,), 0, (32,), (1,), mode="gather4")


def test_an_im2col_sources_traversal_strides_bind_round_trip_and_are_validated(monkeypatch):
    """Traversal strides travel from the spec (and its manifest) to the encoded box; a
    manifest with one outside [1, 8] is refused by the schema."""
    from dataclasses import replace

    from layoutc.runtime.errors import ArtifactError
    from layoutc.runtime.manifest_schema import _Checker, _param
    from layoutc.runtime.tma_im2col import Im2colBox

    strided = replace(IM2COL, traversal=(2,))
    spec = replace(IM2COL_SPEC, params=(*IM2COL_SPEC.params[:2], Param("act_tma0", TMA, "f32",
                                                                       tma=strided)))  # fmt: skip
    rec = Recorder()
    monkeypatch.setattr(tma, "DESCRIPTORS", rec)
    act = np.zeros((3, 8, 32), np.float32)
    ArgumentBinder(spec, "cpu").bind((act,))
    box = Im2colBox("f32", 32, 16, (-1,), (-1,), 128, (2,))
    assert rec.calls == [("act", box, act.ctypes.data, (32, 8, 3), (4, 128, 1024))]
    assert KernelSpec.from_json(spec.to_json()) == spec
    assert "traversal" not in IM2COL.to_json()  # all ones: manifests stay as they were
    entry = spec.to_json()["params"][2]
    _param(_Checker("manifest.json"), entry, "params[2]")
    entry["tma"]["traversal"] = [9]
    with pytest.raises(ArtifactError, match=r"params\[2\]\.tma\.traversal\[0\]"):
        _param(_Checker("manifest.json"), entry, "params[2]")
    with pytest.raises(ValueError, match="traversal strides are positive, one per spatial"):
        replace(IM2COL, traversal=(1, 1))
