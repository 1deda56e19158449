"""Calling what ``lc.compile`` returns: positional run-time arguments go straight to the runtime
(no binding by name), keywords and constants take the general path, and every call that breaks
a fact the code was compiled under is refused with ``SpecError``, also after many accepted calls
of the same kind (the runtime then checks only the pointer of arrays it has seen the like of).

Runs the real sm_90 build of examples/copy_1d.py on the runtime's fake CUDA driver, with
torch-like tensors (tests/runtime/torch_like.py) over fake device memory.
"""

from __future__ import annotations

import sys
from pathlib import Path

import layoutc as lc
import pytest
from driver_kernels import SCALAR_PIPELINE, with_constant
from layoutc.driver.loading import load_source
from layoutc.frontend.spec import SpecError

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "runtime"))

import fake_driver as fake  # noqa: E402
import torch_like  # noqa: E402
from layoutc.runtime import cuda_driver  # noqa: E402
from layoutc.runtime.cuda_memory import DeviceBuffer  # noqa: E402

COPY_1D = vars(load_source(ROOT / "examples" / "copy_1d.py"))["copy_1d"]
THREADS = 128


@pytest.fixture(autouse=True)
def fake_gpu():
    previous = cuda_driver.use_driver(fake)
    fake.launches.clear()
    fake.KERNELS["copy_1d"] = (["Q", "i", "Q", "i"], lambda values, grid, block: None)
    yield
    fake.KERNELS.pop("copy_1d", None)
    cuda_driver.use_driver(previous)


def tensor(n, offset=0, dtype=torch_like.float32, device=0, step=1, shape=None):
    """A torch-like tensor over fake device memory, ``offset`` elements past a 256-byte line."""
    shape = shape or (n,)
    buffer = DeviceBuffer(4 * (n * step + offset + 64))
    strides = (step,) if len(shape) == 1 else None
    t = torch_like.Tensor(buffer.ptr + 4 * offset, shape, strides, dtype, device)
    t.buffer = buffer  # keeps the allocation alive
    return t


@pytest.fixture
def ck():
    compiled = lc.compile(COPY_1D, tensor(2048), tensor(2048), block=THREADS, target="sm_90")
    assert compiled.runtime_spec.equal == (("src_shape0", "dst_shape0"),)
    return compiled


def launched(src, dst):
    return fake.launches[-1]["params"] == [
        src.data_ptr(),
        src.shape[0],
        dst.data_ptr(),
        dst.shape[0],
    ]


def test_positional_and_keyword_calls_launch_alike(ck):
    src, dst = tensor(2048), tensor(2048)
    ck(src, dst, grid=2)
    assert launched(src, dst) and fake.launches[-1]["block"] == (THREADS, 1, 1)
    ck(src=src, dst=dst, grid=2)
    assert launched(src, dst)
    ck(src, dst=dst, grid=2)
    assert launched(src, dst)
    with pytest.raises(SpecError, match="missing a required argument: 'dst'"):
        ck(src, grid=2)
    assert len(fake.launches) == 3


REFUSALS = [
    (
        lambda: (tensor(2048, offset=1), tensor(2048)),
        r"'src'\): data pointer 0x[0-9a-f]+4 is not 16-byte aligned",
    ),
    (
        lambda: (tensor(2048), tensor(2048, offset=2)),
        r"'dst'\): data pointer 0x[0-9a-f]+8 is not 16-byte aligned",
    ),
    (
        lambda: (tensor(1000), tensor(1000)),
        r"'src'\): dimension 0's extent N = 1000 is not a multiple of 16",
    ),
    (
        lambda: (tensor(2048), tensor(4096)),
        r"'dst'\): dimension 0's extent N = 4096, but argument 0 \('src'\) has dimension 0's "
        r"extent N = 2048; the kernel was compiled assuming they are equal",
    ),
    (lambda: (tensor(0), tensor(0)), r"'src'\): dimension 0's extent N = 0 is less than 1"),
    (
        lambda: (tensor(2048, dtype=torch_like.float16), tensor(2048)),
        r"'src'\): expected f32 elements, got f16",
    ),
    (lambda: (tensor(2048, step=2), tensor(2048)), r"'src'\): dimension 0 has element stride 2"),
    (lambda: (tensor(2048, shape=(32, 64)), tensor(2048)), r"'src'\): layout .* has 1 modes"),
    (lambda: (tensor(2048, device=1), tensor(2048)), r"'src'\): array lives on cuda:1"),
    (lambda: (tensor(2048), tensor(2048, device="mps")), r"'dst'\): array lives on mps:0"),
    (lambda: (tensor(2048), [0.0] * 2048), r"'dst'\): expected an array of f32, got list"),
]


@pytest.mark.parametrize(("make", "message"), REFUSALS)
def test_calls_breaking_a_fact_are_refused_after_accepted_ones(ck, make, message):
    for _ in range(3):
        src, dst = tensor(2048), tensor(2048)
        ck(src, dst, grid=2)
    with pytest.raises(SpecError, match=r"kernel 'copy_1d', argument [01] \(" + message):
        ck(*make(), grid=2)
    assert len(fake.launches) == 3
    ck(src, dst, grid=2)  # the accepted kind is still accepted, with its own values
    assert launched(src, dst)


def test_constants_take_the_general_path(monkeypatch):
    """Run-time arguments alone, or all arguments with the compiled constant; another value of
    the constant is refused before launching."""
    monkeypatch.setenv("LAYOUTC_TARGET", "cpu")
    options = {"pipeline": SCALAR_PIPELINE}
    ck = lc.compile(with_constant, 3, 8, target="cpu", block=32, **options)
    ck(3, grid=1)
    ck(5, 8, grid=1)
    ck(n=7, grid=1)
    ck(n=7, scale=8, grid=1)
    with pytest.raises(SpecError, match=r"compile-time constant 8 .*got 4"):
        ck(3, 4, grid=1)
    with pytest.raises(SpecError, match=r"argument 0 \('n'\): expected an integer"):
        ck(2.5, grid=1)
