"""The facts a kernel was compiled under (alignment, divisibility, bounds, equal carriers): how
a KernelSpec states them, and how the argument binder refuses launches that break them, on the
fake CUDA driver (device pointers at any offset) and on the CPU binder (host pointers)."""

from __future__ import annotations

import json

import fake_driver as fake
import numpy as np
import pytest
import torch_like
from hypothesis import given, settings
from hypothesis import strategies as st
from layoutc.runtime import cuda_driver
from layoutc.runtime.abi import KernelSpec, LaunchBounds, Param
from layoutc.runtime.cuda_kernel import load_kernel
from layoutc.runtime.cuda_memory import DeviceBuffer
from layoutc.runtime.errors import ArgumentError
from layoutc.runtime.packing import ArgumentBinder

I32_MAX = (1 << 31) - 1

#: src, dst: (N):(1) sharing N (a multiple of 4); m: (M,?):(?,1) with M >= 1, at most 64
#: columns and a leading dimension that is a multiple of 4; k: an even i32 in [1, 64].
FCOPY = KernelSpec(
    "fcopy",
    (
        Param("src", "pointer", "f32", "(?):(1)", ("src_n",), align=16),
        Param("src_n", "scalar", "i32", divisible_by=4, lower=0, upper=I32_MAX, symbol="N"),
        Param("dst", "pointer", "f32", "(?):(1)", ("dst_n",), align=16),
        Param("dst_n", "scalar", "i32", divisible_by=4, lower=0, upper=I32_MAX, symbol="N"),
        Param("m", "pointer", "f32", "(?,?):(?,1)", ("m_rows", "m_cols", "m_ld"), align=8),
        Param("m_rows", "scalar", "i32", lower=1, upper=I32_MAX, symbol="M"),
        Param("m_cols", "scalar", "i32", lower=0, upper=64),
        Param("m_ld", "scalar", "i32", divisible_by=4),
        Param("k", "scalar", "i32", divisible_by=2, lower=1, upper=64),
        Param("alpha", "scalar", "f32"),
    ),
    LaunchBounds(block=(32, 1, 1)),
    equal=(("src_n", "dst_n"),),
)
FORMATS = ["Q", "i", "Q", "i", "Q", "i", "i", "i", "i", "f"]


class DeviceView:
    """A device array starting ``offset`` elements into an allocation (as torch's ``x[1:]``)."""

    def __init__(self, shape, offset=0, ld=None):
        self.shape = tuple(shape)
        rows = self.shape[0] if len(self.shape) == 2 else 1
        self.ld = ld if ld is not None else self.shape[-1]
        self.buffer = DeviceBuffer(4 * (rows * self.ld + offset + 64))
        self.ptr = self.buffer.ptr + 4 * offset

    @property
    def __cuda_array_interface__(self):
        strides = (4 * self.ld, 4) if len(self.shape) == 2 else (4,)
        return {
            "shape": self.shape,
            "typestr": "<f4",
            "data": (self.ptr, False),
            "strides": strides,
            "version": 3,
        }


@pytest.fixture(autouse=True)
def fake_gpu():
    previous = cuda_driver.use_driver(fake)
    fake.launches.clear()
    fake.KERNELS["fcopy"] = (FORMATS, lambda values, grid, block: None)
    yield
    fake.KERNELS.pop("fcopy", None)
    cuda_driver.use_driver(previous)


def as_torch(view: DeviceView) -> torch_like.Tensor:
    """The same device memory as a torch-like tensor (the kind the binder memoises)."""
    strides = (view.ld, 1) if len(view.shape) == 2 else (1,)
    tensor = torch_like.Tensor(view.ptr, view.shape, strides, torch_like.float32, device=0)
    tensor.view = view  # keeps the allocation alive
    return tensor


def good(kind="cai", **changes):
    args = {
        "src": DeviceView((64,)),
        "dst": DeviceView((64,)),
        "m": DeviceView((3, 5), ld=8),
        "k": 4,
        "alpha": 0.5,
    }
    args.update(changes)
    if kind == "torch":
        args = {n: as_torch(v) if isinstance(v, DeviceView) else v for n, v in args.items()}
    return args


def call(k, args):
    k(args["src"], args["dst"], args["m"], args["k"], args["alpha"], grid=1)
    return args


def launch(kind="cai", **changes):
    return call(load_kernel(b"// fcopy", "cubin", FCOPY), good(kind, **changes))


