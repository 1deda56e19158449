"""What a GPU launch remembers of the last one (grid, block, smem=, the cluster launch's
configuration, torch's stream accessor) is used only for a launch that would be checked and
configured the same way; anything else is checked again (fake driver, no GPU needed)."""

from __future__ import annotations

import sys
import types
from dataclasses import replace

import fake_driver as fake
import numpy as np
import pytest
from layoutc.runtime import cuda_driver, launch_config
from layoutc.runtime.abi import KernelSpec, LaunchBounds, Param
from layoutc.runtime.cuda_kernel import load_kernel
from layoutc.runtime.cuda_memory import DeviceArray
from layoutc.runtime.errors import ArgumentError
from layoutc.runtime.launch_config import same_shape

COPY = KernelSpec(
    "copy",
    (Param("src", "pointer", "f32"), Param("dst", "pointer", "f32"), Param("n", "scalar", "i32")),
)


@pytest.fixture(autouse=True)
def fake_gpu():
    previous = cuda_driver.use_driver(fake)
    fake.launches.clear()
    yield fake
    cuda_driver.use_driver(previous)


def test_same_shape_takes_only_exact_ints_equal_to_the_last():
    assert same_shape(8, 8) and same_shape((8, 2), (8, 2)) and same_shape((8, 2, 1), (8, 2, 1))
    assert same_shape((8,), (np.int64(8),))  # the last was checked; an equal int is the same
    for given, last in [
        (8, 9),
        (8.0, 8),
        (True, 1),
        ((True,), (1,)),
        ((8.0,), (8,)),
        ((8,), 8),
        (8, (8,)),
        ([8], [8]),
        ((8, 1), (8,)),
        (np.int64(8), 8),
        (None, 8),
    ]:
        assert not same_shape(given, last), (given, last)


def test_a_launch_shape_equal_to_the_last_is_reused_anything_else_is_checked():
    k = load_kernel(b"// copy", "cubin", replace(COPY, launch_bounds=LaunchBounds(128)))
    a = DeviceArray((4,), "f32")
    for grid, block in [((3,), 32), ((3,), 32), ((2, 2), 64), (5, (16, 2)), ((3,), 32)]:
        k(a, a, 4, grid=grid, block=block)
        g = (grid, 1, 1) if isinstance(grid, int) else (*grid, 1, 1)[:3]
        b = (block, 1, 1) if isinstance(block, int) else (*block, 1, 1)[:3]
        assert fake.launches[-1]["grid"] == g and fake.launches[-1]["block"] == b
    for grid, block, message in [
        ((3.0,), 32, "grid must be 1 to 3 positive ints"),
        ((True,), 32, "grid must be 1 to 3 positive ints"),
        ((3,), 32.0, "block must be"),
        ((3,), 256, "at most 128 threads per block"),  # over the kernel's launch bounds
        ((0,), 32, "grid must be 1 to 3 positive ints"),
    ]:
        k(a, a, 4, grid=(3,), block=32)  # the last shape is (3,), 32 again
        with pytest.raises(ArgumentError, match=message):
            k(a, a, 4, grid=grid, block=block)
    grid = [3]  # a list can change behind the runtime's back: never remembered
    k(a, a, 4, grid=grid, block=32)
    grid[0] = 0
    with pytest.raises(ArgumentError, match="grid must be"):
        k(a, a, 4, grid=grid, block=32)


def test_smem_equal_to_the_last_is_reused_anything_else_is_checked():
    k = load_kernel(b"// copy", "cubin", COPY)
    a = DeviceArray((4,), "f32")
    for smem in (1024, 1024, 0, 60 * 1024, 1024):
        k(a, a, 4, grid=1, block=32, smem=smem)
        assert fake.launches[-1]["smem"] == smem
    for smem in (1024.0, True, -1, 228 * 1024):
        k(a, a, 4, grid=1, block=32, smem=1024)
        with pytest.raises(ArgumentError, match="smem"):
            k(a, a, 4, grid=1, block=32, smem=smem)


