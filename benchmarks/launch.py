"""Launch overhead, argument packing, compile steps and cache hits, as a table.

    python benchmarks/launch.py            # everything this machine can run
    python benchmarks/launch.py --quick    # fewer repetitions

Every figure is the median of several timed repetitions; each row compares with a reference
measured in the same process (ratio = layoutc / reference). Without a GPU the GPU rows are
skipped; the host-side packing rows need none.
"""

from __future__ import annotations

import argparse
import os
import statistics
import struct
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "runtime"))

import handwritten as hw

ROWS: list[tuple[str, float, str, float]] = []


def timeit(fn, repeat: int, inner: int = 1) -> float:
    """Median seconds per call of ``fn`` over ``repeat`` samples of ``inner`` calls."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        samples.append((time.perf_counter() - start) / inner)
    return statistics.median(samples)


def row(what: str, seconds: float, ref_name: str, ref_seconds: float) -> None:
    ROWS.append((what, seconds, ref_name, ref_seconds))


def fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:9.2f} us"
    return f"{seconds * 1e3:9.2f} ms"


def compile_steps(repeat: int) -> None:
    from layoutc.codegen.cubin import nvjitlink_version, ptx_to_cubin
    from layoutc.codegen.ptx import compile_ptx_libnvvm, compile_ptx_llvm, libnvvm_available
    from layoutc.codegen.target import Target
    from layoutc.driver.cache import CacheEntry, CompileCache, cache_key

    target = Target.parse("sm_90")
    build = lambda: hw.gpu_module(hw.copy_kernel(True), "sm_90")
    t_build = timeit(build, repeat)
    text = str(build()[0])
    t_print = timeit(lambda: str(build()[0]), repeat) - t_build
    t_llvm = timeit(lambda: compile_ptx_llvm(text, target), repeat)
    row("IR build (llvmlite.ir, copy kernel)", t_build, "print IR", t_print)
    if libnvvm_available():
        t_nvvm = timeit(lambda: compile_ptx_libnvvm(text, target), repeat)
        row("PTX via libNVVM -O3", t_nvvm, "PTX via LLVM NVPTX -O3", t_llvm)
    else:
        row("PTX via LLVM NVPTX -O3", t_llvm, "PTX via LLVM NVPTX -O3", t_llvm)
    if nvjitlink_version():
        ptx = compile_ptx_llvm(text, target).ptx
        t_cubin = timeit(lambda: ptx_to_cubin(ptx, "sm_90"), repeat)
        row("cubin via nvJitLink -O3", t_cubin, "PTX via LLVM NVPTX -O3", t_llvm)
    with tempfile.TemporaryDirectory() as d:
        cache = CompileCache(d)
        key = cache_key(text, "sm_90", {"opt": 3})
        cache.put(key, CacheEntry({"kernel": "copy"}, {"ptx": b"x" * 4000, "cubin": b"y" * 4000}))
        t_key = timeit(lambda: cache_key(text, "sm_90", {"opt": 3}), repeat, 200)
        t_mem = timeit(lambda: cache.get(key), repeat, 1000)
        cold = CompileCache(d)

        def disk_hit():
            cold.clear_memory()
            cold.get(key)

        t_disk = timeit(disk_hit, repeat, 200)
        row("cache key (hash IR text + target + options)", t_key, "PTX via LLVM NVPTX -O3", t_llvm)
        row("cache hit, memory", t_mem, "PTX via LLVM NVPTX -O3", t_llvm)
        row("cache hit, disk (one file read + sha256)", t_disk, "PTX via LLVM NVPTX -O3", t_llvm)


def host_packing(repeat: int) -> None:
    """Cost of checking and packing arguments, without any driver."""
    from layoutc.runtime.packing import ArgumentBinder

    _, spec = hw.copy_kernel(True)
    binder = ArgumentBinder(spec, "cpu")
    a = np.zeros(1024, np.float32)
    b = np.zeros(1024, np.float32)
    s = struct.Struct("<QQi")
    buf = bytearray(24)
    pa, pb = a.ctypes.data, b.ctypes.data
    t_ref = timeit(lambda: s.pack_into(buf, 0, pa, pb, 1024), repeat, 2000)
    t_bind = timeit(lambda: binder.bind((a, b, 1024)), repeat, 2000)
    row("pack copy(src, dst, n), numpy arrays", t_bind, "struct.pack_into of 3 values", t_ref)

    facts_rows(repeat, t_ref)

    _, spec2 = hw.scale2d_kernel(True)
    binder2 = ArgumentBinder(spec2, "cpu")
    x = np.zeros((64, 80), np.float32)[:, :60]
    t_bind2 = timeit(lambda: binder2.bind((x, 2.0)), repeat, 2000)
    row(
        "pack scale2d(x: (?,?):(?,1), alpha), strided view",
        t_bind2,
        "struct.pack_into of 3 values",
        t_ref,
    )


def facts_rows(repeat: int, t_pack3: float) -> None:
    """What checking the compiled facts adds per launch: the same ABI with and without them."""
    from layoutc.runtime.abi import KernelSpec, Param
    from layoutc.runtime.packing import ArgumentBinder

    i32_max = (1 << 31) - 1

    def spec(with_facts: bool) -> KernelSpec:
        ptr = {"align": 16} if with_facts else {}
        n = {"divisible_by": 16, "lower": 0, "upper": i32_max, "symbol": "N"} if with_facts else {}
        return KernelSpec(
            "copy_1d",
            (
                Param("src", "pointer", "f32", "(?):(1)", ("src_n",), **ptr),
                Param("src_n", "scalar", "i32", **n),
                Param("dst", "pointer", "f32", "(?):(1)", ("dst_n",), **ptr),
                Param("dst_n", "scalar", "i32", **n),
                Param("k", "scalar", "i32", divisible_by=4 if with_facts else 1),
            ),
            equal=(("src_n", "dst_n"),) if with_facts else (),
        )

    plain, checked = ArgumentBinder(spec(False), "cpu"), ArgumentBinder(spec(True), "cpu")
    a = np.zeros(1024, np.float32)
    b = np.zeros(1024, np.float32)
    # interleave the two so that machine noise hits both alike; keep the best of each
    t_plain = t_checked = float("inf")
    for _ in range(repeat):
        t_plain = min(t_plain, timeit(lambda: plain.bind((a, b, 8)), 3, 2000))
        t_checked = min(t_checked, timeit(lambda: checked.bind((a, b, 8)), 3, 2000))
    row(
        "pack copy_1d(src, dst: (N):(1), k), no facts",
        t_plain,
        "struct.pack_into of 3 values",
        t_pack3,
    )
    row(
        "  ... with facts (align=16, N%16, equal N, k%4)",
        t_checked,
        "the same without facts",
        t_plain,
    )


def _noop_driver():
    """The fake driver of tests/runtime with a launch that does nothing (host cost only)."""
    from types import SimpleNamespace

    import fake_driver as fake

    ok = (0,)
    names = {k: getattr(fake, k) for k in dir(fake) if k.startswith(("cu", "CU"))}
    names["cuLaunchKernel"] = lambda f, gx, gy, gz, bx, by, bz, smem, stream, params, extra: ok
    # cuTensorMapEncodeTiled's signature with 128 zero bytes (only a new tensor encodes)
    tensor_map = SimpleNamespace(opaque=[0] * 16)
    names["cuTensorMapEncodeTiled"] = lambda *args: (0, tensor_map)
    names["cuuint32_t"] = names["cuuint64_t"] = int
    names["CUtensorMapDataType"] = SimpleNamespace(
        CU_TENSOR_MAP_DATA_TYPE_FLOAT16="f16", CU_TENSOR_MAP_DATA_TYPE_BFLOAT16="bf16"
    )
    names["CUtensorMapInterleave"] = SimpleNamespace(CU_TENSOR_MAP_INTERLEAVE_NONE=0)
    names["CUtensorMapSwizzle"] = SimpleNamespace(CU_TENSOR_MAP_SWIZZLE_128B=3)
    names["CUtensorMapL2promotion"] = SimpleNamespace(CU_TENSOR_MAP_L2_PROMOTION_L2_128B=2)
    names["CUtensorMapFloatOOBfill"] = SimpleNamespace(CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE=0)
    return SimpleNamespace(**names)


def gemm_tma_spec() -> object:
    """The ABI of examples/gemm_sm90.py's TMA GEMM (``tuned("bf16")``): A (M, K), B (N, K)
    and C (M, N), each ``(?,?):(?,1)`` with its carriers and facts, and a TMA descriptor
    parameter per tensor (64 x 64 boxes of A and B, 64 x 64 of C, 128-byte swizzle)."""
    from layoutc.runtime.abi import TMA, KernelSpec, Param, TmaSource

    i32 = (1 << 31) - 1
    params = []
    for name, div0 in (("a", 1), ("b", 8), ("c", 1)):
        carriers = (f"{name}_shape0", f"{name}_shape1", f"{name}_stride0")
        params.append(Param(name, "pointer", "bf16", "(?,?):(?,1)", carriers, align=16))
        for carrier, div in zip(carriers, (div0, 8, 8)):
            params.append(Param(carrier, "scalar", "i32", divisible_by=div, lower=1, upper=i32))
    for i, name in enumerate("abc"):
        extents, strides = (f"{name}_shape0", f"{name}_shape1"), (f"{name}_stride0", 1)
        tma = TmaSource(name, (64, 64), (1, 0), 128, extents, strides)
        params.append(Param(f"{name}_tma{i}", TMA, "bf16", tma=tma))
    equal = (("a_shape0", "c_shape0"), ("a_shape1", "a_stride0", "b_shape1", "b_stride0"))
    return KernelSpec("gemm_tma", tuple(params), equal=equal)


def host_launch(repeat: int) -> None:
    """The whole host side of a GPU launch (checks, packing, driver call) on a no-op driver.

    What the H200 adds on top is cuda-bindings' cuLaunchKernel itself (the GPU rows)."""
    import torch_like
    from layoutc.runtime import cuda_driver
    from layoutc.runtime.abi import KernelSpec, Param
    from layoutc.runtime.cuda_kernel import load_kernel
    from layoutc.runtime.cuda_memory import DeviceArray

    driver = _noop_driver()
    previous = cuda_driver.use_driver(driver)
    try:
        launch = driver.cuLaunchKernel
        t_ref = timeit(lambda: launch(0, 1, 1, 1, 32, 1, 1, 0, 0, 0, 0), repeat, 5000)
        ref = "Python call of the no-op driver"
        i32_max = (1 << 31) - 1
        copy = KernelSpec(
            "copy",
            (
                Param("src", "pointer", "f32"),
                Param("dst", "pointer", "f32"),
                Param("n", "scalar", "i32"),
            ),
        )
        n = {"divisible_by": 16, "lower": 1, "upper": i32_max, "symbol": "N"}
        copy_1d = KernelSpec(
            "copy_1d",
            (
                Param("src", "pointer", "f32", "(?):(1)", ("src_n",), align=16),
                Param("src_n", "scalar", "i32", **n),
                Param("dst", "pointer", "f32", "(?):(1)", ("dst_n",), align=16),
                Param("dst_n", "scalar", "i32", **n),
            ),
            equal=(("src_n", "dst_n"),),
        )
        k_copy = load_kernel(b"copy copy_1d", "cubin", copy)
        k_1d = load_kernel(b"copy copy_1d", "cubin", copy_1d)
        a, b = torch_like.Tensor(1 << 20, (1024,)), torch_like.Tensor(1 << 21, (1024,))
        x, y = DeviceArray((1024,), "f32"), DeviceArray((1024,), "f32")
        cases = [
            (
                "host launch copy(a, b, n), torch-like tensors",
                lambda: k_copy(a, b, 1024, grid=1, block=32),
            ),
            (
                "host launch copy_1d(a, b) with facts, torch-like",
                lambda: k_1d(a, b, grid=1, block=32),
            ),
            (
                "host launch copy_1d(x, y) with facts, DeviceArray",
                lambda: k_1d(x, y, grid=1, block=32),
            ),
        ]
        c, d = torch_like.Tensor(1 << 22, (4096,)), torch_like.Tensor(1 << 23, (4096,))

        def alternate():
            k_1d(a, b, grid=1, block=32)
            k_1d(c, d, grid=4, block=32)

        cases.append(("host launch copy_1d, 2 shapes alternately (per launch)", alternate))
        bf16 = torch_like.TorchDtype("bfloat16")
        k_gemm = load_kernel(b"gemm_tma", "cubin", gemm_tma_spec())
        sets = [
            tuple(
                torch_like.Tensor((i * 3 + j + 1) << 26, (4096, 4096), dtype=bf16) for j in range(3)
            )
            for i in range(3)
        ]
        gemm, block, smem = (132,), 384, 200 * 1024
        one = sets[0]
        cases.append(
            (
                "host launch TMA GEMM ABI (3 tensors, 3 descriptors)",
                lambda: k_gemm(*one, grid=gemm, block=block, smem=smem),
            )
        )

        def rotate():
            for abc in sets:
                k_gemm(*abc, grid=gemm, block=block, smem=smem)

        cases.append(("  ... 3 input sets in turn (per launch)", rotate))
        per_call = {alternate: 2, rotate: len(sets)}
        for what, fn in cases:
            fn()
            t = timeit(fn, repeat, 2000)
            row(what, t / per_call.get(fn, 1), ref, t_ref)
        compiled_launch(repeat, t_ref, ref, x, y)
    finally:
        cuda_driver.use_driver(previous)


