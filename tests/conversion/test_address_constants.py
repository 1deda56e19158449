"""Constant parts of an element offset become a GEP of their own (the address's immediate):
``p[x + c]`` is ``(p + x) + c`` (index arithmetic does not wrap), and the kernel computes the
same values on the CPU runtime."""

from __future__ import annotations

import numpy as np
from layoutc.ir.core import parse
from layoutc.passes.conversion.to_llvm import convert_to_llvm
from layoutc.runtime.abi import Param
from test_to_llvm import cpu

KERNEL = """
func.func @shift(%src: !tile.ptr<f32, gmem, 4>, %dst: !tile.ptr<f32, gmem, 4>)
    attributes {gpu.kernel, gpu.known_block_size = array<i32: 4, 1, 1>} {
  %c5 = arith.constant 5 : index
  %c2 = arith.constant 2 : index
  %t = gpu.thread_id x
  %x = arith.addi %t, %c5 : index
  %y = arith.subi %x, %c2 : index
  %v = tile.load %src[%y] : !tile.ptr<f32, gmem, 4> -> f32
  tile.store %v, %dst[%t] : !tile.ptr<f32, gmem, 4>
  return
}
"""


def test_constant_offsets_get_their_own_gep():
    m = parse(KERNEL)
    convert_to_llvm(m, "nvvm")
    geps = [op for op in m.walk_ops() if op.name == "llvm.getelementptr"]
    text = m.to_text()
    # the load's address: (src + t) + 3 (5 - 2 peeled off the adds), the store's: dst + t
    assert len(geps) == 3, text
    inner, outer, store = geps
    assert outer.operands[0] is inner.results[0], text
    assert "getelementptr %2[3]" in text.replace("%3 = llvm.", ""), text
    assert inner.operands[1] is store.operands[1], text  # both index with the thread id


def test_the_addresses_are_the_same_on_the_cpu():
    params = (Param("src", "pointer", "f32", align=4), Param("dst", "pointer", "f32", align=4))
    k = cpu(KERNEL, "shift", params)
    src = np.arange(16, dtype=np.float32)
    dst = np.full(4, np.nan, np.float32)
    k(src, dst, grid=1, block=4)
    np.testing.assert_array_equal(dst, src[3:7])
