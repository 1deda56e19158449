"""GPU checks: run where a CUDA device is present (skipped elsewhere by tests/conftest.py).

Launches hand-written kernels through the whole chain (llvmlite -> PTX -> cubin -> driver)
with torch, CuPy, numpy, DLPack and layoutc's own device arrays as arguments, checks errors,
and loads an AOT artifact. ``python -m pytest -m gpu tests/runtime/test_cuda_gpu.py``.
"""

from __future__ import annotations

import handwritten as hw
import numpy as np
import pytest

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def target():
    from layoutc.codegen.target import Target

    return Target.from_device()


@pytest.fixture(scope="module")
def build(target):
    """name -> loaded CudaKernel, compiled with the default toolchain for this device."""
    from layoutc.codegen.toolchain import ToolchainOptions, compile_gpu
    from layoutc.runtime import cuda_driver
    from layoutc.runtime.cuda_kernel import load_kernel

    cache = {}

    def get(name, **kw):
        key = (name, tuple(sorted(kw.items())))
        if key not in cache:
            module, spec = hw.gpu_module(getattr(hw, f"{name}_kernel")(True, **kw), target.arch)
            opts = ToolchainOptions(driver_version=cuda_driver.driver_version())
            binary = compile_gpu(module, target, opts)
            kind, image = binary.image
            cache[key] = load_kernel(image, kind, spec)
        return cache[key]

    return get


def _torch():
    return pytest.importorskip("torch")


def test_copy_with_torch_tensors(build):
    torch = _torch()
    src = torch.randn(1 << 20, device="cuda")
    dst = torch.zeros_like(src)
    build("copy")(src, dst, src.numel(), grid=(132,), block=(256,))
    torch.cuda.synchronize()
    assert torch.equal(src, dst)


def test_copy_on_a_torch_stream(build):
    torch = _torch()
    src = torch.arange(4096, device="cuda", dtype=torch.float32)
    dst = torch.zeros_like(src)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        build("copy")(src, dst, 4096, grid=8, block=128, stream=stream)
    stream.synchronize()
    assert torch.equal(src, dst)


