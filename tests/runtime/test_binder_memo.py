"""A binder that has accepted arrays before decides every call as a fresh binder would.

The argument binder remembers the last array it accepted per argument (packing.py, array
probes) and then checks only the pointer of an array that agrees with it in kind, shape,
strides, dtype and device. These tests run random sequences of calls through one long-lived
binder and compare each outcome (the parameter values, or the error message) with a binder
that sees the call first: on the CPU with numpy arrays (views, offsets, byte order, arrays
reshaped in place) and on the GPU side with torch-like tensors (devices, strides, staging).
"""

from __future__ import annotations

import numpy as np
import torch_like
from hypothesis import given, settings
from hypothesis import strategies as st
from layoutc.runtime.abi import KernelSpec, Param
from layoutc.runtime.arrays import array_facts
from layoutc.runtime.errors import ArgumentError
from layoutc.runtime.packing import ArgumentBinder

I32_MAX = (1 << 31) - 1

#: x: (N):(1), y: (N,?):(?,1) sharing N (a multiple of 2), 16-byte aligned x, row stride of y a
#: multiple of 4, an even k: every kind of fact the binder checks.
SPEC = KernelSpec(
    "memo",
    (
        Param("x", "pointer", "f32", "(?):(1)", ("x_n",), align=16),
        Param("x_n", "scalar", "i32", divisible_by=2, lower=0, upper=I32_MAX, symbol="N"),
        Param("y", "pointer", "f32", "(?,?):(?,1)", ("y_n", "y_c", "y_ld"), align=8),
        Param("y_n", "scalar", "i32", divisible_by=2, lower=0, upper=I32_MAX, symbol="N"),
        Param("y_c", "scalar", "i32", lower=1, upper=16),
        Param("y_ld", "scalar", "i32", divisible_by=4),
        Param("k", "scalar", "i32", divisible_by=2),
    ),
    equal=(("x_n", "y_n"),),
)
#: The same arrays without facts, through pointers indexed as contiguous buffers.
PLAIN = KernelSpec(
    "plain",
    (Param("x", "pointer", "f32"), Param("y", "pointer", "f32"), Param("k", "scalar", "i32")),
)

POOL = np.zeros(4096, np.float32)  # one allocation: views of it differ only in what we choose
BASE = (-POOL.ctypes.data % 64) // 4  # element index of a 64-byte aligned address


def outcome(binder: ArgumentBinder, args: tuple, stager=None) -> tuple:
    try:
        binder.bind(args, stager)
    except ArgumentError as e:
        return ("refused", str(e))
    return ("launched", list(binder.values), bytes(binder.buffer.buffer.raw))


def same_as_fresh(spec: KernelSpec, runs_on: str, calls: list[tuple], stager=None) -> None:
    """Each call, made twice (a refused call retried must be refused again), through one
    binder, decides as a binder that sees it first."""
    warm = ArgumentBinder(spec, runs_on)
    for args in calls:
        expected = outcome(ArgumentBinder(spec, runs_on), args, stager)
        assert outcome(warm, args, stager) == expected, args
        assert outcome(warm, args, stager) == expected, args


@st.composite
def walks(draw, good: dict, anything: dict) -> list[dict]:
    """Calls as fields: one that is accepted, then each a change of one field of an earlier
    call (often the last; coming back to an older one exercises the memo's other entries)."""
    state = {name: draw(strategy) for name, strategy in good.items()}
    seen = [state]
    for _ in range(draw(st.integers(1, 8))):
        base = seen[-1] if draw(st.booleans()) else draw(st.sampled_from(seen))
        name = draw(st.sampled_from(sorted(anything)))
        seen.append({**base, name: draw(anything[name])})
    return seen


# -- numpy arrays on the CPU --------------------------------------------------------------------

