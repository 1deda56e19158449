"""GPU inline asm is ``convergent`` (as clang marks CUDA device inline asm): LLVM must not make
a warp-collective instruction (``bar.sync``, the ``.sync.aligned`` ones) control-dependent on
more values, e.g. by tail-duplicating it into a branch only some lanes take. Without it, LLVM
duplicated a ``bar.sync`` after ``if (lane == 0) cp.async.bulk.wait_group.read`` into both
paths, and the sm90 GEMM hung on an H100 (docs/hopper.md)."""

from __future__ import annotations

import re

from layoutc.codegen.target import Target
from test_translate_support import module, translate_nvvm

KERNEL = """
func.func @k(%p: !llvm.ptr<1>) attributes {gpu.kernel} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %x = llvm.inline_asm "mov.b32 $0, $1;", "=r,r" %tid : (i32) -> i32
  llvm.inline_asm has_side_effects "bar.sync 1, 128;", "" : () -> ()
  %q = llvm.getelementptr %p[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  llvm.store %x, %q : i32, !llvm.ptr<1>
  return
}
"""


def test_every_gpu_inline_asm_call_is_convergent():
    ir_text = str(translate_nvvm(module(KERNEL), Target.parse("sm_90")).module)
    calls = [ln for ln in ir_text.splitlines() if re.search(r"\bcall\b.*\basm\b", ln)]
    assert len(calls) == 2, ir_text
    for line in calls:
        assert line.rstrip().endswith("convergent"), line
