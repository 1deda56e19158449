"""Atomics and fences in both flavours: a histogram with atomicrmw add and a float sum with
atomicrmw fadd on the CPU runtime; in the NVVM flavour integer atomics and fences compile with
libNVVM (fences become NVVM membar at the requested scope) and float atomics with LLVM."""

from __future__ import annotations

import numpy as np
import pytest
from test_translate_support import ARCHS, RUNNERS, gpu_binary, needs_nvjitlink, ptx_lines


@pytest.fixture(params=RUNNERS)
def make(request):
    """Builds a kernel from LLVM-level text for the CPU runtime, or for the GPU when present."""
    return request.param


HISTOGRAM = """
func.func @histogram(%x: !llvm.ptr<1>, %bins: !llvm.ptr<1>, %total: !llvm.ptr<1>) attributes {gpu.kernel} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %bid = nvvm.read.ptx.sreg.ctaid.x : i32
  %n = nvvm.read.ptx.sreg.ntid.x : i32
  %b = arith.muli %bid, %n : i32
  %i = arith.addi %b, %tid : i32
  %px = llvm.getelementptr %x[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  %v = llvm.load %px : !llvm.ptr<1> -> i32
  %c8 = arith.constant 8 : i32
  %k = arith.remui %v, %c8 : i32
  %pb = llvm.getelementptr %bins[%k] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  %one = arith.constant 1 : i32
  %old = llvm.atomicrmw add %pb, %one syncscope("device") monotonic {alignment = 4 : i64} : !llvm.ptr<1>, i32
  llvm.fence syncscope("device") release
  %mx = llvm.atomicrmw max %total, %v monotonic {alignment = 4 : i64} : !llvm.ptr<1>, i32
  return
}
"""

FLOAT_SUM = """
func.func @fsum(%x: !llvm.ptr<1>, %sum: !llvm.ptr<1>) attributes {gpu.kernel} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %px = llvm.getelementptr %x[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  %v = llvm.load %px : !llvm.ptr<1> -> f32
  %old = llvm.atomicrmw fadd %sum, %v monotonic {alignment = 4 : i64} : !llvm.ptr<1>, f32
  return
}
"""


def test_integer_atomics(make):
    k = make(
        HISTOGRAM,
        "histogram",
        [("x", "pointer", "i32"), ("bins", "pointer", "i32"), ("total", "pointer", "i32")],
    )
    x = np.random.default_rng(4).integers(0, 1000, 512).astype(np.int32)
    bins = np.zeros(8, np.int32)
    top = np.zeros(1, np.int32)
    k(x, bins, top, grid=4, block=128)
    assert list(bins) == list(np.bincount(x % 8, minlength=8))
    assert top[0] == x.max()


def test_float_atomics(make):
    # libNVVM's IR has no floating-point atomicrmw: the GPU build uses LLVM's NVPTX.
    k = make(
        FLOAT_SUM, "fsum", [("x", "pointer", "f32"), ("sum", "pointer", "f32")], backend="llvm"
    )
    x = np.arange(64, dtype=np.float32) / 4  # exact in any order
    s = np.zeros(1, np.float32)
    k(x, s, grid=1, block=64)
    assert s[0] == x.sum()


@needs_nvjitlink
@pytest.mark.parametrize("arch", ARCHS)
def test_integer_atomics_and_fences_with_libnvvm(arch):
    binary = gpu_binary(HISTOGRAM, arch, "libnvvm")
    assert binary.cubin
    assert ptx_lines(binary, "atom.global.add.u32") and ptx_lines(binary, "atom.global.max.s32")
    assert ptx_lines(binary, "membar.gl;")


@needs_nvjitlink
@pytest.mark.parametrize("arch", ARCHS)
def test_float_atomics_with_llvm(arch):
    # libNVVM's IR has no floating-point atomicrmw; LLVM's NVPTX back end has.
    binary = gpu_binary(FLOAT_SUM, arch, "llvm")
    assert binary.cubin and ptx_lines(binary, "atom.global.add.f32")


FIRST_WINS = """
func.func @first(%flag: !llvm.ptr<1>, %old: !llvm.ptr<1>) attributes {gpu.kernel} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %one = arith.constant 1 : i32
  %me = arith.addi %tid, %one : i32
  %zero = arith.constant 0 : i32
  %r = llvm.cmpxchg %flag, %zero, %me syncscope("device") monotonic monotonic {alignment = 4 : i64} : !llvm.ptr<1>, i32
  %seen = llvm.extractvalue %r[0] : !llvm.struct<(i32, i1)>
  %p = llvm.getelementptr %old[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  llvm.store %seen, %p : i32, !llvm.ptr<1>
  return
}
"""


def test_compare_and_swap(make):
    k = make(FIRST_WINS, "first", [("flag", "pointer", "i32"), ("old", "pointer", "i32")])
    flag = np.zeros(1, np.int32)
    old = np.full(64, -1, np.int32)
    k(flag, old, grid=1, block=64)
    winners = np.nonzero(old == 0)[0]
    assert len(winners) == 1 and flag[0] == winners[0] + 1
    assert (old[old != 0] == flag[0]).all()  # everyone else saw the winner's value


@needs_nvjitlink
@pytest.mark.parametrize("arch", ARCHS)
def test_compare_and_swap_with_libnvvm(arch):
    binary = gpu_binary(FIRST_WINS, arch, "libnvvm")
    assert binary.cubin and ptx_lines(binary, "atom.global.cas.b32")