def compiled_launch(repeat: int, t_ref: float, ref: str, x: object, y: object) -> None:
    """``lc.compile(...)``'s kernel object and the direct ``kernel(...)`` call, host side only.

    A repeated direct call looks its kernel up by call key (compiler/frontend/call_key.py);
    the last row clears that memo before every call, so it pays the spec derivation."""
    from layoutc.runtime.cuda_memory import DeviceArray

    try:
        import layoutc as lc
        from layoutc.driver.loading import load_source
    except ImportError as e:
        print(f"(compiler unavailable: {e}; compiled-kernel rows skipped)")
        return
    root = Path(__file__).resolve().parent.parent
    kern = vars(load_source(root / "examples" / "copy_1d.py"))["copy_1d"]
    with tempfile.TemporaryDirectory() as d:
        os.environ["LAYOUTC_CACHE_DIR"] = d
        os.environ["LAYOUTC_TARGET"] = "sm_90"
        ck = lc.compile(kern, x, y, block=128, target="sm_90")
        ck(x, y, grid=1)
        row(
            "host launch lc.compile(copy_1d)(x, y)",
            timeit(lambda: ck(x, y, grid=1), repeat, 2000),
            ref,
            t_ref,
        )
        kern(x, y, grid=1, block=128)
        t_compiled = t_direct = float("inf")
        for _ in range(repeat):  # interleaved, best of each: machine noise hits both alike
            t_compiled = min(t_compiled, timeit(lambda: ck(x, y, grid=1), 3, 1000))
            t_direct = min(t_direct, timeit(lambda: kern(x, y, grid=1, block=128), 3, 1000))
        row("host launch copy_1d(x, y) direct call", t_direct, ref, t_ref)
        row(
            "  direct call, repeated (call key hit)",
            t_direct,
            "lc.compile(copy_1d)(x, y)",
            t_compiled,
        )
        z = DeviceArray((2048,), "f32")
        kern(z, z, grid=2, block=128)

        def alternate():  # two specs' keys, both remembered
            kern(x, y, grid=1, block=128)
            kern(z, z, grid=2, block=128)

        row(
            "  direct call, 2 shapes alternately (per call)",
            timeit(alternate, repeat, 500) / 2,
            "lc.compile(copy_1d)(x, y)",
            t_compiled,
        )
        # the full path: derive_spec + lookup (then the key is recorded again)
        t_full = timeit(
            lambda: (kern.call_memo.clear(), kern(x, y, grid=1, block=128)), repeat, 200
        )
        row(
            "  direct call, no call key (derive_spec)",
            t_full,
            "lc.compile(copy_1d)(x, y)",
            t_compiled,
        )


