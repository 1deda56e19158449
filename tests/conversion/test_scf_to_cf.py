"""convert-scf-to-cf preserves meaning: nested loops with iter_args, ifs with results and while
loops, lowered, translated and run on the CPU, against the same program in Python for
hypothesis-chosen bounds (unsigned loops included)."""

from __future__ import annotations

import functools
import os

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from layoutc.codegen.translate import translate_host
from layoutc.ir.core import parse
from layoutc.passes.conversion.scf_to_cf import lower_scf_to_cf
from layoutc.runtime.abi import KernelSpec, Param
from layoutc.runtime.cpu_kernel import CpuKernel

# out[0] = sum_{i<n} (if i % 3 == 0: i * m else: sum_{j<i, step 2} j)
# out[1] = the number of halvings of n + m until it is below k (a while loop)
# out[2] = sum over an unsigned loop from k to n + k of i
PROGRAM = """
func.func @prog(%n: i64, %m: i64, %k: i64, %out: !llvm.ptr<1>) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (i64) : i64 {
    %r = arith.remsi %i, %c3 : i64
    %z = arith.cmpi eq, %r, %c0 : i64
    %t = scf.if %z -> (i64) {
      %p = arith.muli %i, %m : i64
      scf.yield %p : i64
    } else {
      %q = scf.for %j = %c0 to %i step %c2 iter_args(%b = %c0) -> (i64) : i64 {
        %u = arith.addi %b, %j : i64
        scf.yield %u : i64
      }
      scf.yield %q : i64
    }
    %next = arith.addi %acc, %t : i64
    scf.yield %next : i64
  }
  %start = arith.addi %n, %m : i64
  %w:2 = scf.while (%x = %start, %cnt = %c0) : (i64, i64) -> (i64, i64) {
    %go = arith.cmpi sge, %x, %k : i64
    scf.condition(%go) %x, %cnt : i64, i64
  } do {
  ^bb0(%y: i64, %c: i64):
    %h = arith.shrsi %y, %c1 : i64
    %c_next = arith.addi %c, %c1 : i64
    scf.yield %h, %c_next : i64, i64
  }
  %end = arith.addi %n, %k : i64
  %us = scf.for unsigned %i = %k to %end step %c1 iter_args(%a = %c0) -> (i64) : i64 {
    %v = arith.addi %a, %i : i64
    scf.yield %v : i64
  }
  %p1 = llvm.getelementptr %out[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i64
  %p2 = llvm.getelementptr %out[2] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i64
  llvm.store %s, %out : i64, !llvm.ptr<1>
  llvm.store %w#1, %p1 : i64, !llvm.ptr<1>
  llvm.store %us, %p2 : i64, !llvm.ptr<1>
  return
}
"""


def reference(n: int, m: int, k: int) -> list[int]:
    s = sum(i * m if i % 3 == 0 else sum(range(0, i, 2)) for i in range(n))
    x, count = n + m, 0
    while x >= k:
        x >>= 1
        count += 1
    return [s, count, sum(range(k, n + k))]


@functools.cache
def kernel() -> CpuKernel:
    m = parse(PROGRAM)
    lower_scf_to_cf(m)
    m.verify()
    assert "scf." not in m.to_text()
    params = (*(Param(x, "scalar", "i64") for x in "nmk"), Param("out", "pointer", "i64"))
    return CpuKernel(translate_host(m).module, KernelSpec("prog", params))


@settings(max_examples=15 if os.environ.get("CI") else 40, deadline=None)
@given(st.integers(0, 40), st.integers(-5, 50), st.integers(1, 30))
def test_lowered_control_flow_computes_the_same(n, m, k):
    out = np.zeros(3, np.int64)
    kernel()(n, m, k, out, grid=1, block=1)
    assert list(out) == reference(n, m, k)
