"""The GPU runtime's marshalling and error handling, against a fake driver (no GPU needed)."""

from __future__ import annotations

import ctypes
import struct
import sys
import types

import fake_driver as fake
import numpy as np
import pytest
from layoutc.runtime import cuda_driver
from layoutc.runtime.abi import KernelSpec, LaunchBounds, Param
from layoutc.runtime.cuda_kernel import load_kernel
from layoutc.runtime.cuda_memory import DeviceArray
from layoutc.runtime.errors import ArgumentError, CudaError

COPY = KernelSpec(
    "copy",
    (Param("src", "pointer", "f32"), Param("dst", "pointer", "f32"), Param("n", "scalar", "i32")),
)
SCALE = KernelSpec(
    "scale2d",
    (
        Param("x", "pointer", "f32", "(?,?):(?,1)", ("x_rows", "x_cols", "x_ld")),
        Param("x_rows", "scalar", "i32"),
        Param("x_cols", "scalar", "i32"),
        Param("x_ld", "scalar", "i32"),
        Param("alpha", "scalar", "f32"),
    ),
)


@pytest.fixture(autouse=True)
def fake_gpu():
    previous = cuda_driver.use_driver(fake)
    fake.launches.clear()
    fake.loaded.clear()
    fake.VERSION = 13000
    yield fake
    cuda_driver.use_driver(previous)


def test_numpy_arguments_are_staged_in_and_out():
    k = load_kernel(b"// copy", "cubin", COPY)
    src = np.arange(100, dtype=np.float32)
    dst = np.zeros(100, dtype=np.float32)
    k(src, dst, 100, grid=(1,), block=128)
    assert np.array_equal(dst, src)
    (launch,) = fake.launches
    assert launch["grid"] == (1, 1, 1) and launch["block"] == (128, 1, 1)
    assert launch["params"][2] == 100
    assert launch["params"][0] != src.ctypes.data  # a device copy, not the host pointer


def test_device_arrays_pass_their_pointers_and_layout_entries():
    k = load_kernel(b"// scale2d", "cubin", SCALE)
    fake.KERNELS["scale2d"] = (["Q", "i", "i", "i", "f"], lambda *a: None)
    host = np.arange(48, dtype=np.float32).reshape(6, 8)
    x = DeviceArray.from_host(host)
    k(x, 2.5, grid=4, block=(32, 2), smem=64, stream=7)
    (launch,) = fake.launches
    assert launch["params"] == [x.ptr, 6, 8, 8, 2.5]
    assert (launch["smem"], launch["stream"]) == (64, 7)
    assert launch["block"] == (32, 2, 1)


def test_strided_host_view_keeps_its_strides():
    k = load_kernel(b"// scale2d", "cubin", SCALE)
    seen = {}

    def model(values, grid, block):
        ptr, rows, cols, ld, alpha = values
        seen.update(rows=rows, cols=cols, ld=ld)
        for r in range(rows):
            for c in range(cols):
                p = ptr + 4 * (r * ld + c)
                v = struct.unpack("f", ctypes.string_at(p, 4))[0]
                ctypes.memmove(p, struct.pack("f", v * alpha), 4)

    fake.KERNELS["scale2d"] = (["Q", "i", "i", "i", "f"], model)
    base = np.arange(60, dtype=np.float32).reshape(6, 10)
    view = base[1:5, 2:7]
    expect = base.copy()
    expect[1:5, 2:7] *= 3
    k(view, 3.0, grid=1, block=32)
    assert seen == {"rows": 4, "cols": 5, "ld": 10}
    assert np.array_equal(base, expect)


def test_stream_handles_from_protocols():
    k = load_kernel(b"// copy", "cubin", COPY)
    a = DeviceArray((4,), "f32")

    class TorchLike:
        cuda_stream = 1234

    class Protocol:
        def __cuda_stream__(self):
            return (0, 99)

    for stream, handle in [(None, 0), (5, 5), (TorchLike(), 1234), (Protocol(), 99)]:
        k(a, a, 4, grid=1, block=4, stream=stream)
        assert fake.launches[-1]["stream"] == handle


class _FakeTorch:
    """The parts of torch a launch without ``stream=`` consults (torch itself need not be
    installed): ``cuda.is_initialized`` and ``_C._cuda_getCurrentRawStream``."""

    def __init__(self, initialised: bool, current: int) -> None:
        self.asked: list[int] = []
        self.cuda = types.SimpleNamespace(is_initialized=lambda: initialised)
        self._C = types.SimpleNamespace(_cuda_getCurrentRawStream=self._current)
        self._stream = current

    def _current(self, device: int) -> int:
        self.asked.append(device)
        return self._stream


