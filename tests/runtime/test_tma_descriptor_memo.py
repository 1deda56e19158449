"""The binder's TMA descriptor memo never hands a launch a stale descriptor.

A kernel's TMA parameters are looked up per launch from a memo keyed on the source tensor's
address, extents and byte strides (packing.py, packing_fast.py), on the fast path too. A stale
entry would be a wrong kernel (the TMA unit reading another tensor, or past this one), so these
tests run sequences of calls through one long-lived binder and compare every packed parameter
buffer (or refusal) with a fresh binder's, with a fake encoder whose bytes are a hash of
everything a descriptor depends on (and which checks TMA's rules as the real one does).
"""

from __future__ import annotations

import ctypes
import hashlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from layoutc.runtime import tma
from layoutc.runtime.abi import TMA, KernelSpec, Param, TmaSource
from layoutc.runtime.errors import ArgumentError
from layoutc.runtime.packing import TMA_MEMOS, ArgumentBinder

#: A (?,?):(?,1) f32 with two descriptors of it (two boxes), and B (8,?):(?,1) with one.
SPEC = KernelSpec(
    "k",
    (
        Param("A", "pointer", "f32", "(?,?):(?,1)", ("A_rows", "A_cols", "A_ld")),
        Param("A_rows", "scalar", "i32"),
        Param("A_cols", "scalar", "i32"),
        Param("A_ld", "scalar", "i32"),
        Param("B", "pointer", "f32", "(8,?):(?,1)", ("B_cols", "B_ld")),
        Param("B_cols", "scalar", "i32"),
        Param("B_ld", "scalar", "i32"),
        Param("n", "scalar", "i32"),
        Param("A_tma0", TMA, "f32", tma=TmaSource("A", (8, 2), (1, 0), 32, ("A_rows", "A_cols"), ("A_ld", 1))),
        Param("A_tma1", TMA, "f32", tma=TmaSource("A", (4, 4), (1, 0), 0, ("A_rows", "A_cols"), ("A_ld", 1))),
        Param("B_tma2", TMA, "f32", tma=TmaSource("B", (4, 8), (1, 0), 0, (8, "B_cols"), ("B_ld", 1))),
    ),
)  # fmt: skip


class HashingEncoder:
    """``DESCRIPTORS`` stand-in: TMA's rules, then 128 bytes that differ for any other input."""

    def __init__(self) -> None:
        self.encodes = 0

    def get(self, name, box, address, extents, strides) -> bytes:
        tma.check_tma_rules(name, box, address, tuple(extents), tuple(strides))
        self.encodes += 1
        key = repr((name, box, address, tuple(extents), tuple(strides))).encode()
        return hashlib.sha256(key).digest() * 4


@pytest.fixture(autouse=True)
def encoder(monkeypatch):
    enc = HashingEncoder()
    monkeypatch.setattr(tma, "DESCRIPTORS", enc)
    return enc


POOL = np.zeros(1 << 14, np.float32)
BASE = (-POOL.ctypes.data % 64) // 4  # element index of a 64-byte aligned address


def view(offset: int, rows: int, cols: int, ld: int) -> np.ndarray:
    start = BASE + offset
    return POOL[start : start + rows * ld].reshape(rows, ld)[:, :cols]


def outcome(binder: ArgumentBinder, args: tuple) -> tuple:
    try:
        binder.bind(args)
    except ArgumentError as e:
        return ("refused", str(e))
    return ("launched", bytes(binder.buffer.buffer.raw))


def descriptor(binder: ArgumentBinder, index: int) -> bytes:
    base = ctypes.addressof(binder.buffer.buffer) + binder.buffer.offsets[index]
    return ctypes.string_at(base, 128)


# offsets in elements (4 is 16 bytes: aligned for TMA; 1 is not), row pitches (4-element
# multiples are 16-byte strides; 10 is not)
VIEWS = st.tuples(
    st.sampled_from([0, 4, 8, 64, 1]),
    st.sampled_from([1, 2, 8]),
    st.sampled_from([4, 8, 16]),
    st.sampled_from([0, 4, 8, 2]),
)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(VIEWS, VIEWS, st.sampled_from([1, 2])), min_size=1, max_size=12))
def test_every_call_packs_the_descriptors_a_fresh_binder_packs(calls):
    warm = ArgumentBinder(SPEC, "cpu")
    for (ao, ar, ac, ap), (bo, _, bc, bp), n in calls:
        args = (view(ao, ar, ac, ac + ap), view(2048 + bo, 8, bc, bc + bp), n)
        expected = outcome(ArgumentBinder(SPEC, "cpu"), args)
        assert outcome(warm, args) == expected, args
        assert outcome(warm, args) == expected, args  # again: from the memo this time


def test_the_same_address_with_other_extents_or_strides_gets_its_own_descriptor(encoder):
    binder = ArgumentBinder(SPEC, "cpu")
    b = view(2048, 8, 8, 8)
    seen = {}
    for rows, cols, ld in [(4, 8, 8), (4, 4, 8), (2, 8, 8), (4, 8, 12), (4, 8, 8)]:
        a = view(0, rows, cols, ld)  # always the same address
        binder.bind((a, b, 1))
        d = descriptor(binder, 8)
        expected = encoder.get(
            "A", tma.TmaBox("f32", (8, 2), 32), a.ctypes.data, (cols, rows), (4, 4 * ld)
        )
        assert d == expected
        seen.setdefault((rows, cols, ld), d)
    assert len(set(seen.values())) == 4


def test_a_repeated_kind_of_call_takes_the_fast_path_with_fresh_descriptors(encoder):
    binder = ArgumentBinder(SPEC, "cpu")
    reference = HashingEncoder()
    b = view(2048, 8, 8, 8)
    binder.bind((view(0, 4, 8, 8), b, 1))
    assert encoder.encodes == 3
    for offset in (16, 32, 0, 16):  # a new address, the same shape and strides
        a = view(offset, 4, 8, 8)
        assert binder.bind_fast((a, b, 1))
        box = tma.TmaBox("f32", (4, 4), 0)
        assert descriptor(binder, 9) == reference.get("A", box, a.ctypes.data, (8, 4), (4, 32))
        assert descriptor(binder, 10) == reference.get(
            "B", tma.TmaBox("f32", (4, 8), 0), b.ctypes.data, (8, 8), (4, 32)
        )
    # offsets 16 and 32 are new (A's two descriptors each); 0 and 16 again are remembered
    assert encoder.encodes == 3 + 2 * 2


def test_more_tensors_than_the_memo_holds_still_get_their_own_descriptors(encoder):
    binder = ArgumentBinder(SPEC, "cpu")
    b = view(2048, 8, 8, 8)
    tensors = [view(16 * i, 4, 8, 8) for i in range(2 * TMA_MEMOS + 3)]
    for a in tensors * 2:
        binder.bind((a, b, 1))
        expected = encoder.get("A", tma.TmaBox("f32", (8, 2), 32), a.ctypes.data, (8, 4), (4, 32))
        assert descriptor(binder, 8) == expected


def test_a_tensor_that_breaks_tma_rules_is_refused_on_the_fast_path_too():
    binder = ArgumentBinder(SPEC, "cpu")
    b = view(2048, 8, 8, 8)
    binder.bind((view(0, 4, 8, 8), b, 1))
    with pytest.raises(ArgumentError, match="16-byte aligned"):
        binder.bind((view(1, 4, 8, 8), b, 1))  # like the last, 4 bytes off
    with pytest.raises(ArgumentError, match="16-byte aligned"):
        binder.bind((view(1, 4, 8, 8), b, 1))
