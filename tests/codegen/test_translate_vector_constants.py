"""``dense<...>`` vector constants translated to LLVM vector constants: run on the CPU runtime
(and the GPU where there is one), and compiled to PTX for sm_80/sm_90 with their values as
immediates. Also an ``index`` vector constant through convert-to-llvm (retyped to i64)."""

from __future__ import annotations

import numpy as np
import pytest
from layoutc.codegen.translate import translate_host
from layoutc.ir.core import parse
from layoutc.passes.conversion.to_llvm import convert_to_llvm
from layoutc.runtime.abi import KernelSpec, Param
from layoutc.runtime.cpu_kernel import CpuKernel
from test_translate_support import ARCHS, RUNNERS, gpu_binary, needs_nvjitlink

THREADS = 8

KERNEL = """\
func.func @vconst(%a: !llvm.ptr<1>, %out: !llvm.ptr<1>, %ints: !llvm.ptr<1>, %halves: !llvm.ptr<1>) attributes {gpu.kernel} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %pa = llvm.getelementptr %a[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<4xf32>
  %x = llvm.load %pa {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
  %c = arith.constant dense<[1.500000e+00, -2.000000e+00, 3.250000e+00, 1.000000e+03]> : vector<4xf32>
  %two = arith.constant dense<2.000000e+00> : vector<4xf32>
  %s = arith.addf %x, %c : vector<4xf32>
  %y = arith.mulf %s, %two : vector<4xf32>
  %po = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<4xf32>
  llvm.store %y, %po {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
  %k = arith.constant dense<[7, -8, 9, 2147483647]> : vector<4xi32>
  %pi = llvm.getelementptr %ints[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<4xi32>
  llvm.store %k, %pi : vector<4xi32>, !llvm.ptr<1>
  %h = llvm.mlir.constant(dense<[1.500000e+00, -2.000000e+00]> : vector<2xbf16>) : vector<2xbf16>
  %ph = llvm.getelementptr %halves[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<2xbf16>
  llvm.store %h, %ph : vector<2xbf16>, !llvm.ptr<1>
  return
}
"""
PARAMS = [
    ("a", "pointer", "f32"),
    ("out", "pointer", "f32"),
    ("ints", "pointer", "i32"),
    ("halves", "pointer", "u16"),
]


@pytest.fixture(params=RUNNERS)
def make(request):
    return request.param


def test_vector_constants_run(make):
    kernel = make(KERNEL, "vconst", PARAMS)
    a = np.arange(4 * THREADS, dtype=np.float32)
    out = np.zeros(4 * THREADS, np.float32)
    ints = np.zeros(4 * THREADS, np.int32)
    halves = np.zeros(2 * THREADS, np.uint16)
    kernel(a, out, ints, halves, grid=1, block=THREADS)
    c = np.tile(np.array([1.5, -2.0, 3.25, 1000.0], np.float32), THREADS)
    np.testing.assert_array_equal(out, (a + c) * 2)
    np.testing.assert_array_equal(ints, np.tile(np.array([7, -8, 9, 2**31 - 1], np.int32), THREADS))
    np.testing.assert_array_equal(halves, np.tile(np.array([0x3FC0, 0xC000], np.uint16), THREADS))


@needs_nvjitlink
@pytest.mark.parametrize("arch", ARCHS)
def test_vector_constants_compile_to_ptx_immediates(arch):
    ptx = gpu_binary(KERNEL, arch).ptx
    for immediate in ("0f3FC00000", "0fC0000000", "0f40500000", "0f447A0000"):  # 1.5 -2 3.25 1000
        assert immediate in ptx
    assert "st.global.v4.f32" in ptx and "st.global.v4.u32" in ptx


def test_index_vector_constant_through_convert_to_llvm():
    text = """\
func.func @k(%p: !llvm.ptr<1>) attributes {gpu.kernel} {
  %c = arith.constant dense<[1, 2, -3, 4]> : vector<4xindex>
  %d = arith.index_cast %c : vector<4xindex> to vector<4xi32>
  llvm.store %d, %p : vector<4xi32>, !llvm.ptr<1>
  return
}"""
    module = parse(text)
    convert_to_llvm(module, "host")
    module.verify()
    assert "arith.constant dense<[1, 2, -3, 4]> : vector<4xi64>" in module.to_text()
    tr = translate_host(module)
    info = tr.kernels["k"]
    spec = KernelSpec("k", (Param("p", "pointer", "i32"),), launch_bounds=info.launch_bounds)
    out = np.zeros(4, np.int32)
    CpuKernel(tr.module, spec)(out, grid=1, block=1)
    np.testing.assert_array_equal(out, [1, 2, -3, 4])
