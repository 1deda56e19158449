"""The register-A warpgroup MMA (CuTe's ``_RS`` atoms): the A fragment layouts against a model
written from the PTX ISA's figures, single-warpgroup tiles on the CPU runtime against numpy
(A loaded into registers by a plain copy and by ldmatrix), and the sm_90a code."""

from __future__ import annotations

import re

import layoutc as lc
import numpy as np
import pytest
from layoutc.ir.dialects.tile.atoms import mma_operation
from narrow_floats import bf16
from wgmma_rs_kernels import make_rs_tile_gemm


def ptx_a_fragment(thread: int, i: int, bits: int) -> tuple[int, int]:
    """(row, col) of element ``a_i`` of thread ``thread`` in the warpgroup's 64 x K A, from the
    PTX ISA ("Register Fragments" of wgmma.mma_async, the m64nNk8/k16/k32 figures for A): warp
    w = thread / 32 holds rows 16w..16w+15 laid out as the warp-level mma's A fragment of its
    type (groupID = lane >> 2, threadID_in_group = lane % 4)."""
    warp, lane = divmod(thread, 32)
    group, tig = lane >> 2, lane % 4
    if bits == 32:  # .tf32, k8: a0..a3
        row = group + 8 * (i % 2)
        col = tig + 4 * (i // 2)
    elif bits == 16:  # .f16/.bf16, k16: a0..a7
        row = group + 8 * ((i // 2) % 2)
        col = 2 * tig + (i & 1) + 8 * (i // 4)
    else:  # .e4m3/.e5m2, k32: a0..a15
        row = group + 8 * ((i // 4) % 2)
        col = 4 * tig + (i & 3) + 16 * (i // 8)
    return 16 * warp + row, col


@pytest.mark.parametrize(
    ("name", "bits"),
    [
        ("SM90_64x8x16_F32F16F16_RS", 16),
        ("SM90_64x256x16_F32BF16BF16_RS", 16),
        ("SM90_64x64x16_F16F16F16_RS", 16),
        ("SM90_64x32x8_F32TF32TF32F32_RS_TN", 32),
    ],
)
def test_a_fragment_is_the_ptx_isa_layout(name, bits):
    atom = mma_operation(name)
    k = atom.shape_mnk[2]
    values = 4 * 32 // bits
    assert atom.frag_a.count == 4 and atom.frag_a.count * atom.frag_a.per_register == values
    seen = set()
    for t in range(128):
        for i in range(values):
            index = atom.layout_a(t, i)
            row, col = ptx_a_fragment(t, i, bits)
            assert (index % 64, index // 64) == (row, col), (t, i)
            seen.add((row, col))
    assert len(seen) == 64 * k  # every element of A held exactly once


CASES = [
    (16, "K", "SW128", "f16", "f32", "ldmatrix"),
    (32, "MN", "SW64", "f16", "f32", "copy"),
    (24, "K", "INTER", "f16", "f16", "copy"),
    (16, "K", "SW32", "bf16", "f32", "ldmatrix"),
    (64, "MN", "SW128", "bf16", "f32", "copy"),
    (16, "K", "SW128", "tf32", "f32", "copy"),
    (8, "K", "SW32", "tf32", "f32", "copy"),
]


def _operand(rng, rows: int, cols: int, dt: str):
    values = rng.standard_normal((rows, cols))
    if dt == "bf16":
        return bf16(values)
    if dt == "f16":
        data = values.astype(np.float16)
        return data, data.astype(np.float64)
    data = values.astype(np.float32)  # the tensor core reads the 19 tf32 bits
    return data, (data.view(np.uint32) & 0xFFFFE000).view(np.float32).astype(np.float64)


@pytest.mark.parametrize("n,mb,sw,dt,acc,load", CASES)
def test_rs_tile_matches_numpy(n, mb, sw, dt, acc, load):
    kernel, bk = make_rs_tile_gemm(n, mb, sw, getattr(lc, dt), getattr(lc, acc), load)
    rng = np.random.default_rng(n + bk)
    a, a64 = _operand(rng, 64, bk, dt)
    b, b64 = _operand(rng, n, bk, dt)
    c = np.full((64, n), np.nan, np.float32 if acc == "f32" else np.float16)
    kernel(a, b, c, grid=1, block=128)
    tol = 2e-5 if acc == "f32" else 3e-2
    np.testing.assert_allclose(c.astype(np.float64), a64 @ b64.T, rtol=tol, atol=tol * 8)


@pytest.mark.parametrize(
    ("n", "dt", "acc", "instruction"),
    [
        (256, "f16", "f32", "m64n256k16.f32.f16.f16"),
        (64, "bf16", "f32", "m64n64k16.f32.bf16.bf16"),
        (128, "tf32", "f32", "m64n128k8.f32.tf32.tf32"),
        (64, "f16", "f16", "m64n64k16.f16.f16.f16"),
    ],
)
def test_rs_assembles_for_sm90a_with_a_in_registers(n, dt, acc, instruction):
    pytest.importorskip("cuda.bindings.nvjitlink")
    from layoutc.codegen.cubin import ptx_to_cubin

    kernel, bk = make_rs_tile_gemm(n, "K", "SW128", getattr(lc, dt), getattr(lc, acc), "copy")
    np_t = np.float32 if dt == "tf32" else np.float16
    a, b = np.zeros((64, bk), np_t), np.zeros((n, bk), np_t)
    if dt == "bf16":
        a, b = bf16(a)[0], bf16(b)[0]
    c = np.zeros((64, n), np.float32 if acc == "f32" else np.float16)
    ck = lc.compile(kernel, a, b, c, block=128, target="sm_90a")
    # d, then A as four 32-bit registers, B's descriptor, scale-d, imm-scale-a/b (imm-trans-b)
    regs = r"\{%r\d+, %r\d+, %r\d+, %r\d+\}"
    trans = ", 0" if dt != "tf32" else ""
    pattern = rf"wgmma\.mma_async\.sync\.aligned\.{re.escape(instruction)}\s+\{{[^}}]*\}}, {regs}, %rd\d+, p, 1, 1{trans};"
    assert len(re.findall(pattern, ck.ptx)) == bk // (8 if dt == "tf32" else 16), ck.ptx[-3000:]
    log = ptx_to_cubin(ck.ptx, "sm_90a", verbose=True).log
    assert re.search(r"\b0 bytes lmem\b", log), log
    assert re.search(r"0 bytes spill stores, 0 bytes spill loads", log), log


def test_rs_needs_sm90a():
    kernel, bk = make_rs_tile_gemm(16)
    a, b = np.zeros((64, bk), np.float16), np.zeros((16, bk), np.float16)
    c = np.zeros((64, 16), np.float32)
    with pytest.raises(lc.CompileError, match="'SM90_64x16x16_F32F16F16_RS' needs target sm_90a"):
        lc.compile(kernel, a, b, c, block=128, target="sm_90")


@pytest.mark.gpu
@pytest.mark.parametrize("n,mb,sw,dt,acc,load", CASES)
def test_rs_tile_on_the_gpu_matches_torch(n, mb, sw, dt, acc, load):
    torch = pytest.importorskip("torch")
    kernel, bk = make_rs_tile_gemm(n, mb, sw, getattr(lc, dt), getattr(lc, acc), load)
    g = torch.Generator(device="cuda").manual_seed(n)
    t = {"f16": torch.float16, "bf16": torch.bfloat16, "tf32": torch.float32}[dt]
    a = torch.randn((64, bk), generator=g, device="cuda").to(t)
    b = torch.randn((n, bk), generator=g, device="cuda").to(t)
    c_t = torch.float32 if acc == "f32" else torch.float16
    c = torch.full((64, n), float("nan"), device="cuda", dtype=c_t)
    kernel(a, b, c, grid=1, block=128)
    torch.cuda.synchronize()
    a64, b64 = a.double(), b.double()
    if dt == "tf32":
        a64 = (a.view(torch.int32) & -8192).view(torch.float32).double()
        b64 = (b.view(torch.int32) & -8192).view(torch.float32).double()
    tol = 2e-5 if acc == "f32" else 3e-2
    ref = a64 @ b64.T
    assert torch.allclose(c.double(), ref, rtol=tol, atol=tol * 8), (c.double() - ref).abs().max()