def cpu_runtime(repeat: int) -> None:
    from layoutc.runtime.cpu_kernel import CpuKernel

    start = time.perf_counter()
    copy = CpuKernel(*hw.copy_kernel(False))
    t_compile = time.perf_counter() - start
    n = 1 << 22
    src = np.random.default_rng(0).random(n, dtype=np.float32)
    dst = np.zeros_like(src)
    t_ref = timeit(lambda: np.copyto(dst, src), repeat)
    t_copy = timeit(lambda: copy(src, dst, n, grid=256, block=256), repeat)
    row("CPU compile + JIT (copy kernel, first)", t_compile, "numpy copy of 16 MiB", t_ref)
    row("CPU copy kernel, 16 MiB, 256x256 threads", t_copy, "numpy copy of 16 MiB", t_ref)
    small = np.zeros(1, np.float32)
    t_launch = timeit(lambda: copy(small, small, 0, grid=1, block=1), repeat, 200)
    row(
        "CPU launch overhead (1 thread, no work)",
        t_launch,
        "struct.pack_into of 3 values",
        ROWS[-3][3] if len(ROWS) > 2 else t_launch,
    )
    rev = CpuKernel(*hw.block_reverse_kernel(False))
    blocks = 512
    s2 = np.random.default_rng(1).random(blocks * 256, dtype=np.float32)
    d2 = np.zeros_like(s2)
    rev(s2, d2, grid=blocks, block=256, smem=1024)
    t_rev = timeit(lambda: rev(s2, d2, grid=blocks, block=256, smem=1024), repeat)
    t_rev_ref = timeit(
        lambda: np.copyto(d2.reshape(blocks, 256), s2.reshape(blocks, 256)[:, ::-1]), repeat
    )
    row(
        f"CPU block reverse w/ barrier ({blocks}x256 fibers)",
        t_rev,
        "numpy reverse per block",
        t_rev_ref,
    )
    per_thread = t_rev / (blocks * 256)
    row(
        "  ... per GPU thread (2 fiber switches + work)",
        per_thread,
        "numpy reverse per element",
        t_rev_ref / (blocks * 256),
    )