_ld = st.sampled_from([(1, 3), (3, 1), (4, 0), (4, 4)])  # (columns, padding): ld % 4 == 0
CPU_GOOD = {
    "dtype": st.just("<f4"),
    "n": st.sampled_from([0, 2, 4, 6]),
    "x_offset": st.sampled_from([0, 4]),
    "x_step": st.just(1),
    "extra_rows": st.just(0),
    "cols_pad": _ld,
    "m_offset": st.sampled_from([0, 2, 4]),
    "transpose": st.just(False),
    "k": st.sampled_from([0, 2]),
}
CPU_ANY = {
    "dtype": st.sampled_from(["<f4", ">f4", "<f8", "<i4"]),
    "n": st.sampled_from([0, 2, 4, 6, 7, 8]),
    "x_offset": st.integers(0, 5),
    "x_step": st.sampled_from([1, 2]),
    "extra_rows": st.sampled_from([0, 2]),
    "cols_pad": st.tuples(st.sampled_from([1, 3, 4, 17]), st.sampled_from([0, 1, 3, 4])),
    "m_offset": st.sampled_from([0, 1, 2, 4]),
    "transpose": st.booleans(),
    "k": st.sampled_from([0, 2, 3, 1 << 40]),
}


def numpy_call(f: dict) -> tuple:
    """x: a vector of ``n`` elements; m: a (n + extra_rows, cols) view with row stride ld."""
    n, step, start = f["n"], f["x_step"], BASE + f["x_offset"]
    if f["dtype"] == "<f4":
        x = POOL[start : start + n * step : step]
    else:
        x = np.zeros(n * step, np.dtype(f["dtype"]))[::step]
    rows, (cols, pad) = n + f["extra_rows"], f["cols_pad"]
    start = BASE + 1024 + f["m_offset"]
    m = POOL[start : start + rows * (cols + pad)].reshape(rows, cols + pad)[:, :cols]
    if f["transpose"] and rows == cols:
        m = m.T  # same shape, other strides
    return (x, m, f["k"])


@settings(max_examples=80, deadline=None)
@given(walks(CPU_GOOD, CPU_ANY))
def test_numpy_calls_on_the_cpu_decide_as_a_fresh_binder(calls):
    same_as_fresh(SPEC, "cpu", [numpy_call(f) for f in calls])


#: Scalars before, between and after arrays (their memos are numbered among arrays only).
MIXED = KernelSpec(
    "mixed",
    (
        Param("alpha", "scalar", "f32"),
        Param("x", "pointer", "f32"),
        Param("k", "scalar", "i32", divisible_by=2),
        Param("y", "pointer", "f32", align=8),
        Param("beta", "scalar", "f64"),
    ),
)


@settings(max_examples=40, deadline=None)
@given(walks(CPU_GOOD, CPU_ANY))
def test_contiguous_pointer_arguments_decide_as_a_fresh_binder(calls):
    pairs = [numpy_call(f)[0] for f in calls]
    pairs = [(x, y) for x, y in zip(pairs, pairs[1:] + pairs[:1])]
    same_as_fresh(PLAIN, "cpu", [(x, y, 4) for x, y in pairs])
    same_as_fresh(MIXED, "cpu", [(0.5, x, 4, y, 2) for x, y in pairs])


def test_an_array_reshaped_in_place_is_checked_again():
    """Same object, new shape: the binder must not trust what it saw of it before."""
    binder = ArgumentBinder(SPEC, "cpu")
    x = POOL[BASE : BASE + 8].copy()
    y = POOL[BASE : BASE + 32].reshape(8, 4)
    binder.bind((x, y, 2))
    assert binder.values[1] == 8
    y.shape = (4, 8)
    try:
        binder.bind((x, y, 2))
    except ArgumentError as e:
        assert (
            "dimension 0's extent N = 4, but argument 0 ('x') has dimension 0's extent N = 8"
            in str(e)
        )
    else:
        raise AssertionError("a changed shape was accepted")
    x.shape = (2, 4)
    try:
        binder.bind((x, y, 2))
    except ArgumentError as e:
        assert "has 1 modes but the array has 2 dimensions" in str(e)
    else:
        raise AssertionError("a changed rank was accepted")


# -- torch-like tensors on the GPU side ---------------------------------------------------------

