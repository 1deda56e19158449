"""convert-gpu-to-nvvm, executed: gpu ids, sizes, barrier and shuffles lowered through
convert-to-llvm, run on the CPU runtime and compiled for the GPU, against the gpu dialect's
meaning (MLIR: width-limited shuffles, the valid flag) modelled in Python here."""

from __future__ import annotations

import numpy as np
import pytest
from layoutc.codegen.cubin import nvjitlink_version
from layoutc.codegen.target import Target
from layoutc.codegen.toolchain import ToolchainOptions, compile_gpu
from layoutc.codegen.translate import translate_host, translate_nvvm
from layoutc.ir.core import parse
from layoutc.passes.conversion.to_llvm import convert_to_llvm
from layoutc.runtime.abi import KernelSpec, Param
from layoutc.runtime.cpu_kernel import CpuKernel

IDS = """
func.func @ids(%out: !tile.ptr<i32, gmem, 4>) attributes {gpu.kernel} {
  %tx = gpu.thread_id x
  %ty = gpu.thread_id y
  %bx = gpu.block_id x
  %by = gpu.block_id y
  %nx = gpu.block_dim x
  %ny = gpu.block_dim y
  %gx = gpu.grid_dim x
  %lane = gpu.lane_id
  %row = arith.muli %ty, %nx : index
  %t = arith.addi %row, %tx : index
  %threads = arith.muli %nx, %ny : index
  %brow = arith.muli %by, %gx : index
  %b = arith.addi %brow, %bx : index
  %boff = arith.muli %b, %threads : index
  %g = arith.addi %boff, %t : index
  %c4 = arith.constant 4 : index
  %base = arith.muli %g, %c4 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %i1 = arith.addi %base, %c1 : index
  %i2 = arith.addi %base, %c2 : index
  %i3 = arith.addi %base, %c3 : index
  %v0 = arith.index_cast %g : index to i32
  %v1 = arith.index_cast %lane : index to i32
  %v2 = arith.index_cast %threads : index to i32
  %gy = gpu.grid_dim y
  %blocks = arith.muli %gx, %gy : index
  %v3 = arith.index_cast %blocks : index to i32
  tile.store %v0, %out[%base] : !tile.ptr<i32, gmem, 4>
  tile.store %v1, %out[%i1] : !tile.ptr<i32, gmem, 4>
  tile.store %v2, %out[%i2] : !tile.ptr<i32, gmem, 4>
  tile.store %v3, %out[%i3] : !tile.ptr<i32, gmem, 4>
  return
}
"""

SHUFFLES = """
func.func @shuffles(%x: !tile.ptr<f32, gmem, 4>, %w: !tile.ptr<i64, gmem, 8>, %out: !tile.ptr<f32, gmem, 4>,
                    %wide: !tile.ptr<i64, gmem, 8>, %ok: !tile.ptr<i32, gmem, 4>, %offset: i32, %width: i32)
    attributes {gpu.kernel} {
  %t = gpu.thread_id x
  %v = tile.load %x[%t] : !tile.ptr<f32, gmem, 4> -> f32
  %d = tile.load %w[%t] : !tile.ptr<i64, gmem, 8> -> i64
  gpu.barrier
  %c4 = arith.constant 4 : index
  %base = arith.muli %t, %c4 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %i1 = arith.addi %base, %c1 : index
  %i2 = arith.addi %base, %c2 : index
  %i3 = arith.addi %base, %c3 : index
  %s0, %k0 = gpu.shuffle xor %v, %offset, %width : f32
  %s1, %k1 = gpu.shuffle up %v, %offset, %width : f32
  %s2, %k2 = gpu.shuffle down %v, %offset, %width : f32
  %s3, %k3 = gpu.shuffle idx %v, %offset, %width : f32
  %e, %ke = gpu.shuffle down %d, %offset, %width : i64
  tile.store %s0, %out[%base] : !tile.ptr<f32, gmem, 4>
  tile.store %s1, %out[%i1] : !tile.ptr<f32, gmem, 4>
  tile.store %s2, %out[%i2] : !tile.ptr<f32, gmem, 4>
  tile.store %s3, %out[%i3] : !tile.ptr<f32, gmem, 4>
  tile.store %e, %wide[%t] : !tile.ptr<i64, gmem, 8>
  %o0 = arith.extui %k0 : i1 to i32
  %o1 = arith.extui %k1 : i1 to i32
  %o2 = arith.extui %k2 : i1 to i32
  %o3 = arith.extui %k3 : i1 to i32
  tile.store %o0, %ok[%base] : !tile.ptr<i32, gmem, 4>
  tile.store %o1, %ok[%i1] : !tile.ptr<i32, gmem, 4>
  tile.store %o2, %ok[%i2] : !tile.ptr<i32, gmem, 4>
  tile.store %o3, %ok[%i3] : !tile.ptr<i32, gmem, 4>
  return
}
"""


