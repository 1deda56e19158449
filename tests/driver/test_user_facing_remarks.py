"""Remarks and ``ck.vector_bits`` as a user reads them: run-time values by the annotation's
names, English for single-element tensors and fills, and one entry per copy, fill and clear."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest


@lc.kernel
def annotated_fill(src: lc.Tensor[lc.f32, "(M,K):(K,1)"]):  # noqa: F722
    lc.fill(src, 1.0)


@lc.kernel
def anonymous_fill(src: lc.Tensor):
    lc.fill(src, 1.0)


def _messages(ck, word):
    return [r.message for r in ck.remarks if r.message.startswith(word + " ")]


def test_remarks_name_run_time_values_by_the_annotation_s_names():
    ck = lc.compile(annotated_fill, np.zeros((3, 5), np.float32), block=1, target="cpu")
    (fill,) = _messages(ck, "fill")
    assert fill.endswith("but its extent K is not provably a multiple of 2"), fill
    assert "src_shape1" not in fill


def test_an_anonymous_entry_keeps_its_carrier_s_name():
    ck = lc.compile(anonymous_fill, np.zeros((3, 5), np.float32), block=1, target="cpu")
    (fill,) = _messages(ck, "fill")
    assert "its extent src_shape1 is not provably a multiple of 2" in fill, fill


def test_the_traced_kernel_names_annotated_carriers_only():
    spec = annotated_fill.specialize(np.zeros((3, 5), np.float32), block=1)
    text = annotated_fill.trace(spec)[0].to_text()
    assert text.count('layoutc.symbol = "M"') == 1 and text.count('layoutc.symbol = "K"') == 2
    spec = anonymous_fill.specialize(np.zeros((3, 5), np.float32), block=1)
    assert "layoutc.symbol" not in anonymous_fill.trace(spec)[0].to_text()


@lc.kernel
def mixed(src: lc.Tensor, dst: lc.Tensor, low: lc.Tensor):
    bid, tid = lc.block_idx.x, lc.thread_idx.x
    tv = lc.make_layout((32, 4), (4, 1))
    gS = lc.partition_tv(lc.local_tile(src, (128,), (bid,)), tv, tid)
    gD = lc.partition_tv(lc.local_tile(dst, (128,), (bid,)), tv, tid)
    gL = lc.partition_tv(lc.local_tile(low, (128,), (bid,)), tv, tid)
    lc.copy(gS, gD)  # 4 contiguous f32: 128 bits
    lc.copy(gS, gL)  # f32 -> f16: converted element by element, 32-bit loads
    lc.fill(gL, 2.0)  # 4 contiguous f16: 64 bits
    lc.clear(gD)  # 128 bits


@pytest.mark.parametrize("target", ["cpu", "sm_90"])
def test_vector_bits_lists_copies_fills_and_clears_in_program_order(target):
    x = np.arange(256, dtype=np.float32)
    y = np.zeros(256, np.float32)
    z = np.zeros(256, np.float16)
    ck = lc.compile(mixed, x, y, z, block=32, target=target)
    assert ck.vector_bits == [128, 32, 64, 128]
    (_, converting) = _messages(ck, "copy")
    assert converting.startswith("copy converts element by element")
    (fill,) = _messages(ck, "fill")
    assert fill.endswith("(the longest run contiguous in the tensor)"), fill
    if target == "cpu":
        ck(x, y, z, grid=2)
        np.testing.assert_array_equal(z, np.full(256, 2.0, np.float16))
        np.testing.assert_array_equal(y, np.zeros(256, np.float32))