def test_a_cluster_launch_reuses_its_configuration_only_when_nothing_changed():
    k = load_kernel(b"// copy", "cubin", COPY)
    a = DeviceArray((64,), "f32")
    calls = [
        dict(grid=4, cluster=2, smem=0, stream=0),
        dict(grid=4, cluster=2, smem=0, stream=0),
        dict(grid=8, cluster=2, smem=0, stream=0),
        dict(grid=8, cluster=4, smem=0, stream=0),
        dict(grid=8, cluster=4, smem=512, stream=0),
        dict(grid=8, cluster=4, smem=512, stream=7),
        dict(grid=4, cluster=2, smem=0, stream=0),
    ]
    for c in calls:
        k(a, a, 64, block=32, **c)
        got = fake.launches[-1]
        assert got["grid"] == (c["grid"], 1, 1) and got["cluster"] == (c["cluster"], 1, 1)
        assert got["smem"] == c["smem"] and got["stream"] == c["stream"]
    configs = k._ex  # the last launch's configuration, built for it
    k(a, a, 64, block=32, **calls[-1])
    assert k._ex is configs


def test_a_cluster_shape_equal_to_the_last_is_reused_anything_else_is_checked():
    k = load_kernel(b"// copy", "cubin", COPY)
    fixed = load_kernel(b"// copy", "cubin", replace(COPY, cluster=(2, 1, 1)))
    a = DeviceArray((64,), "f32")
    k(a, a, 64, grid=4, block=32, cluster=2)
    for grid, cluster, message in [
        (3, 2, "not divisible by the cluster shape"),
        (4, 2.0, "cluster must be 1 to 3 positive ints"),
        (4, (True,), "cluster must be 1 to 3 positive ints"),
        (32, 32, "more than the 16 a cluster may have"),
    ]:
        k(a, a, 64, grid=4, block=32, cluster=2)  # the last launch is grid 4, cluster 2 again
        with pytest.raises(ArgumentError, match=message):
            k(a, a, 64, grid=grid, block=32, cluster=cluster)
    k(a, a, 64, grid=4, block=32, cluster=(2,))
    k(a, a, 64, grid=8, block=32, cluster=(2,))
    k(a, a, 64, grid=8, block=32, cluster=(4, 1))
    assert [x["cluster"] for x in fake.launches[-3:]] == [(2, 1, 1), (2, 1, 1), (4, 1, 1)]
    fixed(a, a, 64, grid=4, block=32)
    fixed(a, a, 64, grid=4, block=32)
    with pytest.raises(ArgumentError, match="not divisible by the cluster shape"):
        fixed(a, a, 64, grid=3, block=32)
    with pytest.raises(ArgumentError, match="compiled for clusters of"):
        fixed(a, a, 64, grid=4, block=32, cluster=4)
    assert fake.launches[-1]["cluster"] == (2, 1, 1)


class _FakeTorch:
    def __init__(self, current: int) -> None:
        self.cuda = types.SimpleNamespace(is_initialized=lambda: True)
        self._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda device: current)


def test_torchs_stream_accessor_is_kept_only_for_the_torch_that_gave_it(monkeypatch):
    k = load_kernel(b"// copy", "cubin", COPY)
    a = DeviceArray((4,), "f32")
    monkeypatch.setitem(sys.modules, "torch", _FakeTorch(11))
    k(a, a, 4, grid=1, block=4)
    k(a, a, 4, grid=1, block=4)
    assert [x["stream"] for x in fake.launches] == [11, 11]
    monkeypatch.setitem(sys.modules, "torch", _FakeTorch(22))  # another torch: asked again
    k(a, a, 4, grid=1, block=4)
    monkeypatch.delitem(sys.modules, "torch")  # no torch: the default stream
    k(a, a, 4, grid=1, block=4)
    assert [x["stream"] for x in fake.launches[2:]] == [22, 0]
    launch_config._forget_torch_stream()  # what a forked child does
    assert launch_config._torch_stream is None