def test_launch_without_stream_follows_torch_current_stream(build):
    """No ``stream=``: the kernel joins torch's current stream (a non-blocking side stream
    would race with a legacy-default-stream launch) and torch's event order holds."""
    torch = _torch()
    n = 1 << 22
    src = torch.randn(n, device="cuda")
    dst = torch.zeros_like(src)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        src.mul_(2.0)  # queued on the side stream; the copy must run after it
        build("copy")(src, dst, n, grid=n // 512, block=128)
        dst.add_(1.0)  # and this after the copy
    side.synchronize()
    assert torch.equal(dst, src + 1.0)


def test_launch_is_captured_by_a_cuda_graph_and_replayed(build):
    torch = _torch()
    n = 1 << 20
    src = torch.randn(n, device="cuda")
    dst = torch.zeros_like(src)
    kernel = build("copy")
    kernel(src, dst, n, grid=n // 512, block=128)  # warm-up outside the capture
    torch.cuda.synchronize()
    dst.zero_()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        kernel(src, dst, n, grid=n // 512, block=128)
    torch.cuda.synchronize()
    assert not dst.any()  # captured, not run
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(src, dst)
    src.copy_(torch.randn(n, device="cuda"))
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(src, dst)


def test_copy_with_cupy_arrays(build):
    cp = pytest.importorskip("cupy")
    src = cp.arange(10000, dtype=cp.float32)
    dst = cp.zeros_like(src)
    build("copy")(src, dst, 10000, grid=16, block=128)
    cp.cuda.runtime.deviceSynchronize()
    assert bool((src == dst).all())


def test_copy_with_numpy_arrays_is_staged(build):
    src = np.random.default_rng(0).random(5000, dtype=np.float32)
    dst = np.zeros_like(src)
    build("copy")(src, dst, 5000, grid=4, block=256)
    assert np.array_equal(src, dst)


def test_copy_with_dlpack_only_objects(build):
    torch = _torch()

    class DLPackOnly:
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, stream=None):
            return self.t.__dlpack__(stream=stream)

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    src = torch.randn(3000, device="cuda")
    dst = torch.zeros_like(src)
    build("copy")(DLPackOnly(src), DLPackOnly(dst), 3000, grid=4, block=128)
    torch.cuda.synchronize()
    assert torch.equal(src, dst)


def test_copy_with_layoutc_device_arrays(build):
    from layoutc.runtime.cuda_memory import DeviceArray

    host = np.arange(777, dtype=np.float32)
    src = DeviceArray.from_host(host)
    dst = DeviceArray((777,), "f32")
    build("copy")(src, dst, 777, grid=2, block=64)
    assert np.array_equal(dst.to_host(), host)


def test_dynamic_layout_tensor_from_a_torch_view(build):
    torch = _torch()
    base = torch.arange(60 * 40, device="cuda", dtype=torch.float32).reshape(60, 40)
    expect = base.clone()
    expect[5:50, 3:33] *= 2
    build("scale2d")(base[5:50, 3:33], 2.0, grid=8, block=128)
    torch.cuda.synchronize()
    assert torch.equal(base, expect)


def test_repeated_torch_launches_use_each_calls_arrays_and_keep_refusing(build):
    """After accepted launches the runtime checks only the pointer of a tensor like the last
    one: each launch must still read its own tensor and carriers, and refuse what breaks a fact."""
    from dataclasses import replace

    from layoutc.runtime.cuda_kernel import CudaKernel
    from layoutc.runtime.errors import ArgumentError

    torch = _torch()
    k = build("scale2d")
    params = tuple(replace(p, align=16) if p.kind == "pointer" else p for p in k.spec.params)
    aligned = CudaKernel(k.module, replace(k.spec, params=params))  # the same code, align=16
    for i in range(4):
        base = torch.arange(64 * 48, device="cuda", dtype=torch.float32).reshape(64, 48)
        expect = base.clone()
        expect[:, :32] *= i + 2
        aligned(base[:, :32], float(i + 2), grid=8, block=128)
        torch.cuda.synchronize()
        assert torch.equal(base, expect)
    with pytest.raises(ArgumentError, match="not 16-byte aligned"):
        aligned(base[:, 1:33], 2.0, grid=8, block=128)
    with pytest.raises(ArgumentError, match="expected f32 elements, got f64"):
        aligned(base.double()[:, :32], 2.0, grid=8, block=128)
    other = torch.ones(30, 100, device="cuda")  # another shape and row stride
    aligned(other[:, :52], 3.0, grid=8, block=128)
    host = torch.ones(8, 8)  # a CPU tensor: staged, never remembered
    aligned(host, 5.0, grid=1, block=64)
    aligned(host, 5.0, grid=1, block=64)
    torch.cuda.synchronize()
    assert float(other[:, :52].sum()) == 3.0 * 30 * 52 and float(other[:, 52:].sum()) == 48 * 30
    assert torch.equal(host, torch.full((8, 8), 25.0))


def test_shared_memory_barrier_and_shuffles_match_the_cpu_runtime(build):
    from layoutc.runtime.cpu_kernel import CpuKernel

    rng = np.random.default_rng(5)
    src = rng.random(16 * 128, dtype=np.float32)
    gpu_rev, cpu_rev = np.zeros_like(src), np.zeros_like(src)
    build("block_reverse")(src, gpu_rev, grid=16, block=128, smem=128 * 4)
    CpuKernel(*hw.block_reverse_kernel(False))(src, cpu_rev, grid=16, block=128, smem=128 * 4)
    assert np.array_equal(gpu_rev, src.reshape(16, 128)[:, ::-1].ravel())
    assert np.array_equal(gpu_rev, cpu_rev)

    gpu_sum, cpu_sum = np.zeros(64, np.float32), np.zeros(64, np.float32)
    build("warp_sum")(src, gpu_sum, grid=16, block=128)
    CpuKernel(*hw.warp_sum_kernel(False))(src, cpu_sum, grid=16, block=128)
    np.testing.assert_allclose(gpu_sum, src.reshape(-1, 32).sum(1), rtol=1e-5)
    np.testing.assert_allclose(gpu_sum, cpu_sum, rtol=1e-6)


def test_multidimensional_ids(build):
    g, b = (3, 2, 2), (4, 3, 2)
    out = np.full((2, 2, 3, 2, 3, 4, 6), -1, np.int32)
    build("ids")(out, grid=g, block=b)
    z, y, x, tz, ty, tx = np.indices(out.shape[:6])
    assert np.array_equal(out, np.stack([tx, ty, tz, x, y, z], axis=-1))


def test_errors(build):
    from layoutc.runtime.errors import ArgumentError

    torch = _torch()
    k = build("copy")
    a = torch.zeros(16, device="cuda")
    with pytest.raises(ArgumentError, match="expected f32 elements, got f64"):
        k(a, torch.zeros(16, device="cuda", dtype=torch.float64), 16, grid=1, block=16)
    with pytest.raises(ArgumentError, match="dynamic shared memory is outside"):
        k(a, a, 16, grid=1, block=16, smem=10 << 20)  # refused before the driver sees it


def test_ptx_paths_and_the_version_trap(target):
    from layoutc.codegen.ptx import compile_ptx_libnvvm, compile_ptx_llvm, libnvvm_available
    from layoutc.runtime import cuda_driver
    from layoutc.runtime.compat import max_ptx_isa_for_driver
    from layoutc.runtime.cuda_kernel import load_kernel
    from layoutc.runtime.errors import CudaError

    module, spec = hw.gpu_module(hw.copy_kernel(True), target.arch)
    ptx = compile_ptx_llvm(str(module), target).ptx
    k = load_kernel(ptx.encode(), "ptx", spec)
    src = np.arange(100, dtype=np.float32)
    dst = np.zeros_like(src)
    k(src, dst, 100, grid=1, block=128)
    assert np.array_equal(src, dst)
    if libnvvm_available():
        nvvm = compile_ptx_libnvvm(str(module), target)
        if nvvm.isa > max_ptx_isa_for_driver(cuda_driver.driver_version()):
            with pytest.raises(CudaError, match="JIT"):
                load_kernel(nvvm.ptx.encode(), "ptx", spec)


def test_aot_artifact_round_trip(target, tmp_path):
    import layoutc.runtime as rt
    from layoutc.codegen.toolchain import compile_gpu
    from layoutc.runtime.artifact import ArtifactKernel, Variant, write_artifact

    module, spec = hw.gpu_module(hw.copy_kernel(True), target.arch)
    binary = compile_gpu(module, target)
    write_artifact(
        tmp_path,
        [ArtifactKernel(spec, (Variant(target.arch, ptx=binary.ptx, cubin=binary.cubin),))],
    )
    lib = rt.load(tmp_path)
    src = np.arange(1000, dtype=np.float32)
    dst = np.zeros_like(src)
    lib.copy(src, dst, 1000, grid=4, block=256)
    assert np.array_equal(src, dst)
