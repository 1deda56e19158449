"""The hardware's TMA against the model the CPU runtime is tested with (test_tma_cpu.py).

An LLVM-level kernel (the frontend's descriptor parameter is not wired yet) loads one box with
``cp.async.bulk.tensor`` through a descriptor from runtime/tma.py, waits on the mbarrier and
copies shared memory out raw. On a GPU the bytes must equal ``hardware_swizzle(hardware_box)``,
the numpy model the CPU runtime's TMA is checked against; here, the kernel must assemble.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from layoutc.codegen.cubin import nvjitlink_version
from layoutc.codegen.target import Target
from layoutc.codegen.toolchain import ToolchainOptions, compile_gpu
from layoutc.codegen.translate import translate_nvvm
from layoutc.ir.core import parse
from test_tma_cpu import hardware_box, hardware_swizzle

needs_nvjitlink = pytest.mark.skipif(nvjitlink_version() is None, reason="nvJitLink not installed")


def box_kernel(n: int) -> str:
    """``tma_box(desc, out, c0, c1)``: 32 threads, a box of ``n`` f32 into 1024-aligned smem."""
    per = n // 32
    copies = []
    for j in range(per):
        copies.append(
            f"""
    %i{j} = arith.addi %base, %k{j} : i32
    %sp{j} = llvm.getelementptr inbounds %s[%i{j}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
    %v{j} = llvm.load %sp{j} {{alignment = 4 : i64}} : !llvm.ptr<3> -> f32
    %op{j} = llvm.getelementptr inbounds %out[%i{j}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %v{j}, %op{j} {{alignment = 4 : i64}} : f32, !llvm.ptr<1>"""
        )
    consts = "\n".join(f"    %k{j} = arith.constant {j} : i32" for j in range(per))
    return f"""
module {{
  llvm.mlir.global internal @buf() {{addr_space = 3 : i32, alignment = 1024 : i64}} : !llvm.array<{n} x f32>
  llvm.mlir.global internal @bar() {{addr_space = 3 : i32, alignment = 8 : i64}} : i64
  func.func @tma_box(%desc: !llvm.ptr<1>, %out: !llvm.ptr<1>, %c0: i32, %c1: i32) attributes {{gpu.kernel}} {{
    %s = llvm.mlir.addressof @buf : !llvm.ptr<3>
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %d = llvm.addrspacecast %desc : !llvm.ptr<1> to !llvm.ptr
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %per = arith.constant {per} : i32
    %tx = arith.constant {4 * n} : i32
    %ticks = arith.constant 10000000 : i32
{consts}
    %base = arith.muli %tid, %per : i32
    %is0 = arith.cmpi eq, %tid, %zero : i32
    cf.cond_br %is0, ^issue, ^wait
  ^issue:
    nvvm.mbarrier.init %b, %one : !llvm.ptr<3>, i32
    nvvm.fence.mbarrier.init
    nvvm.mbarrier.arrive.expect_tx %b, %tx : !llvm.ptr<3>, i32
    %s7 = llvm.addrspacecast %s : !llvm.ptr<3> to !llvm.ptr<7>
    nvvm.cp.async.bulk.tensor.shared.cluster.global %s7, %d, %b, box[%c0, %c1] : !llvm.ptr<7>, !llvm.ptr
    cf.br ^wait
  ^wait:
    nvvm.barrier0
    nvvm.mbarrier.try_wait.parity %b, %zero, %ticks : !llvm.ptr<3>, i32, i32
{"".join(copies)}
    return
  }}
}}
"""


CASES = [(8, 32, 128), (16, 16, 64), (8, 8, 32), (4, 32, 0)]


def _cubin(n: int, backend: str = "llvm") -> bytes:
    target = Target.parse("sm_90a")
    tr = translate_nvvm(parse(box_kernel(n)), target)
    return compile_gpu(tr.module, target, ToolchainOptions(ptx_backend=backend)).cubin


@needs_nvjitlink
@pytest.mark.parametrize("n", sorted({bm * bk for bm, bk, _ in CASES}))
def test_the_box_kernel_assembles(n):
    assert _cubin(n)[:4] == b"\x7fELF"


@pytest.mark.gpu
@pytest.mark.parametrize(("bm", "bk", "span"), CASES)
def test_hardware_tma_matches_the_model(bm, bk, span):
    import torch
    from cuda.bindings import driver as drv
    from layoutc.runtime import tma

    M, K = 2 * bm + 3, 2 * bk + 5
    pitch = -(-K // 4) * 4
    a = torch.zeros((M, pitch), dtype=torch.float32, device="cuda")
    a[:, :K] = torch.randn((M, K), device="cuda")
    box = tma.TmaBox("f32", (bk, bm), span)
    n = bm * bk
    module = drv.cuModuleLoadData(_cubin(n))[1]
    fn = drv.cuModuleGetFunction(module, b"tma_box")[1]
    host = a.cpu().numpy()[:, :K]
    for m0, k0 in [(0, 0), (bm, bk), (2 * bm, 2 * bk)]:  # the last box is partly outside
        data = tma.DESCRIPTORS.get("a", box, a.data_ptr(), (K, M), (4, pitch * 4))
        desc = torch.frombuffer(bytearray(data), dtype=torch.uint8).cuda()
        out = torch.full((n,), float("nan"), device="cuda")
        args = (
            (desc.data_ptr(), out.data_ptr(), k0, m0),
            (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32),
        )
        err = drv.cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, 0, args, 0)[0]
        assert int(err) == 0
        torch.cuda.synchronize()
        want = hardware_swizzle(hardware_box(host, m0, k0, bm, bk).reshape(-1), span)
        np.testing.assert_array_equal(out.cpu().numpy(), want)