def pointer(a) -> int:
    return a.ptr if isinstance(a, DeviceView) else a.data_ptr()


@pytest.mark.parametrize("kind", ["cai", "torch"])
def test_a_call_within_the_facts_launches_with_its_values(kind):
    args = launch(kind)
    (record,) = fake.launches
    pointers = [pointer(args["src"]), 64, pointer(args["dst"]), 64, pointer(args["m"])]
    assert record["params"] == [*pointers, 3, 5, 8, 4, 0.5]


REFUSALS = pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            lambda: {"src": DeviceView((64,), offset=1)},
            r"argument 0 \('src'\): data pointer 0x[0-9a-f]*04 is not 16-byte aligned, but the "
            r"kernel was compiled for align=16 \(layoutc compile --spec "
            r'"src=f32\[\(N\):\(1\)\],align=4" to relax\)',
        ),
        (
            lambda: {"m": DeviceView((3, 5), offset=1, ld=8)},
            r'argument 2 \(\'m\'\): .* not 8-byte aligned.*"m=f32\[\(M,\?\):\(\?,1\)\],align=4"',
        ),
        (
            lambda: {"src": DeviceView((62,)), "dst": DeviceView((62,))},
            r"argument 0 \('src'\): dimension 0's extent N = 62 is not a multiple of 4, but the "
            r'kernel was compiled assuming N%4==0 \(compile with --assume "N%2==0" to relax\)',
        ),
        (
            lambda: {"dst": DeviceView((68,))},
            r"argument 1 \('dst'\): dimension 0's extent N = 68, but argument 0 \('src'\) has "
            r"dimension 0's extent N = 64; the kernel was compiled assuming they are equal",
        ),
        (
            lambda: {"m": DeviceView((0, 5), ld=8)},
            r"argument 2 \('m'\): dimension 0's extent M = 0 is less than 1, but the kernel was "
            r"compiled assuming M>=1",
        ),
        (
            lambda: {"m": DeviceView((3, 65), ld=68)},
            r"argument 2 \('m'\): dimension 1's extent 65 is greater than 64, but the kernel was "
            r"compiled assuming it is at most 64",
        ),
        (
            lambda: {"m": DeviceView((3, 5), ld=6)},
            r"argument 2 \('m'\): dimension 0's stride 6 is not a multiple of 4, but the kernel "
            r"was compiled assuming it is one \(compile the kernel for these arguments\)",
        ),
        (
            lambda: {"k": 3},
            r"argument 3 \('k'\): 3 is not a multiple of 2, but the kernel was compiled assuming "
            r'k%2==0 \(compile with --spec "k=i32" to relax\)',
        ),
        (
            lambda: {"k": 0},
            r"argument 3 \('k'\): 0 is less than 1, but the kernel was compiled assuming k>=1",
        ),
        (
            lambda: {"k": 66},
            r"argument 3 \('k'\): 66 is greater than 64, but the kernel was compiled assuming "
            r"k<=64",
        ),
        (lambda: {"k": 1 << 40}, r"argument 3 \('k'\): 1099511627776 does not fit in i32"),
        (lambda: {"k": True}, r"argument 3 \('k'\): expected an integer \(i32\), got bool"),
    ],
)


@REFUSALS
@pytest.mark.parametrize("kind", ["cai", "torch"])
def test_calls_breaking_a_fact_are_refused_before_launching(kind, changes, message):
    with pytest.raises(ArgumentError, match=r"kernel 'fcopy', " + message):
        launch(kind, **changes())
    assert not fake.launches


@REFUSALS
@pytest.mark.parametrize("kind", ["cai", "torch"])
def test_refused_after_accepted_calls_of_the_same_kind(kind, changes, message):
    """A kernel that accepted arrays of one kind and shape checks a changed one in full."""
    k = load_kernel(b"// fcopy", "cubin", FCOPY)
    call(k, good(kind))
    call(k, good(kind))
    with pytest.raises(ArgumentError, match=r"kernel 'fcopy', " + message):
        call(k, good(kind, **changes()))
    assert len(fake.launches) == 2
    args = call(k, good(kind))  # and what was accepted before still is, with its own values
    pointers = [pointer(args["src"]), 64, pointer(args["dst"]), 64, pointer(args["m"])]
    assert fake.launches[-1]["params"] == [*pointers, 3, 5, 8, 4, 0.5]


