"""A single-warpgroup wgmma GEMM tile on the CPU runtime against numpy: the runtime reads A
and B through the descriptors, with the hardware's address function and swizzle, and writes
the accumulators in CuTe's CLayout_64xN; a descriptor, swizzle or fragment bug changes C."""

from __future__ import annotations

import re

import layoutc as lc
import numpy as np
import pytest
from layoutc.ir.algebra import Layout
from wgmma_kernels import make_tile_gemm

CASES = [
    (8, "K", "K", "SW32", "f16", "f32"),
    (16, "K", "K", "SW128", "f16", "f32"),
    (24, "K", "K", "INTER", "f16", "f16"),
    (32, "MN", "K", "SW64", "f16", "f32"),
    (64, "MN", "MN", "SW128", "f16", "f32"),
    (16, "K", "K", "SW128", "tf32", "f32"),
    (40, "K", "K", "SW64", "tf32", "f32"),
]


@pytest.mark.parametrize("n,ma,mb,sw,dt,acc", CASES)
def test_wgmma_tile_matches_numpy(n, ma, mb, sw, dt, acc):
    dtype, acc_t = getattr(lc, dt), getattr(lc, acc)
    kernel, bk = make_tile_gemm(n, ma, mb, sw, dtype, acc_t)
    rng = np.random.default_rng(n)
    np_t = np.float16 if dt == "f16" else np.float32
    a = rng.standard_normal((64, bk)).astype(np_t)
    b = rng.standard_normal((n, bk)).astype(np_t)
    c = np.full((64, n), np.nan, np.float32 if acc == "f32" else np.float16)
    kernel(a, b, c, grid=1, block=128)
    if dt == "tf32":  # the tensor cores read the 19 tf32 bits
        a = (a.view(np.uint32) & 0xFFFFE000).view(np.float32)
        b = (b.view(np.uint32) & 0xFFFFE000).view(np.float32)
    ref = a.astype(np.float64) @ b.astype(np.float64).T
    tol = 2e-5 if acc == "f32" else 3e-2
    np.testing.assert_allclose(c.astype(np.float64), ref, rtol=tol, atol=tol * 8)


@pytest.mark.parametrize(
    "n,ma,mb,sw,dt",
    [
        (32, "K", "K", "SW128", "f16"),
        (64, "MN", "MN", "SW64", "f16"),
        (16, "K", "K", "SW128", "tf32"),
    ],
)
def test_wgmma_one_k_step_at_a_time_matches_numpy(n, ma, mb, sw, dt):
    """``lc.gemm`` on one K-step, ``(V,M)x(V,N)``: the lowering appends K = 1 (CuTe's form),
    each step's descriptors start at that K-step's tile of the swizzled stage."""
    dtype = getattr(lc, dt)
    kernel, bk = make_tile_gemm(n, ma, mb, sw, dtype, k_steps=True)
    rng = np.random.default_rng(n + 1)
    np_t = np.float16 if dt == "f16" else np.float32
    a = rng.standard_normal((64, bk)).astype(np_t)
    b = rng.standard_normal((n, bk)).astype(np_t)
    c = np.full((64, n), np.nan, np.float32)
    kernel(a, b, c, grid=1, block=128)
    if dt == "tf32":
        a = (a.view(np.uint32) & 0xFFFFE000).view(np.float32)
        b = (b.view(np.uint32) & 0xFFFFE000).view(np.float32)
    ref = a.astype(np.float64) @ b.astype(np.float64).T
    np.testing.assert_allclose(c.astype(np.float64), ref, rtol=2e-5, atol=2e-4)


