"""16-bit register pairs move whole through register fragments: the two stores of an ldmatrix
register's halves into adjacent, pair-aligned fragment elements become one 32-bit vector store,
the two loads of an MMA register's halves one vector load (so SROA never splits a pair and a
fragment carried around a loop stays in 32-bit registers); other accesses are left alone; the
MMA computes the same on the CPU runtime."""

from __future__ import annotations

import numpy as np
import pytest
from layoutc.ir.core import parse
from layoutc.passes.conversion.to_llvm import convert_to_llvm
from layoutc.runtime.abi import Param
from test_to_llvm import cpu

# lane l loads row l of a 32x8 f16 tile with ldmatrix.x4 (8 halves), stores them into a
# fragment (halves 0..7 at elements 0..7, or shifted by one: odd offsets, no pairs), loads them
# back as the A operand of an m16n8k16 MMA (B: the first four), and writes D
KERNEL = """
func.func @frag(%src: !tile.ptr<f16, gmem, 16>, %out: !tile.ptr<f32, gmem, 16>)
    attributes {{gpu.kernel, gpu.known_block_size = array<i32: 32, 1, 1>}} {{
  %lane = gpu.lane_id
  %s = tile.alloc_smem : !tile.tensor<f16, smem, "(32,8):(8,1)", 16>
  %r = tile.alloc_fragment : !tile.tensor<f16, rmem, "(10):(1)", 2>
  %p = tile.get_ptr %r : !tile.tensor<f16, rmem, "(10):(1)", 2> -> !tile.ptr<f16, rmem, 2>
  %c8 = arith.constant 8 : index
  %e = arith.muli %lane, %c8 : index
  tile.cp_async %src[%e], %s[(%lane, 0)] {{bytes = 16 : i64, cache = "cg"}} : !tile.ptr<f16, gmem, 16>, !tile.tensor<f16, smem, "(32,8):(8,1)", 16>
  tile.cp_async_wait {{pending = 0 : i64}}
  gpu.barrier
  %v:8 = tile.ldmatrix %s[(%lane, 0)] {{atom = #tile.copy_atom<"ldmatrix.x4", 128>}} : !tile.tensor<f16, smem, "(32,8):(8,1)", 16> -> f16
{stores}
{loads}
  %z = arith.constant 0.0 : f32
  %d:4 = tile.mma #tile.mma_atom<"SM80_16x8x16_F32F16F16F32_TN"> (%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7), (%a0, %a1, %a2, %a3), (%z, %z, %z, %z) : f16, f16, f32 -> f32
  %c4 = arith.constant 4 : index
  %o = arith.muli %lane, %c4 : index
  tile.store %d#0, %out[%o] : !tile.ptr<f32, gmem, 16>
  return
}}
"""


def kernel(shift: int) -> str:
    stores = "\n".join(
        f"  tile.store %v#{k}, %p[{k + shift}] : !tile.ptr<f16, rmem, 2>" for k in range(8)
    )
    loads = "\n".join(
        f"  %a{k} = tile.load %p[{k + shift}] : !tile.ptr<f16, rmem, 2> -> f16" for k in range(8)
    )
    return KERNEL.format(stores=stores, loads=loads)


def _ops(text: str, target: str) -> list:
    m = parse(text)
    convert_to_llvm(m, target)
    m.verify()
    return [op for op in m.walk_ops()], m.to_text()


def test_aligned_pairs_move_as_vectors():
    ops, text = _ops(kernel(0), "nvvm")
    stores = [op for op in ops if op.name == "llvm.store"]
    loads = [op for op in ops if op.name == "llvm.load"]
    assert sum("vector<2xf16>" in op.operands[0].type.text for op in stores) == 4, text
    assert sum(op.results[0].type.text == "vector<2xf16>" for op in loads) == 4, text
    assert not any(op.results[0].type.text == "f16" for op in loads), text


def test_odd_offsets_are_left_alone():
    ops, text = _ops(kernel(1), "nvvm")
    assert not any(
        op.name == "llvm.store" and "vector" in op.operands[0].type.text for op in ops
    ), text
    assert sum(op.name == "llvm.load" and op.results[0].type.text == "f16" for op in ops) == 8


@pytest.mark.parametrize("shift", [0, 1])
def test_the_mma_computes_the_same(shift):
    params = (Param("src", "pointer", "f16", align=16), Param("out", "pointer", "f32", align=16))
    src = (np.arange(256) % 7 - 3).astype(np.float16)
    results = []
    for text in (kernel(shift), kernel(1 - shift)):
        out = np.full(128, np.nan, np.float32)
        cpu(text, "frag", params)(src, out, grid=1, block=32)
        results.append(out)
    np.testing.assert_array_equal(results[0], results[1])
    assert not np.isnan(results[0][::4]).any()