def test_launch_without_stream_uses_torchs_current_stream(monkeypatch):
    k = load_kernel(b"// copy", "cubin", COPY)
    a = DeviceArray((4,), "f32")
    torch = _FakeTorch(initialised=True, current=4321)
    monkeypatch.setitem(sys.modules, "torch", torch)
    k(a, a, 4, grid=1, block=4)
    assert fake.launches[-1]["stream"] == 4321
    assert torch.asked == [0]  # the kernel's device
    k(a, a, 4, grid=1, block=4, stream=5)  # an explicit stream still wins
    assert fake.launches[-1]["stream"] == 5


def test_torch_that_never_touched_cuda_leaves_the_default_stream(monkeypatch):
    k = load_kernel(b"// copy", "cubin", COPY)
    a = DeviceArray((4,), "f32")
    torch = _FakeTorch(initialised=False, current=4321)
    monkeypatch.setitem(sys.modules, "torch", torch)
    k(a, a, 4, grid=1, block=4)
    assert fake.launches[-1]["stream"] == 0 and torch.asked == []
    monkeypatch.delitem(sys.modules, "torch")
    k(a, a, 4, grid=1, block=4)
    assert fake.launches[-1]["stream"] == 0


def test_argument_errors_name_kernel_and_argument():
    k = load_kernel(b"// copy", "cubin", COPY)
    a = np.zeros(4, np.float32)
    with pytest.raises(
        ArgumentError, match=r"kernel 'copy' takes 3 arguments \(src, dst, n\), got 2"
    ):
        k(a, a, grid=1, block=1)
    with pytest.raises(
        ArgumentError, match=r"argument 1 \('dst'\): expected f32 elements, got f64"
    ):
        k(a, np.zeros(4), 4, grid=1, block=1)
    with pytest.raises(ArgumentError, match=r"argument 2 \('n'\): 4294967296 does not fit in i32"):
        k(a, a, 1 << 32, grid=1, block=1)
    with pytest.raises(ArgumentError, match=r"argument 2 \('n'\): expected an integer"):
        k(a, a, 4.0, grid=1, block=1)
    with pytest.raises(ArgumentError, match="expected an array of f32, got list"):
        k([1.0], a, 1, grid=1, block=1)
    with pytest.raises(ArgumentError, match="contiguous buffer"):
        k(np.zeros(8, np.float32)[::2], a, 4, grid=1, block=1)
    with pytest.raises(ArgumentError, match="1 to 3 positive ints"):
        k(a, a, 4, grid=(0,), block=1)
    with pytest.raises(ArgumentError, match="exceeds 1024"):
        k(a, a, 4, grid=1, block=(64, 32))
    assert not fake.launches


def test_launch_bounds_are_enforced():
    spec = KernelSpec(COPY.name, COPY.params, LaunchBounds(max_threads=128))
    k = load_kernel(b"// copy", "cubin", spec)
    a = DeviceArray((4,), "f32")
    with pytest.raises(ArgumentError, match="at most 128 threads"):
        k(a, a, 4, grid=1, block=256)
    spec = KernelSpec(COPY.name, COPY.params, LaunchBounds(block=(64, 1, 1)))
    k = load_kernel(b"// copy", "cubin", spec)
    k(a, a, 4, grid=1)  # the required block is the default
    assert fake.launches[-1]["block"] == (64, 1, 1)


def test_array_on_another_device_is_refused():
    k = load_kernel(b"// copy", "cubin", COPY)

    class OnDevice1:
        def __init__(self):
            self.a = DeviceArray((4,), "f32")

        def _layoutc_facts(self, stream=None):
            facts = self.a._layoutc_facts(stream)
            facts.device_id = 1
            return facts

    with pytest.raises(ArgumentError, match="lives on cuda:1, but the kernel runs on cuda:0"):
        k(OnDevice1(), DeviceArray((4,), "f32"), 4, grid=1, block=4)


def test_driver_errors_become_cuda_errors():
    with pytest.raises(CudaError, match=r"looking up kernel 'copy'.*CUDA_ERROR_NOT_FOUND"):
        load_kernel(b"// nothing here", "cubin", COPY)


def test_ptx_jit_failure_carries_the_jit_log():
    ptx = b".version 9.5\n.target sm_90\n// copy\n"
    with pytest.raises(CudaError) as info:
        load_kernel(ptx, "ptx", COPY)
    text = str(info.value)
    assert "CUDA_ERROR_UNSUPPORTED_PTX_VERSION" in text
    assert "Unsupported .version 9.5" in text
    assert "JIT-compiling kernel 'copy' from PTX" in text


