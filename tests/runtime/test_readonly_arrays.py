"""Read-only arrays are refused for the tensors a kernel writes (issue 14: they were written in
place, or the process died writing a read-only mapping). The compiler records per pointer
whether the kernel may store through it (``Param.writes``); the runtime checks it."""

from __future__ import annotations

import mmap

import layoutc as lc
import numpy as np
import pytest
from layoutc.runtime.abi import KernelSpec, Param
from layoutc.runtime.errors import ArgumentError
from layoutc.runtime.packing import ArgumentBinder

READ_ONLY = r"argument 1 \('dst'\): the array is read-only .* but the kernel writes this tensor"


@lc.kernel
def copy8(src: lc.Tensor[lc.f32, "(N):(1)"], dst: lc.Tensor[lc.f32, "(N):(1)"]):  # noqa: F722
    dst[lc.thread_idx.x] = src[lc.thread_idx.x]


def read_only(a: np.ndarray) -> np.ndarray:
    a = a.copy()
    a.flags.writeable = False
    return a


def test_the_compiler_knows_which_tensors_are_written():
    x = np.arange(8, dtype=np.float32)
    spec = lc.compile(copy8, x, x.copy(), block=8, target="cpu").runtime_spec
    writes = {p.name: p.writes for p in spec.arguments}
    assert writes == {"src": False, "dst": True}
    assert KernelSpec.from_json(spec.to_json()) == spec


def test_read_only_inputs_are_fine():
    x, y = read_only(np.arange(8, dtype=np.float32)), np.zeros(8, np.float32)
    copy8(x, y, grid=1, block=8)
    assert np.array_equal(x, y)


@pytest.mark.parametrize(
    "make",
    [
        lambda: read_only(np.zeros(8, np.float32)),
        lambda: np.frombuffer(bytes(32), np.float32),
    ],
    ids=["writeable=False", "view of bytes"],
)
def test_read_only_outputs_are_refused(make):
    x = np.arange(8, dtype=np.float32)
    copy8(x, np.zeros(8, np.float32), grid=1, block=8)  # teaches the fast path this shape
    dst = make()
    with pytest.raises(ArgumentError, match=READ_ONLY):
        copy8(x, dst, grid=1, block=8)
    assert not dst.any()


def test_a_read_only_mapping_is_refused(tmp_path):
    path = tmp_path / "data"
    path.write_bytes(bytes(32))
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        dst = np.frombuffer(m, np.float32)
        with pytest.raises(ArgumentError, match=READ_ONLY):
            copy8(np.arange(8, dtype=np.float32), dst, grid=1, block=8)
        del dst
    assert path.read_bytes() == bytes(32)


def test_unknown_writes_are_assumed():
    spec = KernelSpec("k", (Param("p", "pointer", "f32"),))  # hand-written: writes unknown
    binder = ArgumentBinder(spec, "cpu")
    with pytest.raises(ArgumentError, match=r"read-only .* but the kernel may write it"):
        binder.bind([read_only(np.zeros(4, np.float32))])
    reads = KernelSpec("k", (Param("p", "pointer", "f32", writes=False),))
    ArgumentBinder(reads, "cpu").bind([read_only(np.zeros(4, np.float32))])
