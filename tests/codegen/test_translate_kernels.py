"""Hand-written LLVM-level kernels, translated in both flavours: run on the CPU runtime and
compared with numpy; compiled to PTX and cubin for sm_80 and sm_90 with the expected PTX."""

from __future__ import annotations

import numpy as np
import pytest
from layoutc.codegen.ptx import libnvvm_available
from layoutc.ir.core import parse
from layoutc.passes.conversion.scf_to_cf import lower_scf_to_cf
from test_translate_support import ARCHS, RUNNERS, gpu_binary, needs_nvjitlink, ptx_lines


@pytest.fixture(params=RUNNERS)
def make(request):
    """Builds a kernel from LLVM-level text for the CPU runtime, or for the GPU when present."""
    return request.param


VECTOR_COPY = """
func.func @vcopy(%src: !llvm.ptr<1>, %dst: !llvm.ptr<1>, %n: i32)
    attributes {gpu.kernel, gpu.known_block_size = array<i32: 128, 1, 1>} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %bid = nvvm.read.ptx.sreg.ctaid.x : i32
  %ntid = nvvm.read.ptx.sreg.ntid.x : i32
  %t0 = arith.muli %bid, %ntid : i32
  %i = arith.addi %t0, %tid : i32
  %c4 = arith.constant 4 : i32
  %e = arith.muli %i, %c4 : i32
  %in = arith.cmpi slt, %e, %n : i32
  cf.cond_br %in, ^body, ^done
^body:
  %ps = llvm.getelementptr inbounds %src[%e] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  %v = llvm.load %ps {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
  %pd = llvm.getelementptr inbounds %dst[%e] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v, %pd {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
  cf.br ^done
^done:
  return
}
"""

BLOCK_REVERSE = """
llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x f32>
func.func @reverse(%x: !llvm.ptr<1>, %y: !llvm.ptr<1>)
    attributes {gpu.kernel, gpu.known_block_size = array<i32: 256, 1, 1>} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %bid = nvvm.read.ptx.sreg.ctaid.x : i32
  %c256 = arith.constant 256 : i32
  %base = arith.muli %bid, %c256 : i32
  %g = arith.addi %base, %tid : i32
  %px = llvm.getelementptr %x[%g] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  %v = llvm.load %px {alignment = 4 : i64} : !llvm.ptr<1> -> f32
  %s = llvm.mlir.addressof @tile : !llvm.ptr<3>
  %ps = llvm.getelementptr inbounds %s[0, %tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<256 x f32>
  llvm.store %v, %ps {alignment = 4 : i64} : f32, !llvm.ptr<3>
  nvvm.barrier0
  %c255 = arith.constant 255 : i32
  %r = arith.subi %c255, %tid : i32
  %pr = llvm.getelementptr inbounds %s[0, %r] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<256 x f32>
  %w = llvm.load %pr {alignment = 4 : i64} : !llvm.ptr<3> -> f32
  %py = llvm.getelementptr %y[%g] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %w, %py {alignment = 4 : i64} : f32, !llvm.ptr<1>
  return
}
"""