def _cpu(text: str, name: str, params: tuple[Param, ...]) -> CpuKernel:
    m = parse(text)
    convert_to_llvm(m, "host")
    tr = translate_host(m)
    return CpuKernel(
        tr.module, KernelSpec(name, params, launch_bounds=tr.kernels[name].launch_bounds)
    )


def _gpu(text: str, name: str, params: tuple[Param, ...]):
    from test_to_llvm import gpu

    return gpu(text, name, params)


@pytest.fixture(
    params=[pytest.param(_cpu, id="cpu"), pytest.param(_gpu, id="gpu", marks=pytest.mark.gpu)]
)
def make(request):
    return request.param


def test_ids_and_sizes(make):
    k = make(IDS, "ids", (Param("out", "pointer", "i32"),))
    grid, block = (3, 2), (8, 6)
    n = 6 * 48
    out = np.zeros((n, 4), np.int32)
    k(out, grid=grid, block=block)
    assert list(out[:, 0]) == list(range(n))
    assert all(out[g, 1] == (g % 48) % 32 for g in range(n))  # lane = linear thread id % 32
    assert set(out[:, 2]) == {48} and set(out[:, 3]) == {6}


def _mlir_shuffle(mode: str, lane: int, offset: int, width: int, values: list) -> tuple:
    """gpu.shuffle: the value of the source lane, valid when it is inside [0, width)."""
    src = {"xor": lane ^ offset, "up": lane - offset, "down": lane + offset, "idx": offset}[mode]
    if 0 <= src < width:
        return values[src], True
    return values[lane], False


@pytest.mark.parametrize(("offset", "width"), [(1, 32), (4, 32), (3, 16), (17, 32)])
def test_shuffles(make, offset, width):
    params = (
        Param("x", "pointer", "f32"),
        Param("w", "pointer", "i64"),
        Param("out", "pointer", "f32"),
        Param("wide", "pointer", "i64"),
        Param("ok", "pointer", "i32"),
        Param("offset", "scalar", "i32"),
        Param("width", "scalar", "i32"),
    )
    k = make(SHUFFLES, "shuffles", params)
    x = np.arange(width, dtype=np.float32) * 1.5
    w = (np.arange(width, dtype=np.int64) << 33) - 7
    out = np.zeros((width, 4), np.float32)
    wide = np.zeros(width, np.int64)
    ok = np.zeros((width, 4), np.int32)
    k(x, w, out, wide, ok, offset, width, grid=1, block=width)  # one (partial) warp of `width`
    for lane in range(width):
        for m, mode in enumerate(("xor", "up", "down", "idx")):
            value, valid = _mlir_shuffle(mode, lane, offset, width, list(x))
            assert (out[lane, m], bool(ok[lane, m])) == (value, valid), (mode, lane)
        assert wide[lane] == _mlir_shuffle("down", lane, offset, width, list(w))[0]


@pytest.mark.skipif(nvjitlink_version() is None, reason="nvJitLink not installed")
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_gpu_kernels_compile(arch):
    target = Target.parse(arch)
    for text in (IDS, SHUFFLES):
        m = parse(text)
        convert_to_llvm(m, "nvvm")
        b = compile_gpu(translate_nvvm(m, target).module, target, ToolchainOptions(cubin="always"))
        assert b.cubin
        if text is SHUFFLES:
            assert "shfl.sync.down.b32" in b.ptx and "bar.sync" in b.ptx