def test_launch_shapes_are_checked_after_accepted_launches():
    """The kernel remembers the last grid and block it checked; any other is checked again."""
    spec = KernelSpec(COPY.name, COPY.params, LaunchBounds(max_threads=128))
    k = load_kernel(b"// copy", "cubin", spec)
    a = DeviceArray((4,), "f32")
    grid = [2, 1]
    k(a, a, 4, grid=grid, block=(32, 2))
    k(a, a, 4, grid=grid, block=(32, 2))
    grid[0] = 0  # a list can change between launches
    with pytest.raises(ArgumentError, match="grid must be 1 to 3 positive ints"):
        k(a, a, 4, grid=grid, block=(32, 2))
    with pytest.raises(ArgumentError, match="at most 128 threads"):
        k(a, a, 4, grid=3, block=(32, 8))
    with pytest.raises(ArgumentError, match="block= is required"):
        k(a, a, 4, grid=3)
    k(a, a, 4, grid=3, block=64)
    assert [(r["grid"], r["block"]) for r in fake.launches] == [
        ((2, 1, 1), (32, 2, 1)),
        ((2, 1, 1), (32, 2, 1)),
        ((3, 1, 1), (64, 1, 1)),
    ]


def test_a_refused_call_frees_the_copies_it_staged():
    k = load_kernel(b"// copy", "cubin", COPY)
    host = np.arange(64, dtype=np.float32)
    before = len(fake._buffers)
    with pytest.raises(ArgumentError, match=r"argument 1 \('dst'\): expected f32 elements"):
        k(host, np.zeros(64), 64, grid=1, block=64)
    assert len(fake._buffers) == before and not fake.launches
    dst = np.zeros(64, np.float32)
    k(host, dst, 64, grid=1, block=64)  # staged both ways, then freed
    assert np.array_equal(dst, host) and len(fake._buffers) == before


def test_cluster_launches_go_through_cuLaunchKernelEx():
    """``cluster=`` at launch (a kernel without a compiled shape) and a compiled cluster shape
    both launch through cuLaunchKernelEx with the cluster-dimension attribute."""
    from dataclasses import replace

    k = load_kernel(b"// copy", "cubin", COPY)
    src = np.arange(64, dtype=np.float32)
    dst = np.zeros(64, dtype=np.float32)
    k(src, dst, 64, grid=4, block=32, cluster=2)
    k(src, dst, 64, grid=4, block=32)
    assert fake.launches[0]["cluster"] == (2, 1, 1) and "cluster" not in fake.launches[1]
    assert np.array_equal(dst, src)
    fixed = load_kernel(b"// copy", "cubin", replace(COPY, cluster=(2, 1, 1)))
    fixed(src, dst, 64, grid=(2, 3), block=32)
    fixed(src, dst, 64, grid=(2, 3), block=32, cluster=(2,))
    assert [x["cluster"] for x in fake.launches[2:]] == [(2, 1, 1), (2, 1, 1)]


def test_clusters_of_more_than_8_blocks_opt_into_non_portable_sizes():
    """Clusters of 9 to 16 blocks: the kernel first allows non-portable cluster sizes (the
    driver, and the fake, refuse the launch otherwise), once; portable ones leave it alone."""
    from dataclasses import replace

    src = np.arange(64, dtype=np.float32)
    dst = np.zeros(64, dtype=np.float32)
    k = load_kernel(b"// copy", "cubin", COPY)
    k(src, dst, 64, grid=8, block=32, cluster=8)
    assert "attributes" not in vars(k.function)
    k(src, dst, 64, grid=(8, 4), block=32, cluster=(4, 4))
    k(src, dst, 64, grid=16, block=32, cluster=16)
    assert vars(k.function)["attributes"] == {"non_portable_cluster": 1}
    assert [x["cluster"] for x in fake.launches] == [(8, 1, 1), (4, 4, 1), (16, 1, 1)]
    fixed = load_kernel(b"// copy", "cubin", replace(COPY, cluster=(2, 8, 1)))
    fixed(src, dst, 64, grid=(4, 8), block=32)
    assert fake.launches[-1]["cluster"] == (2, 8, 1) and np.array_equal(dst, src)
    # the fake refuses as the driver does without the opt-in
    from layoutc.runtime.cuda_kernel import launch_in_clusters

    other = load_kernel(b"// copy", "cubin", COPY)
    assert launch_in_clusters(other.function, (16, 1, 1), (32, 1, 1), (16, 1, 1), 0, 0, 0)[0]