WARP_SUM = """
func.func @warp_sum(%x: !llvm.ptr<1>, %y: !llvm.ptr<1>) attributes {gpu.kernel} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %bid = nvvm.read.ptx.sreg.ctaid.x : i32
  %ntid = nvvm.read.ptx.sreg.ntid.x : i32
  %lane = nvvm.read.ptx.sreg.laneid : i32
  %t0 = arith.muli %bid, %ntid : i32
  %g = arith.addi %t0, %tid : i32
  %px = llvm.getelementptr %x[%g] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  %v0 = llvm.load %px : !llvm.ptr<1> -> f32
  %all = arith.constant -1 : i32
  %clamp = arith.constant 31 : i32
  %c16 = arith.constant 16 : i32
  %c8 = arith.constant 8 : i32
  %c4 = arith.constant 4 : i32
  %c2 = arith.constant 2 : i32
  %c1 = arith.constant 1 : i32
  %s16 = nvvm.shfl.sync bfly %all, %v0, %c16, %clamp : f32 -> f32
  %v1 = arith.addf %v0, %s16 : f32
  %s8 = nvvm.shfl.sync bfly %all, %v1, %c8, %clamp : f32 -> f32
  %v2 = arith.addf %v1, %s8 : f32
  %s4 = nvvm.shfl.sync bfly %all, %v2, %c4, %clamp : f32 -> f32
  %v3 = arith.addf %v2, %s4 : f32
  %s2 = nvvm.shfl.sync bfly %all, %v3, %c2, %clamp : f32 -> f32
  %v4 = arith.addf %v3, %s2 : f32
  %s1 = nvvm.shfl.sync bfly %all, %v4, %c1, %clamp : f32 -> f32
  %v5 = arith.addf %v4, %s1 : f32
  %c0 = arith.constant 0 : i32
  %first = arith.cmpi eq, %lane, %c0 : i32
  cf.cond_br %first, ^write, ^done
^write:
  %c5 = arith.constant 5 : i32
  %w = arith.shrui %g, %c5 : i32
  %py = llvm.getelementptr %y[%w] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v5, %py : f32, !llvm.ptr<1>
  cf.br ^done
^done:
  return
}
"""

# A loop with iter_args, written with scf and lowered by convert-scf-to-cf: each thread sums
# the positive entries of its row.
ROW_SUM_SCF = """
func.func @row_sum(%x: !llvm.ptr<1>, %out: !llvm.ptr<1>, %n: index) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %row = arith.index_castui %tid : i32 to index
  %start = arith.muli %row, %n : index
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f32) {
    %k = arith.addi %start, %i : index
    %k64 = arith.index_cast %k : index to i64
    %p = llvm.getelementptr %x[%k64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    %v = llvm.load %p : !llvm.ptr<1> -> f32
    %pos = arith.cmpf ogt, %v, %z : f32
    %a = scf.if %pos -> (f32) {
      %t = arith.addf %acc, %v : f32
      scf.yield %t : f32
    } else {
      scf.yield %acc : f32
    }
    scf.yield %a : f32
  }
  %r64 = arith.index_cast %row : index to i64
  %po = llvm.getelementptr %out[%r64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  llvm.store %s, %po : f32, !llvm.ptr<1>
  return
}
"""


def _lowered(text: str) -> str:
    m = parse(text)
    lower_scf_to_cf(m)
    return m.to_text()


ROW_SUM = _lowered(ROW_SUM_SCF)
KERNELS = {
    "vcopy": VECTOR_COPY,
    "reverse": BLOCK_REVERSE,
    "warp_sum": WARP_SUM,
    "row_sum": ROW_SUM,
}


def test_vector_copy(make):
    k = make(
        VECTOR_COPY,
        "vcopy",
        [("src", "pointer", "f32"), ("dst", "pointer", "f32"), ("n", "scalar", "i32")],
    )
    x = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    y = np.zeros_like(x)
    k(x, y, 1000, grid=2, block=128)
    assert np.array_equal(x, y)


def test_block_reverse(make):
    k = make(BLOCK_REVERSE, "reverse", [("x", "pointer", "f32"), ("y", "pointer", "f32")])
    assert k.spec.static_smem == 1024
    x = np.random.default_rng(1).standard_normal(1024).astype(np.float32)
    y = np.zeros_like(x)
    k(x, y, grid=4, block=256)
    assert np.array_equal(y, x.reshape(4, 256)[:, ::-1].reshape(-1))


def test_warp_shuffle_reduction(make):
    k = make(WARP_SUM, "warp_sum", [("x", "pointer", "f32"), ("y", "pointer", "f32")])
    x = np.random.default_rng(2).standard_normal(1024).astype(np.float32)
    y = np.zeros(32, np.float32)
    k(x, y, grid=4, block=256)
    np.testing.assert_allclose(y, x.reshape(32, 32).sum(axis=1), rtol=1e-5, atol=1e-5)


