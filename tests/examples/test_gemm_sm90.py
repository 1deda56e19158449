"""examples/gemm_sm90.py: the wgmma GEMM on the CPU runtime against numpy (random normal f16
inputs, several configurations), and its sm_90a cubin (accumulators in registers)."""

from __future__ import annotations

import re

import layoutc as lc
import numpy as np
import pytest
from example_files import EXAMPLES_DIR
from layoutc.driver.loading import load_source

GEMM = vars(load_source(EXAMPLES_DIR / "gemm_sm90.py"))


@pytest.mark.parametrize(
    "cfg",
    [
        GEMM["GemmConfig"](bm=64, bn=64, stages=2, warpgroups=1, mma_in_flight=0),
        GEMM["GemmConfig"](bm=128, bn=64, stages=3, warpgroups=2),
        GEMM["GemmConfig"](bm=128, bn=192, stages=4, warpgroups=1),
        GEMM["GemmConfig"]("tf32", bm=64, bn=128, bk=32, stages=3, warpgroups=1),
        GEMM["GemmConfig"](bm=64, bn=64, stages=2, warpgroups=1, mma_in_flight=0, loads="tma"),
        GEMM["GemmConfig"](bm=128, bn=128, stages=3, warpgroups=2, mma_in_flight=0, loads="tma"),
    ],
    ids=lambda c: c.name,
)
def test_gemm_sm90_matches_numpy_on_the_cpu(cfg):
    kernel = GEMM["make_gemm"](cfg)
    rng = np.random.default_rng(1)
    m, n, k = 2 * cfg.bm, cfg.bn, 5 * cfg.bk
    np_type = np.float32 if cfg.dtype == "tf32" else np.float16
    a = rng.standard_normal((m, k)).astype(np_type)
    b = rng.standard_normal((n, k)).astype(np_type)
    c = np.full((m, n), np.nan, np.float32)
    kernel(a, b, c, grid=cfg.grid(m, n), block=cfg.threads, smem=cfg.smem_bytes())
    if cfg.dtype == "tf32":  # the tensor cores read the 19 tf32 bits
        a = (a.view(np.uint32) & 0xFFFFE000).view(np.float32)
        b = (b.view(np.uint32) & 0xFFFFE000).view(np.float32)
    ref = a.astype(np.float64) @ b.astype(np.float64).T
    np.testing.assert_allclose(c, ref, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize(
    "cfg",
    [GEMM["CONFIG"], GEMM["GemmConfig"]("tf32", bn=256, bk=32, stages=4)],
    ids=lambda c: c.name,
)
def test_gemm_sm90_assembles_for_sm90a_without_local_memory(cfg):
    pytest.importorskip("cuda.bindings.nvjitlink")
    from layoutc.codegen.cubin import ptx_to_cubin

    np_type = np.float32 if cfg.dtype == "tf32" else np.float16
    a = np.zeros((cfg.bm, cfg.bk), np_type)
    b = np.zeros((cfg.bn, cfg.bk), np_type)
    c = np.zeros((cfg.bm, cfg.bn), np.float32)
    ck = lc.compile(GEMM["make_gemm"](cfg), a, b, c, block=cfg.threads, target="sm_90a")
    k = 8 if cfg.dtype == "tf32" else 16
    ab = "tf32.tf32" if cfg.dtype == "tf32" else "f16.f16"
    instruction = f"wgmma.mma_async.sync.aligned.m64n{cfg.bn}k{k}.f32.{ab}"
    assert ck.ptx.count(instruction) == cfg.bk // k
    log = ptx_to_cubin(ck.ptx, "sm_90a", verbose=True).log
    assert re.search(r"\b0 bytes lmem\b", log), log


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_gemm_sm90_on_the_gpu_matches_torch(dtype):
    torch = pytest.importorskip("torch")
    cfg = GEMM["GemmConfig"](dtype)
    kernel = GEMM["make_gemm"](cfg)
    t = {"f16": torch.float16, "bf16": torch.bfloat16}[dtype]
    g = torch.Generator(device="cuda").manual_seed(0)
    m, n, k = 1024, 512, 768
    a = torch.randn((m, k), generator=g, device="cuda").to(t)
    b = torch.randn((n, k), generator=g, device="cuda").to(t)
    c = torch.full((m, n), float("nan"), device="cuda")
    kernel(a, b, c, grid=cfg.grid(m, n), block=cfg.threads)
    torch.cuda.synchronize()
    ref = a.double() @ b.double().T
    err = ((c.double() - ref).norm() / ref.norm()).item()
    assert err < 1e-5, err