def test_non_canonical_smem_layout_is_an_error_at_the_gemm():
    # a row-major (64, 64) f16 tile: K-major, but its rows are 128 bytes apart without a
    # swizzle, which no GMMA layout type describes
    plain = (Layout((64, 64), (64, 1)), Layout((16, 64), (64, 1)))
    kernel, bk = make_tile_gemm(16, smem=plain)
    a = np.zeros((64, bk), np.float16)
    b = np.zeros((16, bk), np.float16)
    c = np.zeros((64, 16), np.float32)
    with pytest.raises(lc.CompileError) as e:
        kernel(a, b, c, grid=1, block=128)
    text = str(e.value)
    assert re.search(r"wgmma_kernels\.py:\d+:\d+: error: .*not a canonical GMMA layout", text)
    assert "rows of a core matrix must be 16 bytes apart, got 128" in text


@pytest.mark.parametrize("n", [64, 256])
def test_wgmma_assembles_for_sm90a_with_accumulators_in_registers(n):
    pytest.importorskip("cuda.bindings.nvjitlink")
    from layoutc.codegen.cubin import ptx_to_cubin

    kernel, bk = make_tile_gemm(n)
    a = np.zeros((64, bk), np.float16)
    b = np.zeros((n, bk), np.float16)
    c = np.zeros((64, n), np.float32)
    ck = lc.compile(kernel, a, b, c, block=128, target="sm_90a")
    assert ".target sm_90a" in ck.ptx
    assert f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.f16.f16" in ck.ptx
    assert "wgmma.fence.sync.aligned" in ck.ptx and "wgmma.wait_group.sync.aligned 0" in ck.ptx
    log = ptx_to_cubin(ck.ptx, "sm_90a", verbose=True).log
    assert re.search(r"\b0 bytes lmem\b", log), log
    assert re.search(r"0 bytes spill stores, 0 bytes spill loads", log), log


@pytest.mark.parametrize(
    ("arch", "message"),
    [
        ("sm_90", r"atom 'SM90_64x16x16_F32F16F16_SS' needs target sm_90a"),
        ("sm_80", r"atom 'SM90_64x16x16_F32F16F16_SS' needs target sm_90a"),
    ],
)
def test_wgmma_needs_sm90a(arch, message):
    kernel, bk = make_tile_gemm(16)
    a = np.zeros((64, bk), np.float16)
    b = np.zeros((16, bk), np.float16)
    c = np.zeros((64, 16), np.float32)
    with pytest.raises(lc.CompileError, match=message) as e:
        lc.compile(kernel, a, b, c, block=128, target=arch)
    assert re.search(r"wgmma_kernels\.py:\d+:\d+: error:", str(e.value))


GPU_CASES = [
    *CASES,
    (64, "K", "MN", "SW128", "bf16", "f32"),
    (256, "K", "K", "SW128", "bf16", "f32"),
]


@pytest.mark.gpu
@pytest.mark.parametrize("n,ma,mb,sw,dt,acc", GPU_CASES)
def test_wgmma_tile_on_the_gpu_matches_torch(n, ma, mb, sw, dt, acc):
    torch = pytest.importorskip("torch")
    dtype, acc_t = getattr(lc, dt), getattr(lc, acc)
    kernel, bk = make_tile_gemm(n, ma, mb, sw, dtype, acc_t)
    g = torch.Generator(device="cuda").manual_seed(n)
    t = {"f16": torch.float16, "bf16": torch.bfloat16, "tf32": torch.float32}[dt]
    a = torch.randn((64, bk), generator=g, device="cuda").to(t)
    b = torch.randn((n, bk), generator=g, device="cuda").to(t)
    c = torch.full(
        (64, n),
        float("nan"),
        device="cuda",
        dtype=getattr(torch, {"f32": "float32", "f16": "float16"}[acc]),
    )
    kernel(a, b, c, grid=1, block=128)
    torch.cuda.synchronize()
    a64, b64 = a.double(), b.double()
    if dt == "tf32":
        a64 = (a.view(torch.int32) & -8192).view(torch.float32).double()
        b64 = (b.view(torch.int32) & -8192).view(torch.float32).double()
    ref = a64 @ b64.T
    tol = 2e-5 if acc == "f32" else 3e-2
    assert torch.allclose(c.double(), ref, rtol=tol, atol=tol * 8), (c.double() - ref).abs().max()