def test_loop_with_iter_args(make):
    k = make(
        ROW_SUM,
        "row_sum",
        [("x", "pointer", "f32"), ("out", "pointer", "f32"), ("n", "scalar", "i64")],
    )
    x = np.random.default_rng(3).standard_normal((64, 37)).astype(np.float32)
    out = np.zeros(64, np.float32)
    k(x.reshape(-1), out, 37, grid=1, block=64)
    np.testing.assert_allclose(out, np.where(x > 0, x, 0).sum(axis=1), rtol=1e-5, atol=1e-5)


_EXPECTED_PTX = {
    "vcopy": ["ld.global.v4", "st.global.v4", ".maxntid 128, 1, 1"],
    "reverse": [".shared .align 16 .b8 tile[1024]", "bar.sync", "ld.shared", "st.shared"],
    "warp_sum": ["shfl.sync.bfly.b32"],
    "row_sum": ["ld.global", "st.global"],
}


@needs_nvjitlink
@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_kernels_compile_to_ptx_and_cubin(name, arch):
    binary = gpu_binary(KERNELS[name], arch)
    assert binary.cubin is not None and len(binary.cubin) > 0
    assert f".target {arch}" in binary.ptx
    assert f".entry {name}(" in binary.ptx
    for needle in _EXPECTED_PTX[name]:
        assert ptx_lines(binary, needle), f"no '{needle}' in the PTX of {name} for {arch}"


@pytest.mark.skipif(not libnvvm_available(), reason="libNVVM not installed")
@needs_nvjitlink
def test_128_bit_accesses_are_v4_f32_with_libnvvm():
    binary = gpu_binary(VECTOR_COPY, "sm_80", "libnvvm")
    assert ptx_lines(binary, "ld.global.v4.f32") and ptx_lines(binary, "st.global.v4.f32")


@needs_nvjitlink
@pytest.mark.parametrize("arch", ARCHS)
def test_llvm_back_end_gives_128_bit_accesses(arch):
    # LLVM 22's NVPTX spells the same 128-bit access with untyped registers (.b32).
    binary = gpu_binary(VECTOR_COPY, arch, "llvm")
    assert ptx_lines(binary, "ld.global.v4.") and ptx_lines(binary, "st.global.v4.")
    assert binary.cubin


# A device function using the thread context, with two results, called from a kernel; and a
# conditional branch whose two edges reach one block with different values.
DEVICE_CALLS = """
func.func private @coords(%scale: i32) -> (i32, i32) {
  %t = nvvm.read.ptx.sreg.tid.x : i32
  %b = nvvm.read.ptx.sreg.ctaid.x : i32
  %s = arith.muli %t, %scale : i32
  return %s, %b : i32, i32
}
func.func @calls(%out: !llvm.ptr<1>) attributes {gpu.kernel} {
  %c3 = arith.constant 3 : i32
  %s, %b = func.call @coords(%c3) : (i32) -> (i32, i32)
  %t = nvvm.read.ptx.sreg.tid.x : i32
  %n = nvvm.read.ptx.sreg.ntid.x : i32
  %base = arith.muli %b, %n : i32
  %i = arith.addi %base, %t : i32
  %one = arith.constant 1 : i32
  %odd = arith.andi %t, %one : i32
  %c = arith.cmpi ne, %odd, %one : i32
  %neg = arith.subi %one, %s : i32
  cf.cond_br %c, ^join(%s : i32), ^join(%neg : i32)
^join(%v: i32):
  %p = llvm.getelementptr %out[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  llvm.store %v, %p : i32, !llvm.ptr<1>
  return
}
"""


def test_device_calls_thread_the_context(make):
    k = make(DEVICE_CALLS, "calls", [("out", "pointer", "i32")])
    out = np.zeros(64, np.int32)
    k(out, grid=2, block=32)
    t = np.arange(64) % 32
    assert list(out) == list(np.where(t % 2 == 0, 3 * t, 1 - 3 * t))


@needs_nvjitlink
def test_device_calls_compile():
    assert gpu_binary(DEVICE_CALLS, "sm_80").cubin