def gpu_launch(repeat: int) -> None:
    try:
        from layoutc.runtime import cuda_driver

        cuda_driver.init()
    except Exception as e:
        print(f"(no GPU: {e}; GPU rows skipped)")
        return
    from layoutc.codegen.target import Target
    from layoutc.codegen.toolchain import ToolchainOptions, compile_gpu
    from layoutc.runtime.cuda_kernel import load_kernel

    target = Target.from_device()
    module, spec = hw.gpu_module(hw.copy_kernel(True), target.arch)
    binary = compile_gpu(
        module, target, ToolchainOptions(driver_version=cuda_driver.driver_version())
    )
    kind, image = binary.image
    kernel = load_kernel(image, kind, spec)
    inner = 2000
    t_torch = t_torch_ref = None
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        a = torch.zeros(1, device="cuda")
        b = torch.zeros(1, device="cuda")
        z = torch.empty(0, device="cuda")
        kernel(a, b, 0, grid=1, block=32)
        torch.cuda.synchronize()

        def ours():
            kernel(a, b, 0, grid=1, block=32)

        def ref():
            z.add_(1.0)  # a tiny torch kernel launch on an empty tensor

        t_torch_ref = timeit(ref, repeat, inner)
        torch.cuda.synchronize()
        t_torch = timeit(ours, repeat, inner)
        torch.cuda.synchronize()
        row(
            "GPU launch, torch tensors (host time)", t_torch, "torch empty add_ launch", t_torch_ref
        )
    try:
        import cupy as cp
    except ImportError:
        cp = None
    if cp is not None:
        raw = cp.RawKernel(r'extern "C" __global__ void nop(float* a, float* b, int n) {}', "nop")
        ca = cp.zeros(1, dtype=cp.float32)
        cb = cp.zeros(1, dtype=cp.float32)
        raw((1,), (32,), (ca, cb, np.int32(0)))
        kernel(ca, cb, 0, grid=1, block=32)
        cp.cuda.runtime.deviceSynchronize()
        t_ref = timeit(lambda: raw((1,), (32,), (ca, cb, np.int32(0))), repeat, inner)
        t_ours = timeit(lambda: kernel(ca, cb, 0, grid=1, block=32), repeat, inner)
        cp.cuda.runtime.deviceSynchronize()
        row("GPU launch, CuPy arrays (host time)", t_ours, "cupy RawKernel launch", t_ref)
    drv = cuda_driver.api()
    fn = kernel.function
    table = kernel.binder.buffer.table_address

    def raw(f: object, stream: object):
        return lambda: drv.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, stream, table, 0)

    t_raw = timeit(raw(fn, None), repeat, inner)  # what CudaKernel passes: stream None for 0
    t_raw_int_stream = timeit(raw(fn, 0), repeat, inner)
    t_raw_int_function = timeit(raw(int(fn), None), repeat, inner)
    cuda_driver.current_device().synchronize()
    if t_torch is not None:
        row("  ... of which cuda-python cuLaunchKernel", t_raw, "layoutc launch (torch)", t_torch)
    else:
        row("cuda-python cuLaunchKernel (stream None)", t_raw, "the same", t_raw)
    row("  cuLaunchKernel, stream as the int 0", t_raw_int_stream, "stream None", t_raw)
    row("  cuLaunchKernel, function as an int", t_raw_int_function, "a CUfunction", t_raw)
    if torch is not None:
        compiled_gpu_launch(repeat, inner, torch, t_torch_ref)