def test_host_arrays_are_checked_where_the_kernel_reads_them():
    """The GPU kernel reads the staged device copy (256-byte aligned), the CPU one the array."""
    raw = np.zeros(128, np.float32)
    start = (-raw.ctypes.data % 64) // 4
    src, dst = raw[start + 1 : start + 65], raw[start : start + 64]
    assert src.ctypes.data % 16 == 4
    launch(src=src, dst=np.zeros(64, np.float32))  # staged: accepted
    assert len(fake.launches) == 1
    binder = ArgumentBinder(FCOPY, "cpu")
    m = np.zeros((3, 8), np.float32)[:, :5]
    with pytest.raises(ArgumentError, match=r"'src'.*not 16-byte aligned"):
        binder.bind((src, np.zeros(64, np.float32), m, 4, 1.0))
    binder.bind((dst, np.zeros(64, np.float32), m, 4, 1.0))


def test_empty_arrays_are_exempt_from_alignment():
    launch(src=DeviceView((0,), offset=1), dst=DeviceView((0,), offset=3))
    assert fake.launches[-1]["params"][1] == 0


def test_facts_summary():
    assert FCOPY.describe_facts() == [
        "src align=16",
        "dst align=16",
        "m align=8",
        "N%4==0",
        "N>=0",
        "M>=1",
        "m_cols>=0",
        "m_cols<=64",
        "m_ld%4==0",
        "k%2==0",
        "k>=1",
        "k<=64",
    ]
    spec = KernelSpec(
        "k",
        (
            Param("a", "pointer", "f32", "(?):(1)", ("a0",)),
            Param("a0", "scalar", "i32"),
            Param("b", "pointer", "f32", "(?):(1)", ("b0",)),
            Param("b0", "scalar", "i32"),
        ),
        equal=(("a0", "b0"),),
    )
    assert spec.describe_facts() == ["a0==b0"]  # carriers without a symbol name: say it


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Param("p", "pointer", "f32", align=12), "power of two"),
        (lambda: Param("p", "pointer", "f32", align=0), "power of two"),
        (lambda: Param("n", "scalar", "i32", align=16), "fact of pointers"),
        (lambda: Param("x", "scalar", "f32", divisible_by=2), "integer scalars"),
        (lambda: Param("p", "pointer", "f32", lower=0), "integer scalars"),
        (lambda: Param("n", "scalar", "i32", divisible_by=0), "positive integer"),
        (lambda: Param("n", "scalar", "i32", lower=5, upper=4), "exceeds upper bound"),
        (lambda: Param("n", "scalar", "i32", lower=1.5), "bounds must be integers"),
        (lambda: KernelSpec("k", FCOPY.params, equal=(("src_n",),)), "has one name"),
        (lambda: KernelSpec("k", FCOPY.params, equal=(("src_n", "k"),)), "carries no layout"),
        (
            lambda: KernelSpec("k", FCOPY.params, equal=(("src_n", "dst_n"), ("m_rows", "src_n"))),
            "in two equal groups",
        ),
    ],
)
def test_malformed_facts_are_refused(make, message):
    with pytest.raises(ValueError, match=message):
        make()


_int_facts = st.tuples(
    st.integers(1, 64),
    st.one_of(st.none(), st.integers(-8, 8)),
    st.one_of(st.none(), st.integers(9, 1 << 20)),
)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(_int_facts, min_size=1, max_size=4),
    st.sampled_from([None, 1, 2, 4, 8, 16, 256]),
    st.booleans(),
    st.sampled_from(["i32", "i64", "u32"]),
)
def test_facts_survive_the_manifest_json(int_facts, align, named, dtype):
    layout = "(" + ",".join("?" * len(int_facts)) + "):(" + ",".join("1" * len(int_facts)) + ")"
    carriers = tuple(f"t{i}" for i in range(len(int_facts)))
    params = [Param("t", "pointer", "f16", layout, carriers, align=align)]
    for i, (div, lo, hi) in enumerate(int_facts):
        symbol = f"S{i}" if named else None
        params.append(Param(carriers[i], "scalar", dtype, None, (), None, div, lo, hi, symbol))
    params.append(Param("x", "scalar", "f64"))
    equal = (carriers[:2],) if len(carriers) > 1 else ()
    spec = KernelSpec("k", tuple(params), LaunchBounds(128, None, (128, 1, 1)), equal=equal)
    text = json.dumps(spec.to_json())
    assert KernelSpec.from_json(json.loads(text)) == spec