GPU_GOOD = {
    "shape0": st.sampled_from([0, 2, 4]),
    "rows": st.none(),  # None: as many as x has elements
    "cols_pad": _ld,
    "step": st.just(1),
    "offset": st.sampled_from([0, 4, 8]),
    "dtype": st.just(torch_like.float32),
    "device": st.just(0),
    "opaque": st.just(False),
    "k": st.just(2),
}
GPU_ANY = {
    "shape0": st.sampled_from([0, 2, 4, 5]),
    "rows": st.sampled_from([None, 0, 2, 4]),
    "cols_pad": st.tuples(st.sampled_from([1, 3, 4, 17]), st.sampled_from([0, 1, 3])),
    "step": st.sampled_from([1, 2]),
    "offset": st.integers(0, 8),
    "dtype": st.sampled_from([torch_like.float32, torch_like.float16]),
    "device": st.sampled_from([0, 1, "cpu", "mps"]),
    "opaque": st.booleans(),  # x offers only its facts, so the binder keeps no memo of it
    "k": st.sampled_from([2, 5]),
}


class FactsOnly:
    """An array that states its facts but has no probe: every call checks it in full."""

    def __init__(self, tensor: torch_like.Tensor) -> None:
        self.tensor = tensor

    def _layoutc_facts(self, stream=None):
        return array_facts(self.tensor, stream)


def torch_call(f: dict) -> tuple:
    """A vector and a matrix described by ``f`` (their memory is never read), and k."""
    ptr = (1 << 20) + 4 * f["offset"]
    x = torch_like.Tensor(ptr, (f["shape0"],), (f["step"],), f["dtype"], f["device"])
    if f["opaque"]:
        x = FactsOnly(x)
    rows = f["shape0"] if f["rows"] is None else f["rows"]
    (cols, pad), step = f["cols_pad"], f["step"]
    y = torch_like.Tensor(
        ptr + (1 << 16), (rows, cols), (cols + pad, step), f["dtype"], f["device"]
    )
    return (x, y, f["k"])


def staged_pointer(facts, param) -> int:
    """A device copy's address (256-byte aligned like every CUDA allocation)."""
    return 1 << 30


@settings(max_examples=80, deadline=None)
@given(walks(GPU_GOOD, GPU_ANY))
def test_torch_tensors_on_the_gpu_decide_as_a_fresh_binder(calls):
    same_as_fresh(SPEC, "cuda", [torch_call(f) for f in calls], staged_pointer)


def test_arrays_remembered_from_different_calls_must_still_agree():
    """x's memo is from one call, y's from a later one (x had no probe then): a call pairing
    them breaks ``x_n == y_n`` although each array matches what the binder remembers."""
    binder = ArgumentBinder(SPEC, "cuda")

    def x(n):
        return torch_like.Tensor(1 << 20, (n,))

    def y(rows):
        return torch_like.Tensor(1 << 21, (rows, 4), (4, 1))

    binder.bind((x(4), y(4), 2))  # both remembered with N = 4
    binder.bind((FactsOnly(x(2)), y(2), 2))  # y remembered with N = 2, x's memo unchanged
    try:
        binder.bind((x(4), y(2), 2))
    except ArgumentError as e:
        assert (
            "dimension 0's extent N = 2, but argument 0 ('x') has dimension 0's extent N = 4"
            in str(e)
        )
    else:
        raise AssertionError("unequal extents were accepted")


SCALARS = KernelSpec(
    "scalars",
    (
        Param("a", "scalar", "f32"),
        Param("b", "scalar", "bf16"),
        Param("c", "scalar", "f64"),
        Param("i", "scalar", "u32", divisible_by=4, lower=8),
    ),
)
_numbers = st.one_of(
    st.floats(allow_nan=False, width=64),
    st.integers(-(1 << 70), 1 << 70),
    st.sampled_from([True, 0, 8, 12, 1 << 53, (1 << 53) + 1, 1e40, np.float32(1.5), np.int64(16)]),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_numbers, _numbers, _numbers, _numbers), min_size=1, max_size=6))
def test_scalar_calls_decide_as_a_fresh_binder(calls):
    same_as_fresh(SCALARS, "cpu", calls)