@pytest.mark.parametrize(
    ("cluster", "grid", "fixed", "message"),
    [
        (
            2,
            3,
            None,
            r"grid \(3, 1, 1\) is not divisible by the cluster shape \(2, 1, 1\): "
            r"grid.x = 3 is not a multiple of 2",
        ),
        ((1, 2), (4, 3), None, r"grid.y = 3 is not a multiple of 2"),
        (None, 3, (2, 1, 1), r"grid \(3, 1, 1\) is not divisible by the cluster shape"),
        (
            4,
            4,
            (2, 1, 1),
            r"compiled for clusters of \(2, 1, 1\) blocks .* launched with "
            r"cluster=\(4, 1, 1\)",
        ),
        (
            (16, 2),
            (16, 2),
            None,
            r"a cluster of \(16, 2, 1\) is 32 blocks, more than the 16 a cluster may have "
            r"\(Hopper's non-portable cluster size; 8 is the portable one\)",
        ),
        ((2, 0), 4, None, r"cluster must be 1 to 3 positive ints, got \(2, 0\)"),
    ],
)
def test_cluster_launches_that_break_the_rules_are_refused(cluster, grid, fixed, message):
    from dataclasses import replace

    k = load_kernel(b"// copy", "cubin", replace(COPY, cluster=fixed))
    src = np.arange(64, dtype=np.float32)
    with pytest.raises(ArgumentError, match=message):
        k(src, src.copy(), 64, grid=grid, block=32, cluster=cluster)
    assert fake.launches == []


@pytest.mark.parametrize(
    ("cluster", "grid", "message"),
    [
        (None, 4, r"'copy' must be launched in clusters .*\.explicitcluster\): pass cluster="),
        (4, 4, r"a cluster of \(4, 1, 1\) is 4 blocks, more than the 2 it was compiled for"),
    ],
)
def test_explicit_cluster_kernels_refuse_launches_the_gpu_would_refuse(cluster, grid, message):
    """``.explicitcluster``: a launch must give a shape; ``.maxclusterrank 2``: of at most 2
    blocks. Refused before anything reaches the driver; a legal shape launches in clusters."""
    from dataclasses import replace

    spec = replace(COPY, explicit_cluster=True, max_cluster_blocks=2)
    k = load_kernel(b"// copy", "cubin", spec)
    src = np.arange(64, dtype=np.float32)
    with pytest.raises(ArgumentError, match=message):
        k(src, src.copy(), 64, grid=grid, block=32, cluster=cluster)
    assert fake.launches == []
    k(src, src.copy(), 64, grid=4, block=32, cluster=2)
    assert fake.launches[0]["cluster"] == (2, 1, 1)


def test_explicit_cluster_and_max_blocks_are_in_the_manifest_entry():
    from dataclasses import replace

    from layoutc.runtime.errors import ArtifactError
    from layoutc.runtime.manifest_schema import validate

    spec = replace(COPY, explicit_cluster=True, max_cluster_blocks=4)
    data = spec.to_json()
    assert data["explicit_cluster"] is True and data["max_cluster_blocks"] == 4
    assert KernelSpec.from_json(data) == spec
    fixed = replace(COPY, cluster=(2, 1, 1))
    assert fixed.explicit_cluster and "explicit_cluster" not in fixed.to_json()
    manifest = {"format": "layoutc-artifact", "version": 2, "kernels": [{**data, "variants": []}]}
    validate(manifest, "m.json")
    manifest["kernels"][0]["cluster"] = [2, 1, 1]
    with pytest.raises(ArtifactError, match=r"max_cluster_blocks: not allowed next to a fixed"):
        validate(manifest, "m.json")


def test_cluster_shape_is_in_the_manifest_entry():
    from dataclasses import replace

    from layoutc.runtime.errors import ArtifactError
    from layoutc.runtime.manifest_schema import validate

    spec = replace(COPY, cluster=(2, 1, 1))
    data = spec.to_json()
    assert data["cluster"] == [2, 1, 1] and "cluster" not in COPY.to_json()
    assert KernelSpec.from_json(data) == spec
    manifest = {"format": "layoutc-artifact", "version": 2, "kernels": [{**data, "variants": []}]}
    validate(manifest, "m.json")
    manifest["kernels"][0]["cluster"] = [4, 4, 2]
    with pytest.raises(ArtifactError, match=r"kernels\[0\].cluster: 32 blocks, more than the 16"):
        validate(manifest, "m.json")