def compiled_gpu_launch(repeat: int, inner: int, torch: object, t_ref: float) -> None:
    """The driver's kernel objects on the GPU: ``lc.compile(...)`` and the direct call."""
    import layoutc as lc
    from layoutc.driver.loading import load_source

    root = Path(__file__).resolve().parent.parent
    kern = vars(load_source(root / "examples" / "copy_1d.py"))["copy_1d"]
    src = torch.zeros(1024, device="cuda")  # one 1024-element tile: grid=1
    dst = torch.zeros(1024, device="cuda")
    ck = lc.compile(kern, src, dst, block=128)
    ck(src, dst, grid=1)
    kern(src, dst, grid=1, block=128)
    torch.cuda.synchronize()
    t_ck = timeit(lambda: ck(src, dst, grid=1), repeat, inner)
    torch.cuda.synchronize()
    t_direct = timeit(lambda: kern(src, dst, grid=1, block=128), repeat, inner)
    torch.cuda.synchronize()
    row("GPU launch, lc.compile(copy_1d)(torch)", t_ck, "torch empty add_ launch", t_ref)
    row("GPU launch, copy_1d(torch) direct call", t_direct, "torch empty add_ launch", t_ref)
    gemm_gpu_launch(repeat, torch)


def host_batches(torch: object, fn: object, repeat: int, per: int = 8) -> float:
    """Median host seconds per call of ``fn`` over batches of ``per`` calls, each batch on an
    idle GPU (what a direct call of a long kernel costs the host; the queue never fills)."""
    samples = []
    for _ in range(max(repeat, 25)):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(per):
            fn()
        samples.append((time.perf_counter() - start) / per)
    torch.cuda.synchronize()
    return statistics.median(samples)


def gemm_gpu_launch(repeat: int, torch: object) -> None:
    """The repeated launch of a TMA kernel: examples/gemm_sm90.py's ``tuned("bf16")`` at
    4096^3 through ``lc.compile``, its three descriptors found in the binder's memo, against
    torch.mm of the same operands (cuBLAS), host time per call; and the same over three
    input sets in turn (each set's descriptors remembered)."""
    import layoutc as lc
    from layoutc.codegen.target import Target
    from layoutc.driver.loading import load_source

    if Target.from_device().arch != "sm_90a":
        print("(not an sm_90 GPU: the TMA GEMM rows skipped)")
        return
    root = Path(__file__).resolve().parent.parent
    g = vars(load_source(root / "examples" / "gemm_sm90.py"))
    cfg = g["tuned"]("bf16")
    m = 4096
    sets = [
        tuple(torch.randn((m, m), device="cuda").bfloat16() for _ in range(3)) for _ in range(3)
    ]
    ck = lc.compile(g["make_gemm"](cfg), *sets[0], block=cfg.threads, index_bitwidth=32)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    grid, smem = cfg.grid(m, m, sms), cfg.smem_bytes()
    a, b, c = sets[0]
    ours = lambda: ck(a, b, c, grid=grid, block=cfg.threads, smem=smem)
    theirs = lambda: torch.mm(a, b.t(), out=c)
    turn = iter(range(1 << 62))

    def rotate():
        x, y, z = sets[next(turn) % 3]
        ck(x, y, z, grid=grid, block=cfg.threads, smem=smem)

    for fn in (ours, theirs, rotate, rotate, rotate):
        fn()
    t_ours = t_theirs = t_rot = float("inf")
    for _ in range(3):  # interleaved, best of each: machine noise hits both alike
        t_ours = min(t_ours, host_batches(torch, ours, repeat))
        t_theirs = min(t_theirs, host_batches(torch, theirs, repeat))
        t_rot = min(t_rot, host_batches(torch, rotate, repeat))
    ref = "torch.mm (cuBLAS), same operands"
    row("GPU launch, sm90 TMA GEMM 4096^3 bf16 (host time)", t_ours, ref, t_theirs)
    row("  ... 3 input sets in turn", t_rot, ref, t_theirs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    groups = {
        "compile": compile_steps,
        "packing": host_packing,
        "host": host_launch,
        "cpu": cpu_runtime,
        "gpu": gpu_launch,
    }
    parser.add_argument(
        "--only", action="append", choices=sorted(groups), help="run only these row groups"
    )
    args = parser.parse_args()
    repeat = 5 if args.quick else 15
    for name, rows in groups.items():
        if args.only is None or name in args.only:
            rows(repeat)
    width = max(len(r[0]) for r in ROWS)
    ref_width = max(len(r[2]) for r in ROWS)
    print(f"{'what':<{width}}  {'time':>12}  {'reference':<{ref_width}}  {'ref time':>12}  ratio")
    for what, t, ref_name, ref_t in ROWS:
        print(
            f"{what:<{width}}  {fmt(t):>12}  {ref_name:<{ref_width}}  {fmt(ref_t):>12}  {t / ref_t:7.2f}"
        )


if __name__ == "__main__":
    main()
